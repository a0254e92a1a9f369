package plan

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// physical translates a logical tree into Flink's physical nodes: Project
// and Filter chains become one Calc, projections are pushed into sources
// that support it, aggregates get their hash Exchange, and upsert sources
// get ChangelogNormalize (StreamPhysicalTableSourceScanRule).
func (b *binder) physical(r Node) (Node, error) {
	switch r := r.(type) {
	case *LogicalSink:
		in, err := b.physical(r.input())
		if err != nil {
			return nil, err
		}
		return &Sink{base: row(r.names, r.types, in), Table: r.Table, TargetColumns: r.TargetColumns, SinkHints: r.SinkHints}, nil
	case *LogicalTableScan:
		return b.finishScan(b.scan(r), nil)
	case *LogicalJoin:
		return b.calcOverJoin(r, identity(r.types), nil, r.names)
	case *LogicalProject, *LogicalFilter:
		// Collapse the chain into one program over the chain's input.
		exprs, cond, base := flattenCalc(r)
		if cond != nil && isFalseLiteral(fold(cond)) {
			// PruneEmptyRules: an always-false filter yields empty Values.
			return b.emptyValues(r), nil
		}
		switch x := base.(type) {
		case *LogicalTableScan:
			return b.calcOverScan(b.scan(x), exprs, cond, r.Names())
		case *LogicalJoin:
			return b.calcOverJoin(x, exprs, cond, r.Names())
		case *LogicalUnion:
			if u, ok := calcIntoUnion(x, exprs, cond, r.Names()); ok {
				return b.physical(u)
			}
		}
		in, err := b.physical(base)
		if err != nil {
			return nil, err
		}
		return newCalc(in, exprs, cond, r.Names()), nil
	case *LogicalAggregate:
		in, err := b.physical(r.input())
		if err != nil {
			return nil, err
		}
		group, aggs := r.Group, r.Aggs
		if m, ok := permutationOverScan(in); ok {
			if g, a, ok := remapAggregate(group, aggs, m); ok {
				// AggregateProjectMergeRule: a projection that only
				// reorders the scan's fields merges into the aggregate.
				group, aggs, in = g, a, in.input()
			}
		}
		if !b.streaming && twoPhaseEligible(aggs) {
			return batchAggregate(in, group, aggs, r.names, r.types), nil
		}
		ex := &Exchange{base: sameRow(in), Keys: append([]int(nil), group...), Single: len(group) == 0}
		return &GroupAggregate{base: row(r.names, r.types, ex), Group: group, Aggs: append([]AggCall(nil), aggs...)}, nil
	case *LogicalValues:
		return &Values{base: row(r.names, r.types), Rows: r.Rows, Batch: !b.streaming}, nil
	case *LogicalUnion:
		var ins []Node
		for _, in := range r.inputs {
			p, err := b.physical(in)
			if err != nil {
				return nil, err
			}
			ins = append(ins, p)
		}
		return &Union{base: row(r.names, r.types, ins...)}, nil
	case *LogicalSort:
		if r.Fetch == 0 {
			// Calcite's PruneEmptyRules (SORT_FETCH_ZERO): LIMIT 0 reads
			// nothing and plans as empty Values.
			return b.emptyValues(r), nil
		}
		in, err := b.physical(r.input())
		if err != nil {
			return nil, err
		}
		if len(r.Order) > 0 && r.Fetch < 0 && b.streaming {
			return nil, sql.Errorf(sql.TableException, "Sort on a non-time-attribute field is not supported.")
		}
		ex := &Exchange{base: sameRow(in), Single: true}
		if len(r.Order) > 0 {
			return &SortLimit{base: row(r.names, r.types, ex), Order: r.Order, Offset: r.Offset, Fetch: r.Fetch}, nil
		}
		return &Limit{base: row(r.names, r.types, ex), Offset: r.Offset, Fetch: r.Fetch}, nil
	}
	return nil, sql.Errorf(sql.TableException, "cannot plan %s", r.Name())
}

// calcIntoUnion pushes a projection and condition over a UNION ALL into
// each of its inputs, as Flink's logical program does with Calcite's
// ProjectSetOpTransposeRule and FilterSetOpTransposeRule: each branch gets
// its own Calc (which then merges with the branch's own and is pushed into
// its source), and the Union carries the projection's names. It applies
// when every branch has the union's types, so no cast is lost.
func calcIntoUnion(u *LogicalUnion, exprs []Expr, cond Expr, names []string) (Node, bool) {
	if !u.All {
		return nil, false
	}
	for _, in := range u.inputs {
		if len(in.Types()) != len(u.Types()) {
			return nil, false
		}
		for i, t := range in.Types() {
			if !t.Equal(u.Types()[i]) {
				return nil, false
			}
		}
	}
	types := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	ins := make([]Node, len(u.inputs))
	for i, in := range u.inputs {
		top := in
		if cond != nil {
			top = &LogicalFilter{base: sameRow(in), Cond: cond}
		}
		ins[i] = &LogicalProject{base: row(names, types, top), Exprs: exprs}
	}
	return &LogicalUnion{base: row(names, types, ins...), All: true}, true
}

// flattenCalc merges a chain of LogicalProject/LogicalFilter into one
// projection and condition over the chain's base input.
func flattenCalc(r Node) ([]Expr, Expr, Node) {
	switch r := r.(type) {
	case *LogicalProject:
		exprs, cond, base := flattenCalc(r.input())
		if exprs == nil {
			return r.Exprs, cond, base
		}
		out := make([]Expr, len(r.Exprs))
		for i, e := range r.Exprs {
			out[i] = inline(e, exprs)
		}
		return out, cond, base
	case *LogicalFilter:
		exprs, cond, base := flattenCalc(r.input())
		c := r.Cond
		if exprs != nil {
			c = inline(c, exprs)
		}
		if cond != nil {
			c = and(append(conjuncts(cond), conjuncts(c)...))
		}
		if exprs == nil {
			exprs = identity(r.Types())
		}
		return exprs, c, base
	}
	return nil, nil, r
}

func identity(types []sql.DataType) []Expr {
	out := make([]Expr, len(types))
	for i, t := range types {
		out[i] = &InputRef{Index: i, T: t}
	}
	return out
}

// newCalc builds a Calc, or returns in when the program is the identity.
func newCalc(in Node, exprs []Expr, cond Expr, names []string) Node {
	if cond == nil && len(exprs) == len(in.Names()) {
		trivial := true
		for i, e := range exprs {
			if r, ok := e.(*InputRef); !ok || r.Index != i || names[i] != in.Names()[i] {
				trivial = false
			}
		}
		if trivial {
			return in
		}
	}
	if calc, ok := in.(*Calc); ok {
		merged := make([]Expr, len(exprs))
		for i, e := range exprs {
			merged[i] = inline(e, calc.Exprs)
		}
		c := calc.Cond
		if cond != nil {
			c2 := inline(cond, calc.Exprs)
			if c == nil {
				c = c2
			} else {
				c = and(append(conjuncts(c), conjuncts(c2)...))
			}
		}
		return newCalc(in.input(), merged, c, names)
	}
	if cond != nil {
		cond = simplifyFilter(fold(cond))
	}
	folded := substituteConstants(exprs, cond)
	types := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	return &Calc{base: row(names, types, in), Exprs: folded, Cond: cond}
}

func (b *binder) scan(r *LogicalTableScan) *TableSourceScan {
	return &TableSourceScan{base: row(r.names, r.types), Table: r.Table}
}

// needsNormalize is DynamicSourceUtils.changelogNormalizeEnabled, with the
// source validation of validateScanSourceForStreaming.
func (b *binder) needsNormalize(ref *TableRef) (bool, error) {
	if !b.streaming {
		return false, nil
	}
	mode := ref.Source.ChangelogMode()
	hasPK := ref.Schema.HasPrimaryKey()
	if mode.Contains(sql.UpdateAfter) && !mode.Contains(sql.UpdateBefore) && !hasPK {
		return false, sql.Errorf(sql.TableException,
			"Table '%s' produces a changelog stream that contains UPDATE_AFTER but no UPDATE_BEFORE. This requires defining a primary key constraint on the table.", ref.ID)
	}
	if mode.Contains(sql.UpdateBefore) && !mode.Contains(sql.UpdateAfter) {
		return false, sql.Errorf(sql.ValidationException,
			"Invalid source for table '%s'. A ScanTableSource doesn't support a changelog stream that contains UPDATE_BEFORE but no UPDATE_AFTER. Please adapt the implementation of class '%T'.", ref.ID, ref.Source)
	}
	cdcDup, _ := config.Bool(b.config, config.KeyCDCDuplicate) // SET checked it
	if cdcDup && !mode.IsInsertOnly() && !hasPK {
		return false, sql.Errorf(sql.TableException,
			"Configuration 'table.exec.source.cdc-events-duplicate' is enabled which requires the changelog sources to define a PRIMARY KEY. However, table '%s' doesn't have a primary key.", ref.ID)
	}
	upsert := mode.IsUpsert() && hasPK
	dup := cdcDup && !mode.IsInsertOnly() && !mode.IsUpsert() && hasPK
	return upsert || dup, nil
}

// pkIndexes returns the primary key's positions among the scan's fields.
func pkIndexes(scan *TableSourceScan) []int {
	var out []int
	for _, k := range scan.Table.Schema.PrimaryKey {
		for i, n := range scan.names {
			if n == k {
				out = append(out, i)
			}
		}
	}
	return out
}

// finishScan adds ChangelogNormalize above a scan when Flink would; below
// is an optional Calc to put between the Exchange and the scan (pushed
// PK-only filters and projections).
func (b *binder) finishScan(scan *TableSourceScan, below func(*TableSourceScan) Node) (Node, error) {
	cn, err := b.needsNormalize(scan.Table)
	if err != nil {
		return nil, err
	}
	var in Node = scan
	if below != nil {
		in = below(scan)
	}
	if !cn {
		return in, nil
	}
	key := make([]int, 0)
	for _, k := range scan.Table.Schema.PrimaryKey {
		for i, n := range in.Names() {
			if n == k {
				key = append(key, i)
				break
			}
		}
	}
	ex := &Exchange{base: sameRow(in), Keys: key}
	return &ChangelogNormalize{base: sameRow(ex), Keys: key}, nil
}

// calcOverScan plans a Calc directly over a table scan: projection
// push-down into the source (keeping the primary key when a normalize
// follows), PK-only filter conjuncts below ChangelogNormalize
// (PushCalcPastChangelogNormalizeRule), the rest above.
func (b *binder) calcOverScan(scan *TableSourceScan, exprs []Expr, cond Expr, names []string) (Node, error) {
	// The expressions may be the logical tree's own slice; the AST must
	// keep its field numbers.
	exprs = append([]Expr(nil), exprs...)
	cn, err := b.needsNormalize(scan.Table)
	if err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for _, e := range exprs {
		refs(e, used)
	}
	if cond != nil {
		refs(cond, used)
	}
	if fp, ok := scan.Table.Source.(connectors.FilterPushDownSource); ok && fp.FilterPushDown() && cond != nil {
		scan.FilterPushed = true
	}
	if fd, ok := scan.Table.Source.(connectors.FilterDigestSource); ok && fd.AcceptsFilters() && cond != nil {
		var accepted []Expr
		for _, c := range conjuncts(cond) {
			if pushableFilter(c) {
				accepted = append(accepted, c)
			}
		}
		if len(accepted) > 0 {
			parts := make([]string, len(accepted))
			for i, c := range accepted {
				parts[i] = FormatExpr(c, scan.Names(), FormatPrefix)
			}
			digest := parts[0]
			if len(parts) > 1 {
				digest = "and(" + strings.Join(parts, ", ") + ")"
			}
			scan.FilterDigest, scan.FilterPushed = digest, true
		}
	}
	pk := pkIndexes(scan)
	if cn {
		for _, k := range pk {
			used[k] = true
		}
	}
	// The pushed projection's field order is Flink's: with no condition,
	// PushProjectIntoTableSourceScanRule takes the fields in the order the
	// projection first uses them, then the primary key a normalize needs;
	// below a filter, Calcite's ProjectFilterTransposeRule has already made
	// the projection the sorted set of the fields both use.
	var fields []int
	if cond == nil {
		seen := map[int]bool{}
		for _, e := range exprs {
			refsInOrder(e, seen, &fields)
		}
		if cn {
			for _, k := range pk {
				if !seen[k] {
					seen[k] = true
					fields = append(fields, k)
				}
			}
		}
	} else {
		for i := range scan.Names() {
			if used[i] {
				fields = append(fields, i)
			}
		}
		sort.Ints(fields)
	}
	m := map[int]int{}
	for i, f := range fields {
		m[f] = i
	}
	pushed := false
	if pp, ok := projector(scan.Table.Source); ok && len(fields) < len(scan.Names()) && len(fields) > 0 {
		pushed = true
		pp.ApplyProjection(fields)
		ns := make([]string, len(fields))
		ts := make([]sql.DataType, len(fields))
		for i, f := range fields {
			ns[i], ts[i] = scan.Names()[f], scan.Types()[f]
		}
		scan = &TableSourceScan{base: row(ns, ts), Table: scan.Table, Project: fields, FilterDigest: scan.FilterDigest, FilterPushed: scan.FilterPushed}
		for i := range exprs {
			exprs[i] = remap(exprs[i], m)
		}
		if cond != nil {
			cond = remap(cond, m)
		}
	}
	if !cn {
		return newCalc(scan, exprs, cond, names), nil
	}
	// Split PK-only conjuncts below the normalize.
	pkSet := map[int]bool{}
	for _, k := range pkIndexes(scan) {
		pkSet[k] = true
	}
	var low, high []Expr
	if cond != nil {
		for _, c := range conjuncts(cond) {
			r := map[int]bool{}
			refs(c, r)
			onlyPK := len(r) > 0
			for f := range r {
				if !pkSet[f] {
					onlyPK = false
				}
			}
			if onlyPK {
				low = append(low, c)
			} else {
				high = append(high, c)
			}
		}
	}
	var belowFn func(*TableSourceScan) Node
	needProj := !pushed && len(fields) < len(scan.Names())
	if len(low) > 0 || needProj {
		belowFn = func(s *TableSourceScan) Node {
			var pe []Expr
			var pn []string
			if needProj {
				for _, f := range fields {
					pe = append(pe, &InputRef{Index: f, T: s.Types()[f]})
					pn = append(pn, s.Names()[f])
				}
			} else {
				pe, pn = identity(s.Types()), s.Names()
			}
			return newCalc(s, pe, and(low), pn)
		}
		if needProj {
			for i := range exprs {
				exprs[i] = remap(exprs[i], m)
			}
			for i := range high {
				high[i] = remap(high[i], m)
			}
		}
	}
	top, err := b.finishScan(scan, belowFn)
	if err != nil {
		return nil, err
	}
	return newCalc(top, exprs, and(high), names), nil
}

func projector(src connectors.TableSource) (connectors.SupportsProjectionPushDown, bool) {
	pp, ok := src.(connectors.SupportsProjectionPushDown)
	if !ok {
		return nil, false
	}
	if t, ok := src.(connectors.ProjectionPushDownToggle); ok && !t.ProjectionPushDownEnabled() {
		return nil, false
	}
	return pp, true
}

// pushableFilter reports a conjunct a source can take: comparisons, IS
// [NOT] NULL, IN, LIKE and their AND/OR/NOT combinations over fields and
// literals.
func pushableFilter(e Expr) bool {
	switch x := e.(type) {
	case *InputRef, *Literal:
		return true
	case *Call:
		switch x.Op {
		case "=", "<>", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL", "IN", "NOT IN", "LIKE", "AND", "OR", "NOT":
			for _, a := range x.Args {
				if !pushableFilter(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// twoPhaseEligible reports aggregates Flink's batch planner splits into a
// local and a final phase (the default table.optimizer.agg-phase-strategy
// AUTO): every call has a mergeable accumulator and none is DISTINCT
// (distinct aggregates are rewritten differently, which sqlrun does not
// reproduce; it plans them as one GroupAggregate).
func twoPhaseEligible(aggs []AggCall) bool {
	for _, a := range aggs {
		if a.Distinct {
			return false
		}
		switch a.Func {
		case "COUNT", "SUM", "SUM0", "MIN", "MAX", "AVG":
		default:
			return false
		}
	}
	return true
}

// accBuffers names an aggregate's accumulator fields and types as Flink's
// batch AggregateUtil does: count1$i for COUNT(*), count$i, sum$i, min$i,
// max$i, and (sum$i, count$i+1) for AVG; i counts buffers across calls.
func accBuffers(aggs []AggCall, argTypes func(AggCall) sql.DataType) (names [][]string, types [][]sql.DataType) {
	i := 0
	next := func(prefix string) string {
		n := prefix + "$" + strconv.Itoa(i)
		i++
		return n
	}
	for _, a := range aggs {
		var ns []string
		var ts []sql.DataType
		switch a.Func {
		case "COUNT":
			if len(a.Args) == 0 {
				ns = []string{next("count1")}
			} else {
				ns = []string{next("count")}
			}
			ts = []sql.DataType{sql.BigInt().NotNull()}
		case "SUM", "SUM0":
			ns, ts = []string{next("sum")}, []sql.DataType{a.T}
		case "MIN":
			ns, ts = []string{next("min")}, []sql.DataType{a.T}
		case "MAX":
			ns, ts = []string{next("max")}, []sql.DataType{a.T}
		case "AVG":
			st := aggResultType("SUM", argTypes(a))
			ns = []string{next("sum"), next("count")}
			ts = []sql.DataType{st, sql.BigInt().NotNull()}
		}
		names = append(names, ns)
		types = append(types, ts)
	}
	return names, types
}

// fixedLength reports types a BinaryRowData buffer updates in place, which
// lets Flink use hash aggregation; anything else needs sort aggregation.
func fixedLength(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeBoolean, sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat,
		sql.TypeDouble, sql.TypeDate, sql.TypeTime:
		return true
	case sql.TypeDecimal:
		return t.Precision <= 18
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return t.Precision <= 3
	}
	return false
}

// batchAggregate builds Local*Aggregate → Exchange → *Aggregate (with
// Sort nodes for the sort variant), as BatchPhysicalHashAggRule /
// BatchPhysicalSortAggRule plan a two-phase aggregate.
func batchAggregate(in Node, group []int, aggs []AggCall, outNames []string, outTypes []sql.DataType) Node {
	bufNames, bufTypes := accBuffers(aggs, func(a AggCall) sql.DataType { return in.Types()[a.Args[0]] })
	hash := true
	for _, ts := range bufTypes {
		for _, t := range ts {
			if !fixedLength(t) {
				hash = false
			}
		}
	}
	var order []SortKey
	for _, g := range group {
		order = append(order, SortKey{Field: g})
	}
	localIn := in
	if !hash && len(group) > 0 {
		localIn = &Sort{base: sameRow(in), Order: order}
	}
	var ln []string
	var lt []sql.DataType
	for _, g := range group {
		ln = append(ln, in.Names()[g])
		lt = append(lt, in.Types()[g])
	}
	for i := range bufNames {
		ln = append(ln, bufNames[i]...)
		lt = append(lt, bufTypes[i]...)
	}
	local := &LocalAggregate{base: row(ln, lt, localIn), Group: group, Aggs: append([]AggCall(nil), aggs...), Hash: hash}
	finalGroup := make([]int, len(group))
	for i := range finalGroup {
		finalGroup[i] = i
	}
	var ex Node = &Exchange{base: sameRow(local), Keys: finalGroup, Single: len(group) == 0}
	if !hash && len(group) > 0 {
		fo := make([]SortKey, len(finalGroup))
		for i := range fo {
			fo[i] = SortKey{Field: i}
		}
		ex = &Sort{base: sameRow(ex), Order: fo}
	}
	return &FinalAggregate{base: row(outNames, outTypes, ex), Group: group, Aggs: append([]AggCall(nil), aggs...), Hash: hash}
}

// calcOverJoin plans a Calc over a join as Flink's rules leave it: the
// fields each side needs are projected below the join (into the scans
// where they push), filter conjuncts that read one side of an inner join
// go below it, equi-conjuncts become the hash keys of both inputs'
// Exchanges, and the rest stays in the Calc above.
func (b *binder) calcOverJoin(join *LogicalJoin, exprs []Expr, cond Expr, names []string) (Node, error) {
	nl := len(join.Inputs()[0].Names())
	kind := simplifyOuterJoin(join.JoinType, cond, nl)
	inner := kind == ast.InnerJoin || kind == ast.CrossJoin
	if inner {
		kind = ast.InnerJoin
	}
	used := map[int]bool{}
	for _, e := range exprs {
		refs(e, used)
	}
	refs(join.Cond, used)
	var leftConds, rightConds, rest []Expr
	// An inner join's WHERE conjuncts over both sides join its condition
	// (Calcite's FilterJoinRule in Flink's predicate push-down), so an
	// equality becomes the join key instead of a filter over a cross join.
	joinCond := join.Cond
	if inner {
		var jc []Expr
		for _, c := range conjuncts(join.Cond) {
			if c != nil && !isTrueLiteral(c) {
				jc = append(jc, c)
			}
		}
		joinCond = and(jc)
	}
	if cond != nil {
		for _, c := range conjuncts(cond) {
			r := map[int]bool{}
			refs(c, r)
			onlyLeft, onlyRight := len(r) > 0, len(r) > 0
			for f := range r {
				onlyLeft = onlyLeft && f < nl
				onlyRight = onlyRight && f >= nl
			}
			switch {
			case inner && onlyLeft:
				leftConds = append(leftConds, c)
			case inner && onlyRight:
				rightConds = append(rightConds, c)
			case inner && len(r) > 0:
				if joinCond == nil {
					joinCond = c
				} else {
					joinCond = and(append(conjuncts(joinCond), c))
				}
				refs(c, used)
			default:
				rest = append(rest, c)
				refs(c, used)
			}
		}
	}
	if joinCond == nil {
		joinCond = &Literal{Value: true, T: sql.Boolean().NotNull()}
	}
	var lf, rf []int
	for i := range join.Names() {
		if !used[i] {
			continue
		}
		if i < nl {
			lf = append(lf, i)
		} else {
			rf = append(rf, i-nl)
		}
	}
	if len(lf) == 0 {
		lf = []int{0}
	}
	if len(rf) == 0 {
		rf = []int{0}
	}
	m := map[int]int{}
	for i, f := range lf {
		m[f] = i
	}
	for i, f := range rf {
		m[f+nl] = len(lf) + i
	}
	shift := map[int]int{}
	for i := nl; i < len(join.Names()); i++ {
		shift[i] = i - nl
	}
	left, err := b.joinSide(join.Inputs()[0], lf, and(leftConds))
	if err != nil {
		return nil, err
	}
	var rc Expr
	if len(rightConds) > 0 {
		shifted := make([]Expr, len(rightConds))
		for i, c := range rightConds {
			shifted[i] = remap(c, shift)
		}
		rc = and(shifted)
	}
	right, err := b.joinSide(join.Inputs()[1], rf, rc)
	if err != nil {
		return nil, err
	}
	j := newJoin(left, right, remap(joinCond, m), kind)
	top := make([]Expr, len(exprs))
	for i, e := range exprs {
		top[i] = remap(e, m)
	}
	var topCond Expr
	if len(rest) > 0 {
		rc := make([]Expr, len(rest))
		for i, c := range rest {
			rc[i] = remap(c, m)
		}
		topCond = and(rc)
	}
	return newCalc(j, top, topCond, names), nil
}

// simplifyOuterJoin turns an outer join into a narrower one when a WHERE
// conjunct rejects the nulls an outer side would add, as Calcite's
// RelOptUtil.simplifyJoin does under FilterJoinRule: LEFT with a
// null-rejecting filter on the right becomes INNER, FULL becomes LEFT or
// RIGHT (or INNER with both).
func simplifyOuterJoin(kind ast.JoinKind, cond Expr, nl int) ast.JoinKind {
	if cond == nil || kind == ast.InnerJoin || kind == ast.CrossJoin {
		return kind
	}
	var rejectsLeft, rejectsRight bool
	for _, c := range conjuncts(cond) {
		l, r := nullRejecting(c, nl)
		rejectsLeft = rejectsLeft || l
		rejectsRight = rejectsRight || r
	}
	switch kind {
	case ast.LeftJoin:
		if rejectsRight {
			return ast.InnerJoin
		}
	case ast.RightJoin:
		if rejectsLeft {
			return ast.InnerJoin
		}
	case ast.FullJoin:
		switch {
		case rejectsLeft && rejectsRight:
			return ast.InnerJoin
		case rejectsLeft:
			return ast.LeftJoin
		case rejectsRight:
			return ast.RightJoin
		}
	}
	return kind
}

// nullRejecting reports whether a conjunct is false or unknown when every
// field of the left (fields < nl) or of the right side is null: a
// comparison, LIKE or IS NOT NULL whose operands are fields, literals and
// arithmetic over them (Calcite's Strong).
func nullRejecting(c Expr, nl int) (left, right bool) {
	call, ok := c.(*Call)
	if !ok {
		return false, false
	}
	switch call.Op {
	case "=", "<>", "<", "<=", ">", ">=", "LIKE", "IS NOT NULL":
	default:
		return false, false
	}
	for _, a := range call.Args {
		if !strongOperand(a) {
			return false, false
		}
	}
	r := map[int]bool{}
	refs(c, r)
	for f := range r {
		if f < nl {
			left = true
		} else {
			right = true
		}
	}
	return left, right
}

// strongOperand: null whenever one of its fields is null.
func strongOperand(e Expr) bool {
	switch x := e.(type) {
	case *InputRef, *Literal:
		return true
	case *Call:
		switch x.Op {
		case "+", "-", "*", "/":
			for _, a := range x.Args {
				if !strongOperand(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// permutationOverScan reports a Calc without condition whose expressions
// are every field of the scan below it, reordered: m maps the Calc's
// fields to the scan's.
func permutationOverScan(in Node) ([]int, bool) {
	calc, ok := in.(*Calc)
	if !ok || calc.Cond != nil || len(calc.Exprs) != len(calc.input().Names()) {
		return nil, false
	}
	if _, ok := calc.input().(*TableSourceScan); !ok {
		return nil, false
	}
	m := make([]int, len(calc.Exprs))
	seen := map[int]bool{}
	for i, e := range calc.Exprs {
		ref, ok := e.(*InputRef)
		if !ok || seen[ref.Index] || in.Names()[i] != in.input().Names()[ref.Index] {
			return nil, false
		}
		seen[ref.Index] = true
		m[i] = ref.Index
	}
	return m, true
}

// remapAggregate rewrites an aggregate's group and arguments through m; the
// group must stay in ascending order, as Calcite's group set keeps it (else
// the merge would need a projection on top, which Flink's plans then show).
func remapAggregate(group []int, aggs []AggCall, m []int) ([]int, []AggCall, bool) {
	g := make([]int, len(group))
	for i, f := range group {
		g[i] = m[f]
		if i > 0 && g[i] <= g[i-1] {
			return nil, nil, false
		}
	}
	out := make([]AggCall, len(aggs))
	for i, a := range aggs {
		a.Args = append([]int(nil), a.Args...)
		for j, f := range a.Args {
			a.Args[j] = m[f]
		}
		out[i] = a
	}
	return g, out, true
}

// emptyValues is Flink's Values(tuples=[[]]) with r's row type.
func (b *binder) emptyValues(r Node) Node {
	return &Values{base: row(r.Names(), r.Types()), Rows: [][]Expr{}, Batch: !b.streaming}
}

func isFalseLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Value == false
}

func isTrueLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Value == true
}

// joinSide plans one join input restricted to fields, with cond (over the
// input's own fields) applied below the join.
func (b *binder) joinSide(r Node, fields []int, cond Expr) (Node, error) {
	exprs := make([]Expr, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		exprs[i] = &InputRef{Index: f, T: r.Types()[f]}
		names[i] = r.Names()[f]
	}
	base := r
	switch r.(type) {
	case *LogicalProject, *LogicalFilter:
		below, belowCond, bb := flattenCalc(r)
		for i := range exprs {
			exprs[i] = inline(exprs[i], below)
		}
		if cond != nil {
			cond = inline(cond, below)
		}
		switch {
		case belowCond == nil:
		case cond == nil:
			cond = belowCond
		default:
			cond = and(append(conjuncts(belowCond), conjuncts(cond)...))
		}
		base = bb
	}
	switch x := base.(type) {
	case *LogicalTableScan:
		return b.calcOverScan(b.scan(x), exprs, cond, names)
	case *LogicalJoin:
		return b.calcOverJoin(x, exprs, cond, names)
	}
	in, err := b.physical(base)
	if err != nil {
		return nil, err
	}
	return newCalc(in, exprs, cond, names), nil
}

// newJoin builds Exchange(hash[keys]) on both inputs (single without
// equi-keys) and the Join over them.
func newJoin(left, right Node, cond Expr, kind ast.JoinKind) Node {
	nl := len(left.Names())
	var lk, rk []int
	for _, c := range conjuncts(cond) {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" {
			continue
		}
		a, okA := call.Args[0].(*InputRef)
		bb, okB := call.Args[1].(*InputRef)
		if !okA || !okB {
			continue
		}
		switch {
		case a.Index < nl && bb.Index >= nl:
			lk, rk = append(lk, a.Index), append(rk, bb.Index-nl)
		case bb.Index < nl && a.Index >= nl:
			lk, rk = append(lk, bb.Index), append(rk, a.Index-nl)
		}
	}
	ex := func(in Node, keys []int) Node {
		return &Exchange{base: sameRow(in), Keys: keys, Single: len(keys) == 0}
	}
	var types []sql.DataType
	for _, t := range left.Types() {
		types = append(types, t.WithNullable(t.Nullable || kind == ast.RightJoin || kind == ast.FullJoin))
	}
	for _, t := range right.Types() {
		types = append(types, t.WithNullable(t.Nullable || kind == ast.LeftJoin || kind == ast.FullJoin))
	}
	names := uniquify(append(append([]string(nil), left.Names()...), right.Names()...))
	return &Join{base: row(names, types, ex(left, lk), ex(right, rk)), Cond: cond, JoinType: kind, LeftKeys: lk, RightKeys: rk}
}
