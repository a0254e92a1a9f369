package plan

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Lookup joins: `FROM o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time ON
// o.k = dim.id` against a source that implements connectors.LookupSource.
// Binding builds Calcite's shape, a LogicalCorrelate over the left input
// and LogicalFilter / LogicalSnapshot / the dim's scan (the AST EXPLAIN
// prints); the LookupJoin rule turns it into a join of the left input
// alone (Flink's LogicalCorrelateToJoinFromTemporalTableRule), the
// LookupJoinPushDown rule moves WHERE conjuncts into it and prunes both
// sides (FlinkFilterJoinRule, FlinkProjectJoinTransposeRule on the
// temporal join), and convert makes Flink's LookupJoin node
// (StreamPhysicalLookupJoinRule with CommonPhysicalLookupJoin's analysis
// of lookup keys, the dim-side condition and the join condition).

// lookupDim is what a lookup join knows of its dimension table.
type lookupDim struct {
	Table *TableRef
	// Exprs compute the dim's row (physical and computed columns) from
	// the physical row the source returns.
	Exprs []Expr
	Names []string
	Types []sql.DataType
	Kind  ast.JoinKind
}

// LogicalCorrelate is Calcite's correlate of a lookup join, AST only: its
// inputs are the left input and the correlated filter over the snapshot
// of the dim table.
type LogicalCorrelate struct {
	base
	dim      *lookupDim
	Cond     Expr // over the left fields, then the dim's
	Required []int
	// temporal is set for an event-time temporal join (temporaljoin.go).
	temporal *temporalVersioned
	// queryHints are its query block's LOOKUP hints (joinhint.go).
	queryHints []queryHint
}

// LogicalSnapshot is the dim table AS OF the period (AST only).
type LogicalSnapshot struct {
	base
	period string
}

// correlateFilter is the correlated LogicalFilter of the AST: its
// condition reads the left input's fields as $cor0.name.
type correlateFilter struct {
	base
	digest string
}

// LogicalLookupJoin is the lookup join after the LookupJoin rule: one
// input (the left), the dim read per row. Cond reads the input's fields,
// then the dim's; the output row is the input's, then the dim's fields
// Select (all when nil).
type LogicalLookupJoin struct {
	base
	dim    *lookupDim
	Cond   Expr
	Select []int
	pushed bool
}

// LookupKey is one key of a lookup: the dim's physical field and the
// left input field (Left >= 0), expression over the left input (Expr,
// such as a CAST to the key's type) or constant that gives its value.
type LookupKey struct {
	DimField int
	Left     int
	Expr     Expr
	Const    *Literal
}

// LookupJoin is Flink's StreamPhysicalLookupJoin: for every input row the
// dim table is looked up by Keys, its rows computed (DimExprs), filtered
// (Where, over the physical row) and joined (JoinCond, over the output
// row). The output is the input's fields, then the dim's fields Select.
type LookupJoin struct {
	base
	Table    *TableRef
	JoinType ast.JoinKind
	Keys     []LookupKey
	// DimExprs compute the dim's row from the source's physical row.
	DimExprs []Expr
	DimNames []string
	Where    Expr
	Select   []int
	JoinCond Expr
}

func (*LogicalCorrelate) Name() string  { return "LogicalCorrelate" }
func (*LogicalSnapshot) Name() string   { return "LogicalSnapshot" }
func (*correlateFilter) Name() string   { return "LogicalFilter" }
func (*LogicalLookupJoin) Name() string { return "FlinkLogicalLookupJoin" }
func (*LookupJoin) Name() string        { return "LookupJoin" }

func (n *LogicalCorrelate) WithInputs(in ...Node) Node  { c := *n; c.base = n.with(in); return &c }
func (n *LogicalSnapshot) WithInputs(in ...Node) Node   { c := *n; c.base = n.with(in); return &c }
func (n *correlateFilter) WithInputs(in ...Node) Node   { c := *n; c.base = n.with(in); return &c }
func (n *LogicalLookupJoin) WithInputs(in ...Node) Node { c := *n; c.base = n.with(in); return &c }
func (n *LookupJoin) WithInputs(in ...Node) Node        { c := *n; c.base = n.with(in); return &c }

func (n *LogicalCorrelate) describe(Format) string {
	req := make([]string, len(n.Required))
	for i, f := range n.Required {
		req[i] = strconv.Itoa(f)
	}
	return "LogicalCorrelate(correlation=[$cor0], joinType=[" + strings.ToLower(string(n.dim.Kind)) +
		"], requiredColumns=[{" + strings.Join(req, ", ") + "}]" + joinHintsDigest(n.queryHints) + ")"
}

func (n *LogicalSnapshot) describe(Format) string {
	return "LogicalSnapshot(period=[" + n.period + "])"
}
func (n *correlateFilter) describe(Format) string {
	return "LogicalFilter(condition=[" + n.digest + "])"
}

func (n *LogicalLookupJoin) describe(f Format) string {
	in := n.input().Names()
	both := append(append([]string(nil), in...), n.dim.Names...)
	s := "FlinkLogicalLookupJoin(table=[" + n.dim.Table.ID.String() + "], joinType=[" + joinTypeName(n.dim.Kind) + "]"
	if n.Cond != nil {
		s += ", condition=[" + FormatExpr(n.Cond, both, f) + "]"
	}
	return s + ", select=[" + strings.Join(n.names, ", ") + "])"
}

func (n *LookupJoin) describe(f Format) string {
	phys := n.Table.Schema.Names()
	in := n.input().Names()
	var keys []string
	for _, k := range n.Keys {
		var v string
		switch {
		case k.Left >= 0:
			v = in[k.Left]
		case k.Expr != nil:
			v = FormatExpr(k.Expr, in, f)
		default:
			v = FormatExpr(k.Const, nil, FormatAST) // RexLiteral.toString
		}
		keys = append(keys, phys[k.DimField]+"="+v)
	}
	s := "LookupJoin(table=[" + n.Table.ID.String() + "], joinType=[" + joinTypeName(n.JoinType) + "], lookup=[" + strings.Join(keys, ", ") + "]"
	if n.Where != nil {
		s += ", where=[" + FormatExpr(n.Where, phys, f) + "]"
	}
	if n.JoinCond != nil {
		s += ", joinCondition=[" + FormatExpr(n.JoinCond, n.names, f) + "]"
	}
	sel := append([]string(nil), in...)
	for i, d := range n.Select {
		name := n.names[len(in)+i]
		e := n.DimExprs[d]
		if _, ok := e.(*InputRef); ok {
			sel = append(sel, name)
			continue
		}
		sel = append(sel, FormatExpr(e, phys, f)+" AS "+name)
	}
	return s + ", select=[" + strings.Join(sel, ", ") + "])"
}

// bindLookupJoin binds `left [LEFT] JOIN dim FOR SYSTEM_TIME AS OF
// left.proc ON ...`.
func (b *binder) bindLookupJoin(x *ast.Join, tr *ast.TableRef) (Node, *scope, error) {
	l, ls, err := b.bindFrom(x.Left)
	if err != nil {
		return nil, nil, err
	}
	period, err := b.bindExpr(tr.SystemTimeAsOf, ls, nil)
	if err != nil {
		return nil, nil, err
	}
	pref, ok := period.(*InputRef)
	if !ok {
		return nil, nil, asOfError(tr.SystemTimeAsOf)
	}
	switch timeAttr(l, pref.Index) {
	case procTime:
		if isLookup, err := b.lookupSourceRef(tr); err != nil {
			return nil, nil, err
		} else if !isLookup {
			// Flink plans a processing-time temporal join, which
			// StreamExecTemporalJoin refuses to run (compile does).
			return b.bindTemporalJoin(x, tr, l, ls, pref.Index, false)
		}
	case rowTime:
		return b.bindTemporalJoin(x, tr, l, ls, pref.Index, true)
	default:
		return nil, nil, sql.Errorf(sql.ValidationException,
			"Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field")
	}
	kind, err := correlateKind(x)
	if err != nil {
		return nil, nil, err
	}
	if tr.Name.Catalog == "" && tr.Name.Database == "" {
		if _, ok := b.ctes[tr.Name.Table]; ok {
			return nil, nil, sql.Errorf(sql.TableException, "sqlrun supports FOR SYSTEM_TIME AS OF on a table only, not on the WITH query '%s'", tr.Name.Table)
		}
	}
	ref, err := b.resolveTable(tr.Name, tr.Hints)
	if err != nil {
		return nil, nil, err
	}
	if err := b.createSource(ref); err != nil {
		return nil, nil, err
	}
	if len(ref.Table.MetadataColumns()) > 0 {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun cannot look up table '%s' yet: it declares metadata columns", ref.ID)
	}
	var dimRel Node = &LogicalTableScan{base: row(ref.Schema.Names(), scanTypes(ref)), Table: ref}
	dimExprs := identity(scanTypes(ref))
	if len(ref.Table.NonPhysical) > 0 {
		if dimRel, err = b.expandScan(ref); err != nil {
			return nil, nil, err
		}
		if p, ok := dimRel.(*LogicalProject); ok {
			dimExprs = p.Exprs
		}
	}
	q := ref.ID.Name
	if tr.Alias != "" {
		q = tr.Alias
	}
	if x.On == nil && len(x.Using) > 0 {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support USING in a lookup join yet; write ON")
	}
	sc, cond, err := b.bindCorrelateOn(x, ls, scopeOf(dimRel, q), kind)
	if err != nil {
		return nil, nil, err
	}
	dim := &lookupDim{Table: ref, Exprs: dimExprs, Names: dimRel.Names(), Types: dimRel.Types(), Kind: kind}
	c := newCorrelate(l, dimRel, sc, pref.Index, cond)
	c.dim = dim
	if err := b.resolveLookupHints(c, q); err != nil {
		return nil, nil, err
	}
	return c, sc, nil
}

// correlateKind is the join type of a FOR SYSTEM_TIME AS OF join: INNER
// (also for a comma or CROSS join) or LEFT; Flink's Correlate refuses the
// others.
func correlateKind(x *ast.Join) (ast.JoinKind, error) {
	switch x.Kind {
	case ast.InnerJoin, ast.LeftJoin:
		return x.Kind, nil
	case ast.CrossJoin, "":
		return ast.InnerJoin, nil
	}
	return "", sql.Errorf(sql.TableException, "Correlate has invalid join type %s", x.Kind)
}

// bindCorrelateOn binds the ON clause of a FOR SYSTEM_TIME AS OF join over
// the left scope and the right one (nullable on a LEFT join); it returns
// the joined scope and the condition (TRUE without ON).
func (b *binder) bindCorrelateOn(x *ast.Join, ls, rs *scope, kind ast.JoinKind) (*scope, Expr, error) {
	sc := &scope{}
	sc.cols = append(sc.cols, ls.cols...)
	for _, c := range rs.cols {
		if kind == ast.LeftJoin {
			c.t = c.t.WithNullable(true)
		}
		sc.cols = append(sc.cols, c)
	}
	var cond Expr = &Literal{Value: true, T: sql.Boolean().NotNull()}
	if x.On == nil {
		return sc, cond, nil
	}
	if b.hasAgg(x.On) {
		return nil, nil, validationErr(x.On.Pos(), 1, "Aggregate expression is illegal in ON clause")
	}
	cond, err := b.bindExpr(x.On, sc, nil)
	if err != nil {
		return nil, nil, err
	}
	if cond.Type().Root != sql.TypeBoolean {
		return nil, nil, validationErr(x.On.Pos(), 1, "ON clause must be a condition")
	}
	return sc, cond, nil
}

// newCorrelate is Calcite's LogicalCorrelate of a FOR SYSTEM_TIME AS OF
// join: the left input, and the right one under a LogicalSnapshot at the
// left's time field and the correlated filter; Required are the left
// fields the condition and the period read.
func newCorrelate(l, r Node, sc *scope, leftTime int, cond Expr) *LogicalCorrelate {
	nl := len(l.Names())
	req := map[int]bool{leftTime: true}
	refs(cond, req)
	var required []int
	for f := range req {
		if f < nl {
			required = append(required, f)
		}
	}
	sort.Ints(required)
	leftNames := l.Names()
	filter := &correlateFilter{base: row(r.Names(), r.Types(),
		&LogicalSnapshot{base: sameRow(r), period: "$cor0." + leftNames[leftTime]}),
		digest: correlatedDigest(cond, leftNames, len(r.Names()))}
	names := uniquify(append(append([]string(nil), leftNames...), r.Names()...))
	types := make([]sql.DataType, len(sc.cols))
	for i, c := range sc.cols {
		types[i] = c.t
	}
	return &LogicalCorrelate{base: row(names, types, l, filter), Cond: cond, Required: required}
}

// lookupSourceRef reports whether tr names a table whose source can be
// looked up (not a view, nor a WITH query).
func (b *binder) lookupSourceRef(tr *ast.TableRef) (bool, error) {
	if tr.Name.Catalog == "" && tr.Name.Database == "" {
		if _, ok := b.ctes[tr.Name.Table]; ok {
			return false, sql.Errorf(sql.TableException, "sqlrun supports FOR SYSTEM_TIME AS OF on a table only, not on the WITH query '%s'", tr.Name.Table)
		}
	}
	if _, t, err := b.env.LookupTable(tr.Name); err == nil && t.IsView() {
		return false, nil
	}
	ref, err := b.resolveTable(tr.Name, tr.Hints)
	if err != nil {
		return false, err
	}
	if err := b.createSource(ref); err != nil {
		return false, err
	}
	_, ok := ref.Source.(connectors.LookupSource)
	return ok, nil
}

// asOfError is Flink's refusal of a period that is not a field of the
// left input.
func asOfError(e ast.Expr) error {
	head := "Temporal table can only be used in temporal join and only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field.\nQuerying a temporal table using 'FOR SYSTEM TIME AS OF' syntax with "
	switch x := e.(type) {
	case *ast.Literal:
		v := x.Raw
		if v == "" {
			v = x.String()
		}
		return sql.Errorf(sql.TableException, "%sa constant timestamp '%s' is not supported yet.", head, strings.Trim(strings.TrimPrefix(v, "TIMESTAMP "), "'"))
	case *ast.FuncCall:
		return sql.Errorf(sql.TableException, "%san expression call '%s' is not supported yet.", head, x.String())
	}
	return sql.Errorf(sql.TableException, "%san expression '%s' is not supported yet.", head, e.String())
}

var refRe = regexp.MustCompile(`\$(\d+)`)

// correlatedDigest prints the ON condition as Calcite's correlated filter
// does: the dim's fields as $i, the left's as $cor0.name.
func correlatedDigest(cond Expr, left []string, nd int) string {
	nl := len(left)
	const far = 1 << 20
	m := map[int]int{}
	for i := 0; i < nl; i++ {
		m[i] = far + i
	}
	for j := 0; j < nd; j++ {
		m[nl+j] = j
	}
	s := FormatExpr(remap(cond, m), nil, FormatAST)
	return refRe.ReplaceAllStringFunc(s, func(r string) string {
		i, _ := strconv.Atoi(r[1:])
		if i >= far {
			return "$cor0." + left[i-far]
		}
		return r
	})
}

// lookupJoinRule turns the correlate into a join of its left input with
// the dim table read by key (LogicalCorrelateToJoinFromTemporalTableRule).
func lookupJoinRule(_ *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalCorrelate)
	if !ok {
		return nil, nil
	}
	if t := c.temporal; t != nil {
		return temporalJoinRule(c, t), nil
	}
	return &LogicalLookupJoin{base: row(c.names, c.types, c.inputs[0]), dim: c.dim, Cond: c.Cond}, nil
}

// lookupPushDown moves an inner lookup join's conjuncts over the left
// input alone (from ON or from a WHERE above) below it and the WHERE's
// other conjuncts into it, and projects the left input and the dim to
// the fields used above and by the join (FlinkFilterJoinRule,
// FlinkProjectJoinTransposeRule).
func lookupPushDown(_ *binder, n Node) (Node, error) {
	c, _ := n.(*LogicalCalc)
	j, ok := n.(*LogicalLookupJoin)
	if c != nil {
		j, ok = c.input().(*LogicalLookupJoin)
	}
	if !ok || j.pushed {
		return nil, nil
	}
	left := j.input()
	nl := len(left.Names())
	nd := len(j.dim.Names)
	inner := j.dim.Kind == ast.InnerJoin
	leftOnly := func(e Expr) bool {
		m := map[int]bool{}
		refs(e, m)
		for f := range m {
			if f >= nl {
				return false
			}
		}
		return true
	}
	var joinConj, leftConj, above []Expr
	for _, e := range conjuncts(j.Cond) {
		switch {
		case isTrueLiteral(e):
		case inner && leftOnly(e):
			leftConj = append(leftConj, e)
		default:
			joinConj = append(joinConj, e)
		}
	}
	// A dim field an inner join's condition fixes to a constant is that
	// constant above the join (Flink's ReduceExpressionsRule), cast to the
	// field's type.
	fixed := map[int]Expr{}
	if inner && c != nil {
		for _, e := range joinConj {
			call, ok := e.(*Call)
			if !ok || call.Op != "=" || len(call.Args) != 2 {
				continue
			}
			for _, o := range [][2]Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
				r, isRef := o[0].(*InputRef)
				lit, isLit := o[1].(*Literal)
				if isRef && isLit && r.Index >= nl && lit.Value != nil {
					if _, dup := fixed[r.Index]; !dup {
						var k Expr = lit
						if !lit.T.Equal(r.T) {
							k = &Call{Op: "CAST", Args: []Expr{lit}, T: r.T}
						}
						fixed[r.Index] = k
					}
					break
				}
			}
		}
	}
	used := map[int]bool{}
	if c != nil {
		if len(fixed) > 0 {
			exprs := make([]Expr, len(c.Exprs))
			for i, e := range c.Exprs {
				exprs[i] = substituteRefs(e, fixed)
			}
			cc := *c
			cc.Exprs = exprs
			c = &cc
		}
		if c.Cond != nil {
			for _, e := range conjuncts(c.Cond) {
				switch {
				case leftOnly(e): // the left's rows are kept by both kinds
					leftConj = append(leftConj, e)
				case !inner:
					above = append(above, e)
				default:
					joinConj = append(joinConj, e)
				}
			}
		}
		for _, e := range c.Exprs {
			refs(e, used)
		}
		for _, e := range above {
			refs(e, used)
		}
	} else {
		for i := 0; i < nl+nd; i++ {
			used[i] = true
		}
	}
	jnames, jtypes := j.names, j.types
	dim := j.dim
	if pushed := pushLookupExpressions(joinConj, left, dim, nl); pushed != nil {
		// The fields below the join's row move up by the left's new
		// ones; a Calc above puts the row back as it was.
		sh := func(e Expr) Expr { return remap(e, pushed.shift) }
		if c == nil {
			exprs := make([]Expr, nl+nd)
			for f := range exprs {
				exprs[f] = &InputRef{Index: f, T: j.types[f]}
			}
			c = &LogicalCalc{base: row(j.names, j.types, j), Exprs: exprs}
		}
		cc := *c
		cc.Exprs = make([]Expr, len(c.Exprs))
		for i, e := range c.Exprs {
			cc.Exprs[i] = sh(e)
		}
		c = &cc
		for i, e := range above {
			above[i] = sh(e)
		}
		used = map[int]bool{}
		for _, e := range c.Exprs {
			refs(e, used)
		}
		for _, e := range above {
			refs(e, used)
		}
		joinConj, left, dim = pushed.conds, pushed.left, pushed.dim
		nl, nd = len(left.Names()), len(dim.Names)
		jnames = uniquify(append(append([]string(nil), left.Names()...), dim.Names...))
		jtypes = append(append([]sql.DataType(nil), left.Types()...), dim.Types...)
		if dim.Kind == ast.LeftJoin {
			for i := nl; i < len(jtypes); i++ {
				jtypes[i] = jtypes[i].WithNullable(true)
			}
		}
	}
	needLeft := map[int]bool{}
	needDim := map[int]bool{}
	for f := range used {
		if f < nl {
			needLeft[f] = true
		} else {
			needDim[f-nl] = true
		}
	}
	for _, e := range joinConj {
		m := map[int]bool{}
		refs(e, m)
		dimOnly := !leftOnly(e)
		for f := range m {
			if f < nl {
				dimOnly = false
				needLeft[f] = true
			}
		}
		if dimOnly {
			continue // evaluated on the dim's row (where=[...])
		}
		for f := range m {
			if f >= nl {
				needDim[f-nl] = true
			}
		}
	}
	var leftFields, sel []int
	for i := 0; i < nl; i++ {
		if needLeft[i] {
			leftFields = append(leftFields, i)
		}
	}
	for d := 0; d < nd; d++ {
		if needDim[d] {
			sel = append(sel, d)
		}
	}
	newLeft := Node(left)
	if len(leftFields) < nl || len(leftConj) > 0 {
		newLeft = joinSide(left, leftFields, and(leftConj))
	}
	nl2 := len(leftFields)
	condMap := map[int]int{} // old → over the new left, then the whole dim
	outMap := map[int]int{}  // old → output of the new join
	for i, f := range leftFields {
		condMap[f], outMap[f] = i, i
	}
	for d := 0; d < nd; d++ {
		condMap[nl+d] = nl2 + d
	}
	for i, d := range sel {
		outMap[nl+d] = nl2 + i
	}
	var names []string
	var types []sql.DataType
	for _, f := range leftFields {
		names, types = append(names, jnames[f]), append(types, jtypes[f])
	}
	for _, d := range sel {
		names, types = append(names, jnames[nl+d]), append(types, jtypes[nl+d])
	}
	var cond Expr
	if len(joinConj) > 0 {
		cond = remap(and(joinConj), condMap)
	}
	out := &LogicalLookupJoin{base: row(names, types, newLeft), dim: dim, Cond: cond, Select: sel, pushed: true}
	if c == nil {
		return out, nil
	}
	exprs := make([]Expr, len(c.Exprs))
	for i, e := range c.Exprs {
		exprs[i] = remap(e, outMap)
	}
	var cc Expr
	if len(above) > 0 {
		cc = remap(and(above), outMap)
	}
	return &LogicalCalc{base: row(c.names, exprTypes(exprs), out), Exprs: exprs, Cond: cc}, nil
}

// pushedLookup is a lookup join whose equalities computed an operand
// below it (pushLookupExpressions).
type pushedLookup struct {
	left  Node
	dim   *lookupDim
	conds []Expr
	// shift maps the fields of the join's row to the new row's.
	shift map[int]int
}

// pushLookupExpressions is CoreRules.JOIN_PUSH_EXPRESSIONS (Calcite's
// RelOptUtil.pushDownEqualJoinConditions, in Flink's PREDICATE_PUSHDOWN
// program, after JoinConditionTypeCoerceRule) on a lookup join: of an
// equality between the left input and the dim, an operand that is an
// expression over one side alone becomes a field of that side. The left's
// is computed in a Calc below the join (CAST(c AS INTEGER) AS c0, (a + 1)
// AS $f5), so that it can be a lookup key (lookup=[id=c0]); the dim's in
// the join's calc on the dim (CONCAT(name, '!') AS $f3, then
// joinCondition=[(b = $f3)]): no key. An equality of two fields of
// different types first casts one to their common type
// (JoinConditionTypeCoerceRule), which is then pushed the same way
// (lookup=[id=a0] over CAST(a AS BIGINT) AS a0). Conjuncts over one side
// alone are not touched: Flink moves those below the join or into the
// dim's calc. nil when nothing moves.
func pushLookupExpressions(conds []Expr, left Node, dim *lookupDim, nl int) *pushedLookup {
	nd := len(dim.Names)
	var cross []Expr
	out := make([]Expr, len(conds))
	isCross := make([]bool, len(conds))
	for i, c := range conds {
		if l, r := exprSides(c, nl); l && r {
			if cc, err := coerceJoinCondition(c); err == nil {
				c = cc
			}
			cross = append(cross, c)
			isCross[i] = true
		}
	}
	if len(cross) == 0 {
		return nil
	}
	pc, le, re := pushJoinExpressions(and(cross), nl, nd)
	if len(le)+len(re) == 0 {
		return nil
	}
	shift := map[int]int{}
	for i := 0; i < nl+nd; i++ {
		shift[i] = i
		if i >= nl {
			shift[i] = i + len(le)
		}
	}
	pcs := conjuncts(pc)
	k := 0
	for i, c := range conds {
		if isCross[i] {
			out[i] = pcs[k]
			k++
			continue
		}
		out[i] = remap(c, shift)
	}
	// The dim's new fields, computed from the source's physical row.
	nd2 := *dim
	nd2.Exprs = append([]Expr(nil), dim.Exprs...)
	nd2.Names = append([]string(nil), dim.Names...)
	nd2.Types = append([]sql.DataType(nil), dim.Types...)
	taken := map[string]bool{}
	for _, n := range nd2.Names {
		taken[strings.ToLower(n)] = true
	}
	for _, e := range re {
		name := inferAlias(e, dim.Names)
		if name == "" || taken[strings.ToLower(name)] {
			base, j := name, 0
			if name == "" {
				base, j = "$f", len(nd2.Names)
			}
			for name = base + strconv.Itoa(j); taken[strings.ToLower(name)]; j++ {
				name = base + strconv.Itoa(j+1)
			}
		}
		taken[strings.ToLower(name)] = true
		nd2.Exprs = append(nd2.Exprs, inline(e, dim.Exprs))
		nd2.Names = append(nd2.Names, name)
		nd2.Types = append(nd2.Types, e.Type())
	}
	return &pushedLookup{left: withExprs(left, le), dim: &nd2, conds: out, shift: shift}
}

// substituteRefs replaces the references to the fields of m.
func substituteRefs(e Expr, m map[int]Expr) Expr {
	switch x := e.(type) {
	case *InputRef:
		if k, ok := m[x.Index]; ok {
			return k
		}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = substituteRefs(a, m)
		}
		return &Call{Op: x.Op, Args: args, T: x.T, Written: x.Written}
	}
	return e
}

// convertLookupJoin analyzes the join condition as Flink's
// CommonPhysicalLookupJoin does: `dim.field = left.field` and
// `dim.field = constant` are lookup keys, conjuncts over the dim alone
// filter its rows (where=[...]), the rest is the join condition.
func (b *binder) convertLookupJoin(r *LogicalLookupJoin) (Node, error) {
	in, err := b.convert(r.input())
	if err != nil {
		return nil, err
	}
	d := r.dim
	nl := len(in.Names())
	sel := r.Select
	if sel == nil {
		for i := range d.Names {
			sel = append(sel, i)
		}
	}
	physOf := func(e Expr) (int, bool) {
		x, ok := e.(*InputRef)
		if !ok || x.Index < nl {
			return 0, false
		}
		p, ok := d.Exprs[x.Index-nl].(*InputRef)
		if !ok {
			return 0, false
		}
		return p.Index, true
	}
	for _, e := range conjuncts(r.Cond) {
		if call, ok := e.(*Call); ok && call.Op == "IS NOT DISTINCT FROM" {
			return nil, sql.Errorf(sql.TableException,
				"LookupJoin doesn't support join condition contains 'a IS NOT DISTINCT FROM b' (or alternative '(a = b) or (a IS NULL AND b IS NULL)')")
		}
		// An equality of a dim field with a left expression of another
		// type family (Flink's LookupJoinUtil key type check).
		if call, ok := e.(*Call); ok && call.Op == "=" && len(call.Args) == 2 {
			for _, o := range [][2]Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
				if _, ok := physOf(o[0]); !ok {
					continue
				}
				m := map[int]bool{}
				refs(o[1], m)
				leftOnly := len(m) > 0
				for f := range m {
					leftOnly = leftOnly && f < nl
				}
				if leftOnly && isCharType(o[0].Type()) != isCharType(o[1].Type()) {
					return nil, sql.Errorf(sql.TableException,
						"implicit type conversion between %s and %s is not supported on join's condition now",
						plainType(o[1].Type()), plainType(o[0].Type()))
				}
			}
		}
	}
	keyed := map[int]bool{}
	var constKeys []LookupKey
	var where, nonEqui []Expr
	// The equalities of a left field (or expression) with a dim field:
	// JoinInfo's pairs.
	type pair struct {
		dim  int // the dim row's field
		phys int // its physical field (-1: computed, no key)
		key  LookupKey
		e    Expr
	}
	var pairs []pair
	for _, e := range conjuncts(r.Cond) {
		m := map[int]bool{}
		refs(e, m)
		dimOnly := len(m) > 0
		for f := range m {
			if f < nl {
				dimOnly = false
			}
		}
		call, isCall := e.(*Call)
		isEq := isCall && call.Op == "=" && len(call.Args) == 2
		if dimOnly {
			where = append(where, e)
			if isEq {
				for _, o := range [][2]Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
					p, ok := physOf(o[0])
					lit, isLit := o[1].(*Literal)
					if ok && isLit && lit.Value != nil && !keyed[p] {
						// An integer literal looks up a wider integer field
						// as that type (id = 1 on a BIGINT id).
						if v, ok := keyValue(lit, o[0].Type(), -1); ok {
							if l, ok := v.(*Literal); ok {
								lit = l
							}
						}
					}
					if ok && isLit && lit.Value != nil && !keyed[p] && (sameKeyType(o[0].Type(), lit.Type()) || isCharType(o[0].Type()) && isCharType(lit.Type())) {
						keyed[p] = true
						constKeys = append(constKeys, LookupKey{DimField: p, Left: -1, Const: lit})
						break
					}
				}
			}
			continue
		}
		if isEq {
			done := false
			for _, o := range [][2]Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
				dref, ok := o[0].(*InputRef)
				if !ok || dref.Index < nl {
					continue
				}
				p, isPhys := physOf(o[0])
				if !isPhys {
					// A computed dim field ($f3): a pair, no key.
					if l, ok := o[1].(*InputRef); ok && l.Index < nl {
						pairs = append(pairs, pair{dim: dref.Index - nl, phys: -1, key: LookupKey{Left: l.Index}, e: e})
						done = true
						break
					}
					continue
				}
				v, ok := keyValue(o[1], o[0].Type(), nl)
				if !ok {
					continue
				}
				k := LookupKey{DimField: p, Left: -1, Expr: v}
				if lref, isRef := v.(*InputRef); isRef {
					k = LookupKey{DimField: p, Left: lref.Index}
				}
				pairs = append(pairs, pair{dim: dref.Index - nl, phys: p, key: k, e: e})
				done = true
				break
			}
			if done {
				continue
			}
		}
		nonEqui = append(nonEqui, e)
	}
	// The pairs' lookup keys, one per dim field: the last pair of a field
	// wins, in the place of its first (CommonPhysicalLookupJoin
	// .analyzeLookupKeys builds a Map from the pairs); a pair on a field
	// a constant keys is its key instead.
	var refKeys []LookupKey
	at := map[int]int{}
	for _, pr := range pairs {
		if pr.phys < 0 {
			continue
		}
		if i, ok := at[pr.phys]; ok {
			refKeys[i] = pr.key
			continue
		}
		for ci, ck := range constKeys {
			if ck.DimField == pr.phys {
				constKeys = append(constKeys[:ci:ci], constKeys[ci+1:]...)
				break
			}
		}
		at[pr.phys] = len(refKeys)
		refKeys = append(refKeys, pr.key)
	}
	// The join condition: the pairs whose left field is no lookup key's,
	// then the other conjuncts (splitJoinCondition's remainingEquals ++
	// nonEquiConditions).
	leftKey := map[int]bool{}
	for _, k := range refKeys {
		if k.Left >= 0 {
			leftKey[k.Left] = true
		}
	}
	var residual []Expr
	for _, pr := range pairs {
		if pr.key.Left >= 0 && leftKey[pr.key.Left] || pr.key.Left < 0 && pr.phys >= 0 && refKeys[at[pr.phys]].Expr == pr.key.Expr {
			continue
		}
		residual = append(residual, pr.e)
	}
	residual = append(residual, nonEqui...)
	if len(constKeys)+len(refKeys) == 0 {
		return nil, sql.Errorf(sql.TableException,
			"Temporal table join requires an equality condition on fields of table [%s].", d.Table.ID)
	}
	// The dim-side condition reads the source's physical row.
	var whereExpr Expr
	if len(where) > 0 {
		below := make([]Expr, nl+len(d.Exprs))
		for i, e := range d.Exprs {
			below[nl+i] = e
		}
		whereExpr = inline(and(where), below)
	}
	// The join condition reads the output row.
	var joinCond Expr
	if len(residual) > 0 {
		m := map[int]int{}
		for i := 0; i < nl; i++ {
			m[i] = i
		}
		for i, s := range sel {
			m[nl+s] = nl + i
		}
		joinCond = remap(and(residual), m)
	}
	names := append([]string(nil), in.Names()...)
	types := append([]sql.DataType(nil), in.Types()...)
	for _, s := range sel {
		names = append(names, d.Names[s])
		t := d.Types[s]
		if d.Kind == ast.LeftJoin {
			t = t.WithNullable(true)
		}
		types = append(types, t)
	}
	return &LookupJoin{base: row(uniquify(names), types, in), Table: d.Table, JoinType: d.Kind,
		Keys: append(constKeys, refKeys...), DimExprs: d.Exprs, DimNames: d.Names, Where: whereExpr,
		Select: sel, JoinCond: joinCond}, nil
}

// keyValue is the expression over the left input (fields below nl; a
// constant when nl < 0) that gives a lookup key of type t: e itself when its type is t's, or e cast
// to t when t is a wider integer type; ok is false when e reads the dim or
// nothing, or its type cannot be looked up as t without a lossy cast.
func keyValue(e Expr, t sql.DataType, nl int) (Expr, bool) {
	m := map[int]bool{}
	refs(e, m)
	if len(m) == 0 && nl >= 0 {
		return nil, false
	}
	for f := range m {
		if f >= nl {
			return nil, false
		}
	}
	if sameKeyType(t, e.Type()) {
		return e, true
	}
	rank := map[sql.TypeRoot]int{sql.TypeTinyInt: 1, sql.TypeSmallInt: 2, sql.TypeInt: 3, sql.TypeBigInt: 4}
	if a, b := rank[e.Type().Root], rank[t.Root]; a > 0 && b > a {
		return castExpr(e, t.WithNullable(e.Type().Nullable)), true
	}
	if isCharType(e.Type()) && isCharType(t) {
		return e, true
	}
	return nil, false
}

// plainType is Calcite's type name without its character set.
func plainType(t sql.DataType) string {
	return strings.TrimSuffix(calciteType(t.WithNullable(true)), ` CHARACTER SET "UTF-16LE"`)
}

func isCharType(t sql.DataType) bool { return t.Root == sql.TypeChar || t.Root == sql.TypeVarChar }

// sameKeyType reports whether a value of type b can be looked up as key
// field type a without a cast (nullability aside).
func sameKeyType(a, b sql.DataType) bool {
	return a.WithNullable(true).String() == b.WithNullable(true).String()
}

// lookupUpsertKeys: the left input's upsert keys survive when the lookup
// keys cover the dim's primary key (at most one dim row per left row).
func lookupUpsertKeys(n *LookupJoin) [][]int {
	pk := n.Table.Schema.PrimaryKey
	if len(pk) == 0 {
		return nil
	}
	phys := n.Table.Schema.Names()
	for _, col := range pk {
		found := false
		for _, k := range n.Keys {
			if phys[k.DimField] == col {
				found = true
			}
		}
		if !found {
			return nil
		}
	}
	return n.input().UpsertKeys()
}
