package format

import (
	"bytes"
	"fmt"
	"math/rand"
	"syscall"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// benchShape is Paimon's TableWriterBenchmark row: k INT + 20 STRING
// columns of 10 random characters.
func benchShape() (keys, vals []schema.Field) {
	keys = []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}}
	vals = append(vals, schema.Field{ID: 0, Name: "k", Type: sql.Int().NotNull()})
	for i := 1; i <= 20; i++ {
		vals = append(vals, schema.Field{ID: i, Name: fmt.Sprintf("f%d", i), Type: sql.String()})
	}
	return keys, vals
}

func benchRows(n int) []*kv.KeyValue {
	r := rand.New(rand.NewSource(1))
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]*kv.KeyValue, n)
	for i := range out {
		v := make([]any, 21)
		v[0] = int32(i)
		for j := 1; j <= 20; j++ {
			b := make([]byte, 10)
			for k := range b {
				b[k] = letters[r.Intn(len(letters))]
			}
			v[j] = string(b)
		}
		out[i] = &kv.KeyValue{Key: []any{int32(i)}, Seq: int64(i), Kind: sql.Insert, Value: v}
	}
	return out
}

const benchN = 100_000

// cpuSeconds is the process's user+system CPU time: on a shared, loaded
// machine rows per CPU-second is the stable figure (wall-clock rows/s
// depends on what else runs).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func reportCPU(b *testing.B, start float64) {
	b.ReportMetric(float64(benchN*b.N)/(cpuSeconds()-start), "rows/cpu-s")
}

func writeBench(b testing.TB, rows []*kv.KeyValue) []byte {
	keys, vals := benchShape()
	var buf bytes.Buffer
	w, err := NewKVWriter(&buf, keys, vals, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkWriteKV measures rows/s of writing a primary-key Parquet file
// (zstd, stats) for 100k rows of k INT + 20 STRING(10).
func BenchmarkWriteKV(b *testing.B) {
	rows := benchRows(benchN)
	b.ResetTimer()
	var size int
	cpu := cpuSeconds()
	for i := 0; i < b.N; i++ {
		size = len(writeBench(b, rows))
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size), "file-bytes")
}

// BenchmarkReadKV measures rows/s of reading all columns of that file back
// as KeyValues.
func BenchmarkReadKV(b *testing.B) {
	data := writeBench(b, benchRows(benchN))
	keys, vals := benchShape()
	b.ResetTimer()
	cpu := cpuSeconds()
	defer func() { reportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		f, err := Open(bytes.NewReader(data), int64(len(data)), "data-b-0.parquet")
		if err != nil {
			b.Fatal(err)
		}
		it, err := f.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals}, 0)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r := it.Next(); r != nil; r = it.Next() {
			n++
		}
		if it.Error() != nil || n != benchN {
			b.Fatal(n, it.Error())
		}
		it.Close()
	}
	b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadKVProjected reads only the key and two value columns.
func BenchmarkReadKVProjected(b *testing.B) {
	data := writeBench(b, benchRows(benchN))
	keys, vals := benchShape()
	b.ResetTimer()
	cpu := cpuSeconds()
	defer func() { reportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		f, _ := Open(bytes.NewReader(data), int64(len(data)), "data-b-0.parquet")
		it, err := f.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals[:3]}, 0)
		if err != nil {
			b.Fatal(err)
		}
		for r := it.Next(); r != nil; r = it.Next() {
		}
		it.Close()
	}
	b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// benchFilter is `f3 < 'i' AND k >= 50000` over benchRows' projection
// k, f1, f2, f3: a quarter of the rows, spread over every page.
func benchFilter() []Pred {
	return []Pred{
		{Field: 3, Ranges: []PredRange{{Lo: PredBound{Unbounded: true}, Hi: PredBound{Str: []byte("i")}}}},
		{Field: 0, Ranges: []PredRange{{Lo: PredBound{Int: benchN / 2, Closed: true}, Hi: PredBound{Unbounded: true}}}},
	}
}

// BenchmarkReadFiltered reads the rows of that file that pass benchFilter
// (FilteredRows, the row path of a filtered batch query): rows/cpu-s
// counts the rows of the file.
func BenchmarkReadFiltered(b *testing.B) {
	data := writeBench(b, benchRows(benchN))
	_, vals := benchShape()
	b.ResetTimer()
	cpu := cpuSeconds()
	defer func() { reportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		f, _ := Open(bytes.NewReader(data), int64(len(data)), "data-b-0.parquet")
		it, ok, err := f.FilteredRows(Projection{FileFields: vals, Fields: vals[:4]}, benchFilter())
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		n := 0
		for r := it.Next(); r != nil; r = it.Next() {
			n++
		}
		if it.Error() != nil || n < benchN/5 || n > benchN/3 {
			b.Fatal(n, it.Error())
		}
		it.Close()
	}
}

// BenchmarkAggregateFiltered is the column path of the same filter:
// COUNT(*), MAX(k), MAX(f1), MAX(f2) over the rows that pass.
func BenchmarkAggregateFiltered(b *testing.B) {
	data := writeBench(b, benchRows(benchN))
	_, vals := benchShape()
	calls := []AggCall{{Kind: AggCountStar}, {Kind: AggMax, Arg: 0}, {Kind: AggMax, Arg: 1}, {Kind: AggMax, Arg: 2}}
	b.ResetTimer()
	cpu := cpuSeconds()
	defer func() { reportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		f, _ := Open(bytes.NewReader(data), int64(len(data)), "data-b-0.parquet")
		parts, ok, err := f.Aggregate(Projection{FileFields: vals, Fields: vals[:4]}, calls, benchFilter())
		if err != nil || !ok || len(parts) != 1 {
			b.Fatal(ok, err)
		}
		if n := parts[0][0].(int64); n < benchN/5 || n > benchN/3 {
			b.Fatal(n)
		}
	}
}
