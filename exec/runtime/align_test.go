package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// stalledSource never produces a row and never returns from Next until
// the job ends: its barrier never comes, so an aligning receiver waits on
// it for ever.
type stalledSource struct{}

func (stalledSource) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }
func (stalledSource) Bounded() bool                    { return false }
func (stalledSource) NewReader(int, int) (connectors.SourceReader, error) {
	return stalledReader{}, nil
}

type stalledReader struct{}

func (stalledReader) Open(context.Context, []byte) error { return nil }
func (stalledReader) Next(ctx context.Context) ([]sql.Row, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (stalledReader) Snapshot(int64) ([]byte, error)                        { return nil, nil }
func (stalledReader) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (stalledReader) Close() error                                          { return nil }

type endless struct{}

func (endless) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }
func (endless) Bounded() bool                    { return false }
func (endless) NewReader(int, int) (connectors.SourceReader, error) {
	return &endlessReader{}, nil
}

type endlessReader struct{ n int64 }

func (r *endlessReader) Open(context.Context, []byte) error { return nil }
func (r *endlessReader) Next(context.Context) ([]sql.Row, error) {
	rows := make([]sql.Row, 64)
	for i := range rows {
		r.n++
		rows[i] = sql.NewRow(r.n)
	}
	return rows, nil
}
func (r *endlessReader) Snapshot(int64) ([]byte, error)                        { return nil, nil }
func (r *endlessReader) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (r *endlessReader) Close() error                                          { return nil }

type discard struct{}

func (discard) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (discard) Parallelism() int                                             { return 1 }
func (discard) NewWriter(int, int) (connectors.SinkWriter, error)            { return discardWriter{}, nil }

type discardWriter struct{}

func (discardWriter) Open(context.Context, []byte) error                      { return nil }
func (discardWriter) Write(context.Context, []sql.Row) error                  { return nil }
func (discardWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (discardWriter) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (discardWriter) Close(context.Context) error                             { return nil }

// TestAlignmentIsBounded: a receiver aligning a barrier that one input
// never delivers holds at most alignCredits batches of the other input;
// that input's source is back-pressured instead of filling memory (issue
// 24: RSS grew 16 MB/s while a slow input's barrier was pending). The
// observation window only gives an unbounded buffer time to show itself;
// a bounded one can never exceed the bound.
func TestAlignmentIsBounded(t *testing.T) {
	g := NewGraph("align")
	fast := g.AddSource("fast", "Source: fast", endless{}, 1)
	slow := g.AddSource("slow", "Source: slow", stalledSource{}, 1)
	u := g.AddOperator("union", "Union", func(int, int) (Operator, error) { return &passOp{}, nil }, 1)
	k := g.AddSink("sink", "Sink", discard{}, 1)
	g.Connect(fast, u, Partitioning{Kind: Forward})
	g.Connect(slow, u, Partitioning{Kind: Forward})
	g.Connect(u, k, Partitioning{Kind: Forward})
	j, err := Start(context.Background(), g, Config{Streaming: true, CheckpointInterval: 5 * time.Millisecond,
		CheckpointDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { j.Cancel(); _ = j.Wait(context.Background()) }()
	m := j.metrics[u]
	deadline := time.Now().Add(time.Second)
	var most int64
	for time.Now().Before(deadline) {
		most = max(most, m.alignBuffered.Load())
		if most > alignCredits {
			t.Fatalf("alignment buffered %d batches of the blocked input, bound %d", most, alignCredits)
		}
		time.Sleep(time.Millisecond)
	}
	if most == 0 {
		t.Fatal("no barrier was ever aligned: the test did not test anything")
	}
}

type passOp struct{ Base }

func (*passOp) ProcessBatch(_ int, rows []sql.Row, out *Collector) error {
	out.Adopt(rows)
	return nil
}
