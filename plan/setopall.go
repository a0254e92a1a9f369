package plan

import (
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// INTERSECT ALL and EXCEPT ALL as Flink 1.20 plans them. The AST has
// Calcite's LogicalIntersect / LogicalMinus (all=[true]); Flink's
// RewriteIntersectAllRule and RewriteMinusAllRule (LOGICAL_OPT_RULES, the
// RewriteSetOpAll rule here) make of them a UNION ALL of both inputs with
// marker columns, an aggregate per row value that counts each side's
// copies, a filter and a projection of how many copies the result keeps,
// and a Correlate of the built-in ReplicateRows table function
// (SetOpRewriteUtil.replicateRows) that emits that many copies: the
// multiset semantics of the SQL standard (a row m times on the left and n
// times on the right is min(m, n) times in INTERSECT ALL, max(m - n, 0)
// times in EXCEPT ALL; NULLs are equal, as GROUP BY groups them).

// LogicalSetOpAll is Calcite's LogicalIntersect or LogicalMinus with
// all=[true] over its two inputs (cast to the common row type).
type LogicalSetOpAll struct {
	base
	Kind ast.SetOpKind // ast.Intersect or ast.Except
}

func (n *LogicalSetOpAll) Name() string {
	if n.Kind == ast.Intersect {
		return "LogicalIntersect"
	}
	return "LogicalMinus"
}

func (n *LogicalSetOpAll) WithInputs(in ...Node) Node { c := *n; c.base = n.with(in); return &c }

func (n *LogicalSetOpAll) describe(Format) string { return n.Name() + "(all=[true])" }

// replicateFunc is ReplicateRows as the Correlate's correlate=[table(...)]
// names it.
const replicateFunc = "ReplicateRows"

// rewriteSetOpAll is the RewriteSetOpAll rule.
func rewriteSetOpAll(_ *binder, n Node) (Node, error) {
	s, ok := n.(*LogicalSetOpAll)
	if !ok {
		return nil, nil
	}
	l, r := s.inputs[0], s.inputs[1]
	nf := len(s.names)
	boolT := sql.Boolean()
	bigint := sql.BigInt()
	ref := func(in Node, i int) Expr { return &InputRef{Index: i, T: in.Types()[i]} }
	marked := func(in Node, names []string, extra []Expr) Node {
		exprs := make([]Expr, 0, nf+len(extra))
		types := make([]sql.DataType, 0, nf+len(extra))
		for i := 0; i < nf; i++ {
			exprs = append(exprs, ref(in, i))
			types = append(types, in.Types()[i])
		}
		for _, e := range extra {
			exprs = append(exprs, e)
			types = append(types, e.Type())
		}
		all := append(append([]string(nil), in.Names()...), names...)
		return &LogicalProject{base: row(all, types, in), Exprs: exprs}
	}
	group := make([]int, nf)
	for i := range group {
		group[i] = i
	}
	var counted Node // the count of copies, then the row's fields
	if s.Kind == ast.Intersect {
		markers := []string{"vcol_left_marker", "vcol_right_marker"}
		tru := &Literal{Value: true, T: boolT.NotNull()}
		null := &Literal{Value: nil, T: boolT}
		lm := marked(l, markers, []Expr{tru, null})
		rm := marked(r, markers, []Expr{null, tru})
		u := &LogicalUnion{base: row(lm.Names(), append(append([]sql.DataType(nil), s.types...), boolT, boolT), lm, rm), All: true}
		cntT := bigint.NotNull()
		agg := &LogicalAggregate{base: row(append(append([]string(nil), s.names...), "vcol_left_cnt", "vcol_right_cnt"),
			append(append([]sql.DataType(nil), s.types...), cntT, cntT), u),
			Group: group, Aggs: []AggCall{
				{Func: "COUNT", Args: []int{nf}, Name: "vcol_left_cnt", T: cntT},
				{Func: "COUNT", Args: []int{nf + 1}, Name: "vcol_right_cnt", T: cntT},
			}}
		left, right := ref(agg, nf), ref(agg, nf+1)
		one := &Literal{Value: int32(1), T: sql.Int().NotNull()}
		ge := func(e Expr) Expr { return &Call{Op: ">=", Args: []Expr{e, one}, T: boolT.NotNull()} }
		f := &LogicalFilter{base: sameRow(agg), Cond: and([]Expr{ge(left), ge(right)})}
		// Flink's IF is nullable whatever its operands (the Correlate's
		// rowType prints BIGINT $f0).
		minCount := &Call{Op: "IF", Args: []Expr{&Call{Op: ">", Args: []Expr{left, right}, T: boolT.NotNull()}, right, left}, T: bigint}
		exprs := []Expr{minCount}
		types := []sql.DataType{bigint}
		for i := 0; i < nf; i++ {
			exprs = append(exprs, ref(agg, i))
			types = append(types, s.types[i])
		}
		counted = &LogicalProject{base: row(append([]string{"$f0"}, s.names...), types, f), Exprs: exprs}
	} else {
		// CAST(1 AS BIGINT) of RelBuilder.literal(1L): a literal of the
		// nullable BIGINT type, which Calcite's digest types (1:BIGINT).
		markers := []string{"vcol_marker"}
		lm := marked(l, markers, []Expr{&Literal{Value: int64(1), T: bigint}})
		rm := marked(r, markers, []Expr{&Literal{Value: int64(-1), T: bigint}})
		u := &LogicalUnion{base: row(lm.Names(), append(append([]sql.DataType(nil), s.types...), bigint), lm, rm), All: true}
		agg := &LogicalAggregate{base: row(append(append([]string(nil), s.names...), "sum_vcol_marker"),
			append(append([]sql.DataType(nil), s.types...), bigint), u),
			Group: group, Aggs: []AggCall{{Func: "SUM", Args: []int{nf}, Name: "sum_vcol_marker", T: bigint}}}
		sum := ref(agg, nf)
		f := &LogicalFilter{base: sameRow(agg), Cond: &Call{Op: ">", Args: []Expr{sum, &Literal{Value: int32(0), T: sql.Int().NotNull()}}, T: boolT}}
		exprs := []Expr{sum}
		types := []sql.DataType{bigint}
		for i := 0; i < nf; i++ {
			exprs = append(exprs, ref(agg, i))
			types = append(types, s.types[i])
		}
		counted = &LogicalProject{base: row(append([]string{"sum_vcol_marker"}, s.names...), types, f), Exprs: exprs}
	}
	// The Correlate of ReplicateRows(count, fields...), then the
	// replicated fields under the set operation's names.
	args := make([]Expr, nf+1)
	argText := make([]string, nf+1)
	for i := range args {
		args[i] = ref(counted, i)
		argText[i] = FormatExpr(args[i], nil, FormatAST)
	}
	scan := &TableFunctionScan{base: row(s.names, s.types), Args: args, Replicate: true,
		Invocation: replicateFunc + "(" + strings.Join(argText, ", ") + ")",
		Call:       replicateFunc + "(" + strings.Join(counted.Names(), ",") + ")"}
	names := uniquify(append(append([]string(nil), counted.Names()...), s.names...))
	types := append(append([]sql.DataType(nil), counted.Types()...), s.types...)
	required := make([]int, nf+1)
	for i := range required {
		required[i] = i
	}
	c := &LogicalTableCorrelate{base: row(names, types, counted, scan), JoinType: ast.InnerJoin, Required: required}
	out := make([]Expr, nf)
	for i := range out {
		out[i] = ref(c, nf+1+i)
	}
	return &LogicalProject{base: row(s.names, s.types, c), Exprs: out}, nil
}
