package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlrun/sqlrun/exec"
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
	var dot bool
	fs.StringVar(&file, "f", "", "")
	fs.StringVar(&file, "file", "", "")
	fs.BoolVar(&dot, "dot", false, "")
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
	for _, p := range pieces {
		stmt, err := parser.Parse(p.Text)
		if err == nil && isPlanned(stmt) {
			if explained > 0 {
				fmt.Fprintln(stdout)
			}
			explained++
		}
		if err == nil {
			err = explainOne(ctx, s, stmt, dot, stdout)
		}
		if err != nil {
			fmt.Fprint(stdout, exec.FormatError(err))
			reportStatementError(stderr, &exec.StatementError{File: file, Line: p.StartLine, Err: err})
			return exitFailed
		}
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

func explainOne(ctx context.Context, s *exec.Session, stmt ast.Statement, dot bool, out io.Writer) error {
	switch st := stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query:
		if dot {
			text, err := s.Planner.DOT(ctx, s.Env(), stmt)
			if err != nil {
				return err
			}
			fmt.Fprint(out, text)
			return nil
		}
		return s.Execute(ctx, &ast.Explain{StmtBase: ast.StmtBase{At: stmt.Pos(), Text: "EXPLAIN " + stmt.SQL()}, Stmt: stmt}, out)
	case *ast.Explain:
		return s.Execute(ctx, st, out)
	case *ast.Show, *ast.Describe:
		return nil // listings add nothing to a plan
	}
	return s.Execute(ctx, stmt, io.Discard)
}
