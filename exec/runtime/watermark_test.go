package runtime_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/sql"
)

// splitSource gives subtask i the rows parts[i].
type splitSource struct{ parts [][]sql.Row }

func (s *splitSource) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }
func (s *splitSource) Bounded() bool                    { return true }
func (s *splitSource) NewReader(subtask, _ int) (connectors.SourceReader, error) {
	return &runtime.SliceReader{Rows: s.parts[subtask], BatchSize: 1}, nil
}

// wmRecorder emits one row per watermark it is given: (watermark, rows
// seen so far).
type wmRecorder struct {
	runtime.Base
	rows int64
}

func (r *wmRecorder) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	r.rows += int64(len(rows))
	return nil
}

func (r *wmRecorder) ProcessWatermark(wm int64, out *runtime.Collector) error {
	out.Emit(sql.Row{Kind: sql.Insert, Values: []any{wm, r.rows}})
	return nil
}

func tsRows(ms ...int64) []sql.Row {
	out := make([]sql.Row, len(ms))
	for i, m := range ms {
		out[i] = sql.Row{Kind: sql.Insert, Values: []any{sql.TimestampData{Millis: m}}}
	}
	return out
}

// TestWatermarksFlowAsFlink: two source subtasks with their own
// WatermarkAssigner (bounded out-of-orderness 0, watermarks emitted as they
// advance) feed one subtask through a Calc that does not act on event time
// and forwards them. That subtask sees the minimum of its two channels,
// never going back: subtask 1's watermark (100 s) cannot pass subtask 0's
// until subtask 0 ends with Long.MAX_VALUE, and the end of both bounded
// inputs ends event time.
func TestWatermarksFlowAsFlink(t *testing.T) {
	g := runtime.NewGraph("watermarks")
	src := g.AddSource("src", "Source: t", &splitSource{parts: [][]sql.Row{
		tsRows(1000, 3000, 2000, 5000), tsRows(100000),
	}}, 2)
	wm := g.AddOperator("wm", "WatermarkAssigner", operators.WatermarkAssigner(operators.WatermarkSpec{
		Watermark: func(r sql.Row) (any, error) { return r.Values[0], nil },
	}), 2)
	calc := g.AddOperator("calc", "Calc", operators.ProjectFilter([]int{0}, nil), 2)
	rec := g.AddOperator("rec", "rec", func(int, int) (runtime.Operator, error) { return &wmRecorder{}, nil }, 1)
	sink := &memSink{}
	k := g.AddSink("sink", "Sink", sink, 1)
	g.Connect(src, wm, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(wm, calc, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(calc, rec, runtime.Partitioning{Kind: runtime.Global})
	g.Connect(rec, k, runtime.Partitioning{Kind: runtime.Global})
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	allowed := map[int64]bool{1000: true, 3000: true, 5000: true, 100000: true, runtime.MaxWatermark: true}
	last := int64(runtime.MinWatermark)
	for _, r := range sink.rows {
		w := r.Values[0].(int64)
		if w <= last || !allowed[w] {
			t.Fatalf("watermark %d after %d (all: %v)", w, last, sink.lines())
		}
		if w == 100000 && r.Values[1].(int64) < 4 {
			t.Fatalf("watermark 100000 passed subtask 0 before it ended: %v", sink.lines())
		}
		last = w
	}
	if last != runtime.MaxWatermark {
		t.Fatalf("event time did not end: %v", sink.lines())
	}
	if n := sink.rows[len(sink.rows)-1].Values[1].(int64); n != 5 {
		t.Fatalf("the final watermark came before all rows: %v", sink.lines())
	}
}

// eventSource's reader returns its batches with their split events
// (connectors.SplitReader), one batch per Next, then ends.
type eventSource struct {
	batches [][]sql.Row
	events  [][]connectors.SplitEvent
}

func (s *eventSource) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }
func (s *eventSource) Bounded() bool                    { return true }
func (s *eventSource) NewReader(int, int) (connectors.SourceReader, error) {
	return &eventReader{s: s, i: -1}, nil
}

type eventReader struct {
	s *eventSource
	i int
}

func (r *eventReader) Open(context.Context, []byte) error { return nil }
func (r *eventReader) Next(context.Context) ([]sql.Row, error) {
	r.i++
	if r.i >= len(r.s.batches) {
		return nil, io.EOF
	}
	return r.s.batches[r.i], nil
}
func (r *eventReader) SplitEvents() []connectors.SplitEvent {
	if r.i < 0 || r.i >= len(r.s.events) {
		return nil
	}
	return r.s.events[r.i]
}
func (r *eventReader) Snapshot(int64) ([]byte, error)                        { return nil, nil }
func (r *eventReader) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (r *eventReader) Close() error                                          { return nil }

// emptySink counts the Writes it is given without rows.
type emptySink struct {
	memSink
	empty atomic.Int64
}

func (s *emptySink) NewWriter(subtask, n int) (connectors.SinkWriter, error) {
	w, err := s.memSink.NewWriter(subtask, n)
	return emptyCounting{w, s}, err
}

type emptyCounting struct {
	connectors.SinkWriter
	s *emptySink
}

func (w emptyCounting) Write(ctx context.Context, rows []sql.Row) error {
	if len(rows) == 0 {
		w.s.empty.Add(1)
	}
	return w.SinkWriter.Write(ctx, rows)
}

// TestSplitEventsReachTheGenerator: a source reader's split events travel
// with its rows on the forward edge to the per-split watermark generator
// (runtime.SplitProcessor), those of a Next without rows too, and go
// nowhere else: a sink chained to the same source gets no empty Write.
// Splits a and b are handed over together; b holds the watermark back
// while a is read, the events-only batch finishes a and starts b.
func TestSplitEventsReachTheGenerator(t *testing.T) {
	ev := func(k connectors.SplitEventKind, id string) connectors.SplitEvent {
		return connectors.SplitEvent{Kind: k, Split: id}
	}
	src := &eventSource{
		batches: [][]sql.Row{tsRows(5000, 6000), nil, tsRows(2000)},
		events: [][]connectors.SplitEvent{
			{ev(connectors.SplitAdded, "a"), ev(connectors.SplitAdded, "b"), ev(connectors.SplitRead, "a")},
			{ev(connectors.SplitFinished, "a"), ev(connectors.SplitRead, "b")},
			nil,
		},
	}
	g := runtime.NewGraph("split-events")
	s := g.AddSource("src", "Source: t", src, 1)
	wm := g.AddOperator("wm", "WatermarkGenerator", operators.WatermarkAssigner(operators.WatermarkSpec{
		Rowtime: -1, Pushed: true, PerSplit: true,
		Watermark: func(r sql.Row) (any, error) { return r.Values[0], nil },
	}), 1)
	rec := g.AddOperator("rec", "rec", func(int, int) (runtime.Operator, error) { return &wmRecorder{}, nil }, 1)
	sink := &memSink{}
	direct := &emptySink{}
	g.Connect(s, wm, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(wm, rec, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(rec, g.AddSink("sink", "Sink", sink, 1), runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(s, g.AddSink("direct", "Sink: direct", direct, 1), runtime.Partitioning{Kind: runtime.Forward})
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	// (watermark, rows seen): 2000 is b's first row, after a's 5000 and
	// 6000 were held back by b; then the end of input.
	if got, want := strings.Join(sink.lines(), " "), "+I[2000, 3] +I[9223372036854775807, 3]"; got != want {
		t.Fatalf("watermarks: got %s, want %s", got, want)
	}
	if n := direct.empty.Load(); n != 0 || len(direct.lines()) != 3 {
		t.Fatalf("direct sink: %d empty writes, rows %v", n, direct.lines())
	}
}
