package plan

import (
	"math"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// OVER aggregates: COUNT/SUM/MIN/MAX/AVG(x) OVER (PARTITION BY ... ORDER BY
// <time attribute> [ROWS|RANGE BETWEEN ... PRECEDING AND CURRENT ROW]), and
// ROW_NUMBER() OVER without a filter on its number, as Flink plans them:
//
//   - binding expands the calls as Calcite's SqlToRelConverter does: SUM(x)
//     is CASE(COUNT(x) OVER w > 0, SUM(x) OVER w, null), AVG(x) that SUM
//     divided by COUNT(x) OVER w; each OverAgg (Calcite's RexOver) stays in
//     the LogicalProject;
//   - the OverAggregate rule (ProjectToWindowRule, FlinkLogicalOverAggregate)
//     splits the projection into a LogicalOverAggregate over the fields it
//     reads, each distinct call one output field w0$o<i>, and the projection
//     above it;
//   - convert makes it an OverAggregate over a hash Exchange on the
//     partition keys (single without), refusing what
//     StreamExecOverAggregate refuses, with its messages.

// OverFrame is a window's frame. Lower is UNBOUNDED PRECEDING, n PRECEDING
// or CURRENT ROW, Upper CURRENT ROW, n FOLLOWING or UNBOUNDED FOLLOWING
// (ast.FrameBound's kinds); Offset is n (rows, or milliseconds for RANGE)
// and Lit the bound as written, for the digest.
type OverFrame struct {
	Rows         bool
	Lower, Upper OverBound
}

// OverBound is one end of a frame.
type OverBound struct {
	Kind   string
	Offset int64
	Lit    Expr
}

func (b OverBound) ast() string {
	if b.Lit != nil {
		return FormatExpr(b.Lit, nil, FormatAST) + " " + b.Kind
	}
	return b.Kind
}

func (b OverBound) physical() string {
	if b.Lit != nil {
		// Flink prints the constant's value (RexLiteral.getValue2 as Java
		// prints it: POWER(2, 4) is "16.0"; RelExplainUtil.windowRangeToString).
		if l, ok := b.Lit.(*Literal); ok && l.T.Root == sql.TypeDouble {
			return sql.FormatValue(l.Value, l.T) + " " + b.Kind
		}
		return strconv.FormatInt(b.Offset, 10) + " " + b.Kind
	}
	return b.Kind
}

// defaultFrame is the frame of a window without one: RANGE UNBOUNDED
// PRECEDING to the current row with ORDER BY, the whole partition without.
func defaultFrame(ordered bool) OverFrame {
	f := OverFrame{Lower: OverBound{Kind: "UNBOUNDED PRECEDING"}, Upper: OverBound{Kind: "CURRENT ROW"}}
	if !ordered {
		f.Upper.Kind = "UNBOUNDED FOLLOWING"
	}
	return f
}

// astText is the frame in Calcite's RexWindow digest: nothing for the
// default frame, "ROWS 2 PRECEDING" for one ending at the current row.
func (f OverFrame) astText(ordered bool) string {
	if !f.Rows && f == defaultFrame(ordered) {
		return ""
	}
	s := "RANGE "
	if f.Rows {
		s = "ROWS "
	}
	if f.Upper.Kind == "CURRENT ROW" {
		return s + f.Lower.ast()
	}
	return s + "BETWEEN " + f.Lower.ast() + " AND " + f.Upper.ast()
}

// physicalText is the window=[...] of Flink's OverAggregate.
func (f OverFrame) physicalText() string {
	s := " RANGE BETWEEN "
	if f.Rows {
		s = " ROWS BETWEEN "
	}
	return s + f.Lower.physical() + " AND " + f.Upper.physical()
}

// OverAgg is an aggregate call with its window, Calcite's RexOver in a
// LogicalProject: COUNT($0) OVER (PARTITION BY $2 ORDER BY $3 NULLS FIRST
// ROWS 2 PRECEDING). It exists only between binding and the OverAggregate
// rule.
type OverAgg struct {
	// Func is COUNT, SUM, MIN, MAX or ROW_NUMBER.
	Func      string
	Args      []Expr
	Distinct  bool
	Partition []Expr
	Order     []OverKey
	Frame     OverFrame
	// NoFraming is a call that allows no frame (Calcite's
	// allowsFraming): its digest prints none, whatever its Frame.
	NoFraming bool
	T         sql.DataType
}

// Type is the call's type.
func (o *OverAgg) Type() sql.DataType { return o.T }

// String is Calcite's RexOver digest (expr.String prints it so).
func (o *OverAgg) String() string {
	args := make([]string, len(o.Args))
	for i, a := range o.Args {
		args[i] = FormatExpr(a, nil, FormatAST)
	}
	d := ""
	if o.Distinct {
		d = "DISTINCT "
	}
	return o.Func + "(" + d + strings.Join(args, ", ") + ") OVER (" + o.window() + ")"
}

func (o *OverAgg) window() string {
	w := (&OverCall{Partition: o.Partition, Order: o.Order}).String()
	w = strings.TrimSuffix(strings.TrimPrefix(w, "() OVER ("), ")")
	if f := o.Frame.astText(len(o.Order) > 0); f != "" && !o.NoFraming {
		if w != "" {
			w += " "
		}
		w += f
	}
	return w
}

// windowKey tells windows apart: the window with its frame, which a call
// that allows none does not print.
func (o *OverAgg) windowKey() string {
	return o.window() + "|" + o.Frame.physicalText()
}

// bindOverAgg binds an aggregate call with OVER.
func (b *binder) bindOverAgg(x *ast.FuncCall, sc *scope, agg *aggCollector) (Expr, error) {
	switch x.Name {
	case "COUNT", "SUM", "MIN", "MAX", "AVG":
	case "LEAD", "LAG", "NTILE", "CUME_DIST", "PERCENT_RANK":
		if err := checkWindowFunc(x); err != nil {
			return nil, err
		}
	default:
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support OVER aggregates of %s yet", x.Name)
	}
	w := x.Over
	base := OverAgg{Distinct: x.Distinct}
	for _, p := range w.PartitionBy {
		e, err := b.bindExpr(p, sc, agg)
		if err != nil {
			return nil, err
		}
		base.Partition = append(base.Partition, e)
	}
	for _, k := range w.OrderBy {
		e, err := b.bindExpr(k.Expr, sc, agg)
		if err != nil {
			return nil, err
		}
		nf := !k.Desc
		if k.NullsFirst != nil {
			nf = *k.NullsFirst
		}
		base.Order = append(base.Order, OverKey{Expr: e, Desc: k.Desc, NullsFirst: nf})
	}
	base.Frame = defaultFrame(len(base.Order) > 0)
	if fr := w.Frame; fr != nil {
		base.Frame.Rows = fr.Rows
		var err error
		if base.Frame.Lower, err = b.bindBound(fr.Start, fr.Rows, sc); err != nil {
			return nil, err
		}
		base.Frame.Upper = OverBound{Kind: "CURRENT ROW"}
		if fr.End != nil {
			if base.Frame.Upper, err = b.bindBound(*fr.End, fr.Rows, sc); err != nil {
				return nil, err
			}
		}
	}
	var args []Expr
	for _, a := range x.Args {
		e, err := b.bindExpr(a, sc, agg)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if isWindowFunc(x.Name) {
		return bindWindowFunc(x, base, args, b.streaming)
	}
	if len(args) > 1 || (len(args) == 0 && !x.Star) {
		return nil, validationErr(x.At, len(x.Name), "Invalid number of arguments to function '%s'. Was expecting 1 arguments", x.Name)
	}
	call := func(fn string, t sql.DataType) *OverAgg {
		c := base
		c.Func, c.Args, c.T = fn, args, t
		return &c
	}
	count := call("COUNT", sql.BigInt().NotNull())
	if x.Star {
		return count, nil
	}
	at := args[0].Type()
	switch x.Name {
	case "COUNT":
		return count, nil
	case "MIN", "MAX":
		return call(x.Name, at.WithNullable(true)), nil
	}
	sumT := aggResultType("SUM", at).WithNullable(true)
	sum := &Call{Op: "CASE", T: sumT, Args: []Expr{
		&Call{Op: ">", Args: []Expr{count, &Literal{Value: int32(0), T: sql.Int().NotNull()}}, T: sql.Boolean().NotNull()},
		call("SUM", sumT),
		&Literal{Value: nil, T: sumT},
	}}
	if x.Name == "SUM" {
		return sum, nil
	}
	avgT := aggResultType("AVG", at).WithNullable(true)
	div := &Call{Op: "/", Args: []Expr{sum, count}, T: arithmeticType("/", sumT, count.T)}
	if div.T.Root != avgT.Root {
		return castExpr(div, avgT), nil
	}
	return div, nil
}

// bindBound binds a frame bound: a constant row count for ROWS, an
// INTERVAL for RANGE (or a constant, as milliseconds).
func (b *binder) bindBound(fb ast.FrameBound, rows bool, sc *scope) (OverBound, error) {
	out := OverBound{Kind: fb.Kind}
	if fb.Offset == nil {
		return out, nil
	}
	b.exprDepth++
	e, err := b.bindExpr(fb.Offset, sc, nil)
	b.exprDepth--
	if err != nil {
		return out, err
	}
	lit, ok := fold(e).(*Literal)
	if !ok {
		return out, sql.Errorf(sql.TableException, "sqlrun supports only constant OVER window bounds yet")
	}
	out.Lit = lit
	if isCharType(lit.T) {
		// Calcite's SqlWindow.validateFrameBoundary (OverAggregateTest
		// .testWindowBoundaryNotNumeric).
		return out, sql.Errorf(sql.ValidationException, "CHARACTER type is not allowed for window boundary")
	}
	if iv, ok := lit.Value.(expr.Interval); ok {
		if iv.YearMonth() {
			return out, sql.Errorf(sql.TableException, "sqlrun does not support a year-month INTERVAL as an OVER window's RANGE bound")
		}
		if rows {
			return out, sql.Errorf(sql.ValidationException, "ROWS value must be a non-negative integral constant")
		}
		out.Offset = iv.Millis
		return out, nil
	}
	n, ok := toInt(lit.Value)
	if f, isFloat := lit.Value.(float64); isFloat && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		// A DOUBLE constant such as POWER(2, 4) (OverAggregateTest
		// .testWindowBoundaryWithSimplifiableExpressions[2]).
		n, ok = int64(f), true
	}
	if !ok || n < 0 {
		return out, sql.Errorf(sql.TableException, "sqlrun supports only integer OVER window bounds yet")
	}
	out.Offset = n
	return out, nil
}

// LogicalOverAggregate is Flink's FlinkLogicalOverAggregate with one
// window group: the input's fields, then one field per aggregate.
type LogicalOverAggregate struct {
	base
	Partition []int
	Order     []SortKey
	OrderTime []timeKind
	Frame     OverFrame
	Aggs      []AggCall
}

// OverAggregate is Flink's StreamPhysicalOverAggregate.
type OverAggregate struct {
	base
	Partition []int
	Order     []SortKey
	// Rowtime orders by an event-time attribute (processing time
	// otherwise).
	Rowtime bool
	Frame   OverFrame
	Aggs    []AggCall
}

func (*LogicalOverAggregate) Name() string { return "FlinkLogicalOverAggregate" }
func (*OverAggregate) Name() string        { return "OverAggregate" }

func (n *LogicalOverAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *OverAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func overDigest(name string, partition []int, order []SortKey, frame OverFrame, aggs []AggCall, in, out []string) string {
	s := name + "("
	if len(partition) > 0 {
		s += "partitionBy=[" + names(in, partition) + "], "
	}
	os := make([]string, len(order))
	for i, k := range order {
		d := " ASC"
		if k.Desc {
			d = " DESC"
		}
		os[i] = in[k.Field] + d
	}
	sel := append([]string(nil), in...)
	for i, a := range aggs {
		t := aggString(a, in)
		if len(a.ArgLits) > 0 {
			t = a.Func + "(" + overArgsText(a, in) + ")"
		}
		if a.Func == "ROW_NUMBER" {
			t = "ROW_NUMBER()"
		}
		sel = append(sel, t+" AS "+out[len(in)+i])
	}
	return s + "orderBy=[" + strings.Join(os, ", ") + "], window=[" + frame.physicalText() + "], select=[" + strings.Join(sel, ", ") + "])"
}

func (n *LogicalOverAggregate) describe(Format) string {
	return overDigest("FlinkLogicalOverAggregate", n.Partition, n.Order, n.Frame, n.Aggs, n.input().Names(), n.names)
}

func (n *OverAggregate) describe(Format) string {
	return overDigest("OverAggregate", n.Partition, n.Order, n.Frame, n.Aggs, n.input().Names(), n.names)
}

// hasOverAgg reports an OVER aggregate anywhere in exprs, or a ranking
// call at the top of one.
func hasOverAgg(exprs []Expr) bool {
	found := false
	for _, e := range exprs {
		walkExpr(e, func(x Expr) {
			switch x.(type) {
			case *OverAgg, *OverCall:
				found = true
			}
		})
	}
	return found
}

func walkExpr(e Expr, f func(Expr)) {
	f(e)
	if c, ok := e.(*Call); ok {
		for _, a := range c.Args {
			walkExpr(a, f)
		}
	}
}

// mapOver rebuilds e with every OVER call replaced by fn's result.
func mapOver(e Expr, fn func(*OverAgg) Expr) Expr {
	switch x := e.(type) {
	case *OverAgg:
		return fn(x)
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = mapOver(a, fn)
		}
		out := *x
		out.Args = args
		return &out
	}
	return e
}

// overRule is the OverAggregate rule on a LogicalProject holding OVER
// calls (ProjectToWindowRule: CalcRelSplitter, then
// FlinkLogicalOverAggregateConverter).
func overRule(b *binder, n Node) (Node, error) {
	p, ok := n.(*LogicalProject)
	if !ok || !hasOverAgg(p.Exprs) {
		return nil, nil
	}
	batch := b != nil && !b.streaming
	// Calcite's HepPlanner splits the innermost window first: a window
	// above names its calls after the fields below (w0$o0_0).
	if in, err := applyOverBelow(b, p.input()); err != nil {
		return nil, err
	} else if in != p.input() {
		p = &LogicalProject{base: row(p.names, p.types, in), Exprs: p.Exprs}
	}
	// ROW_NUMBER() without a filter on its number is an OVER aggregate
	// over ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
	exprs := make([]Expr, len(p.Exprs))
	for i, e := range p.Exprs {
		if o, ok := e.(*OverCall); ok && batch && o.Func != "ROW_NUMBER" {
			// Flink's batch planner keeps RANK and DENSE_RANK as window
			// calls over the default frame (OverAggregateTest
			// .testDenseRankOnOrder: RANGE BETWEEN UNBOUNDED PRECEDING AND
			// CURRENT ROW).
			e = &OverAgg{Func: o.Func, Partition: o.Partition, Order: o.Order, T: o.Type(), Frame: defaultFrame(true)}
		} else if o, ok := e.(*OverCall); ok {
			if o.Func != "ROW_NUMBER" {
				return nil, sql.Errorf(sql.TableException,
					"sqlrun does not support %s() OVER without a filter on its number (WHERE rk <= N) yet", o.Func)
			}
			e = &OverAgg{Func: o.Func, Partition: o.Partition, Order: o.Order, T: o.Type(),
				Frame: OverFrame{Rows: true, Lower: OverBound{Kind: "UNBOUNDED PRECEDING"}, Upper: OverBound{Kind: "CURRENT ROW"}}}
		}
		exprs[i] = e
	}
	in := p.input()
	nIn := len(in.Names())
	var calls []*OverAgg
	seen := map[string]int{}
	for _, e := range exprs {
		walkExpr(e, func(x Expr) {
			if o, ok := x.(*OverAgg); ok {
				k := o.String() + "|" + o.T.String()
				if _, dup := seen[k]; !dup {
					seen[k] = len(calls)
					calls = append(calls, o)
				}
			}
		})
	}
	win := calls[0].windowKey()
	for _, c := range calls[1:] {
		if c.windowKey() != win {
			if batch {
				return splitWindows(b, p, exprs, calls)
			}
			// Several window groups: StreamExecOverAggregate's refusal.
			return nil, sql.Errorf(sql.TableException, "All aggregates must be computed on the same window.")
		}
	}
	// Window keys and arguments that are not fields are computed below.
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
	w := calls[0]
	partition := make([]int, len(w.Partition))
	for i, e := range w.Partition {
		partition[i] = field(e)
	}
	order := make([]SortKey, len(w.Order))
	orderTime := make([]timeKind, len(w.Order))
	for i, k := range w.Order {
		order[i] = SortKey{Field: field(k.Expr), Desc: k.Desc, NullsFirst: k.NullsFirst}
		orderTime[i] = exprTimeAttr(in, k.Expr)
	}
	aggs := make([]AggCall, len(calls))
	for i, c := range calls {
		a := AggCall{Func: c.Func, Distinct: c.Distinct, T: c.T}
		for j, x := range c.Args {
			if l, ok := x.(*Literal); ok && constOverArg(c.Func, j) {
				if a.ArgLits == nil {
					a.ArgLits = make([]*Literal, len(c.Args))
				}
				a.ArgLits[j] = l
				continue
			}
			a.Args = append(a.Args, field(x))
		}
		aggs[i] = a
	}
	// The fields the window reads: those above it, its keys and arguments.
	width := nIn + len(extra)
	used := map[int]bool{}
	for _, e := range exprs {
		refs(mapOver(e, func(*OverAgg) Expr { return &Literal{T: sql.Null()} }), used)
	}
	for _, f := range partition {
		used[f] = true
	}
	for _, k := range order {
		used[k.Field] = true
	}
	for _, a := range aggs {
		for _, f := range a.Args {
			used[f] = true
		}
	}
	var keep []int
	m := map[int]int{}
	for f := 0; f < width; f++ {
		if used[f] {
			m[f] = len(keep)
			keep = append(keep, f)
		}
	}
	if len(extra) == 0 && !splitsBelowWindow(exprs) {
		// CalcRelSplitter (ProjectToWindowRule) puts the window at level
		// 0, right over the input, when the first expression it places is
		// a window call: the window then reads every input field and no
		// Calc projects them below it (OverAggregateTest.
		// testProcTimeUnboundedPartitionedRowsOver: select=[a, b, c,
		// proctime, rowtime, COUNT(a) AS w0$o0]).
		keep, m = keep[:0], map[int]int{}
		for f := 0; f < nIn; f++ {
			m[f] = f
			keep = append(keep, f)
		}
	}
	below := in
	if len(keep) < nIn || len(extra) > 0 {
		be := make([]Expr, len(keep))
		bn := make([]string, len(keep))
		for i, f := range keep {
			if f < nIn {
				be[i] = &InputRef{Index: f, T: in.Types()[f]}
				bn[i] = in.Names()[f]
			} else {
				be[i] = extra[f-nIn]
				bn[i] = "$" + strconv.Itoa(i)
			}
		}
		below = &LogicalProject{base: row(bn, exprTypes(be), in), Exprs: be}
	}
	partition = remapInts(partition, m)
	for i := range order {
		order[i].Field = m[order[i].Field]
	}
	for i := range aggs {
		aggs[i].Args = remapInts(aggs[i].Args, m)
	}
	names := append([]string(nil), below.Names()...)
	types := append([]sql.DataType(nil), below.Types()...)
	for i, a := range aggs {
		nm := uniqueName("w0$o"+strconv.Itoa(i), names)
		aggs[i].Name = nm
		names = append(names, nm)
		types = append(types, a.T)
	}
	over := &LogicalOverAggregate{base: row(names, types, below), Partition: partition, Order: order,
		OrderTime: orderTime, Frame: w.Frame, Aggs: aggs}
	nb := len(below.Names())
	top := make([]Expr, len(exprs))
	topNames := append([]string(nil), p.Names()...)
	for i, e := range exprs {
		// Fields first (remap leaves the OVER calls alone), then the calls.
		top[i] = mapOver(remap(e, m), func(o *OverAgg) Expr {
			j := seen[o.String()+"|"+o.T.String()]
			return &InputRef{Index: nb + j, T: o.T}
		})
		// A window of one call names the field that reads it by its
		// position (the projection Calcite's CalcRelSplitter leaves).
		if r, ok := top[i].(*InputRef); ok && len(calls) == 1 && r.Index == nb {
			topNames[i] = "$" + strconv.Itoa(i)
		}
	}
	// A projection of the window's fields in order is dropped, as Calcite
	// removes a trivial project: the window's names stay.
	if len(top) == len(names) {
		trivial := true
		for i, e := range top {
			if r, ok := e.(*InputRef); !ok || r.Index != i {
				trivial = false
			}
		}
		if trivial {
			return over, nil
		}
	}
	return &LogicalProject{base: row(topNames, exprTypes(top), over), Exprs: top}, nil
}

// projectMergeBeforeWindow is FlinkProjectMergeRule as Flink's
// DEFAULT_REWRITE_RULES apply it right before
// PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW: a projection holding OVER calls
// over a projection merges into one, so the window reads the fields under
// the lower projection (a view's or a subquery's renames) and the renames
// land above the window (WindowJoinTest.
// testWindowPropertyPropagateForWindowJoin: the WindowRank reads the
// WindowJoin, Calc(select=[..., cnt AS l_cnt, ...]) above it). Only a
// lower projection of fields and of literals the window does not read
// merges here (one that computes would move its expressions into the
// window's keys), and not one over an aggregate with a constant group key:
// Flink's AGGREGATE_PROJECT_PULL_UP_CONSTANTS, earlier in the same rule
// sequence, has replaced that aggregate first, which sqlrun's
// AggregateConstantKeys does only later.
func projectMergeBeforeWindow(_ *binder, n Node) (Node, error) {
	p, ok := n.(*LogicalProject)
	if !ok || !hasOverAgg(p.Exprs) {
		return nil, nil
	}
	exprs := p.Exprs
	var in Node = p
	for {
		q, ok := in.input().(*LogicalProject)
		if !ok || !fieldsOnly(q.Exprs, exprs) || constantGroupKey(q.input()) {
			break
		}
		merged := make([]Expr, len(exprs))
		for i, e := range exprs {
			merged[i] = inlineOver(e, q.Exprs)
		}
		exprs, in = merged, q
	}
	if in == Node(p) {
		return nil, nil
	}
	return &LogicalProject{base: row(p.names, p.types, in.input()), Exprs: exprs}, nil
}

// constantGroupKey reports an aggregate one of whose group keys is a
// literal of the projections below it.
func constantGroupKey(n Node) bool {
	agg, ok := n.(*LogicalAggregate)
	if !ok {
		return false
	}
	exprs, _, _ := flattenCalc(agg.input())
	for _, g := range agg.Group {
		if g < len(exprs) {
			if l, ok := exprs[g].(*Literal); ok && l.Value != nil {
				return true
			}
		}
	}
	return false
}

// fieldsOnly reports a projection of input fields and literals, none of
// whose literals the window calls of above read.
func fieldsOnly(exprs, above []Expr) bool {
	windowReads := map[int]bool{}
	for _, e := range above {
		walkExpr(e, func(x Expr) {
			var keys []Expr
			switch o := x.(type) {
			case *OverCall:
				keys = o.Partition
				for _, k := range o.Order {
					keys = append(keys, k.Expr)
				}
			case *OverAgg:
				keys = append(append([]Expr(nil), o.Args...), o.Partition...)
				for _, k := range o.Order {
					keys = append(keys, k.Expr)
				}
			}
			for _, k := range keys {
				refs(k, windowReads)
			}
		})
	}
	for i, e := range exprs {
		switch e.(type) {
		case *InputRef:
		case *Literal:
			if windowReads[i] {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// inlineOver is inline that also rewrites the keys and arguments of the
// OVER calls in e.
func inlineOver(e Expr, below []Expr) Expr {
	keys := func(ks []OverKey) []OverKey {
		out := make([]OverKey, len(ks))
		for i, k := range ks {
			k.Expr = inlineOver(k.Expr, below)
			out[i] = k
		}
		return out
	}
	list := func(es []Expr) []Expr {
		out := make([]Expr, len(es))
		for i, x := range es {
			out[i] = inlineOver(x, below)
		}
		return out
	}
	switch x := e.(type) {
	case *OverCall:
		o := *x
		o.Partition, o.Order = list(x.Partition), keys(x.Order)
		return &o
	case *OverAgg:
		o := *x
		o.Args, o.Partition, o.Order = list(x.Args), list(x.Partition), keys(x.Order)
		return &o
	case *Call:
		c := *x
		c.Args = list(x.Args)
		return &c
	}
	return inline(e, below)
}

// splitsBelowWindow reports that Calcite's CalcRelSplitter gives the
// projection exprs a Calc level below its window. The splitter places the
// program's expressions in topological order (computeTopologicalOrdering),
// which visits those without operands first: a literal anywhere (a CASE's
// 0 and NULL, a bounded window's offset) is placed first, in a Calc level
// (the first RelType that can implement it), and the window goes above it;
// so does, short of following the graph's order exactly, a call that reads
// no window result. A projection of fields, window calls and calls over
// window results has its window at level 0.
func splitsBelowWindow(exprs []Expr) bool {
	found := false
	var visit func(e Expr)
	visit = func(e Expr) {
		switch x := e.(type) {
		case *Literal:
			found = true
		case *OverAgg:
			for _, a := range x.Args {
				visit(a)
			}
			for _, p := range x.Partition {
				visit(p)
			}
			for _, k := range x.Order {
				visit(k.Expr)
			}
			for _, b := range []OverBound{x.Frame.Lower, x.Frame.Upper} {
				switch b.Kind {
				case "UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING", "CURRENT ROW", "":
				default:
					found = true // the offset's literal
				}
			}
		case *Call:
			if !hasOverAgg([]Expr{x}) {
				found = true
				return
			}
			for _, a := range x.Args {
				visit(a)
			}
		case *InputRef:
		default:
			found = true
		}
	}
	for _, e := range exprs {
		visit(e)
	}
	return found
}

// convertOver is StreamPhysicalOverAggregateRule, with the checks of
// StreamExecOverAggregate and FlinkChangelogModeInferenceProgram.
func (b *binder) convertOver(r *LogicalOverAggregate) (Node, error) {
	if !b.streaming {
		return b.convertBatchOver(r)
	}
	in, err := b.convert(r.input())
	if err != nil {
		return nil, err
	}
	mk := map[Node]sql.ChangelogMode{}
	if k := modifyKinds(in, mk); !k.IsInsertOnly() {
		return nil, (&inference{mk: mk}).consumeError("StreamPhysicalOverAggregate", in, k.Without(sql.Insert))
	}
	if len(r.Order) != 1 {
		return nil, sql.Errorf(sql.TableException, "The window can only be ordered by a single time column.")
	}
	if r.Order[0].Desc {
		return nil, sql.Errorf(sql.TableException, "The window can only be ordered in ASCENDING mode.")
	}
	if r.OrderTime[0] == notTime {
		return nil, sql.Errorf(sql.TableException, "OVER windows' ordering in stream mode must be defined on a time attribute.")
	}
	if r.Frame.Lower.Kind == "CURRENT ROW" || r.Frame.Lower.Kind == "FOLLOWING" || r.Frame.Upper.Kind != "CURRENT ROW" {
		return nil, sql.Errorf(sql.TableException, "OVER RANGE FOLLOWING windows are not supported yet.")
	}
	if err := checkStreamWindowFuncs(r.Aggs, in.Types()); err != nil {
		return nil, err
	}
	ex := &Exchange{base: sameRow(in), Keys: append([]int(nil), r.Partition...), Single: len(r.Partition) == 0}
	return &OverAggregate{base: row(r.names, r.types, ex), Partition: r.Partition, Order: r.Order,
		Rowtime: r.OrderTime[0] == rowTime, Frame: r.Frame, Aggs: r.Aggs}, nil
}

// splitWindows plans a batch projection whose OVER calls use several
// windows as a chain of windows: the calls of the first window in a
// projection below (the input's fields, then those calls), the others in
// the projection above, which the rule plans again. Flink's batch planner
// chains one OverAggregate per window too (OverAggregateTest
// .testDiffPartitionKeysWithDiffOrderKeys1), though it keeps the windows
// of one partitioning and order in one node (window#0, window#1) and an
// order already sorted without a new Sort; sqlrun sorts each window's
// input anew.
func splitWindows(b *binder, p *LogicalProject, exprs []Expr, calls []*OverAgg) (Node, error) {
	in := p.input()
	first := calls[0].windowKey()
	lowerExprs := identity(in.Types())
	lowerNames := append([]string(nil), in.Names()...)
	field := map[string]int{}
	for _, c := range calls {
		if c.windowKey() != first {
			continue
		}
		field[c.String()+"|"+c.T.String()] = len(lowerExprs)
		lowerNames = append(lowerNames, "$"+strconv.Itoa(len(lowerExprs)))
		lowerExprs = append(lowerExprs, c)
	}
	lower := &LogicalProject{base: row(lowerNames, exprTypes(lowerExprs), in), Exprs: lowerExprs}
	upper := make([]Expr, len(exprs))
	for i, e := range exprs {
		upper[i] = mapOver(e, func(o *OverAgg) Expr {
			if f, ok := field[o.String()+"|"+o.T.String()]; ok {
				return &InputRef{Index: f, T: o.T}
			}
			return o
		})
	}
	return overRule(b, &LogicalProject{base: row(p.names, p.types, lower), Exprs: upper})
}

// fixOverAggAggRefs is fixAggRefs inside an OVER aggregate's window and
// arguments.
func fixOverAggAggRefs(o *OverAgg, agg Node) *OverAgg {
	out := *o
	out.Args, out.Partition, out.Order = nil, nil, nil
	for _, a := range o.Args {
		out.Args = append(out.Args, fixAggRefs(a, agg))
	}
	for _, p := range o.Partition {
		out.Partition = append(out.Partition, fixAggRefs(p, agg))
	}
	for _, k := range o.Order {
		k.Expr = fixAggRefs(k.Expr, agg)
		out.Order = append(out.Order, k)
	}
	return &out
}

// applyOverBelow applies the OverAggregate rule to n's subtree, bottom up.
func applyOverBelow(b *binder, n Node) (Node, error) {
	ins := n.Inputs()
	changed := false
	out := make([]Node, len(ins))
	for i, in := range ins {
		c, err := applyOverBelow(b, in)
		if err != nil {
			return nil, err
		}
		out[i], changed = c, changed || c != in
	}
	if changed {
		n = n.WithInputs(out...)
	}
	r, err := overRule(b, n)
	if err != nil || r == nil {
		return n, err
	}
	return r, nil
}
