package plan

import (
	"maps"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// hasSubquery reports a subquery in e ([NOT] IN (SELECT ...), [NOT]
// EXISTS, a scalar subquery), not looking into subqueries.
func hasSubquery(e ast.Expr) bool {
	found := false
	walkAST(e, func(e ast.Expr) {
		switch x := e.(type) {
		case *ast.Subquery, *ast.Exists:
			found = true
		case *ast.In:
			if x.Query != nil {
				found = true
			}
		}
	})
	return found
}

// copyScope is a scope that can gain columns without changing sc.
func copyScope(sc *scope) *scope {
	n := *sc
	n.cols = append([]column(nil), sc.cols...)
	return &n
}

// bindJoinSubqueries binds "l kind JOIN r ON cond" whose ON has conjuncts
// holding subqueries (subs; rest are the others, bound as cond over sc),
// as Calcite's SubQueryRemoveRule rewrites a Join's condition (the rule
// Flink runs as JOIN_SUB_QUERY_TO_CORRELATE; Calcite 1.32's, in Flink
// 1.20, compares an IN's operand with the wrong side's fields, fixed by
// CALCITE-6824, whose rule this follows):
//
//   - an INNER join is its inputs joined on rest, then filtered by subs as
//     a WHERE is (L JOIN R ON c is (L x R) WHERE c): semi / anti joins for
//     [NOT] IN / [NOT] EXISTS conjuncts, marks for the others;
//   - an outer join applies a conjunct that reads only the side whose rows
//     it does not keep (the right of a LEFT join, the left of a RIGHT
//     join) as a WHERE of that side; any other subquery predicate is
//     marked on the side its operands and correlation read (its value
//     in SQL's three-valued logic, markSubqueries), and the ON compares
//     the mark. One that reads both sides is refused (Calcite bails out).
//
// The result is the join's row (l's columns, then r's), as sc names it.
func (b *binder) bindJoinSubqueries(x *ast.Join, kind ast.JoinKind, l Node, ls *scope, r Node, rs *scope, sc *scope,
	cond Expr, rest, subs []ast.Expr) (Node, error) {
	names := uniquify(append(append([]string(nil), l.Names()...), r.Names()...))
	types := make([]sql.DataType, len(sc.cols))
	for i, c := range sc.cols {
		types[i] = c.t
	}
	tru := &Literal{Value: true, T: sql.Boolean().NotNull()}
	// where filters input by a condition with subqueries, as bindSelect's
	// WHERE; sc gains the columns the marks add.
	where := func(input Node, sc *scope, c ast.Expr) (Node, error) {
		input, c, err := b.joinWhereSubqueries(input, sc, &ast.Select{}, c)
		if err != nil {
			return nil, err
		}
		if input, err = b.bindScalarSubqueries(input, sc, &ast.Select{}, nil, c); err != nil {
			return nil, err
		}
		if c == nil {
			return input, nil
		}
		f, err := b.bindExpr(c, sc, nil)
		if err != nil {
			return nil, err
		}
		if f.Type().Root != sql.TypeBoolean && f.Type().Root != sql.TypeNull {
			return nil, validationErr(x.On.Pos(), 1, "ON clause must be a condition")
		}
		return &LogicalFilter{base: sameRow(input), Cond: f}, nil
	}
	// keep projects the join's own columns out of a wider row.
	keep := func(input Node, at []int) Node {
		exprs := make([]Expr, len(at))
		for i, k := range at {
			exprs[i] = &InputRef{Index: k, T: input.Types()[k]}
		}
		return &LogicalProject{base: row(names, types, input), Exprs: exprs}
	}
	if kind == ast.InnerJoin {
		j := &LogicalJoin{base: row(names, types, l, r), Cond: cond, JoinType: kind}
		if err := b.resolveJoinHints(j, b.hintInputName(x.Left), b.hintInputName(x.Right)); err != nil {
			return nil, err
		}
		input, err := where(j, copyScope(sc), astAnd(subs))
		if err != nil {
			return nil, err
		}
		at := make([]int, len(types))
		for i := range at {
			at[i] = i
		}
		return keep(input, at), nil
	}
	// trial runs f, undoing what it preset when it fails.
	trial := func(f func() error) error {
		preset, scalars := maps.Clone(b.preset), maps.Clone(b.scalars)
		err := f()
		if err != nil {
			b.preset, b.scalars = preset, scalars
		}
		return err
	}
	lsc, rsc := copyScope(ls), copyScope(rs)
	var kept []ast.Expr       // conjuncts the join's condition keeps
	var rightMarks []ast.Expr // predicates marked on r
	for _, c := range subs {
		// The conjunct must bind as it would over the whole row (names
		// resolve, are not ambiguous; what is supported), whichever side
		// it is then applied to.
		preset, scalars := maps.Clone(b.preset), maps.Clone(b.scalars)
		cross := &LogicalJoin{base: row(names, types, l, r), Cond: tru, JoinType: ast.InnerJoin}
		_, err := where(cross, copyScope(sc), c)
		b.preset, b.scalars = preset, scalars
		if err != nil {
			return nil, err
		}
		// A conjunct over the side whose rows are not kept filters it.
		filtered := false
		if kind == ast.LeftJoin || kind == ast.RightJoin {
			side, ssc := &r, &rsc
			if kind == ast.RightJoin {
				side, ssc = &l, &lsc
			}
			t := copyScope(*ssc)
			if trial(func() error {
				n, err := where(*side, t, c)
				if err == nil {
					*side, *ssc = n, t
				}
				return err
			}) == nil {
				filtered = true
			}
		}
		if filtered {
			continue
		}
		var found []ast.Expr
		walkAST(c, func(e ast.Expr) {
			if _, ok := e.(*ast.Subquery); ok || isSubqueryPredicate(e) {
				found = append(found, e)
			}
		})
		for _, p := range found {
			var errs [2]error
			marked := false
			for _, left := range []bool{true, false} {
				side, ssc := &l, &lsc
				if !left {
					side, ssc = &r, &rsc
				}
				t := copyScope(*ssc)
				err := trial(func() error {
					var n Node
					var err error
					if q, ok := p.(*ast.Subquery); ok {
						// A scalar subquery joins the input it reads
						// (bindScalarSubqueries), or fails to.
						delete(b.scalars, q)
						if n, err = b.bindScalarSubqueries(*side, t, &ast.Select{}, nil, q); err == nil {
							if _, ok := b.scalars[q]; !ok {
								_, err = b.bindExpr(q, t, nil)
							}
						}
					} else {
						n, err = b.markSubqueries(*side, t, []ast.Expr{p})
					}
					if err == nil {
						*side, *ssc = n, t
					}
					return err
				})
				if err == nil {
					marked = true
					if !left {
						rightMarks = append(rightMarks, p)
					}
					break
				}
				if left {
					errs[0] = err
				} else {
					errs[1] = err
				}
			}
			if !marked {
				return nil, sql.Errorf(sql.TableException,
					"sqlrun does not support %s in the ON clause of a %s JOIN yet: it reads columns of both inputs, or is not one sqlrun computes over the input it reads (over the left input: %v; over the right input: %v)",
					sqlText(p), kind, errs[0], errs[1])
			}
		}
		kept = append(kept, c)
	}
	// The right side's marks are over r's row: shift them past l's.
	nl := len(lsc.cols)
	for _, p := range rightMarks {
		if q, ok := p.(*ast.Subquery); ok {
			b.scalars[q] += nl
			continue
		}
		b.preset[p] = mapRefs(b.preset[p], func(x *InputRef) Expr { return &InputRef{Index: x.Index + nl, T: x.T} })
	}
	on := &scope{using: append([]usingColumn(nil), sc.using...)}
	var jt []sql.DataType
	for _, c := range lsc.cols {
		if kind == ast.RightJoin || kind == ast.FullJoin {
			c.t = c.t.WithNullable(true)
		}
		on.cols = append(on.cols, c)
		jt = append(jt, c.t)
	}
	for _, c := range rsc.cols {
		if kind == ast.LeftJoin || kind == ast.FullJoin {
			c.t = c.t.WithNullable(true)
		}
		on.cols = append(on.cols, c)
		jt = append(jt, c.t)
	}
	for i, u := range on.using {
		if u.right >= len(ls.cols) {
			u.right += nl - len(ls.cols)
		}
		if u.left >= len(ls.cols) {
			u.left += nl - len(ls.cols)
		}
		on.using[i] = u
	}
	jcond := Expr(tru)
	if all := append(append([]ast.Expr(nil), rest...), kept...); len(all) > 0 {
		c, err := b.bindExpr(astAnd(all), on, nil)
		if err != nil {
			return nil, err
		}
		if c.Type().Root != sql.TypeBoolean {
			return nil, validationErr(x.On.Pos(), 1, "ON clause must be a condition")
		}
		jcond = c
	}
	j := &LogicalJoin{base: row(uniquify(append(append([]string(nil), l.Names()...), r.Names()...)), jt, l, r), Cond: jcond, JoinType: kind}
	if err := b.resolveJoinHints(j, b.hintInputName(x.Left), b.hintInputName(x.Right)); err != nil {
		return nil, err
	}
	var at []int
	for i := range ls.cols {
		at = append(at, i)
	}
	for i := range rs.cols {
		at = append(at, nl+i)
	}
	return keep(j, at), nil
}

// itemExprs are the expressions of select items (not stars).
func itemExprs(items []ast.SelectItem) []ast.Expr {
	var es []ast.Expr
	for _, it := range items {
		if !it.Star {
			es = append(es, it.Expr)
		}
	}
	return es
}

// aboveAggregate are the [NOT] IN / [NOT] EXISTS subquery predicates of
// an aggregating SELECT's items outside its aggregate calls and outside
// the expressions its GROUP BY spells (those are grouped values).
func (b *binder) aboveAggregate(items []ast.SelectItem, groupBy []ast.Expr) []ast.Expr {
	grouped := map[string]bool{}
	for _, g := range groupBy {
		grouped[g.String()] = true
	}
	inside := map[ast.Expr]bool{}
	var found []ast.Expr
	for _, e := range itemExprs(items) {
		walkAST(e, func(e ast.Expr) {
			if inside[e] {
				return
			}
			if f, ok := e.(*ast.FuncCall); (ok && f.Over == nil && b.isAggName(f.Name)) || grouped[e.String()] {
				walkAST(e, func(x ast.Expr) { inside[x] = true })
				return
			}
			if isSubqueryPredicate(e) {
				found = append(found, e)
			}
		})
	}
	return found
}
