package compile_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/exec/compile"
)

// TestBatchTopNBound runs batch Top-N queries over a random table (ties,
// NULL keys) at parallelism 2 with the bound on the rows kept per
// partition and without it: the rows must be the same, and the bound must
// be set exactly where the filter allows one (an upper bound on the rank
// number in a conjunct, every call of the window a ranking call).
func TestBatchTopNBound(t *testing.T) {
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
	r := rand.New(rand.NewSource(7))
	var rows [][]any
	for i := 0; i < 400; i++ {
		var k, a any = r.Intn(12), r.Intn(5)
		if r.Intn(8) == 0 {
			k = nil
		}
		if r.Intn(6) == 0 {
			a = nil
		}
		rows = append(rows, []any{"+I", k, a, fmt.Sprintf("s%03d", i)})
	}
	js, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	e.ddl(t, "CREATE TABLE t (k INT, a INT, s STRING) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '"+string(js)+"')")
	e.ddl(t, "SET 'execution.runtime-mode' = 'batch'")
	e.ddl(t, "SET 'parallelism.default' = '2'")
	over := func(f, order, where string) string {
		return "SELECT * FROM (SELECT k, a, s, " + f + "() OVER (PARTITION BY k ORDER BY " + order + ") AS rn FROM t) WHERE " + where
	}
	for _, c := range []struct {
		text    string
		bounded int // operators given a bound
	}{
		{over("ROW_NUMBER", "a DESC", "rn = 1"), 1},
		{over("ROW_NUMBER", "a", "rn <= 2"), 1},
		{over("ROW_NUMBER", "a DESC NULLS FIRST", "rn < 3"), 1},
		{over("ROW_NUMBER", "a NULLS LAST, s DESC", "rn BETWEEN 2 AND 3"), 1},
		{over("ROW_NUMBER", "a DESC", "2 >= rn AND a > 1"), 1},
		{over("ROW_NUMBER", "a", "rn <= 0"), 1},
		{over("ROW_NUMBER", "s", "rn IN (1, 3)"), 1},
		{over("ROW_NUMBER", "a DESC", "rn < 3 AND rn <> 1"), 1},
		{over("DENSE_RANK", "a DESC", "rn <= 2"), 1},
		{over("DENSE_RANK", "a", "rn = 1"), 1},
		// RANK with a constant range: a local and a global Rank.
		{over("RANK", "a DESC", "rn <= 2"), 2},
		{over("RANK", "a", "rn BETWEEN 2 AND 4"), 2},
		{over("RANK", "a", "rn = 1"), 2},
		{"SELECT * FROM (SELECT k, a, s, RANK() OVER (ORDER BY a DESC) AS rn FROM t) WHERE rn <= 3", 2},
		// No upper bound, or not on every row passing.
		{over("ROW_NUMBER", "a", "rn >= 3"), 0},
		{over("ROW_NUMBER", "a", "rn = 1 OR a = 4"), 0},
		{over("DENSE_RANK", "a", "rn > 1"), 0},
		{over("ROW_NUMBER", "a", "rn NOT BETWEEN 2 AND 3"), 0},
		// A CAST of the number may wrap.
		{over("ROW_NUMBER", "a", "CAST(rn AS TINYINT) <= 2"), 0},
		// An aggregate in the same window reads every row.
		{"SELECT * FROM (SELECT k, a, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY a) AS rn, COUNT(*) OVER " +
			"(PARTITION BY k ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c FROM t) WHERE rn <= 2", 0},
	} {
		restore := compile.SetBoundTopN(false)
		want, err := e.answer(c.text)
		restore()
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		before := compile.BoundedTopNs()
		got, err := e.answer(c.text)
		if err != nil {
			t.Fatalf("%s bounded: %v", c.text, err)
		}
		if got != want {
			t.Fatalf("%s\nbounded:\n%s\nunbounded:\n%s", c.text, got, want)
		}
		if n := compile.BoundedTopNs() - before; n != c.bounded {
			t.Errorf("%s: %d operators bounded, want %d", c.text, n, c.bounded)
		}
		if want == "" && c.bounded > 0 && c.text != over("ROW_NUMBER", "a", "rn <= 0") {
			t.Errorf("%s: no rows", c.text)
		}
	}
}
