package parser

import (
	"fmt"

	tast "github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/sqlrun/sqlrun/sql"
)

// Limits on one statement, so that hostile or runaway generated SQL fails
// with a clear error instead of exhausting the stack, the memory or the
// CPU (issue 25, finding 8). Flink has no such limits of its own: Calcite
// throws StackOverflowError on deep enough nesting. The figures are far
// above hand-written and typical generated SQL.
const (
	// MaxStatementBytes is the longest statement accepted.
	MaxStatementBytes = 4 << 20
	// MaxNestingDepth bounds nesting: parentheses, and expression trees
	// (a chain of 5000 ORs or '+' is 5000 levels deep).
	MaxNestingDepth = 2000
	// MaxSetOperations bounds UNION/INTERSECT/EXCEPT operators in one
	// statement.
	MaxSetOperations = 1000
)

// checkSize refuses a statement longer than MaxStatementBytes.
func checkSize(text string) error {
	if len(text) > MaxStatementBytes {
		return sql.Errorf(sql.SqlParserException,
			"SQL parse failed. The statement is %d bytes long; sqlrun accepts statements of at most %d bytes.", len(text), MaxStatementBytes)
	}
	return nil
}

// checkNesting refuses, in one pass over the tokens and before anything
// recursive runs over them, parentheses nested deeper than
// MaxNestingDepth and runs of more than MaxNestingDepth operators (+, -,
// *, /, %, ||, AND, OR, NOT) between two commas or parentheses: each
// operator is a level of the expression tree, so `1+1+...` with a million
// terms is refused here without building the tree. checkTree measures the
// tree itself afterwards.
func (p *parser) checkNesting() {
	runs := []int{0} // operators since the last ',' or '(' per open '('
	for _, t := range p.toks {
		switch {
		case t.isOp("("):
			runs = append(runs, 0)
			if len(runs) > MaxNestingDepth+1 {
				p.failMsg(sql.SqlParserException, t, "SQL parse failed. Parentheses are nested more than %d levels deep.", MaxNestingDepth)
				return
			}
		case t.isOp(")"):
			if len(runs) > 1 {
				runs = runs[:len(runs)-1]
			}
		case t.isOp(","):
			runs[len(runs)-1] = 0
		case t.isOp("+"), t.isOp("-"), t.isOp("*"), t.isOp("/"), t.isOp("%"), t.isOp("||"),
			t.is("AND"), t.is("OR"), t.is("NOT"):
			runs[len(runs)-1]++
			if runs[len(runs)-1] > MaxNestingDepth {
				p.failMsg(sql.SqlParserException, t, "SQL parse failed. The expression is nested more than %d levels deep (each operator adds a level).", MaxNestingDepth)
				return
			}
		}
	}
}

// limitVisitor measures a TiDB tree without recursing deeper than
// MaxNestingDepth+1 itself: deeper subtrees are skipped.
type limitVisitor struct {
	depth, maxDepth int
	setOps          int
}

func (v *limitVisitor) Enter(n tast.Node) (tast.Node, bool) {
	v.depth++
	v.maxDepth = max(v.maxDepth, v.depth)
	if l, ok := n.(*tast.SetOprSelectList); ok && len(l.Selects) > 1 {
		v.setOps += len(l.Selects) - 1
	}
	return n, v.depth > MaxNestingDepth
}

func (v *limitVisitor) Leave(n tast.Node) (tast.Node, bool) {
	v.depth--
	return n, true
}

// checkTree refuses a query or expression nested deeper than
// MaxNestingDepth or with more than MaxSetOperations set operators, before
// it is converted (conversion, planning and evaluation recurse over it); it
// reports whether the tree passed.
func (c *conv) checkTree(n tast.Node) bool {
	var v limitVisitor
	n.Accept(&v)
	var msg string
	switch {
	case v.maxDepth > MaxNestingDepth:
		msg = fmt.Sprintf("SQL parse failed. The expression is nested more than %d levels deep (operators, function calls and subqueries each add a level).", MaxNestingDepth)
	case v.setOps > MaxSetOperations:
		msg = fmt.Sprintf("SQL parse failed. The statement has %d set operations (UNION, INTERSECT, EXCEPT); sqlrun accepts at most %d.", v.setOps, MaxSetOperations)
	default:
		return true
	}
	c.p.failMsg(sql.SqlParserException, c.p.toks[0], "%s", msg)
	return false
}
