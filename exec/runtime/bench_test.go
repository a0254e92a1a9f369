package runtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	_ "github.com/sqlrun/sqlrun/connectors/blackhole"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

// BenchmarkDatagenCalcBlackhole measures datagen → Calc (3-column
// projection + filter) → blackhole. Run with -cpu 1 for the rows/s per
// core figure: the three subtasks then share one core.
func BenchmarkDatagenCalcBlackhole(b *testing.B) {
	// SELECT qty, id, price FROM t WHERE price > 10: the projection copies.
	b.Run("reorder", func(b *testing.B) { benchCalc(b, []int{2, 0, 1}) })
	// SELECT id, price, qty FROM t WHERE price > 10: adjacent columns are
	// re-sliced, not copied.
	b.Run("adjacent", func(b *testing.B) { benchCalc(b, []int{0, 1, 2}) })
}

func benchCalc(b *testing.B, fields []int) {
	df, _ := connectors.Lookup("datagen")
	bf, _ := connectors.Lookup("blackhole")
	src, err := df.(connectors.SourceFactory).CreateSource(&connectors.Context{
		Schema: sql.Schema{Columns: []sql.Column{
			{Name: "id", Type: sql.BigInt()}, {Name: "price", Type: sql.Int()},
			{Name: "qty", Type: sql.Int()}, {Name: "flag", Type: sql.Boolean()}}},
		Options: map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1",
			"fields.id.end": fmt.Sprint(b.N), "fields.price.min": "1", "fields.price.max": "1000",
			"rows-per-second": "1000000000000"},
	})
	if err != nil {
		b.Fatal(err)
	}
	sink, err := bf.(connectors.SinkFactory).CreateSink(&connectors.Context{})
	if err != nil {
		b.Fatal(err)
	}
	g := runtime.NewGraph("bench")
	s := g.AddSource("src", "Source: datagen", src, 1)
	c := g.AddOperator("calc", "Calc", operators.ProjectFilter(fields, func(r sql.Row) (bool, error) {
		p, ok := r.Values[1].(int32)
		return ok && p > 10, nil
	}), 1)
	k := g.AddSink("sink", "Sink: blackhole", sink, 1)
	g.Connect(s, c, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(c, k, runtime.Partitioning{Kind: runtime.Forward})
	cpu0 := procstat.CPU()
	b.ResetTimer()
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	// CPU time of the whole process (all goroutines, GC included): rows
	// per CPU-second is rows/s per core, unaffected by other load on the
	// machine.
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
	if m := job.Metrics(); m.Vertices[0].RecordsOut != int64(b.N) {
		b.Fatalf("source emitted %d of %d", m.Vertices[0].RecordsOut, b.N)
	}
}

// BenchmarkDatagenGroupAggregate measures datagen → hash exchange →
// GroupAggregate (GROUP BY id % 1000: SUM, COUNT(*), retract output) →
// blackhole, the shape of the seed's query.
func BenchmarkDatagenGroupAggregate(b *testing.B) {
	df, _ := connectors.Lookup("datagen")
	bf, _ := connectors.Lookup("blackhole")
	src, err := df.(connectors.SourceFactory).CreateSource(&connectors.Context{
		Schema: sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "amount", Type: sql.BigInt()}}},
		Options: map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1",
			"fields.id.end": fmt.Sprint(b.N), "fields.amount.min": "1", "fields.amount.max": "1000",
			"rows-per-second": "1000000000000"},
	})
	if err != nil {
		b.Fatal(err)
	}
	sink, _ := bf.(connectors.SinkFactory).CreateSink(&connectors.Context{})
	g := runtime.NewGraph("bench-agg")
	s := g.AddSource("src", "Source: datagen", src, 1)
	c := g.AddOperator("calc", "Calc", operators.Calc(func(r sql.Row) (sql.Row, bool, error) {
		return sql.Row{Values: []any{r.Values[0].(int64) % 1000, r.Values[1]}}, true, nil
	}), 1)
	a := g.AddOperator("agg", "GroupAggregate", operators.GroupAggregate(operators.AggregateSpec{
		GroupKeys: []int{0}, Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1}, {Kind: operators.CountStar}},
		GenerateUpdateBefore: true}), 1)
	k := g.AddSink("sink", "Sink: blackhole", sink, 1)
	g.Connect(s, c, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(c, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
	g.Connect(a, k, runtime.Partitioning{Kind: runtime.Forward})
	cpu0 := procstat.CPU()
	b.ResetTimer()
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
}
