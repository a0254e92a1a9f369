package operators

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// WindowKind is a window table-valued function.
type WindowKind uint8

const (
	// Tumble is TUMBLE(size [, offset]).
	Tumble WindowKind = iota
	// Hop is HOP(slide, size [, offset]).
	Hop
	// Cumulate is CUMULATE(step, max size [, offset]).
	Cumulate
	// Session is SESSION(gap) (Size is the gap): per group key, a row
	// opens [ts, ts + gap) and merges with the pending windows it
	// intersects, as Flink's SessionWindowAssigner / MergingWindowSet.
	Session
)

// WindowSpec configures WindowAggregate. Durations are milliseconds.
type WindowSpec struct {
	Kind WindowKind
	// Size is the window size (CUMULATE: the max size); Slide is HOP's
	// slide, Step CUMULATE's step.
	Size, Slide, Step, Offset int64
	// TimeCol is the rowtime column (a TIMESTAMP(3)).
	TimeCol   int
	GroupKeys []int
	Aggs      []AggSpec
	// WindowTime also emits window_time (window_end - 1 ms; on processing
	// time, the clock's time when the window fires).
	WindowTime bool
	// ProcTime windows on processing time: a row falls in the windows of
	// the operator's clock when it arrives (TimeCol is not read), and a
	// window fires when the clock reaches its end - 1.
	ProcTime bool
	// NoProperties emits only the keys and aggregates: a group window
	// (GROUP BY TUMBLE(...)) whose query reads no window property, which
	// Flink's GroupWindowAggregate then does not output.
	NoProperties bool
	// The emit strategy of a legacy group window (windowemit.go):
	// early / late firing (a delay of 0 fires on every row), the allowed
	// lateness in milliseconds, and whether later firings update the
	// first one's result.
	EarlyFire, LateFire   bool
	EarlyDelay, LateDelay int64
	AllowLateness         int64
	ProduceUpdates        bool
	// Zone is the session time zone windows over a TIMESTAMP_LTZ (or
	// processing-time) attribute align in (nil: UTC), as Flink's window
	// operators with a shiftTimeZone: a row's time is read as its wall
	// clock in Zone (TimeWindowUtil.toUtcTimestampMills), window_start and
	// window_end are wall clocks, a window fires when the watermark or the
	// clock reaches the instant of its end - 1 (toEpochMillsForTimer), and
	// window_time is the instant of its end less 1 ms (toEpochMills).
	Zone *time.Location
	// Attached reads each row's window from its window_start and
	// window_end fields WinStart and WinEnd (TIMESTAMP(3) wall clocks
	// in Zone, as a WindowTableFunction below wrote them) instead of
	// assigning it from TimeCol: Flink's WindowAttachedWindowingStrategy.
	Attached         bool
	WinStart, WinEnd int
}

// fired reports whether the window ending at end (a wall clock in the
// spec's zone) has fired at watermark or clock t (isWindowFired).
func (s *WindowSpec) fired(end, t int64) bool {
	if end > never {
		return false // a window kept for ever (cleanupLocal)
	}
	return sql.WindowTimer(end-1, s.Zone) <= t
}

// windowTime is the event-time window_time of the window ending at end.
func (s *WindowSpec) windowTime(end int64) int64 {
	return sql.EpochOfWindow(end, s.Zone) - 1
}

// windowStart is Flink's TimeWindow.getWindowStartWithOffset.
func windowStart(ts, offset, size int64) int64 {
	return ts - (ts-offset+size)%size
}

// lastWindowEnd is the end of the last window a row at ts belongs to.
func (s *WindowSpec) lastWindowEnd(ts int64) int64 {
	if s.Kind == Hop {
		return windowStart(ts, s.Offset, s.Slide) + s.Size
	}
	return windowStart(ts, s.Offset, s.Size) + s.Size
}

// windows calls fn with every window [start, end) a row at ts belongs to.
func (s *WindowSpec) windows(ts int64, fn func(start, end int64) error) error {
	switch s.Kind {
	case Hop:
		for start := windowStart(ts, s.Offset, s.Slide); start > ts-s.Size; start -= s.Slide {
			if err := fn(start, start+s.Size); err != nil {
				return err
			}
		}
	case Cumulate:
		start := windowStart(ts, s.Offset, s.Size)
		for end := windowStart(ts, s.Offset, s.Step) + s.Step; end <= start+s.Size; end += s.Step {
			if err := fn(start, end); err != nil {
				return err
			}
		}
	default:
		start := windowStart(ts, s.Offset, s.Size)
		return fn(start, start+s.Size)
	}
	return nil
}

// WindowAggregate is Flink's event-time window aggregation over a window
// TVF (WindowAggregate / SlicingWindowOperator): rows are added to every
// window their rowtime falls in, per group key; when the watermark reaches
// a window's end - 1 the window fires once, emitting one insert row per
// group (keys, aggregates, window_start, window_end[, window_time]) and
// dropping its state. A row is late when every window it belongs to has
// fired, and dropped, as Flink drops it; a row whose slice has fired but
// not its last window still counts in the windows that have not fired
// (Flink's sliceStateMergeTarget). Pending windows are keyed state, so they
// survive checkpoints and restores and fire after a restore.
//
// With ProcTime the windows are on processing time, as Flink's
// SlicingWindowOperator with a processing-time assigner (and, for SESSION,
// UnsliceWindowAggProcessor: a row opens [now, now + gap) and merges as
// above): a row belongs to the windows of the operator's clock
// (runtime.Context.Clock) when it arrives, whatever its columns hold;
// nothing is late; watermarks fire
// nothing; a window fires once, when a processing-time tick finds the
// clock at or past its end - 1 (Flink's processing-time timer at
// window end - 1, WindowTimerServiceImpl), and window_time is the clock's
// time then (Flink's proctime window property, materialized downstream).
// As in Flink, windows that have not fired when a bounded input ends are
// not emitted (a finishing task quiesces its processing-time timers); a
// restored job fires the pending windows its clock has passed at its first
// tick.
func WindowAggregate(spec WindowSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		w := &windowAgg{spec: spec, agg: groupAgg{spec: AggregateSpec{GroupKeys: spec.GroupKeys, Aggs: spec.Aggs}}}
		if spec.ProcTime {
			return &procWindowAgg{windowAgg: w}, nil
		}
		return w, nil
	}
}

// procTimerInterval is how often a processing-time window aggregate looks
// for windows to fire (the latency of a firing past its end - 1).
const procTimerInterval = 10 * time.Millisecond

// procWindowAgg is WindowAggregate on processing time.
type procWindowAgg struct {
	*windowAgg
	now func() time.Time
}

func (w *procWindowAgg) Open(ctx *runtime.Context, restored []byte) error {
	w.now = ctx.Clock()
	return w.windowAgg.Open(ctx, restored)
}

func (w *procWindowAgg) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	ts := sql.LocalMillis(w.now().UnixMilli(), w.spec.Zone)
	for _, r := range rows {
		w.enc.Buf = w.enc.Buf[:0]
		if err := state.AppendKey(&w.enc, r, w.spec.GroupKeys); err != nil {
			return fmt.Errorf("WindowAggregate key: %w", err)
		}
		var err error
		if w.spec.Kind == Session {
			err = w.addSession(r, ts)
		} else {
			err = w.add(r, ts, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ProcessWatermark fires nothing: processing-time windows ignore event
// time (the runtime forwards the watermark).
func (w *procWindowAgg) ProcessWatermark(int64, *runtime.Collector) error { return nil }

// TimerInterval is how often the runtime calls OnProcessingTime.
func (w *procWindowAgg) TimerInterval() time.Duration { return procTimerInterval }

// OnProcessingTime fires the windows whose end - 1 the clock reached.
func (w *procWindowAgg) OnProcessingTime(_ time.Time, out *runtime.Collector) error {
	now := w.now().UnixMilli()
	if err := w.onDelayed(now, out); err != nil {
		return err
	}
	return w.fire(now, now, out)
}

type windowAgg struct {
	runtime.Base
	spec WindowSpec
	// sessions indexes the pending session windows of each group key
	// (Session only), rebuilt from the state on restore.
	sessions map[string][]span
	agg      groupAgg // the accumulators, keyed by window and group
	windowTimers
	wm  int64 // current watermark
	enc state.Encoder
	// fires is the emit state of a spec that emits (windowemit.go),
	// keyed as agg.groups; delayed indexes its pending delayed firings.
	fires   state.Table[*windowFire]
	delayed map[string]int64
	now     func() time.Time
}

// windowTimers indexes the windows in state by end (Flink's timers): the
// state keys of each end, rebuilt from the state on restore.
type windowTimers struct {
	pending map[int64]map[string]struct{}
	ends    []int64 // sorted ends of pending
}

// windowKey is the state key: window end and start (big-endian, sign bit
// flipped, so keys sort by end) and the group key.
func windowKey(start, end int64, group []byte) string {
	b := make([]byte, 16, 16+len(group))
	binary.BigEndian.PutUint64(b, uint64(end)^(1<<63))
	binary.BigEndian.PutUint64(b[8:], uint64(start)^(1<<63))
	return string(append(b, group...))
}

func parseWindowKey(k string) (start, end int64) {
	return int64(binary.BigEndian.Uint64([]byte(k[8:16])) ^ (1 << 63)), int64(binary.BigEndian.Uint64([]byte(k[:8])) ^ (1 << 63))
}

// span is a session window [start, end).
type span struct{ start, end int64 }

func (w *windowAgg) Open(ctx *runtime.Context, restored []byte) error {
	w.wm = runtime.MinWatermark
	w.pending = map[int64]map[string]struct{}{}
	w.sessions = map[string][]span{}
	w.delayed = map[string]int64{}
	w.now = ctx.Clock()
	// Window state is cleaned up by its timers, never by
	// table.exec.state.ttl (Flink's window aggregate ignores it).
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if w.agg.groups, err = state.NewTable(b, "windows", groupCodec(w.spec.Aggs)); err != nil {
		return err
	}
	if w.spec.emits() {
		if w.fires, err = state.NewTable(b, "window-fires", windowFireCodec); err != nil {
			return err
		}
	}
	if restored == nil {
		return nil
	}
	if w.fires != nil {
		err = state.RestoreAll(restored, w.agg.groups, w.fires)
	} else {
		err = w.agg.groups.Restore(restored)
	}
	if err != nil {
		return err
	}
	err = w.agg.groups.Range(func(k string, _ *group) error {
		start, end := parseWindowKey(k)
		w.track(end, k)
		if w.spec.Kind == Session {
			w.sessions[k[16:]] = append(w.sessions[k[16:]], span{start, end})
		}
		return nil
	})
	if err != nil || w.fires == nil {
		return err
	}
	return w.restoreFires()
}

// untrack removes state key k of the window ending at end from pending.
func (w *windowTimers) untrack(end int64, k string) {
	keys := w.pending[end]
	delete(keys, k)
	if len(keys) > 0 {
		return
	}
	delete(w.pending, end)
	i := sort.Search(len(w.ends), func(i int) bool { return w.ends[i] >= end })
	if i < len(w.ends) && w.ends[i] == end {
		w.ends = append(w.ends[:i], w.ends[i+1:]...)
	}
}

// addSession adds row r (rowtime ts) to its group's session windows, as
// Flink's UnsliceWindowAggProcessor with a merging SessionWindowAssigner:
// the row's window [ts, ts + gap) and every pending window of the group it
// intersects (TimeWindow.intersects: start <= other end and end >= other
// start) merge into one window covering them all, whose accumulators are
// the merged ones'. A row whose window merges with none and has fired
// (end - 1 <= watermark) is late and dropped.
func (w *windowAgg) addSession(r sql.Row, ts int64) error {
	gk := string(w.enc.Buf)
	keep, merged, start, end := mergeSessions(w.sessions[gk], ts, ts+w.spec.Size)
	if len(merged) == 0 && w.wm >= end-1 {
		return nil
	}
	var grp *group
	for _, s := range merged {
		k := windowKey(s.start, s.end, w.enc.Buf)
		g, ok, err := w.agg.groups.Get(k)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("WindowAggregate: session window [%d, %d) missing from state", s.start, s.end)
		}
		if grp == nil {
			grp = g
		} else if err := mergeGroup(w.spec.Aggs, grp, g); err != nil {
			return err
		}
		if err := w.agg.groups.Delete(k); err != nil {
			return err
		}
		w.untrack(s.end, k)
	}
	if grp == nil {
		grp = &group{key: box.Compact(project(r, w.spec.GroupKeys)), accs: make([]acc, len(w.spec.Aggs))}
	}
	if err := w.agg.apply(grp, r, r.Kind.IsAdd()); err != nil {
		return err
	}
	k := windowKey(start, end, w.enc.Buf)
	if err := w.agg.groups.Put(k, grp); err != nil {
		return err
	}
	w.track(end, k)
	w.sessions[gk] = append(keep, span{start, end})
	return nil
}

// mergeGroup adds src's accumulators to dst's (Flink's merge of the
// aggregate functions' accumulators when session windows merge).
func mergeGroup(specs []AggSpec, dst, src *group) error {
	dst.rows += src.rows
	for i, spec := range specs {
		a, b := &dst.accs[i], &src.accs[i]
		switch {
		case spec.simple():
			if b.best == nil {
				continue
			}
			if a.best != nil {
				if spec.ordering() {
					return fmt.Errorf("%s cannot merge session windows", spec.Kind)
				}
				keep, err := keepBest(spec.Kind, b.best, a.best)
				if err != nil {
					return err
				}
				if !keep {
					a.best = b.best
				}
			} else {
				a.best = b.best
			}
			a.n += b.n
		case spec.Kind == ListAgg:
			// ListAggFunction's merge: the other accumulator's values
			// after this one's.
			a.ord = append(a.ord, b.ord...)
			a.n += b.n
			if b.best != nil {
				a.best = b.best
			}
		case spec.Kind == JsonObjectAgg:
			// JsonObjectAggFunction's merge: the other map's entries
			// join this one's, a key both hold failing as in accumulate
			// (the retraction maps are empty: windows read insert-only
			// input).
			if a.vals == nil {
				a.vals = map[string]*counted{}
			}
			for k, c := range b.vals {
				if _, ok := a.vals[k]; ok {
					return jsonDuplicateKey(k)
				}
				a.vals[k] = c
			}
		case spec.ordering():
			// JsonArrayAggFunction has no merge either.
			return fmt.Errorf("%s cannot merge session windows", spec.Kind)
		case spec.Distinct:
			// The merged view holds each distinct value once (Flink merges
			// the DISTINCT MapViews of both accumulators); a value new to
			// dst enters its SUM / COUNT / AVG, MIN and MAX read the view.
			if a.vals == nil {
				a.vals = map[string]*counted{}
			}
			for k, c := range b.vals {
				if x := a.vals[k]; x != nil {
					x.cnt += c.cnt
					continue
				}
				a.vals[k] = c
				if spec.Kind == Min || spec.Kind == Max {
					continue
				}
				if err := a.accumulate(spec.Kind, c.v, 1); err != nil {
					return fmt.Errorf("%s: %w", spec.Kind, err)
				}
			}
		case spec.Kind == Min || spec.Kind == Max:
			if a.vals == nil {
				a.vals = map[string]*counted{}
			}
			for k, c := range b.vals {
				if x := a.vals[k]; x != nil {
					x.cnt += c.cnt
				} else {
					a.vals[k] = c
				}
			}
		default: // COUNT(*), COUNT, SUM, AVG
			a.n += b.n
			a.i += b.i
			a.f += b.f
			a.d = a.d.Add(b.d)
			if a.typ == 0 {
				a.typ = b.typ
			}
		}
	}
	return nil
}

func (w *windowTimers) track(end int64, k string) {
	keys := w.pending[end]
	if keys == nil {
		keys = map[string]struct{}{}
		w.pending[end] = keys
		i := sort.Search(len(w.ends), func(i int) bool { return w.ends[i] >= end })
		w.ends = append(w.ends, 0)
		copy(w.ends[i+1:], w.ends[i:])
		w.ends[i] = end
	}
	keys[k] = struct{}{}
}

func (w *windowAgg) Snapshot(int64) ([]byte, error) {
	if w.fires != nil {
		return state.SnapshotAll(w.agg.groups, w.fires)
	}
	return w.agg.groups.Snapshot()
}

// TimerInterval is how often the runtime calls OnProcessingTime: only a
// window with a delayed early or late firing needs it.
func (w *windowAgg) TimerInterval() time.Duration { return w.spec.delayInterval() }

// OnProcessingTime fires the windows whose delayed firing is due.
func (w *windowAgg) OnProcessingTime(_ time.Time, out *runtime.Collector) error {
	return w.onDelayed(w.now().UnixMilli(), out)
}

// ProcessBatch adds each row to its windows; a -U or -D row (a group
// window over an updating input) retracts from them, as Flink's
// WindowOperator does.
func (w *windowAgg) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if w.spec.Attached {
			if err := w.addAttached(r, out); err != nil {
				return err
			}
			continue
		}
		ts, ok := r.Values[w.spec.TimeCol].(sql.TimestampData)
		if !ok {
			return fmt.Errorf("WindowAggregate: rowtime is %T, not a TIMESTAMP", r.Values[w.spec.TimeCol])
		}
		// Late: the last window holding the row has fired (Flink's
		// isWindowFired on getLastWindowEnd); a row whose slice has
		// fired still counts in the windows holding it that have not.
		local := sql.LocalMillis(ts.Millis, w.spec.Zone)
		if w.spec.Kind != Session && w.wm >= w.spec.cleanup(w.spec.lastWindowEnd(local)) {
			continue
		}
		w.enc.Buf = w.enc.Buf[:0]
		if err := state.AppendKey(&w.enc, r, w.spec.GroupKeys); err != nil {
			return fmt.Errorf("WindowAggregate key: %w", err)
		}
		if w.spec.Kind == Session {
			if err := w.addSession(r, local); err != nil {
				return err
			}
			continue
		}
		if err := w.add(r, local, out); err != nil {
			return err
		}
	}
	return nil
}

// addAttached adds row r to (or retracts it from) the window its
// window_start and window_end fields name, unless that window has fired:
// the row is then late and dropped, as Flink's window aggregate over
// attached windows drops it (WindowAttachedWindowingStrategy's
// isWindowFired on the row's window end).
func (w *windowAgg) addAttached(r sql.Row, out *runtime.Collector) error {
	start, ok1 := r.Values[w.spec.WinStart].(sql.TimestampData)
	end, ok2 := r.Values[w.spec.WinEnd].(sql.TimestampData)
	if !ok1 || !ok2 {
		return fmt.Errorf("WindowAggregate: window_start / window_end are %T / %T, not TIMESTAMPs", r.Values[w.spec.WinStart], r.Values[w.spec.WinEnd])
	}
	w.enc.Buf = w.enc.Buf[:0]
	if err := state.AppendKey(&w.enc, r, w.spec.GroupKeys); err != nil {
		return fmt.Errorf("WindowAggregate key: %w", err)
	}
	return w.addWindow(r, start.Millis, end.Millis, out)
}

// add adds row r (group key in w.enc.Buf) to the windows of time ts that
// have not fired (or, with an allowed lateness, are not cleaned up yet),
// or retracts it from them.
func (w *windowAgg) add(r sql.Row, ts int64, out *runtime.Collector) error {
	return w.spec.windows(ts, func(start, end int64) error {
		return w.addWindow(r, start, end, out)
	})
}

// addWindow adds row r (group key in w.enc.Buf) to window [start, end)
// unless it has fired (or, with an allowed lateness, is cleaned up), or
// retracts it from it.
func (w *windowAgg) addWindow(r sql.Row, start, end int64, out *runtime.Collector) error {
	if !w.spec.ProcTime && w.wm >= w.spec.cleanup(end) {
		return nil // fired (and cleaned up) already
	}
	k := windowKey(start, end, w.enc.Buf)
	grp, ok, err := w.agg.groups.Get(k)
	if err != nil {
		return err
	}
	if !ok {
		grp = &group{key: box.Compact(project(r, w.spec.GroupKeys)), accs: make([]acc, len(w.spec.Aggs))}
		w.track(end, k)
	}
	if err := w.agg.apply(grp, r, r.Kind.IsAdd()); err != nil {
		return err
	}
	if err := w.agg.groups.Put(k, grp); err != nil {
		return err
	}
	return w.onElement(k, end, out)
}

// mergeSessions is the session window [start, end) merged with the
// pending sessions ss it intersects (TimeWindow.intersects: start <= other
// end and end >= other start), as Flink's MergingWindowSet merges them:
// keep are the sessions it leaves alone, merged those it covers.
func mergeSessions(ss []span, start, end int64) (keep, merged []span, mstart, mend int64) {
	for _, s := range ss {
		if s.start <= end && s.end >= start {
			merged = append(merged, s)
			start, end = min(start, s.start), max(end, s.end)
		} else {
			keep = append(keep, s)
		}
	}
	return keep, merged, start, end
}

// dropSession removes the fired session starting at start from gk's
// entry of sessions.
func dropSession(sessions map[string][]span, gk string, start int64) {
	ss := sessions[gk]
	for i, s := range ss {
		if s.start == start {
			ss = append(ss[:i], ss[i+1:]...)
			break
		}
	}
	if len(ss) == 0 {
		delete(sessions, gk)
	} else {
		sessions[gk] = ss
	}
}

// ProcessWatermark fires the windows whose end - 1 the watermark reached,
// in the order of their ends, each window's groups in key order.
func (w *windowAgg) ProcessWatermark(wm int64, out *runtime.Collector) error {
	w.wm = wm
	return w.fire(wm, 0, out)
}

// fire emits and drops the windows whose end - 1 is at most t (window_time
// is end - 1, or procTime when not 0). A window whose rows were all
// retracted emits nothing (Flink's RecordCounter).
func (w *windowAgg) fire(t, procTime int64, out *runtime.Collector) error {
	if w.fires != nil {
		return w.fireEmitting(t, out)
	}
	for len(w.ends) > 0 && w.spec.fired(w.ends[0], t) {
		end := w.ends[0]
		for _, k := range slices.Sorted(maps.Keys(w.pending[end])) {
			grp, ok, err := w.agg.groups.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if grp.rows != 0 {
				vals, err := w.windowResult(k, grp, procTime)
				if err != nil {
					return err
				}
				out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
			}
			if err := w.agg.groups.Delete(k); err != nil {
				return err
			}
			if w.spec.Kind == Session {
				start, _ := parseWindowKey(k)
				dropSession(w.sessions, k[16:], start)
			}
		}
		delete(w.pending, end)
		w.ends = w.ends[1:]
	}
	return nil
}

// windowResult is the output row of window key k: the group keys, the
// aggregates and the window properties (window_time is end - 1, or
// procTime on processing time).
func (w *windowAgg) windowResult(k string, grp *group, procTime int64) ([]any, error) {
	vals, err := w.agg.result(grp)
	if err != nil {
		return nil, err
	}
	start, end := parseWindowKey(k)
	if !w.spec.NoProperties {
		vals = append(vals, sql.TimestampData{Millis: start}, sql.TimestampData{Millis: end})
	}
	if w.spec.WindowTime && !w.spec.NoProperties {
		wt := w.spec.windowTime(end)
		if w.spec.ProcTime {
			wt = procTime
		}
		vals = append(vals, sql.TimestampData{Millis: wt})
	}
	return vals, nil
}

// WindowTableFunction is Flink's WindowTableFunctionOperator for TUMBLE,
// HOP and CUMULATE on event time: each row is emitted once per window its
// rowtime falls in (HOP's latest window first, CUMULATE's smallest first,
// as Flink's assigners list them), followed by window_start, window_end
// and window_time (window_end - 1 ms). A row with a NULL rowtime is
// dropped, as Flink's operator drops it. It keeps no state, drops no late
// row, and forwards watermarks.
//
// With ProcTime the windows are those of the operator's clock
// (runtime.Context.Clock) when the row arrives, as Flink's
// AlignedWindowTableFunctionOperator reads the processing time; TimeCol is
// not read, and window_time is the clock's time: Flink's window_time is
// then a processing-time attribute, which the Calc above materializes to
// the time the row reaches it (PROCTIME_MATERIALIZE).
func WindowTableFunction(spec WindowSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &windowTVF{spec: spec}, nil }
}

type windowTVF struct {
	runtime.Base
	spec WindowSpec
	now  func() time.Time // the clock, on processing time
}

func (w *windowTVF) Open(ctx *runtime.Context, _ []byte) error {
	if w.spec.ProcTime {
		w.now = ctx.Clock()
	}
	return nil
}

func (w *windowTVF) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	var now, localNow int64
	if w.now != nil {
		now = w.now().UnixMilli()
		localNow = sql.LocalMillis(now, w.spec.Zone)
	}
	for _, r := range rows {
		ts := localNow
		if w.now == nil {
			t, ok := r.Values[w.spec.TimeCol].(sql.TimestampData)
			if !ok {
				continue
			}
			ts = sql.LocalMillis(t.Millis, w.spec.Zone)
		}
		err := w.spec.windows(ts, func(start, end int64) error {
			vals := make([]any, len(r.Values), len(r.Values)+3)
			copy(vals, r.Values)
			wt := w.spec.windowTime(end)
			if w.now != nil {
				wt = now
			}
			vals = append(vals, sql.TimestampData{Millis: start}, sql.TimestampData{Millis: end}, sql.TimestampData{Millis: wt})
			out.Emit(sql.Row{Kind: r.Kind, Values: vals})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
