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
	// IdleTimeout is table.exec.source.idle-timeout (0: never idle).
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
	// minimum over the splits handed to the reader and not finished, a
	// split not read yet counting as Long.MIN_VALUE, and never goes back
	// (Flink's SourceOperator: ProgressiveTimestampsAndWatermarks' split
	// outputs combined by WatermarkOutputMultiplexer). With an Interval of
	// 0 it is emitted after a row that advanced its split's watermark
	// past the one emitted (the immediate output an on-event strategy
	// uses), else only by the timer (the deferred outputs, combined on
	// each periodic emit).
	PerSplit bool
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
	splitWM  map[string]int64
	curSplit string
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
		w.splitWM = map[string]int64{}
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
		if _, ok := w.splitWM[ev.Split]; !ok {
			w.splitWM[ev.Split] = math.MinInt64
		}
	case connectors.SplitRead:
		w.curSplit = ev.Split
		if _, ok := w.splitWM[ev.Split]; !ok {
			w.splitWM[ev.Split] = math.MinInt64
		}
	case connectors.SplitFinished:
		// releaseOutputForSplit: WatermarkOutputMultiplexer.unregisterOutput
		// does not recombine; the next update does.
		delete(w.splitWM, ev.Split)
		if w.curSplit == ev.Split {
			w.curSplit = ""
		}
	}
}

func (w *wmAssigner) splitRow(r sql.Row, out *runtime.Collector) error {
	w.processed++
	if w.idleTimeout > 0 && w.idle {
		w.idle = false
		out.EmitIdle(false)
	}
	cur, ok := w.splitWM[w.curSplit]
	if !ok {
		return fmt.Errorf("watermark generator: a row outside the source's splits")
	}
	v, err := w.spec.Watermark(r)
	if err != nil {
		return fmt.Errorf("watermark expression: %w", err)
	}
	out.Emit(r)
	ts, ok := v.(sql.TimestampData)
	if !ok || ts.Millis <= cur {
		return nil
	}
	w.splitWM[w.curSplit] = ts.Millis
	// The immediate output recombines when the split's watermark passes
	// the combined one.
	if w.interval == 0 && ts.Millis > w.last {
		w.combineSplits(out)
	}
	return nil
}

// combineSplits emits the minimum over the registered splits when it
// advances (CombinedWatermarkStatus.updateCombinedWatermark; no split, no
// change).
func (w *wmAssigner) combineSplits(out *runtime.Collector) {
	if len(w.splitWM) == 0 {
		return
	}
	m := int64(math.MaxInt64)
	for _, v := range w.splitWM {
		m = min(m, v)
	}
	if m > w.current {
		w.current = m
	}
	w.advance(out)
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
		w.last = w.current
		out.EmitWatermark(w.current)
	}
}

func (w *wmAssigner) OnProcessingTime(t time.Time, out *runtime.Collector) error {
	now := t.UnixMilli()
	if w.interval > 0 && w.lastPeriodicEmit+w.interval <= now {
		w.lastPeriodicEmit = now
		if w.spec.PerSplit {
			w.combineSplits(out)
		} else {
			w.advance(out)
		}
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
		if w.idleTimeout > 0 && w.idle {
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
