package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// failingLaterSink's writers accept every row and later report a failed
// background flush on Failed(), as the JDBC sink's interval timer does when
// MySQL stays down past sink.max-retries.
type failingLaterSink struct{ failed chan error }

func (s *failingLaterSink) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) {
	return m, nil
}
func (s *failingLaterSink) Parallelism() int { return 0 }
func (s *failingLaterSink) NewWriter(int, int) (connectors.SinkWriter, error) {
	return &failingLaterWriter{s: s}, nil
}

type failingLaterWriter struct{ s *failingLaterSink }

func (w *failingLaterWriter) Open(context.Context, []byte) error     { return nil }
func (w *failingLaterWriter) Write(context.Context, []sql.Row) error { return nil }
func (w *failingLaterWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) {
	return nil, nil, nil
}
func (w *failingLaterWriter) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (w *failingLaterWriter) Close(context.Context) error                           { return nil }
func (w *failingLaterWriter) Failed() <-chan error                                  { return w.s.failed }

// TestBackgroundSinkFailureFailsJob (issue 23): a streaming job without
// checkpointing whose source has gone quiet — no row, no barrier will ever
// reach the sink again — must still fail when the sink's background flush
// fails for good, with that error; before, the error waited for a call
// that never came and the job ran on looking healthy.
func TestBackgroundSinkFailureFailsJob(t *testing.T) {
	src := &committingSource{} // three rows, then nothing, forever
	sink := &failingLaterSink{failed: make(chan error, 1)}
	g := runtime.NewGraph("background-fail")
	s := g.AddSource("src", "Source: quiet", src, 1)
	k := g.AddSink("sink", "Sink: jdbc", sink, 1)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Forward})
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true, CheckpointDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("JDBC UPSERT on table 'orders_rt' failed after 4 attempt(s)")
	sink.failed <- cause
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = job.Wait(ctx)
	if ctx.Err() != nil {
		t.Fatal("the job never failed after its sink's background flush failed")
	}
	if job.Status() != runtime.Failed || !errors.Is(err, cause) || !strings.Contains(err.Error(), "Sink: jdbc (1/1): write") {
		t.Fatalf("status %s, err %v; want FAILED with the sink's error", job.Status(), err)
	}
}
