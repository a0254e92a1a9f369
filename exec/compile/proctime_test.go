package compile_test

import (
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/exec/compile"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// TestSourceProctimeReadsJobClock: the Calc over a source that gives a
// PROCTIME() computed column its value (below a WatermarkAssigner, which
// passes the attribute on unmaterialized to, say, a processing-time
// window) stamps each row with the job's
// processing-time clock (runtime.Context.Now, which processing-time
// timers and PROCTIME_MATERIALIZE read too), not the process's wall
// clock. Before, it read time.Now: the rows came out stamped with today's
// date, not the fake clock's 2023-11-14.
func TestSourceProctimeReadsJobClock(t *testing.T) {
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
	st, err := parser.Parse("CREATE TABLE t (a INT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := catalog.TableFromDDL(st.(*ast.CreateTable), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.cat.CreateTable(catalog.DefaultDatabase, "t", tb, false); err != nil {
		t.Fatal(err)
	}
	stmt, err := parser.Parse("SELECT a, pt FROM t")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.New(e).PlanStatement(stmt)
	if err != nil {
		t.Fatal(err)
	}
	g, err := compile.Graph(pl, compile.Options{JobName: "t", Config: e.config, Collect: runtime.NewCollect(1)})
	if err != nil {
		t.Fatal(err)
	}
	// The Calc below the WatermarkAssigner computes the attribute
	// (Calc(select=[a, ts, PROCTIME() AS pt])); the one above
	// materializes it for the query's result.
	var calc *runtime.Vertex
	for _, v := range g.Vertices {
		if v.Operator != nil && v.Name == "Calc" && calc == nil {
			calc = v
		}
	}
	if calc == nil {
		t.Fatalf("no Calc vertex in %v", g.Vertices)
	}
	op, err := calc.Operator(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.UnixMilli(1_700_000_000_000)
	if err := op.Open(&runtime.Context{Now: func() time.Time { return clock }}, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int64{1_700_000_000_000, 1_700_000_005_000} {
		var out runtime.Collector
		if err := op.ProcessBatch(0, []sql.Row{{Kind: sql.Insert, Values: []any{int32(7), sql.TimestampData{Millis: 1}}}}, &out); err != nil {
			t.Fatal(err)
		}
		rows := out.Rows()
		if len(rows) != 1 {
			t.Fatalf("got %d rows", len(rows))
		}
		if got := rows[0].Values[2]; got != (sql.TimestampData{Millis: want}) {
			t.Errorf("pt = %v, want the job clock's %d", got, want)
		}
		clock = clock.Add(5 * time.Second)
	}
}
