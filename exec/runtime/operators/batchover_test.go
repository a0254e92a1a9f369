package operators

import (
	"fmt"
	"math/rand"
	"reflect"
	gort "runtime"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// runBatchOver feeds rows to a BatchOver in batches of 3 and returns what
// it emits at the end.
func runBatchOver(t testing.TB, spec BatchOverSpec, rows []sql.Row) []sql.Row {
	t.Helper()
	op, err := BatchOver(spec)(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(nil, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += 3 {
		if err := op.ProcessBatch(0, rows[i:min(i+3, len(rows))], nil); err != nil {
			t.Fatal(err)
		}
	}
	var out runtime.Collector
	if err := op.(interface {
		Finish(*runtime.Collector) error
	}).Finish(&out); err != nil {
		t.Fatal(err)
	}
	return out.Rows()
}

func ins(vals ...any) sql.Row { return sql.Row{Kind: sql.Insert, Values: vals} }

// upTo keeps the rows whose number (field w) is at most end.
func upTo(rows []sql.Row, w int, end int64) []sql.Row {
	var out []sql.Row
	for _, r := range rows {
		if r.Values[w].(int64) <= end {
			out = append(out, r)
		}
	}
	return out
}

var rankFuncs = []RankFunc{RowNumber, RankNumber, DenseRank}

// TestBatchTopNSame: with a bound, the rows numbered up to it are the
// same rows, with the same numbers and in the same order, as without.
func TestBatchTopNSame(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	orders := [][]SortKey{
		{{Index: 1}},
		{{Index: 1, Desc: true}},
		{{Index: 1, NullsFirst: true}},
		{{Index: 1, Desc: true, NullsFirst: true}},
		{{Index: 1, Desc: true}, {Index: 2, NullsFirst: true}},
		nil, // no order: every row of a partition ties
	}
	for iter := 0; iter < 300; iter++ {
		nKeys := 1 + rng.Intn(40)
		nRows := rng.Intn(400)
		if iter == 0 {
			nRows = 0 // empty input
		}
		var rows []sql.Row
		for i := 0; i < nRows; i++ {
			var k, a, b any = int64(rng.Intn(nKeys)), int64(rng.Intn(6)), int64(rng.Intn(3))
			if rng.Intn(10) == 0 {
				k = nil
			}
			if rng.Intn(5) == 0 {
				a = nil
			}
			if rng.Intn(5) == 0 {
				b = nil
			}
			rows = append(rows, ins(k, a, b, int64(i)))
		}
		order := orders[iter%len(orders)]
		part := []int{0}
		if iter%7 == 3 {
			part = nil
		}
		for _, f := range rankFuncs {
			for _, end := range []int64{0, 1, 2, 3, 7, 50, 1000} {
				spec := BatchOverSpec{Partition: part, Order: order, Calls: []BatchOverCall{{Rank: RowNumber}, {Rank: RankNumber}, {Rank: DenseRank}}}
				w := 4 + int(f) - int(RowNumber)
				want := upTo(runBatchOver(t, spec, rows), w, end)
				spec.TopN = &BatchTopN{Func: f, End: end}
				got := upTo(runBatchOver(t, spec, rows), w, end)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("iter %d func %d end %d order %v:\n got %v\nwant %v", iter, f, end, order, got, want)
				}

				rspec := BatchOverSpec{Partition: part, Order: order, Rank: &BatchRankFilter{Func: f, Start: 1, End: end, OutputNumber: true}}
				want = runBatchOver(t, rspec, rows)
				rspec.TopN = &BatchTopN{Func: f, End: end}
				if got := runBatchOver(t, rspec, rows); !reflect.DeepEqual(got, want) {
					t.Fatalf("global rank iter %d func %d end %d:\n got %v\nwant %v", iter, f, end, got, want)
				}
				// The local Rank in two tasks, then the global one over
				// what they pass on, as the exchange delivers it.
				cut := rng.Intn(len(rows) + 1)
				lspec := BatchOverSpec{Partition: part, Order: order, TopN: &BatchTopN{Func: f, End: end, Local: true}}
				passed := append(runBatchOver(t, lspec, rows[:cut]), runBatchOver(t, lspec, rows[cut:])...)
				if len(rows) > 0 && int64(len(passed)) > end*int64(nKeys+1)*int64(len(rows)) {
					t.Fatalf("local rank passed %d rows", len(passed))
				}
				if got := runBatchOver(t, rspec, passed); !reflect.DeepEqual(got, want) {
					t.Fatalf("local+global rank iter %d func %d end %d:\n got %v\nwant %v", iter, f, end, got, want)
				}
			}
		}
	}
}

// TestBatchTopNCases spells out ties, NULL order keys and a partition
// smaller than N.
func TestBatchTopNCases(t *testing.T) {
	rows := []sql.Row{
		ins("x", int64(3), "a"), ins("x", nil, "b"), ins("x", int64(5), "c"), ins("x", int64(5), "d"),
		ins("x", int64(1), "e"), ins("x", int64(5), "f"), ins("y", int64(2), "g"), ins("x", nil, "h"),
	}
	vals := func(rs []sql.Row) string {
		s := ""
		for _, r := range rs {
			s += fmt.Sprintf("%v %v ", r.Values[2], r.Values[3])
		}
		return s
	}
	for _, c := range []struct {
		f     RankFunc
		end   int64
		order SortKey
		want  string
	}{
		// ROW_NUMBER: ties in arrival order.
		{RowNumber, 1, SortKey{Index: 1, Desc: true}, "c 1 g 1 "},
		{RowNumber, 2, SortKey{Index: 1, Desc: true}, "c 1 d 2 g 1 "},
		// DESC NULLS FIRST, ASC NULLS FIRST / LAST.
		{RowNumber, 2, SortKey{Index: 1, Desc: true, NullsFirst: true}, "b 1 h 2 g 1 "},
		{RowNumber, 2, SortKey{Index: 1}, "e 1 a 2 g 1 "},
		{RowNumber, 1, SortKey{Index: 1, NullsFirst: true}, "b 1 g 1 "},
		// RANK and DENSE_RANK: every row tied with the N-th.
		{RankNumber, 1, SortKey{Index: 1, Desc: true}, "c 1 d 1 f 1 g 1 "},
		{RankNumber, 4, SortKey{Index: 1, Desc: true}, "c 1 d 1 f 1 a 4 g 1 "},
		{DenseRank, 2, SortKey{Index: 1, Desc: true}, "c 1 d 1 f 1 a 2 g 1 "},
		{DenseRank, 5, SortKey{Index: 1}, "e 1 a 2 c 3 d 3 f 3 b 4 h 4 g 1 "},
		// N beyond a partition: all of it.
		{RowNumber, 100, SortKey{Index: 1}, "e 1 a 2 c 3 d 4 f 5 b 6 h 7 g 1 "},
	} {
		spec := BatchOverSpec{Partition: []int{0}, Order: []SortKey{c.order}, Calls: []BatchOverCall{{Rank: c.f}},
			TopN: &BatchTopN{Func: c.f, End: c.end}}
		if got := vals(upTo(runBatchOver(t, spec, rows), 3, c.end)); got != c.want {
			t.Errorf("%d <= %d %+v: got %q, want %q", c.f, c.end, c.order, got, c.want)
		}
	}
	if got := runBatchOver(t, BatchOverSpec{Partition: []int{0}, Calls: []BatchOverCall{{Rank: RowNumber}},
		TopN: &BatchTopN{Func: RowNumber, End: 1}}, nil); len(got) != 0 {
		t.Errorf("empty input: %v", got)
	}
}

// TestBatchTopNKeeps: the rows a bounded operator holds stay within the
// bound's reach (a partition's kept rows and the ones since the last
// compaction), whatever the input's length.
func TestBatchTopNKeeps(t *testing.T) {
	op, _ := BatchOver(BatchOverSpec{Partition: []int{0}, Order: []SortKey{{Index: 1, Desc: true}},
		Calls: []BatchOverCall{{Rank: RowNumber}}, TopN: &BatchTopN{Func: RowNumber, End: 1}})(0, 1)
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 100000; i++ {
		if err := op.ProcessBatch(0, []sql.Row{ins(int64(i%100), rng.Int63())}, nil); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	for _, p := range op.(*batchOver).parts {
		kept += len(p.rows)
	}
	if kept > 100*18 {
		t.Errorf("%d rows kept for 100 keys", kept)
	}
}

// BenchmarkBatchDedup is the batch deduplication (ROW_NUMBER() OVER
// (PARTITION BY id ORDER BY ts DESC) ... WHERE rn = 1) of 1M rows over
// 10k keys, with and without the bound. The rows are made batch by batch,
// as a source hands them over, so the operator alone keeps them alive:
// peak-live-MiB is the heap live after a GC at the end of the input
// (what the operator holds then), beside B/op and allocs/op. input-only
// makes the rows and drops them: its B/op and allocs/op are the input's
// share of the others'.
func BenchmarkBatchDedup(b *testing.B) {
	b.Run("input-only", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			dedupRows(func([]sql.Row) error { return nil })
		}
	})
	for _, bounded := range []bool{false, true} {
		b.Run(fmt.Sprintf("bounded=%v", bounded), func(b *testing.B) {
			spec := BatchOverSpec{Partition: []int{0}, Order: []SortKey{{Index: 1, Desc: true}},
				Rows: true, Calls: []BatchOverCall{{Rank: RowNumber}}}
			if bounded {
				spec.TopN = &BatchTopN{Func: RowNumber, End: 1}
			}
			var peak uint64
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				peak = max(peak, dedupPeak(b, spec))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MiB")
		})
	}
}

const dedupKeys = 10_000

// dedupRows hands 1M rows over 10k keys to f in batches of 1024.
func dedupRows(f func([]sql.Row) error) error {
	const n, batch = 1_000_000, 1024
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < n; i += batch {
		rows := make([]sql.Row, min(batch, n-i))
		for j := range rows {
			rows[j] = ins(int64(rng.Intn(dedupKeys)), rng.Int63n(1<<40), fmt.Sprintf("payload-%07d", i+j))
		}
		if err := f(rows); err != nil {
			return err
		}
	}
	return nil
}

func dedupPeak(b *testing.B, spec BatchOverSpec) uint64 {
	var ms gort.MemStats
	gort.GC()
	gort.ReadMemStats(&ms)
	base := ms.HeapAlloc
	op, _ := BatchOver(spec)(0, 1)
	if err := dedupRows(func(rows []sql.Row) error { return op.ProcessBatch(0, rows, nil) }); err != nil {
		b.Fatal(err)
	}
	gort.GC()
	gort.ReadMemStats(&ms)
	live := ms.HeapAlloc - min(base, ms.HeapAlloc)
	var out runtime.Collector
	if err := op.(interface {
		Finish(*runtime.Collector) error
	}).Finish(&out); err != nil {
		b.Fatal(err)
	}
	if got := len(upTo(out.Rows(), 3, 1)); got != dedupKeys {
		b.Fatalf("%d rows", got)
	}
	return live
}

// TestNTileBucket checks the closed form against NTILEAggFunction's
// accumulation, step by step: rowNumber, then bucket, then bucketThreshold,
// each reading the buffers the previous ones set (DeclarativeAggCodeGen
// assigns them in order).
func TestNTileBucket(t *testing.T) {
	for n := int64(0); n <= 23; n++ {
		for k := int64(1); k <= 9; k++ {
			size, padding := n/k, n%k
			var rowNumber, bucket, threshold int64
			if got := ntileBucket(0, n, k); got != 0 {
				t.Errorf("ntileBucket(0, %d, %d) = %d, want 0", n, k, got)
			}
			for r := int64(1); r <= n; r++ {
				rowNumber++
				if rowNumber > threshold {
					bucket++
				}
				if rowNumber > threshold {
					extra := int64(0)
					if bucket <= padding {
						extra = 1
					}
					threshold += size + extra
				}
				if got := ntileBucket(r, n, k); got != bucket {
					t.Errorf("ntileBucket(%d, %d, %d) = %d, want %d", r, n, k, got, bucket)
				}
			}
		}
	}
}

// TestBatchOverWindowFuncs runs LEAD, LAG, NTILE, CUME_DIST and
// PERCENT_RANK over one partition with ties and a NULL value.
func TestBatchOverWindowFuncs(t *testing.T) {
	var rows []sql.Row
	for i, v := range []any{int32(1), int32(2), int32(2), nil, int32(5)} {
		rows = append(rows, sql.Row{Kind: sql.Insert, Values: []any{"p", v, int64(i), int64(-i)}})
	}
	spec := BatchOverSpec{Partition: []int{0}, Order: []SortKey{{Index: 1, NullsFirst: true}},
		Lower: FrameBound{Kind: UnboundedPreceding}, Upper: FrameBound{Kind: CurrentRow},
		Calls: []BatchOverCall{
			{Rank: Lag, Arg: 2, Offset: 1, DefaultArg: -1},
			{Rank: Lead, Arg: 2, Offset: 2, Default: int64(99), DefaultArg: -1},
			{Rank: Lag, Arg: 2, Offset: 1, DefaultArg: 3},
			{Rank: NTile, Buckets: 2},
			{Rank: CumeDist},
			{Rank: PercentRank},
		}}
	got := runBatchOver(t, spec, rows)
	// Sorted: NULL(3), 1(0), 2(1), 2(2), 5(4).
	want := [][]any{
		{nil, int64(1), int64(-3), int64(1), 0.2, 0.0},
		{int64(3), int64(2), int64(3), int64(1), 0.4, 0.25},
		{int64(0), int64(4), int64(0), int64(2), 0.8, 0.5},
		{int64(1), int64(99), int64(1), int64(2), 0.8, 0.5},
		{int64(2), int64(99), int64(2), int64(2), 1.0, 1.0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i, r := range got {
		if !reflect.DeepEqual(r.Values[4:], want[i]) {
			t.Errorf("row %d: got %v, want %v", i, r.Values[4:], want[i])
		}
	}
}
