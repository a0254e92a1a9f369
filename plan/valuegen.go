package plan

import (
	"github.com/sqlrun/sqlrun/sql/ast"
)

// A correlated aggregating subquery whose correlation is not only
// equalities outer_expr = column (t1.rowtime BETWEEN t2.rowtime AND
// t2.rowtime + INTERVAL '5' MINUTE under GROUP BY) is decorrelated as
// Calcite's RelDecorrelator does with a value generator
// (decorrelateInputWithValueGenerator): the distinct values of the outer
// columns the correlation reads are joined with the subquery's FROM on
// its correlated conditions, the subquery then groups also by those
// columns, and the outer row joins its group on them
// (IntervalJoinTest.testFallbackToRegularJoin: the GroupAggregate of
// (b, rowtime) joined with MyTable2, grouped by (a, b0, rowtime0)). When
// each correlated condition is NULL for a NULL outer column (a
// comparison of columns, literals and arithmetic), an outer row with a
// NULL in such a column has no group but the empty one, and the outer
// row joins its group with = as in Flink. Another condition (OR, CASE,
// IS NULL, COALESCE, ...) may hold for a NULL outer value: the value
// generator's NULL row has its groups, and the outer row joins them IS
// NOT DISTINCT FROM (nullSafe), as Calcite's RelDecorrelator does since
// CALCITE-6962; Flink 1.20's joins them with =, which loses those
// groups (docs/differences.md).

// vgName names the value generator while its subquery binds.
const vgName = "$cor$values"

// valueGenerated is sel with its correlated WHERE conditions moved into
// a join of its FROM with the value generator over input (the outer
// query's rows, whose columns sc names), whose columns sel's WHERE then
// equates with the outer row's (IS NOT DISTINCT FROM when nullSafe);
// ok is false when sel's correlation is equalities only. The caller
// binds it with vg registered as vgName.
func (b *binder) valueGenerated(sel *ast.Select, sc *scope, input Node) (out *ast.Select, vg Node, nullSafe, ok bool) {
	if input == nil || sel.From == nil || len(input.Names()) != len(sc.cols) {
		return nil, nil, false, false
	}
	restore := b.noCorrelation("a derived table")
	_, fs, err := b.bindFrom(sel.From)
	restore()
	if err != nil {
		return nil, nil, false, false
	}
	both := &scope{cols: append(append([]column(nil), sc.cols...), fs.cols...), innerFrom: len(sc.cols)}
	var local, corr []ast.Expr
	nonEqui := false
	for _, c := range whereConjuncts(sel.Where) {
		if hasSubquery(c) {
			return nil, nil, false, false
		}
		if _, err := b.bindExpr(c, fs, nil); err == nil {
			local = append(local, c)
			continue
		}
		if _, err := b.bindExpr(c, both, nil); err != nil {
			return nil, nil, false, false
		}
		if !astNullRejecting(c) {
			nullSafe = true
		}
		if !b.isColumnEquality(c, sel.From) {
			nonEqui = true
		}
		corr = append(corr, c)
	}
	if !nonEqui {
		return nil, nil, false, false
	}
	// The outer columns the correlation reads, in input's order.
	outerCol := map[int]bool{}
	for _, c := range corr {
		walkAST(c, func(e ast.Expr) {
			if r, ok := e.(*ast.ColumnRef); ok {
				if _, err := fs.resolve(r); err != nil {
					if i, err := sc.resolve(r); err == nil {
						outerCol[i] = true
					}
				}
			}
		})
	}
	var cols []int
	for i := range sc.cols {
		if outerCol[i] {
			cols = append(cols, i)
		}
	}
	var exprs []Expr
	var names []string
	for _, i := range cols {
		exprs = append(exprs, &InputRef{Index: i, T: input.Types()[i]})
		names = append(names, input.Names()[i])
	}
	names = uniquify(names)
	fresh, err := b.freshScans(input, map[Node]Node{})
	if err != nil {
		return nil, nil, false, false
	}
	vg = distinct(&LogicalProject{base: row(names, exprTypes(exprs), fresh), Exprs: exprs})
	vgCol := map[int]string{}
	for k, i := range cols {
		vgCol[i] = names[k]
	}
	toVG := func(c ast.Expr) ast.Expr {
		return substAST(c, func(e ast.Expr) ast.Expr {
			r, ok := e.(*ast.ColumnRef)
			if !ok {
				return nil
			}
			if _, err := fs.resolve(r); err == nil {
				return nil
			}
			i, err := sc.resolve(r)
			if err != nil {
				return nil
			}
			return &ast.ColumnRef{Node: r.Node, Qualifier: vgName, Name: vgCol[i]}
		})
	}
	var on []ast.Expr
	for _, c := range corr {
		on = append(on, toVG(c))
	}
	n := *sel
	n.From = &ast.Join{Node: sel.Node, Kind: ast.InnerJoin, Left: sel.From, Right: &ast.TableRef{Name: ast.ObjectName{Table: vgName}}, On: astAnd(on)}
	for _, i := range cols {
		c := sc.cols[i]
		outer := &ast.ColumnRef{Qualifier: c.qualifier, Name: c.name}
		local = append(local, &ast.Binary{Op: ast.OpEq, L: outer, R: &ast.ColumnRef{Qualifier: vgName, Name: vgCol[i]}})
	}
	n.Where = astAnd(local)
	return &n, vg, nullSafe, true
}

// astNullRejecting reports whether c is a comparison (or BETWEEN) of
// columns, literals and arithmetic: NULL, never TRUE, when a column it
// reads is NULL.
func astNullRejecting(c ast.Expr) bool {
	var operand func(e ast.Expr) bool
	operand = func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.ColumnRef:
			return true
		case *ast.Literal:
			return x.Kind != ast.LitNull
		case *ast.Binary:
			switch x.Op {
			case ast.OpAdd, ast.OpSub, ast.OpMul:
				return operand(x.L) && operand(x.R)
			}
		}
		return false
	}
	switch x := c.(type) {
	case *ast.Binary:
		switch x.Op {
		case ast.OpEq, ast.OpNe, ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe:
			return operand(x.L) && operand(x.R)
		}
	case *ast.Between:
		return !x.Not && operand(x.X) && operand(x.Lo) && operand(x.Hi)
	}
	return false
}

// freshScans is n with a source of its own for every table it scans: the
// value generator reads the outer query's rows a second time, and a
// source's pushed projection or filter (projectIntoScan) is the source's
// state, which two readers of one scan would overwrite for each other.
func (b *binder) freshScans(n Node, done map[Node]Node) (Node, error) {
	if c, ok := done[n]; ok {
		return c, nil
	}
	var out Node
	if scan, ok := n.(*LogicalTableScan); ok && scan.Table != nil && scan.Table.Source != nil {
		ref, err := b.ownSource(scan.Table)
		if err != nil {
			return nil, err
		}
		c := *scan
		c.Table = ref
		out = &c
	} else {
		ins := n.Inputs()
		if len(ins) == 0 {
			out = n
		} else {
			fresh := make([]Node, len(ins))
			for i, in := range ins {
				f, err := b.freshScans(in, done)
				if err != nil {
					return nil, err
				}
				fresh[i] = f
			}
			out = n.WithInputs(fresh...)
		}
	}
	done[n] = out
	return out, nil
}
