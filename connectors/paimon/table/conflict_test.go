package table

import (
	"errors"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

// TestReplayedCompactionConflictRecovers (issue 25 finding 5): two writers
// compact the same file; the second commit lands its APPEND snapshot and
// fails on the compaction (ErrCommitConflict, as Paimon's
// FileStoreCommitImpl fails with "File deletion conflicts detected"). Its
// re-commit after a restart must make progress: Paimon's filterCommitted
// skips a committable whose identifier is committed, so the compaction is
// given up and the appended rows stay.
func TestReplayedCompactionConflictRecovers(t *testing.T) {
	tbl, err := Create(fs.NewLocal(), t.TempDir(), pkSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "a", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
	compacted := func(k int64) []CommitMessage {
		w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Write(row(sql.Insert, k, "d", int32(k), "x")); err != nil {
			t.Fatal(err)
		}
		if err := w.Compact(true, nil); err != nil {
			t.Fatal(err)
		}
		msgs, err := w.PrepareCommit(true)
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	msgsA, msgsB := compacted(2), compacted(3)
	if err := tbl.NewCommit("a").Commit(2, msgsA, nil); err != nil {
		t.Fatal(err)
	}
	if err := tbl.NewCommit("b").Commit(1, msgsB, nil); !errors.Is(err, ErrCommitConflict) {
		t.Fatalf("second writer's compaction: %v, want a conflict", err)
	}
	// The restart re-commits the checkpoint's committable.
	c := tbl.NewCommit("b")
	if err := c.Commit(1, msgsB, nil); err != nil {
		t.Fatalf("re-commit: %v", err)
	}
	if !c.AbandonedCompaction {
		t.Error("AbandonedCompaction not reported")
	}
	if got := mustRead(t, tbl); got != "+I[1, d, 1, a]\n+I[2, d, 2, x]\n+I[3, d, 3, x]" {
		t.Fatalf("table reads\n%s", got)
	}
	// And the next commit of a restored writer works.
	writeCommit(t, tbl, "b", 2, row(sql.Insert, int64(4), "d", int32(4), "y"))
}
