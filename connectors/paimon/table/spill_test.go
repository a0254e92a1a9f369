package table

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSpilledWriteSameDataFile is metamorphic: the same changelog written
// by one batch write through a 256 KB spillable write buffer (sorted runs
// spilled to disk, zstd, then merged by the commit's flush: Paimon's
// write-buffer-spillable, BinaryExternalSortBuffer) and through a buffer
// that holds it all makes the same data file, byte for byte: one file,
// whose rows are the merge engine's result per key whichever way the
// versions of a key were split between the runs and the pages. The rows
// are the TableWriterBenchmark shape (INT key, 20 STRINGs) with NULLs,
// updates and deletes, a third of the keys written more than once.
func TestSpilledWriteSameDataFile(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 24))
	var rows []sql.Row
	for i := range 12000 {
		v := make([]any, 21)
		v[0] = int32(r.IntN(8000))
		for j := 1; j < 21; j++ {
			if r.IntN(15) > 0 {
				v[j] = fmt.Sprintf("%010x", r.Uint64()&(1<<40-1))
			}
		}
		kind := sql.Insert
		switch {
		case i%17 == 0:
			kind = sql.Delete
		case i%5 == 0:
			kind = sql.UpdateAfter
		}
		rows = append(rows, row(kind, v...))
	}
	write := func(opts map[string]string) []byte {
		dir := t.TempDir()
		opts["bucket"] = "1"
		opts["num-sorted-run.stop-trigger"] = "1000"
		opts["num-sorted-run.compaction-trigger"] = "1000"
		tbl, err := Create(nil, dir, benchSchema(), nil, opts, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		writeCommit(t, tbl, "u", 1, rows...)
		var files []string
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), "data-") {
				files = append(files, p)
			}
			return err
		})
		if err != nil || len(files) != 1 {
			t.Fatalf("%v: data files %v (%v), want one", opts, files, err)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	spilled := write(map[string]string{"write-buffer-size": "256 kb", "write-buffer-spillable": "true"})
	inMemory := write(map[string]string{"write-buffer-size": "64 mb", "write-buffer-spillable": "true"})
	if !bytes.Equal(spilled, inMemory) {
		t.Fatalf("the spilled write's data file (%d bytes) differs from the in-memory write's (%d bytes)", len(spilled), len(inMemory))
	}
	// Without spilling the small buffer flushes a level-0 file each time
	// it fills, and with these triggers nothing compacts them: the check
	// of one file above shows the spilled write did spill.
	dir := t.TempDir()
	tbl, err := Create(nil, dir, benchSchema(), nil, map[string]string{"bucket": "1", "write-buffer-size": "256 kb",
		"write-buffer-spillable": "false", "num-sorted-run.stop-trigger": "1000", "num-sorted-run.compaction-trigger": "1000"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	msgs := writeMessages(t, tbl, WriteOptions{TempDir: t.TempDir()}, rows...)
	n := 0
	for _, m := range msgs {
		n += len(m.NewFiles)
	}
	if n < 5 {
		t.Fatalf("an unspillable 256 KB buffer wrote %d files, want several", n)
	}
}
