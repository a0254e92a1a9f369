package datagen

import (
	"context"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// benchSchema is a 20-column row of the types demos and benchmarks use.
var benchSchema = sql.Schema{Columns: []sql.Column{
	{Name: "id", Type: sql.BigInt()}, {Name: "b1", Type: sql.BigInt()}, {Name: "b2", Type: sql.BigInt()},
	{Name: "b3", Type: sql.BigInt()}, {Name: "i1", Type: sql.Int()}, {Name: "i2", Type: sql.Int()},
	{Name: "i3", Type: sql.Int()}, {Name: "i4", Type: sql.Int()}, {Name: "sm", Type: sql.SmallInt()},
	{Name: "ti", Type: sql.TinyInt()}, {Name: "f", Type: sql.Float()}, {Name: "d1", Type: sql.Double()},
	{Name: "d2", Type: sql.Double()}, {Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "ok", Type: sql.Boolean()},
	{Name: "ts", Type: sql.Timestamp(3)}, {Name: "s1", Type: sql.String()}, {Name: "s2", Type: sql.String()},
	{Name: "s3", Type: sql.VarChar(10)}, {Name: "s4", Type: sql.VarChar(32)}}}

// BenchmarkReader20Columns measures generated rows/s of a 20-column row
// (defaults: random values, STRING of length 100), without a rate limit.
func BenchmarkReader20Columns(b *testing.B) {
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: benchSchema,
		Options: map[string]string{"rows-per-second": "0"}})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := src.NewReader(0, 1)
	if err := r.Open(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		batch, err := r.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		rows += len(batch)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
