package plan

import (
	"strconv"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The semi and anti joins that IN / EXISTS subqueries in WHERE become
// (Calcite's SubQueryRemoveRule and Flink's FlinkSubQueryRemoveRule plan
// them as LogicalJoin with joinType semi / anti). Their output is the left
// input's row.
const (
	semiJoin ast.JoinKind = "SEMI"
	antiJoin ast.JoinKind = "ANTI"
)

// isSemiAnti reports a join whose output is its left input's row.
func isSemiAnti(k ast.JoinKind) bool { return k == semiJoin || k == antiJoin }

// splitSubqueries takes the top-level conjuncts of a WHERE that are
// [NOT] IN (subquery) or [NOT] EXISTS (subquery) out of it; rest is what
// remains (nil when nothing does).
func splitSubqueries(e ast.Expr) (rest ast.Expr, subs []ast.Expr) {
	e = pushNotToSubqueries(e)
	if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpAnd {
		lr, ls := splitSubqueries(b.L)
		rr, rs := splitSubqueries(b.R)
		subs = append(ls, rs...)
		switch {
		case lr == nil:
			return rr, subs
		case rr == nil:
			return lr, subs
		}
		return &ast.Binary{Node: b.Node, Op: ast.OpAnd, L: lr, R: rr}, subs
	}
	switch x := e.(type) {
	case *ast.In:
		if x.Query != nil {
			return nil, []ast.Expr{e}
		}
	case *ast.Exists:
		return nil, []ast.Expr{e}
	}
	return e, nil
}

// pushNotToSubqueries moves a NOT over [NOT] IN (subquery) / [NOT] EXISTS
// into it, drops NOT(NOT x), and turns NOT(x OR y) into NOT x AND NOT y
// where that exposes such a subquery as a conjunct: Calcite's SqlToRel
// conversion and Flink's FlinkSubQueryRemoveRule see NOT(NOT(a NOT IN
// (...))) as NOT(IN(a, ...)), and NOT(b > 10 OR c LIKE 'abc' OR NOT
// EXISTS (...)) as an EXISTS semi join under b <= 10 AND NOT LIKE
// (SemiAntiJoinTest.testNotInWithUncorrelated_ComplexCondition1,
// testNotExistsWithUncorrelated_ComplexCondition). Each step holds in
// SQL's three-valued logic (NOT NOT x = x; De Morgan), so a WHERE keeps
// the same rows.
func pushNotToSubqueries(e ast.Expr) ast.Expr {
	if ib, ok := e.(*ast.IsBool); ok && !ib.Not && ib.Value != nil && *ib.Value && isSubqueryPredicate(pushNotToSubqueries(ib.X)) {
		// (x IN (subquery)) IS TRUE keeps the rows WHERE x IN
		// (subquery) keeps (SemiAntiJoinTest
		// .testInWithUncorrelated_ComplexCondition2: a semi join).
		return pushNotToSubqueries(ib.X)
	}
	u, ok := e.(*ast.Unary)
	if !ok || u.Op != ast.OpNot {
		return e
	}
	switch x := u.X.(type) {
	case *ast.Unary:
		if x.Op == ast.OpNot {
			return pushNotToSubqueries(x.X)
		}
	case *ast.In:
		if x.Query != nil {
			n := *x
			n.Not = !x.Not
			return &n
		}
	case *ast.Exists:
		n := *x
		n.Not = !x.Not
		return &n
	case *ast.Binary:
		if x.Op == ast.OpOr && orHasSubquery(x) {
			return &ast.Binary{Node: x.Node, Op: ast.OpAnd,
				L: pushNotToSubqueries(&ast.Unary{Node: u.Node, Op: ast.OpNot, X: x.L}),
				R: pushNotToSubqueries(&ast.Unary{Node: u.Node, Op: ast.OpNot, X: x.R})}
		}
	}
	return e
}

// isSubqueryPredicate reports [NOT] IN (subquery) or [NOT] EXISTS.
func isSubqueryPredicate(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.In:
		return x.Query != nil
	case *ast.Exists:
		return true
	}
	return false
}

// orHasSubquery reports an IN (subquery) or EXISTS among the operands of
// an OR chain (through NOTs).
func orHasSubquery(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Binary:
		return x.Op == ast.OpOr && (orHasSubquery(x.L) || orHasSubquery(x.R))
	case *ast.Unary:
		return x.Op == ast.OpNot && orHasSubquery(x.X)
	case *ast.In:
		return x.Query != nil
	case *ast.Exists:
		return true
	}
	return false
}

// joinWhereSubqueries joins input (whose columns sc names) with what the
// subquery predicates of a WHERE (or of an INNER join's ON, bindJoinOn)
// need: the marks of those that are not conjuncts (under OR, inside CASE,
// in an IN's operand), then a semi / anti join per [NOT] IN / [NOT]
// EXISTS conjunct. rest is the condition left to filter the joined rows
// (nil when nothing is left); x is the SELECT the condition belongs to.
func (b *binder) joinWhereSubqueries(input Node, sc *scope, x *ast.Select, where ast.Expr) (Node, ast.Expr, error) {
	rest, subs := splitSubqueries(where)
	marked := []ast.Expr{rest}
	for _, s := range subs {
		if in, ok := s.(*ast.In); ok {
			marked = append(marked, in.X)
		}
	}
	var err error
	if input, err = b.markSubqueries(input, sc, marked); err != nil {
		return nil, nil, err
	}
	for _, s := range subs {
		// A scalar subquery in an IN's operand ((SELECT MAX(e) FROM
		// r) IN (SELECT j FROM t)) joins the input below the semi
		// join, which then compares its field (SemiAntiJoinTest
		// .testInWithUncorrelated_ComplexCondition4: the LeftOuterJoin
		// on true under the LeftSemiJoin on (EXPR$0 = j)).
		if in, ok := s.(*ast.In); ok {
			if input, err = b.bindScalarSubqueries(input, sc, x, nil, in.X); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, s := range subs {
		if input, err = b.bindSubqueryJoin(input, sc, s); err != nil {
			return nil, nil, err
		}
	}
	return input, rest, nil
}

// bindSubqueryJoin joins input (whose columns sc names) with the subquery
// of an IN or EXISTS conjunct: a semi join, or for NOT an anti join. An
// uncorrelated subquery is bound on its own; a correlated one must be a
// plain SELECT ... FROM ... WHERE, whose WHERE (over the outer and the
// subquery's columns) joins the join condition.
func (b *binder) bindSubqueryJoin(input Node, sc *scope, e ast.Expr) (Node, error) {
	var q ast.QueryExpr
	var inX ast.Expr
	not := false
	switch x := e.(type) {
	case *ast.In:
		q, inX, not = x.Query, x.X, x.Not
	case *ast.Exists:
		q, not = x.Query, x.Not
	}
	nl := len(input.Names())
	var right Node
	var conds []Expr
	var inner []Expr // the IN subquery's values, over the joined row
	width := 1       // the IN's operand: one value or a row of width fields ((a, c) IN (SELECT d, f ...))
	if inX != nil {
		if v, err := b.bindExpr(inX, sc, nil); err == nil {
			if c, ok := v.(*Call); ok && c.Op == "ROW" {
				width = len(c.Args)
			}
		}
	}
	// The subquery may read sc's columns in its WHERE clause; elsewhere
	// in it a reference to them is refused by name (correlatedRefusal).
	savedUncorrelated := b.uncorrelated
	b.outer, b.uncorrelated = append(b.outer, sc), ""
	defer func() { b.outer, b.uncorrelated = b.outer[:len(b.outer)-1], savedUncorrelated }()
	if r, err := b.bindQuery(q); err == nil {
		right = r
		if inX != nil {
			if len(r.Names()) != width {
				return nil, inArityErr(e)
			}
			for i, t := range r.Types() {
				inner = append(inner, &InputRef{Index: nl + i, T: t})
			}
		}
	} else {
		// A correlation below the subquery's top WHERE (in a derived
		// table, a join, a WITH query) is pulled up into it first.
		if pq, ok, perr := b.pullCorrelated(q, sc); perr != nil {
			return nil, perr
		} else if ok {
			q = pq
		}
		sel, ok := q.(*ast.Select)
		if !ok || sel.From == nil {
			return nil, err
		}
		b.vgInput = input
		d, ok, derr := b.decorrelateAggregate(sel, sc, inX != nil)
		b.vgInput = nil
		if derr != nil {
			return nil, derr
		} else if ok {
			return b.joinDecorrelated(input, sc, e, inX, not, sel, d)
		}
		if sel.Distinct || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Limit != nil ||
			sel.Offset != nil || len(sel.OrderBy) > 0 || b.hasAgg(sel.Where) || b.selectsAgg(sel) {
			if _, rs, ferr := b.bindFrom(sel.From); ferr == nil && sel.Where != nil && !b.hasAgg(sel.Where) {
				both := &scope{cols: append(append([]column(nil), sc.cols...), rs.cols...), innerFrom: len(sc.cols)}
				if _, werr := b.bindExpr(sel.Where, both, nil); werr == nil {
					return nil, sql.Errorf(sql.TableException, "sqlrun does not support a correlated subquery with DISTINCT, GROUP BY, aggregates, HAVING, ORDER BY or LIMIT yet")
				}
			}
			return nil, err
		}
		// The subquery's join hints apply to its own joins, as they do
		// when it is bound on its own (bindSelect).
		leave, herr := b.enterBlock(sel.Hints)
		if herr != nil {
			return nil, herr
		}
		r, rs, ferr := b.bindFrom(sel.From)
		if ferr != nil {
			leave(nil)
			return nil, ferr
		}
		leave(r)
		where := sel.Where
		if where != nil {
			// The subquery's own [NOT] IN / EXISTS conjuncts join its
			// FROM first; they may correlate with it, not with the outer
			// row (SemiAntiJoinTest.testMultiInWithCorrelated2: the
			// inner semi join on ((f = k) AND (e = j)) below the outer).
			var nested []ast.Expr
			where, nested = splitSubqueries(where)
			for _, ne := range nested {
				if r, err = b.bindSubqueryJoin(r, rs, ne); err != nil {
					return nil, err
				}
			}
		}
		right = r
		both := &scope{cols: append(append([]column(nil), sc.cols...), rs.cols...), innerFrom: len(sc.cols)}
		if where != nil {
			c, werr := b.bindExpr(where, both, nil)
			if werr != nil {
				return nil, err // the subquery's own error names what it could not resolve
			}
			conds = append(conds, conjuncts(c)...)
		}
		if inX != nil {
			if len(sel.Items) != width || sel.Items[0].Star {
				return nil, inArityErr(e)
			}
			// A value may read the outer row too (a2 + T1.a1): bound
			// over both, it is already an expression of the joined row.
			for _, it := range sel.Items {
				v, verr := b.bindExpr(it.Expr, both, nil)
				if verr != nil {
					return nil, err
				}
				inner = append(inner, v)
			}
		}
	}
	if inX != nil && !not && len(conds) == 0 && width == 1 {
		// The subquery reads the outer row in its value only.
		if ov, err := b.bindExpr(inX, sc, nil); err == nil {
			name := "EXPR$0"
			if sel, ok := q.(*ast.Select); ok && len(sel.Items) == 1 {
				if sel.Items[0].Alias != "" {
					name = sel.Items[0].Alias
				} else if r, ok := inner[0].(*InputRef); ok && r.Index >= nl {
					name = right.Names()[r.Index-nl]
				}
			}
			if j, ok := valueGeneratorIn(input, right, inner, ov, []string{name}); ok {
				return j, nil
			}
		}
	}
	if inX != nil && len(conds) > 0 {
		right, inner, conds = projectCorrelatedValues(right, inner, conds, nl, q)
	}
	var extended []Expr // the left's columns, when the IN's operand is projected below the join
	if inX != nil {
		ov, err := b.bindExpr(inX, sc, nil)
		if err != nil {
			return nil, err
		}
		outers := []Expr{ov}
		if width > 1 {
			outers = ov.(*Call).Args
		}
		var eqs []Expr
		for k, outer := range outers {
			if !isRef(outer) && not && !hasRefBeyond(outer, nl) {
				// Flink's FlinkSubQueryRemoveRule computes an IN's operand
				// that is not a field below the join ($f3), the join's
				// fields then projected back to the left's
				// (SemiAntiJoinTest.testNotInWithUncorrelated_SimpleCondition3:
				// where=[($f3 IS NULL OR d IS NULL OR ($f3 = d))]). For IN,
				// JoinPushExpressionsRule does the same with its = later.
				if extended == nil {
					extended = identity(input.Types())
				}
				names := append(append([]string(nil), input.Names()...), "$f"+strconv.Itoa(nl))
				exprs := append(identity(input.Types()), outer)
				input = &LogicalProject{base: row(names, exprTypes(exprs), input), Exprs: exprs}
				outer = &InputRef{Index: nl, T: outer.Type()}
				sh := map[int]int{}
				for i := 0; i < nl+len(right.Names()); i++ {
					sh[i] = i
					if i >= nl {
						sh[i] = i + 1
					}
				}
				inner = remapAll(inner, sh)
				conds = remapAll(conds, sh)
				// The pairs already compared read the right's fields too
				// ((b, CASE ...) NOT IN (SELECT e, d ...): b with e).
				eqs = remapAll(eqs, sh)
				nl++
			}
			eq, err := bindBinary(&ast.Binary{Node: e.(*ast.In).Node, Op: ast.OpEq}, outer, inner[k])
			if err != nil {
				return nil, err
			}
			if not {
				// NOT IN is null-aware: a row is kept only if no subquery value
				// (of its correlated rows, if correlated) equals it or is
				// unknown against it (x = NULL, NULL = y). Flink's anti join
				// condition is this OR and then the correlation's conjuncts
				// (SemiAntiJoinTest.testMultiNotInWithCorrelated: where=[((e IS
				// NULL OR j IS NULL OR (e = j)) AND (i = d))]).
				// A side that cannot be NULL drops its IS NULL term, as
				// Calcite's RexSimplify does (SemiAntiJoinTest
				// .testNotInWithCorrelated_ComplexCondition2: where=[((d IS
				// NULL OR ($f3 = d)) ...)] for a CASE of literals).
				var terms []Expr
				for _, side := range []Expr{outer, inner[k]} {
					if side.Type().Nullable {
						terms = append(terms, &Call{Op: "IS NULL", Args: []Expr{side}, T: sql.Boolean().NotNull()})
					}
				}
				if len(terms) > 0 {
					eq = &Call{Op: "OR", Args: append(terms, eq), T: sql.Boolean().NotNull()}
				}
			}
			eqs = append(eqs, eq)
		}
		conds = append(eqs, conds...)
	}
	// A conjunct the correlation repeats (a1 IN (SELECT a2 ... WHERE
	// T1.a1 = T2.a2)) is kept once, as Calcite's RexSimplify keeps a
	// conjunction's distinct terms (BroadcastJoinHintTest
	// .testJoinHintWithJoinHintInCorrelateAndWithFilter: where=[=(a1, a2)]).
	seen := map[string]bool{}
	uniq := conds[:0]
	for _, c := range conds {
		if k := exprKey(c); !seen[k] {
			seen[k] = true
			uniq = append(uniq, c)
		}
	}
	conds = uniq
	if inX == nil && len(conds) == 0 {
		// An uncorrelated [NOT] EXISTS.
		var c Expr
		right, c = existsAggregate(right, not, nl)
		if c != nil {
			conds = []Expr{c}
		}
	}
	var cond Expr = &Literal{Value: true, T: sql.Boolean().NotNull()}
	if len(conds) > 0 {
		cond = and(conds)
	}
	kind := semiJoin
	if not {
		kind = antiJoin
	}
	var j Node = &LogicalJoin{base: row(input.Names(), input.Types(), input, right), Cond: cond, JoinType: kind}
	if extended != nil {
		j = &LogicalProject{base: row(input.Names()[:len(extended)], input.Types()[:len(extended)], j), Exprs: extended}
	}
	return j, nil
}

// projectCorrelatedValues is the right side of a correlated IN as Flink's
// decorrelation (SubQueryDecorrelator) leaves it: a projection of the
// subquery's values and then the right's fields its correlation reads, so
// that the values are fields of the join (SemiAntiJoinTest
// .testMultiInWithCorrelated1: Calc(select=[j, i]);
// testNotInWithCorrelated_ComplexCondition1: Calc(select=[SUBSTRING(f, 1,
// 5) AS EXPR$0, e]); testInWithCorrelated_MultiFields: Calc(select=[d,
// SUBSTRING(f, 1, 5) AS EXPR$1, e])). inner and conds are over the left's
// nl fields and right's; values that read the left row are left where
// they are.
func projectCorrelatedValues(right Node, inner []Expr, conds []Expr, nl int, q ast.QueryExpr) (Node, []Expr, []Expr) {
	for _, v := range inner {
		if l, _ := exprSides(v, nl); l {
			return right, inner, conds
		}
	}
	sel, _ := q.(*ast.Select)
	read := map[int]bool{}
	for _, c := range conds {
		refs(c, read)
	}
	toRight := map[int]int{}
	for i := 0; i < nl+len(right.Names()); i++ {
		toRight[i] = i - nl
	}
	var exprs []Expr
	var names []string
	valueAt := map[int]int{} // a right field that is a value: its position
	for i, v := range inner {
		name := "EXPR$" + strconv.Itoa(i)
		if r, ok := v.(*InputRef); ok {
			name = right.Names()[r.Index-nl]
			if _, dup := valueAt[r.Index]; !dup {
				valueAt[r.Index] = i
			}
		} else if sel != nil && i < len(sel.Items) && sel.Items[i].Alias != "" {
			name = sel.Items[i].Alias
		}
		exprs = append(exprs, remap(v, toRight))
		names = append(names, name)
	}
	sh := map[int]int{}
	for i := 0; i < nl; i++ {
		sh[i] = i
	}
	for i := nl; i < nl+len(right.Names()); i++ {
		if k, ok := valueAt[i]; ok {
			sh[i] = nl + k // the value itself
			continue
		}
		if read[i] {
			sh[i] = nl + len(exprs)
			exprs = append(exprs, &InputRef{Index: i - nl, T: right.Types()[i-nl]})
			names = append(names, right.Names()[i-nl])
		}
	}
	values := make([]Expr, len(inner))
	for i, v := range inner {
		values[i] = &InputRef{Index: nl + i, T: v.Type()}
	}
	p := &LogicalProject{base: row(uniquify(names), exprTypes(exprs), right), Exprs: exprs}
	return p, values, remapAll(conds, sh)
}

// hasRefBeyond reports whether e reads a field at or after n.
func hasRefBeyond(e Expr, n int) bool {
	r := map[int]bool{}
	refs(e, r)
	for f := range r {
		if f >= n {
			return true
		}
	}
	return false
}

// existsAggregate is Calcite's SubQueryRemoveRule rewrite of an
// uncorrelated [NOT] EXISTS (rewriteExists): the subquery becomes one row
// MIN(true) AS m of its rows, NULL when it has none. EXISTS joins (semi,
// on true) with the row kept where m IS NOT NULL, as true AS $f0; NOT EXISTS joins (anti)
// on m IS NOT NULL AS $f0, whose reference at nl it returns as the
// condition (SemiAntiJoinTest.testExistsWithUncorrelated_SimpleCondition1,
// testExistsAndNotExists).
func existsAggregate(r Node, not bool, nl int) (Node, Expr) {
	tru := &Literal{Value: true, T: sql.Boolean().NotNull()}
	p := &LogicalProject{base: row([]string{"i"}, []sql.DataType{tru.T}, r), Exprs: []Expr{tru}}
	mt := sql.Boolean()
	agg := &LogicalAggregate{base: row([]string{"m"}, []sql.DataType{mt}, p),
		Aggs: []AggCall{{Func: "MIN", Args: []int{0}, Name: "m", T: mt}}}
	notNull := &Call{Op: "IS NOT NULL", Args: []Expr{&InputRef{Index: 0, T: mt}}, T: sql.Boolean().NotNull()}
	if not {
		return &LogicalProject{base: row([]string{"$f0"}, []sql.DataType{notNull.T}, agg), Exprs: []Expr{notNull}},
			&InputRef{Index: nl, T: notNull.T}
	}
	// The kept row is projected to true AS $f0 (RelBuilder's name for
	// the literal); a projection above the semi join prunes it away
	// (joinPushDown).
	f := &LogicalFilter{base: sameRow(agg), Cond: notNull}
	return &LogicalProject{base: row([]string{"$f0"}, []sql.DataType{tru.T}, f), Exprs: []Expr{tru}}, nil
}

// IsSemi reports a LeftSemiJoin (IN / EXISTS), IsAnti a LeftAntiJoin (NOT
// IN / NOT EXISTS).
func (n *Join) IsSemi() bool { return n.JoinType == semiJoin }

// IsAnti reports a LeftAntiJoin.
func (n *Join) IsAnti() bool { return n.JoinType == antiJoin }

func (b *binder) selectsAgg(sel *ast.Select) bool {
	for _, it := range sel.Items {
		if !it.Star && b.hasAgg(it.Expr) {
			return true
		}
	}
	return false
}

// bindScalarSubqueries joins input (whose columns sc names) with each
// uncorrelated scalar subquery of the SELECT's items and WHERE, as
// Calcite's SubQueryRemoveRule rewrites a scalar query: a LEFT join on
// TRUE whose right side is the subquery, the subquery's value then a field
// of the joined row (b.scalars maps the subquery to it; sc gains a column
// no name resolves to). Only a subquery that returns one row by
// construction is planned, an aggregate without GROUP BY: for it
// Calcite's rule adds no SINGLE_VALUE aggregate (its row is unique), but
// over an expression of it, whose uniqueness the metadata cannot tell, it
// does (atMostOneRow; in streaming mode: sqlrun's batch plans keep the
// expression unchecked), and Flink plans the batch join with
// singleRowJoin=[true]. Any other scalar
// subquery, a correlated one, or one in an aggregating SELECT is refused
// where it is bound (bindExprIn).
func (b *binder) bindScalarSubqueries(input Node, sc *scope, x *ast.Select, items []ast.SelectItem, where ast.Expr) (Node, error) {
	var subs []*ast.Subquery
	collect := func(e ast.Expr) {
		walkAST(e, func(e ast.Expr) {
			if q, ok := e.(*ast.Subquery); ok {
				subs = append(subs, q)
			}
		})
	}
	aggregated := len(x.GroupBy) > 0 || x.Having != nil
	for _, it := range items {
		if !it.Star && b.hasAgg(it.Expr) {
			aggregated = true
		}
	}
	if !aggregated {
		for _, it := range items {
			if !it.Star {
				collect(it.Expr)
			}
		}
	}
	collect(where)
	for _, q := range subs {
		sel, ok := q.Query.(*ast.Select)
		if ok {
			if m, merged := b.mergeAggregateDerived(sel); merged {
				if _, err := b.bindQuery(sel); err != nil {
					sel = m // correlated: decorrelated as the aggregate it selects from
				}
			}
		}
		if !ok || len(sel.GroupBy) > 0 || !b.selectsAgg(sel) || len(sel.Items) != 1 || sel.Items[0].Star {
			continue
		}
		r, err := b.bindQuery(sel)
		if err != nil {
			// A correlated aggregate: Calcite's RelDecorrelator left
			// join with it grouped by the correlation columns
			// (decorrelate.go). Anything else is reported by bindExprIn.
			// A correlation below its WHERE is pulled up into it first
			// (pullcorrelation.go).
			if pq, ok, perr := b.pullCorrelated(sel, sc); perr != nil {
				return nil, perr
			} else if ok {
				sel = pq.(*ast.Select)
			}
			b.vgInput = input
			d, ok, derr := b.decorrelateAggregate(sel, sc, true)
			b.vgInput = nil
			if derr != nil {
				return nil, derr
			}
			if !ok || !d.scalar {
				continue
			}
			nl := len(input.Names())
			if input, err = b.joinScalarAggregate(input, sel, d); err != nil {
				return nil, err
			}
			sc.cols = append(sc.cols, column{t: input.Types()[nl]})
			if b.scalars == nil {
				b.scalars = map[*ast.Subquery]int{}
			}
			b.scalars[q] = nl
			continue
		}
		if b.streaming && !atMostOneRow(r) {
			r = singleValue(r)
		}
		nl := len(input.Names())
		t := r.Types()[0].WithNullable(true)
		names := uniquify(append(append([]string(nil), input.Names()...), r.Names()[0]))
		types := append(append([]sql.DataType(nil), input.Types()...), t)
		input = &LogicalJoin{base: row(names, types, input, r), Cond: &Literal{Value: true, T: sql.Boolean().NotNull()}, JoinType: ast.LeftJoin}
		sc.cols = append(sc.cols, column{t: t})
		if b.scalars == nil {
			b.scalars = map[*ast.Subquery]int{}
		}
		b.scalars[q] = nl
	}
	return input, nil
}

// atMostOneRow is the metadata Calcite's SubQueryRemoveRule.rewriteScalarQuery
// asks of a scalar subquery (areColumnsUnique over no columns): an
// aggregate without GROUP BY is one row, a filter (HAVING) keeps its
// input's answer, and a projection of it is unknown
// (FlinkRelMdColumnUniqueness.areColumnsUniqueOfProject maps no column to
// its input), so SELECT 0.5 * SUM(j) is checked by SINGLE_VALUE where
// SELECT SUM(j) is not (SemiAntiJoinTest.testInWithUncorrelated_ComplexCondition5).
// A projection of every field in order is none: Calcite's RelBuilder adds
// no identity projection.
func atMostOneRow(r Node) bool {
	for {
		switch x := r.(type) {
		case *LogicalFilter:
			r = x.input()
			continue
		case *LogicalProject:
			if !identityProject(x) {
				return false
			}
			r = x.input()
			continue
		case *LogicalAggregate:
			return len(x.Group) == 0 && x.Sets == nil
		}
		return false
	}
}

func identityProject(p *LogicalProject) bool {
	if len(p.Exprs) != len(p.input().Names()) {
		return false
	}
	for i, e := range p.Exprs {
		if ref, ok := e.(*InputRef); !ok || ref.Index != i {
			return false
		}
	}
	return true
}

// singleValue is rewriteScalarQuery's check that a scalar subquery returns
// at most one row: an aggregate without GROUP BY of SINGLE_VALUE of its
// value, named $f0 as RelBuilder names an unnamed call (printed
// SINGLE_VALUE_RETRACT over an updating input; its run fails with Flink's
// "SingleValueAggFunction received more than one element." on a second row).
func singleValue(r Node) Node {
	t := r.Types()[0].WithNullable(true)
	return &LogicalAggregate{base: row([]string{"$f0"}, []sql.DataType{t}, r),
		Aggs: []AggCall{{Func: "SINGLE_VALUE", Args: []int{0}, Name: "$f0", T: t, Unnamed: true}}}
}

func isRef(e Expr) bool {
	_, ok := e.(*InputRef)
	return ok
}

// inArityErr is the error of an IN (subquery) whose subquery has n columns
// where its left operand has another number of fields: Calcite's
// validation error.
func inArityErr(e ast.Expr) error {
	return validationErr(e.Pos(), 1, "Values passed to IN operator must have compatible types")
}

// markSubqueries joins input (whose columns sc names) with what each
// [NOT] IN (subquery) and [NOT] EXISTS among es needs to compute its
// value in SQL's three-valued logic where it is not a conjunct a semi /
// anti join can take (under OR, inside CASE, in an IN's operand, a select
// item): Calcite's SubQueryRemoveRule (rewriteIn, rewriteExists), which
// Flink applies to what FlinkSubQueryRemoveRule leaves
// (SemiAntiJoinTest.testInWithUncorrelated_ComplexCondition3). Each such
// node is then preset to its value over the joined row; sc gains the
// joined fields as columns no name resolves to. An inner subquery
// predicate (in an IN's operand) is joined before the one holding it.
func (b *binder) markSubqueries(input Node, sc *scope, es []ast.Expr) (Node, error) {
	var found []ast.Expr
	for _, e := range es {
		walkAST(e, func(e ast.Expr) {
			if isSubqueryPredicate(e) {
				found = append(found, e)
			}
		})
	}
	done := map[ast.Expr]bool{}
	for len(done) < len(found) {
		for _, e := range found {
			if done[e] {
				continue
			}
			ready := true
			if in, ok := e.(*ast.In); ok {
				walkAST(in.X, func(x ast.Expr) {
					if isSubqueryPredicate(x) && !done[x] {
						ready = false
					}
				})
			}
			if !ready {
				continue
			}
			var err error
			if input, err = b.markSubquery(input, sc, e); err != nil {
				return nil, err
			}
			done[e] = true
		}
	}
	return input, nil
}

// markSubquery joins input with one subquery predicate's mark (see
// markSubqueries) and presets the predicate to its value.
//
// x [NOT] IN (SELECT y ...) joins the subquery's COUNT(*) AS c (and
// COUNT(y) AS ck when y is nullable) on true, then LEFT joins its
// DISTINCT y with true AS i on x = y; its value is
// CASE WHEN c = 0 THEN FALSE WHEN x IS NULL THEN NULL WHEN i IS NOT NULL
// THEN TRUE WHEN ck < c THEN NULL ELSE FALSE END (negated for NOT IN):
// FALSE against an empty set, UNKNOWN for a NULL x or when no value
// matches and the set holds a NULL.
//
// [NOT] EXISTS (subquery) LEFT joins DISTINCT true AS i of the subquery's
// rows on true; its value is i IS NOT NULL (negated for NOT EXISTS).
func (b *binder) markSubquery(input Node, sc *scope, e ast.Expr) (Node, error) {
	var q ast.QueryExpr
	var inX ast.Expr
	not := false
	switch x := e.(type) {
	case *ast.In:
		q, inX, not = x.Query, x.X, x.Not
	case *ast.Exists:
		q, not = x.Query, x.Not
	}
	var ov Expr
	if inX != nil {
		v, err := b.bindExpr(inX, sc, nil)
		if err != nil {
			return nil, err
		}
		if c, ok := v.(*Call); ok && c.Op == "ROW" {
			return nil, sql.Errorf(sql.TableException, "sqlrun does not support a row compared with IN (subquery) under OR or inside an expression yet")
		}
		ov = v
	}
	right, err := b.bindQuery(q)
	if err != nil {
		// A correlated subquery fails to bind on its own (its WHERE
		// binds over the outer and its own columns); Flink decorrelates
		// it, which sqlrun does not yet do here. A correlation below its
		// WHERE is pulled up into it first (pullcorrelation.go).
		if pq, ok, perr := b.pullCorrelated(q, sc); perr != nil {
			return nil, perr
		} else if ok {
			q = pq
		}
		if sel, ok := q.(*ast.Select); ok && sel.From != nil && sel.Where != nil && !sel.Distinct && len(sel.GroupBy) == 0 &&
			sel.Having == nil && !b.selectsAgg(sel) && len(sel.OrderBy) == 0 && sel.Limit == nil && sel.Offset == nil {
			refuse := func(why string) error {
				return sql.Errorf(sql.TableException, "sqlrun does not decorrelate the subquery (%s): %s", ast.FormatQuery(sel), why)
			}
			// A correlation other than equalities: Calcite's value
			// generator (valuegen.go), whose columns the marking joins.
			nullSafe := false
			if vsel, vg, ns, ok := b.valueGenerated(sel, sc, input); ok {
				saved := b.ctes
				b.ctes = map[string]Node{vgName: vg}
				for k, v := range saved {
					b.ctes[k] = v
				}
				defer func() { b.ctes = saved }()
				sel, nullSafe = vsel, ns
			}
			local, inner, outer, ok, cerr := b.correlation(sel, sc, refuse)
			if cerr != nil {
				return nil, cerr
			}
			if ok {
				return b.markCorrelated(input, sc, e, ov, not, sel, local, inner, outer, nullSafe)
			}
		}
		if sel, ok := q.(*ast.Select); ok && sel.From != nil && sel.Where != nil {
			if _, rs, ferr := b.bindFrom(sel.From); ferr == nil {
				both := &scope{cols: append(append([]column(nil), sc.cols...), rs.cols...), innerFrom: len(sc.cols)}
				if _, werr := b.bindExpr(sel.Where, both, nil); werr == nil {
					what := "EXISTS"
					if inX != nil {
						what = "IN (subquery)"
					}
					return nil, sql.Errorf(sql.TableException, "sqlrun does not support a correlated %s under OR or inside an expression yet (only as a conjunct of WHERE)", what)
				}
			}
		}
		return nil, err
	}
	boolT := sql.Boolean()
	tru := &Literal{Value: true, T: boolT.NotNull()}
	nl := len(input.Names())
	extend := func(j Node) {
		for _, t := range j.Types()[len(sc.cols):] {
			sc.cols = append(sc.cols, column{t: t})
		}
	}
	ref := func(n Node, i int) Expr { return &InputRef{Index: i, T: n.Types()[i]} }
	call := func(op string, t sql.DataType, args ...Expr) Expr { return &Call{Op: op, Args: args, T: t} }
	var value Expr
	if inX == nil {
		p := &LogicalProject{base: row([]string{"i"}, []sql.DataType{tru.T}, right), Exprs: []Expr{tru}}
		d := distinct(p)
		j := &LogicalJoin{base: row(uniquify(append(append([]string(nil), input.Names()...), "i")),
			append(append([]sql.DataType(nil), input.Types()...), boolT), input, d), Cond: tru, JoinType: ast.LeftJoin}
		input = j
		extend(j)
		value = call("IS NOT NULL", boolT.NotNull(), ref(j, nl))
	} else {
		if len(right.Names()) != 1 {
			return nil, inArityErr(e)
		}
		yt := right.Types()[0]
		// The subquery's row count (and count of non-NULL values).
		bigint := sql.BigInt().NotNull()
		aggs := []AggCall{{Func: "COUNT", Name: "c", T: bigint}}
		if yt.Nullable {
			aggs = append(aggs, AggCall{Func: "COUNT", Args: []int{0}, Name: "ck", T: bigint})
		}
		names, types := []string{}, []sql.DataType{}
		for _, a := range aggs {
			names, types = append(names, a.Name), append(types, a.T)
		}
		ct := &LogicalAggregate{base: row(names, types, right), Aggs: aggs}
		cj := &LogicalJoin{base: row(uniquify(append(append([]string(nil), input.Names()...), names...)),
			append(append([]sql.DataType(nil), input.Types()...), types...), input, ct), Cond: tru, JoinType: ast.InnerJoin}
		c := ref(cj, nl)
		var ck Expr
		if yt.Nullable {
			ck = ref(cj, nl+1)
		}
		// The subquery's distinct values, marked true AS i.
		p := &LogicalProject{base: row([]string{right.Names()[0], "i"}, []sql.DataType{yt, tru.T}, right),
			Exprs: []Expr{&InputRef{Index: 0, T: yt}, tru}}
		dt := distinct(p)
		at := len(cj.Names())
		cmp, err := bindBinary(&ast.Binary{Node: e.(*ast.In).Node, Op: ast.OpEq}, ov, &InputRef{Index: at, T: yt})
		if err != nil {
			return nil, err
		}
		j := &LogicalJoin{base: row(uniquify(append(append([]string(nil), cj.Names()...), dt.Names()...)),
			append(append([]sql.DataType(nil), cj.Types()...), yt.WithNullable(true), boolT), cj, dt),
			Cond: cmp, JoinType: ast.LeftJoin}
		input = j
		extend(j)
		null := &Literal{T: boolT}
		fls := &Literal{Value: false, T: boolT.NotNull()}
		args := []Expr{call("=", boolT.NotNull(), c, &Literal{Value: int64(0), T: bigint}), fls}
		if ov.Type().Nullable {
			args = append(args, call("IS NULL", boolT.NotNull(), ov), null)
		}
		args = append(args, call("IS NOT NULL", boolT.NotNull(), ref(j, at+1)), tru)
		if ck != nil {
			args = append(args, call("<", boolT.NotNull(), ck, c), null)
		}
		args = append(args, fls)
		t := boolT.NotNull()
		if ov.Type().Nullable || ck != nil {
			t = boolT
		}
		value = call("CASE", t, args...)
	}
	if not {
		value = call("NOT", value.Type(), value)
	}
	if b.preset == nil {
		b.preset = map[ast.Expr]Expr{}
	}
	b.preset[e] = value
	return input, nil
}

// markCorrelated is markSubquery for a subquery correlated only through
// equalities outer_expr = column of its WHERE (a value generator's
// columns, joined IS NOT DISTINCT FROM when nullSafe, for another
// correlation: valuegen.go), decorrelated as Calcite's
// RelDecorrelator does: the subquery runs uncorrelated and grouped by
// those columns, LEFT joined on them. For IN, its COUNT(*) AS c (and
// COUNT(y) AS ck) per group, then its DISTINCT (y, columns) marked true AS
// i on x = y and the columns; a row without a group has c NULL, an empty
// set: CASE(c IS NULL, false, x IS NULL, null, i IS NOT NULL, true, ck <
// c, null, false). For EXISTS, DISTINCT (columns) marked true AS i.
func (b *binder) markCorrelated(input Node, sc *scope, e ast.Expr, ov Expr, not bool, sel *ast.Select,
	local, inner []ast.Expr, outer []Expr, nullSafe bool) (Node, error) {
	n := *sel
	n.Where = astAnd(local)
	n.Items = nil
	if ov != nil {
		if len(sel.Items) != 1 || sel.Items[0].Star {
			return nil, inArityErr(e)
		}
		n.Items = append(n.Items, sel.Items[0])
	}
	for _, c := range inner {
		n.Items = append(n.Items, ast.SelectItem{Expr: c})
	}
	r, err := b.bindQuery(&n)
	if err != nil {
		return nil, err
	}
	boolT := sql.Boolean()
	tru := &Literal{Value: true, T: boolT.NotNull()}
	call := func(op string, t sql.DataType, args ...Expr) Expr { return &Call{Op: op, Args: args, T: t} }
	// leftJoin LEFT joins l with right on the correlation (outer = the
	// right's fields at keys) and the extra conditions.
	leftJoin := func(l, right Node, keys []int, extra []Expr) (Node, error) {
		nl := len(l.Names())
		conds := extra
		op := ast.OpEq
		if nullSafe {
			op = ast.OpIsNotDistinct // a value generator's columns (valuegen.go)
		}
		for j, o := range outer {
			eq, err := bindBinary(&ast.Binary{Node: sel.Node, Op: op}, o, &InputRef{Index: nl + keys[j], T: right.Types()[keys[j]]})
			if err != nil {
				return nil, err
			}
			conds = append(conds, eq)
		}
		return &LogicalJoin{base: row(uniquify(append(append([]string(nil), l.Names()...), right.Names()...)),
			append(append([]sql.DataType(nil), l.Types()...), nullableAll(right.Types())...), l, right),
			Cond: and(conds), JoinType: ast.LeftJoin}, nil
	}
	first := 0 // the first correlation column of r
	if ov != nil {
		first = 1
	}
	// The distinct (value,) columns marked true AS i.
	var exprs []Expr
	var names []string
	for i, t := range r.Types() {
		exprs = append(exprs, &InputRef{Index: i, T: t})
		names = append(names, r.Names()[i])
	}
	exprs, names = append(exprs, tru), append(names, "i")
	dt := distinct(&LogicalProject{base: row(uniquify(names), exprTypes(exprs), r), Exprs: exprs})
	keys := make([]int, len(inner))
	for j := range keys {
		keys[j] = first + j
	}
	var value Expr
	if ov == nil {
		j, err := leftJoin(input, dt, keys, nil)
		if err != nil {
			return nil, err
		}
		value = call("IS NOT NULL", boolT.NotNull(), &InputRef{Index: len(j.Names()) - 1, T: boolT})
		input = j
	} else {
		yt := r.Types()[0]
		bigint := sql.BigInt().NotNull()
		group := make([]int, len(inner))
		for j := range group {
			group[j] = first + j
		}
		aggs := []AggCall{{Func: "COUNT", Name: "c", T: bigint}}
		if yt.Nullable {
			aggs = append(aggs, AggCall{Func: "COUNT", Args: []int{0}, Name: "ck", T: bigint})
		}
		var ctNames []string
		var ctTypes []sql.DataType
		for _, g := range group {
			ctNames, ctTypes = append(ctNames, r.Names()[g]), append(ctTypes, r.Types()[g])
		}
		for _, a := range aggs {
			ctNames, ctTypes = append(ctNames, a.Name), append(ctTypes, a.T)
		}
		ct := &LogicalAggregate{base: row(ctNames, ctTypes, r), Group: group, Aggs: aggs}
		ctKeys := make([]int, len(inner))
		for j := range ctKeys {
			ctKeys[j] = j
		}
		nl := len(input.Names())
		cj, err := leftJoin(input, ct, ctKeys, nil)
		if err != nil {
			return nil, err
		}
		c := &InputRef{Index: nl + len(inner), T: bigint.WithNullable(true)}
		var ck Expr
		if yt.Nullable {
			ck = &InputRef{Index: nl + len(inner) + 1, T: bigint.WithNullable(true)}
		}
		at := len(cj.Names())
		cmp, err := bindBinary(&ast.Binary{Node: e.(*ast.In).Node, Op: ast.OpEq}, ov, &InputRef{Index: at, T: yt})
		if err != nil {
			return nil, err
		}
		j, err := leftJoin(cj, dt, keys, []Expr{cmp})
		if err != nil {
			return nil, err
		}
		input = j
		null := &Literal{T: boolT}
		fls := &Literal{Value: false, T: boolT.NotNull()}
		args := []Expr{call("IS NULL", boolT.NotNull(), c), fls}
		if ov.Type().Nullable {
			args = append(args, call("IS NULL", boolT.NotNull(), ov), null)
		}
		args = append(args, call("IS NOT NULL", boolT.NotNull(), &InputRef{Index: len(j.Names()) - 1, T: boolT}), tru)
		if ck != nil {
			args = append(args, call("<", boolT, ck, c), null)
		}
		args = append(args, fls)
		t := boolT.NotNull()
		if ov.Type().Nullable || ck != nil {
			t = boolT
		}
		value = call("CASE", t, args...)
	}
	for _, t := range input.Types()[len(sc.cols):] {
		sc.cols = append(sc.cols, column{t: t})
	}
	if not {
		value = call("NOT", value.Type(), value)
	}
	if b.preset == nil {
		b.preset = map[ast.Expr]Expr{}
	}
	b.preset[e] = value
	return input, nil
}

// mergeAggregateDerived is sel, a SELECT of expressions over one derived
// table that is an aggregate without GROUP BY, and nothing else (no
// WHERE, GROUP BY, DISTINCT, ORDER BY, LIMIT), as that aggregate
// selecting sel's expressions of its items: Calcite's RelBuilder merges
// the projection into the one above the aggregate (an identity one
// vanishes), so a correlated (SELECT c FROM (SELECT COUNT(*) AS c FROM r
// WHERE r.k = l.a) x) decorrelates as (SELECT COUNT(*) FROM r WHERE r.k
// = l.a) does: one row for every outer row, COUNT's 0 for an outer row
// without rows. ok is false for another shape, or when sel's expressions
// read anything but the derived table's columns.
func (b *binder) mergeAggregateDerived(sel *ast.Select) (*ast.Select, bool) {
	if sel.Where != nil || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Distinct || len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Offset != nil {
		return nil, false
	}
	ref, ok := sel.From.(*ast.SubqueryRef)
	if !ok || ref.Lateral {
		return nil, false
	}
	in, ok := inlineCTEs(ref.Query).(*ast.Select)
	if !ok || in.From == nil || len(in.GroupBy) > 0 || in.Having != nil || in.Distinct || len(in.OrderBy) > 0 ||
		in.Limit != nil || in.Offset != nil || !b.selectsAgg(in) {
		return nil, false
	}
	if len(ref.Columns) > 0 && len(ref.Columns) != len(in.Items) {
		return nil, false
	}
	names := make([]string, len(in.Items))
	for i, it := range in.Items {
		switch {
		case it.Star:
			return nil, false
		case i < len(ref.Columns):
			names[i] = ref.Columns[i]
		case it.Alias != "":
			names[i] = it.Alias
		default:
			if r, ok := it.Expr.(*ast.ColumnRef); ok {
				names[i] = r.Name
			} else {
				names[i] = "EXPR$" + strconv.Itoa(i)
			}
		}
	}
	column := func(r *ast.ColumnRef) (int, bool) {
		if r.Qualifier != "" && r.Qualifier != ref.Alias {
			return 0, false
		}
		found := -1
		for i, nm := range names {
			if nm == r.Name {
				if found >= 0 {
					return 0, false // ambiguous: its own error
				}
				found = i
			}
		}
		return found, found >= 0
	}
	n := *in
	n.Items = nil
	for _, it := range sel.Items {
		if it.Star {
			if it.StarQualifier != "" && it.StarQualifier != ref.Alias {
				return nil, false
			}
			for i, x := range in.Items {
				n.Items = append(n.Items, ast.SelectItem{Node: x.Node, Expr: x.Expr, Alias: names[i]})
			}
			continue
		}
		if hasSubquery(it.Expr) {
			return nil, false
		}
		ok := true
		e := substAST(it.Expr, func(e ast.Expr) ast.Expr {
			r, isRef := e.(*ast.ColumnRef)
			if !isRef {
				return nil
			}
			i, found := column(r)
			if !found {
				ok = false
				return nil
			}
			return in.Items[i].Expr
		})
		if !ok {
			return nil, false
		}
		alias := it.Alias
		if r, isRef := it.Expr.(*ast.ColumnRef); isRef && alias == "" {
			alias = r.Name
		}
		n.Items = append(n.Items, ast.SelectItem{Node: it.Node, Expr: e, Alias: alias})
	}
	return &n, true
}
