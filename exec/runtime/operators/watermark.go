package operators

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// WatermarkSpec configures WatermarkAssigner.
type WatermarkSpec struct {
	// Rowtime is the rowtime column; a row with NULL there fails the job.
	Rowtime int
	// Watermark evaluates the WATERMARK FOR expression over a row: a
	// sql.TimestampData, or nil for no watermark from this row.
	Watermark func(sql.Row) (any, error)
	// Interval is pipeline.auto-watermark-interval (0: every watermark
	// that advances is emitted at once).
	Interval time.Duration
	// IdleTimeout is table.exec.source.idle-timeout (0: never idle), per
	// subtask; unused with PerSplit (SplitIdleTimeout).
	IdleTimeout time.Duration
	// PerRow makes it the generator of a source that emits each row's
	// watermark before the row, whenever it advances (Flink's values
	// source with 'enable-watermark-push-down':
	// FromElementSourceFunctionWithWatermark calls onEvent and
	// onPeriodicEmit before it collects the row); Interval and
	// IdleTimeout are then unused.
	PerRow bool
	// Pushed makes it the generator of a watermark pushed into the source
	// (set with PerRow too): it starts at Long.MIN_VALUE, as
	// WatermarkPushDownSpec's DefaultWatermarkGenerator, not at
	// WatermarkAssignerOperator's 0, so a watermark before 1970 is emitted.
	Pushed bool
	// PerSplit makes it the generator of a source that reads splits
	// (connectors.SplitSource; set with Pushed): the watermark of each
	// split is the largest of its rows', and the one emitted is the
	// minimum over the splits handed to the reader, not finished and not
	// idle (SplitIdleTimeout), a split not read yet counting as
	// Long.MIN_VALUE, and never goes back (Flink's SourceOperator:
	// ProgressiveTimestampsAndWatermarks' split outputs combined by
	// WatermarkOutputMultiplexer). With OnEvent (or an Interval of 0) it is
	// emitted after a row that advanced its split's watermark past the one
	// emitted (the immediate output an on-event strategy uses), else only
	// by the timer (the deferred outputs, combined on each periodic emit).
	PerSplit bool
	// OnEvent (with PerSplit) emits a split's watermark after each of its
	// rows, on the immediate output (Paimon's OnEventWatermarkStrategy calls
	// its generator's periodic emit after every event), and Interval is
	// then only the period of the idleness checks; without it a split's
	// watermark is emitted on the deferred output every Interval. PerSplit
	// with an Interval of 0 acts as OnEvent, without idleness checks.
	OnEvent bool
	// SplitIdleTimeout (with PerSplit) is the idle timeout of a
	// WatermarksWithIdleness around each split's generator and the reader
	// output's own (0: none): the smallest of Paimon's
	// 'scan.watermark.idle-timeout', wrapped outside the emit strategy, and,
	// when not OnEvent, table.exec.source.idle-timeout, wrapped inside it
	// (under OnEvent the inner one is checked right after each row, so it
	// never fires). Idleness is checked on the periodic emits only
	// (Interval > 0), as Flink's IdlenessTimer: its countdown starts at the
	// first emit that saw no row of the split since the one before, and
	// the split is idle at the first emit strictly more than the timeout
	// after that. An idle split does not hold the combination back; when
	// every split is idle, and the reader output too, the subtask is
	// marked idle (IdlenessManager), active again when the combination
	// advances (WatermarkToDataOutput).
	SplitIdleTimeout time.Duration
}

// splitState is one split's output: its generator's watermark (gen, the
// last non-null one; Flink's DefaultWatermarkGenerator), the watermark of
// its output in the multiplexer (wm, never going back; PartialWatermark)
// and the idleness of both (idle is the output's, idleNow the
// WatermarksWithIdleness'), with the IdlenessTimer's counters.
type splitState struct {
	gen, wm        int64
	idle, idleNow  bool
	rows, lastRows int64
	inactiveSince  int64 // ms; valid when counting
	counting       bool
}

// idleCheck is IdlenessTimer.checkIfIdle at processing time now (ms).
func idleCheck(rows int64, lastRows *int64, counting *bool, since *int64, now, timeout int64) bool {
	if rows != *lastRows {
		*lastRows, *counting = rows, false
		return false
	}
	if !*counting {
		*counting, *since = true, now
		return false
	}
	return now-*since > timeout
}

// WatermarkAssigner generates the watermarks of its subtask's rows as
// Flink's WatermarkAssignerOperator: the watermark is the largest value of
// the watermark expression so far (starting at 0), emitted at most every
// Interval by a processing-time timer, and at once after a row when it
// moved more than Interval past the last one emitted. Upstream watermarks
// are ignored except the end of input (MaxWatermark). With an idle
// timeout, a subtask that saw no row for that long marks its output idle
// until the next row.
func WatermarkAssigner(spec WatermarkSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &wmAssigner{spec: spec}, nil }
}

type wmAssigner struct {
	runtime.Base
	spec                                    WatermarkSpec
	now                                     func() time.Time
	current, last                           int64
	lastPeriodicEmit, sinceLastIdleCheck    int64 // processing time, ms
	processed, lastIdleCheckProcessed       int64
	idle                                    bool
	interval, idleTimeout, timerIntervalVal int64
	// PerSplit: the watermark of each registered split, and the split
	// of the rows being read. Not checkpointed, as Flink's SourceOperator
	// keeps only the splits: a restored reader adds its splits again.
	splitWM  map[string]*splitState
	curSplit string
	// The reader's main output (IdlenessManager): no row ever goes through
	// it (SourceReaderBase emits through the split outputs). mainIdle is
	// its IdlenessAwareWatermarkOutput's state: idle at first, active
	// while its generator emits on the periodic emits (on-periodic: the
	// Long.MIN_VALUE of a generator that saw no row; on-event emits
	// nothing there, so it stays idle), idle again when its
	// WatermarksWithIdleness times out (mainTimedOut), the timeout after
	// the first periodic emit. splitLocalIdle is the split outputs' side:
	// idle until the combination first advances, again when a combination
	// finds every split idle.
	mainCounting, mainIdle, mainTimedOut bool
	mainSince                            int64
	splitLocalIdle                       bool
	splitIdleTimeout                     int64
}

// errNullRowtime is Flink's message.
var errNullRowtime = errors.New("RowTime field should not be null, please convert it to a non-null long value.")

func (w *wmAssigner) Open(ctx *runtime.Context, _ []byte) error {
	w.now = ctx.Clock()
	now := w.now().UnixMilli()
	w.lastPeriodicEmit, w.sinceLastIdleCheck = now, now
	w.lastIdleCheckProcessed = -1
	w.interval, w.idleTimeout = w.spec.Interval.Milliseconds(), w.spec.IdleTimeout.Milliseconds()
	if w.spec.PerRow {
		w.interval, w.idleTimeout = 0, 0
	}
	w.timerIntervalVal = timerInterval(w.interval, w.idleTimeout)
	if w.spec.PerSplit {
		// ProgressiveTimestampsAndWatermarks' periodic emit, every
		// pipeline.auto-watermark-interval (0: none).
		w.idleTimeout = 0
		w.splitIdleTimeout = w.spec.SplitIdleTimeout.Milliseconds()
		w.timerIntervalVal = max(w.interval, 0)
		w.splitLocalIdle, w.mainIdle = true, true
	}
	if w.spec.PerRow || w.spec.Pushed {
		// The source's generator starts at Long.MIN_VALUE
		// (DefaultWatermarkGenerator), not at WatermarkAssignerOperator's 0.
		w.current, w.last = math.MinInt64, math.MinInt64
	}
	return nil
}

// timerInterval is WatermarkAssignerOperator's
// calculateProcessingTimeTimerInterval (0: no timer).
func timerInterval(interval, idleTimeout int64) int64 {
	switch {
	case interval <= 0 && idleTimeout <= 0:
		return 0
	case interval <= 0:
		return idleTimeout
	case idleTimeout <= 0:
		return interval
	}
	small, large := min(interval, idleTimeout), max(interval, idleTimeout)
	if small*5 < large {
		return small
	}
	return max(small/5, 1)
}

func (w *wmAssigner) GeneratesWatermarks() {}

func (w *wmAssigner) TimerInterval() time.Duration {
	return time.Duration(w.timerIntervalVal) * time.Millisecond
}

// ProcessSplitBatch takes the split events of the source's rows
// (runtime.SplitProcessor); without PerSplit they are ignored.
func (w *wmAssigner) ProcessSplitBatch(rows []sql.Row, events []connectors.SplitEvent, out *runtime.Collector) error {
	if !w.spec.PerSplit {
		return w.ProcessBatch(0, rows, out)
	}
	if w.splitWM == nil {
		w.splitWM = map[string]*splitState{}
	}
	out.Grow(len(rows))
	e := 0
	for i := 0; i <= len(rows); i++ {
		for ; e < len(events) && events[e].At <= i; e++ {
			w.splitEvent(events[e])
		}
		if i == len(rows) {
			break
		}
		if err := w.splitRow(rows[i], out); err != nil {
			return err
		}
	}
	for ; e < len(events); e++ {
		w.splitEvent(events[e])
	}
	return nil
}

func (w *wmAssigner) splitEvent(ev connectors.SplitEvent) {
	switch ev.Kind {
	case connectors.SplitAdded:
		w.register(ev.Split)
	case connectors.SplitRead:
		w.curSplit = ev.Split
		w.register(ev.Split)
	case connectors.SplitFinished:
		// releaseOutputForSplit: WatermarkOutputMultiplexer.unregisterOutput
		// does not recombine; the next update does.
		delete(w.splitWM, ev.Split)
		if w.curSplit == ev.Split {
			w.curSplit = ""
		}
	}
}

// register creates a split's output (WatermarkOutputMultiplexer
// .registerNewOutput: active, at Long.MIN_VALUE).
func (w *wmAssigner) register(id string) {
	if _, ok := w.splitWM[id]; !ok {
		w.splitWM[id] = &splitState{gen: math.MinInt64, wm: math.MinInt64}
	}
}

func (w *wmAssigner) splitRow(r sql.Row, out *runtime.Collector) error {
	w.processed++
	s, ok := w.splitWM[w.curSplit]
	if !ok {
		return fmt.Errorf("watermark generator: a row outside the source's splits")
	}
	v, err := w.spec.Watermark(r)
	if err != nil {
		return fmt.Errorf("watermark expression: %w", err)
	}
	out.Emit(r)
	// WatermarksWithIdleness.onEvent: activity.
	s.rows++
	s.idleNow = false
	if ts, ok := v.(sql.TimestampData); ok {
		s.gen = ts.Millis
	}
	if !w.spec.OnEvent && w.interval > 0 {
		// On-periodic: the deferred output takes it on the next emit.
		return nil
	}
	// On-event: the generator emits on the immediate output after the
	// row; setting a watermark makes the split's output active, and the
	// multiplexer recombines when it passed the combined watermark.
	s.idle = false
	if s.gen > s.wm {
		s.wm = s.gen
		if s.wm > w.current {
			w.combineSplits(out)
		}
	}
	return nil
}

// combineSplits is WatermarkOutputMultiplexer.updateCombinedWatermark:
// the minimum over the splits not idle, emitted when it advances (no
// split: no change); when every split is idle the split outputs' side is
// idle, and the subtask too when its main output is.
func (w *wmAssigner) combineSplits(out *runtime.Collector) {
	if len(w.splitWM) == 0 {
		return
	}
	m, allIdle := int64(math.MaxInt64), true
	for _, s := range w.splitWM {
		if !s.idle {
			m, allIdle = min(m, s.wm), false
		}
	}
	if allIdle {
		w.splitLocalIdle = true
		w.markIdleIfBoth(out)
		return
	}
	if m > w.current {
		w.current = m
		w.splitLocalIdle = false
		w.advance(out)
	}
}

// markIdleIfBoth is IdlenessManager.checkIfShouldMarkIdle over
// WatermarkToDataOutput.markIdle (IDLE once).
func (w *wmAssigner) markIdleIfBoth(out *runtime.Collector) {
	if w.splitLocalIdle && w.mainIdle && !w.idle {
		w.idle = true
		out.EmitIdle(true)
	}
}

// periodicSplitEmit is ProgressiveTimestampsAndWatermarks'
// triggerPeriodicEmit at processing time now (ms): each split's
// WatermarksWithIdleness marks it idle, or its generator emits on the
// deferred output (on-periodic); the multiplexer combines; then the main
// output's generator, which sees no row, turns idle after the timeout.
func (w *wmAssigner) periodicSplitEmit(now int64, out *runtime.Collector) {
	for _, s := range w.splitWM {
		if w.splitIdleTimeout > 0 && idleCheck(s.rows, &s.lastRows, &s.counting, &s.inactiveSince, now, w.splitIdleTimeout) {
			if !s.idleNow {
				s.idle, s.idleNow = true, true
			}
			continue
		}
		if !w.spec.OnEvent {
			s.idle = false
			s.wm = max(s.wm, s.gen)
		}
	}
	w.combineSplits(out)
	if w.mainTimedOut {
		return
	}
	var zero int64
	if w.splitIdleTimeout > 0 && idleCheck(0, &zero, &w.mainCounting, &w.mainSince, now, w.splitIdleTimeout) {
		w.mainTimedOut, w.mainIdle = true, true
		w.markIdleIfBoth(out)
	} else if !w.spec.OnEvent {
		w.mainIdle = false
	}
}

func (w *wmAssigner) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Grow(len(rows))
	for _, r := range rows {
		w.processed++
		if w.idleTimeout > 0 && w.idle {
			w.idle = false
			out.EmitIdle(false)
		}
		// A pushed-down watermark (Rowtime < 0) is computed by the
		// source's generator, which does not check the rowtime
		// (WatermarkPushDownSpec's DefaultWatermarkGenerator skips a null
		// watermark).
		if w.spec.Rowtime >= 0 && r.Values[w.spec.Rowtime] == nil {
			return errNullRowtime
		}
		v, err := w.spec.Watermark(r)
		if err != nil {
			return fmt.Errorf("watermark expression: %w", err)
		}
		if ts, ok := v.(sql.TimestampData); ok {
			w.current = max(w.current, ts.Millis)
		}
		if w.spec.PerRow {
			w.advance(out)
			out.Emit(r)
			continue
		}
		out.Emit(r)
		// (last is Long.MIN_VALUE before a pushed generator's first
		// watermark: current - last would overflow.)
		if w.current > w.last && (w.last == math.MinInt64 || w.current-w.last > w.interval) {
			w.advance(out)
		}
	}
	return nil
}

func (w *wmAssigner) advance(out *runtime.Collector) {
	if w.current > w.last {
		if w.spec.PerSplit && w.idle {
			// WatermarkToDataOutput marks the output active before a
			// watermark that advances it (not on rows).
			w.idle = false
			out.EmitIdle(false)
		}
		w.last = w.current
		out.EmitWatermark(w.current)
	}
}

func (w *wmAssigner) OnProcessingTime(t time.Time, out *runtime.Collector) error {
	now := t.UnixMilli()
	if w.spec.PerSplit {
		if w.interval > 0 && w.lastPeriodicEmit+w.interval <= now {
			w.lastPeriodicEmit = now
			w.periodicSplitEmit(now, out)
		}
		return nil
	}
	if w.interval > 0 && w.lastPeriodicEmit+w.interval <= now {
		w.lastPeriodicEmit = now
		w.advance(out)
	}
	if w.processed != w.lastIdleCheckProcessed {
		w.sinceLastIdleCheck = now
		w.lastIdleCheckProcessed = w.processed
	}
	if w.idleTimeout > 0 && !w.idle && w.sinceLastIdleCheck+w.idleTimeout <= now {
		w.idle = true
		out.EmitIdle(true)
	}
	return nil
}

// ProcessWatermark forwards only the end of input.
func (w *wmAssigner) ProcessWatermark(wm int64, out *runtime.Collector) error {
	if wm == runtime.MaxWatermark && w.current != runtime.MaxWatermark {
		if w.idle {
			w.idle = false
			out.EmitIdle(false)
		}
		w.current = runtime.MaxWatermark
		out.EmitWatermark(wm)
	}
	return nil
}

// Finish emits the final watermark.
func (w *wmAssigner) Finish(out *runtime.Collector) error {
	return w.ProcessWatermark(runtime.MaxWatermark, out)
}
