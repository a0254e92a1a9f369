package operators

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
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
		Watermark:   secondBefore,
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

// TestPushedWatermarkPerRow is the generator of a watermark pushed into the
// values source (Flink's FromElementSourceFunctionWithWatermark with
// WatermarkPushDownSpec's DefaultWatermarkGenerator): each row's watermark
// goes before the row, when it advances, whatever the interval; no timer;
// a negative watermark is emitted (the generator starts at Long.MIN_VALUE,
// not at WatermarkAssignerOperator's 0); a null watermark emits none.
// Replayed with a snapshot and a restore after every row: the generator
// keeps no state (as in Flink, watermarks are not checkpointed), so the
// restored one starts again from Long.MIN_VALUE and the first row after
// the restore is preceded by its own watermark, lower or not.
func TestPushedWatermarkPerRow(t *testing.T) {
	spec := WatermarkSpec{Rowtime: -1, PerRow: true, Interval: 200 * time.Millisecond,
		Watermark: func(r sql.Row) (any, error) {
			ts := r.Values[0].(sql.TimestampData)
			if ts.Millis == 7777 {
				return nil, nil // a null watermark: none from this row
			}
			ts.Millis -= 1000
			return ts, nil
		}}
	row := func(ms int64) sql.Row { return sql.Row{Values: []any{sql.TimestampData{Millis: ms}}} }
	in := []sql.Row{row(500), row(5000), row(5100), row(2000), row(7777), row(6000)}
	run := func(restart int) string {
		op, err := WatermarkAssigner(spec)(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(0) }}, nil); err != nil {
			t.Fatal(err)
		}
		if got := op.(runtime.ProcessingTimeOperator).TimerInterval(); got != 0 {
			t.Fatalf("timer interval %s", got)
		}
		var parts []string
		for i, r := range in {
			if i == restart {
				snap, err := op.Snapshot(1)
				if err != nil {
					t.Fatal(err)
				}
				_ = op.Close()
				op, _ = WatermarkAssigner(spec)(0, 1)
				if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(0) }}, snap); err != nil {
					t.Fatal(err)
				}
				parts = append(parts, "|")
			}
			var out runtime.Collector
			if err := op.ProcessBatch(0, []sql.Row{r}, &out); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, elements(&out))
		}
		return strings.Join(parts, " ")
	}
	if got, want := run(-1), "wm(-500) 500 wm(4000) 5000 wm(4100) 5100 2000 7777 wm(5000) 6000"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	want := map[int]string{
		1: "wm(-500) 500 | wm(4000) 5000 wm(4100) 5100 2000 7777 wm(5000) 6000",
		2: "wm(-500) 500 wm(4000) 5000 | wm(4100) 5100 2000 7777 wm(5000) 6000",
		5: "wm(-500) 500 wm(4000) 5000 wm(4100) 5100 2000 7777 | wm(5000) 6000",
		3: "wm(-500) 500 wm(4000) 5000 wm(4100) 5100 | wm(1000) 2000 7777 wm(5000) 6000",
		4: "wm(-500) 500 wm(4000) 5000 wm(4100) 5100 2000 | 7777 wm(5000) 6000",
	}
	for restart := 1; restart < len(in); restart++ {
		got := run(restart)
		if w := want[restart]; got != w {
			t.Fatalf("restore before row %d:\ngot  %q\nwant %q", restart, got, w)
		}
	}
}

// TestPushedWatermarkAfterRow is the generator of a watermark pushed into a
// FLIP-27 source with the on-event emit strategy (Paimon's default): each
// row's watermark goes after the row when it advances, whatever the
// interval; it starts at Long.MIN_VALUE, so the first row's watermark is
// emitted even when negative.
func TestPushedWatermarkAfterRow(t *testing.T) {
	op, err := WatermarkAssigner(WatermarkSpec{Rowtime: -1, Pushed: true,
		Watermark: secondBefore})(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(0) }}, nil); err != nil {
		t.Fatal(err)
	}
	row := func(ms int64) sql.Row { return sql.Row{Values: []any{sql.TimestampData{Millis: ms}}} }
	var out runtime.Collector
	if err := op.ProcessBatch(0, []sql.Row{row(500), row(5000), row(5001), row(2000), row(6000)}, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := elements(&out), "500 wm(-500) 5000 wm(4000) 5001 wm(4001) 2000 6000 wm(5000)"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestPushedWatermarkPerSplit: a source that reads splits has its
// watermark generated per split and combined as Flink's SourceOperator
// does (ProgressiveTimestampsAndWatermarks, WatermarkOutputMultiplexer):
// the minimum over the splits handed over and not finished, one not read
// yet holding it at Long.MIN_VALUE, a finished one released (without a
// recombination of its own), the combination never going back; on-event
// (interval 0) after the row that advanced its split past the combined
// watermark, on-periodic only on the timer. A generator restored from a
// snapshot starts from nothing (Flink checkpoints the splits only) and the
// reader adds its splits again. The old generator took the largest
// watermark over all rows: 4000 after the first row, so the rows of split
// b at 1500 and 2500 came after watermark 4000.
func TestPushedWatermarkPerSplit(t *testing.T) {
	ev := func(at int, k connectors.SplitEventKind, id string) connectors.SplitEvent {
		return connectors.SplitEvent{At: at, Kind: k, Split: id}
	}
	row := func(ms int64) sql.Row { return sql.Row{Values: []any{sql.TimestampData{Millis: ms}}} }
	// Splits a and b handed over together, then c alone.
	rows := []sql.Row{row(5000), row(5500), row(1500), row(2500), row(1000), row(9000)}
	events := []connectors.SplitEvent{
		ev(0, connectors.SplitAdded, "a"), ev(0, connectors.SplitAdded, "b"), ev(0, connectors.SplitRead, "a"),
		ev(2, connectors.SplitFinished, "a"), ev(2, connectors.SplitRead, "b"),
		ev(4, connectors.SplitFinished, "b"), ev(4, connectors.SplitAdded, "c"), ev(4, connectors.SplitRead, "c"),
	}
	newOp := func(interval time.Duration, snap []byte) runtime.Operator {
		op, err := WatermarkAssigner(WatermarkSpec{Rowtime: -1, Pushed: true, PerSplit: true, Interval: interval,
			Watermark: secondBefore})(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(0) }}, snap); err != nil {
			t.Fatal(err)
		}
		return op
	}
	op := newOp(0, nil)
	var out runtime.Collector
	if err := op.(runtime.SplitProcessor).ProcessSplitBatch(rows, events, &out); err != nil {
		t.Fatal(err)
	}
	// a's rows: b holds it back. b's first row: the minimum over b alone
	// (a released). c handed over at Long.MIN_VALUE: its 0 is behind 1500,
	// so nothing until 8000.
	if got, want := elements(&out), "5000 5500 1500 wm(500) 2500 wm(1500) 1000 9000 wm(8000)"; got != want {
		t.Fatalf("on-event: got  %q\nwant %q", got, want)
	}

	// Periodic: nothing after rows; the timer emits the combination.
	op = newOp(time.Second, nil)
	out = runtime.Collector{}
	sp := op.(runtime.SplitProcessor)
	timer := op.(runtime.ProcessingTimeOperator)
	if err := sp.ProcessSplitBatch(rows[:2], events[:3], &out); err != nil {
		t.Fatal(err)
	}
	if err := timer.OnProcessingTime(time.UnixMilli(1000), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := elements(&out), "5000 5500"; got != want {
		t.Fatalf("periodic, b not read: got  %q\nwant %q", got, want)
	}
	if err := sp.ProcessSplitBatch(rows[2:3], []connectors.SplitEvent{ev(0, connectors.SplitFinished, "a"), ev(0, connectors.SplitRead, "b")}, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := elements(&out), "5000 5500 1500"; got != want {
		t.Fatalf("periodic, before the timer: got  %q\nwant %q", got, want)
	}
	if err := timer.OnProcessingTime(time.UnixMilli(2000), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := elements(&out), "5000 5500 1500 wm(500)"; got != want {
		t.Fatalf("periodic: got  %q\nwant %q", got, want)
	}

	// Restore before every row: the restored generator knows no split
	// until the reader adds again those of its batch not finished, the
	// one being read first (a split's end is noticed at the next read).
	restored := map[int][]connectors.SplitEvent{
		1: {ev(0, connectors.SplitAdded, "a"), ev(0, connectors.SplitAdded, "b"), ev(0, connectors.SplitRead, "a")},
		2: {ev(0, connectors.SplitAdded, "a"), ev(0, connectors.SplitAdded, "b"), ev(0, connectors.SplitRead, "a")},
		3: {ev(0, connectors.SplitAdded, "b"), ev(0, connectors.SplitRead, "b")},
		4: {ev(0, connectors.SplitAdded, "b"), ev(0, connectors.SplitRead, "b")},
		5: {ev(0, connectors.SplitAdded, "c"), ev(0, connectors.SplitRead, "c")},
	}
	out = runtime.Collector{}
	op = newOp(0, nil)
	for i, r := range rows {
		var evs []connectors.SplitEvent
		if i > 0 {
			snap, err := op.Snapshot(int64(i))
			if err != nil {
				t.Fatal(err)
			}
			op = newOp(0, snap)
			evs = append(evs, restored[i]...)
		}
		for _, e := range events {
			if e.At == i {
				evs = append(evs, ev(0, e.Kind, e.Split))
			}
		}
		if err := op.(runtime.SplitProcessor).ProcessSplitBatch([]sql.Row{r}, evs, &out); err != nil {
			t.Fatal(err)
		}
	}
	// As Flink's after a restore: the generator starts again from
	// Long.MIN_VALUE, so c's 0 is emitted (downstream ignores a watermark
	// that does not advance its own).
	if got, want := elements(&out), "5000 5500 1500 wm(500) 2500 wm(1500) 1000 wm(0) 9000 wm(8000)"; got != want {
		t.Fatalf("restored: got  %q\nwant %q", got, want)
	}
}

// secondBefore is the watermark expression `ts - INTERVAL '1' SECOND` of
// the generator tests, ts being the row's first field.
func secondBefore(r sql.Row) (any, error) {
	ts := r.Values[0].(sql.TimestampData)
	ts.Millis -= 1000
	return ts, nil
}

// TestPushedWatermarkSplitIdleness: a split that produces no row lets the
// combined watermark pass once it is idle, as a WatermarksWithIdleness
// around each split's generator does in Flink's SourceOperator (Paimon's
// 'scan.watermark.idle-timeout' outside its on-event strategy). Idleness
// is checked on the periodic emits (every 200 ms here): a split's
// countdown starts at the first emit that saw none of its rows since the
// one before, and it is idle at the first emit strictly more than the
// timeout (1 s) after that. The subtask is marked idle when every split
// is idle and its main output (which sees no row) too, and active again
// before the next watermark that advances it, not on a row. The old
// generator emitted nothing here: split b, handed over and never read,
// held the combination at Long.MIN_VALUE.
func TestPushedWatermarkSplitIdleness(t *testing.T) {
	ev := func(k connectors.SplitEventKind, id string) connectors.SplitEvent {
		return connectors.SplitEvent{Kind: k, Split: id}
	}
	row := func(ms int64) sql.Row { return sql.Row{Values: []any{sql.TimestampData{Millis: ms}}} }
	for _, tc := range []struct {
		name    string
		onEvent bool
		idle    time.Duration
		want    string
	}{
		{"on-event", true, time.Second,
			"5000 6000 | wm(5000) | IDLE | 7000 ACTIVE wm(6000) | 2000"},
		// On-periodic: the split's watermark goes out on the emits only,
		// so a's 6000 waits for the emit at 1800 ms, where b, read since,
		// is active again at 1000 and holds it back.
		{"on-periodic", false, time.Second,
			"5000 6000 | wm(5000) | IDLE | 7000 | 2000"},
		// No idle timeout: b holds the watermark back until it is read.
		{"no timeout", true, 0,
			"5000 6000 |  |  | 7000 | 2000 wm(1000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op, err := WatermarkAssigner(WatermarkSpec{Rowtime: -1, Pushed: true, PerSplit: true, OnEvent: tc.onEvent,
				Interval: 200 * time.Millisecond, SplitIdleTimeout: tc.idle, Watermark: secondBefore})(0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(0) }}, nil); err != nil {
				t.Fatal(err)
			}
			sp, timer := op.(runtime.SplitProcessor), op.(runtime.ProcessingTimeOperator)
			if got := timer.TimerInterval(); got != 200*time.Millisecond {
				t.Fatalf("timer interval %v, want the periodic emit's 200ms", got)
			}
			var parts []string
			step := func(f func(*runtime.Collector) error) {
				var out runtime.Collector
				if err := f(&out); err != nil {
					t.Fatal(err)
				}
				parts = append(parts, elements(&out))
			}
			tick := func(from, to int64) func(*runtime.Collector) error {
				return func(out *runtime.Collector) error {
					for ms := from; ms <= to; ms += 200 {
						if err := timer.OnProcessingTime(time.UnixMilli(ms), out); err != nil {
							return err
						}
					}
					return nil
				}
			}
			// a and b handed over, a read; b never read.
			step(func(out *runtime.Collector) error {
				return sp.ProcessSplitBatch([]sql.Row{row(5000), row(6000)}, []connectors.SplitEvent{
					ev(connectors.SplitAdded, "a"), ev(connectors.SplitAdded, "b"), ev(connectors.SplitRead, "a")}, out)
			})
			// b's countdown starts at 200 ms: idle at 1400 (1200 > 1000).
			step(tick(200, 1400))
			// a's countdown starts at 400 ms: idle at 1600; now every split
			// and the main output are idle.
			step(tick(1600, 1600))
			// a row of a: active again (on-event at once, on-periodic at
			// the next emit); then b's first row, behind.
			step(func(out *runtime.Collector) error {
				return sp.ProcessSplitBatch([]sql.Row{row(7000)}, nil, out)
			})
			step(func(out *runtime.Collector) error {
				if err := sp.ProcessSplitBatch([]sql.Row{row(2000)}, []connectors.SplitEvent{ev(connectors.SplitRead, "b")}, out); err != nil {
					return err
				}
				return tick(1800, 1800)(out)
			})
			if got := strings.Join(parts, " | "); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestPushedWatermarkNoSplitIdle: a reader handed no split is marked idle
// once its main output's WatermarksWithIdleness times out (the timeout
// after the first periodic emit): both sides of Flink's IdlenessManager
// are then idle, the split outputs' side being idle until a combined
// watermark is emitted. Without a timeout it never is.
func TestPushedWatermarkNoSplitIdle(t *testing.T) {
	for _, tc := range []struct {
		onEvent bool
		idle    time.Duration
		want    string
	}{
		{true, time.Second, "IDLE at 1400"},
		{false, time.Second, "IDLE at 1400"},
		{true, 0, ""},
		{false, 0, ""},
	} {
		op, err := WatermarkAssigner(WatermarkSpec{Rowtime: -1, Pushed: true, PerSplit: true, OnEvent: tc.onEvent,
			Interval: 200 * time.Millisecond, SplitIdleTimeout: tc.idle, Watermark: secondBefore})(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(0) }}, nil); err != nil {
			t.Fatal(err)
		}
		var got []string
		for ms := int64(200); ms <= 3000; ms += 200 {
			var out runtime.Collector
			if err := op.(runtime.ProcessingTimeOperator).OnProcessingTime(time.UnixMilli(ms), &out); err != nil {
				t.Fatal(err)
			}
			if e := elements(&out); e != "" {
				got = append(got, fmt.Sprintf("%s at %d", e, ms))
			}
		}
		if g := strings.Join(got, ", "); g != tc.want {
			t.Errorf("on-event %v, timeout %v: got %q, want %q", tc.onEvent, tc.idle, g, tc.want)
		}
	}
}
