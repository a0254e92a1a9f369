package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// The parts the differential tests share (TestDiffQuery, diffq_test.go;
// TestDiffWindow, diffwin_test.go): running a query in a session with its
// changelog folded, running queries in DuckDB, and logging refusals.

// runFolded runs query in s and folds its changelog into sorted canonical
// rows (canon spells one row): +I/+U add a row, -U/-D remove one. A query
// the planner or the job's translation refuses returns a *dqRefusal.
func runFolded(ctx context.Context, s *Session, query string, canon func([]any) string) ([]string, error) {
	rows, _, err := runFoldedSchema(ctx, s, query, canon)
	return rows, err
}

// runFoldedSchema is runFolded that also returns the query's schema.
func runFoldedSchema(ctx context.Context, s *Session, query string, canon func([]any) string) (_ []string, _ sql.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	stmt, err := parser.Parse(query)
	if err != nil {
		return nil, sql.Schema{}, err
	}
	aq, ok := stmt.(*ast.Query)
	if !ok {
		return nil, sql.Schema{}, fmt.Errorf("not a query: %T", stmt)
	}
	qctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	qj, err := s.Planner.CompileQuery(qctx, s.Env(), aq, "collect")
	if err != nil {
		return nil, sql.Schema{}, &dqRefusal{err}
	}
	cfg, err := runtime.ConfigFromMap(s.Config.Map())
	if err != nil {
		return nil, sql.Schema{}, err
	}
	job, err := runtime.Start(qctx, qj.Graph, cfg)
	if err != nil {
		// Refused when the job is translated, as Flink's translateToPlan
		// refuses some plans it printed (a HOP size no multiple of its
		// slide): an error, not a wrong row.
		return nil, sql.Schema{}, &dqRefusal{err}
	}
	defer func() {
		job.Cancel()
		<-job.Done()
	}()
	count := map[string]int{}
	for {
		batch, err := qj.Collect.Next(qctx, job)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, sql.Schema{}, fmt.Errorf("runtime: %w", err)
		}
		for _, r := range batch {
			k := canon(r.Values)
			if r.Kind == sql.Insert || r.Kind == sql.UpdateAfter {
				count[k]++
			} else {
				count[k]--
			}
		}
	}
	var out []string
	for k, n := range count {
		if n < 0 {
			return nil, sql.Schema{}, fmt.Errorf("wrong changelog: row %s retracted more often than added", k)
		}
		for ; n > 0; n-- {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, qj.Schema, nil
}

// dqRefusal is a query sqlrun's planner refuses.
type dqRefusal struct{ err error }

func (r *dqRefusal) Error() string { return r.err.Error() }

// runDuckDB runs setup then queries in DuckDB through
// scripts/compat/duckdb-query.mjs; false (and a log line naming test)
// when node or @duckdb/node-api is not installed.
func runDuckDB(t *testing.T, test string, setup, queries []string) ([]dqDuckResult, bool) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Logf("%s: node is not installed (scripts/compat/install.sh): no DuckDB oracle", test)
		return nil, false
	}
	dir, err := filepath.Abs(filepath.Join("..", "scripts", "compat"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Logf("%s: @duckdb/node-api is not installed (scripts/compat/install.sh): no DuckDB oracle", test)
		return nil, false
	}
	in, err := json.Marshal(map[string]any{"setup": setup, "queries": queries})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "queries.json")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "duckdb-query.mjs", file)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb-query.mjs: %v\n%s", err, stderr.String())
	}
	var out []dqDuckResult
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("duckdb-query.mjs output: %v", err)
	}
	if len(out) != len(queries) {
		t.Fatalf("duckdb-query.mjs: %d results for %d queries", len(out), len(queries))
	}
	return out, true
}

// logRefusals logs how often each refusal message came.
func logRefusals(t *testing.T, refusals map[string]int) {
	if len(refusals) == 0 {
		return
	}
	var msgs []string
	for m, c := range refusals {
		msgs = append(msgs, fmt.Sprintf("%4d %s", c, m))
	}
	sort.Strings(msgs)
	t.Logf("refusals:\n%s", strings.Join(msgs, "\n"))
}
