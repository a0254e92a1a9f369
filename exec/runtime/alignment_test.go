package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/sql"
)

// alignLog records, in the order the readers read them, each source's rows'
// event times (and its end, -1).
type alignLog struct {
	mu      sync.Mutex
	entries []alignEntry
}

type alignEntry struct {
	src string
	ts  int64
}

// loggedSource reads rows one at a time, logging each read.
type loggedSource struct {
	name string
	rows []sql.Row
	log  *alignLog
}

func (s *loggedSource) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }
func (s *loggedSource) Bounded() bool                    { return true }
func (s *loggedSource) NewReader(int, int) (connectors.SourceReader, error) {
	return &loggedReader{SliceReader: runtime.SliceReader{Rows: s.rows, BatchSize: 1}, s: s}, nil
}

type loggedReader struct {
	runtime.SliceReader
	s *loggedSource
}

func (r *loggedReader) Next(ctx context.Context) ([]sql.Row, error) {
	rows, err := r.SliceReader.Next(ctx)
	r.s.log.mu.Lock()
	defer r.s.log.mu.Unlock()
	for _, row := range rows {
		r.s.log.entries = append(r.s.log.entries, alignEntry{r.s.name, row.Values[0].(sql.TimestampData).Millis})
	}
	if err != nil {
		r.s.log.entries = append(r.s.log.entries, alignEntry{r.s.name, -1})
	}
	return rows, err
}

// stepRows is n rows with event times 0, step, 2*step, ... milliseconds.
func stepRows(n int, step int64) []sql.Row {
	ms := make([]int64, n)
	for i := range ms {
		ms[i] = int64(i) * step
	}
	return tsRows(ms...)
}

// TestWatermarkAlignment: two sources in one alignment group (max drift
// 3 s), one advancing event time twice as fast per row as the other, each
// with a watermark generated before each row (the values source's) and a
// union downstream. A reader reads its next row only while its watermark
// (its last row's time) is within the drift of the group's minimum; the
// slower one never waits, and a finished source no longer holds the group
// back, so the fast one drains the rest after it. With checkpoints every
// millisecond as well: a paused reader still injects its barriers, so a
// union aligning them never waits on it.
func TestWatermarkAlignment(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testWatermarkAlignment(t, runtime.Config{Streaming: true}) })
	t.Run("checkpoints", func(t *testing.T) {
		testWatermarkAlignment(t, runtime.Config{Streaming: true, CheckpointInterval: time.Millisecond, CheckpointDir: t.TempDir()})
	})
}

func testWatermarkAlignment(t *testing.T, cfg runtime.Config) {
	const n = 200
	log := &alignLog{}
	g := runtime.NewGraph("alignment")
	sink := &memSink{}
	k := g.AddSink("sink", "Sink", sink, 1)
	for _, s := range []struct {
		name string
		step int64
	}{{"slow", 1000}, {"fast", 2000}} {
		src := g.AddSource(s.name, "Source: "+s.name, &loggedSource{name: s.name, rows: stepRows(n, s.step), log: log}, 1)
		wm := g.AddOperator(s.name+"-wm", "WatermarkGenerator", operators.WatermarkAssigner(operators.WatermarkSpec{
			Rowtime: -1, Pushed: true, PerRow: true,
			Watermark: func(r sql.Row) (any, error) { return r.Values[0], nil },
		}), 1)
		g.Connect(src, wm, runtime.Partitioning{Kind: runtime.Forward})
		g.Connect(wm, k, runtime.Partitioning{Kind: runtime.Global})
		if err := g.AlignWatermarks(src, wm, runtime.AlignmentSpec{Group: "g", MaxDrift: 3 * time.Second, UpdateInterval: time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	job, err := runtime.Start(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("checkpoints completed: %d", job.Metrics().Checkpoints.Completed)
	if len(sink.rows) != 2*n {
		t.Fatalf("sink got %d rows, want %d", len(sink.rows), 2*n)
	}
	// Before each read, the reader's last row is within 3 s of the
	// other's last read row (the watermark the other's generator reported
	// can only be older) — once the other counts in the group's minimum:
	// it has read its second row, so its generator took its first and
	// reported a watermark (before, Flink does not hold a source back
	// either) — and until the other has ended.
	last := map[string]int64{}
	reads := map[string]int{}
	ended := map[string]bool{}
	other := map[string]string{"slow": "fast", "fast": "slow"}
	var order []string
	for _, e := range log.entries {
		order = append(order, fmt.Sprintf("%s:%d", e.src, e.ts))
		if e.ts < 0 {
			ended[e.src] = true
			continue
		}
		o := other[e.src]
		if prev, ok := last[e.src]; ok && !ended[o] && reads[o] >= 2 && prev > last[o]+3000 {
			t.Fatalf("%s read its row at %d ms with its watermark at %d ms, the other's last row at %d ms, past the 3 s drift; reads: %v",
				e.src, e.ts, prev, last[o], order)
		}
		last[e.src] = e.ts
		reads[e.src]++
	}
}
