package runtime_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors"
	_ "github.com/sqlrun/sqlrun/connectors/filesystem"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/sql"
)

// TestSeed runs filesystem(debezium-json) → GroupAggregate(status;
// SUM(amount)) → Collect, the job the planner builds for the seed query,
// and prints the changelog the shell's tableau shows (op column first).
func TestSeed(t *testing.T) {
	datadriven.RunTest(t, "testdata/seed", func(t *testing.T, td *datadriven.TestData) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "orders.json"), []byte(td.Input+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.Int()},
			{Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "status", Type: sql.String()}}}
		f, _ := connectors.Lookup("filesystem")
		src, err := f.(connectors.SourceFactory).CreateSource(&connectors.Context{Schema: schema,
			Options: map[string]string{"path": dir, "format": "debezium-json"}})
		if err != nil {
			t.Fatal(err)
		}
		collect := runtime.NewCollect(4)
		g := runtime.NewGraph("seed")
		s := g.AddSource("src", "Source: orders", src, 1)
		a := g.AddOperator("agg", "GroupAggregate", operators.GroupAggregate(operators.AggregateSpec{
			GroupKeys: []int{2}, GenerateUpdateBefore: true,
			Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1, ResultType: sql.Decimal(38, 2)}}}), 2)
		k := g.AddSink("collect", "Collect", collect, 1)
		g.Connect(s, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{2}})
		g.Connect(a, k, runtime.Partitioning{Kind: runtime.Global})
		job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		out := []sql.DataType{sql.String(), sql.Decimal(38, 2)}
		for {
			rows, err := collect.Next(context.Background(), job)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				b.WriteString(r.Kind.ShortString() + " | " + sql.FormatValue(r.Values[0], out[0]) + " | " +
					sql.FormatValue(r.Values[1], out[1]) + "\n")
			}
		}
		return b.String()
	})
}
