package plan

import (
	"strings"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// bindOverlaps binds (a, b) OVERLAPS (c, d) (FlinkSqlOperatorTable
// .OVERLAPS, Calcite's SqlOverlapsOperator) into what Calcite's
// StandardConvertletTable.convertOverlaps makes of it: each side a
// period (start, end), an interval end meaning start + interval, a single
// value the period (v, v); each period's ends sorted with CASE, and the
// periods overlap when AND(>=(e0, s1), >=(e1, s0)).
func (b *binder) bindOverlaps(x *ast.Binary, rec func(ast.Expr) (Expr, error)) (Expr, error) {
	period := func(e ast.Expr) (Expr, Expr, error) {
		if f, ok := e.(*ast.FuncCall); ok && strings.EqualFold(f.Name, "ROW") && len(f.Args) == 2 {
			s, err := rec(f.Args[0])
			if err != nil {
				return nil, nil, err
			}
			end, err := rec(f.Args[1])
			if err != nil {
				return nil, nil, err
			}
			if isIntervalType(end.Type()) && isDatetime(s.Type()) {
				end, err = bindBinary(&ast.Binary{Node: x.Node, Op: ast.OpAdd}, s, end)
				if err != nil {
					return nil, nil, err
				}
			}
			return s, end, nil
		}
		v, err := rec(e)
		return v, v, err
	}
	r0, r1, err := period(x.L)
	if err != nil {
		return nil, err
	}
	r2, r3, err := period(x.R)
	if err != nil {
		return nil, err
	}
	root := r0.Type().Root
	for _, e := range []Expr{r0, r1, r2, r3} {
		if t := e.Type(); !isDatetime(t) || t.Root != root {
			// SqlOverlapsOperator.checkOperandTypes: both periods of one
			// datetime type.
			return nil, validationErr(x.At, len(x.String()),
				"Cannot apply 'OVERLAPS' to arguments of type '(%s, %s) OVERLAPS (%s, %s)'. Supported form(s): '(<DATETIME>, <DATETIME>) OVERLAPS (<DATETIME>, <DATETIME>)'\n'(<DATETIME>, <DATETIME>) OVERLAPS (<DATETIME>, <INTERVAL>)'\n'(<DATETIME>, <INTERVAL>) OVERLAPS (<DATETIME>, <DATETIME>)'\n'(<DATETIME>, <INTERVAL>) OVERLAPS (<DATETIME>, <INTERVAL>)'",
				expr.CalciteType(r0.Type()), expr.CalciteType(r1.Type()), expr.CalciteType(r2.Type()), expr.CalciteType(r3.Type()))
		}
	}
	cmp := func(op ast.BinaryOp, l, r Expr) (Expr, error) {
		return bindBinary(&ast.Binary{Node: x.Node, Op: op}, l, r)
	}
	sorted := func(a, z Expr) (Expr, Expr, error) {
		swap, err := cmp(ast.OpLe, a, z)
		if err != nil {
			return nil, nil, err
		}
		t, ok := expr.CommonType(a.Type(), z.Type())
		if !ok {
			t = a.Type()
		}
		s := &Call{Op: "CASE", Args: []Expr{swap, a, z}, T: t}
		e := &Call{Op: "CASE", Args: []Expr{swap, z, a}, T: t}
		return s, e, nil
	}
	s0, e0, err := sorted(r0, r1)
	if err != nil {
		return nil, err
	}
	s1, e1, err := sorted(r2, r3)
	if err != nil {
		return nil, err
	}
	a, err := cmp(ast.OpGe, e0, s1)
	if err != nil {
		return nil, err
	}
	z, err := cmp(ast.OpGe, e1, s0)
	if err != nil {
		return nil, err
	}
	return &Call{Op: "AND", Args: []Expr{a, z}, T: sql.Boolean().WithNullable(a.Type().Nullable || z.Type().Nullable)}, nil
}
