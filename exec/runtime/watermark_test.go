package runtime_test

import (
	"context"
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
