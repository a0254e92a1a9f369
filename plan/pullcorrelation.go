package plan

import (
	"strconv"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Correlation pull-up: a subquery correlated below its top SELECT's
// WHERE (in a derived table of its FROM, in either side of a join there,
// in the WHERE of a WITH query it reads) is rewritten so that every
// correlated condition sits in its top SELECT's WHERE, where the
// decorrelation of a filter (bindSubqueryJoin) or of an aggregate
// (decorrelateAggregate) takes it. This is what Flink's
// SubQueryDecorrelator does on the plan (decorrelateRel of a Project,
// Filter, Join and Aggregate): each correlated condition moves up through
// the node above it, which passes on the columns the condition reads
// (a Project adds them to its outputs, an Aggregate to its group keys)
// (SemiAntiJoinTest.testInWithCorrelated_JoinInSubQuery1: Calc(select=[e,
// d]) and Calc(select=[j, k]) below the inner join, the semi join on
// ((b = e) AND (a = d) AND (c = k))).
//
// A condition moves up
//   - through a projection, which gains the columns it reads (named as the
//     column, uniquified among the projection's names);
//   - through GROUP BY or DISTINCT only as an equality of a column with an
//     outer expression: the column joins the group keys (for one outer
//     row, the groups of the rows whose column equals its value), and
//     never through an aggregate without GROUP BY, whose one row over no
//     rows a grouped plan would lose;
//   - through an inner join from either side, the left of a LEFT JOIN and
//     the right of a RIGHT JOIN; from the other side of an outer join it
//     would change which rows the join pads with NULLs, and is refused;
//   - never through ORDER BY ... LIMIT, OFFSET or an OVER window, whose
//     rows depend on the rows the condition removes.

// pullCorrelated returns q with its correlated conditions pulled up into
// its top SELECT's WHERE; ok is false when q is not correlated below it
// (nothing to do: the caller's own decorrelation or error stands).
func (b *binder) pullCorrelated(q ast.QueryExpr, sc *scope) (ast.QueryExpr, bool, error) {
	q = inlineCTEs(q)
	sel, isSel := q.(*ast.Select)
	if !isSel || sel.From == nil {
		return nil, false, nil
	}
	from, pulled, err := b.pullFrom(sel.From, sc)
	if err != nil || len(pulled) == 0 {
		return nil, false, err
	}
	n := *sel
	n.From = from
	n.Where = astAnd(append(whereConjuncts(sel.Where), pulled...))
	return &n, true, nil
}

// inlineCTEs replaces a WITH by its body whose FROM reads each WITH query
// as a derived table of the same name (Calcite's SqlToRelConverter
// expands a WITH query where it is read), so that a correlation inside a
// WITH query is one inside a derived table. A WITH query read elsewhere
// than in FROM (in a nested subquery) is kept as a WITH around the body.
func inlineCTEs(q ast.QueryExpr) ast.QueryExpr {
	w, ok := q.(*ast.With)
	if !ok {
		return q
	}
	defs := map[string]ast.CTE{}
	for _, c := range w.CTEs {
		c.Query = inlineInQuery(c.Query, defs)
		defs[c.Name] = c
	}
	body := inlineCTEs(w.Body)
	return inlineInQuery(body, defs)
}

func inlineInQuery(q ast.QueryExpr, defs map[string]ast.CTE) ast.QueryExpr {
	sel, ok := q.(*ast.Select)
	if !ok || sel.From == nil || len(defs) == 0 {
		return q
	}
	n := *sel
	n.From = inlineInFrom(sel.From, defs)
	return &n
}

func inlineInFrom(t ast.TableExpr, defs map[string]ast.CTE) ast.TableExpr {
	switch x := t.(type) {
	case *ast.TableRef:
		if x.Name.Catalog != "" || x.Name.Database != "" || len(x.Hints) > 0 || x.SystemTimeAsOf != nil {
			return t
		}
		c, ok := defs[x.Name.Table]
		if !ok {
			return t
		}
		alias := x.Alias
		if alias == "" {
			alias = x.Name.Table
		}
		return &ast.SubqueryRef{Node: x.Node, Query: c.Query, Alias: alias, Columns: c.Columns}
	case *ast.SubqueryRef:
		n := *x
		n.Query = inlineInQuery(x.Query, defs)
		return &n
	case *ast.Join:
		n := *x
		n.Left, n.Right = inlineInFrom(x.Left, defs), inlineInFrom(x.Right, defs)
		return &n
	}
	return t
}

// pullFrom is t with the correlated conditions of its derived tables
// pulled out of them: each derived table selects the columns they read,
// and pulled are the conditions over t's columns and the outer row.
func (b *binder) pullFrom(t ast.TableExpr, sc *scope) (ast.TableExpr, []ast.Expr, error) {
	switch x := t.(type) {
	case *ast.SubqueryRef:
		if x.Lateral {
			return t, nil, nil
		}
		restore := b.noCorrelation("a derived table")
		_, berr := b.bindQuery(x.Query)
		restore()
		if berr == nil {
			return t, nil, nil
		}
		q := inlineCTEs(x.Query)
		sel, ok := q.(*ast.Select)
		if !ok || sel.From == nil {
			return t, nil, nil
		}
		inner, pulled, err := b.pullSelect(sel, sc)
		if err != nil || len(pulled) == 0 {
			return t, nil, err
		}
		alias := x.Alias
		if alias == "" {
			alias = "EXPR$cor" + strconv.Itoa(len(b.outer))
		}
		exposed, names, conds, err := b.exposeCorrelation(inner, pulled, alias, x.Columns)
		if err != nil {
			return t, nil, err
		}
		n := *x
		n.Query, n.Alias = exposed, alias
		if len(x.Columns) > 0 {
			n.Columns = names
		}
		return &n, conds, nil
	case *ast.Join:
		l, pl, err := b.pullFrom(x.Left, sc)
		if err != nil {
			return t, nil, err
		}
		r, pr, err := b.pullFrom(x.Right, sc)
		if err != nil {
			return t, nil, err
		}
		n := *x
		n.Left, n.Right = l, r
		pulled := append(pl, pr...)
		on, po, err := b.pullOn(&n, sc)
		if err != nil {
			return t, nil, err
		}
		n.On = on
		pulled = append(pulled, po...)
		if len(pulled) == 0 {
			return t, nil, nil
		}
		refuse := func(side string) error {
			return sql.Errorf(sql.TableException, "sqlrun does not decorrelate a subquery whose correlated condition is on the %s side of a %s JOIN (it would change the rows the join pads with NULLs)", side, x.Kind)
		}
		if len(pl) > 0 && (x.Kind == ast.RightJoin || x.Kind == ast.FullJoin) {
			return t, nil, refuse("left")
		}
		if len(pr) > 0 && (x.Kind == ast.LeftJoin || x.Kind == ast.FullJoin) {
			return t, nil, refuse("right")
		}
		return &n, pulled, nil
	}
	return t, nil, nil
}

// pullOn splits the ON of j (whose sides are pulled already) into its
// conjuncts over j's inputs, the ON that stays, and the correlated ones,
// pulled: as Flink's SubQueryDecorrelator takes a correlated condition
// of an inner join's condition up with the Filter's
// (decorrelateRel(LogicalJoin)); an outer join's correlated ON would
// change the rows it pads with NULLs, and is refused.
func (b *binder) pullOn(j *ast.Join, sc *scope) (ast.Expr, []ast.Expr, error) {
	if j.On == nil || len(j.Using) > 0 {
		return j.On, nil, nil
	}
	probe := *j
	probe.Kind, probe.On = ast.CrossJoin, nil
	restore := b.noCorrelation("a derived table")
	_, js, err := b.bindFrom(&probe)
	restore()
	if err != nil {
		return j.On, nil, nil
	}
	both := &scope{cols: append(append([]column(nil), sc.cols...), js.cols...), innerFrom: len(sc.cols)}
	var local, pulled []ast.Expr
	for _, c := range whereConjuncts(j.On) {
		if hasSubquery(c) {
			local = append(local, c)
			continue
		}
		if _, err := b.bindExpr(c, js, nil); err == nil {
			local = append(local, c)
			continue
		}
		if _, err := b.bindExpr(c, both, nil); err != nil {
			local = append(local, c) // not a correlation: its own error later
			continue
		}
		pulled = append(pulled, qualifyOuter(c, js, sc))
	}
	if len(pulled) == 0 {
		return j.On, nil, nil
	}
	if j.Kind != ast.InnerJoin && j.Kind != ast.CrossJoin && j.Kind != "" {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not decorrelate a subquery whose correlated condition %s is in the ON of a %s JOIN (it would change the rows the join pads with NULLs)", sqlText(pulled[0]), j.Kind)
	}
	if len(local) == 0 {
		return &ast.Literal{Kind: ast.LitBool, Raw: "TRUE", Value: true, Type: sql.Boolean().NotNull()}, pulled, nil
	}
	return astAnd(local), pulled, nil
}

// pullSelect splits sel's WHERE into the conjuncts over its own FROM and
// the correlated ones, after pulling those of its FROM: sel without them,
// and them (over sel's FROM and the outer row, its outer references
// qualified so that they keep naming the outer row higher up).
func (b *binder) pullSelect(sel *ast.Select, sc *scope) (*ast.Select, []ast.Expr, error) {
	from, pulled, err := b.pullFrom(sel.From, sc)
	if err != nil {
		return nil, nil, err
	}
	restore := b.noCorrelation("a derived table")
	_, fs, ferr := b.bindFrom(from)
	restore()
	if ferr != nil {
		return nil, nil, nil // correlated where sqlrun does not pull from: the caller's error stands
	}
	both := &scope{cols: append(append([]column(nil), sc.cols...), fs.cols...), innerFrom: len(sc.cols)}
	var local []ast.Expr
	for _, c := range whereConjuncts(sel.Where) {
		if hasSubquery(c) {
			local = append(local, c)
			continue
		}
		if _, err := b.bindExpr(c, fs, nil); err == nil {
			local = append(local, c)
			continue
		}
		if _, err := b.bindExpr(c, both, nil); err != nil {
			local = append(local, c) // not a correlation: its own error later
			continue
		}
		pulled = append(pulled, qualifyOuter(c, fs, sc))
	}
	n := *sel
	n.From = from
	n.Where = astAnd(local)
	return &n, pulled, nil
}

// qualifyOuter qualifies the references of c to the outer row (the
// columns fs does not resolve and sc does) with their table, so that
// they name the outer row in the SELECTs above too.
func qualifyOuter(c ast.Expr, fs, sc *scope) ast.Expr {
	return substAST(c, func(e ast.Expr) ast.Expr {
		ref, ok := e.(*ast.ColumnRef)
		if !ok || ref.Qualifier != "" {
			return nil
		}
		if _, err := fs.resolve(ref); err == nil {
			return nil
		}
		i, err := sc.resolve(ref)
		if err != nil || sc.cols[i].qualifier == "" {
			return nil
		}
		return &ast.ColumnRef{Node: ref.Node, Qualifier: sc.cols[i].qualifier, Name: ref.Name}
	})
}

// exposeCorrelation makes sel (a derived table named alias, with column
// aliases cols if any) select the columns its pulled conditions read, and
// returns it, its column names (with the new ones) and the conditions
// over alias's columns.
func (b *binder) exposeCorrelation(sel *ast.Select, pulled []ast.Expr, alias string, cols []string) (*ast.Select, []string, []ast.Expr, error) {
	n, names, conds, _, err := b.exposeCorrelationCols(sel, pulled, alias, cols)
	return n, names, conds, err
}

// exposeCorrelationCols is exposeCorrelation, and the columns of sel's
// FROM the conditions read (once each, in the order first read).
func (b *binder) exposeCorrelationCols(sel *ast.Select, pulled []ast.Expr, alias string, cols []string) (*ast.Select, []string, []ast.Expr, []ast.Expr, error) {
	refuse := func(why string) error {
		shown := *sel // as written: with its correlated conditions
		shown.Where = astAnd(append(whereConjuncts(sel.Where), pulled...))
		return sql.Errorf(sql.TableException, "sqlrun does not decorrelate the subquery (%s): %s", ast.FormatQuery(&shown), why)
	}
	if len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Offset != nil {
		return nil, nil, nil, nil, refuse("a correlated condition below ORDER BY, LIMIT or OFFSET")
	}
	for _, it := range sel.Items {
		if !it.Star && astHasOver(it.Expr) {
			return nil, nil, nil, nil, refuse("a correlated condition below an OVER window")
		}
	}
	grouped := len(sel.GroupBy) > 0 || sel.Having != nil
	aggregating := grouped || sel.Distinct || b.selectsAgg(sel)
	if aggregating && !grouped && !sel.Distinct {
		return nil, nil, nil, nil, refuse("a correlated aggregate without GROUP BY inside a derived table or join")
	}
	restore := b.noCorrelation("a derived table")
	_, fs, err := b.bindFrom(sel.From)
	restore()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	n := *sel
	n.Items = append([]ast.SelectItem(nil), sel.Items...)
	n.GroupBy = append([]ast.Expr(nil), sel.GroupBy...)
	names := make([]string, 0, len(sel.Items))
	for i, it := range sel.Items {
		switch {
		case i < len(cols):
			names = append(names, cols[i])
		case it.Alias != "":
			names = append(names, it.Alias)
		case it.Star:
			// A star's columns are the FROM's (or one table's).
			for _, c := range fs.cols {
				if it.StarQualifier == "" || it.StarQualifier == c.qualifier {
					names = append(names, c.name)
				}
			}
		default:
			if r, ok := it.Expr.(*ast.ColumnRef); ok {
				names = append(names, r.Name)
			} else {
				names = append(names, "EXPR$"+strconv.Itoa(i))
			}
		}
	}
	taken := map[string]bool{}
	for _, nm := range names {
		taken[nm] = true
	}
	exposedAt := map[int]string{} // a FROM column: its name in the derived table
	count := map[string]int{}
	for _, nm := range names {
		count[nm]++
	}
	for i, it := range sel.Items {
		if it.Star && len(cols) == 0 {
			// A column a star selects, under its own name when no
			// other column has it.
			for k, c := range fs.cols {
				if _, dup := exposedAt[k]; !dup && count[c.name] == 1 && (it.StarQualifier == "" || it.StarQualifier == c.qualifier) {
					exposedAt[k] = c.name
				}
			}
			continue
		}
		if r, ok := it.Expr.(*ast.ColumnRef); ok && !it.Star && len(cols) == 0 {
			if k, err := fs.resolve(r); err == nil {
				if _, dup := exposedAt[k]; !dup {
					exposedAt[k] = names[i]
				}
			}
		}
	}
	var read []ast.Expr
	readAt := map[int]bool{}
	expose := func(ref *ast.ColumnRef) (ast.Expr, error) {
		k, err := fs.resolve(ref)
		if err != nil {
			return nil, nil
		}
		if !readAt[k] {
			readAt[k] = true
			read = append(read, ref)
		}
		nm, ok := exposedAt[k]
		if !ok {
			nm = ref.Name
			for i := 0; taken[nm]; i++ {
				nm = ref.Name + strconv.Itoa(i)
			}
			taken[nm] = true
			exposedAt[k] = nm
			c := *ref
			n.Items = append(n.Items, ast.SelectItem{Node: ref.Node, Expr: &c, Alias: nm})
			names = append(names, nm)
			if grouped {
				n.GroupBy = append(n.GroupBy, &c)
			}
		}
		return &ast.ColumnRef{Node: ref.Node, Qualifier: alias, Name: nm}, nil
	}
	var conds []ast.Expr
	for _, c := range pulled {
		if aggregating {
			eq, ok := c.(*ast.Binary)
			innerSide := 0
			if ok && eq.Op == ast.OpEq {
				for _, s := range []ast.Expr{eq.L, eq.R} {
					if r, isRef := s.(*ast.ColumnRef); isRef {
						if _, err := fs.resolve(r); err == nil {
							innerSide++
							continue
						}
					}
					if readsScope(s, fs) {
						innerSide += 2
					}
				}
			}
			if innerSide != 1 {
				return nil, nil, nil, nil, refuse("its correlation " + sqlText(c) + " under GROUP BY or DISTINCT is not an equality of an outer expression and a column of its FROM")
			}
		}
		var ferr error
		c2 := substAST(c, func(e ast.Expr) ast.Expr {
			ref, ok := e.(*ast.ColumnRef)
			if !ok {
				return nil
			}
			r, err := expose(ref)
			if err != nil && ferr == nil {
				ferr = err
			}
			if r == nil {
				return nil
			}
			return r
		})
		if ferr != nil {
			return nil, nil, nil, nil, ferr
		}
		conds = append(conds, c2)
	}
	return &n, names, conds, read, nil
}

// whereConjuncts are the conjuncts of a WHERE or ON, none for none.
func whereConjuncts(e ast.Expr) []ast.Expr {
	if e == nil {
		return nil
	}
	return astConjuncts(e)
}

// readsScope reports whether e reads a column s resolves.
func readsScope(e ast.Expr, s *scope) bool {
	found := false
	walkAST(e, func(e ast.Expr) {
		if r, ok := e.(*ast.ColumnRef); ok {
			if _, err := s.resolve(r); err == nil {
				found = true
			}
		}
	})
	return found
}

// astHasOver reports an OVER window in e.
func astHasOver(e ast.Expr) bool {
	found := false
	walkAST(e, func(e ast.Expr) {
		if f, ok := e.(*ast.FuncCall); ok && f.Over != nil {
			found = true
		}
	})
	return found
}
