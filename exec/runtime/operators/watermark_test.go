package operators

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// elements renders a collector's rows and marks in their order.
func elements(c *runtime.Collector) string {
	var b []string
	marks := c.Marks()
	for i := 0; i <= len(c.Rows()); i++ {
		for len(marks) > 0 && marks[0].At == i {
			switch marks[0].Status {
			case runtime.MarkWatermark:
				b = append(b, fmt.Sprintf("wm(%d)", marks[0].Watermark))
			case runtime.MarkIdle:
				b = append(b, "IDLE")
			case runtime.MarkActive:
				b = append(b, "ACTIVE")
			}
			marks = marks[1:]
		}
		if i < len(c.Rows()) {
			b = append(b, fmt.Sprint(c.Rows()[i].Values[0].(sql.TimestampData).Millis))
		}
	}
	return strings.Join(b, " ")
}

// TestWatermarkAssigner follows Flink's WatermarkAssignerOperatorTest: the
// watermark is the maximum of ts - 1 s so far, emitted after a row when it
// moved more than the interval (200 ms), otherwise by the periodic timer;
// an idle timeout marks the output idle after no row for that long, and
// the next row marks it active again; upstream watermarks are ignored but
// the end of input.
func TestWatermarkAssigner(t *testing.T) {
	now := time.UnixMilli(0)
	op, err := WatermarkAssigner(WatermarkSpec{
		Watermark: func(r sql.Row) (any, error) {
			ts := r.Values[0].(sql.TimestampData)
			ts.Millis -= 1000
			return ts, nil
		},
		Interval:    200 * time.Millisecond,
		IdleTimeout: 1000 * time.Millisecond,
	})(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(&runtime.Context{Now: func() time.Time { return now }}, nil); err != nil {
		t.Fatal(err)
	}
	if got := op.(runtime.ProcessingTimeOperator).TimerInterval(); got != 40*time.Millisecond {
		t.Fatalf("timer interval %s", got)
	}
	var out runtime.Collector
	step := func(rows []sql.Row, tick int64, want string) {
		t.Helper()
		out.Reset()
		if rows != nil {
			if err := op.ProcessBatch(0, rows, &out); err != nil {
				t.Fatal(err)
			}
		}
		if tick > 0 {
			now = time.UnixMilli(tick)
			if err := op.(runtime.ProcessingTimeOperator).OnProcessingTime(now, &out); err != nil {
				t.Fatal(err)
			}
		}
		if got := elements(&out); got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	}
	// 1000-1000 = 0: not past the initial watermark 0.
	step(tsRows(1000, 1100), 0, "1000 1100")
	// 1300-1000 = 300 > 0+200: emitted at once, between the rows.
	step(tsRows(1300, 1400, 1200), 0, "1300 wm(300) 1400 1200")
	// 400 is not more than 200 past 300: the timer emits it.
	step(nil, 100, "")
	step(nil, 200, "wm(400)")
	// No row since the check at 100: idle 1 s later.
	step(nil, 400, "")
	step(nil, 1099, "")
	step(nil, 1100, "IDLE")
	step(tsRows(1100), 0, "ACTIVE 1100")
	// Upstream watermarks are ignored, the end of input is forwarded.
	out.Reset()
	w := op.(runtime.WatermarkOperator)
	if err := w.ProcessWatermark(5000, &out); err != nil || elements(&out) != "" {
		t.Fatalf("upstream watermark: %v %q", err, elements(&out))
	}
	if err := w.ProcessWatermark(runtime.MaxWatermark, &out); err != nil || elements(&out) != fmt.Sprintf("wm(%d)", int64(runtime.MaxWatermark)) {
		t.Fatalf("end of input: %v %q", err, elements(&out))
	}
	// A NULL rowtime fails with Flink's message.
	err = op.ProcessBatch(0, []sql.Row{{Kind: sql.Insert, Values: []any{nil}}}, &out)
	if err == nil || err.Error() != "RowTime field should not be null, please convert it to a non-null long value." {
		t.Fatalf("null rowtime: %v", err)
	}
}

func tsRows(ms ...int64) []sql.Row {
	out := make([]sql.Row, len(ms))
	for i, m := range ms {
		out[i] = sql.Row{Kind: sql.Insert, Values: []any{sql.TimestampData{Millis: m}}}
	}
	return out
}

func TestTimerInterval(t *testing.T) {
	for _, c := range [][3]int64{{0, 0, 0}, {200, 0, 200}, {0, 1000, 1000}, {200, 1000, 40}, {200, 2000, 200}, {2, 3, 1}} {
		if got := timerInterval(c[0], c[1]); got != c[2] {
			t.Errorf("timerInterval(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
