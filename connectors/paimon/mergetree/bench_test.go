package mergetree

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

// Benchmarks use Paimon's TableWriterBenchmark row shape: k INT plus 20
// STRING columns of 10 characters.

func benchSpec(b *testing.B, opts map[string]string) *Spec {
	names := []string{"k"}
	types := []sql.DataType{sql.Int().NotNull()}
	for i := 0; i < 20; i++ {
		names = append(names, fmt.Sprintf("f%d", i))
		types = append(types, sql.String())
	}
	spec, err := newSpec(names, types, []string{"k"}, opts)
	if err != nil {
		b.Fatal(err)
	}
	return spec
}

func benchRows(n, keys int, seed int64) [][]any {
	r := rand.New(rand.NewSource(seed))
	strs := make([]string, 1024)
	for i := range strs {
		strs[i] = fmt.Sprintf("%010d", r.Int63n(1e10))
	}
	rows := make([][]any, n)
	for i := range rows {
		v := make([]any, 21)
		v[0] = int32(r.Intn(keys))
		for j := 1; j < 21; j++ {
			v[j] = strs[r.Intn(len(strs))]
		}
		rows[i] = v
	}
	return rows
}

// BenchmarkWriteBuffer measures insert + sort + merge-on-flush of the write
// buffer alone: one op is one row.
func BenchmarkWriteBuffer(b *testing.B) {
	spec := benchSpec(b, nil)
	rows := benchRows(100_000, 50_000, 1)
	benchWriteBuffer(b, spec, rows)
}

// BenchmarkWriteBufferStringKey is BenchmarkWriteBuffer keyed on a
// STRING column: the sort takes the comparators' way (the keys decoded
// from the buffered records), not the integer fast path.
func BenchmarkWriteBufferStringKey(b *testing.B) {
	names := []string{"k"}
	types := []sql.DataType{sql.Int().NotNull()}
	for i := 0; i < 20; i++ {
		names = append(names, fmt.Sprintf("f%d", i))
		types = append(types, sql.String().NotNull())
	}
	spec, err := newSpec(names, types, []string{"f0"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows(100_000, 50_000, 1)
	for i, v := range rows {
		v[1] = fmt.Sprintf("key%07d", (i*7919)%50_000)
	}
	benchWriteBuffer(b, spec, rows)
}

// benchWriteBuffer puts rows into a write buffer round-robin, flushing
// (sort + merge) each time it holds len(rows): one op is one row.
func benchWriteBuffer(b *testing.B, spec *Spec, rows [][]any) {
	buf := NewWriteBuffer(spec, 1<<40, nil, nil)
	var merged int
	sink := func(*KV) error { merged++; return nil }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := rows[i%len(rows)]
		if _, err := buf.Put(&KV{Key: spec.KeyOf(v), Seq: int64(i), Kind: sql.Insert, Value: v}); err != nil {
			b.Fatal(err)
		}
		if buf.Len() == len(rows) {
			if err := buf.Flush(sink, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := buf.Flush(sink, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWriter measures a bucket writer (buffer, level-0 flushes,
// compaction, in-memory files) per changelog producer; comparing none and
// lookup gives the cost of lookup.
func BenchmarkWriter(b *testing.B) {
	for _, producer := range []string{coreoptions.ProducerNone, coreoptions.ProducerLookup} {
		b.Run(producer, func(b *testing.B) {
			spec := benchSpec(b, map[string]string{"changelog-producer": producer,
				"write-buffer-size": "16 mb", "target-file-size": "8 mb"})
			rows := benchRows(100_000, 1_000_000, 2)
			store := NewMemStore(spec.Key, spec.TargetFileSize)
			w, err := NewWriter(spec, store, nil, WriterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Write(sql.Insert, rows[i%len(rows)]); err != nil {
					b.Fatal(err)
				}
				if (i+1)%50_000 == 0 {
					if _, err := w.PrepareCommit(true); err != nil {
						b.Fatal(err)
					}
				}
			}
			if _, err := w.PrepareCommit(true); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkMergeRead measures merge-on-read over 5 overlapping sorted runs:
// one op is one input record.
func BenchmarkMergeRead(b *testing.B) {
	spec := benchSpec(b, nil)
	const runs, perRun = 5, 100_000
	var sorted [][]*KV
	seq := int64(0)
	for r := 0; r < runs; r++ {
		rows := benchRows(perRun, 1, int64(r))
		recs := make([]*KV, perRun)
		for i, v := range rows {
			v[0] = int32(i*2 + r%2) // runs overlap on half of the keys
			recs[i] = &KV{Key: spec.KeyOf(v), Seq: seq, Kind: sql.Insert, Value: v, Level: r}
			seq++
		}
		sorted = append(sorted, recs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	read := 0
	for read < b.N {
		its := make([]Iterator, runs)
		for r := range its {
			its[r] = NewSliceIter(sorted[r])
		}
		it := NewMergeIter(NewMergingIter(its, spec.Key, spec.Order), spec.Key, spec.NewMergeFunction(), true)
		for rec := it.Next(); rec != nil; rec = it.Next() {
		}
		if err := it.Close(); err != nil {
			b.Fatal(err)
		}
		read += runs * perRun
	}
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkLookup measures point lookups of random keys in one 100k-record
// level-1 file, for the in-memory index and the disk index (with a block
// cache large enough to hold the file, and with 1 MiB).
func BenchmarkLookup(b *testing.B) {
	spec := benchSpec(b, nil)
	store := NewMemStore(spec.Key, 0)
	rows := benchRows(100_000, 1, 3)
	w, _ := store.NewWriter(1, CompactFile)
	for i, v := range rows {
		v[0] = int32(i * 2)
		w.Write(&KV{Key: spec.KeyOf(v), Seq: int64(i), Kind: sql.Insert, Value: v})
	}
	files, err := w.Finish()
	if err != nil {
		b.Fatal(err)
	}
	levels, _ := NewLevels(spec.Key, files, 6)
	for _, c := range []struct {
		name string
		mem  int64
	}{{"memory", 0}, {"disk-cached", 1 << 30}, {"disk-1MiB", 1 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			var lk LookupLevels = NewMemLookup(levels, store, spec.Key)
			if c.mem > 0 {
				d, err := NewDiskLookup(b.TempDir(), levels, store, spec.Key)
				if err != nil {
					b.Fatal(err)
				}
				d.MaxMemoryBytes = c.mem
				defer d.Close()
				lk = d
			}
			r := rand.New(rand.NewSource(4))
			lk.Lookup([]any{int32(0)}, 1) // build the index outside the timing
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := lk.Lookup([]any{int32(r.Intn(200_000))}, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
		})
	}
}

// discardPacked is a PackedWriter that keeps nothing: the benchmarks of the
// flush measure the buffer's side alone.
type discardPacked struct{ n int }

func (w *discardPacked) Write(*KV) error               { w.n++; return nil }
func (w *discardPacked) WriteBinary(*KV, []byte) error { w.n++; return nil }
func (w *discardPacked) WritePacked(*KV, []byte) error { w.n++; return nil }
func (w *discardPacked) Finish() ([]*FileMeta, error)  { return nil, nil }
func (w *discardPacked) Abort()                        {}

// BenchmarkWriteBufferSpill measures a write buffer that spills sorted
// runs to disk (write-buffer-spillable, spill-compression zstd level 1,
// Paimon's defaults for a batch write) and flushes them merged into a
// file writer (FlushTo, the writer discarding what it gets): a 4 MiB
// buffer flushed every 200,000 rows, so each flush merges about eleven
// spilled runs with the pages, the way a 4M-row write with a 256 MB
// buffer merges three. Keys are random over 10M values, so nearly every
// key has one version. One op is one row.
func BenchmarkWriteBufferSpill(b *testing.B) {
	spec := benchSpec(b, map[string]string{"spill-compression": "zstd"})
	rows := benchRows(200_000, 10_000_000, 3)
	d := NewDiskSpiller(spec, b.TempDir())
	buf := NewWriteBuffer(spec, 4<<20, d, nil)
	defer buf.Close()
	w := &discardPacked{}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := procstat.CPU()
	for i := 0; i < b.N; i++ {
		v := rows[i%len(rows)]
		if _, err := buf.Put(&KV{Key: spec.KeyOf(v), Seq: int64(i), Kind: sql.Insert, Value: v}); err != nil {
			b.Fatal(err)
		}
		if (i+1)%len(rows) == 0 {
			if err := buf.FlushTo(w, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := buf.FlushTo(w, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
