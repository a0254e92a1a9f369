package table

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

// TestCommitRefusesMissingFile (issue 25 finding 4): commit messages whose
// data file was removed before the commit (a --resume of a checkpoint
// after an orphan-file cleanup) fail the commit with ErrMissingFile and
// write no snapshot; the table stays readable.
func TestCommitRefusesMissingFile(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(fs.NewLocal(), dir, pkSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(row(sql.Insert, int64(2), "d", int32(2), "b")); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || len(msgs[0].NewFiles) != 1 {
		t.Fatalf("messages %+v", msgs)
	}
	if err := os.Remove(filepath.Join(dir, "bucket-0", msgs[0].NewFiles[0].FileName)); err != nil {
		t.Fatal(err)
	}
	err = tbl.NewCommit("u").Commit(2, msgs, nil)
	if !errors.Is(err, ErrMissingFile) {
		t.Fatalf("commit: %v", err)
	}
	if id, _, _ := tbl.Snapshots.LatestID(); id != 1 {
		t.Fatalf("latest snapshot %d, want 1", id)
	}
	if got := mustRead(t, tbl); got != "+I[1, d, 1, a]" {
		t.Fatalf("table reads %q", got)
	}
}
