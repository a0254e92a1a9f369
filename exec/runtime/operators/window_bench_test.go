package operators

import (
	"runtime"
	"testing"
	"time"

	rt "github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

// BenchmarkWindowAggregate is issue 18's window figure: b.N datagen-shaped
// rows (k BIGINT, v BIGINT, ts TIMESTAMP(3)), k = i % 100,000, ts advancing
// 0.1 ms a row (so a one-minute TUMBLE window holds 600,000 rows and every
// key), through SELECT k, window_start, window_end, COUNT(*), SUM(v) ...
// TUMBLE(... INTERVAL '1' MINUTE) GROUP BY k, window_start, window_end on
// the in-memory backend, in batches of 256 each followed by a watermark
// (ts - 1), as a WatermarkAssigner without delay would send. It reports
// input rows per CPU-second and the state of the open window at the end
// (the checkpoint's bytes per (window, key) and Go heap bytes per key),
// taken before the final watermark fires it.
//
//	go test -run '^$' -bench WindowAggregate -benchtime 10000000x ./exec/runtime/operators/
func BenchmarkWindowAggregate(b *testing.B) {
	const keys = 100_000
	spec := WindowSpec{Kind: Tumble, Size: 60_000, TimeCol: 2, GroupKeys: []int{0},
		Aggs: []AggSpec{{Kind: CountStar, InsertOnly: true}, {Kind: Sum, Arg: 1, InsertOnly: true, ResultType: sql.BigInt()}}}
	f, err := WindowAggregate(spec)(0, 1)
	if err != nil {
		b.Fatal(err)
	}
	op := f.(interface {
		rt.Operator
		rt.WatermarkOperator
	})
	if err := op.Open(&rt.Context{}, nil); err != nil {
		b.Fatal(err)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const batch = 256
	rows := make([]sql.Row, 0, batch)
	var out rt.Collector
	fired := 0
	var lastTS int64
	flush := func() {
		if err := op.ProcessBatch(0, rows, &out); err != nil {
			b.Fatal(err)
		}
		if err := op.ProcessWatermark(lastTS-1, &out); err != nil {
			b.Fatal(err)
		}
		fired += out.Len()
		out.Reset()
		rows = rows[:0]
	}
	cpu0 := procstat.CPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lastTS = int64(i) / 10
		rows = append(rows, sql.Row{Kind: sql.Insert, Values: []any{int64(i % keys), int64(i), sql.TimestampData{Millis: lastTS}}})
		if len(rows) == batch {
			flush()
		}
	}
	if len(rows) > 0 {
		flush()
	}
	b.StopTimer()
	cpu := procstat.CPU() - cpu0
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	open := min(b.N, keys) // keys in the last window: it holds >= keys rows when b.N >= 600,000 + keys
	t0 := time.Now()
	snap, err := op.Snapshot(1)
	if err != nil {
		b.Fatal(err)
	}
	snapTime := time.Since(t0)
	if err := op.ProcessWatermark(rt.MaxWatermark, &out); err != nil {
		b.Fatal(err)
	}
	fired += out.Len()
	// Every window fires each key it saw once.
	if wins := int(lastTS/60_000) + 1; b.N >= 600_000+keys && fired != wins*keys {
		b.Fatalf("fired %d rows, want %d windows x %d keys", fired, wins, keys)
	}
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(len(snap))/float64(open), "checkpoint-B/key")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(open), "heap-B/key")
	b.ReportMetric(float64(snapTime.Milliseconds()), "snapshot-ms")
	runtime.KeepAlive(op)
}
