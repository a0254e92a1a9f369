package table

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/sql"
)

// failNthAny fails the n-th FileIO operation of any kind.
func failNthAny(n int) fs.Injector {
	count := 0
	return fs.InjectorFunc(func(op fs.Op, p string) error {
		count++
		if count == n {
			return fmt.Errorf("%s %s (#%d): %w", op, p, n, fs.ErrInjected)
		}
		return nil
	})
}

// checkIntegrity verifies that every snapshot's manifest lists, manifests
// and live data and changelog files exist with the recorded sizes.
func checkIntegrity(t *testing.T, tbl *Table) {
	t.Helper()
	ids, err := tbl.Snapshots.ListIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		s, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatalf("snapshot %d: %v", id, err)
		}
		live, err := tbl.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
		if err != nil {
			t.Fatalf("snapshot %d: %v", id, err)
		}
		if s.ChangelogManifestList != nil {
			cl, err := tbl.Manifests.ReadEntries(*s.ChangelogManifestList)
			if err != nil {
				t.Fatalf("snapshot %d changelog: %v", id, err)
			}
			live = append(live, cl...)
		}
		var total int64
		for _, e := range live {
			f, err := tbl.FIO.Open(tbl.entryPath(e))
			if err != nil {
				t.Fatalf("snapshot %d: %v", id, err)
			}
			if f.Size() != e.File.FileSize {
				t.Fatalf("snapshot %d: %s has %d bytes, manifest says %d", id, e.File.FileName, f.Size(), e.File.FileSize)
			}
			f.Close()
			if e.Kind == manifest.Add {
				total += e.File.RowCount
			}
		}
	}
}

// TestCommitCrashEveryStep fails each FileIO operation of a commit (APPEND
// and COMPACT snapshot, manifests, hints, expiration) in turn. After each
// failure the table must read as before or after the commit, every
// snapshot must be intact, and retrying the commit must end in the after
// state with the identifier committed exactly once.
//
// In dynamic bucket mode (no 'bucket', a new bucket every 4 keys) the
// commit also carries HASH index files: the index manifest must land with
// the data or not at all, and always cover every key.
func TestCommitCrashEveryStep(t *testing.T) {
	for _, mode := range []string{"fixed", "dynamic", "deletion-vectors"} {
		t.Run(mode, func(t *testing.T) { runCommitCrash(t, mode == "dynamic", mode == "deletion-vectors") })
	}
}

// runCommitCrash with dvs commits a DELETION_VECTORS index file in the
// COMPACT snapshot; every outcome must read, as Paimon's deletion-vector
// readers do, each key once (checkDeletionVectors).
func runCommitCrash(t *testing.T, dynamic, dvs bool) {
	base := t.TempDir()
	// A size amplification of 1% compacts any bucket with two sorted runs,
	// whatever the files' sizes.
	opts := map[string]string{"bucket": "2", "num-sorted-run.compaction-trigger": "2", "changelog-producer": "input",
		"compaction.max-size-amplification-percent": "1", "snapshot.num-retained.min": "2", "snapshot.time-retained": "1 ms"}
	if dynamic {
		delete(opts, "bucket")
		opts["dynamic-bucket.target-row-num"] = "4"
	}
	if dvs {
		// Level 0 is compacted up by every commit (lookup compaction);
		// without the size amplification trigger the older versions stay
		// in a higher level and are marked in deletion vectors.
		opts["deletion-vectors.enabled"] = "true"
		delete(opts, "compaction.max-size-amplification-percent")
	}
	tbl, err := Create(fs.NewLocal(), base, pkSchema(), []string{"dt"}, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		writeCommit(t, tbl, "job", i, row(sql.Insert, i, "d", int32(i), "x"), row(sql.Insert, i+10, "d", int32(i), "y"))
	}
	// The commit under test: new rows, an update, a delete, and the
	// compaction they trigger (APPEND + COMPACT snapshots).
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []sql.Row{row(sql.Insert, int64(100), "d", int32(1), "new"), row(sql.UpdateAfter, int64(1), "d", int32(99), "upd"),
		row(sql.Delete, int64(2), "d", int32(2), "x")} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	hasCompact, indexFiles, dvFiles := false, 0, 0
	for _, m := range msgs {
		hasCompact = hasCompact || len(m.CompactAfter) > 0
		indexFiles += len(m.NewIndexFiles)
		dvFiles += len(m.CompactIndexFiles)
	}
	if dynamic != (indexFiles > 0) || dvs != (dvFiles > 0) {
		t.Fatalf("the commit under test has %d index files and %d deletion vector files", indexFiles, dvFiles)
	}
	if !hasCompact {
		t.Fatal("the commit under test has no compaction")
	}
	before := mustRead(t, tbl)

	clean := t.TempDir()
	if err := os.CopyFS(clean, os.DirFS(base)); err != nil {
		t.Fatal(err)
	}
	counting := fs.NewInjecting(fs.NewLocal(), nil)
	ct, err := Open(counting, clean, nil)
	if err != nil {
		t.Fatal(err)
	}
	counting.ResetCounts()
	if err := ct.NewCommit("job").Commit(4, msgs, nil); err != nil {
		t.Fatal(err)
	}
	after := mustRead(t, ct)
	if after == before {
		t.Fatal("commit changed nothing")
	}
	steps := 0
	for op := fs.OpOpen; op < fs.AnyOp; op++ {
		steps += counting.Count(op)
	}
	t.Logf("a clean commit takes %d FileIO operations", steps)
	outcomes := map[string]int{}
	for n := 1; n <= steps; n++ {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		inj := fs.NewInjecting(fs.NewLocal(), nil)
		ft, err := Open(inj, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		inj.SetInjector(failNthAny(n))
		cerr := ft.NewCommit("job").Commit(4, msgs, nil)
		if cerr != nil && !errors.Is(cerr, fs.ErrInjected) {
			t.Fatalf("step %d: unexpected error %v", n, cerr)
		}
		lt, err := Open(fs.NewLocal(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkIntegrity(t, lt)
		if dynamic {
			checkHashIndex(t, lt)
		}
		if dvs {
			checkDeletionVectors(t, lt)
		}
		got := mustRead(t, lt)
		switch got {
		case before:
			outcomes["before"]++
		case after:
			outcomes["after"]++
		default:
			t.Fatalf("step %d (%v): table reads neither before nor after:\n%s", n, cerr, got)
		}
		// Retry (as a restored job replays the checkpoint's committables).
		if err := lt.NewCommit("job").Commit(4, msgs, nil); err != nil {
			t.Fatalf("step %d: retry: %v", n, err)
		}
		checkIntegrity(t, lt)
		if dynamic {
			checkHashIndex(t, lt)
		}
		if dvs {
			checkDeletionVectors(t, lt)
		}
		if got := mustRead(t, lt); got != after {
			t.Fatalf("step %d: after retry:\n%s\nwant\n%s", n, got, after)
		}
		ids, _ := lt.Snapshots.ListIDs()
		kinds := map[string]int{}
		for _, id := range ids {
			s, _ := lt.Snapshots.Read(id)
			if s.CommitIdentifier == 4 {
				kinds[string(s.CommitKind)]++
			}
		}
		if kinds["APPEND"] != 1 || kinds["COMPACT"] != 1 {
			t.Fatalf("step %d: identifier 4 committed as %v", n, kinds)
		}
		s, _ := lt.Snapshots.Latest()
		if want := int64(11); s.TotalRecordCount == nil || *s.TotalRecordCount > want {
			t.Fatalf("step %d: totalRecordCount %v", n, *s.TotalRecordCount)
		}
	}
	t.Logf("outcomes after an injected failure: %v", outcomes)
}
