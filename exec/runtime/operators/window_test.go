package operators

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/exec/runtime/state/lsm"
	"github.com/sqlrun/sqlrun/sql"
)

// runWindow runs a "window" case of testdata/window: rows (the time
// column given in milliseconds) and "wm N" lines (a watermark) go to a
// WindowAggregate; the output lists the rows fired, each watermark's
// output after a "-- wm N" line. The case is replayed with a snapshot and
// restore after every line, on both state backends, and must not change.
func runWindow(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	outT := append(types(t, td, "out"), sql.Timestamp(3), sql.Timestamp(3))
	spec := WindowSpec{TimeCol: ints(t, td, "time")[0], GroupKeys: ints(t, td, "group"), Aggs: parseAggs(t, td, in)}
	spec.WindowTime = boolArg(td, "window-time")
	if spec.WindowTime {
		outT = append(outT, sql.Timestamp(3))
	}
	// no-properties: a group window whose query reads no window property
	// (keys and aggregates only).
	if spec.NoProperties = boolArg(td, "no-properties"); spec.NoProperties {
		outT = outT[:len(outT)-2]
	}
	kind, _ := td.Arg("kind")
	sizes := ints(t, td, "size")
	switch kind.Vals[0] {
	case "tumble":
		spec.Kind, spec.Size = Tumble, int64(sizes[0])
	case "hop":
		spec.Kind, spec.Slide, spec.Size = Hop, int64(sizes[0]), int64(sizes[1])
	case "cumulate":
		spec.Kind, spec.Step, spec.Size = Cumulate, int64(sizes[0]), int64(sizes[1])
	case "session":
		spec.Kind, spec.Size = Session, int64(sizes[0])
	}
	if o := ints(t, td, "offset"); len(o) == 1 {
		spec.Offset = int64(o[0])
	}
	// attached=(S,E): each row's window is its fields S (window_start)
	// and E (window_end), given in milliseconds like the time column.
	if a := ints(t, td, "attached"); len(a) == 2 {
		spec.Attached, spec.WinStart, spec.WinEnd = true, a[0], a[1]
	}
	// early=D / late=D: early / late firing with delay D (0: on every
	// row), lateness=L: the allowed lateness; either makes later firings
	// updates (a legacy group window's emit strategy). Rows a firing on
	// a row emits follow that row.
	if d := ints(t, td, "early"); len(d) == 1 {
		spec.EarlyFire, spec.EarlyDelay, spec.ProduceUpdates = true, int64(d[0]), true
	}
	if d := ints(t, td, "late"); len(d) == 1 {
		spec.LateFire, spec.LateDelay, spec.ProduceUpdates = true, int64(d[0]), true
	}
	if l := ints(t, td, "lateness"); len(l) == 1 {
		spec.AllowLateness = int64(l[0])
	}
	onRow := spec.EarlyFire || spec.LateFire
	return replayTimed(t, td, WindowAggregate(spec), []int{spec.TimeCol}, [][]sql.DataType{in}, outT, onRow)
}

// runSessionTVF runs a "session-tvf" case of testdata/window: a SESSION
// window table function (SessionTableFunction) with gap size, partitioned
// by the group columns; the output rows are the input's followed by
// window_start, window_end and window_time. Replayed with a snapshot and
// restore after every line, as runWindow's.
func runSessionTVF(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	outT := append(append([]sql.DataType(nil), in...), sql.Timestamp(3), sql.Timestamp(3), sql.Timestamp(3))
	spec := WindowSpec{Kind: Session, TimeCol: ints(t, td, "time")[0], GroupKeys: ints(t, td, "group"), Size: int64(ints(t, td, "size")[0])}
	return replayTimed(t, td, SessionTableFunction(spec), []int{spec.TimeCol}, [][]sql.DataType{in}, outT, false)
}

// replayTimed runs the rows (the time column given in milliseconds) and
// "wm N" lines of td's input through the operator f makes (with two
// inputs, a row line starts with L or R); the output lists the rows
// emitted, each watermark's after a "-- wm N" line (and, with onRow, each
// row's after it). The case is replayed with a snapshot and
// restore after every line, on both state backends, and must not change.
func replayTimed(t *testing.T, td *datadriven.TestData, f runtime.OperatorFactory, timeCols []int, ins [][]sql.DataType, outT []sql.DataType, onRow bool) string {
	var lines []string
	for _, l := range strings.Split(td.Input, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	run := func(restart int, lsmDir string) string {
		var stores []*lsm.Store
		defer func() {
			for _, s := range stores {
				_ = s.Close()
			}
		}()
		ctx := func(i int, restoreDir string) *runtime.Context {
			if lsmDir == "" {
				return &runtime.Context{}
			}
			s, err := lsm.Open(filepath.Join(lsmDir, fmt.Sprintf("work-%d-%d", restart, i)), "op")
			if err != nil {
				t.Fatal(err)
			}
			s.SetRestoreDir(restoreDir)
			stores = append(stores, s)
			return &runtime.Context{State: &state.Backend{Store: s}}
		}
		op, _ := f(0, 1)
		if err := op.Open(ctx(0, ""), nil); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		var out runtime.Collector
		lastWM := int64(runtime.MinWatermark)
		for i, l := range lines {
			if restart > 0 && i == restart {
				cpDir := ""
				if lsmDir != "" {
					cpDir = filepath.Join(lsmDir, fmt.Sprintf("chk-%d", restart))
					stores[0].BeginSnapshot(cpDir)
				}
				snap, err := op.Snapshot(1)
				if err != nil {
					t.Fatal(err)
				}
				if lsmDir != "" {
					if w := stores[0].CheckpointDone(); w != nil {
						if err := w(); err != nil {
							t.Fatal(err)
						}
					}
				}
				_ = op.Close()
				op, _ = f(0, 1)
				if err := op.Open(ctx(1, cpDir), snap); err != nil {
					t.Fatalf("restore: %v", err)
				}
				// As Flink, the watermark is not restored: the valve
				// gives the operator the next one that arrives (the
				// test replays the last one, as the upstream assigner
				// would emit it again).
				if lastWM != runtime.MinWatermark {
					if err := op.(runtime.WatermarkOperator).ProcessWatermark(lastWM, &out); err != nil {
						t.Fatal(err)
					}
				}
			}
			out.Reset()
			if w, ok := strings.CutPrefix(l, "wm "); ok {
				n, err := strconv.ParseInt(w, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				lastWM = n
				if err := op.(runtime.WatermarkOperator).ProcessWatermark(n, &out); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "-- wm %d\n", n)
				for _, r := range out.Rows() {
					b.WriteString(sql.FormatRow(r, outT) + "\n")
				}
				continue
			}
			input := 0
			if len(ins) > 1 {
				side, rest, _ := strings.Cut(l, " ")
				if side == "R" {
					input = 1
				}
				l = rest
			}
			r := parseRow(t, l, ins[input])
			r.Values[timeCols[input]] = sql.TimestampData{Millis: r.Values[timeCols[input]].(int64)}
			if err := op.ProcessBatch(input, []sql.Row{r}, &out); err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
				break
			}
			if !onRow && len(out.Rows()) > 0 {
				t.Fatalf("rows emitted before a watermark")
			}
			for _, r := range out.Rows() {
				b.WriteString(sql.FormatRow(r, outT) + "\n")
			}
		}
		_ = op.Close()
		return b.String()
	}
	got := run(0, "")
	dir := t.TempDir()
	if again := run(0, dir); again != got {
		t.Fatalf("the LSM backend changed the output:\n%s\nvs\n%s", again, got)
	}
	for r := 1; r < len(lines); r++ {
		if again := run(r, ""); again != got {
			t.Fatalf("restart after %d lines changed the output:\n%s\nvs\n%s", r, again, got)
		}
		if again := run(r, dir); again != got {
			t.Fatalf("LSM backend: restart after %d lines changed the output:\n%s\nvs\n%s", r, again, got)
		}
	}
	return got
}

// runProcTVF runs a "proc-tvf" case of testdata/window: a
// WindowTableFunction on processing time with an injected clock. "now N"
// sets the clock to N milliseconds; a row line is processed at the
// clock's time (the time column, the row's last, is not read) and the
// rows it emits follow it.
func runProcTVF(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	outT := append(append([]sql.DataType(nil), in...), sql.Timestamp(3), sql.Timestamp(3), sql.TimestampLTZ(3))
	spec := WindowSpec{TimeCol: len(in) - 1, ProcTime: true}
	kind, _ := td.Arg("kind")
	sizes := ints(t, td, "size")
	switch kind.Vals[0] {
	case "tumble":
		spec.Kind, spec.Size = Tumble, int64(sizes[0])
	case "hop":
		spec.Kind, spec.Slide, spec.Size = Hop, int64(sizes[0]), int64(sizes[1])
	case "cumulate":
		spec.Kind, spec.Step, spec.Size = Cumulate, int64(sizes[0]), int64(sizes[1])
	}
	var clock int64
	op, err := WindowTableFunction(spec)(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(&runtime.Context{Now: func() time.Time { return time.UnixMilli(clock) }}, nil); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.Split(td.Input, "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if n, ok := strings.CutPrefix(l, "now "); ok {
			if clock, err = strconv.ParseInt(n, 10, 64); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "-- now %d\n", clock)
			continue
		}
		var out runtime.Collector
		if err := op.ProcessBatch(0, []sql.Row{parseRow(t, l, in)}, &out); err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		for _, r := range out.Rows() {
			b.WriteString(sql.FormatRow(r, outT) + "\n")
		}
	}
	return b.String()
}

// runProcWindow runs a "proc-window" case of testdata/window: a
// WindowAggregate (a "proc-session-tvf" case: a SESSION
// SessionTableFunction, kind=session, no aggs) on processing time with an injected clock. "now N" sets
// the clock to N milliseconds and gives the operator a processing-time
// tick, "clock N" sets it without a tick; a row line is processed at the clock's time (its columns carry no
// time). The output lists the rows each tick fires after a "-- now N"
// line. The case is replayed with a snapshot and restore after every line,
// on both state backends, and must not change.
func runProcWindow(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	outT := append(types(t, td, "out"), sql.Timestamp(3), sql.Timestamp(3))
	spec := WindowSpec{GroupKeys: ints(t, td, "group"), Aggs: parseAggs(t, td, in), ProcTime: true}
	spec.WindowTime = boolArg(td, "window-time")
	if spec.WindowTime {
		outT = append(outT, sql.TimestampLTZ(3))
	}
	kind, _ := td.Arg("kind")
	sizes := ints(t, td, "size")
	switch kind.Vals[0] {
	case "tumble":
		spec.Kind, spec.Size = Tumble, int64(sizes[0])
	case "hop":
		spec.Kind, spec.Slide, spec.Size = Hop, int64(sizes[0]), int64(sizes[1])
	case "cumulate":
		spec.Kind, spec.Step, spec.Size = Cumulate, int64(sizes[0]), int64(sizes[1])
	case "session":
		spec.Kind, spec.Size = Session, int64(sizes[0])
	}
	var lines []string
	for _, l := range strings.Split(td.Input, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	f := WindowAggregate(spec)
	if td.Cmd == "proc-session-tvf" {
		// A SESSION table function: the input's columns, then
		// window_start, window_end and window_time.
		f = SessionTableFunction(spec)
		outT = append(append([]sql.DataType(nil), in...), sql.Timestamp(3), sql.Timestamp(3), sql.TimestampLTZ(3))
	}
	run := func(restart int, lsmDir string) string {
		var clock int64
		var stores []*lsm.Store
		defer func() {
			for _, s := range stores {
				_ = s.Close()
			}
		}()
		ctx := func(i int, restoreDir string) *runtime.Context {
			c := &runtime.Context{Now: func() time.Time { return time.UnixMilli(clock) }}
			if lsmDir == "" {
				return c
			}
			s, err := lsm.Open(filepath.Join(lsmDir, fmt.Sprintf("work-%d-%d", restart, i)), "op")
			if err != nil {
				t.Fatal(err)
			}
			s.SetRestoreDir(restoreDir)
			stores = append(stores, s)
			c.State = &state.Backend{Store: s}
			return c
		}
		op, err := f(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(ctx(0, ""), nil); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		var out runtime.Collector
		for i, l := range lines {
			if restart > 0 && i == restart {
				cpDir := ""
				if lsmDir != "" {
					cpDir = filepath.Join(lsmDir, fmt.Sprintf("chk-%d", restart))
					stores[0].BeginSnapshot(cpDir)
				}
				snap, err := op.Snapshot(1)
				if err != nil {
					t.Fatal(err)
				}
				if lsmDir != "" {
					if w := stores[0].CheckpointDone(); w != nil {
						if err := w(); err != nil {
							t.Fatal(err)
						}
					}
				}
				_ = op.Close()
				op, _ = f(0, 1)
				if err := op.Open(ctx(1, cpDir), snap); err != nil {
					t.Fatalf("restore: %v", err)
				}
			}
			out.Reset()
			if n, ok := strings.CutPrefix(l, "now "); ok {
				ms, err := strconv.ParseInt(n, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				clock = ms
				if err := op.(runtime.ProcessingTimeOperator).OnProcessingTime(time.UnixMilli(ms), &out); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "-- now %d\n", ms)
				for _, r := range out.Rows() {
					b.WriteString(sql.FormatRow(r, outT) + "\n")
				}
				continue
			}
			if n, ok := strings.CutPrefix(l, "clock "); ok {
				ms, err := strconv.ParseInt(n, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				clock = ms
				continue
			}
			if n, ok := strings.CutPrefix(l, "wm "); ok {
				ms, err := strconv.ParseInt(n, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if err := op.(runtime.WatermarkOperator).ProcessWatermark(ms, &out); err != nil {
					t.Fatal(err)
				}
				if len(out.Rows()) > 0 {
					t.Fatalf("a watermark fired a processing-time window")
				}
				continue
			}
			if err := op.ProcessBatch(0, []sql.Row{parseRow(t, l, in)}, &out); err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
				break
			}
			if len(out.Rows()) > 0 {
				t.Fatalf("rows emitted by a row, not a tick")
			}
		}
		_ = op.Close()
		return b.String()
	}
	got := run(0, "")
	dir := t.TempDir()
	if again := run(0, dir); again != got {
		t.Fatalf("the LSM backend changed the output:\n%s\nvs\n%s", again, got)
	}
	for r := 1; r < len(lines); r++ {
		if again := run(r, ""); again != got {
			t.Fatalf("restart after %d lines changed the output:\n%s\nvs\n%s", r, again, got)
		}
		if again := run(r, dir); again != got {
			t.Fatalf("LSM backend: restart after %d lines changed the output:\n%s\nvs\n%s", r, again, got)
		}
	}
	return got
}

// TestWindowDelayedFiring checks early and late firings with a delay
// (Flink's ProcessingTimeTriggers.every): the first row after a firing
// schedules the next one a delay of processing time later, the pending
// firing survives a snapshot and restore, and the on-time firing ends an
// early one still pending.
func TestWindowDelayedFiring(t *testing.T) {
	in := []sql.DataType{sql.String(), sql.BigInt(), sql.BigInt()}
	spec := WindowSpec{Kind: Tumble, Size: 10000, TimeCol: 1, GroupKeys: []int{0}, NoProperties: true,
		Aggs: []AggSpec{{Kind: CountStar}, {Kind: Sum, Arg: 2}}, EarlyFire: true, EarlyDelay: 1000,
		LateFire: true, LateDelay: 500, AllowLateness: 5000, ProduceUpdates: true}
	var clock int64
	ctx := &runtime.Context{Now: func() time.Time { return time.UnixMilli(clock) }}
	op, err := WindowAggregate(spec)(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	var got []string
	step := func(what string, f func() error) {
		t.Helper()
		out.Reset()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, r := range out.Rows() {
			rows = append(rows, sql.FormatRow(r, []sql.DataType{sql.String(), sql.BigInt(), sql.BigInt()}))
		}
		got = append(got, what+": "+strings.Join(rows, " "))
	}
	row := func(line string) func() error {
		return func() error {
			r := parseRow(t, line, in)
			r.Values[1] = sql.TimestampData{Millis: r.Values[1].(int64)}
			return op.ProcessBatch(0, []sql.Row{r}, &out)
		}
	}
	timers := op.(interface {
		TimerInterval() time.Duration
		OnProcessingTime(time.Time, *runtime.Collector) error
	})
	if timers.TimerInterval() <= 0 {
		t.Fatal("no processing-time timer for a delayed firing")
	}
	tick := func(at int64) func() error {
		return func() error { clock = at; return timers.OnProcessingTime(time.UnixMilli(at), &out) }
	}
	wm := func(w int64) func() error {
		return func() error { return op.(runtime.WatermarkOperator).ProcessWatermark(w, &out) }
	}
	step("row@0", row("+I[a, 1000, 5]"))
	step("tick 999", tick(999))
	step("tick 1000", tick(1000))
	step("row@1200", func() error { clock = 1200; return row("+I[a, 2000, 7]")() })
	snap, err := op.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	op, _ = WindowAggregate(spec)(0, 1)
	if err := op.Open(ctx, snap); err != nil {
		t.Fatal(err)
	}
	timers = op.(interface {
		TimerInterval() time.Duration
		OnProcessingTime(time.Time, *runtime.Collector) error
	})
	step("tick 2200 (restored)", tick(2200))
	step("row@2300", row("+I[a, 3000, 1]"))
	step("wm 9999", wm(9999))
	step("tick 3300", tick(3300))
	step("late row@3400", func() error { clock = 3400; return row("+I[a, 4000, 10]")() })
	step("tick 3899", tick(3899))
	step("tick 3900", tick(3900))
	step("wm 14999", wm(14999))
	step("late row", row("+I[a, 5000, 100]"))
	want := []string{
		"row@0: ",
		"tick 999: ",
		"tick 1000: +I[a, 1, 5]",
		"row@1200: ",
		"tick 2200 (restored): -U[a, 1, 5] +U[a, 2, 12]",
		"row@2300: ",
		"wm 9999: -U[a, 2, 12] +U[a, 3, 13]",
		"tick 3300: ",
		"late row@3400: ",
		"tick 3899: ",
		"tick 3900: -U[a, 3, 13] +U[a, 4, 23]",
		"wm 14999: ",
		"late row: ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
