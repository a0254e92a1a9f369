package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// countingSink's writers report how many rows they wrote, by subtask
// parity, and a histogram of batch sizes (connectors.ReportsMetrics).
type countingSink struct{}

func (countingSink) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (countingSink) Parallelism() int                                             { return 0 }
func (countingSink) NewWriter(subtask, _ int) (connectors.SinkWriter, error) {
	return &countingWriter{subtask: subtask}, nil
}

type countingWriter struct {
	subtask int
	rows    atomic.Int64
	batches atomic.Int64
}

func (w *countingWriter) Open(context.Context, []byte) error { return nil }
func (w *countingWriter) Write(_ context.Context, rows []sql.Row) error {
	w.rows.Add(int64(len(rows)))
	w.batches.Add(1)
	return nil
}
func (w *countingWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) {
	return nil, nil, nil
}
func (w *countingWriter) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (w *countingWriter) Close(context.Context) error                           { return nil }

func (w *countingWriter) Metrics() []connectors.Metric {
	return []connectors.Metric{
		{Name: "test_rows_total", Help: "Rows written.", Short: "written", Value: float64(w.rows.Load()),
			Labels: [][2]string{{"kind", "row"}}},
		{Name: "test_rows_total", Help: "Rows written.", Value: 1, Labels: [][2]string{{"kind", "writer"}}},
		{Name: "test_batch_seconds", Help: "Batches.", Short: "batch", Bounds: []float64{0.5},
			Buckets: []uint64{uint64(w.batches.Load())}, Count: uint64(w.batches.Load()), Sum: float64(w.batches.Load())},
	}
}

var _ connectors.ReportsMetrics = (*countingWriter)(nil)

// TestConnectorMetrics: what a sink's writers report about themselves is
// summed over subtasks (same name and labels), exported in Prometheus'
// text format with the operator's labels (histograms as _bucket, _sum and
// _count), and shown in the status line by its short name.
func TestConnectorMetrics(t *testing.T) {
	g := runtime.NewGraph("metrics")
	s := g.AddSource("src", "Values", &runtime.ValuesSource{Rows: ordersRows()}, 1)
	k := g.AddSink("sink", "Sink: counted", countingSink{}, 3)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Rebalance})
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := runtime.WritePrometheus(&b, []*runtime.Job{job}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "test_") || strings.Contains(l, " test_") {
			got = append(got, strings.ReplaceAll(l, job.ID, "ID"))
		}
	}
	var batches int64
	for _, v := range job.Metrics().Vertices {
		for _, c := range v.Connector {
			if c.Name == "test_batch_seconds" {
				batches = int64(c.Count)
			}
		}
	}
	ol := `job_id="ID",job_name="metrics",operator_id="sink",operator_name="Sink: counted"`
	want := []string{
		"# HELP test_batch_seconds Batches.",
		"# TYPE test_batch_seconds histogram",
		fmt.Sprintf(`test_batch_seconds_bucket{%s,le="0.5"} %d`, ol, batches),
		fmt.Sprintf(`test_batch_seconds_bucket{%s,le="+Inf"} %d`, ol, batches),
		fmt.Sprintf(`test_batch_seconds_sum{%s} %d`, ol, batches),
		fmt.Sprintf(`test_batch_seconds_count{%s} %d`, ol, batches),
		"# HELP test_rows_total Rows written.",
		"# TYPE test_rows_total counter",
		fmt.Sprintf(`test_rows_total{%s,kind="row"} %d`, ol, len(ordersRows())),
		fmt.Sprintf(`test_rows_total{%s,kind="writer"} 3`, ol),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("prometheus:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	line := runtime.StatusLine(runtime.Metrics{}, job.Metrics(), time.Second)
	// Only samples with a Short name show (the writer count has none).
	if want := fmt.Sprintf(", written %d, batch 1000.0 ms", len(ordersRows())); !strings.HasSuffix(line, want) {
		t.Fatalf("status line %q, want suffix %q", line, want)
	}
}
