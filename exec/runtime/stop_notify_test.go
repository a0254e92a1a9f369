package runtime_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// committingSource is an unbounded source that, like Paimon's consumer-id
// reader, commits its progress in NotifyCheckpointComplete; the commit is
// slow, so a stop answered before the notification is handled shows.
type committingSource struct {
	mu        sync.Mutex
	notified  []int64
	closed    bool
	committed time.Duration
}

func (s *committingSource) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }
func (s *committingSource) Bounded() bool                    { return false }
func (s *committingSource) NewReader(int, int) (connectors.SourceReader, error) {
	return &committingReader{s: s}, nil
}

type committingReader struct {
	s *committingSource
	n int64
}

func (r *committingReader) Open(context.Context, []byte) error { return nil }
func (r *committingReader) Next(context.Context) ([]sql.Row, error) {
	if r.n >= 3 {
		return nil, nil
	}
	r.n++
	return []sql.Row{{Kind: sql.Insert, Values: []any{r.n}}}, nil
}
func (r *committingReader) Snapshot(int64) ([]byte, error) { return []byte{byte(r.n)}, nil }
func (r *committingReader) NotifyCheckpointComplete(_ context.Context, cp int64) error {
	time.Sleep(r.s.committed)
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.s.notified = append(r.s.notified, cp)
	return nil
}
func (r *committingReader) Close() error {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.s.closed = true
	return nil
}

// TestStopWithSavepointNotifiesBeforeReturning: Stop answers only after
// every task has been notified of the stop's savepoint and closed, and the
// job is FINISHED. A caller that exits right after Stop (sqlrun on SIGTERM)
// must not lose what sources commit on that notification — Paimon's
// consumer file when checkpoints are far apart.
func TestStopWithSavepointNotifiesBeforeReturning(t *testing.T) {
	src := &committingSource{committed: 100 * time.Millisecond}
	sink := &memSink{}
	g := runtime.NewGraph("stop-notify")
	s := g.AddSource("src", "Source: committing", src, 1)
	k := g.AddSink("sink", "Sink: out", sink, 1)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Forward})
	// No periodic checkpoint in the test's time: only the savepoint.
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true,
		CheckpointInterval: time.Hour, CheckpointDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(sink.lines()) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := job.Stop(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	last := job.Metrics().Checkpoints.LastID
	src.mu.Lock()
	notified, closed := append([]int64(nil), src.notified...), src.closed
	src.mu.Unlock()
	if len(notified) == 0 || notified[len(notified)-1] != last {
		t.Errorf("source notified of checkpoints %v when Stop returned, want the savepoint's %d", notified, last)
	}
	if !closed {
		t.Errorf("source not closed when Stop returned")
	}
	if st := job.Status(); st != runtime.Finished {
		t.Errorf("status %s when Stop returned, want FINISHED", st)
	}
}
