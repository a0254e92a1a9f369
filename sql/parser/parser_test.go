package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// TestGolden runs the datadriven files in testdata/parser. Regenerate with
// go test ./sql/parser -run TestGolden -rewrite.
//
//	parse      one statement → ast.Dump, or the error
//	unparse    one query statement → ast.FormatQuery and each item's String
//	split      a script → its pieces with positions
//	complete   a shell buffer → IsComplete
//	script     a script → ParseScript: each statement's kind and position
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "../../testdata/parser", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				st, err := Parse(d.Input)
				if err != nil {
					return formatErr(err)
				}
				checkText(t, d.Input, st)
				return ast.Dump(st)
			case "unparse":
				st, err := Parse(d.Input)
				if err != nil {
					return formatErr(err)
				}
				var q ast.QueryExpr
				switch s := st.(type) {
				case *ast.Query:
					q = s.Body
				case *ast.Insert:
					q = s.Query
				default:
					return fmt.Sprintf("not a query: %T\n", st)
				}
				var b strings.Builder
				b.WriteString(ast.FormatQuery(q) + "\n")
				if sel, ok := q.(*ast.Select); ok {
					for _, it := range sel.Items {
						if it.Expr != nil {
							fmt.Fprintf(&b, "item: %s\n", it.Expr)
						}
					}
				}
				// The unparsed query must parse again to the same text.
				again, err := Parse(ast.FormatQuery(q))
				if err != nil {
					fmt.Fprintf(&b, "re-parse failed: %v\n", err)
				} else if aq, ok := again.(*ast.Query); !ok || ast.FormatQuery(aq.Body) != ast.FormatQuery(q) {
					fmt.Fprintf(&b, "re-parse differs\n")
				}
				return b.String()
			case "split":
				pieces, err := Split(d.Input)
				var b strings.Builder
				for i, p := range pieces {
					fmt.Fprintf(&b, "piece %d @%d:%d terminated=%v\n%s\n", i+1, p.StartLine, p.StartCol, p.Terminated, p.Text)
				}
				if err != nil {
					b.WriteString(formatErr(err))
				}
				if len(pieces) == 0 && err == nil {
					b.WriteString("no statements\n")
				}
				return b.String()
			case "complete":
				return fmt.Sprintf("%v\n", IsComplete(d.Input))
			case "script":
				stmts, err := ParseScript(d.Input)
				var b strings.Builder
				for _, s := range stmts {
					first, _, _ := strings.Cut(s.SQL(), "\n")
					fmt.Fprintf(&b, "%T @%d:%d %s\n", s, s.Pos().Line, s.Pos().Col, first)
				}
				if err != nil {
					b.WriteString(formatErr(err))
				}
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// formatErr prints the error as the shell would (class and message) plus
// the positions the ParseError carries.
func formatErr(err error) string {
	var se *sql.Error
	if !errors.As(err, &se) {
		return fmt.Sprintf("untyped error: %v\n", err)
	}
	class := string(se.Class)
	class = class[strings.LastIndexByte(class, '.')+1:]
	s := fmt.Sprintf("error %s: %s\n", class, se.Msg)
	var pe *ParseError
	if errors.As(err, &pe) && (pe.ScriptLine != pe.Line || pe.ScriptCol != pe.Col) {
		s += fmt.Sprintf("in script at line %d, column %d\n", pe.ScriptLine, pe.ScriptCol)
	}
	if pe != nil && pe.Excerpt() != "" && pe.Token != "" {
		s += pe.Excerpt() + "\n"
	}
	return s
}

// checkText asserts that a statement's Text is the input without the
// surrounding blanks, comments and the final ';'.
func checkText(t *testing.T, input string, st ast.Statement) {
	t.Helper()
	if st.SQL() == "" || !strings.Contains(input, st.SQL()) {
		t.Errorf("statement text %q is not part of the input %q", st.SQL(), input)
	}
	if strings.HasSuffix(st.SQL(), ";") {
		t.Errorf("statement text %q keeps its ';'", st.SQL())
	}
}
