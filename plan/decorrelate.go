package plan

import (
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Decorrelation of a subquery that aggregates (GROUP BY, aggregates,
// DISTINCT, HAVING) and reads the outer row in its WHERE, as Calcite's
// RelDecorrelator and Flink's SubQueryDecorrelator do it: each
// correlation must be an equality outer_expr = column of the subquery's
// FROM; the subquery then runs uncorrelated, grouped also by those
// columns and selecting them after its own items, and the join compares
// them with the outer expressions. For one outer row, its groups are the
// groups of the rows whose columns equal its values, so grouping by the
// columns too yields them for every outer row at once.

// decorrelated is an aggregating subquery made uncorrelated: right is
// its plan, whose first items are the subquery's own select items and
// then one field per correlation column; outer are the outer
// expressions (over the outer row) those columns must equal.
type decorrelated struct {
	right  Node
	items  int
	outer  []Expr
	scalar bool // an aggregate without GROUP BY: one row per outer row
	// distinctItems: grouped by a value generator's columns and by
	// exactly its select items (valuegen.go), the rows are distinct on
	// the columns an IN compares.
	distinctItems bool
	// nullSafe: the correlation columns are a value generator's whose
	// conditions may hold for a NULL outer value (OR, CASE, IS NULL):
	// the outer row joins them IS NOT DISTINCT FROM.
	nullSafe bool
}

// decorrelateAggregate decorrelates sel against the outer row sc names.
// ok is false when sel is not of this shape at all (not aggregating, not
// correlated through its WHERE); err refuses a shape it does not
// decorrelate, naming the subquery. keepItems false drops the select
// items (for EXISTS, which reads none).
func (b *binder) decorrelateAggregate(sel *ast.Select, sc *scope, keepItems bool) (d decorrelated, ok bool, err error) {
	if sel.From == nil || sel.Where == nil || !(sel.Distinct || len(sel.GroupBy) > 0 || sel.Having != nil || b.selectsAgg(sel)) {
		return d, false, nil
	}
	refuse := func(why string) error {
		return sql.Errorf(sql.TableException, "sqlrun does not decorrelate the subquery (%s): %s", ast.FormatQuery(sel), why)
	}
	if len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Offset != nil {
		return d, true, refuse("a correlated subquery with ORDER BY, LIMIT or OFFSET is not supported yet")
	}
	if b.hasAgg(sel.Where) {
		return d, false, nil
	}
	if vsel, vg, nullSafe, ok := b.valueGenerated(sel, sc, b.vgInput); ok {
		d.nullSafe = nullSafe
		saved := b.ctes
		b.ctes = map[string]Node{vgName: vg}
		for k, v := range saved {
			b.ctes[k] = v
		}
		defer func() { b.ctes = saved }()
		sel = vsel
		d.distinctItems = !sel.Distinct && sel.Having == nil && len(sel.GroupBy) == len(sel.Items)
		for i, g := range sel.GroupBy {
			d.distinctItems = d.distinctItems && !sel.Items[i].Star && sqlText(g) == sqlText(sel.Items[i].Expr)
		}
	}
	local, inner, outer, ok, err := b.correlation(sel, sc, refuse)
	if !ok || err != nil {
		return d, ok, err
	}
	d.outer = outer
	if len(inner) == 0 {
		return d, false, nil
	}
	d.scalar = len(sel.GroupBy) == 0 && !sel.Distinct && b.selectsAgg(sel)
	if d.scalar && sel.Having != nil {
		return d, true, refuse("HAVING without GROUP BY in a correlated subquery is not supported yet")
	}
	n := *sel
	n.Where = astAnd(local)
	n.Items = nil
	if keepItems {
		n.Items = append(n.Items, sel.Items...)
		for _, it := range sel.Items {
			if it.Star {
				return d, true, refuse("SELECT * in an aggregating subquery")
			}
		}
	}
	d.items = len(n.Items)
	n.GroupBy = append([]ast.Expr(nil), sel.GroupBy...)
	for _, c := range inner {
		n.Items = append(n.Items, ast.SelectItem{Expr: c})
		if len(sel.GroupBy) > 0 || d.scalar || sel.Having != nil {
			dup := false
			for _, g := range n.GroupBy {
				dup = dup || sameGroupColumn(g, c, sel.From)
			}
			if !dup {
				n.GroupBy = append(n.GroupBy, c)
			}
		}
	}
	if d.scalar && !keepItems {
		return d, true, nil // EXISTS over one row: the caller needs no plan
	}
	r, err := b.bindQuery(&n)
	if err != nil {
		return d, true, refuse("it reads the outer query outside equalities of its WHERE, or is invalid: " + err.Error())
	}
	d.right = r
	return d, true, nil
}

// joinScalarAggregate left-joins input (nl fields) with a decorrelated
// aggregate without GROUP BY (one item) on its correlation, and returns
// the join projected to input's fields and the subquery's value (at nl).
// An outer row without a group reads the aggregate of no rows: NULL,
// but COUNT's 0 (the COUNT bug), which RelDecorrelator writes as
// CASE(IS NULL(key), 0, count) over the left join.
func (b *binder) joinScalarAggregate(input Node, sel *ast.Select, d decorrelated) (Node, error) {
	return b.joinScalarAggregateItems(input, sel, d, 1)
}

// joinScalarAggregateItems is joinScalarAggregate for the first n items
// of sel, each one field after input's.
func (b *binder) joinScalarAggregateItems(input Node, sel *ast.Select, d decorrelated, n int) (Node, error) {
	empties := make([]string, n)
	overNone := make([]Expr, n) // an item's value over no rows, where not NULL or 0
	for i := 0; i < n; i++ {
		empty, ok := b.emptyAggregate(sel.Items[i].Expr)
		if !ok {
			v, known := valueOverNoRows(d.right, i)
			if !known {
				return nil, sql.Errorf(sql.TableException, "sqlrun does not decorrelate the subquery (%s): its value over no rows is not known to be NULL or COUNT's 0", ast.FormatQuery(sel))
			}
			empty, overNone[i] = "expr", v
		}
		empties[i] = empty
	}
	nl := len(input.Names())
	rt := d.right.Types()
	names := uniquify(append(append([]string(nil), input.Names()...), d.right.Names()...))
	types := append(append([]sql.DataType(nil), input.Types()...), nullableAll(rt)...)
	var conds []Expr
	for k, o := range d.outer {
		op := ast.OpEq
		if d.nullSafe {
			op = ast.OpIsNotDistinct
		}
		eq, err := bindBinary(&ast.Binary{Op: op}, o, &InputRef{Index: nl + d.items + k, T: types[nl+d.items+k]})
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
	}
	j := &LogicalJoin{base: row(names, types, input, d.right), Cond: and(conds), JoinType: ast.LeftJoin}
	exprs := identity(input.Types())
	pn := append([]string(nil), input.Names()...)
	for i := 0; i < n; i++ {
		var v Expr = &InputRef{Index: nl + i, T: types[nl+i]}
		if empties[i] == "expr" {
			// An expression over the aggregates (COUNT(*) + 1,
			// COALESCE(MAX(e), 0)): over no rows, the expression of
			// COUNT's 0 and the others' NULL, for an outer row without
			// a group (no key: a group's key is never NULL under =).
			key := &InputRef{Index: nl + d.items, T: types[nl+d.items]}
			if d.nullSafe {
				return nil, sql.Errorf(sql.TableException, "sqlrun does not decorrelate the subquery (%s): its value over no rows is not known to be NULL or COUNT's 0", ast.FormatQuery(sel))
			}
			v = &Call{Op: "CASE", Args: []Expr{
				&Call{Op: "IS NULL", Args: []Expr{key}, T: sql.Boolean().NotNull()}, overNone[i], v},
				T: types[nl+i]}
		}
		if empties[i] == "count" {
			zero := &Literal{Value: int64(0), T: sql.BigInt().NotNull()}
			// An outer row without a group: no key. A key that may be
			// NULL in a group (joined IS NOT DISTINCT FROM) cannot
			// tell, the count itself can: never NULL in a group.
			var key Expr = &InputRef{Index: nl + d.items, T: types[nl+d.items]}
			if d.nullSafe || len(d.outer) == 0 {
				key = v
			}
			v = &Call{Op: "CASE", Args: []Expr{
				&Call{Op: "IS NULL", Args: []Expr{key}, T: sql.Boolean().NotNull()}, zero, v},
				T: rt[i]}
		}
		exprs = append(exprs, v)
		pn = append(pn, names[nl+i])
	}
	return &LogicalProject{base: row(pn, exprTypes(exprs), j), Exprs: exprs}, nil
}

// valueOverNoRows is the value of item i of right, a decorrelated
// aggregate without GROUP BY (a projection of its aggregate calls over
// the aggregate grouped by the correlation columns), over no rows: its
// expression with COUNT's 0 and NULL for every other call, as Calcite's
// AdjustProjectForCountAggregateRule computes it over the left join.
// known is false for another plan shape.
func valueOverNoRows(right Node, i int) (Expr, bool) {
	p, ok := right.(*LogicalProject)
	if !ok || i >= len(p.Exprs) {
		return nil, false
	}
	agg, ok := p.input().(*LogicalAggregate)
	if !ok || agg.Sets != nil {
		return nil, false
	}
	below := make([]Expr, len(agg.Names()))
	for k := range agg.Group {
		below[k] = &InputRef{Index: k, T: agg.Types()[k]} // never read by the item: not over no rows
	}
	for k, a := range agg.Aggs {
		f := len(agg.Group) + k
		switch {
		case a.Func == "COUNT" && !a.Filtered:
			below[f] = &Literal{Value: int64(0), T: a.T}
		case strings.HasPrefix(a.Func, "COUNT"):
			return nil, false
		default:
			below[f] = &Literal{T: a.T.WithNullable(true)}
		}
	}
	read := map[int]bool{}
	refs(p.Exprs[i], read)
	for f := range read {
		if f < len(agg.Group) {
			return nil, false // reads a key: not an aggregate's value
		}
	}
	return inline(p.Exprs[i], below), true
}

// emptyAggregate is what a select item of an aggregate without GROUP BY
// is over no rows: "count" for COUNT (0), "null" for another aggregate
// and null-propagating arithmetic over them; ok false for anything else.
func (b *binder) emptyAggregate(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.FuncCall:
		if x.Over != nil || !b.isAggName(x.Name) {
			return "", false
		}
		if strings.EqualFold(x.Name, "COUNT") {
			return "count", true
		}
		if isGroupingFunc(x.Name) {
			return "", false
		}
		return "null", true
	case *ast.Binary:
		switch x.Op {
		case ast.OpAdd, ast.OpSub, ast.OpMul, ast.OpDiv:
			l, lok := b.emptyAggregate(x.L)
			r, rok := b.emptyAggregate(x.R)
			if lok && l == "null" || rok && r == "null" {
				return "null", true
			}
		}
	case *ast.Cast:
		if k, ok := b.emptyAggregate(x.X); ok && k == "null" {
			return k, true
		}
	}
	return "", false
}

func nullableAll(ts []sql.DataType) []sql.DataType {
	out := make([]sql.DataType, len(ts))
	for i, t := range ts {
		out[i] = t.WithNullable(true)
	}
	return out
}

// astConjuncts splits an AST condition at its top-level ANDs.
func astConjuncts(e ast.Expr) []ast.Expr {
	if x, ok := e.(*ast.Binary); ok && x.Op == ast.OpAnd {
		return append(astConjuncts(x.L), astConjuncts(x.R)...)
	}
	return []ast.Expr{e}
}

func astAnd(es []ast.Expr) ast.Expr {
	var out ast.Expr
	for _, e := range es {
		if out == nil {
			out = e
		} else {
			out = &ast.Binary{Op: ast.OpAnd, L: out, R: e}
		}
	}
	return out
}

// sqlText is a node's SQL text, as the AST prints it.
func sqlText(n interface{ String() string }) string { return n.String() }

// sameGroupColumn reports a GROUP BY expression that is the correlation
// column c already: the same text, or, over one table, the same column
// with and without its qualifier (GROUP BY f beside r.f), which
// RelDecorrelator adds to the group once
// (SemiAntiJoinTest.testExistsWithCorrelated_AggInSubQuery:
// groupBy=[d, e, f], where sqlrun grouped by f twice).
func sameGroupColumn(g, c ast.Expr, from ast.TableExpr) bool {
	if sqlText(g) == sqlText(c) {
		return true
	}
	t, ok := from.(*ast.TableRef)
	gc, ok1 := g.(*ast.ColumnRef)
	cc, ok2 := c.(*ast.ColumnRef)
	if !ok || !ok1 || !ok2 || gc.Name != cc.Name {
		return false
	}
	self := func(q string) bool {
		return q == "" || q == t.Alias || (t.Alias == "" && q == t.Name.Table)
	}
	return self(gc.Qualifier) && self(cc.Qualifier)
}

// joinDecorrelated is bindSubqueryJoin's [NOT] IN / [NOT] EXISTS over a
// decorrelated aggregating subquery. Grouped (GROUP BY, DISTINCT), it is
// the semi / anti join on the IN's value and the correlation columns
// (SemiAntiJoinTest.testInWithCorrelated_AggInSubQuery1:
// where=[((b = EXPR$0) AND (c = f))] over GroupAggregate(groupBy=[f])).
// An aggregate without GROUP BY is one row for every outer row, the
// aggregate of its rows (NULL, or COUNT's 0, over none): EXISTS is TRUE
// and NOT EXISTS FALSE, x IN (it) is x = value and x NOT IN (it) NOT(x =
// value), over the left join joinScalarAggregate builds; a grouped
// decorrelation there would drop or keep the rows without a group
// wrongly (the COUNT bug).
func (b *binder) joinDecorrelated(input Node, sc *scope, e, inX ast.Expr, not bool, sel *ast.Select, d decorrelated) (Node, error) {
	nl := len(input.Names())
	var outers []Expr // the IN's operand: one value, or a row's fields
	if inX != nil {
		x, err := b.bindExpr(inX, sc, nil)
		if err != nil {
			return nil, err
		}
		outers = []Expr{x}
		if c, ok := x.(*Call); ok && c.Op == "ROW" {
			outers = c.Args
		}
		if len(outers) != d.items {
			return nil, inArityErr(e)
		}
	}
	if d.scalar && len(outers) > 1 {
		return nil, sql.Errorf(sql.TableException, "sqlrun does not decorrelate the subquery (%s): a row compared with a correlated aggregate without GROUP BY is not supported yet", ast.FormatQuery(sel))
	}
	if d.scalar {
		if inX == nil {
			if !not {
				return input, nil
			}
			f := &Literal{Value: false, T: sql.Boolean().NotNull()}
			return &LogicalFilter{base: sameRow(input), Cond: f}, nil
		}
		x := outers[0]
		j, err := b.joinScalarAggregate(input, sel, d)
		if err != nil {
			return nil, err
		}
		c, err := bindBinary(&ast.Binary{Node: e.(*ast.In).Node, Op: ast.OpEq}, x, &InputRef{Index: nl, T: j.Types()[nl]})
		if err != nil {
			return nil, err
		}
		if not {
			c = &Call{Op: "NOT", Args: []Expr{c}, T: c.Type()}
		}
		f := &LogicalFilter{base: sameRow(j), Cond: c}
		return &LogicalProject{base: row(input.Names(), input.Types(), f), Exprs: identity(input.Types())}, nil
	}
	rt := d.right.Types()
	var conds []Expr
	for i, x := range outers {
		v := &InputRef{Index: nl + i, T: rt[i]}
		eq, err := bindBinary(&ast.Binary{Node: e.(*ast.In).Node, Op: ast.OpEq}, x, v)
		if err != nil {
			return nil, err
		}
		if not {
			// NOT IN's null-aware condition, as bindSubqueryJoin's.
			isNull := func(e Expr) Expr { return &Call{Op: "IS NULL", Args: []Expr{e}, T: sql.Boolean().NotNull()} }
			eq = &Call{Op: "OR", Args: []Expr{isNull(x), isNull(v), eq}, T: sql.Boolean().NotNull()}
		}
		conds = append(conds, eq)
	}
	for k, o := range d.outer {
		op := ast.OpEq
		if d.nullSafe {
			op = ast.OpIsNotDistinct
		}
		eq, err := bindBinary(&ast.Binary{Op: op}, o, &InputRef{Index: nl + d.items + k, T: rt[d.items+k]})
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
	}
	if d.distinctItems && !not && inX != nil {
		// Calcite's SubQueryRemoveRule (rewriteIn) over the value
		// generator's decorrelation: an inner join with the distinct
		// rows, on the correlation and then the IN's values, projected
		// back to the outer row (IntervalJoinTest.testFallbackToRegularJoin:
		// where=[((b = b0) AND (rowtime = rowtime0) AND (a = a0))]).
		in := len(outers)
		conds = append(conds[in:], conds[:in]...)
		names := uniquify(append(append([]string(nil), input.Names()...), d.right.Names()...))
		types := append(append([]sql.DataType(nil), input.Types()...), d.right.Types()...)
		j := &LogicalJoin{base: row(names, types, input, d.right), Cond: and(conds), JoinType: ast.InnerJoin}
		return &LogicalProject{base: row(input.Names(), input.Types(), j), Exprs: identity(input.Types())}, nil
	}
	kind := semiJoin
	if not {
		kind = antiJoin
	}
	return &LogicalJoin{base: row(input.Names(), input.Types(), input, d.right), Cond: and(conds), JoinType: kind}, nil
}

// correlation splits the WHERE of sel, a subquery correlated with the
// outer row sc names, into its local conjuncts (over its FROM only) and
// its correlations, each an equality of an outer expression (outer, over
// sc) and a column of its FROM (inner). ok is false when the WHERE reads
// no outer column (or not as SQL allows: the subquery's own error then
// stands); err refuses a correlation of another shape.
func (b *binder) correlation(sel *ast.Select, sc *scope, refuse func(string) error) (local, inner []ast.Expr, outer []Expr, ok bool, err error) {
	_, rs, err := b.bindFrom(sel.From)
	if err != nil {
		return nil, nil, nil, false, nil
	}
	for _, c := range astConjuncts(sel.Where) {
		if _, err := b.bindExpr(c, rs, nil); err == nil {
			local = append(local, c)
			continue
		}
		eq, isEq := c.(*ast.Binary)
		if !isEq || eq.Op != ast.OpEq {
			if _, err := b.bindExpr(c, &scope{cols: append(append([]column(nil), sc.cols...), rs.cols...), innerFrom: len(sc.cols)}, nil); err != nil {
				return nil, nil, nil, false, nil // not a correlation: the subquery's own error
			}
			return nil, nil, nil, true, refuse("its correlation " + sqlText(c) + " is not an equality of an outer expression and a column of its FROM")
		}
		var in, out ast.Expr
		for _, p := range [][2]ast.Expr{{eq.L, eq.R}, {eq.R, eq.L}} {
			if _, isCol := p[0].(*ast.ColumnRef); !isCol {
				continue
			}
			if _, err := b.bindExpr(p[0], rs, nil); err != nil {
				continue
			}
			if _, err := b.bindExpr(p[1], sc, nil); err == nil {
				in, out = p[0], p[1]
				break
			}
		}
		if in == nil {
			return nil, nil, nil, true, refuse("its correlation " + sqlText(c) + " is not an equality of an outer expression and a column of its FROM")
		}
		o, err := b.bindExpr(out, sc, nil)
		if err != nil {
			return nil, nil, nil, true, err
		}
		inner = append(inner, in)
		outer = append(outer, o)
	}
	return local, inner, outer, len(inner) > 0, nil
}

// valueGeneratorIn decorrelates a1 IN (SELECT a2 + T1.a1 FROM ...): an
// IN whose subquery reads the outer row only in its values, as Calcite's
// SubQueryRemoveRule (rewriteIn, Logic TRUE: an inner join with the
// distinct values, through a Correlate) and RelDecorrelator make it. The
// values' outer columns come from a value generator, the distinct
// outer columns (decorrelateInputWithValueGenerator), cross-joined with
// the subquery's FROM; the values and those columns are made distinct
// and inner-joined with the outer row on the IN's equality and on the
// columns. When the IN's operand is one of the columns, Flink's
// JoinConditionEqualityTransferRule and the predicate push-down leave
// the operand's equality with the value in the value generator's join
// (BroadcastJoinHintTest.testJoinHintWithJoinHintInCorrelateAndWithProject:
// NestedLoopJoin(where=[=(a1, +(a2, a1))]) below the distinct
// HashAggregate(groupBy=[EXPR$0, a1]), the outer join on =(a1, a10)).
// For an outer row, the rows it joins are those whose columns equal its
// own and whose value equals its operand: at most one after the
// DISTINCT, and one exactly when some row of the FROM gives a value
// equal to the operand, which is IN's TRUE. ok is false for another
// shape. right is the subquery's FROM, values its values over the
// outer row (nl fields) and right's.
func valueGeneratorIn(input, right Node, values []Expr, operand Expr, names []string) (Node, bool) {
	nl := len(input.Names())
	if len(values) != 1 {
		return nil, false
	}
	op, isRef := operand.(*InputRef)
	if !isRef || op.Index >= nl {
		return nil, false
	}
	read := map[int]bool{}
	refs(values[0], read)
	var cols []int
	for f := range read {
		if f < nl {
			cols = append(cols, f)
		}
	}
	if len(cols) == 0 {
		return nil, false
	}
	sort.Ints(cols)
	// The value generator: the distinct outer columns.
	var vgExprs []Expr
	var vgNames []string
	for _, c := range cols {
		vgExprs = append(vgExprs, &InputRef{Index: c, T: input.Types()[c]})
		vgNames = append(vgNames, input.Names()[c])
	}
	vg := distinct(&LogicalProject{base: row(vgNames, exprTypes(vgExprs), input), Exprs: vgExprs})
	// The subquery's FROM cross-joined with it: right's fields, then the
	// columns.
	nr := len(right.Names())
	toCross := map[int]int{}
	for i := 0; i < nr; i++ {
		toCross[nl+i] = i
	}
	for k, c := range cols {
		toCross[c] = nr + k
	}
	value := remap(values[0], toCross)
	crossNames := uniquify(append(append([]string(nil), right.Names()...), vgNames...))
	crossTypes := append(append([]sql.DataType(nil), right.Types()...), vg.Types()...)
	var crossCond Expr = &Literal{Value: true, T: sql.Boolean().NotNull()}
	transferred := false
	for k, c := range cols {
		if c == op.Index {
			// The operand's equality with the value, moved to the
			// columns' side: (column = value).
			eq, err := bindBinary(&ast.Binary{Op: ast.OpEq}, &InputRef{Index: nr + k, T: crossTypes[nr+k]}, value)
			if err != nil {
				return nil, false
			}
			crossCond, transferred = eq, true
		}
	}
	cross := &LogicalJoin{base: row(crossNames, crossTypes, right, vg), Cond: crossCond, JoinType: ast.InnerJoin}
	// The value and the columns, distinct.
	pExprs := []Expr{value}
	pNames := []string{names[0]}
	for k := range cols {
		pExprs = append(pExprs, &InputRef{Index: nr + k, T: crossTypes[nr+k]})
		pNames = append(pNames, vgNames[k])
	}
	agg := distinct(&LogicalProject{base: row(uniquify(pNames), exprTypes(pExprs), cross), Exprs: pExprs})
	// The outer join: the operand with the value (unless moved), the
	// columns with theirs.
	var conds []Expr
	if !transferred {
		eq, err := bindBinary(&ast.Binary{Op: ast.OpEq}, operand, &InputRef{Index: nl, T: agg.Types()[0]})
		if err != nil {
			return nil, false
		}
		conds = append(conds, eq)
	}
	for k, c := range cols {
		eq, err := bindBinary(&ast.Binary{Op: ast.OpEq}, &InputRef{Index: c, T: input.Types()[c]}, &InputRef{Index: nl + 1 + k, T: agg.Types()[1+k]})
		if err != nil {
			return nil, false
		}
		conds = append(conds, eq)
	}
	jNames := uniquify(append(append([]string(nil), input.Names()...), agg.Names()...))
	jTypes := append(append([]sql.DataType(nil), input.Types()...), agg.Types()...)
	j := &LogicalJoin{base: row(jNames, jTypes, input, agg), Cond: and(conds), JoinType: ast.InnerJoin}
	return &LogicalProject{base: row(input.Names(), input.Types(), j), Exprs: identity(input.Types())}, true
}
