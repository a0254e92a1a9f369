package stream

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
)

// TestORCFixtureStreamChangelog reads a primary-key table with ORC data
// files, ORC manifests and deletion vectors that Paimon Java wrote
// (testdata/paimon/java/orc_pk_dv) as a streaming read from snapshot 2
// ('scan.mode' = 'from-snapshot'): the changelog of the APPEND snapshots
// 3, 5 and 6, the rows paimon-cpp's scan_and_read_inte_test.cpp
// TestWithPKWithDvStreamFromSnapshot1 asserts for them.
func TestORCFixtureStreamChangelog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wh")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "testdata", "paimon", "java", "orc_pk_dv"))); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "pk_table_scan_and_read_dv.db", "pk_table_scan_and_read_dv")
	src, err := NewSourceFS(fs.NewLocal(), root, map[string]string{"scan.mode": "from-snapshot", "scan.snapshot-id": "2"}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A frozen clock: Next's 30 ms budget never runs out, so (nil, nil)
	// means the reader waits for a snapshot, not that the machine is slow.
	src.Now = func() time.Time { return time.Unix(0, 0) }
	r, err := src.NewReader(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := drainReader(t, r)
	sort.Strings(got)
	want := []string{
		"+I[Marco, 10, 0, 21.1]", "+I[Marco2, 10, 0, 31.1]", "+I[Skye, 10, 0, 21.0]", "+I[Skye2, 10, 0, 31.0]",
		"+U[Alex, 10, 0, 21.2]", "+U[Alice, 10, 1, 19.1]", "-D[Alex, 10, 0, 31.2]", "-D[Tony, 10, 0, 14.1]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
