package table

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

// openCounter is a FileIO that counts the files open for writing at once.
type openCounter struct {
	fs.FileIO
	mu        sync.Mutex
	open, max int
}

func (o *openCounter) Create(p string) (io.WriteCloser, error) {
	w, err := o.FileIO.Create(p)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.open++
	o.max = max(o.max, o.open)
	o.mu.Unlock()
	return &countedFile{WriteCloser: w, o: o}, nil
}

type countedFile struct {
	io.WriteCloser
	o    *openCounter
	once sync.Once
}

func (c *countedFile) Close() error {
	c.once.Do(func() { c.o.mu.Lock(); c.o.open--; c.o.mu.Unlock() })
	return c.WriteCloser.Close()
}

// postponeRecords lists, per snapshot and partition, the records of the
// bucket-postpone files each snapshot added, in file order.
func postponeRecords(t *testing.T, tbl *Table) string {
	t.Helper()
	ids, err := tbl.Snapshots.ListIDs()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, id := range ids {
		sn := mustSnapshot(t, tbl, id)
		splits, err := tbl.PlanDelta(sn, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range splits {
			pp, _ := tbl.PartitionPath(sp.Partition)
			fmt.Fprintf(&b, "snapshot %d %s:", id, pp)
			it, err := tbl.ReadKV(sp)
			if err != nil {
				t.Fatal(err)
			}
			for r := it.Next(); r != nil; r = it.Next() {
				b.WriteString(" " + sql.FormatRow(sql.Row{Kind: r.Kind, Values: r.Value}, nil))
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestPostponeWriterSpills: a postpone bucket write that opens more than
// 'write-max-writers-to-spill' (10) writers turns them into buffered ones
// (PostponeBucketFileStoreWrite.forceBufferSpill,
// PostponeBucketWriter.toBufferedWriter): it never has more than 10 files
// open, its buffers take no more than 'write-buffer-size' and spill to
// local runs beyond it, the files written before the switch are read
// back and deleted, and the files hold the records a direct writer writes,
// in the same order. With 'write-buffer-spill.max-disk-size' reached, a
// writer writes its buffer into files before the commit
// (BufferedSinkWriter.flushMemory returning false). The old writer kept a
// file open per partition: 30 here.
func TestPostponeWriterSpills(t *testing.T) {
	const parts = 30
	var batches [2][]sql.Row
	for cp := range batches {
		for i := 0; i < 2400; i++ {
			id := int64(i % 700)
			kind := sql.Insert
			if cp == 1 && i%7 == 3 {
				kind = sql.Delete
			}
			batches[cp] = append(batches[cp], row(kind, id, fmt.Sprintf("p%02d", i%parts), int32(i+cp*10000),
				strings.Repeat(fmt.Sprintf("%d-%d.", cp, i), 12)))
		}
	}
	write := func(opts map[string]string) (*Table, *openCounter, []*postponePool, []string) {
		fio := &openCounter{FileIO: fs.NewLocal()}
		o := map[string]string{"bucket": "-2", "write-buffer-size": "256 kb"}
		for k, v := range opts {
			o[k] = v
		}
		tbl, err := Create(fio, t.TempDir(), pkSchema(), []string{"dt"}, o, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		w, err := tbl.NewWrite(WriteOptions{TempDir: tmp, postponeFiles: true, commitUser: "u"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		var pools []*postponePool
		var left []string
		for cp, rows := range batches {
			for _, r := range rows {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				t.Fatal(err)
			}
			c := tbl.NewCommit("u")
			c.NoExpire = true
			if err := c.Commit(int64(cp+1), msgs, nil); err != nil {
				t.Fatal(err)
			}
			pools = append(pools, w.ppPool)
			runs, _ := filepath.Glob(filepath.Join(tmp, "postpone", "*"))
			left = append(left, runs...)
		}
		return tbl, fio, pools, left
	}
	direct, dfio, _, _ := write(map[string]string{"write-max-writers-to-spill": "100"})
	if dfio.max != parts {
		t.Fatalf("the direct writer had %d files open at once, want one per partition (%d)", dfio.max, parts)
	}
	want := postponeRecords(t, direct)
	for _, maxDisk := range []string{"", "1 kb"} {
		opts := map[string]string{}
		if maxDisk != "" {
			opts["write-buffer-spill.max-disk-size"] = maxDisk
		}
		tbl, fio, pools, left := write(opts)
		name := "max-disk-size " + maxDisk
		if fio.max > 10 {
			t.Errorf("%s: %d files open at once, want at most write-max-writers-to-spill (10)", name, fio.max)
		}
		pool := pools[len(pools)-1]
		if pool == nil || pool.spills == 0 {
			t.Fatalf("%s: the buffers never spilled", name)
		}
		if pool.peak*postponePage > 256<<10 {
			t.Errorf("%s: the buffers took %d pages of 64 KiB, more than write-buffer-size (256 kb)", name, pool.peak)
		}
		if len(left) != 0 {
			t.Errorf("%s: spilled runs left after the commits: %v", name, left)
		}
		if got := postponeRecords(t, tbl); got != want {
			t.Errorf("%s: the postpone files hold\n%s\nwant (direct writer):\n%s", name, got, want)
		}
		if o := filesBeyondRefs(t, tbl); len(o) != 0 {
			t.Errorf("%s: orphans (files written before the switch not deleted?) %v", name, o)
		}
		if maxDisk != "" {
			if nf, nd := len(liveEntries(t, tbl)), len(liveEntries(t, direct)); nf <= nd {
				t.Errorf("%s: %d files, want more than the direct writer's %d (buffers written into files before the commit)", name, nf, nd)
			}
		}
	}
}
