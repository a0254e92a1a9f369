package plan

import (
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
)

// The planner's scalar expressions live in package expr, below both plan
// and exec/compile; these aliases keep plan's own names for them.
type (
	// Expr is expr.Expr, a typed scalar expression (Calcite's RexNode).
	Expr = expr.Expr
	// InputRef is expr.InputRef, a field of the input row ($i).
	InputRef = expr.InputRef
	// Literal is expr.Literal, a constant.
	Literal = expr.Literal
	// Call is expr.Call, an operator or function applied to arguments.
	Call = expr.Call
	// Format is expr.Format, one of EXPLAIN's three expression forms.
	Format = expr.Format
	// Eval is expr.Eval, a compiled expression.
	Eval = expr.Eval
	// CalcFunc is expr.CalcFunc, a Calc's compiled row function.
	CalcFunc = expr.CalcFunc
)

// The three expression formats of EXPLAIN.
const (
	FormatAST    = expr.FormatAST
	FormatPrefix = expr.FormatPrefix
	FormatInfix  = expr.FormatInfix
)

// FormatExpr prints e (expr.String).
func FormatExpr(e Expr, names []string, f Format) string { return expr.String(e, names, f) }

// Compile turns e into a closure over row values (expr.Compile).
func Compile(e Expr) (Eval, error) { return expr.Compile(e) }

// CompileCalc builds a Calc's row function (expr.CompileCalc).
func CompileCalc(projects []Expr, cond Expr) (CalcFunc, error) {
	return expr.CompileCalc(projects, cond)
}

func aggResultType(name string, at sql.DataType) sql.DataType  { return expr.AggResultType(name, at) }
func toInt(v any) (int64, bool)                                { return expr.ToInt(v) }
func negate(v any) (any, error)                                { return expr.Negate(v) }
func arithmeticType(op string, a, b sql.DataType) sql.DataType { return expr.ArithmeticType(op, a, b) }
func commonType(a, b sql.DataType) (sql.DataType, bool)        { return expr.CommonType(a, b) }
func comparable(a, b sql.DataType) bool                        { return expr.Comparable(a, b) }
func supportsImplicitCast(from, to sql.DataType) bool          { return expr.SupportsImplicitCast(from, to) }
func calciteType(t sql.DataType) string                        { return expr.CalciteType(t) }
func castExpr(e Expr, t sql.DataType) Expr                     { return expr.CastExpr(e, t) }
func refs(e Expr, into map[int]bool)                           { expr.Refs(e, into) }
func refsInOrder(e Expr, seen map[int]bool, into *[]int)       { expr.RefsInOrder(e, seen, into) }
func remap(e Expr, m map[int]int) Expr                         { return expr.Remap(e, m) }
func inline(e Expr, below []Expr) Expr                         { return expr.Inline(e, below) }
func conjuncts(e Expr) []Expr                                  { return expr.Conjuncts(e) }
func and(es []Expr) Expr                                       { return expr.And(es) }

// simplifyFilter is expr.SimplifyFilter: comparisons into SEARCH/Sarg.
func simplifyFilter(e Expr) Expr { return expr.SimplifyFilter(e) }

// fold is expr.Reduce: calls over constants evaluated once.
func fold(e Expr) Expr { return expr.Reduce(e) }

// simplifyCoalesce is expr.SimplifyCoalesce.
func simplifyCoalesce(e Expr) Expr { return expr.SimplifyCoalesce(e) }

// substituteConstants is expr.SubstituteConstants: a Calc's projections
// with the fields its condition fixes replaced by constants, reduced.
func substituteConstants(exprs []Expr, cond Expr) []Expr {
	return expr.SubstituteConstants(exprs, cond)
}

// fieldRefs is the set of input fields a Calc reads, in its projection or
// its condition.
func (c *LogicalCalc) fieldRefs() map[int]bool {
	used := map[int]bool{}
	for _, e := range c.Exprs {
		refs(e, used)
	}
	if c.Cond != nil {
		refs(c.Cond, used)
	}
	return used
}
