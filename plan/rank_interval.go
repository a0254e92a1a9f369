package plan

import "github.com/sqlrun/sqlrun/sql"

// nonNegative reports a field of a physical node whose values are all ≥ 0
// (or NULL), as far as Flink's FlinkRelMdFilteredColumnInterval sees it
// for the SUM monotonicity of FlinkRelMdModifiedMonotonicity: a literal,
// a CASE whose results all are, a field a Calc's condition bounds below
// by a non-negative literal (c >= 0, c > 0). A SUM of such values only
// grows, so a Top-N ordered by it DESC can take UpdateFastStrategy
// (RankTest.testTopNOrderBySumWithCond, testTopNOrderBySumWithCaseWhen).
// IF(...) and other calls are not looked into, as Flink does not
// (testTopNOrderBySumWithIf stays RetractStrategy).
func nonNegative(n Node, f int) bool {
	switch x := n.(type) {
	case *Exchange:
		return nonNegative(x.input(), f)
	case *Calc:
		return calcExprNonNegative(x, x.Exprs[f])
	}
	return false
}

func calcExprNonNegative(c *Calc, e Expr) bool {
	switch x := e.(type) {
	case *Literal:
		return literalNonNegative(x)
	case *InputRef:
		if c.Cond != nil && boundedBelowByNonNegative(c.Cond, x.Index) {
			return true
		}
		return nonNegative(c.input(), x.Index)
	case *Call:
		if x.Op != "CASE" || len(x.Args) < 3 {
			return false
		}
		// CASE(cond1, v1, cond2, v2, ..., else): the values.
		for i := 1; i < len(x.Args); i += 2 {
			if !calcExprNonNegative(c, x.Args[i]) {
				return false
			}
		}
		return calcExprNonNegative(c, x.Args[len(x.Args)-1])
	}
	return false
}

func literalNonNegative(l *Literal) bool {
	switch v := l.Value.(type) {
	case nil:
		return true
	case float32:
		return v >= 0
	case float64:
		return v >= 0
	case interface{ Sign() int }:
		return v.Sign() >= 0
	}
	n, ok := toInt(l.Value)
	return ok && n >= 0
}

// boundedBelowByNonNegative: a conjunct field >= lit or field > lit with
// lit ≥ 0.
func boundedBelowByNonNegative(cond Expr, field int) bool {
	for _, c := range conjuncts(cond) {
		call, ok := c.(*Call)
		if !ok || len(call.Args) != 2 || (call.Op != ">=" && call.Op != ">") {
			continue
		}
		ref, ok := call.Args[0].(*InputRef)
		lit, isLit := call.Args[1].(*Literal)
		if ok && isLit && ref.Index == field && lit.Value != nil && literalNonNegative(lit) {
			return true
		}
	}
	return false
}

// insertOnlyInput reports an aggregate whose input only inserts: its
// COUNT and its SUM of non-negative values only grow.
func insertOnlyInput(agg *GroupAggregate) bool {
	return modifyKinds(agg.input(), map[Node]sql.ChangelogMode{}).IsInsertOnly()
}

// filteredBounds reports whether the FILTER field g of an aggregate call
// bounds its argument field f at zero: from below (f >= 0, f > 0 with a
// non-negative literal) or from above (f <= 0, f < 0 with a non-positive
// literal), as Flink's FlinkRelMdFilteredColumnInterval narrows a call's
// argument interval by its filter before FlinkRelMdModifiedMonotonicity
// reads it (RankTest.testTopNOrderBySumWithFilterClause and ...2).
func filteredBounds(n Node, f, g int) (nonNeg, nonPos bool) {
	for {
		ex, ok := n.(*Exchange)
		if !ok {
			break
		}
		n = ex.input()
	}
	c, ok := n.(*Calc)
	if !ok {
		return false, false
	}
	ref, ok := c.Exprs[f].(*InputRef)
	if !ok {
		return false, false
	}
	cond := c.Exprs[g]
	if call, ok := cond.(*Call); ok && call.Op == "IS TRUE" {
		cond = call.Args[0]
	}
	nonNeg = boundedBelowByNonNegative(cond, ref.Index)
	for _, x := range conjuncts(cond) {
		call, ok := x.(*Call)
		if !ok || len(call.Args) != 2 || (call.Op != "<=" && call.Op != "<") {
			continue
		}
		r, ok := call.Args[0].(*InputRef)
		lit, isLit := call.Args[1].(*Literal)
		if ok && isLit && r.Index == ref.Index && lit.Value != nil && literalNonPositive(lit) {
			nonPos = true
		}
	}
	return nonNeg, nonPos
}

func literalNonPositive(l *Literal) bool {
	switch v := l.Value.(type) {
	case float32:
		return v <= 0
	case float64:
		return v <= 0
	case interface{ Sign() int }:
		return v.Sign() <= 0
	}
	n, ok := toInt(l.Value)
	return ok && n <= 0
}
