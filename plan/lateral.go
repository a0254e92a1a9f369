package plan

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// LATERAL (SELECT ...) in FROM: a derived table that reads the columns of
// the FROM items before it. Calcite plans it as a Correlate, which
// Flink's decorrelation (RelDecorrelator in FlinkDecorrelateProgram)
// turns into a join: the subquery's correlated conditions are pulled up
// out of it (pullcorrelation.go) into the join's condition, the
// subquery runs once, uncorrelated, selecting the columns they read. A
// comma or CROSS JOIN LATERAL is an inner join, LEFT JOIN LATERAL ... ON
// c a left join on the pulled conditions and c.
//
// A correlated ORDER BY ... LIMIT n whose correlation is equalities of
// its columns with outer expressions is a Top-N per correlation value:
// ROW_NUMBER() OVER (PARTITION BY the columns ORDER BY ...) <= n, joined
// on them. Over (SELECT DISTINCT keys FROM t) with the subquery reading t
// on exactly those keys, the join is dropped and the Top-N is the plan,
// as Flink's CorrelateSortToRankRule makes it (RankTest
// .testCorrelateSortToRank): t's rows ranked per key are the rows of
// the keys the DISTINCT has. As in Flink, the rows of a NULL key are
// kept too (its partition is ranked like any other), where the
// correlated form would find none (NULL = NULL is not TRUE).

// bindLateralJoin binds x, whose right side sr is a LATERAL derived table.
func (b *binder) bindLateralJoin(x *ast.Join, sr *ast.SubqueryRef) (Node, *scope, error) {
	plain := func() (Node, *scope, error) {
		n := *sr
		n.Lateral = false
		j := *x
		j.Right = &n
		return b.bindJoin(&j)
	}
	refuse := func(why string) error {
		return sql.Errorf(sql.TableException, "sqlrun does not decorrelate the LATERAL subquery (%s): %s", ast.FormatQuery(sr.Query), why)
	}
	switch x.Kind {
	case ast.RightJoin, ast.FullJoin:
		return nil, nil, refuse("a LATERAL subquery can only be the right side of a comma, CROSS JOIN, INNER JOIN or LEFT JOIN")
	}
	restore := b.noCorrelation("a derived table")
	_, berr := b.bindQuery(sr.Query)
	restore()
	if berr == nil {
		return plain()
	}
	left, ls, err := b.bindFrom(x.Left)
	if err != nil {
		return nil, nil, err
	}
	q := inlineCTEs(sr.Query)
	sel, ok := q.(*ast.Select)
	if !ok || sel.From == nil {
		return nil, nil, berr
	}
	if n, sc, ok, err := b.correlateSortToRank(x, sr, sel, ls); err != nil || ok {
		return n, sc, err
	}
	inner, pulled, err := b.pullSelect(sel, ls)
	if err != nil {
		return nil, nil, err
	}
	if len(pulled) == 0 {
		return nil, nil, refuse("it reads the outer row outside its WHERE: " + berr.Error())
	}
	alias := sr.Alias
	if alias == "" {
		alias = "EXPR$lateral"
	}
	if inner.Limit == nil && inner.Offset == nil && len(inner.OrderBy) == 0 && !inner.Distinct &&
		len(inner.GroupBy) == 0 && inner.Having == nil && b.selectsAgg(inner) {
		return b.lateralScalarAggregate(x, sr, inner, pulled, left, ls, alias, refuse)
	}
	topN := inner.Limit != nil && len(inner.OrderBy) > 0
	if topN {
		if inner.Offset != nil || inner.Distinct || len(inner.GroupBy) > 0 || inner.Having != nil || b.selectsAgg(inner) {
			return nil, nil, refuse("a correlated ORDER BY ... LIMIT is planned only as a Top-N of a plain SELECT without OFFSET")
		}
		var err error
		if inner, err = b.expandStars(inner); err != nil {
			return nil, nil, err
		}
		for _, c := range pulled {
			if !b.isColumnEquality(c, inner.From) {
				return nil, nil, refuse("its correlation " + sqlText(c) + " is not an equality of an outer expression and a column of its FROM")
			}
		}
		n := *inner
		n.OrderBy, n.Limit = nil, nil
		inner = &n
	}
	exposed, names, conds, read, err := b.exposeCorrelationCols(inner, pulled, alias, sr.Columns)
	if err != nil {
		return nil, nil, err
	}
	own := len(names) - (len(exposed.Items) - len(inner.Items)) // the subquery's own columns
	var query ast.QueryExpr = exposed
	if topN {
		query = topNQuery(exposed, names, read, sel.OrderBy, *sel.Limit)
	}
	n := *sr
	n.Lateral, n.Query, n.Alias = false, query, alias
	n.Columns = nil
	if len(sr.Columns) > 0 {
		n.Columns = names
	}
	j := *x
	j.Right = &n
	if j.Kind == ast.CrossJoin || j.Kind == "" {
		j.Kind = ast.InnerJoin
	}
	on := conds
	for _, c := range whereConjuncts(x.On) {
		if c == nil {
			continue
		}
		if lit, ok := c.(*ast.Literal); ok && lit.Kind == ast.LitBool && lit.Value == true {
			continue // ON TRUE adds nothing to the pulled conditions
		}
		on = append(on, c)
	}
	j.On = astAnd(on)
	node, sc, err := b.bindJoin(&j)
	if err != nil {
		return nil, nil, refuse("it reads the outer row outside its WHERE, or is invalid: " + err.Error())
	}
	extra := len(names) - own
	if extra == 0 {
		return node, sc, nil
	}
	// The columns the correlation read are the join's, not the
	// subquery's: projected away.
	keep := len(node.Names()) - extra
	exprs := identity(node.Types()[:keep])
	p := &LogicalProject{base: row(node.Names()[:keep], node.Types()[:keep], node), Exprs: exprs}
	ns := *sc
	ns.cols = sc.cols[:keep]
	return p, &ns, nil
}

// isColumnEquality reports whether c is column = outer expression (either
// way round), the column one of from's.
func (b *binder) isColumnEquality(c ast.Expr, from ast.TableExpr) bool {
	eq, ok := c.(*ast.Binary)
	if !ok || eq.Op != ast.OpEq {
		return false
	}
	restore := b.noCorrelation("a derived table")
	_, fs, err := b.bindFrom(from)
	restore()
	if err != nil {
		return false
	}
	for _, p := range [][2]ast.Expr{{eq.L, eq.R}, {eq.R, eq.L}} {
		if r, ok := p[0].(*ast.ColumnRef); ok {
			if _, err := fs.resolve(r); err == nil && !readsScope(p[1], fs) {
				return true
			}
		}
	}
	return false
}

// topNQuery is sel (whose columns are names) limited to n rows per value
// of the columns part of its FROM (its correlation's) in the order of
// orderBy: ROW_NUMBER() OVER (PARTITION BY part ORDER BY orderBy) <= n
// over sel, and sel's columns.
func topNQuery(sel *ast.Select, names []string, part []ast.Expr, orderBy []ast.OrderItem, n int64) ast.QueryExpr {
	rn := &ast.FuncCall{Name: "ROW_NUMBER", Over: &ast.WindowSpec{PartitionBy: part, OrderBy: orderBy}}
	ranked := *sel
	ranked.Items = append(append([]ast.SelectItem(nil), sel.Items...), ast.SelectItem{Expr: rn, Alias: "$rn"})
	for i := range ranked.Items[:len(sel.Items)] {
		ranked.Items[i].Alias = names[i]
	}
	const a = "EXPR$ranked"
	var items []ast.SelectItem
	for _, nm := range names {
		items = append(items, ast.SelectItem{Expr: &ast.ColumnRef{Qualifier: a, Name: nm}})
	}
	return &ast.Select{
		Items: items,
		From:  &ast.SubqueryRef{Query: &ranked, Alias: a},
		Where: &ast.Binary{Op: ast.OpLe, L: &ast.ColumnRef{Qualifier: a, Name: "$rn"}, R: intLiteral(n)},
	}
}

func intLiteral(n int64) *ast.Literal {
	if n == int64(int32(n)) {
		return &ast.Literal{Kind: ast.LitInt, Raw: strconv.FormatInt(n, 10), Value: int32(n), Type: sql.Int().NotNull()}
	}
	return &ast.Literal{Kind: ast.LitInt, Raw: strconv.FormatInt(n, 10), Value: n, Type: sql.BigInt().NotNull()}
}

// correlateSortToRank is Flink's CorrelateSortToRankRule: x joins (SELECT
// DISTINCT k1, ... FROM t) (or GROUP BY the keys it selects) with
// LATERAL (SELECT ... FROM t WHERE c1 = k1 AND ... ORDER BY ... LIMIT n),
// each ci a column of t and every key compared once: the rows are t's
// ranked per (c1, ...), the keys named as the left's. ok is false for
// another shape.
func (b *binder) correlateSortToRank(x *ast.Join, sr *ast.SubqueryRef, sel *ast.Select, ls *scope) (Node, *scope, bool, error) {
	if x.Kind != ast.CrossJoin && x.Kind != ast.InnerJoin && x.Kind != "" {
		return nil, nil, false, nil
	}
	if x.On != nil || len(sr.Columns) > 0 || sel.Limit == nil || sel.Offset != nil || len(sel.OrderBy) == 0 ||
		sel.Distinct || len(sel.GroupBy) > 0 || sel.Having != nil || b.selectsAgg(sel) {
		return nil, nil, false, nil
	}
	lref, ok := x.Left.(*ast.SubqueryRef)
	if !ok || lref.Lateral || len(lref.Columns) > 0 {
		return nil, nil, false, nil
	}
	left, ok := lref.Query.(*ast.Select)
	if !ok || left.Where != nil || left.Having != nil || len(left.OrderBy) > 0 || left.Limit != nil || left.Offset != nil {
		return nil, nil, false, nil
	}
	lt, ok1 := left.From.(*ast.TableRef)
	rt, ok2 := sel.From.(*ast.TableRef)
	if !ok1 || !ok2 || lt.Name.String() != rt.Name.String() || len(lt.Hints) > 0 || len(rt.Hints) > 0 || lt.SystemTimeAsOf != nil || rt.SystemTimeAsOf != nil {
		return nil, nil, false, nil
	}
	restore := b.noCorrelation("a derived table")
	defer restore()
	_, ts, err := b.bindFrom(lt)
	if err != nil {
		return nil, nil, false, nil
	}
	// The left's keys: plain columns of t, distinct.
	var keys []int // t's column of each left column
	for _, it := range left.Items {
		r, ok := it.Expr.(*ast.ColumnRef)
		if it.Star || !ok {
			return nil, nil, false, nil
		}
		k, err := ts.resolve(r)
		if err != nil {
			return nil, nil, false, nil
		}
		keys = append(keys, k)
	}
	if !left.Distinct {
		if len(left.GroupBy) != len(keys) || b.selectsAgg(left) {
			return nil, nil, false, nil
		}
		for _, g := range left.GroupBy {
			r, ok := g.(*ast.ColumnRef)
			if !ok {
				return nil, nil, false, nil
			}
			k, err := ts.resolve(r)
			found := false
			for _, kk := range keys {
				found = found || (err == nil && kk == k)
			}
			if !found {
				return nil, nil, false, nil
			}
		}
	} else if len(left.GroupBy) > 0 {
		return nil, nil, false, nil
	}
	// The subquery's WHERE: exactly column = left key, once per key.
	_, rs, err := b.bindFrom(rt)
	if err != nil {
		return nil, nil, false, nil
	}
	partition := make([]ast.Expr, len(keys))
	for _, c := range whereConjuncts(sel.Where) {
		eq, ok := c.(*ast.Binary)
		if !ok || eq.Op != ast.OpEq {
			return nil, nil, false, nil
		}
		matched := false
		for _, p := range [][2]ast.Expr{{eq.L, eq.R}, {eq.R, eq.L}} {
			ir, ok1 := p[0].(*ast.ColumnRef)
			or, ok2 := p[1].(*ast.ColumnRef)
			if !ok1 || !ok2 {
				continue
			}
			ik, err := rs.resolve(ir)
			if err != nil {
				continue
			}
			if _, err := rs.resolve(or); err == nil {
				continue // both the subquery's: not a correlation
			}
			ok, err := ls.resolve(or)
			if err != nil || ik != keys[ok] || partition[ok] != nil {
				continue
			}
			partition[ok] = ir
			matched = true
			break
		}
		if !matched {
			return nil, nil, false, nil
		}
	}
	for _, p := range partition {
		if p == nil {
			return nil, nil, false, nil
		}
	}
	// SELECT <keys AS the left's names>, <items> FROM (SELECT ...,
	// ROW_NUMBER() OVER (PARTITION BY keys ORDER BY ...) FROM t) WHERE
	// rank <= n.
	ranked := &ast.Select{From: rt}
	var names []string
	for i, it := range left.Items {
		nm := it.Alias
		if nm == "" {
			nm = it.Expr.(*ast.ColumnRef).Name
		}
		names = append(names, nm)
		ranked.Items = append(ranked.Items, ast.SelectItem{Expr: partition[i], Alias: "$key" + strconv.Itoa(i)})
	}
	var own []string
	for i, it := range sel.Items {
		if it.Star {
			return nil, nil, false, nil
		}
		nm := it.Alias
		if nm == "" {
			if r, ok := it.Expr.(*ast.ColumnRef); ok {
				nm = r.Name
			} else {
				nm = "EXPR$" + strconv.Itoa(i)
			}
		}
		own = append(own, nm)
		ranked.Items = append(ranked.Items, ast.SelectItem{Expr: it.Expr, Alias: "$item" + strconv.Itoa(i)})
	}
	ranked.Items = append(ranked.Items, ast.SelectItem{
		Expr:  &ast.FuncCall{Name: "ROW_NUMBER", Over: &ast.WindowSpec{PartitionBy: partition, OrderBy: sel.OrderBy}},
		Alias: "$rn"})
	const a = "EXPR$ranked"
	top := &ast.Select{
		From:  &ast.SubqueryRef{Query: ranked, Alias: a},
		Where: &ast.Binary{Op: ast.OpLe, L: &ast.ColumnRef{Qualifier: a, Name: "$rn"}, R: intLiteral(*sel.Limit)},
	}
	for i, nm := range names {
		top.Items = append(top.Items, ast.SelectItem{Expr: &ast.ColumnRef{Qualifier: a, Name: "$key" + strconv.Itoa(i)}, Alias: nm})
	}
	for i, nm := range own {
		top.Items = append(top.Items, ast.SelectItem{Expr: &ast.ColumnRef{Qualifier: a, Name: "$item" + strconv.Itoa(i)}, Alias: nm})
	}
	node, err := b.bindQuery(top)
	if err != nil {
		return nil, nil, false, nil
	}
	// The left's columns under its alias, the subquery's under its own.
	sc := &scope{}
	for i, nm := range node.Names() {
		q := lref.Alias
		if i >= len(names) {
			q = sr.Alias
		}
		sc.cols = append(sc.cols, column{qualifier: q, name: nm, t: node.Types()[i]})
	}
	return node, sc, true, nil
}

// expandStars is sel with its * and t.* items spelled as the columns of
// its FROM they stand for (qualified, named as the columns).
func (b *binder) expandStars(sel *ast.Select) (*ast.Select, error) {
	star := false
	for _, it := range sel.Items {
		star = star || it.Star
	}
	if !star {
		return sel, nil
	}
	restore := b.noCorrelation("a derived table")
	_, fs, err := b.bindFrom(sel.From)
	restore()
	if err != nil {
		return nil, err
	}
	n := *sel
	n.Items = nil
	for _, it := range sel.Items {
		if !it.Star {
			n.Items = append(n.Items, it)
			continue
		}
		for _, c := range fs.cols {
			if c.name == "" || it.StarQualifier != "" && it.StarQualifier != c.qualifier {
				continue
			}
			n.Items = append(n.Items, ast.SelectItem{Node: it.Node, Expr: &ast.ColumnRef{Node: it.Node, Qualifier: c.qualifier, Name: c.name}})
		}
	}
	return &n, nil
}

// lateralScalarAggregate binds x, whose right side sr is a LATERAL
// aggregate without GROUP BY (inner, its correlated conditions pulled):
// one row for every outer row, the aggregate of the rows it correlates
// with, and of none (NULL, COUNT's 0) for an outer row that has none.
// The aggregate runs grouped by its correlation columns (decorrelate.go,
// or Calcite's value generator, valuegen.go), and the outer rows LEFT
// join it, an outer row without a group reading the values over no rows
// (joinScalarAggregateItems), as Calcite's RelDecorrelator does for a
// scalar subquery (RemoveCorrelationForScalarAggregateRule's LEFT join,
// AdjustProjectForCountAggregateRule's CASE for COUNT). Flink 1.20
// decorrelates a LATERAL aggregate's Correlate, an INNER one, into an
// inner join with the grouped aggregate, which loses the outer rows
// without a group (the COUNT bug); sqlrun keeps them, as the SQL
// standard and DuckDB do (docs/differences.md). The ON of a comma,
// CROSS or INNER JOIN filters the joined rows; a LEFT JOIN keeps every
// outer row already, so only ON TRUE is taken there.
func (b *binder) lateralScalarAggregate(x *ast.Join, sr *ast.SubqueryRef, inner *ast.Select, pulled []ast.Expr,
	left Node, ls *scope, alias string, refuse func(string) error) (Node, *scope, error) {
	var rest []ast.Expr
	for _, c := range whereConjuncts(x.On) {
		if lit, ok := c.(*ast.Literal); ok && lit.Kind == ast.LitBool && lit.Value == true {
			continue
		}
		rest = append(rest, c)
	}
	if x.Kind == ast.LeftJoin && len(rest) > 0 {
		return nil, nil, refuse("a LEFT JOIN LATERAL over an aggregate without GROUP BY is taken only ON TRUE")
	}
	for _, it := range inner.Items {
		if it.Star {
			return nil, nil, refuse("SELECT * in an aggregating subquery")
		}
	}
	sel := *inner
	sel.Where = astAnd(append(whereConjuncts(inner.Where), pulled...))
	b.vgInput = left
	d, ok, err := b.decorrelateAggregate(&sel, ls, true)
	b.vgInput = nil
	if err != nil {
		return nil, nil, err
	}
	if !ok || !d.scalar {
		return nil, nil, refuse("it reads the outer row outside its WHERE")
	}
	j, err := b.joinScalarAggregateItems(left, &sel, d, d.items)
	if err != nil {
		return nil, nil, err
	}
	if len(sr.Columns) > 0 && len(sr.Columns) != d.items {
		own := d.right.Names()[:d.items]
		return nil, nil, validationErr(sr.At, 1, "List of column aliases must have same degree as table; table has %d columns %s, whereas alias list has %d columns",
			d.items, "('"+strings.Join(own, "', '")+"')", len(sr.Columns))
	}
	nl := len(left.Names())
	own := make([]string, d.items)
	for i, it := range sel.Items {
		switch {
		case i < len(sr.Columns):
			own[i] = sr.Columns[i]
		case it.Alias != "":
			own[i] = it.Alias
		default:
			if r, ok := it.Expr.(*ast.ColumnRef); ok {
				own[i] = r.Name
			} else {
				own[i] = "EXPR$" + strconv.Itoa(i)
			}
		}
	}
	names := uniquify(append(append([]string(nil), left.Names()...), own...))
	p := j.(*LogicalProject)
	var node Node = &LogicalProject{base: row(names, p.Types(), p.Inputs()[0]), Exprs: p.Exprs}
	sc := copyScope(ls)
	for i, nm := range own {
		sc.cols = append(sc.cols, column{qualifier: alias, name: nm, t: node.Types()[nl+i]})
	}
	if len(rest) > 0 {
		c, err := b.bindExpr(astAnd(rest), sc, nil)
		if err != nil {
			return nil, nil, err
		}
		node = &LogicalFilter{base: sameRow(node), Cond: c}
	}
	return node, sc, nil
}
