package plan_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

var fuzzDDL = []string{
	"CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'paimon')",
	"CREATE TABLE sink (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://h:3306/d', 'table-name' = 't')",
	"CREATE TABLE p (a INT, b STRING) WITH ('connector' = 'print')",
	"CREATE TABLE v (a INT, b STRING, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D')",
}

var fuzzSeeds = []string{
	"INSERT INTO sink SELECT id, amount, status FROM orders",
	"INSERT INTO sink SELECT id, amount, status FROM orders /*+ OPTIONS('changelog-producer'='input') */",
	"SELECT status, SUM(amount), COUNT(DISTINCT id) FROM orders WHERE amount > 10 GROUP BY status HAVING COUNT(*) > 1",
	"EXPLAIN CHANGELOG_MODE SELECT a, b FROM v WHERE b LIKE 'x%' UNION ALL SELECT a, b FROM v",
	"INSERT INTO p SELECT CAST(id AS INT), UPPER(status) AS b FROM orders ORDER BY b LIMIT 3",
	"SELECT * FROM (VALUES (1, 'a'), (NULL, 'b')) AS t(x, y)",
	"WITH w AS (SELECT id FROM orders) SELECT COUNT(*) FROM w",
	"SELECT CASE WHEN id IN (1, 2) THEN COALESCE(status, 'x') END, TRIM(status), id BETWEEN 1 AND 2 FROM orders",
	"INSERT INTO p (b) SELECT status FROM orders",
	"SELECT o.id, v.b FROM orders AS o LEFT JOIN v ON o.id = v.a AND v.b <> 'x' WHERE o.amount > 1",
	"INSERT INTO sink SELECT o.id, o.amount, v.b FROM orders o, v WHERE o.id = v.a",
}

// FuzzPlan checks that planning (and EXPLAIN) never panics on any
// statement the parser accepts; errors are fine.
func FuzzPlan(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		// A hang is a failure too: report the input instead of stalling.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				panic(fmt.Sprintf("planning %q did not finish in 5s", text))
			}
		}()
		stmt, err := parser.Parse(text)
		if err != nil {
			return
		}
		env := newEnv()
		for _, d := range fuzzDDL {
			if _, err := env.exec(d, false); err != nil {
				t.Fatalf("ddl: %v", err)
			}
		}
		switch stmt.(type) {
		case *ast.Insert, *ast.Query, *ast.Explain, *ast.StatementSet:
		default:
			return
		}
		for _, dot := range []bool{false, true} {
			if _, err := env.exec(text, dot); err != nil && strings.Contains(err.Error(), "internal planner error") {
				t.Fatalf("%q: %v", text, err)
			}
		}
	})
}

func TestFuzzSeeds(t *testing.T) {
	env := newEnv()
	for _, d := range fuzzDDL {
		if _, err := env.exec(d, false); err != nil {
			t.Fatalf("ddl: %v", err)
		}
	}
	for _, s := range fuzzSeeds {
		if _, err := env.exec(s, false); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}
