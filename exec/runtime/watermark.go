package runtime

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Event time, as Flink: watermarks are milliseconds (the rowtime's epoch
// milliseconds) that travel in the data channels between batches, like
// barriers. A WatermarkAssigner operator generates them per subtask; every
// other subtask combines its channels' watermarks as Flink's
// StatusWatermarkValve does (the minimum over the active, aligned
// channels, never going back), lets its operator fire event-time timers
// (WatermarkOperator) and forwards the combined watermark. A channel can
// be marked idle (table.exec.source.idle-timeout) so that it does not hold
// the minimum back. A bounded source ends its output with MaxWatermark, so
// every pending event-time timer fires at the end of the input.

const (
	// MaxWatermark is Flink's Watermark.MAX_WATERMARK (Long.MAX_VALUE):
	// end of event time.
	MaxWatermark = math.MaxInt64
	// MinWatermark is the watermark before any has arrived
	// (Long.MIN_VALUE).
	MinWatermark = math.MinInt64
)

// WatermarkOperator is an Operator that acts on event time. The runtime
// calls ProcessWatermark when the subtask's combined input watermark
// advances, after every row before it; rows emitted go downstream before
// the watermark, which the runtime forwards afterwards (unless the
// operator is a WatermarkSource).
type WatermarkOperator interface {
	Operator
	ProcessWatermark(wm int64, out *Collector) error
}

// WatermarkHolder is a WatermarkOperator whose output watermark lags its
// input's (Flink's KeyedCoProcessOperatorWithWatermarkDelay under a rowtime
// interval join): the runtime forwards OutputWatermark(wm) where it would
// forward wm.
type WatermarkHolder interface {
	WatermarkOperator
	OutputWatermark(wm int64) int64
}

// WatermarkSource is an operator that generates the watermarks of its
// output itself (Flink's WatermarkAssignerOperator): the runtime forwards
// neither its input's watermarks nor their idleness; the operator emits
// them with Collector.EmitWatermark and EmitIdle.
type WatermarkSource interface {
	WatermarkOperator
	GeneratesWatermarks()
}

// ProcessingTimeOperator is an Operator with a periodic processing-time
// callback (Flink's processing-time timers): the runtime calls
// OnProcessingTime about every TimerInterval while the input runs.
type ProcessingTimeOperator interface {
	Operator
	TimerInterval() time.Duration
	OnProcessingTime(now time.Time, out *Collector) error
}

// Mark is a watermark or a watermark status emitted among the rows of a
// Collector: it goes downstream after the first At rows.
type Mark struct {
	At int
	// Watermark is the watermark, when Status is MarkWatermark.
	Watermark int64
	Status    MarkKind
}

// MarkKind says what a Mark is.
type MarkKind uint8

const (
	// MarkWatermark is a watermark.
	MarkWatermark MarkKind = iota
	// MarkIdle is WatermarkStatus.IDLE.
	MarkIdle
	// MarkActive is WatermarkStatus.ACTIVE.
	MarkActive
)

// EmitWatermark emits a watermark after the rows emitted so far.
func (c *Collector) EmitWatermark(wm int64) {
	c.marks = append(c.marks, Mark{At: len(c.rows), Watermark: wm})
}

// EmitIdle emits the watermark status IDLE (true) or ACTIVE (false) after
// the rows emitted so far.
func (c *Collector) EmitIdle(idle bool) {
	k := MarkActive
	if idle {
		k = MarkIdle
	}
	c.marks = append(c.marks, Mark{At: len(c.rows), Status: k})
}

// Marks returns the watermarks and statuses emitted (for tests and
// embedding drivers).
func (c *Collector) Marks() []Mark { return c.marks }

// valve is Flink's StatusWatermarkValve over a subtask's input channels.
type valve struct {
	wm      []int64
	idle    []bool
	aligned []bool
	last    int64 // last output watermark
	idleOut bool  // last output status is IDLE
}

func newValve(n int) *valve {
	v := &valve{wm: make([]int64, n), idle: make([]bool, n), aligned: make([]bool, n), last: MinWatermark}
	for i := range v.wm {
		v.wm[i] = MinWatermark
		v.aligned[i] = true
	}
	return v
}

// watermark takes channel ch's watermark and returns the new output
// watermark, if it advanced.
func (v *valve) watermark(ch int, wm int64) (int64, bool) {
	if v.idle[ch] || wm <= v.wm[ch] {
		return 0, false
	}
	v.wm[ch] = wm
	if !v.aligned[ch] && wm >= v.last {
		v.aligned[ch] = true
	}
	return v.minAligned()
}

func (v *valve) minAligned() (int64, bool) {
	m, any := int64(math.MaxInt64), false
	for i, w := range v.wm {
		if v.aligned[i] && !v.idle[i] {
			m, any = min(m, w), true
		}
	}
	if any && m > v.last {
		v.last = m
		return m, true
	}
	return 0, false
}

// status takes channel ch's watermark status; it returns the output
// watermark if it advanced, and the output status if it changed.
func (v *valve) status(ch int, idle bool) (wm int64, wmOK bool, status MarkKind, statusOK bool) {
	switch {
	case idle && !v.idle[ch]:
		v.idle[ch] = true
		v.aligned[ch] = false
		active := false
		for _, i := range v.idle {
			active = active || !i
		}
		if !active {
			// Every channel is idle: flush the largest watermark.
			if v.wm[ch] == v.last {
				m := int64(math.MinInt64)
				for _, w := range v.wm {
					m = max(m, w)
				}
				if m > v.last {
					v.last, wm, wmOK = m, m, true
				}
			}
			v.idleOut = true
			return wm, wmOK, MarkIdle, true
		}
		if v.wm[ch] == v.last {
			wm, wmOK = v.minAligned()
		}
		return wm, wmOK, 0, false
	case !idle && v.idle[ch]:
		v.idle[ch] = false
		if v.wm[ch] >= v.last {
			v.aligned[ch] = true
		}
		if v.idleOut {
			v.idleOut = false
			return 0, false, MarkActive, true
		}
	}
	return 0, false, 0, false
}

// onWatermark handles a watermark envelope of channel m.ch.
func (t *task) onWatermark(ctx context.Context, m envelope) error {
	wm, ok := t.valve.watermark(m.ch, m.wm)
	if !ok {
		return nil
	}
	if t.role == roleSink {
		return t.sinkWatermark()
	}
	return t.advance(ctx, wm)
}

// sinkWatermark gives a sink writer that records event time its input
// watermark and status (connectors.WatermarkWriter).
func (t *task) sinkWatermark() error {
	w, ok := t.writer.(connectors.WatermarkWriter)
	if !ok {
		return nil
	}
	if err := w.SinkWatermark(t.valve.last, t.valve.idleOut); err != nil {
		return fmt.Errorf("%s: watermark: %w", t.name(), err)
	}
	return nil
}

// onStatus handles a watermark status envelope of channel m.ch.
func (t *task) onStatus(ctx context.Context, m envelope) error {
	wm, wmOK, st, stOK := t.valve.status(m.ch, m.idle)
	if t.role == roleSink {
		if wmOK || stOK {
			return t.sinkWatermark()
		}
		return nil
	}
	if wmOK {
		if err := t.advance(ctx, wm); err != nil {
			return err
		}
	}
	if _, own := t.op.(WatermarkSource); stOK && !own {
		return t.broadcast(ctx, envelope{kind: envStatus, idle: st == MarkIdle})
	}
	return nil
}

// advance gives the operator the new input watermark and forwards it.
func (t *task) advance(ctx context.Context, wm int64) error {
	if w, ok := t.op.(WatermarkOperator); ok {
		if err := w.ProcessWatermark(wm, &t.out); err != nil {
			return err
		}
		if err := t.flushOut(ctx); err != nil {
			return err
		}
		if _, own := t.op.(WatermarkSource); own {
			return nil
		}
	}
	if h, ok := t.op.(WatermarkHolder); ok {
		wm = h.OutputWatermark(wm)
	}
	return t.broadcast(ctx, envelope{kind: envWatermark, wm: wm})
}

// flushOut sends what the operator emitted: its rows in bounded batches,
// with its watermarks and statuses in place among them.
func (t *task) flushOut(ctx context.Context) error {
	rows, marks := t.out.take(), t.out.marks
	t.out.marks = nil
	sendRows := func(rows []sql.Row) error {
		for len(rows) > 0 {
			n := min(len(rows), 4096)
			if err := t.send(ctx, rows[:n:n]); err != nil {
				return err
			}
			rows = rows[n:]
		}
		return nil
	}
	if len(marks) == 0 {
		if len(rows) <= 4096 {
			if len(rows) == 0 {
				return nil
			}
			return t.send(ctx, rows)
		}
		return sendRows(rows)
	}
	at := 0
	for _, mk := range marks {
		if err := sendRows(rows[at:mk.At:mk.At]); err != nil {
			return err
		}
		at = mk.At
		if t.alignMember != nil {
			t.alignMember.mark(mk)
		}
		m := envelope{kind: envWatermark, wm: mk.Watermark}
		if mk.Status != MarkWatermark {
			m = envelope{kind: envStatus, idle: mk.Status == MarkIdle}
		}
		if err := t.broadcast(ctx, m); err != nil {
			return err
		}
	}
	return sendRows(rows[at:])
}
