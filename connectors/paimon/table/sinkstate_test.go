package table

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSinkStateNamesItsTable: the writer state and committable of one
// table's sink are refused by another table's sink (a job restored with its
// INSERTs reordered, or a sync action whose table list changed), instead of
// committing the first table's files into the second; the same table takes
// them. Before, orders' committable was committed into items.
func TestSinkStateNamesItsTable(t *testing.T) {
	ctx := context.Background()
	orders, items := dynTable(t, nil), dynTable(t, nil)
	sink, err := NewSink(orders, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := sink.NewWriter(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []sql.Row{row(sql.Insert, int64(1), "a", int32(1), "x")}); err != nil {
		t.Fatal(err)
	}
	state, comm, err := w.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)

	other, err := NewSink(items, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ow, _ := other.NewWriter(0, 1)
	if err := ow.Open(ctx, state); err == nil || !strings.Contains(err.Error(), "the restored writer state belongs to table") {
		t.Errorf("writer state of orders opened by items' sink: %v", err)
	}
	if err := other.Commit(ctx, 1, [][]byte{comm}); err == nil || !strings.Contains(err.Error(), "the restored committable belongs to table") {
		t.Errorf("orders' committable committed into items: %v", err)
	}
	if s, ok, _ := items.Snapshots.LatestID(); ok {
		t.Errorf("items has snapshot %d", s)
	}

	same, _ := NewSink(orders, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	sw, _ := same.NewWriter(0, 1)
	if err := sw.Open(ctx, state); err != nil {
		t.Fatal(err)
	}
	sw.Close(ctx)
	if err := same.Commit(ctx, 1, [][]byte{comm}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, orders); got != "+I[1, a, 1, x]" {
		t.Errorf("orders: %s", got)
	}
}

// TestWriteOnlyCommitsExpireNothing: commits to a 'write-only' table keep
// every snapshot, as Paimon's AbstractFileStoreTable.newCommit gives them
// no expire runnable; the dedicated compaction (CompactAction copies the
// table with 'write-only' = false) expires them. Before, each write-only
// commit expired snapshots.
func TestWriteOnlyCommitsExpireNothing(t *testing.T) {
	opts := map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"}
	earliest := func(tbl *Table) int64 {
		id, _, err := tbl.Snapshots.EarliestID()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, writeOnly := range []bool{false, true} {
		o := maps.Clone(opts)
		if writeOnly {
			o["write-only"] = "true"
		}
		tbl := dynTable(t, o)
		for i := int64(1); i <= 3; i++ {
			writeCommit(t, tbl, "u", i, row(sql.Insert, i, "a", int32(i), "x"))
		}
		want := int64(3)
		if writeOnly {
			want = 1
		}
		if got := earliest(tbl); got != want {
			t.Errorf("write-only %v: earliest snapshot %d after 3 commits, want %d", writeOnly, got, want)
		}
		if !writeOnly {
			continue
		}
		ids, err := Compact(tbl, CompactOptions{Full: true, TempDir: t.TempDir()})
		if err != nil || len(ids) == 0 {
			t.Fatalf("compact: %v %v", ids, err)
		}
		if got := earliest(tbl); got != ids[len(ids)-1] {
			t.Errorf("after the dedicated compaction: earliest snapshot %d, want %d", got, ids[len(ids)-1])
		}
	}
}
