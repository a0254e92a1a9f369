package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// convert translates the rewritten logical tree into Flink's physical
// nodes, as the converter rules of Flink's PHYSICAL program do: a Calc per
// LogicalCalc (none when it is the identity; CalcMerge already merged
// chains), a hash Exchange below every GroupAggregate and on both join
// inputs (single without keys), batch aggregates in two phases, and a
// ChangelogNormalize over upsert sources (StreamPhysicalTableSourceScanRule).
func (b *binder) convert(r Node) (Node, error) {
	switch r := r.(type) {
	case *LogicalSink:
		in, err := b.convert(r.input())
		if err != nil {
			return nil, err
		}
		return &Sink{base: row(r.names, r.types, in), Table: r.Table, TargetColumns: r.TargetColumns, SinkHints: r.SinkHints}, nil
	case *LogicalTableScan:
		scan := &TableSourceScan{base: row(r.names, r.types), Table: r.Table, Project: r.Project,
			FilterDigest: r.FilterDigest, FilterPushed: r.FilterPushed, Watermark: r.Watermark, Limit: r.Limit}
		if b.snapshotScans[r] {
			if _, err := b.needsNormalize(r.Table); err != nil {
				return nil, err
			}
			return scan, nil
		}
		return b.finishScan(scan, nil)
	case *LogicalCalc:
		in, err := b.convert(r.input())
		if err != nil {
			return nil, err
		}
		exprs := make([]Expr, len(r.Exprs))
		// The reducer evaluates in the session time zone (Flink's
		// ExpressionReducer reads TableConfig's local time zone).
		for i, e := range r.Exprs {
			exprs[i] = expr.InZone(dropSameTypeCasts(e, r.input()), b.zone)
		}
		var cond Expr
		if r.Cond != nil {
			cond = expr.InZone(dropSameTypeCasts(r.Cond, r.input()), b.zone)
		}
		n := newCalc(in, exprs, cond, r.names)
		if c, ok := n.(*Calc); ok && r.fresh && c.input() == in {
			for i, e := range exprs {
				c.Exprs[i] = fold(e)
			}
		}
		return n, nil
	case *LogicalJoin:
		l, err := b.convert(r.inputs[0])
		if err != nil {
			return nil, err
		}
		if s := snapshotScan(r); s != nil {
			if b.snapshotScans == nil {
				b.snapshotScans = map[*LogicalTableScan]bool{}
			}
			b.snapshotScans[s] = true
		}
		rt, err := b.convert(r.inputs[1])
		if err != nil {
			return nil, err
		}
		if t := temporalCall(r.Cond); t != nil {
			return b.convertTemporalJoin(r, t, l, rt)
		}
		if !b.streaming {
			return b.batchJoin(l, rt, r.Cond, r.JoinType, r.joinHints)
		}
		if wj, err := newWindowJoin(r, l, rt); err != nil || wj != nil {
			return wj, err
		}
		if ij, err := newIntervalJoin(r, l, rt); err != nil || ij != nil {
			return ij, err
		}
		return newStreamJoin(l, rt, r.Cond, r.JoinType), nil
	case *LogicalLookupJoin:
		return b.convertLookupJoin(r)
	case *LogicalAggregate:
		if b.streaming {
			if w, ok, err := b.convertWindowAggregate(r); err != nil || ok {
				return w, err
			}
		}
		if r.Sets != nil {
			// decomposeGroupingSets leaves grouping sets only to a window
			// aggregate; a regular aggregate planned from them would drop
			// all sets but one.
			return nil, sql.Errorf(sql.TableException, "sqlrun cannot plan these grouping sets as a window aggregate nor decompose them into an Expand")
		}
		in, err := b.convert(r.input())
		if err != nil {
			return nil, err
		}
		if b.streaming {
			if w, ok, err := b.convertAggregateOnWindows(r, in); err != nil || ok {
				return w, err
			}
		}
		// Calcite's Aggregate names its group fields after its input's
		// (Aggregate.deriveRowType), the names the input has once rules
		// such as ProjectRemoveRule have rewritten it.
		names := append([]string(nil), r.names...)
		for i, g := range r.Group {
			names[i] = in.Names()[g]
		}
		names = aggregateNames(names, len(r.Group))
		if !b.streaming && twoPhaseEligible(r.Aggs) {
			if agg, ok := onePhaseAggregate(in, r.Group, r.Aggs, names, r.types); ok {
				return agg, nil
			}
			return batchAggregate(in, r.Group, r.Aggs, names, r.types), nil
		}
		ex := &Exchange{base: sameRow(in), Keys: append([]int(nil), r.Group...), Single: len(r.Group) == 0}
		return &GroupAggregate{base: row(names, r.types, ex), Group: r.Group, Aggs: append([]AggCall(nil), r.Aggs...), PartialFinal: r.PartialFinal}, nil
	case *LogicalWindowTableFunction:
		return b.convertWindowTableFunction(r)
	case *LogicalTableCorrelate:
		return b.convertCorrelate(r)
	case *LogicalExpand:
		in, err := b.convert(r.input())
		if err != nil {
			return nil, err
		}
		return &Expand{base: row(r.names, r.types, in), Projects: r.Projects}, nil
	case *LogicalWatermarkAssigner:
		in, err := b.convert(r.input())
		if err != nil {
			return nil, err
		}
		return &WatermarkAssigner{base: row(r.names, r.types, in), Rowtime: r.Rowtime, Expr: r.Expr}, nil
	case *LogicalRank:
		return b.convertRank(r)
	case *LogicalOverAggregate:
		return b.convertOver(r)
	case *LogicalValues:
		return &Values{base: row(r.names, r.types), Rows: r.Rows, Batch: !b.streaming}, nil
	case *LogicalUnion:
		var ins []Node
		for _, in := range r.inputs {
			p, err := b.convert(in)
			if err != nil {
				return nil, err
			}
			ins = append(ins, p)
		}
		// Calcite's Union derives its field names from its first input
		// (SetOp.deriveRowType): once ProjectRemoveRule drops a rename-only
		// Project over that input, the Union carries the input's names.
		return &Union{base: row(ins[0].Names(), r.types, ins...)}, nil
	case *LogicalSort:
		in, err := b.convert(r.input())
		if err != nil {
			return nil, err
		}
		// StreamPhysicalSortLimitRule takes a sort with a fetch or an
		// offset (SortLimitTest.testSortRowTimeWithOffset: fetch=[unlimited]).
		if len(r.Order) > 0 && r.Fetch < 0 && r.Offset == 0 && b.streaming {
			if ts, err := b.convertTemporalSort(r, in); ts != nil || err != nil {
				return ts, err
			}
			if r.Offset == 0 {
				// StreamPhysicalSortRule: any other such sort, which
				// StreamExecSort refuses to translate (translate.go).
				ex := &Exchange{base: sameRow(in), Single: true}
				return &Sort{base: row(r.names, r.types, ex), Order: append([]SortKey(nil), r.Order...), Stream: true}, nil
			}
			return nil, sql.Errorf(sql.TableException, "Sort on a non-time-attribute field is not supported.")
		}
		batch := !b.streaming
		if batch && r.Fetch >= 0 {
			// BatchPhysicalSortLimitRule / BatchPhysicalLimitRule: with a
			// fetch, a local phase on each task takes the first
			// offset+fetch rows (offset 0) below the single Exchange.
			if len(r.Order) > 0 {
				in = &SortLimit{base: sameRow(in), Order: r.Order, Fetch: r.Offset + r.Fetch, Batch: true}
			} else {
				in = &Limit{base: sameRow(in), Fetch: r.Offset + r.Fetch, Batch: true}
			}
		}
		ex := &Exchange{base: sameRow(in), Single: true}
		if len(r.Order) > 0 {
			return &SortLimit{base: row(r.names, r.types, ex), Order: r.Order, Offset: r.Offset, Fetch: r.Fetch, Batch: batch, Global: batch}, nil
		}
		return &Limit{base: row(r.names, r.types, ex), Offset: r.Offset, Fetch: r.Fetch, Batch: batch, Global: batch}, nil
	}
	return nil, sql.Errorf(sql.TableException, "cannot plan %s", r.Name())
}

func identity(types []sql.DataType) []Expr {
	out := make([]Expr, len(types))
	for i, t := range types {
		out[i] = &InputRef{Index: i, T: t}
	}
	return out
}

// newCalc builds a Calc, or returns in when the program is the identity.
// A program that only renames fields is the identity too, as Calcite's
// RexProgram.isTrivial and ProjectRemoveRule (which ignore the names) have
// it: the nodes above print the input's names and the sink keeps the
// query's (CalcTest.testProjectWithNaming, JoinHintTestBase's
// testJoinHintWithView: a view's a3 AS a4 prints as a3).
func newCalc(in Node, exprs []Expr, cond Expr, names []string) Node {
	if cond == nil && len(exprs) == len(in.Names()) {
		trivial := true
		for i, e := range exprs {
			if r, ok := e.(*InputRef); !ok || r.Index != i {
				trivial = false
			}
		}
		if trivial {
			return in
		}
	}
	if calc, ok := in.(*Calc); ok && !duplicatesNonDeterministic(calc.Exprs, false, append([]Expr{cond}, exprs...)...) {
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
		if isTrueLiteral(cond) {
			// A condition every row meets (x IS NULL OR x < 1 OR x >= 1).
			return newCalc(in, exprs, nil, names)
		}
	}
	// FlinkCalcMergeRule's merged program is simplified (RexSimplify).
	simplified := make([]Expr, len(exprs))
	for i, e := range exprs {
		simplified[i] = simplifyCoalesce(e)
	}
	exprs = simplified
	folded := substituteConstants(exprs, cond)
	types := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	return &Calc{base: row(names, types, in), Exprs: folded, Cond: cond}
}

// dropSameTypeCasts removes every CAST of e to its operand's own type,
// nullability included, as RexSimplify.simplifyCast does
// (sameTypeOrNarrowsNullability) when Flink's optimizer simplifies a
// Calc's program: CAST(t AS TIME(0)) of a nullable TIME(0) t is t. A cast
// that changes only the nullability stays: the program keeps its row type
// (RexProgramBuilder simplifies preserving types). So does a cast of a
// time attribute of in (a logical node), which materializes it (a
// TIMESTAMP(3) *ROWTIME* is not a TIMESTAMP(3) to Flink).
func dropSameTypeCasts(e Expr, in Node) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	c = c.MapArgs(func(a Expr) Expr { return dropSameTypeCasts(a, in) })
	// A cast to a rowtime attribute's time-indicator type (a metadata
	// rowtime column's, expr.RowtimeCast) is no cast to the same type.
	if c.Op == "CAST" && len(c.Args) == 1 && c.Args[0].Type().Equal(c.T) && exprTimeAttr(in, c.Args[0]) == notTime &&
		c.Written != expr.RowtimeCast {
		return c.Args[0]
	}
	return c
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
		// The Java class Flink names, where the connector says which
		// (the values connector: TestValuesTableFactory's source class).
		class := fmt.Sprintf("%T", ref.Source)
		if c, ok := ref.Source.(interface{ SourceClass() string }); ok {
			class = c.SourceClass()
		}
		return false, sql.Errorf(sql.ValidationException,
			"Invalid source for table '%s'. A ScanTableSource doesn't support a changelog stream that contains UPDATE_BEFORE but no UPDATE_AFTER. Please adapt the implementation of class '%s'.", ref.ID, class)
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
func pkIndexes(scan *TableSourceScan) []int { return scanPK(scan.Table, scan.names) }

// scanPK returns the primary key's positions among a scan's fields.
func scanPK(t *TableRef, fields []string) []int {
	var out []int
	for _, k := range t.Schema.PrimaryKey {
		for i, n := range fields {
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
		if a.UDF != nil {
			if !a.UDF.Merge {
				return false
			}
			continue
		}
		switch a.Func {
		case "COUNT", "SUM", "SUM0", "$SUM0", "MIN", "MAX", "AVG":
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
		if a.UDF != nil {
			// An imperative AggregateFunction keeps one structured
			// accumulator, named after the function in lower case
			// (weightedavg$3, WindowAggregateTest.testTumble_OnRowtime).
			names = append(names, []string{next(strings.ToLower(a.Func))})
			types = append(types, []sql.DataType{a.T.WithNullable(true)})
			continue
		}
		switch a.Func {
		case "COUNT":
			if len(a.Args) == 0 {
				ns = []string{next("count1")}
			} else {
				ns = []string{next("count")}
			}
			ts = []sql.DataType{sql.BigInt().NotNull()}
		case "SUM", "SUM0", "$SUM0":
			ns, ts = []string{next("sum")}, []sql.DataType{a.T}
		case "MIN":
			ns, ts = []string{next("min")}, []sql.DataType{a.T}
		case "MAX":
			ns, ts = []string{next("max")}, []sql.DataType{a.T}
		case "AVG":
			st := aggResultType("SUM", argTypes(a))
			ns = []string{next("sum"), next("count")}
			ts = []sql.DataType{st, sql.BigInt().NotNull()}
		case "FIRST_VALUE", "LAST_VALUE":
			// The planner's declarative FirstValueAggFunction /
			// LastValueAggFunction: (firstValue, valueSet) and
			// (lastValue, valueSet). Their retracting forms have no
			// merge and are never split.
			v := "firstValue"
			if a.Func == "LAST_VALUE" {
				v = "lastValue"
			}
			ns = []string{next(v), next("valueSet")}
			ts = []sql.DataType{argTypes(a).WithNullable(true), sql.Boolean().NotNull()}
		case "LISTAGG":
			// ListAggFunction's buffers (accDelimiter, concatAcc); the
			// retracting ListAggWithRetractAggFunction /
			// ListAggWsWithRetractAggFunction keep one structured
			// accumulator, printed as listagg$i.
			if a.Retract {
				ns, ts = []string{next("listagg")}, []sql.DataType{a.T}
			} else {
				ns = []string{next("accDelimiter"), next("concatAcc")}
				ts = []sql.DataType{sql.String(), sql.String()}
			}
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

// onePhaseAggregate is the one-phase aggregate BatchPhysicalHashAggRule
// and BatchPhysicalSortAggRule offer besides the two-phase one: it reads
// its input hashed on the group keys, and when the input delivers that
// by itself (satisfyHash) it needs no Exchange, which the cost model
// prefers to a local aggregate and an Exchange. Over an input already
// sorted on the group keys (a SortMergeJoin's output,
// BatchPhysicalSortMergeJoin.satisfyTraits) it is a SortAggregate without
// a Sort, else a HashAggregate when the accumulators are fixed-length.
func onePhaseAggregate(in Node, group []int, aggs []AggCall, outNames []string, outTypes []sql.DataType) (Node, bool) {
	if len(group) == 0 {
		return nil, false
	}
	satisfied, ok := satisfyHash(in, group)
	if !ok {
		return nil, false
	}
	sorted := sortedOn(satisfied, group)
	if !sorted {
		_, bufTypes := accBuffers(aggs, func(a AggCall) sql.DataType { return in.Types()[a.Args[0]] })
		for _, ts := range bufTypes {
			for _, t := range ts {
				if !fixedLength(t) {
					return nil, false
				}
			}
		}
	}
	return &GroupAggregate{base: row(outNames, outTypes, satisfied), Group: group, Aggs: append([]AggCall(nil), aggs...),
		OnePhase: true, Sorted: sorted}, true
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
	return exprSides(c, nl)
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

func isFalseLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Value == false
}

func isTrueLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Value == true
}

// newJoin builds Exchange(hash[keys]) on both inputs (single without
// equi-keys) and the Join over them.
func newJoin(left, right Node, cond Expr, kind ast.JoinKind) Node {
	return newJoinKeys(left, right, cond, kind, false)
}

// newStreamJoin is newJoin for the streaming regular join, which also
// keys on the IS NOT DISTINCT FROM conjuncts, spelled so or as (l = r) OR
// (l IS NULL AND r IS NULL) (Calcite's RelOptUtil.splitJoinCondition: a
// key whose filterNulls is false; SetOperatorsTest.testIntersect:
// Exchange(distribution=[hash[c]]) under where=[IS NOT DISTINCT FROM(c,
// f)]). Such a key matches NULL with NULL (Join.NullSafe).
func newStreamJoin(left, right Node, cond Expr, kind ast.JoinKind) Node {
	return newJoinKeys(left, right, cond, kind, true)
}

// nullSafePair returns the two fields of c when c is IS NOT DISTINCT
// FROM(a, b) or (a = b) OR (a IS NULL AND b IS NULL) over fields.
func nullSafePair(c Expr) (*InputRef, *InputRef, bool) {
	call, ok := c.(*Call)
	if !ok {
		return nil, nil, false
	}
	if call.Op == "IS NOT DISTINCT FROM" && len(call.Args) == 2 {
		a, okA := call.Args[0].(*InputRef)
		b, okB := call.Args[1].(*InputRef)
		return a, b, okA && okB
	}
	if call.Op != "OR" || len(call.Args) != 2 {
		return nil, nil, false
	}
	eq, ok1 := call.Args[0].(*Call)
	both, ok2 := call.Args[1].(*Call)
	if !ok1 || !ok2 || eq.Op != "=" || both.Op != "AND" || len(eq.Args) != 2 || len(both.Args) != 2 {
		return nil, nil, false
	}
	a, okA := eq.Args[0].(*InputRef)
	b, okB := eq.Args[1].(*InputRef)
	if !okA || !okB {
		return nil, nil, false
	}
	isNullOf := func(e Expr) int {
		n, ok := e.(*Call)
		if !ok || n.Op != "IS NULL" || len(n.Args) != 1 {
			return -1
		}
		if r, ok := n.Args[0].(*InputRef); ok {
			return r.Index
		}
		return -1
	}
	x, y := isNullOf(both.Args[0]), isNullOf(both.Args[1])
	if x == a.Index && y == b.Index || x == b.Index && y == a.Index {
		return a, b, true
	}
	return nil, nil, false
}

func newJoinKeys(left, right Node, cond Expr, kind ast.JoinKind, withNullSafe bool) Node {
	nl := len(left.Names())
	var lk, rk []int
	var ns []bool
	anyNullSafe := false
	for _, c := range conjuncts(cond) {
		var a, bb *InputRef
		safe := false
		if call, ok := c.(*Call); ok && call.Op == "=" {
			var okA, okB bool
			a, okA = call.Args[0].(*InputRef)
			bb, okB = call.Args[1].(*InputRef)
			if !okA || !okB {
				continue
			}
		} else if x, y, ok := nullSafePair(c); ok && withNullSafe {
			a, bb, safe = x, y, true
		} else {
			continue
		}
		if !sameKeyRoot(a.T, bb.T) {
			// Keys hash and compare by their values' representation: an
			// INT and a BIGINT 0 are two keys that never meet. An =
			// is coerced to one type before this (JoinConditionTypeCoerceRule);
			// an IS NOT DISTINCT FROM is not, as in Flink, whose
			// JoinUtil.validateJoinSpec then fails the job ("Equality join
			// predicate on incompatible types"). sqlrun keeps such a pair
			// out of the keys and the join's condition compares it.
			continue
		}
		switch {
		case a.Index < nl && bb.Index >= nl:
			lk, rk, ns = append(lk, a.Index), append(rk, bb.Index-nl), append(ns, safe)
		case bb.Index < nl && a.Index >= nl:
			lk, rk, ns = append(lk, bb.Index), append(rk, a.Index-nl), append(ns, safe)
		default:
			continue
		}
		anyNullSafe = anyNullSafe || safe
	}
	if !anyNullSafe {
		ns = nil
	}
	ex := func(in Node, keys []int) Node {
		return &Exchange{base: sameRow(in), Keys: keys, Single: len(keys) == 0}
	}
	var types []sql.DataType
	for _, t := range left.Types() {
		types = append(types, t.WithNullable(t.Nullable || kind == ast.RightJoin || kind == ast.FullJoin))
	}
	names := append([]string(nil), left.Names()...)
	if !isSemiAnti(kind) { // a semi or anti join's row is its left input's
		for _, t := range right.Types() {
			types = append(types, t.WithNullable(t.Nullable || kind == ast.LeftJoin || kind == ast.FullJoin))
		}
		names = uniquify(append(names, right.Names()...))
	}
	return &Join{base: row(names, types, ex(left, lk), ex(right, rk)), Cond: cond, JoinType: kind, LeftKeys: lk, RightKeys: rk, NullSafe: ns}
}

// sameKeyRoot reports whether two join key types hold values of one
// representation, so equal values encode as equal keys: the same type
// root (precision aside: DECIMAL keys are normalized), or two character
// strings, or two binary strings (PlannerTypeUtils.isInteroperable's
// families).
func sameKeyRoot(a, b sql.DataType) bool {
	return a.Root == b.Root || a.IsString() && b.IsString() || a.IsBinary() && b.IsBinary()
}
