package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Deduplication and Top-N: ROW_NUMBER() / RANK() / DENSE_RANK() OVER
// (PARTITION BY ... ORDER BY ...) in a SELECT list, filtered on the rank
// number by the query around it, as Flink plans them:
//
//   - binding keeps the ranking call in the LogicalProject (OverCall, printed
//     as Calcite's RexOver) under the LogicalFilter on its number;
//   - the Rank rule (Flink's ProjectToWindowRule and FlinkLogicalRankRule)
//     turns that pair into a LogicalRank with a constant rank range;
//   - RankProjectTranspose (ProjectRankTransposeRule,
//     RankNumberColumnRemoveRule) prunes the rank's input to the fields used
//     above it, drops the rank number when nothing reads it and replaces it
//     by a literal when the range is one row;
//   - convert makes it a Deduplicate (StreamPhysicalDeduplicateRule: ROW_NUMBER,
//     rank 1 to 1, ordered by one time attribute, insert-only input) or a
//     Rank, each over a hash Exchange on the partition keys;
//   - changelog inference picks the Rank's strategy as Flink's
//     RankProcessStrategy.analyzeRankProcessStrategies and
//     FlinkChangelogModeInferenceProgram's visitRankStrategies do:
//     AppendFastStrategy for insert-only input, UpdateFastStrategy[key]
//     when the input has an upsert key containing the partition keys and
//     the sort keys are monotonic and the input can leave out -U,
//     RetractStrategy otherwise.

// OverCall is a ranking function with its window, Calcite's RexOver in a
// LogicalProject: ROW_NUMBER() OVER (PARTITION BY $0 ORDER BY $2 DESC
// NULLS LAST). It exists only between binding and the Rank rule.
type OverCall struct {
	// Func is ROW_NUMBER, RANK or DENSE_RANK.
	Func      string
	Partition []Expr
	Order     []OverKey
}

// OverKey is one ORDER BY key of a window.
type OverKey struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool
}

// Type is BIGINT NOT NULL, the ranking functions' type.
func (*OverCall) Type() sql.DataType { return sql.BigInt().NotNull() }

// String is Calcite's RexOver digest (expr.String prints it so).
func (o *OverCall) String() string {
	var parts []string
	if len(o.Partition) > 0 {
		ps := make([]string, len(o.Partition))
		for i, p := range o.Partition {
			ps[i] = FormatExpr(p, nil, FormatAST)
		}
		parts = append(parts, "PARTITION BY "+strings.Join(ps, ", "))
	}
	if len(o.Order) > 0 {
		os := make([]string, len(o.Order))
		for i, k := range o.Order {
			s := FormatExpr(k.Expr, nil, FormatAST)
			if k.Desc {
				s += " DESC"
			}
			if k.NullsFirst {
				s += " NULLS FIRST"
			} else {
				s += " NULLS LAST"
			}
			os[i] = s
		}
		parts = append(parts, "ORDER BY "+strings.Join(os, ", "))
	}
	return o.Func + "() OVER (" + strings.Join(parts, " ") + ")"
}

func isOverCall(e ast.Expr) bool {
	f, ok := e.(*ast.FuncCall)
	return ok && f.Over != nil
}

func isRankingFunc(name string) bool {
	return name == "ROW_NUMBER" || name == "RANK" || name == "DENSE_RANK"
}

// bindOver binds a call with OVER. Only the ranking functions are
// planned; OVER aggregates are not.
func (b *binder) bindOver(x *ast.FuncCall, sc *scope, agg *aggCollector) (Expr, error) {
	if !isRankingFunc(x.Name) {
		return b.bindOverAgg(x, sc, agg)
	}
	if len(x.Args) > 0 || x.Star || x.Distinct {
		return nil, validationErr(x.At, len(x.Name), "Invalid number of arguments to function '%s'. Was expecting 0 arguments", x.Name)
	}
	w := x.Over
	if w.Frame != nil {
		return nil, validationErr(x.At, len(x.Name), "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
	}
	if len(w.OrderBy) == 0 {
		if x.Name == "ROW_NUMBER" {
			// Calcite accepts it; Flink's OverAggregateUtil refuses it.
			return nil, sql.Errorf(sql.TableException, "Over Agg: The window rank function requires order by clause with non-constant fields. please re-check the over window statement.")
		}
		return nil, validationErr(x.At, len(x.Name), "RANK or DENSE_RANK functions require ORDER BY clause in window specification")
	}
	o := &OverCall{Func: x.Name}
	for _, p := range w.PartitionBy {
		e, err := b.bindExpr(p, sc, agg)
		if err != nil {
			return nil, err
		}
		o.Partition = append(o.Partition, e)
	}
	for _, k := range w.OrderBy {
		e, err := b.bindExpr(k.Expr, sc, agg)
		if err != nil {
			return nil, err
		}
		// NULLs collate low, as ORDER BY (bindOrderLimit).
		nf := !k.Desc
		if k.NullsFirst != nil {
			nf = *k.NullsFirst
		}
		o.Order = append(o.Order, OverKey{Expr: e, Desc: k.Desc, NullsFirst: nf})
	}
	if !b.streaming && x.Name == "ROW_NUMBER" {
		// In batch mode the call stays a window call, whose order keys
		// OverAggregateUtil requires to be fields (RankTest, batch,
		// .testRowNumberWithOrderByConstant).
		constant := true
		for _, k := range o.Order {
			if _, ok := fold(k.Expr).(*Literal); !ok {
				constant = false
			}
		}
		if constant {
			return nil, sql.Errorf(sql.TableException, "Over Agg: The window rank function requires order by clause with non-constant fields. please re-check the over window statement.")
		}
	}
	return o, nil
}

// fixOverAggRefs is fixAggRefs inside a window's keys.
func fixOverAggRefs(o *OverCall, agg Node) *OverCall {
	out := &OverCall{Func: o.Func}
	for _, p := range o.Partition {
		out.Partition = append(out.Partition, fixAggRefs(p, agg))
	}
	for _, k := range o.Order {
		k.Expr = fixAggRefs(k.Expr, agg)
		out.Order = append(out.Order, k)
	}
	return out
}

func hasOver(exprs []Expr) bool {
	for _, e := range exprs {
		if _, ok := e.(*OverCall); ok {
			return true
		}
	}
	return false
}

// timeKind tells the time attributes apart.
type timeKind int

const (
	notTime timeKind = iota
	procTime
	rowTime
)

// timeAttr is the kind of time attribute field f of a logical node carries:
// a rowtime column with a WATERMARK, a PROCTIME() computed column, passed
// on by projections and filters as Flink's time indicator types are.
func timeAttr(n Node, f int) timeKind {
	switch x := n.(type) {
	case *LogicalProject:
		switch e := x.Exprs[f].(type) {
		case *InputRef:
			return timeAttr(x.input(), e.Index)
		case *Call:
			if e.Op == "PROCTIME" {
				return procTime
			}
		}
	case *LogicalCalc:
		switch e := x.Exprs[f].(type) {
		case *InputRef:
			return timeAttr(x.input(), e.Index)
		case *Call:
			if e.Op == "PROCTIME" {
				return procTime
			}
			if e.Op == "Reinterpret" {
				// The rowtime of a watermark pushed into the scan
				// (watermarkIntoScan).
				return rowTime
			}
		}
	case *LogicalTableScan:
		if x.Watermark != nil && x.Watermark.Rowtime == f {
			return rowTime
		}
	case *LogicalFilter:
		return timeAttr(x.input(), f)
	case *LogicalExpand:
		// A field every projection passes on unchanged (the Expand of a
		// split distinct aggregation keeps window_time an attribute).
		var r0 *InputRef
		for _, p := range x.Projects {
			r, ok := p[f].(*InputRef)
			if !ok || (r0 != nil && r.Index != r0.Index) {
				return notTime
			}
			r0 = r
		}
		return timeAttr(x.input(), r0.Index)
	case *LogicalWatermarkAssigner:
		if f == x.Rowtime {
			return rowTime
		}
		return timeAttr(x.input(), f)
	case *LogicalOverAggregate:
		if f < len(x.input().Names()) {
			return timeAttr(x.input(), f)
		}
	case *LogicalRank:
		if f < len(x.input().Names()) {
			return timeAttr(x.input(), f)
		}
	case *LogicalWindowTableFunction:
		// The input's fields keep their attributes; window_time is a
		// rowtime (Flink's WindowTableFunction row type).
		switch n := len(x.input().Names()); {
		case f < n:
			return timeAttr(x.input(), f)
		case f == n+2:
			return rowTime
		}
	}
	return notTime
}

func exprTimeAttr(n Node, e Expr) timeKind {
	switch x := e.(type) {
	case *InputRef:
		return timeAttr(n, x.Index)
	case *Call:
		if x.Op == "PROCTIME" {
			return procTime
		}
		if x.Op == "Reinterpret" {
			return rowTime
		}
	}
	return notTime
}

// LogicalRank is Flink's FlinkLogicalRank: the rows of each partition
// ranked by Order, those ranked Start to End kept. Its row is the input's,
// plus the rank number when OutputNumber.
type LogicalRank struct {
	base
	Func      string
	Partition []int
	Order     []SortKey
	// OrderTime is the time attribute kind of each order key's field.
	OrderTime    []timeKind
	Start, End   int64
	OutputNumber bool
	// Calcite names the rank number w0$o0 when the projection that held
	// the call was the window's own (its input fields in order, the call
	// last); then a plain reference above keeps that name. Otherwise the
	// number has the alias and a constant replacing it is named $i.
	windowNamed bool
	constName   string
	// equality marks a range written as rn = N: Calcite's
	// ReduceExpressionsRule has put the literal in place of the number
	// before the rank is made, so the literal is named $i.
	equality bool
	// identityName is the alias of the number when the window's
	// projection is its whole input in order and the call (SELECT *,
	// ROW_NUMBER() ... AS rn): CalcRelSplitter drops that projection as
	// trivial (ProjectToWindowRule), so the literal of rn = N lands in the
	// query's own projection above the filter and keeps its alias
	// (DeduplicateTest.testSimpleLastRowOnProctime: 1 AS rank_num; a
	// projection of some fields or a computed order key gives $i:
	// RankTest.testTopNth, DeduplicateTest.testSimpleFirstRowOnBuiltinProctime).
	identityName string
}

// Rank is Flink's StreamPhysicalRank.
type Rank struct {
	base
	Func         string
	Partition    []int
	Order        []SortKey
	OrderTime    []timeKind
	Start, End   int64
	OutputNumber bool
	// Strategy is set by changelog inference: AppendFastStrategy,
	// UpdateFastStrategy (with StrategyKey, the input's upsert key) or
	// RetractStrategy.
	Strategy    string
	StrategyKey []int
}

// Deduplicate is Flink's StreamPhysicalDeduplicate: the first (or, with
// KeepLast, the last) row of each key in processing-time or event-time
// order.
type Deduplicate struct {
	base
	Keys     []int
	KeepLast bool
	Rowtime  bool
	// TimeField is the input field of the time attribute ordered by.
	TimeField int
}

// The strategies as Flink prints them.
const (
	appendFastStrategy = "AppendFastStrategy"
	updateFastStrategy = "UpdateFastStrategy"
	retractStrategy    = "RetractStrategy"
)

func (*LogicalRank) Name() string { return "FlinkLogicalRank" }
func (*Rank) Name() string        { return "Rank" }
func (*Deduplicate) Name() string { return "Deduplicate" }

func (n *LogicalRank) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Rank) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Deduplicate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func rankOrderText(order []SortKey, times []timeKind, in []string) string {
	parts := make([]string, len(order))
	for i, k := range order {
		d := "ASC"
		if k.Desc {
			d = "DESC"
		}
		s := in[k.Field] + " " + d
		if i < len(times) && times[i] == rowTime {
			s = "ROWTIME " + s
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

func rankDigest(name, strategy, fn string, start, end int64, partition []int, order []SortKey, times []timeKind, in, out []string) string {
	s := name + "("
	if strategy != "" {
		s += "strategy=[" + strategy + "], "
	}
	return s + fmt.Sprintf("rankType=[%s], rankRange=[rankStart=%d, rankEnd=%d], partitionBy=[%s], orderBy=[%s], select=[%s])",
		fn, start, end, names(in, partition), rankOrderText(order, times, in), strings.Join(out, ", "))
}

func (n *LogicalRank) describe(Format) string {
	return rankDigest("FlinkLogicalRank", "", n.Func, n.Start, n.End, n.Partition, n.Order, n.OrderTime, n.input().Names(), n.names)
}

func (n *Rank) describe(Format) string {
	return rankDigest("Rank", strategyText(n.Strategy, n.StrategyKey), n.Func, n.Start, n.End, n.Partition, n.Order, n.OrderTime, n.input().Names(), n.names)
}

// strategyText is a RankProcessStrategy as Flink prints it:
// UpdateFastStrategy[0,1] with its key.
func strategyText(strategy string, key []int) string {
	if strategy == "" {
		// Before changelog inference picks one (RankProcessStrategy's
		// UNDEFINED_STRATEGY), as Flink's errors of that pass print it.
		return "UndefinedStrategy"
	}
	if strategy == updateFastStrategy {
		ks := make([]string, len(key))
		for i, k := range key {
			ks[i] = strconv.Itoa(k)
		}
		strategy += "[" + strings.Join(ks, ",") + "]"
	}
	return strategy
}

func (n *Deduplicate) describe(Format) string {
	keep := "FirstRow"
	if n.KeepLast {
		keep = "LastRow"
	}
	order := "PROCTIME"
	if n.Rowtime {
		order = "ROWTIME"
	}
	return "Deduplicate(keep=[" + keep + "], key=[" + names(n.input().Names(), n.Keys) + "], order=[" + order + "])"
}

// rankRule is the Rank rule: a LogicalFilter over a LogicalProject with a
// ranking call becomes the filter's other conjuncts over the projection
// (the call replaced by the rank number) over a LogicalRank.
func rankRule(b *binder, n Node) (Node, error) {
	switch x := n.(type) {
	case *LogicalFilter:
		p, ok := x.input().(*LogicalProject)
		if !ok || !hasOver(p.Exprs) {
			return nil, nil
		}
		if b != nil && !b.streaming && !batchRankable(p.Exprs) {
			return nil, nil
		}
		return planRank(x, p, b != nil && !b.streaming)
	}
	return nil, nil
}

// planRank builds the rank of filter f over the window projection p.
func planRank(f *LogicalFilter, p *LogicalProject, batch bool) (Node, error) {
	p = narrowOverProjectTVF(p)
	w := -1
	// Calls equal to the first are one window call (Calcite's
	// ProjectToWindowRule keeps one RexOver per distinct call: RankTest,
	// batch, .testMultiSameRankFunctionsWithSameGroup: w0$o0 AS rk1,
	// w0$o0 AS rk2).
	same := map[int]bool{}
	for i, e := range p.Exprs {
		if oc, ok := e.(*OverCall); ok {
			if w >= 0 {
				if oc.String() == p.Exprs[w].(*OverCall).String() {
					same[i] = true
					continue
				}
				return nil, sql.Errorf(sql.TableException, "sqlrun does not support more than one ranking function in one SELECT yet")
			}
			w = i
		}
	}
	o := p.Exprs[w].(*OverCall)
	start, end := int64(1), noEnd
	var rest []Expr
	equality := false
	bounds := 0
	for _, c := range conjuncts(f.Cond) {
		// RankUtil.extractRankRange: a conjunct that is not a comparison
		// of the rank number alone with what does not read it (rn <> 1,
		// rn IN (...), rn + 1 < 5) stays a filter above the rank.
		if !isLimitPredicate(c, w) {
			rest = append(rest, c)
			continue
		}
		bounds++
		if call, ok := c.(*Call); ok && call.Op == "=" {
			equality = true
		}
		if !rankBound(c, w, &start, &end) {
			return nil, sql.Errorf(sql.TableException,
				"sqlrun supports only constant bounds on a rank number (rn = N, rn <= N, rn < N, rn >= N, rn > N, BETWEEN): %s", FormatExpr(c, p.Names(), FormatInfix))
		}
	}
	if bounds == 0 {
		// No rank range: the rank rules do not match, and the
		// OverAggregate and the filter stay (in streaming, the
		// OverAggregate's own rules then apply to it).
		return nil, nil
	}
	if end == noEnd {
		// RankUtil's ConstantRankRangeWithoutEnd (FlinkLogicalRankRuleForRangeEnd).
		return nil, sql.Errorf(sql.TableException,
			"Rank end is not specified. Currently rank only support TopN, which means the rank end must be specified.")
	}
	if end <= 0 {
		return nil, sql.Errorf(sql.TableException, "Rank end should not less than zero, but now is %d", end)
	}
	if end < start {
		return emptyValues(f), nil
	}
	in := p.input()
	nIn := len(in.Names())
	// Window keys that are not fields are computed below the rank.
	var extra []Expr
	field := func(e Expr) int {
		if r, ok := e.(*InputRef); ok {
			return r.Index
		}
		for i, x := range extra {
			if exprKey(x) == exprKey(e) {
				return nIn + i
			}
		}
		extra = append(extra, e)
		return nIn + len(extra) - 1
	}
	r := &LogicalRank{Func: o.Func, Start: start, End: end, OutputNumber: true, equality: equality}
	for _, e := range o.Partition {
		r.Partition = append(r.Partition, field(e))
	}
	for _, k := range o.Order {
		r.Order = append(r.Order, SortKey{Field: field(k.Expr), Desc: k.Desc, NullsFirst: k.NullsFirst})
		r.OrderTime = append(r.OrderTime, exprTimeAttr(in, k.Expr))
	}
	below := in
	if len(extra) > 0 {
		exprs := identity(in.Types())
		names := append([]string(nil), in.Names()...)
		for i, e := range extra {
			exprs = append(exprs, e)
			names = append(names, "$"+strconv.Itoa(nIn+i))
		}
		below = &LogicalProject{base: row(names, exprTypes(exprs), in), Exprs: exprs}
	}
	// The window's own projection: its input fields in order, the call last.
	r.windowNamed = len(extra) == 0 && w == len(p.Exprs)-1
	last := -1
	cover := map[int]bool{}
	for _, e := range p.Exprs[:w] {
		ref, ok := e.(*InputRef)
		if !ok || ref.Index <= last {
			r.windowNamed = false
			break
		}
		last = ref.Index
		cover[ref.Index] = true
	}
	for _, k := range append(append([]int(nil), r.Partition...), sortFields(r.Order)...) {
		if !cover[k] {
			r.windowNamed = false
		}
	}
	numName := p.Names()[w]
	if r.windowNamed && w == nIn {
		r.identityName = numName
	}
	// Flink's batch rank is made from the window's own row
	// (FlinkLogicalRankRuleForConstantRange): its number is always w0$o0,
	// which the projection above renames (RankTest.testRankFunctionInMiddle,
	// batch: w0$o0 AS rk).
	if r.windowNamed || batch {
		taken := append([]string(nil), below.Names()...)
		// Ranks below (not planned yet: the rule runs top down) name
		// theirs first.
		below := 0
		Walk(in, func(n Node) {
			if lp, ok := n.(*LogicalProject); ok && hasOver(lp.Exprs) {
				below++
			}
		})
		for i := 0; i < below; i++ {
			taken = append(taken, uniqueName("w0$o0", taken))
		}
		numName = uniqueName("w0$o0", taken)
	}
	r.constName = "$" + strconv.Itoa(w)
	r.base = row(append(append([]string(nil), below.Names()...), numName),
		append(append([]sql.DataType(nil), below.Types()...), o.Type()), below)
	numField := len(below.Names())
	exprs := make([]Expr, len(p.Exprs))
	names := append([]string(nil), p.Names()...)
	for i, e := range p.Exprs {
		if same[i] {
			exprs[i] = &InputRef{Index: numField, T: o.Type()}
			continue
		}
		if i == w {
			exprs[i] = &InputRef{Index: numField, T: o.Type()}
			if r.windowNamed {
				names[i] = windowNumberName
			}
			continue
		}
		exprs[i] = e
	}
	var out Node = &LogicalProject{base: row(names, exprTypes(exprs), r), Exprs: exprs}
	if len(rest) > 0 {
		out = &LogicalFilter{base: sameRow(out), Cond: and(rest)}
	}
	return out, nil
}

// narrowOverProjectTVF is ProjectWindowTableFunctionTransposeRule on the
// window projection p over a window table function, which Flink applies
// (PROJECT_REWRITE) before the projection becomes a rank (LOGICAL): the
// function reads the input fields p reads (WindowAggregateTest
// .testInvalidRelaxFormCascadeProctimeWindow_OnWindowRank: Calc(select=[a,
// b, proctime]) below the function, b dropped above it only after the
// rank is made). p itself when it reads them all.
func narrowOverProjectTVF(p *LogicalProject) *LogicalProject {
	tvf, ok := p.input().(*LogicalWindowTableFunction)
	if !ok {
		return p
	}
	used := map[int]bool{}
	for _, e := range p.Exprs {
		if o, ok := e.(*OverCall); ok {
			for _, x := range o.Partition {
				refs(x, used)
			}
			for _, k := range o.Order {
				refs(k.Expr, used)
			}
			continue
		}
		if hasOverAgg([]Expr{e}) {
			return p
		}
		refs(e, used)
	}
	nt, m := narrowWindowTableFunction(tvf, used)
	if nt == nil {
		return p
	}
	exprs := make([]Expr, len(p.Exprs))
	for i, e := range p.Exprs {
		o, ok := e.(*OverCall)
		if !ok {
			exprs[i] = remap(e, m)
			continue
		}
		no := &OverCall{Func: o.Func, Partition: make([]Expr, len(o.Partition)), Order: make([]OverKey, len(o.Order))}
		for j, x := range o.Partition {
			no.Partition[j] = remap(x, m)
		}
		for j, k := range o.Order {
			k.Expr = remap(k.Expr, m)
			no.Order[j] = k
		}
		exprs[i] = no
	}
	return &LogicalProject{base: p.base.with([]Node{nt}), Exprs: exprs}
}

func sortFields(order []SortKey) []int {
	out := make([]int, len(order))
	for i, k := range order {
		out[i] = k.Field
	}
	return out
}

// uniqueName is Calcite's SqlValidatorUtil.uniquify with the _N suffix.
func uniqueName(name string, taken []string) string {
	seen := map[string]bool{}
	for _, t := range taken {
		seen[t] = true
	}
	cand := name
	for i := 0; seen[cand]; i++ {
		cand = name + "_" + strconv.Itoa(i)
	}
	return cand
}

// isLimitPredicate is RankUtil.identifyLimitPredicate: a comparison (<,
// <=, >, >=, =) with the rank number (field w) alone on one side and an
// operand that does not read it on the other.
func isLimitPredicate(c Expr, w int) bool {
	call, ok := c.(*Call)
	if !ok || len(call.Args) != 2 {
		return false
	}
	switch call.Op {
	case "<", "<=", ">", ">=", "=":
	default:
		return false
	}
	reads := func(e Expr) bool {
		used := map[int]bool{}
		refs(e, used)
		return used[w]
	}
	isRank := func(e Expr) bool {
		ref, ok := unwrapCast(e).(*InputRef)
		return ok && ref.Index == w
	}
	l, r := call.Args[0], call.Args[1]
	return (isRank(l) && !reads(r)) || (isRank(r) && !reads(l))
}

// rankBound narrows [start, end] by one comparison of the rank number
// (field w) with an integer literal; false when c is not one.
func rankBound(c Expr, w int, start, end *int64) bool {
	call, ok := c.(*Call)
	if !ok || len(call.Args) != 2 {
		return false
	}
	op := call.Op
	l, r := call.Args[0], call.Args[1]
	if ref, ok := r.(*InputRef); ok && ref.Index == w {
		l, r = r, l
		switch op {
		case "<":
			op = ">"
		case "<=":
			op = ">="
		case ">":
			op = "<"
		case ">=":
			op = "<="
		}
	}
	if ref, ok := unwrapCast(l).(*InputRef); !ok || ref.Index != w {
		return false
	}
	lit, ok := unwrapCast(r).(*Literal)
	if !ok {
		return false
	}
	v, ok := toInt(lit.Value)
	if !ok {
		return false
	}
	switch op {
	case "=":
		*start, *end = max(*start, v), minEnd(*end, v)
	case "<=":
		*end = minEnd(*end, v)
	case "<":
		*end = minEnd(*end, v-1)
	case ">=":
		*start = max(*start, v)
	case ">":
		*start = max(*start, v+1)
	default:
		return false
	}
	return true
}

// noEnd marks a rank range without an upper bound yet.
const noEnd = int64(math.MinInt64)

func minEnd(end, v int64) int64 {
	if end == noEnd || v < end {
		return v
	}
	return end
}

func unwrapCast(e Expr) Expr {
	if c, ok := e.(*Call); ok && c.Op == "CAST" && len(c.Args) == 1 {
		return c.Args[0]
	}
	return e
}

// rankProjectTranspose is the RankProjectTranspose rule on a LogicalCalc
// over a LogicalRank: the rank number goes when nothing above reads it, or
// becomes a literal for a one-row range of ROW_NUMBER; the rank's input is
// narrowed to the fields read above it and its keys.
func rankProjectTranspose(b *binder, n Node) (Node, error) {
	batch := b != nil && !b.streaming
	c, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	r, ok := c.input().(*LogicalRank)
	if !ok {
		return nil, nil
	}
	skipped := false
	if ic, ok := r.input().(*LogicalCalc); ok && trivialCalc(ic) {
		if _, over := ic.input().(*LogicalRank); over {
			// Calcite's ProjectRemoveRule drops a projection that returns
			// its input, whatever it renames: a rank over another reads
			// that one's fields under their own names
			// (RankTest.testNestedTopN: select=[a, b, count_c, w0$o0,
			// w0$o0_0], not the alias row_num).
			in := ic.input()
			nr := *r
			names := append(append([]string(nil), in.Names()...), r.names[len(in.Names()):]...)
			nr.base = row(names, r.types, in)
			r, skipped = &nr, true
		}
	}
	nIn := len(r.input().Names())
	used := c.fieldRefs()
	exprs := append([]Expr(nil), c.Exprs...)
	names := append([]string(nil), c.names...)
	cond := c.Cond
	rename := ""
	number := &InputRef{Index: nIn, T: sql.BigInt().NotNull()}
	outputNumber := r.OutputNumber && used[nIn]
	// In batch mode the rank is always RANK (FlinkLogicalRankRuleForConstantRange),
	// whose number a one-row range fixes too (RankTest.testRankValueFilterWithEquals,
	// batch: 2 AS $2).
	if outputNumber && (r.Func == "ROW_NUMBER" || batch) && r.Start == r.End {
		lit := &Literal{Value: r.Start, T: sql.BigInt().NotNull()}
		for i, e := range exprs {
			if ref, ok := e.(*InputRef); ok && ref.Index == nIn {
				switch {
				case r.windowNamed && !r.equality:
					names[i] = r.names[nIn]
				case r.identityName != "":
					names[i] = r.identityName
				default:
					names[i] = r.constName
				}
			}
			exprs[i] = substitute(e, number, lit)
		}
		if cond != nil {
			cond = substitute(cond, number, lit)
		}
		outputNumber = false
	} else if outputNumber && r.windowNamed && c.Cond != nil && !batch {
		// FlinkLogicalRankRule names the number after the Calc field that
		// outputs it; a Calc without a condition is pushed into the rank
		// again later (CalcRankTransposeRule), which brings back the
		// window's w0$o0.
		for i, e := range exprs {
			if ref, ok := e.(*InputRef); ok && ref.Index == nIn {
				rename = names[i]
				break
			}
		}
	} else if outputNumber && r.windowNamed {
		// The projection above the window names the number as the
		// window's own row does, w0$o0, though the rank's field is
		// w0$o0_0 over another rank's (RankTest.testNestedTopN:
		// w0$o0_0 AS w0$o0).
		for i, e := range exprs {
			if ref, ok := e.(*InputRef); ok && ref.Index == nIn {
				names[i] = windowNumberName
			}
		}
	}
	// The input fields the rank keeps: those read above and its keys.
	keep := map[int]bool{}
	for f := range used {
		if f < nIn {
			keep[f] = true
		}
	}
	for _, f := range r.Partition {
		keep[f] = true
	}
	for _, k := range r.Order {
		keep[k.Field] = true
	}
	// CalcRankTransposeRule.getRankFields also keeps the fields of the
	// input's upsert keys (getUpsertKeysInKeyGroupRange): a rank over
	// another keeps that one's partition keys and number, its upsert key
	// (RankTest.testRankWithAnotherRankAsInput).
	for _, k := range logicalUpsertKeys(r.input()) {
		for _, f := range k {
			if f < nIn {
				keep[f] = true
			}
		}
	}
	if rename != "" && rename != r.names[nIn] {
		nr := *r
		nr.names = append(append([]string(nil), r.names[:nIn]...), rename)
		r = &nr
	}
	if len(keep) == nIn && outputNumber == r.OutputNumber {
		if sameNames(names, c.names) && rename == "" && !skipped {
			return nil, nil
		}
		out := *c
		out.names = names
		out.base = row(names, c.types, r)
		return &out, nil
	}
	var fields []int
	m := map[int]int{}
	for f := 0; f < nIn; f++ {
		if keep[f] {
			m[f] = len(fields)
			fields = append(fields, f)
		}
	}
	in := r.input()
	below := in
	if len(fields) < nIn {
		pe := make([]Expr, len(fields))
		pn := make([]string, len(fields))
		for i, f := range fields {
			pe[i] = &InputRef{Index: f, T: in.Types()[f]}
			pn[i] = in.Names()[f]
		}
		pc := &LogicalCalc{base: row(pn, exprTypes(pe), in), Exprs: pe}
		// CalcRankTransposeRule's Calc comes after Flink's project rules
		// (LOGICAL_REWRITE): over a window table function it stays there.
		// Nor over a WatermarkAssigner: ProjectWatermarkAssignerTransposeRule
		// (PROJECT_RULES) has run by then, so the pruned fields stay
		// below the assigner and the Calc above it
		// (DeduplicateTest.testMiniBatchInferFirstRowOnRowtime:
		// Calc(select=[a, b, rowtime]) over the MiniBatchAssigner over
		// the WatermarkAssigner over Calc(..., PROCTIME() AS proctime)).
		switch in.(type) {
		case *LogicalWindowTableFunction, *LogicalWatermarkAssigner:
			pc.pinned = true
		}
		below = mergeCalc(pc)
	}
	nr := *r
	nr.OutputNumber = outputNumber
	nr.Partition = remapInts(r.Partition, m)
	nr.Order = make([]SortKey, len(r.Order))
	for i, k := range r.Order {
		k.Field = m[k.Field]
		nr.Order[i] = k
	}
	rn, rt := append([]string(nil), below.Names()...), append([]sql.DataType(nil), below.Types()...)
	if outputNumber {
		m[nIn] = len(fields)
		rn, rt = append(rn, r.names[nIn]), append(rt, r.types[nIn])
	}
	nr.base = row(rn, rt, below)
	for i, e := range exprs {
		exprs[i] = remap(e, m)
	}
	if cond != nil {
		cond = remap(cond, m)
	}
	return &LogicalCalc{base: row(names, exprTypes(exprs), &nr), Exprs: exprs, Cond: cond}, nil
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func remapInts(fs []int, m map[int]int) []int {
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = m[f]
	}
	return out
}

// substitute replaces references equal to ref by with.
func substitute(e Expr, ref *InputRef, with Expr) Expr {
	switch x := e.(type) {
	case *InputRef:
		if x.Index == ref.Index {
			return with
		}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = substitute(a, ref, with)
		}
		out := *x
		out.Args = args
		return &out
	}
	return e
}

// convertRank is StreamPhysicalDeduplicateRule / StreamPhysicalRankRule.
func (b *binder) convertRank(r *LogicalRank) (Node, error) {
	if !b.streaming {
		return b.convertBatchRank(r)
	}
	in, err := b.convert(r.input())
	if err != nil {
		return nil, err
	}
	if w, ok, err := b.convertWindowRank(r, in); err != nil || ok {
		return w, err
	}
	ex := &Exchange{base: sameRow(in), Keys: append([]int(nil), r.Partition...), Single: len(r.Partition) == 0}
	if r.Func == "ROW_NUMBER" && r.Start == 1 && r.End == 1 && !r.OutputNumber && len(r.Order) == 1 &&
		r.OrderTime[0] != notTime && modifyKinds(in, map[Node]sql.ChangelogMode{}).IsInsertOnly() {
		return &Deduplicate{base: sameRow(ex), Keys: r.Partition, KeepLast: r.Order[0].Desc,
			Rowtime: r.OrderTime[0] == rowTime, TimeField: r.Order[0].Field}, nil
	}
	return &Rank{base: row(r.names, r.types, ex), Func: r.Func, Partition: r.Partition, Order: r.Order,
		OrderTime: r.OrderTime, Start: r.Start, End: r.End, OutputNumber: r.OutputNumber}, nil
}

// rankUpsertKeys is FlinkRelMdUpsertKeys for a Rank (getRankUniqueKeys).
func rankUpsertKeys(n *Rank) [][]int {
	var inKeys [][]int
	for _, k := range n.input().UpsertKeys() {
		if containsAll(k, n.Partition) {
			inKeys = append(inKeys, k)
		}
	}
	if n.Func == "ROW_NUMBER" && n.Start == 1 && n.End == 1 {
		return [][]int{append([]int{}, n.Partition...)}
	}
	if !n.OutputNumber {
		return inKeys
	}
	// Flink keeps them in a hash set; the input's keys come first in the
	// plans its tests print (RankTest.testNestedTopN).
	out := inKeys
	if n.Func == "ROW_NUMBER" {
		out = append(out, append(append([]int{}, n.Partition...), len(n.input().Names())))
	}
	return out
}

// visitRank is visitRankStrategies: the strategies in Flink's order, the
// first whose input requirement the input can meet.
func (inf *inference) visitRank(n *Rank, out *Rank, req updateKind, child func(int, updateKind) bool) bool {
	return inf.visitRankStrategies(n.input(), n.Partition, n.Order, func(s string, k []int) {
		out.Strategy, out.StrategyKey = s, k
	}, child)
}

// visitRankStrategies picks a Top-N's strategy over input in, partitioned
// by partition (none for a SortLimit) and ordered by order, and asks the
// input for the update kind it needs; set records the choice.
func (inf *inference) visitRankStrategies(in Node, partition []int, order []SortKey, set func(string, []int), child func(int, updateKind) bool) bool {
	if inf.mk[in].IsInsertOnly() {
		set(appendFastStrategy, nil)
		return child(0, ukNone)
	}
	for _, k := range in.UpsertKeys() {
		if !containsAll(k, partition) {
			continue
		}
		if rankSortMonotonic(in, order) {
			set(updateFastStrategy, sortedInts(k))
			if child(0, ukOnlyUA) {
				return true
			}
		}
		break
	}
	set(retractStrategy, nil)
	return child(0, ukBA)
}

// rankSortMonotonic: every sort key only moves toward the top as rows
// update (RankProcessStrategy's isMonotonic).
func rankSortMonotonic(in Node, order []SortKey) bool {
	if len(order) == 0 {
		return false
	}
	for _, k := range order {
		switch fieldMonotonicity(in, k.Field) {
		case constant:
		case increasing:
			if !k.Desc {
				return false
			}
		case decreasing:
			if k.Desc {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func sortedInts(k []int) []int {
	out := append([]int(nil), k...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// keepsProctime reports a node that orders by a processing-time attribute:
// its input keeps the attribute unmaterialized, the Calc above materializes
// it (RelTimeIndicatorConverter).
func keepsProctime(n Node) bool {
	switch x := n.(type) {
	case *Deduplicate:
		return !x.Rowtime
	case *OverAggregate:
		return !x.Rowtime
	case *Sort:
		// A streaming Sort keeps its input's time attributes, as a
		// TemporalSort does (RelTimeIndicatorConverter.visitSimpleRel).
		return x.Stream
	case *IntervalJoin:
		// Rowtime or not: an interval join is no regular join, whose
		// inputs' time attributes alone RelTimeIndicatorConverter
		// materializes.
		return true
	case *Correlate:
		// An UNNEST's Correlate passes its input's time attributes on
		// (its rowType keeps them *PROCTIME*).
		return true
	case *Rank:
		for _, t := range x.OrderTime {
			if t == procTime {
				return true
			}
		}
	case *SortLimit:
		// RelTimeIndicatorConverter passes a FlinkLogicalSort's time
		// attributes through (visitSimpleRel): a streaming SortLimit
		// orders by the unmaterialized attribute, and what reads it
		// above materializes it (SortLimitTest.testOrderByLimit).
		return !x.Batch
	case *Limit:
		// So does a FlinkLogicalSort without collation, a streaming
		// LIMIT / OFFSET: the Calc above it materializes what it passes
		// (LimitTest.testLimitWithProcessingTime:
		// PROCTIME_MATERIALIZE(proctime) above the Limit).
		return !x.Batch
	}
	return false
}

// rankMonotonicity is FlinkRelMdModifiedMonotonicity for a Rank: its
// partition keys and rank number are constant, its first sort key moves
// as the rank moves it, the rest are not monotonic (nor is anything when
// a partition key of the input changes).
func rankMonotonicity(n *Rank, f int) monotonicity {
	in := n.input()
	for _, p := range n.Partition {
		if fieldMonotonicity(in, p) != constant {
			return notMonotonic
		}
	}
	for _, p := range n.Partition {
		if p == f {
			return constant
		}
	}
	if n.OutputNumber && f == len(in.Names()) {
		return constant
	}
	if len(n.Order) > 0 && n.Order[0].Field == f {
		k := n.Order[0]
		switch m := fieldMonotonicity(in, f); {
		case (m == increasing || m == constant) && k.Desc:
			return increasing
		case (m == decreasing || m == constant) && !k.Desc:
			return decreasing
		}
	}
	return notMonotonic
}

// trivialCalc reports a Calc that returns its input's fields in order,
// with no condition (whatever it names them).
func trivialCalc(c *LogicalCalc) bool {
	if c.Cond != nil || len(c.Exprs) != len(c.input().Names()) {
		return false
	}
	for i, e := range c.Exprs {
		if ref, ok := e.(*InputRef); !ok || ref.Index != i {
			return false
		}
	}
	return true
}

// windowNumberName is the name Calcite's LogicalWindow gives its one
// ranking call, w0$o0, in the projection above it.
const windowNumberName = "w0$o0"

// logicalUpsertKeys are a logical node's upsert keys as Flink's
// FlinkRelMdUpsertKeys derives them: a rank's are getRankUniqueKeys of
// its input's keys that contain its partition key; a projection maps its
// input's; the other nodes' are their unique keys (logicalUniqueKeys).
func logicalUpsertKeys(n Node) [][]int {
	switch n := n.(type) {
	case *LogicalRank:
		var in [][]int
		for _, k := range logicalUpsertKeys(n.input()) {
			if containsAll(k, n.Partition) {
				in = append(in, k)
			}
		}
		return rankUniqueKeys(n, in)
	case *LogicalCalc:
		return projectKeys(logicalUpsertKeys(n.input()), n.Exprs)
	case *LogicalProject:
		return projectKeys(logicalUpsertKeys(n.input()), n.Exprs)
	case *LogicalFilter:
		return logicalUpsertKeys(n.input())
	case *LogicalJoin:
		return joinUpsertKeysLogical(n)
	}
	return logicalUniqueKeys(n)
}

// joinUpsertKeysLogical is FlinkRelMdUpsertKeys.getJoinUpsertKeys
// (FlinkRelMdUniqueKeys.getJoinUniqueKeys, as Calcite's RelMdUniqueKeys):
// each left key joined with each right key; the left's keys alone when
// the right is unique on its equi-join fields and the join generates no
// NULLs on the left, the right's alone likewise. A semi or anti join
// keeps its left input's keys. (WindowJoinTest.
// testWindowPropertyPropagateForWindowJoin: the join of two window
// aggregates on a, window_start and window_end is keyed by both group
// keys, window_time included, so CalcRankTransposeRule keeps every field
// under the rank above it.)
func joinUpsertKeysLogical(j *LogicalJoin) [][]int {
	left, right := j.inputs[0], j.inputs[1]
	lkeys := logicalUpsertKeys(left)
	if isSemiAnti(j.JoinType) {
		return lkeys
	}
	rkeys := logicalUpsertKeys(right)
	nl := len(left.Names())
	var lk, rk []int
	for _, c := range conjuncts(j.Cond) {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" || len(call.Args) != 2 {
			continue
		}
		a, okA := call.Args[0].(*InputRef)
		b, okB := call.Args[1].(*InputRef)
		if !okA || !okB {
			continue
		}
		switch {
		case a.Index < nl && b.Index >= nl:
			lk, rk = append(lk, a.Index), append(rk, b.Index-nl)
		case b.Index < nl && a.Index >= nl:
			lk, rk = append(lk, b.Index), append(rk, a.Index-nl)
		}
	}
	unique := func(keys [][]int, cols []int) bool {
		for _, k := range keys {
			if containsAll(cols, k) {
				return true
			}
		}
		return false
	}
	shifted := make([][]int, len(rkeys))
	for i, k := range rkeys {
		shifted[i] = make([]int, len(k))
		for x, f := range k {
			shifted[i][x] = f + nl
		}
	}
	var out [][]int
	for _, l := range lkeys {
		for _, r := range shifted {
			out = append(out, append(slices.Clone(l), r...))
		}
	}
	nullsOnLeft := j.JoinType == ast.RightJoin || j.JoinType == ast.FullJoin
	nullsOnRight := j.JoinType == ast.LeftJoin || j.JoinType == ast.FullJoin
	if unique(rkeys, rk) && !nullsOnLeft {
		out = append(out, lkeys...)
	}
	if unique(lkeys, lk) && !nullsOnRight {
		out = append(out, shifted...)
	}
	return out
}

// rankUniqueKeys is FlinkRelMdUniqueKeys.getRankUniqueKeys: a top-1
// ROW_NUMBER is keyed by its partition key (a deduplication); a rank
// without its number keeps its input's keys; a ROW_NUMBER's partition key
// and number are a key besides them.
func rankUniqueKeys(r *LogicalRank, in [][]int) [][]int {
	if r.Func == "ROW_NUMBER" && r.Start == 1 && r.End == 1 {
		return [][]int{slices.Sorted(slices.Values(r.Partition))}
	}
	if !r.OutputNumber {
		return in
	}
	var out [][]int
	if r.Func == "ROW_NUMBER" {
		k := append(slices.Clone(r.Partition), len(r.input().Names()))
		slices.Sort(k)
		out = append(out, k)
	}
	return append(out, in...)
}
