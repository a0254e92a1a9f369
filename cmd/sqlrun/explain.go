package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/plan/dot"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// runExplain is `sqlrun explain [--dot] -f file.sql`: each INSERT,
// statement set and query is explained instead of run, as Flink's EXPLAIN
// text or, with --dot, as a Graphviz graph whose edges carry the changelog
// modes. Nothing changes: the script's DDL, SET and USE statements run
// (quietly) against a scratch copy of the catalog state
// (exec.NewDryRunSession), so later statements plan against the tables
// earlier ones create, and CALL, DELETE, UPDATE and STOP JOB are skipped.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sqlrun explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var file string
	var asDOT bool
	fs.StringVar(&file, "f", "", "")
	fs.StringVar(&file, "file", "", "")
	fs.BoolVar(&asDOT, "dot", false, "")
	fs.Usage = func() { fmt.Fprintln(stderr, "Usage: sqlrun explain [--dot] -f job.sql") }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if file == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	text, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "sqlrun: read script: %v\n", err)
		return exitFailed
	}
	s := exec.NewDryRunSession()
	s.Planner = planner()
	ctx := context.Background()
	pieces, err := parser.Split(string(text))
	if err != nil {
		fmt.Fprint(stdout, exec.FormatError(err))
		return exitFailed
	}
	explained := 0
	var drawn []dot.Statement
	fail := func(line int, err error) int {
		out := stdout
		if asDOT {
			out = stderr // stdout stays a valid DOT document (or empty)
		}
		fmt.Fprint(out, exec.FormatError(err))
		reportStatementError(stderr, &exec.StatementError{File: file, Line: line, Err: err})
		return exitFailed
	}
	for _, p := range pieces {
		stmt, err := parser.Parse(p.Text)
		if err != nil {
			return fail(p.StartLine, err)
		}
		if asDOT {
			target, planned := dotTarget(stmt)
			if !planned {
				err = explainOne(ctx, s, stmt, io.Discard)
			} else {
				var pl *plan.Plan
				if pl, err = s.Planner.PhysicalPlan(ctx, s.Env(), target); err == nil {
					drawn = append(drawn, dot.Statement{Title: dotTitle(file, p.StartLine, p.Text), Plan: pl})
				}
			}
			if err != nil {
				return fail(p.StartLine, err)
			}
			continue
		}
		if isPlanned(stmt) {
			if explained > 0 {
				fmt.Fprintln(stdout)
			}
			explained++
		}
		if err := explainOne(ctx, s, stmt, stdout); err != nil {
			return fail(p.StartLine, err)
		}
	}
	if asDOT {
		fmt.Fprint(stdout, dot.Render(drawn))
	}
	return exitOK
}

func isPlanned(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query, *ast.Explain:
		return true
	}
	return false
}

// dotTarget is the statement --dot draws for stmt: an INSERT, statement
// set or query itself, the statement an EXPLAIN explains; planned is false
// for everything else (DDL, SET, ...), which only sets up the session.
func dotTarget(stmt ast.Statement) (ast.Statement, bool) {
	switch st := stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query:
		return stmt, true
	case *ast.Explain:
		return st.Stmt, true
	}
	return nil, false
}

// dotTitle names a statement's cluster: where it is and its text on one
// line, secrets masked, shortened.
func dotTitle(file string, line int, text string) string {
	first := strings.Join(strings.Fields(exec.RedactSQL(text)), " ")
	if r := []rune(first); len(r) > 80 {
		first = string(r[:77]) + "..."
	}
	return fmt.Sprintf("%s:%d  %s", filepath.Base(file), line, first)
}

func explainOne(ctx context.Context, s *exec.Session, stmt ast.Statement, out io.Writer) error {
	switch st := stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query:
		return s.Execute(ctx, &ast.Explain{StmtBase: ast.StmtBase{At: stmt.Pos(), Text: "EXPLAIN " + stmt.SQL()}, Stmt: stmt}, out)
	case *ast.Explain:
		return s.Execute(ctx, st, out)
	case *ast.Show, *ast.Describe:
		return nil // listings add nothing to a plan
	}
	return s.Execute(ctx, stmt, io.Discard)
}
