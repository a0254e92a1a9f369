package operators

import (
	"errors"
	"fmt"
	"time"

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
}

// errNullRowtime is Flink's message.
var errNullRowtime = errors.New("RowTime field should not be null, please convert it to a non-null long value.")

func (w *wmAssigner) Open(ctx *runtime.Context, _ []byte) error {
	w.now = ctx.Clock()
	now := w.now().UnixMilli()
	w.lastPeriodicEmit, w.sinceLastIdleCheck = now, now
	w.lastIdleCheckProcessed = -1
	w.interval, w.idleTimeout = w.spec.Interval.Milliseconds(), w.spec.IdleTimeout.Milliseconds()
	w.timerIntervalVal = timerInterval(w.interval, w.idleTimeout)
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

func (w *wmAssigner) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Grow(len(rows))
	for _, r := range rows {
		w.processed++
		if w.idleTimeout > 0 && w.idle {
			w.idle = false
			out.EmitIdle(false)
		}
		if r.Values[w.spec.Rowtime] == nil {
			return errNullRowtime
		}
		v, err := w.spec.Watermark(r)
		if err != nil {
			return fmt.Errorf("watermark expression: %w", err)
		}
		if ts, ok := v.(sql.TimestampData); ok {
			w.current = max(w.current, ts.Millis)
		}
		out.Emit(r)
		if w.current-w.last > w.interval {
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
