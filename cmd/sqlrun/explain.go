package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlrun/sqlrun/exec"
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
	if err := exec.ExplainScript(context.Background(), s, file, string(text), asDOT, stdout, stderr); err != nil {
		var se *exec.StatementError
		if errors.As(err, &se) {
			reportStatementError(stderr, se)
		}
		return exitFailed
	}
	return exitOK
}
