package operators

import (
	"fmt"
	"runtime"
	"testing"

	rt "github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

// BenchmarkRegularJoin is issue 17's regular-join figure: b.N keys, each
// with one order row (id, amount) on the left and one customer row (id,
// name) on the right, arriving interleaved in batches of 256 as two
// datagen streams would, through an INNER StreamingJoin with insert-only
// NoUniqueKey inputs (datagen tables declare no key) on the in-memory
// backend. It reports input rows per CPU-second, the checkpoint's bytes per
// key and the Go heap per key (live heap after a collection, divided by
// keys), the figures for state size.
//
//	go test -run '^$' -bench RegularJoin -benchtime 1000000x ./exec/runtime/operators/
func BenchmarkRegularJoin(b *testing.B) {
	spec := JoinSpec{Left: JoinSideSpec{Keys: []int{0}, Arity: 2}, Right: JoinSideSpec{Keys: []int{0}, Arity: 2}}
	op, err := StreamingJoin(spec)(0, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := op.Open(&rt.Context{}, nil); err != nil {
		b.Fatal(err)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const batch = 256
	left := make([]sql.Row, 0, batch)
	right := make([]sql.Row, 0, batch)
	var out rt.Collector
	emitted := 0
	flush := func() {
		for i, rows := range [][]sql.Row{left, right} {
			if len(rows) == 0 {
				continue
			}
			if err := op.ProcessBatch(i, rows, &out); err != nil {
				b.Fatal(err)
			}
			emitted += out.Len()
			out.Reset()
		}
		left, right = left[:0], right[:0]
	}
	cpu0 := procstat.CPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := int64(i)
		left = append(left, sql.Row{Kind: sql.Insert, Values: []any{id, id % 1000}})
		right = append(right, sql.Row{Kind: sql.Insert, Values: []any{id, fmt.Sprintf("customer-%d", i)}})
		if len(left) == batch {
			flush()
		}
	}
	flush()
	b.StopTimer()
	cpu := procstat.CPU() - cpu0
	if emitted != b.N {
		b.Fatalf("joined %d rows, want %d", emitted, b.N)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	snap, err := op.Snapshot(1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(2*b.N)/cpu.Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(len(snap))/float64(b.N), "checkpoint-B/key")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/key")
	runtime.KeepAlive(op)
}
