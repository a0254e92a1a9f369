package operators

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// SessionTableFunction is Flink's UnalignedWindowTableFunctionOperator: a
// SESSION window table function on event time that no window aggregate
// absorbs. Per partition key (spec.GroupKeys, the PARTITION BY keys; the
// input is hash-distributed on them), a row opens the session [ts, ts +
// gap) and merges with the pending sessions it intersects, as Flink's
// MergingWindowSet with a SessionWindowAssigner (and windowAgg.addSession);
// a row whose session merges with none and has fired is late and dropped,
// as is a row with a NULL rowtime. When the watermark reaches a session's
// end - 1 it fires once: its rows are emitted in the order they arrived
// (Flink's per-key counter), each followed by window_start, window_end and
// window_time (end - 1 ms). Pending sessions and their rows are keyed
// state, so a restored job fires the same sessions.
//
// With ProcTime a row's time is the operator's clock when it arrives
// (runtime.Context.Clock; its columns are not read), nothing is late,
// watermarks fire nothing, and a session fires when a processing-time tick
// finds the clock at or past its end - 1, as the operator's
// ProcessingTimeTriggers.afterEndOfWindow; window_time is still end - 1
// (WindowTableFunctionOperatorBase.collect writes the window's
// maxTimestamp), a processing-time attribute the Calc above materializes.
// As for processing-time window aggregates, sessions that have not fired
// when a bounded input ends are not emitted.
func SessionTableFunction(spec WindowSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		w := &sessionTVF{spec: spec}
		if spec.ProcTime {
			return &procSessionTVF{sessionTVF: w}, nil
		}
		return w, nil
	}
}

// procSessionTVF is SessionTableFunction on processing time.
type procSessionTVF struct {
	*sessionTVF
	now func() time.Time
}

func (w *procSessionTVF) Open(ctx *runtime.Context, restored []byte) error {
	w.now = ctx.Clock()
	return w.sessionTVF.Open(ctx, restored)
}

func (w *procSessionTVF) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	now := w.now().UnixMilli()
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("WindowTableFunction(SESSION) expects insert-only input, got %s", r.Kind)
		}
		w.enc.Buf = w.enc.Buf[:0]
		if err := state.AppendKey(&w.enc, r, w.spec.GroupKeys); err != nil {
			return fmt.Errorf("WindowTableFunction(SESSION) key: %w", err)
		}
		if err := w.add(r, now); err != nil {
			return err
		}
	}
	return nil
}

// ProcessWatermark fires nothing: processing-time sessions ignore event
// time.
func (w *procSessionTVF) ProcessWatermark(int64, *runtime.Collector) error { return nil }

// TimerInterval is how often the runtime calls OnProcessingTime.
func (w *procSessionTVF) TimerInterval() time.Duration { return procTimerInterval }

// OnProcessingTime fires the sessions whose end - 1 the clock reached.
func (w *procSessionTVF) OnProcessingTime(_ time.Time, out *runtime.Collector) error {
	return w.fire(w.now().UnixMilli(), out)
}

type sessionTVF struct {
	runtime.Base
	spec WindowSpec
	// rows holds each pending session's rows, each with its arrival
	// number appended, keyed by windowKey(start, end, partition key).
	rows     state.Table[[]sql.Row]
	sessions map[string][]span // pending sessions per partition key
	windowTimers
	next int64 // the next arrival number
	wm   int64
	enc  state.Encoder
}

func (w *sessionTVF) Open(ctx *runtime.Context, restored []byte) error {
	w.wm = runtime.MinWatermark
	w.pending = map[int64]map[string]struct{}{}
	w.sessions = map[string][]span{}
	// Cleaned up when a session fires, never by table.exec.state.ttl.
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if w.rows, err = state.NewTable(b, "sessions", state.RowsCodec); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	if err := w.rows.Restore(restored); err != nil {
		return err
	}
	return w.rows.Range(func(k string, rows []sql.Row) error {
		start, end := parseWindowKey(k)
		w.track(end, k)
		w.sessions[k[16:]] = append(w.sessions[k[16:]], span{start, end})
		for _, r := range rows {
			if n, ok := r.Values[len(r.Values)-1].(int64); ok && n >= w.next {
				w.next = n + 1
			}
		}
		return nil
	})
}

func (w *sessionTVF) Snapshot(int64) ([]byte, error) { return w.rows.Snapshot() }

func (w *sessionTVF) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("WindowTableFunction(SESSION) expects insert-only input, got %s", r.Kind)
		}
		if r.Values[w.spec.TimeCol] == nil {
			continue
		}
		ts, ok := r.Values[w.spec.TimeCol].(sql.TimestampData)
		if !ok {
			return fmt.Errorf("WindowTableFunction(SESSION): rowtime is %T, not a TIMESTAMP", r.Values[w.spec.TimeCol])
		}
		w.enc.Buf = w.enc.Buf[:0]
		if err := state.AppendKey(&w.enc, r, w.spec.GroupKeys); err != nil {
			return fmt.Errorf("WindowTableFunction(SESSION) key: %w", err)
		}
		if err := w.add(r, ts.Millis); err != nil {
			return err
		}
	}
	return nil
}

// add puts row r (partition key in w.enc.Buf) in its session, merging the
// pending sessions of the key that [ts, ts + gap) intersects.
func (w *sessionTVF) add(r sql.Row, ts int64) error {
	gk := string(w.enc.Buf)
	keep, merged, start, end := mergeSessions(w.sessions[gk], ts, ts+w.spec.Size)
	if len(merged) == 0 && w.wm >= end-1 {
		return nil // late
	}
	var all []sql.Row
	for _, s := range merged {
		k := windowKey(s.start, s.end, w.enc.Buf)
		rs, ok, err := w.rows.Get(k)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("WindowTableFunction(SESSION): session [%d, %d) missing from state", s.start, s.end)
		}
		all = append(all, rs...)
		if err := w.rows.Delete(k); err != nil {
			return err
		}
		w.untrack(s.end, k)
	}
	vals := make([]any, len(r.Values), len(r.Values)+1)
	copy(vals, r.Values)
	all = append(all, sql.Row{Kind: sql.Insert, Values: append(vals, w.next)})
	w.next++
	k := windowKey(start, end, w.enc.Buf)
	if err := w.rows.Put(k, all); err != nil {
		return err
	}
	w.track(end, k)
	w.sessions[gk] = append(keep, span{start, end})
	return nil
}

// ProcessWatermark fires the sessions whose end - 1 the watermark reached.
func (w *sessionTVF) ProcessWatermark(wm int64, out *runtime.Collector) error {
	w.wm = wm
	return w.fire(wm, out)
}

// fire emits and drops the sessions whose end - 1 is at most t, in the
// order of their ends.
func (w *sessionTVF) fire(t int64, out *runtime.Collector) error {
	for len(w.ends) > 0 && w.ends[0]-1 <= t {
		end := w.ends[0]
		for _, k := range slices.Sorted(maps.Keys(w.pending[end])) {
			rows, ok, err := w.rows.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			sort.Slice(rows, func(i, j int) bool {
				return rows[i].Values[len(rows[i].Values)-1].(int64) < rows[j].Values[len(rows[j].Values)-1].(int64)
			})
			start, _ := parseWindowKey(k)
			for _, r := range rows {
				n := len(r.Values) - 1
				vals := make([]any, n, n+3)
				copy(vals, r.Values[:n])
				vals = append(vals, sql.TimestampData{Millis: start}, sql.TimestampData{Millis: end}, sql.TimestampData{Millis: end - 1})
				out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
			}
			if err := w.rows.Delete(k); err != nil {
				return err
			}
			dropSession(w.sessions, k[16:], start)
		}
		delete(w.pending, end)
		w.ends = w.ends[1:]
	}
	return nil
}
