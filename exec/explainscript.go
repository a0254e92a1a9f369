package exec

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sqlrun/sqlrun/plan/dot"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// ExplainScript explains a script instead of running it (`sqlrun explain
// [--dot] -f file`): each INSERT, statement set and query is explained as
// Flink's EXPLAIN text or, with asDOT, drawn into one Graphviz document
// (plan/dot) whose edges carry the changelog modes. s is a dry-run session
// (NewDryRunSession): the script's DDL, SET and USE statements run quietly
// against its scratch catalogs, so later statements plan against the
// tables earlier ones create. A failure's error block (FormatError) goes
// to stdout, or with asDOT to errOut, so stdout stays a valid DOT document
// (or empty); the error returned is a *StatementError naming file and
// line, or the script's split error as is.
func ExplainScript(ctx context.Context, s *Session, file, text string, asDOT bool, stdout, errOut io.Writer) error {
	pieces, err := parser.Split(text)
	if err != nil {
		fmt.Fprint(stdout, FormatError(err))
		return err
	}
	explained := 0
	var drawn []dot.Statement
	fail := func(line int, err error) error {
		out := stdout
		if asDOT {
			out = errOut
		}
		fmt.Fprint(out, FormatError(err))
		return &StatementError{File: file, Line: line, Err: err}
	}
	for _, p := range pieces {
		stmt, err := parser.Parse(p.Text)
		if err != nil {
			return fail(p.StartLine, err)
		}
		if asDOT {
			target, planned := dotTarget(stmt)
			switch {
			case !planned:
				err = explainOne(ctx, s, stmt, io.Discard)
			case isCTAS(stmt):
				// The table first, in the overlay; then its INSERT is drawn.
				if err = s.Execute(ctx, stmt, io.Discard); err == nil {
					drawn, err = s.draw(ctx, drawn, target, dotTitle(file, p.StartLine, p.Text))
				}
			default:
				drawn, err = s.draw(ctx, drawn, target, dotTitle(file, p.StartLine, p.Text))
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
	return nil
}

// draw plans target and adds it to the statements --dot draws.
func (s *Session) draw(ctx context.Context, drawn []dot.Statement, target ast.Statement, title string) ([]dot.Statement, error) {
	pl, err := s.Planner.PhysicalPlan(ctx, s.Env(), target)
	if err != nil {
		return drawn, err
	}
	return append(drawn, dot.Statement{Title: title, Plan: pl}), nil
}

func isPlanned(stmt ast.Statement) bool {
	if isCTAS(stmt) {
		return true
	}
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
	case *ast.CreateTable:
		if st.AsQuery != nil {
			return ctasInsert(st), true
		}
	}
	return nil, false
}

// dotTitle names a statement's cluster: where it is and its text on one
// line, secrets masked, shortened.
func dotTitle(file string, line int, text string) string {
	first := strings.Join(strings.Fields(RedactSQL(text)), " ")
	if r := []rune(first); len(r) > 80 {
		first = string(r[:77]) + "..."
	}
	return fmt.Sprintf("%s:%d  %s", filepath.Base(file), line, first)
}

func explainOne(ctx context.Context, s *Session, stmt ast.Statement, out io.Writer) error {
	switch st := stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query:
		return s.Execute(ctx, &ast.Explain{StmtBase: ast.StmtBase{At: stmt.Pos(), Text: "EXPLAIN " + stmt.SQL()}, Stmt: stmt}, out)
	case *ast.Explain:
		return s.Execute(ctx, st, out)
	case *ast.Show, *ast.Describe:
		return nil // listings add nothing to a plan
	case *ast.CreateTable:
		if st.AsQuery != nil {
			// The table is created in the overlay, then its INSERT explained.
			if err := s.Execute(ctx, st, io.Discard); err != nil {
				return err
			}
			ins := ctasInsert(st)
			return s.Execute(ctx, &ast.Explain{StmtBase: ast.StmtBase{At: st.Pos(), Text: "EXPLAIN " + st.SQL()}, Stmt: ins}, out)
		}
	}
	return s.Execute(ctx, stmt, io.Discard)
}
