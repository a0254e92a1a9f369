package table

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// TestCleanEmptyDirectories: with 'snapshot.clean-empty-directories' =
// true, the bucket and partition directories a snapshot expiration
// (ExpireSnapshotsImpl) or a tag deletion (TagManager.doClean) emptied
// are deleted, deepest first, and a partition directory that still holds
// another partition stays (FileDeletionBase.cleanEmptyDirectories); with
// Paimon's default (false) they stay.
func TestCleanEmptyDirectories(t *testing.T) {
	sch := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "a", Type: sql.String()},
		{Name: "b", Type: sql.Int()}, {Name: "v", Type: sql.String()}}, PrimaryKey: []string{"id", "a", "b"}}
	for _, tagged := range []bool{false, true} {
		for _, clean := range []string{"false", "true"} {
			opts := map[string]string{"bucket": "1", "snapshot.clean-empty-directories": clean}
			tbl, err := Create(nil, t.TempDir(), sch, []string{"a", "b"}, opts, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			writeCommit(t, tbl, "u", 1,
				row(sql.Insert, int64(1), "x", int32(1), "p"),
				row(sql.Insert, int64(2), "x", int32(2), "q"),
				row(sql.Insert, int64(3), "y", int32(1), "r"))
			if tagged {
				if err := tbl.CreateTag(mustSnapshot(t, tbl, 1), "t1"); err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range []map[string]string{{"a": "x", "b": "1"}, {"a": "y", "b": "1"}} {
				if err := tbl.NewCommit("u").Overwrite(int64(2+i), nil, p); err != nil {
					t.Fatal(err)
				}
			}
			tbl, err = Open(nil, tbl.Root, map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := tbl.ExpireSnapshots(time.Now()); err != nil || n != 2 {
				t.Fatalf("expired %d snapshots (%v), want 2", n, err)
			}
			if tagged {
				if err := tbl.DeleteTag("t1"); err != nil {
					t.Fatal(err)
				}
			}
			name := map[bool]string{false: "expiration", true: "tag deletion"}[tagged] + ", clean " + clean
			exists := func(rel string) bool {
				_, err := os.Stat(filepath.Join(tbl.Root, rel))
				return err == nil
			}
			for _, d := range []string{"a=x/b=1/bucket-0", "a=x/b=1", "a=y/b=1/bucket-0", "a=y/b=1", "a=y"} {
				if got, want := exists(d), clean == "false"; got != want {
					t.Errorf("%s: directory %s exists %v, want %v", name, d, got, want)
				}
			}
			for _, d := range []string{"a=x", "a=x/b=2/bucket-0"} {
				if !exists(d) {
					t.Errorf("%s: directory %s, which holds a live file, is gone", name, d)
				}
			}
			if o := filesBeyondRefs(t, tbl); len(o) != 0 {
				t.Errorf("%s: orphans %v", name, o)
			}
			if got := mustRead(t, tbl); got != "+I[2, x, 2, q]" {
				t.Errorf("%s: read:\n%s", name, got)
			}
		}
	}
}
