package operators

import (
	"maps"
	"slices"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// A legacy group window's emit strategy (Flink's WindowEmitStrategy and
// the AfterEndOfWindowEarlyAndLate trigger of its WindowOperator): a
// window may fire early (before the watermark passes its end), on time,
// and late (a row within the allowed lateness after it fired on time).
// Each firing after the first emits -U of the previous result and +U of
// the new one when they differ, and -D of the previous result when the
// window's rows were all retracted (AggregateWindowOperator.
// emitWindowResult); the window's state is dropped when the watermark
// passes its end - 1 + allowed lateness (WindowOperator's cleanup timer).

// windowFire is the per-window emit state: the result last emitted
// (Flink's previousState), whether the window fired on time (the
// trigger's hasFiredOnTime) and the processing time of its pending
// delayed firing (ProcessingTimeTriggers.every's next firing; 0: none).
type windowFire struct {
	prev  []any
	fired bool
	next  int64
}

var windowFireCodec = state.Codec[*windowFire]{
	Encode: func(e *state.Encoder, f *windowFire) error {
		flags := uint64(0)
		if f.fired {
			flags |= 1
		}
		if f.prev != nil {
			flags |= 2
		}
		e.Uvarint(flags)
		e.Varint(f.next)
		if f.prev != nil {
			return e.Values(f.prev)
		}
		return nil
	},
	Decode: func(d *state.Decoder) (*windowFire, error) {
		flags, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		f := &windowFire{fired: flags&1 != 0}
		if f.next, err = d.Varint(); err != nil {
			return nil, err
		}
		if flags&2 != 0 {
			if f.prev, err = d.Values(); err != nil {
				return nil, err
			}
		}
		return f, nil
	},
}

// emits reports a spec whose windows may fire more than once or outlive
// their on-time firing: it keeps the emit state beside the accumulators.
func (s *WindowSpec) emits() bool {
	return s.EarlyFire || s.LateFire || s.AllowLateness > 0 || s.ProduceUpdates
}

// cleanup is the watermark at which a window ending at end is dropped
// (WindowOperator.cleanupTime: its max timestamp plus the allowed
// lateness, without overflow).
func (s *WindowSpec) cleanup(end int64) int64 {
	c := s.cleanupLocal(end)
	if c == never {
		return 1<<63 - 1
	}
	return sql.WindowTimer(c, s.Zone)
}

// never is the cleanupLocal of a window whose allowed lateness reaches
// past the largest timestamp: it is never dropped.
const never = 1<<63 - 2

// cleanupLocal is cleanup before the shift to the session time zone: the
// window's max timestamp plus the allowed lateness, a wall clock in Zone
// as the window's bounds are (registerCleanupTimer's cleanupTime before
// toEpochMillsForTimer).
func (s *WindowSpec) cleanupLocal(end int64) int64 {
	if s.ProcTime {
		return end - 1
	}
	if c := end - 1 + s.AllowLateness; c >= end-1 && c < never {
		return c
	}
	return never // tracked at never + 1 without overflow
}

// fireState is the emit state of window key k (a new one when absent).
func (w *windowAgg) fireState(k string) (*windowFire, error) {
	f, ok, err := w.fires.Get(k)
	if err != nil || ok {
		return f, err
	}
	return &windowFire{}, nil
}

// onElement is the trigger's onElement for window key k (ending at end)
// after a row changed it: it fires now, schedules a delayed firing, or
// does nothing (the on-time firing comes with the watermark).
func (w *windowAgg) onElement(k string, end int64, out *runtime.Collector) error {
	if !w.spec.EarlyFire && !w.spec.LateFire {
		return nil
	}
	f, err := w.fireState(k)
	if err != nil {
		return err
	}
	enabled, delay := w.spec.EarlyFire, w.spec.EarlyDelay
	switch {
	case f.fired:
		// Late phase: the late trigger (none on processing time).
		enabled, delay = w.spec.LateFire && !w.spec.ProcTime, w.spec.LateDelay
	case !w.spec.ProcTime && end-1 <= w.wm:
		// Past the window's end but not fired (a restored operator
		// before its first watermark): Flink fires on every such row.
		enabled, delay = true, 0
	}
	if !enabled {
		return nil
	}
	if delay == 0 {
		return w.emitWindow(k, f, out)
	}
	if f.next == 0 {
		// ProcessingTimeTriggers.every: the first row after a firing
		// schedules the next one a delay later.
		f.next = w.now().UnixMilli() + delay
		w.delayed[k] = f.next
		return w.fires.Put(k, f)
	}
	return nil
}

// emitWindow emits window key k's result under the emit strategy and
// stores its emit state f.
func (w *windowAgg) emitWindow(k string, f *windowFire, out *runtime.Collector) error {
	grp, ok, err := w.agg.groups.Get(k)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	vals, err := w.windowResult(k, grp, w.now().UnixMilli())
	if err != nil {
		return err
	}
	switch {
	case !w.spec.ProduceUpdates:
		if grp.rows != 0 {
			out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
		}
	case grp.rows != 0 && f.prev == nil:
		out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
		f.prev = vals
	case grp.rows != 0:
		if !ValuesEqual(vals, f.prev) {
			out.Emit(sql.Row{Kind: sql.UpdateBefore, Values: f.prev})
			out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: vals})
			f.prev = vals
		}
	case f.prev != nil:
		// The window's last row was retracted.
		out.Emit(sql.Row{Kind: sql.Delete, Values: f.prev})
		f.prev = nil
	}
	return w.fires.Put(k, f)
}

// fireEmitting is fire for a spec that emits: a window whose end - 1 the
// time t reached fires on time unless it did, then stays (tracked at its
// cleanup time) until t reaches its cleanup time.
func (w *windowAgg) fireEmitting(t int64, out *runtime.Collector) error {
	for len(w.ends) > 0 && w.spec.fired(w.ends[0], t) {
		at := w.ends[0]
		for _, k := range slices.Sorted(maps.Keys(w.pending[at])) {
			_, end := parseWindowKey(k)
			f, err := w.fireState(k)
			if err != nil {
				return err
			}
			if !f.fired {
				// The on-time firing ends the early trigger's pending one.
				f.fired, f.next = true, 0
				delete(w.delayed, k)
				if err := w.emitWindow(k, f, out); err != nil {
					return err
				}
			}
			if w.spec.cleanup(end) > t {
				w.untrack(at, k)
				w.track(w.spec.cleanupLocal(end)+1, k)
				continue
			}
			if err := w.agg.groups.Delete(k); err != nil {
				return err
			}
			if err := w.fires.Delete(k); err != nil {
				return err
			}
			delete(w.delayed, k)
			w.untrack(at, k)
		}
	}
	return nil
}

// onDelayed fires the windows whose delayed firing is due at processing
// time now (ProcessingTimeTriggers.every.onProcessingTime).
func (w *windowAgg) onDelayed(now int64, out *runtime.Collector) error {
	var due []string
	for k, t := range w.delayed {
		if t <= now {
			due = append(due, k)
		}
	}
	slices.Sort(due)
	for _, k := range due {
		delete(w.delayed, k)
		f, err := w.fireState(k)
		if err != nil {
			return err
		}
		f.next = 0
		if err := w.emitWindow(k, f, out); err != nil {
			return err
		}
	}
	return nil
}

// delayInterval is how often an emitting window aggregate with a firing
// delay looks for due firings.
func (s *WindowSpec) delayInterval() time.Duration {
	if (s.EarlyFire && s.EarlyDelay > 0) || (s.LateFire && s.LateDelay > 0) {
		return procTimerInterval
	}
	return 0
}

// restoreFires rebuilds the timers of an emitting window aggregate from
// its state: a window that fired on time waits for its cleanup.
func (w *windowAgg) restoreFires() error {
	return w.fires.Range(func(k string, f *windowFire) error {
		_, end := parseWindowKey(k)
		if f.fired && !w.spec.ProcTime {
			if _, ok := w.pending[end][k]; ok {
				w.untrack(end, k)
				w.track(w.spec.cleanupLocal(end)+1, k)
			}
		}
		if f.next != 0 {
			w.delayed[k] = f.next
		}
		return nil
	})
}
