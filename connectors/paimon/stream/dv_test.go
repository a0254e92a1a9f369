package stream

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream/streamtest"
)

// dvTable writes a primary-key table as a Paimon writer with deletion
// vectors leaves it: keys 1..5 compacted into one top-level file, whose
// rows at positions 1 and 3 (keys 2 and 4) a deletion vector removes, and
// a newer level-0 file (key 6, key 1 updated) not compacted yet.
func dvTable(t *testing.T, opts map[string]string, use64 bool) *streamtest.Writer {
	o := map[string]string{"deletion-vectors.enabled": "true"}
	for k, v := range opts {
		o[k] = v
	}
	w := streamtest.NewOrders(t, o)
	d := streamtest.Dec
	var recs []streamtest.Rec
	for k := 1; k <= 5; k++ {
		recs = append(recs, streamtest.Ins(int32(k), d("1.00"), "old"))
	}
	w.Commit(snapshot.Append, []streamtest.FileSpec{{Recs: recs}})
	w.CompactAll(recs, nil)
	top := w.LiveNames(5)
	w.Commit(snapshot.Append, []streamtest.FileSpec{{Recs: []streamtest.Rec{
		streamtest.UA(int32(1), d("9.00"), "new"), streamtest.Ins(int32(6), d("6.00"), "new")}}})
	w.WriteDeletionVectors(0, map[string][]int64{top[0]: {1, 3}}, use64)
	w.Commit(snapshot.Compact, nil)
	return w
}

func readSource(t *testing.T, w *streamtest.Writer, opts map[string]string, streaming, audit, ro bool) string {
	t.Helper()
	src, err := NewSourceFS(w.FIO, w.Root, opts, streaming, nil)
	if err != nil {
		t.Fatal(err)
	}
	src.Audit, src.ReadOptimized = audit, ro
	clock := time.Unix(1_800_000_000, 0)
	src.Now = func() time.Time { return clock }
	r, err := src.NewReader(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows := drainReader(t, r)
	sort.Strings(rows)
	return strings.Join(rows, " ")
}

// TestDeletionVectorsApplied: rows a deletion vector marks are not read,
// in both of Paimon's bitmap formats, by batch and streaming reads, the
// $audit_log and $ro system tables; level 0 is not read in a batch scan
// (DataTableBatchScan: deletion-vectors.enabled → withLevelFilter(level >
// 0)), but it is, merged with the levels above, in the full phase of a
// streaming scan (DataTableStreamScan.tryFirstPlan filters level 0 only for
// the lookup producer since Paimon 1.3, apache/paimon#5866,
// DeletionVectorITCase.testStreamingReadFullWithoutCompact).
func TestDeletionVectorsApplied(t *testing.T) {
	const want = "+I[1, 1, old] +I[3, 1, old] +I[5, 1, old]"
	const wantStreaming = "+I[1, 9, new] +I[3, 1, old] +I[5, 1, old] +I[6, 6, new]"
	for _, use64 := range []bool{false, true} {
		name := "BitmapDeletionVector"
		if use64 {
			name = "Bitmap64DeletionVector"
		}
		t.Run(name, func(t *testing.T) {
			w := dvTable(t, nil, use64)
			for _, c := range []struct {
				name                 string
				streaming, audit, ro bool
				want                 string
			}{
				{"batch", false, false, false, want},
				{"streaming", true, false, false, wantStreaming},
				{"audit_log", false, true, false, strings.ReplaceAll(want, "+I[", "+I[+I, ")},
				{"ro", false, false, true, want},
			} {
				if got := readSource(t, w, nil, c.streaming, c.audit, c.ro); got != c.want {
					t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
				}
			}
		})
	}
}

// TestFirstRowBatchSkipsLevel0 follows DataTableBatchScan: a first-row
// table's batch read shows only files above level 0.
func TestFirstRowBatchSkipsLevel0(t *testing.T) {
	w := streamtest.NewOrders(t, map[string]string{"merge-engine": "first-row"})
	d := streamtest.Dec
	w.Commit(snapshot.Append, []streamtest.FileSpec{{Level: 5, Recs: []streamtest.Rec{streamtest.Ins(int32(1), d("1.00"), "a")}}})
	w.Commit(snapshot.Append, []streamtest.FileSpec{{Recs: []streamtest.Rec{streamtest.Ins(int32(2), d("2.00"), "b")}}})
	if got := readSource(t, w, nil, false, false, false); got != "+I[1, 1, a]" {
		t.Errorf("batch: %s", got)
	}
}
