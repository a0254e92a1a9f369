package exec

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// TestSplitDistinctAggSameRows is a metamorphic test of
// table.optimizer.distinct-agg.split.enabled (Flink's SplitAggregateRule):
// every query's materialized result (its changelog applied: +I/+U add a
// row, -U/-D remove one) and column names are the same with and without
// the split, one phase and two phase (mini-batch), over an input with
// updates, deletes and NULLs and over a retracting aggregate, at
// parallelism 1 and 3. FIRST_VALUE and LAST_VALUE are left out: split,
// they take the first (last) value of the bucket that reported last, as
// in Flink, which need not be the group's.
func TestSplitDistinctAggSameRows(t *testing.T) {
	const source = `CREATE TABLE t (k INT, v BIGINT, s STRING) WITH ('connector' = 'values', 'bounded' = 'true',
  'changelog-mode' = 'I,UB,UA,D', 'rows' = '[
  ["+I",1,10,"x"],["+I",1,20,"y"],["+I",2,10,"x"],["+I",1,10,null],["+I",3,null,"z"],
  ["-U",1,20,"y"],["+U",1,30,"y"],["+I",2,null,null],["-D",2,10,"x"],["+I",2,40,"w"],
  ["+I",1,30,"x"],["-D",3,null,"z"],["+I",3,5,"z"],["+I",3,5,"q"],["-U",1,10,"x"],["+U",1,50,"x"],
  ["+I",4,7,"a"],["-D",4,7,"a"],["+I",5,-3,"b"],["+I",5,-3,"b"]]')`
	const inserts = `CREATE TABLE ti (k INT, v BIGINT, s STRING) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[
  ["+I",1,10,"x"],["+I",1,20,"y"],["+I",2,10,"x"],["+I",1,10,null],["+I",3,null,"z"],
  ["+I",1,30,"y"],["+I",2,null,null],["+I",2,40,"w"],["+I",1,30,"x"],["+I",3,5,"q"]]')`
	queries := []string{
		"SELECT k, COUNT(DISTINCT v) AS dv, SUM(v) AS sv, AVG(v) AS av, MAX(v) AS mx, MIN(v) AS mn, COUNT(*) AS c, COUNT(s) AS cs FROM t GROUP BY k",
		"SELECT COUNT(DISTINCT s) AS ds, SUM(DISTINCT v) AS sdv, COUNT(DISTINCT v) AS dv FROM t",
		"SELECT k, COUNT(DISTINCT v) FILTER (WHERE v > 10) AS dv, SUM(v) FILTER (WHERE s IS NOT NULL) AS sv, MAX(s) AS ms FROM t GROUP BY k",
		"SELECT s, COUNT(DISTINCT k) AS dk, SUM(DISTINCT v) AS sdv, AVG(DISTINCT v) AS adv FROM t GROUP BY s",
		"SELECT c, COUNT(DISTINCT k) AS dk, MAX(k) AS mx, MIN(k) AS mn, SUM(k) AS sk FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) GROUP BY c",
		"SELECT k, COUNT(DISTINCT v) AS dv, MAX(v) AS mx, MIN(s) AS ms, SUM(v) AS sv FROM ti GROUP BY k",
		"SELECT k, COUNT(DISTINCT k) AS dk, COUNT(v) AS cv FROM ti GROUP BY k",
	}
	configs := []struct {
		name string
		set  []string
	}{
		{"plain", nil},
		{"split", []string{"SET 'table.optimizer.distinct-agg.split.enabled' = 'true'"}},
		{"split 4 buckets", []string{"SET 'table.optimizer.distinct-agg.split.enabled' = 'true'", "SET 'table.optimizer.distinct-agg.split.bucket-num' = '4'"}},
		{"split two-phase", []string{"SET 'table.optimizer.distinct-agg.split.enabled' = 'true'", "SET 'table.exec.mini-batch.enabled' = 'true'",
			"SET 'table.exec.mini-batch.allow-latency' = '1 s'", "SET 'table.exec.mini-batch.size' = '10'", "SET 'table.optimizer.incremental-agg-enabled' = 'false'"}},
		{"split incremental", []string{"SET 'table.optimizer.distinct-agg.split.enabled' = 'true'", "SET 'table.exec.mini-batch.enabled' = 'true'",
			"SET 'table.exec.mini-batch.allow-latency' = '1 s'", "SET 'table.exec.mini-batch.size' = '10'"}},
		{"two-phase", []string{"SET 'table.exec.mini-batch.enabled' = 'true'", "SET 'table.exec.mini-batch.allow-latency' = '1 s'", "SET 'table.exec.mini-batch.size' = '10'"}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, par := range []string{"1", "3"} {
		results := map[string][]string{}
		for _, c := range configs {
			s := newTestSession()
			s.Planner = PlanPlanner{}
			script := strings.Join(append([]string{"SET 'parallelism.default' = '" + par + "'", source, inserts}, c.set...), ";\n") + ";"
			if err := s.ExecuteScript(ctx, script, "setup.sql", io.Discard); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for qi, q := range queries {
				if c.name == "split incremental" && qi == 0 {
					// IncrementalAggregateRule (on by default) merges the
					// partial global and the final local phase.
					if plan := explainText(ctx, t, s, q); !strings.Contains(plan, "IncrementalGroupAggregate(") {
						t.Fatalf("query %d: no incremental aggregate:\n%s", qi, plan)
					}
				}
				if c.name == "split" {
					// The split is planned (so the comparison is not of
					// one plan with itself).
					if plan := explainText(ctx, t, s, q); !strings.Contains(plan, "partialFinalType=[FINAL]") {
						t.Fatalf("query %d: the split is not planned:\n%s", qi, plan)
					}
				}
				got := materializedRows(ctx, t, s, q)
				key := par + "/" + q
				if want, ok := results[key]; ok {
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("parallelism %s, %s: %s\ngot\n%s\nwant (plain)\n%s", par, c.name, q, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					continue
				}
				results[key] = got
			}
		}
	}
}

func explainText(ctx context.Context, t *testing.T, s *Session, q string) string {
	t.Helper()
	stmt, err := parser.Parse("EXPLAIN " + q)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Planner.Explain(ctx, s.Env(), stmt.(*ast.Explain))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// materializedRows runs q and applies its changelog: the final rows,
// sorted, after a line with the column names.
func materializedRows(ctx context.Context, t *testing.T, s *Session, q string) []string {
	t.Helper()
	out, schema, err := runFoldedSchema(ctx, s, q, func(v []any) string { return fmt.Sprint(v) })
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var names []string
	for _, c := range schema.Columns {
		names = append(names, c.Name+" "+c.Type.String())
	}
	return append([]string{strings.Join(names, ", ")}, out...)
}
