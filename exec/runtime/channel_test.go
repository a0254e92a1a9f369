package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// subtaskSink records which writer subtask got each row.
type subtaskSink struct {
	mu  sync.Mutex
	got map[int][]sql.Row
}

func (s *subtaskSink) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (s *subtaskSink) Parallelism() int                                             { return 0 }
func (s *subtaskSink) NewWriter(subtask, _ int) (connectors.SinkWriter, error) {
	return &subtaskWriter{s: s, subtask: subtask}, nil
}

type subtaskWriter struct {
	s       *subtaskSink
	subtask int
}

func (w *subtaskWriter) Open(context.Context, []byte) error { return nil }
func (w *subtaskWriter) Write(_ context.Context, rows []sql.Row) error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.got[w.subtask] = append(w.s.got[w.subtask], rows...)
	return nil
}
func (w *subtaskWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) {
	return nil, nil, nil
}
func (w *subtaskWriter) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (w *subtaskWriter) Close(context.Context) error                           { return nil }

func channelGraph(rows []sql.Row, n int, sink connectors.TableSink) *runtime.Graph {
	g := runtime.NewGraph("channel")
	s := g.AddSource("src", "Source: rows", &runtime.ValuesSource{Rows: rows}, 1)
	k := g.AddSink("sink", "Sink: out", sink, n)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Channel, Keys: []int{1}})
	return g
}

// TestChannelEdge: a Channel edge sends each row to the subtask its
// channel column names — how exec/compile routes rows to the writer of
// their Paimon bucket (Paimon's FlinkStreamPartitioner with its
// ChannelComputer).
//
// It replaces a brute-force search: the router used to append, for
// channel c, an INT key k_c chosen by trying keys until the Hash
// exchange (FNV-1a of the key's encoding, modulo n) sent k_c to subtask
// c. The only property that search gave is "channel c reaches subtask c"
// (runtime.OwnsKey(k_c, c, n)), which is what a Channel edge does by
// definition, with no search and no dependence on the hash. The test
// checks both sides for every channel of up to 16 writers: the old key
// of channel c is owned by subtask c, and the Channel edge delivers
// channel c to subtask c — the same subtask.
func TestChannelEdge(t *testing.T) {
	for n := 1; n <= 16; n++ {
		var rows []sql.Row
		for c := 0; c < n; c++ {
			for i := 0; i < 3; i++ {
				rows = append(rows, sql.NewRow(int64(c*10+i), int32(c)))
			}
		}
		sink := &subtaskSink{got: map[int][]sql.Row{}}
		job, err := runtime.Start(context.Background(), channelGraph(rows, n, sink), runtime.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Wait(context.Background()); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for c := 0; c < n; c++ {
			if got := sink.got[c]; len(got) != 3 {
				t.Fatalf("n=%d: subtask %d got %d rows, want 3: %v", n, c, len(got), got)
			}
			for _, r := range sink.got[c] {
				if r.Values[1] != int32(c) {
					t.Fatalf("n=%d: subtask %d got channel %v", n, c, r.Values[1])
				}
			}
			if k := oldChannelKey(t, c, n); !runtime.OwnsKey(k, c, n) {
				t.Fatalf("n=%d: the searched key of channel %d is not owned by subtask %d", n, c, c)
			}
		}
	}
}

// oldChannelKey is the search the Channel edge replaced: the first INT
// whose Hash-exchange key the runtime sends to subtask c of n.
func oldChannelKey(t *testing.T, c, n int) string {
	var enc state.Encoder
	for k := int32(0); k < 1<<20; k++ {
		enc.Buf = enc.Buf[:0]
		if err := state.AppendKey(&enc, sql.Row{Values: []any{k}}, []int{0}); err != nil {
			t.Fatal(err)
		}
		if runtime.OwnsKey(string(enc.Buf), c, n) {
			return string(enc.Buf)
		}
	}
	t.Fatalf("no key for channel %d of %d", c, n)
	return ""
}

// TestChannelEdgeOutOfRange: a channel outside the receivers fails the
// job instead of dropping or misrouting the row.
func TestChannelEdgeOutOfRange(t *testing.T) {
	sink := &subtaskSink{got: map[int][]sql.Row{}}
	job, err := runtime.Start(context.Background(), channelGraph([]sql.Row{sql.NewRow(int64(1), int32(2))}, 2, sink), runtime.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "channel 2 outside the 2 receivers") {
		t.Fatalf("got %v", err)
	}
}
