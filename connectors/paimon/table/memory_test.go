package table

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
)

// liveHeapPeak records the live heap every garbage collection finds (a
// cleanup of an unreachable object runs once a collection found it so,
// and arms the next, as cmd/sqlrun's adaptive GOGC does).
type liveHeapPeak struct {
	mu   sync.Mutex
	peak uint64
	stop bool
}

type heapTick struct{ _ [64]byte }

func (p *liveHeapPeak) arm() {
	runtime.AddCleanup(new(heapTick), func(p *liveHeapPeak) {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		p.mu.Lock()
		defer p.mu.Unlock()
		if s[0].Value.Kind() == metrics.KindUint64 {
			p.peak = max(p.peak, s[0].Value.Uint64())
		}
		if !p.stop {
			p.arm()
		}
	}, p)
}

func (p *liveHeapPeak) result() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop = true
	return p.peak
}

// TestCompactionHeapBounded: a full compaction of many sorted runs holds a
// bounded live heap. Each run's reader holds a page per column (20,000
// rows); with 16 level-0 runs of 20,000 rows of TableWriterBenchmark's
// shape (k INT + 20 STRING(10)), the readers decoded a page of strings
// into memory of its own with a 16-byte header per value (600 KB per
// column, 12 MB per run), all 16 at once, and the output file's string
// bounds kept pages of the inputs alive until it was closed: the
// compaction's live heap grew by 257 MiB. Now at most
// sort-spill-threshold (num-sorted-run.stop-trigger + 1 = 9, Paimon's
// MergeSorter) runs are read from their files at once, the others from
// compressed spill files a 64 KB block at a time, and a reader holds a
// column's page in one reused buffer (KVIterator.Lean).
func TestCompactionHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 320,000 rows")
	}
	dir := t.TempDir()
	tbl, err := Create(fs.NewLocal(), dir, benchSchema(), nil, map[string]string{"bucket": "1", "write-only": "true"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := tbl.NewCommit("test")
	gen := newRowGen(1 << 30)
	const runs, rowsPerRun = 16, 20_000
	for i := 0; i < runs; i++ {
		for j := 0; j < rowsPerRun; j++ {
			if err := w.Write(gen.next()); err != nil {
				t.Fatal(err)
			}
		}
		msgs, err := w.PrepareCommit(false)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(int64(i), msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Collect often, so that the peak is seen.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	p := &liveHeapPeak{}
	p.arm()
	if err := w.Compact(true, nil); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	peak := p.result()
	if err := c.Commit(runs, msgs, nil); err != nil {
		t.Fatal(err)
	}
	var before0 = before.HeapAlloc
	growth := int64(peak) - int64(before0)
	t.Logf("live heap %d MiB before the compaction, peak %d MiB during it (+%d MiB)", before0>>20, peak>>20, growth>>20)
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, sp := range splits {
		files += len(sp.Files)
	}
	if files == 0 || files >= runs {
		t.Fatalf("%d data files after the full compaction of %d runs", files, runs)
	}
	if growth > 140<<20 { // measured: 106 MiB (257 MiB before)
		t.Errorf("a full compaction of %d runs of %d rows grew the live heap by %d MiB", runs, rowsPerRun, growth>>20)
	}
}

// TestWritersShareOnePool: the primary-key writers of one TableWrite (every
// bucket it writes) take their write buffers' pages from one pool, as
// Paimon's writers of a task share MemoryPoolFactory's pool of
// write-buffer-size: after a commit the pages the four buckets filled are
// kept up to write-buffer-size for the next fill, not once per bucket, and
// Close releases them.
func TestWritersShareOnePool(t *testing.T) {
	tbl, err := Create(fs.NewLocal(), t.TempDir(), benchSchema(), nil,
		map[string]string{"bucket": "4", "write-buffer-size": "4 mb"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range benchRows(20000, 1<<30) { // ~2.5 MB in each bucket
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.order) != 4 {
		t.Fatalf("%d bucket writers", len(w.order))
	}
	pool := w.pool
	if m := pool.MappedBytes(); m < 8<<20 {
		t.Fatalf("four buckets of ~2.5 MB buffered: the task's pool maps %d bytes", m)
	}
	if _, err := w.PrepareCommit(false); err != nil {
		t.Fatal(err)
	}
	if m := pool.MappedBytes(); m == 0 || m > 4<<20 {
		t.Errorf("after the commit the pool keeps %d bytes, want some and at most write-buffer-size (4 MiB)", m)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if m := pool.MappedBytes(); m != 0 || w.pool != nil {
		t.Errorf("after Close the pool maps %d bytes (pool released: %v)", m, w.pool == nil)
	}
}
