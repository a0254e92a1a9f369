package operators

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// temporalSortKeys reads keys=(...) (the ORDER BY keys after the time
// attribute) and desc=(...) (those of them that are DESC, NULLS LAST;
// the others ASC, NULLS FIRST, as Flink's default collation).
func temporalSortKeys(t *testing.T, td *datadriven.TestData) []SortKey {
	desc := map[int]bool{}
	for _, k := range ints(t, td, "desc") {
		desc[k] = true
	}
	var keys []SortKey
	for _, k := range ints(t, td, "keys") {
		keys = append(keys, SortKey{Index: k, Desc: desc[k], NullsFirst: !desc[k]})
	}
	return keys
}

// runTemporalSort runs a "temporal-sort" case of testdata/temporalsort:
// rows (the time column in milliseconds) and "wm N" lines go to an
// event-time TemporalSort; the output lists each watermark's rows,
// replayed with a snapshot and restore after every line on both backends
// (replayTimed).
func runTemporalSort(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	spec := TemporalSortSpec{TimeCol: ints(t, td, "time")[0], Rowtime: true, Keys: temporalSortKeys(t, td)}
	return replayTimed(t, td, TemporalSort(spec), []int{spec.TimeCol}, [][]sql.DataType{in}, in, false)
}

// runProcTemporalSort runs a "proc-temporal-sort" case: a processing-time
// TemporalSort with an injected clock. "now N" sets the clock to N
// milliseconds, "tick" is a processing-time callback, "end" the end of
// the input; a row line is processed at the clock's time. Each line's
// output follows it. The case is replayed with a snapshot and restore
// after every line and must not change.
func runProcTemporalSort(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	spec := TemporalSortSpec{TimeCol: ints(t, td, "time")[0], Keys: temporalSortKeys(t, td)}
	var lines []string
	for _, l := range strings.Split(td.Input, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	run := func(restart int) string {
		var clock int64
		ctx := &runtime.Context{Now: func() time.Time { return time.UnixMilli(clock) }}
		op, err := TemporalSort(spec)(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(ctx, nil); err != nil {
			t.Fatal(err)
		}
		timers := op.(runtime.ProcessingTimeOperator)
		if got := timers.TimerInterval(); (got > 0) != (len(spec.Keys) > 0) {
			t.Fatalf("timer interval %v with %d keys", got, len(spec.Keys))
		}
		var b strings.Builder
		for i, l := range lines {
			if restart > 0 && i == restart {
				snap, err := op.Snapshot(1)
				if err != nil {
					t.Fatal(err)
				}
				_ = op.Close()
				op, _ = TemporalSort(spec)(0, 1)
				if err := op.Open(ctx, snap); err != nil {
					t.Fatalf("restore: %v", err)
				}
				timers = op.(runtime.ProcessingTimeOperator)
			}
			var out runtime.Collector
			switch {
			case strings.HasPrefix(l, "now "):
				if clock, err = strconv.ParseInt(strings.TrimPrefix(l, "now "), 10, 64); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "-- now %d\n", clock)
				continue
			case l == "tick":
				err = timers.OnProcessingTime(time.UnixMilli(clock), &out)
				b.WriteString("-- tick\n")
			case l == "end":
				err = op.Finish(&out)
				b.WriteString("-- end\n")
			default:
				err = op.ProcessBatch(0, []sql.Row{parseRow(t, l, in)}, &out)
			}
			if err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
				break
			}
			for _, r := range out.Rows() {
				b.WriteString(sql.FormatRow(r, in) + "\n")
			}
		}
		_ = op.Close()
		return b.String()
	}
	got := run(0)
	for r := 1; r < len(lines); r++ {
		if again := run(r); again != got {
			t.Fatalf("restart after %d lines changed the output:\n%s\nvs\n%s", r, again, got)
		}
	}
	return got
}

// TestTemporalSortNullTime: a NULL rowtime reads as 0 (Flink's getLong of
// the null field), so it is late once anything after 0 went out, and a
// row of the wrong kind or time type fails the job.
func TestTemporalSortNullTime(t *testing.T) {
	op, _ := TemporalSort(TemporalSortSpec{TimeCol: 1, Rowtime: true})(0, 1)
	if err := op.Open(&runtime.Context{}, nil); err != nil {
		t.Fatal(err)
	}
	wmOp := op.(runtime.WatermarkOperator)
	var out runtime.Collector
	row := func(k string, ts any) sql.Row { return sql.Row{Kind: sql.Insert, Values: []any{k, ts}} }
	if err := op.ProcessBatch(0, []sql.Row{row("n", nil), row("a", sql.TimestampData{Millis: 5})}, &out); err != nil {
		t.Fatal(err)
	}
	if err := wmOp.ProcessWatermark(10, &out); err != nil {
		t.Fatal(err)
	}
	if err := op.ProcessBatch(0, []sql.Row{row("late", nil), row("b", sql.TimestampData{Millis: 20})}, &out); err != nil {
		t.Fatal(err)
	}
	if err := wmOp.ProcessWatermark(runtime.MaxWatermark, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Rows() {
		got = append(got, r.Values[0].(string))
	}
	if strings.Join(got, " ") != "n a b" {
		t.Fatalf("got %v, want n a b", got)
	}
	if err := op.ProcessBatch(0, []sql.Row{{Kind: sql.Delete, Values: []any{"x", sql.TimestampData{Millis: 30}}}}, &out); err == nil {
		t.Fatal("a -D row was accepted")
	}
	if err := op.ProcessBatch(0, []sql.Row{row("x", int64(30))}, &out); err == nil {
		t.Fatal("a BIGINT time was accepted")
	}
}
