package table

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/internal/gctune"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

// The benchmarks use Paimon's TableWriterBenchmark shape: k INT primary
// key plus 20 STRING columns of 10 characters, one bucket.

func benchSchema() sql.Schema {
	s := sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int()}}, PrimaryKey: []string{"k"}}
	for i := 0; i < 20; i++ {
		s.Columns = append(s.Columns, sql.Column{Name: fmt.Sprintf("f%d", i), Type: sql.String()})
	}
	return s
}

// rowGen draws rows as Paimon's TableBenchmark.newRandomRow does: a
// random non-negative int key and 20 random 10-character hex strings, so
// no two values repeat and dictionary encoding gains nothing. keys bounds
// the key range (fewer keys than rows means real upserts).
type rowGen struct {
	r    *rand.Rand
	keys int
}

func newRowGen(keys int) *rowGen { return &rowGen{r: rand.New(rand.NewPCG(1, 2)), keys: keys} }

// next makes a row with three allocations (the strings' bytes, their
// headers, the values) where the obvious code makes 42: Java's
// newRandomRow is a few allocations too, and the benchmark is about the
// writer, not Go's string boxing.
func (g *rowGen) next() sql.Row {
	data := make([]byte, 200)
	strs := make([]string, 20)
	v := make([]any, 21)
	v[0] = int32(g.r.IntN(g.keys))
	for j := range strs {
		b := data[j*10 : j*10+10]
		x := g.r.Uint64()
		for k := 0; k < 10; k += 2 { // two hex digits per table lookup
			copy(b[k:k+2], hexPairs[x&255][:])
			x >>= 8
		}
		strs[j] = unsafe.String(&b[0], 10)
		v[j+1] = boxString(&strs[j])
	}
	return sql.Row{Kind: sql.Insert, Values: v}
}

// hexPairs[b] is b in two lowercase hex digits.
var hexPairs = func() (t [256][2]byte) {
	const hex = "0123456789abcdef"
	for i := range t {
		t[i] = [2]byte{hex[i>>4], hex[i&15]}
	}
	return t
}()

// boxString returns *p as an interface without copying the header (a
// conversion allocates one per string). *p must not change afterwards.
func boxString(p *string) any {
	var x any = ""
	(*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1] = unsafe.Pointer(p)
	return x
}

func benchRows(n int, keys int) []sql.Row {
	g := newRowGen(keys)
	rows := make([]sql.Row, n)
	for i := range rows {
		rows[i] = g.next()
	}
	return rows
}

// benchWrite writes b.N rows drawn inside the timed loop, as Paimon's
// TableWriterBenchmark calls newRandomRow per write (so the figure includes
// making the rows, as a source would), committing every 100k rows like a
// streaming job's checkpoints.
func benchWrite(b *testing.B, opts map[string]string) { benchWriteWith(b, opts, WriteOptions{}) }

// benchWriteWith is benchWrite with the TableWrite's options (TempDir is
// set here).
func benchWriteWith(b *testing.B, opts map[string]string, wo WriteOptions) {
	productGC(b)
	gen := newRowGen(math.MaxInt32)
	dir := b.TempDir()
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	tbl, err := Create(fs.NewLocal(), dir, benchSchema(), nil, o, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	wo.TempDir = b.TempDir()
	w, err := tbl.NewWrite(wo)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	c := tbl.NewCommit("bench")
	c.NoExpire = tbl.PostponeBucket() // as Sink.Commit does
	cpu0 := procstat.CPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Write(gen.next()); err != nil {
			b.Fatal(err)
		}
		if (i+1)%100000 == 0 { // a checkpoint every 100k rows
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Commit(int64(i), msgs, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Commit(int64(b.N+1), msgs, nil); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
}

// BenchmarkWritePK: upserts into one bucket (changelog-producer none).
func BenchmarkWritePK(b *testing.B) { benchWrite(b, nil) }

// BenchmarkWritePKPostpone: the same into a postpone bucket table (bucket
// = -2) as a streaming job writes it: Avro files in bucket-postpone,
// neither sorted nor merged (PostponeBucketWriter). The compaction that
// moves them into buckets is a separate job (CALL sys.compact) and not
// counted.
func BenchmarkWritePKPostpone(b *testing.B) {
	benchWriteWith(b, map[string]string{"bucket": "-2"}, WriteOptions{postponeFiles: true, commitUser: "bench"})
}

// BenchmarkWritePostponePartitions: a streaming write of a postpone
// bucket table spread over 200 partitions (a checkpoint every 100k rows).
// direct: 'write-max-writers-to-spill' above 200, a file open per
// partition (the writer before the spilling one); buffered: past the
// default 10 writers they buffer their records in the write's pool of
// 'write-buffer-size' (256 mb, and 16 mb) and spill beyond it
// (PostponeBucketFileStoreWrite.forceBufferSpill). peak-RSS-MiB is the
// process's: run one sub-benchmark per process.
func BenchmarkWritePostponePartitions(b *testing.B) {
	for _, c := range []struct{ name, maxWriters, buffer string }{
		{"direct", "1000", "256 mb"}, {"buffered", "10", "256 mb"}, {"buffered-16mb", "10", "16 mb"},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchPostponePartitions(b, map[string]string{"bucket": "-2", "write-max-writers-to-spill": c.maxWriters, "write-buffer-size": c.buffer})
		})
	}
}

func benchPostponePartitions(b *testing.B, opts map[string]string) {
	productGC(b)
	gen := newRowGen(math.MaxInt32)
	sch := benchSchema()
	sch.Columns = append(sch.Columns, sql.Column{Name: "p", Type: sql.Int()})
	sch.PrimaryKey = []string{"k", "p"}
	tbl, err := Create(fs.NewLocal(), b.TempDir(), sch, []string{"p"}, opts, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: b.TempDir(), postponeFiles: true, commitUser: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	c := tbl.NewCommit("bench")
	c.NoExpire = true
	cpu0 := procstat.CPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := gen.next()
		r.Values = append(r.Values, int32(i%200))
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
		if (i+1)%100000 == 0 || i == b.N-1 {
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Commit(int64(i), msgs, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB") // Maxrss is in KiB on Linux
	}
}

// BenchmarkCompactPostpone: the postpone compaction (CALL sys.compact)
// of b.N rows a streaming job left in bucket-postpone (written untimed,
// a checkpoint every 100k rows): reading the Avro files and writing the
// rows into one real bucket ('postpone.default-bucket-num' 1).
func BenchmarkCompactPostpone(b *testing.B) {
	productGC(b)
	gen := newRowGen(math.MaxInt32)
	tbl, err := Create(fs.NewLocal(), b.TempDir(), benchSchema(), nil, map[string]string{"bucket": "-2"}, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: b.TempDir(), postponeFiles: true, commitUser: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	c := tbl.NewCommit("bench")
	c.NoExpire = true
	for i := 0; i < b.N; i++ {
		if err := w.Write(gen.next()); err != nil {
			b.Fatal(err)
		}
		if (i+1)%100000 == 0 || i == b.N-1 {
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Commit(int64(i), msgs, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu0 := procstat.CPU()
	b.ResetTimer()
	if _, err := Compact(tbl, CompactOptions{TempDir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
}

// BenchmarkWritePKDynamic: the same in dynamic bucket mode (bucket = -1,
// the default of a table without 'bucket'): every row's key is hashed,
// routed by the HashBucketAssigner and added to the bucket's hash index;
// with dynamic-bucket.target-row-num's 2,000,000 the rows stay in one
// bucket, as in BenchmarkWritePK.
func BenchmarkWritePKDynamic(b *testing.B) { benchWrite(b, map[string]string{"bucket": "-1"}) }

// BenchmarkWritePKDynamicBuckets: dynamic bucket mode with buckets that
// fill up: 'dynamic-bucket.target-row-num' = 20,000, so the 100,000 new
// keys of each checkpoint open five more buckets (a bucket's writer, its
// hash index file and a file per checkpoint each), as a growing table
// does.
func BenchmarkWritePKDynamicBuckets(b *testing.B) {
	benchWrite(b, map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "20000"})
}

// BenchmarkWritePKDeletionVectors: the same with deletion-vectors.enabled
// (every commit's lookup compaction moves level 0 up and marks older
// versions in deletion vectors).
func BenchmarkWritePKDeletionVectors(b *testing.B) {
	benchWrite(b, map[string]string{"deletion-vectors.enabled": "true"})
}

// BenchmarkWritePKLookup: the same with changelog-producer lookup.
func BenchmarkWritePKLookup(b *testing.B) {
	benchWrite(b, map[string]string{"changelog-producer": "lookup"})
}

// BenchmarkReadPK: batch read of a compacted one-bucket table.
func BenchmarkReadPK(b *testing.B) {
	productGC(b)
	const n = 200000
	dir := b.TempDir()
	tbl, err := Create(fs.NewLocal(), dir, benchSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	w, _ := tbl.NewWrite(WriteOptions{TempDir: b.TempDir()})
	for _, r := range benchRows(n, n*4) {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		b.Fatal(err)
	}
	w.Close()
	if err := tbl.NewCommit("bench").Commit(1, msgs, nil); err != nil {
		b.Fatal(err)
	}
	s, _ := tbl.Snapshots.Latest()
	splits, _ := tbl.PlanFull(s, nil)
	var total int64
	for _, sp := range splits {
		total += sp.RowCount()
	}
	cpu0 := procstat.CPU()
	b.ResetTimer()
	var rows int64
	for i := 0; i < b.N; i++ {
		for _, sp := range splits {
			r, err := tbl.NewSplitReader(sp, ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, ok := r.Next(); !ok {
					break
				}
				rows++
			}
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(total), "rows/table")
}

// tableWriterRows is the rows per iteration of BenchmarkTableWriter:
// TableWriterBenchmark's valuesPerIteration (3,000,000) unless set.
var tableWriterRows = flag.Int("tablewriter.rows", 3_000_000, "rows per iteration of BenchmarkTableWriter")

// tableWriterIters is the measured iterations after the warm-up (Paimon's
// TableWriterBenchmark measures 3); 0 measures the warm-up alone.
var tableWriterIters = flag.Int("tablewriter.iters", 3, "measured iterations of BenchmarkTableWriter after its warm-up")

// tableWriterBuffer is the table's write-buffer-size in BenchmarkTableWriter
// (empty: the default, 256 mb): a smaller buffer makes a write of a few
// million rows spill sorted runs as a larger write does with the default.
var tableWriterBuffer = flag.String("tablewriter.buffer", "", "write-buffer-size of BenchmarkTableWriter's table (empty: the default)")

// tableWriterWarmProfile names a file for a CPU profile of
// BenchmarkTableWriter's warm-up iteration alone (a fresh process's
// first write), which the best iteration's figure does not show.
var tableWriterWarmProfile = flag.String("tablewriter.warmprofile", "", "write a CPU profile of BenchmarkTableWriter's warm-up iteration to this file")

// BenchmarkTableWriter measures the write the way Paimon's own
// TableWriterBenchmark (paimon-micro-benchmarks, innerTest) measures the
// figures it publishes (94.0 K rows/s on an Apple M3 Pro, 64.8 K on an
// i7-9750H): the benchmark row shape into one bucket, one batch write of
// valuesPerIteration rows committed once per iteration, one warm-up
// iteration (Benchmark.setNumWarmupIters(1)) and three measured ones,
// reporting the best (Benchmark prints "Best/Avg Time" and computes the row
// rate from the best). Each iteration writes a fresh table, where Paimon
// truncates the table between iterations: the write sees an empty table
// either way. rows/cpu-s is from the iteration with the least CPU;
// first-rows/cpu-s is the warm-up's, what a freshly started job gets (that
// is BenchmarkWritePK's figure), first-faults the minor page faults of the
// warm-up. Run it once: -benchtime 1x.
func BenchmarkTableWriter(b *testing.B) {
	productGC(b)
	n := *tableWriterRows
	gen := newRowGen(math.MaxInt32)
	iteration := func(i int) (cpu, wall time.Duration) {
		opts := map[string]string{"bucket": "1"}
		if *tableWriterBuffer != "" {
			opts["write-buffer-size"] = *tableWriterBuffer
		}
		tbl, err := Create(fs.NewLocal(), b.TempDir(), benchSchema(), nil, opts, "", 0)
		if err != nil {
			b.Fatal(err)
		}
		w, err := tbl.NewWrite(WriteOptions{TempDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		c := tbl.NewCommit("bench")
		if i == 0 && *tableWriterWarmProfile != "" {
			f, err := os.Create(*tableWriterWarmProfile)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				b.Fatal(err)
			}
			defer func() {
				pprof.StopCPUProfile()
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}()
		}
		cpu0, t0 := procstat.CPU(), time.Now()
		for range n {
			if err := w.Write(gen.next()); err != nil {
				b.Fatal(err)
			}
		}
		msgs, err := w.PrepareCommit(true)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Commit(int64(i), msgs, nil); err != nil {
			b.Fatal(err)
		}
		cpu, wall = procstat.CPU()-cpu0, time.Since(t0)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		return cpu, wall
	}
	b.ResetTimer()
	for range b.N {
		flt0 := minorFaults()
		warmCPU, _ := iteration(0)
		// Pages a fresh process faults in for its first write (the
		// warm-up's one-off cost: its heap and buffers are new).
		b.ReportMetric(float64(minorFaults()-flt0), "first-faults")
		bestCPU, bestWall := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		for i := 1; i <= *tableWriterIters; i++ {
			cpu, wall := iteration(i)
			bestCPU, bestWall = min(bestCPU, cpu), min(bestWall, wall)
		}
		b.ReportMetric(float64(n)/warmCPU.Seconds(), "first-rows/cpu-s")
		if *tableWriterIters > 0 {
			b.ReportMetric(float64(n)/bestCPU.Seconds(), "rows/cpu-s")
			b.ReportMetric(float64(n)/bestWall.Seconds(), "rows/s")
		}
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB") // Maxrss is in KiB on Linux
		}
	}
}

// productGC runs a benchmark under the sqlrun binary's collector policy
// (gctune.Tune: adaptive GOGC unless GOGC is set, a soft memory limit), so
// the figure is what the binary would see; it stays for the rest of the
// process.
func productGC(testing.TB) { gctune.Tune() }

// minorFaults counts the process's minor page faults so far.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}

// BenchmarkCommitHistory measures whether a commit costs more as the
// table's history grows (issue 24's goal: commit CPU after 1,000 commits
// within 1.5× of a fresh table): 1,000 streaming checkpoints of 100 rows of
// the TableWriterBenchmark shape into one bucket, with the table's default
// manifest merging (manifest.merge-min-count 30, manifest.target-file-size
// 8 MB, manifest.full-compaction-threshold-size 16 MB) and snapshot
// expiration (snapshot.num-retained.min 10, snapshot.time-retained 1 h, so
// all 1,000 snapshots stay). The keys repeat over 5,000 values, so the
// table's data stops growing after the first commits and what can grow is
// its history. It reports the CPU of Commit (manifests, snapshot,
// expiration) and of PrepareCommit (flush, compaction) for the first 50
// commits and for the last 50, per commit, and the commit's ratio.
// Run it once: -bench CommitHistory -benchtime 1x.
func BenchmarkCommitHistory(b *testing.B) {
	const commits, rowsPerCommit, window = 1000, 100, 50
	for range b.N {
		productGC(b)
		tbl, err := Create(fs.NewLocal(), b.TempDir(), benchSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
		if err != nil {
			b.Fatal(err)
		}
		w, err := tbl.NewWrite(WriteOptions{TempDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		c := tbl.NewCommit("bench")
		gen := newRowGen(5000)
		var prep, commit [2]time.Duration
		for i := 0; i < commits; i++ {
			for j := 0; j < rowsPerCommit; j++ {
				if err := w.Write(gen.next()); err != nil {
					b.Fatal(err)
				}
			}
			cpu0 := procstat.CPU()
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				b.Fatal(err)
			}
			cpu1 := procstat.CPU()
			if err := c.Commit(int64(i+1), msgs, nil); err != nil {
				b.Fatal(err)
			}
			cpu2 := procstat.CPU()
			switch {
			case i < window:
				prep[0] += cpu1 - cpu0
				commit[0] += cpu2 - cpu1
			case i >= commits-window:
				prep[1] += cpu1 - cpu0
				commit[1] += cpu2 - cpu1
			}
		}
		w.Close()
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / window }
		b.ReportMetric(ms(commit[0]), "first-commit-cpu-ms")
		b.ReportMetric(ms(commit[1]), "last-commit-cpu-ms")
		b.ReportMetric(float64(commit[1])/float64(commit[0]), "commit-last/first")
		b.ReportMetric(ms(prep[0]), "first-prepare-cpu-ms")
		b.ReportMetric(ms(prep[1]), "last-prepare-cpu-ms")
	}
}
