package badinput

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/sqlrun/sqlrun/connectors/all"
	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// fuzzCatalog is the small catalog every FuzzSession input runs against:
// a keyed changelog source, an append source, a keyed JDBC sink (never
// opened: nothing here runs), a Paimon table and a print sink.
var fuzzCatalog = []string{
	"CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), status STRING, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D')",
	"CREATE TABLE gen (a INT, b STRING, d DATE) WITH ('connector' = 'datagen', 'number-of-rows' = '3')",
	"CREATE TABLE sink (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:1/d', 'table-name' = 't')",
	"CREATE TABLE lake (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'paimon', 'path' = '/nonexistent/sqlrun-fuzz/lake')",
	"CREATE TABLE p (a INT, b STRING) WITH ('connector' = 'print')",
	"SET 'sql-client.execution.result-mode' = 'tableau'",
}

var fuzzSessionSeeds = []string{
	"INSERT INTO sink SELECT id, amount, status FROM orders",
	"INSERT INTO lake SELECT id, status FROM orders /*+ OPTIONS('changelog-mode'='I') */",
	"SELECT status, SUM(amount), COUNT(DISTINCT id) FROM orders GROUP BY status HAVING COUNT(*) > 1",
	"EXPLAIN CHANGELOG_MODE SELECT a, b FROM gen WHERE b LIKE 'x%' UNION ALL SELECT a, b FROM gen",
	"INSERT INTO p SELECT CAST(id AS INT), UPPER(status) FROM orders",
	"SELECT CAST('2024-13-45' AS DATE), TRY_CAST('x' AS INT), DATE '2024-01-01' + INTERVAL '1' DAY",
	"CREATE TABLE t2 (a INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'blackhole')",
	"ALTER TABLE orders SET ('rows' = '[[1')",
	"DESCRIBE orders",
	"SHOW CREATE TABLE lake",
	"SET 'table.exec.state.ttl' = '1 h'",
	"BEGIN STATEMENT SET; INSERT INTO p SELECT a, b FROM gen; INSERT INTO sink SELECT id, amount, status FROM orders; END",
	"SELECT * FROM lake$snapshots",
	"INSERT OVERWRITE lake SELECT id, status FROM orders",
	"SELECT id, ROW_NUMBER() OVER (PARTITION BY status ORDER BY ts) FROM orders",
}

// FuzzSession feeds any statement the parser accepts to a real session
// (exec.Session with the real planner and compiler) holding a small
// catalog: DDL, SET, SHOW and DESCRIBE execute in memory; INSERT, SELECT,
// statement sets and EXPLAIN are planned and compiled to a job graph but
// never run, so nothing touches the disk or the network. Errors are fine;
// a panic or a hang is a failure.
func FuzzSession(f *testing.F) {
	for _, s := range fuzzSessionSeeds {
		f.Add(s)
	}
	for _, s := range corpusScripts(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := parser.ParseScript(text)
		if err != nil {
			return
		}
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("session on %q did not finish in 10s", text))
			}
		}()
		s := exec.NewSession()
		s.Planner = exec.PlanPlanner{}
		ctx := context.Background()
		for _, d := range fuzzCatalog {
			st, err := parser.Parse(d)
			if err != nil {
				t.Fatalf("catalog %q: %v", d, err)
			}
			if err := s.Execute(ctx, st, io.Discard); err != nil {
				t.Fatalf("catalog %q: %v", d, err)
			}
		}
		for _, st := range stmts {
			runFuzzStatement(t, s, st)
		}
	})
}

// runFuzzStatement executes or plans one statement, whichever touches
// nothing outside the process, and fails on a recovered panic (the
// parser, planner and compiler turn theirs into "internal ... error").
func runFuzzStatement(t *testing.T, s *exec.Session, st ast.Statement) {
	ctx := context.Background()
	env := s.Env()
	var errs []error
	switch x := st.(type) {
	case *ast.Insert, *ast.StatementSet:
		_, err := s.Planner.CompileInsert(ctx, env, st, "fuzz")
		_, err2 := s.Planner.PhysicalPlan(ctx, env, st)
		errs = append(errs, err, err2)
	case *ast.Query:
		_, err := s.Planner.CompileQuery(ctx, env, x, "fuzz")
		_, err2 := s.Planner.PhysicalPlan(ctx, env, st)
		errs = append(errs, err, err2)
	case *ast.Explain:
		_, err := s.Planner.Explain(ctx, env, x)
		errs = append(errs, err)
	case *ast.CreateTable, *ast.DropTable, *ast.CreateView, *ast.DropView,
		*ast.AlterTableSet, *ast.AlterTableReset, *ast.AlterTableRename,
		*ast.AlterTableAddColumns, *ast.AlterTableModifyColumns, *ast.AlterTableDropColumns,
		*ast.AlterTableRenameColumn, *ast.CreateDatabase, *ast.DropDatabase, *ast.UseDatabase,
		*ast.UseCatalog, *ast.Show, *ast.Describe, *ast.Set, *ast.Reset:
		var b strings.Builder
		errs = append(errs, s.Execute(ctx, st, &b))
		for _, sig := range crashSigns {
			if strings.Contains(b.String(), sig) {
				t.Fatalf("%s: output has %q:\n%s", st.SQL(), sig, b.String())
			}
		}
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		for _, sig := range crashSigns {
			if strings.Contains(err.Error(), sig) {
				t.Fatalf("%s: %v", st.SQL(), err)
			}
		}
	}
}

// corpusScripts returns the input of every run directive in the corpus,
// so the fuzzer starts from the bad inputs already known.
func corpusScripts(t testing.TB) []string {
	files, err := filepath.Glob("../testdata/badinput/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur []string
		in := false
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case !in && (l == "run" || strings.HasPrefix(l, "run ")):
				in, cur = true, nil
			case in && l == "----":
				in = false
				out = append(out, strings.Join(cur, "\n"))
			case in:
				cur = append(cur, l)
			}
		}
	}
	return out
}

// TestFuzzSessionSeeds runs the seeds once as a plain test, so `go test`
// covers the fuzz body without -fuzz.
func TestFuzzSessionSeeds(t *testing.T) {
	s := exec.NewSession()
	s.Planner = exec.PlanPlanner{}
	scripts := append(append([]string{}, fuzzCatalog...), fuzzSessionSeeds...)
	if len(corpusScripts(t)) < 100 {
		t.Fatalf("only %d corpus scripts found", len(corpusScripts(t)))
	}
	for _, d := range append(scripts, corpusScripts(t)...) {
		stmts, err := parser.ParseScript(d)
		if err != nil {
			continue // the corpus has scripts that do not parse, on purpose
		}
		for _, st := range stmts {
			runFuzzStatement(t, s, st)
		}
	}
}
