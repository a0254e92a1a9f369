package plan

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The legacy group window aggregation: GROUP BY TUMBLE(ts, size), k with
// TUMBLE_START / TUMBLE_END / TUMBLE_ROWTIME / TUMBLE_PROCTIME (and HOP,
// SESSION with theirs) in the select list and HAVING. Flink 1.20 plans it
// as StreamPhysicalGroupWindowAggregate (StreamLogicalWindowAggregateRule,
// WindowPropertiesRules) and never converts it into a window TVF
// aggregate. sqlrun binds it as that window TVF aggregate over the FROM's
// row, whose window columns are named w$start, w$end and w$rowtime (or
// w$proctime), and prints the aggregate as Flink's GroupWindowAggregate.

// groupWindowAux maps an auxiliary function to the group window it reads
// and the window column it stands for (0 start, 1 end, 2 time).
var groupWindowAux = map[string]struct {
	fn  string
	col int
}{
	"TUMBLE_START": {"TUMBLE", 0}, "TUMBLE_END": {"TUMBLE", 1}, "TUMBLE_ROWTIME": {"TUMBLE", 2}, "TUMBLE_PROCTIME": {"TUMBLE", 2},
	"HOP_START": {"HOP", 0}, "HOP_END": {"HOP", 1}, "HOP_ROWTIME": {"HOP", 2}, "HOP_PROCTIME": {"HOP", 2},
	"SESSION_START": {"SESSION", 0}, "SESSION_END": {"SESSION", 1}, "SESSION_ROWTIME": {"SESSION", 2}, "SESSION_PROCTIME": {"SESSION", 2},
}

// groupWindow is a bound legacy group window: the text of its GROUP BY
// call and of the window columns' references that replace it.
type groupWindow struct {
	call    string // the GROUP BY call's text, TUMBLE(ts, INTERVAL '15' MINUTE)
	fn      string
	proc    bool
	colRefs [3]*ast.ColumnRef
}

// auxColumn is the window column an auxiliary call (TUMBLE_START(ts, ...))
// stands for, or nil when e is none.
func (g *groupWindow) auxColumn(e ast.Expr) (*ast.ColumnRef, error) {
	f, ok := e.(*ast.FuncCall)
	if !ok || f.Over != nil {
		return nil, nil
	}
	aux, ok := groupWindowAux[f.Name]
	if !ok {
		return nil, nil
	}
	c := *f
	c.Name, c.Written = aux.fn, ""
	if g == nil || c.String() != g.call {
		// Calcite's SqlStdOperatorTable auxiliary functions must match
		// their group function's operands (AuxiliaryConverter).
		return nil, sql.Errorf(sql.ValidationException, "Call to auxiliary group function '%s' must have matching call to group function '%s' in GROUP clause", f.Name, aux.fn)
	}
	if aux.col == 2 && strings.HasSuffix(f.Name, "_ROWTIME") == g.proc {
		attr := "rowtime"
		if g.proc {
			attr = "proctime"
		}
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support %s of a window on a %s attribute yet", f.Name, attr)
	}
	return g.colRefs[aux.col], nil
}

// afterValidation is a group window's refusal that Flink raises when it
// plans the query (LogicalWindowAggregateRuleBase and the rules after
// it), after Calcite's validator took the whole query: the binder first
// validates the query's aggregate calls, whose errors come first
// (GroupWindowTest.testWindowUdAggInvalidArgs: a UDAF's argument types
// before the TUMBLE alignment time).
type afterValidation struct{ err error }

func (e afterValidation) Error() string { return e.err.Error() }
func (e afterValidation) Unwrap() error { return e.err }

// validateAggCalls binds the aggregate calls of exprs over the FROM's
// row, as Calcite's validator checks them, for their errors only.
func (b *binder) validateAggCalls(sc *scope, exprs []ast.Expr) error {
	agg := &aggCollector{}
	var err error
	for _, e := range exprs {
		walkAST(e, func(e ast.Expr) {
			if f, ok := e.(*ast.FuncCall); ok && err == nil && f.Over == nil && b.isAggName(f.Name) {
				_, err = b.bindExpr(f, sc, agg)
			}
		})
	}
	return err
}

// bindGroupWindow finds a legacy group window call in groupBy. With one,
// it returns the FROM row with the window columns appended (a legacy
// LogicalWindowTableFunction), their scope, and the GROUP BY with the call
// replaced by the window columns (w$start, w$end, and the time column
// when the query reads it).
func (b *binder) bindGroupWindow(input Node, sc *scope, groupBy []ast.Expr, reads []ast.Expr) (Node, *scope, []ast.Expr, *groupWindow, error) {
	at := -1
	for i, g := range groupBy {
		if f, ok := g.(*ast.FuncCall); ok && f.Over == nil && (f.Name == "TUMBLE" || f.Name == "HOP" || f.Name == "SESSION") {
			if at >= 0 {
				return nil, nil, nil, nil, sql.Errorf(sql.TableException, "sqlrun supports one group window in GROUP BY")
			}
			at = i
		}
	}
	if at < 0 {
		return input, sc, groupBy, nil, nil
	}
	f := groupBy[at].(*ast.FuncCall)
	nArgs := map[string]int{"TUMBLE": 2, "HOP": 3, "SESSION": 2}[f.Name]
	if len(f.Args) == nArgs+1 {
		// TUMBLE(ts, size, TIME '10:00:00'): Flink refuses the alignment
		// time with a TableException (GroupWindowTest.testTumbleWindowNoOffset).
		return nil, nil, nil, nil, afterValidation{sql.Errorf(sql.TableException, "%s window with alignment is not supported yet.", f.Name)}
	}
	if len(f.Args) != nArgs {
		return nil, nil, nil, nil, validationErr(f.At, len(f.Name), "Invalid number of arguments to function '%s'. Was expecting %d arguments", f.Name, nArgs)
	}
	if !b.streaming {
		return nil, nil, nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support the group window %s in batch mode yet", f.Name)
	}
	ts, err := b.bindExpr(f.Args[0], sc, nil)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ref, ok := ts.(*InputRef)
	if !ok {
		return nil, nil, nil, nil, afterValidation{sql.Errorf(sql.TableException, "sqlrun supports a group window only on a time attribute column")}
	}
	w := Windowing{Func: f.Name, Legacy: true}
	switch timeAttribute(input, ref.Index) {
	case "rowtime":
	case "proctime":
		w.ProcTime = true
	default:
		// StreamLogicalWindowAggregateRule.getTimeFieldReference.
		return nil, nil, nil, nil, sql.Errorf(sql.ValidationException, "Window can only be defined on a time attribute column, but is type of %s", ref.T.WithNullable(true))
	}
	if w.ProcTime || ref.T.Root == sql.TypeTimestampLTZ {
		w.Zone = b.zone
	}
	var ivs []int64
	for _, a := range f.Args[1:] {
		b.exprDepth++
		e, err := b.bindExprIn(a, sc, nil)
		b.exprDepth--
		if err != nil {
			return nil, nil, nil, nil, err
		}
		// StreamLogicalWindowAggregateRule.getOperandAsLong: a constant
		// day-time interval (GroupWindowTest.testVariableWindowSize,
		// testWindowWrongWindowParameter1).
		used := map[int]bool{}
		refs(e, used)
		if len(used) > 0 || !expr.Deterministic(e) {
			return nil, nil, nil, nil, sql.Errorf(sql.TableException, "Only constant window descriptors are supported.")
		}
		if e.Type().Root == sql.TypeIntervalYearMonth {
			return nil, nil, nil, nil, sql.Errorf(sql.TableException, "Window aggregate only support SECOND, MINUTE, HOUR, DAY as the time unit. MONTH and YEAR time unit are not supported yet.")
		}
		ev, err := Compile(e)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		v, err := ev(nil)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		ms, ok := v.(int64)
		if !ok || e.Type().Root != sql.TypeIntervalDayTime || ms <= 0 {
			return nil, nil, nil, nil, sql.Errorf(sql.ValidationException, "the %s window's intervals must be positive day-time INTERVALs", f.Name)
		}
		ivs = append(ivs, ms)
	}
	switch f.Name {
	case "HOP":
		// HOP(time, slide, size).
		w.Slide, w.Size = ivs[0], ivs[1]
	default:
		w.Size = ivs[0]
	}
	if f.Name == "SESSION" {
		// Flink's WindowOperator merges a key's sessions: the session
		// window aggregate partitioned by the GROUP BY's other keys,
		// which must be columns (sqlrun's session windows are per
		// partition key).
		for i, g := range groupBy {
			if i == at {
				continue
			}
			k, err := b.bindExpr(g, sc, nil)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			kr, ok := k.(*InputRef)
			if !ok {
				return nil, nil, nil, nil, sql.Errorf(sql.TableException, "sqlrun supports GROUP BY SESSION(...) only with column keys yet, not %s", g.String())
			}
			w.Partition = append(w.Partition, kr.Index)
		}
	}
	timeName := "w$rowtime"
	if w.ProcTime {
		timeName = "w$proctime"
	}
	gw := &groupWindow{call: f.String(), fn: f.Name, proc: w.ProcTime}
	wnames := []string{"w$start", "w$end", timeName}
	for i, n := range wnames {
		gw.colRefs[i] = &ast.ColumnRef{Node: f.Node, Name: n}
	}
	// The properties: Flink's WindowPropertiesRules add all of them when
	// the query reads any.
	for _, e := range reads {
		walkAST(e, func(e ast.Expr) {
			if c, _ := gw.auxColumn(e); c != nil {
				w.Props = true
			}
		})
	}
	tt := input.Types()[ref.Index]
	names := append(append([]string(nil), input.Names()...), wnames...)
	types := append(append([]sql.DataType(nil), input.Types()...), sql.Timestamp(3).NotNull(), sql.Timestamp(3).NotNull(), tt.NotNull())
	n := &LogicalWindowTableFunction{base: row(names, types, input), TimeCol: ref.Index, Window: w}
	nsc := *sc
	nsc.cols = append(append([]column(nil), sc.cols...), column{name: "w$start", t: types[len(names)-3]},
		column{name: "w$end", t: types[len(names)-2]}, column{name: timeName, t: types[len(names)-1]})
	keys := append([]ast.Expr(nil), groupBy[:at]...)
	keys = append(keys, gw.colRefs[0], gw.colRefs[1])
	if w.Props {
		keys = append(keys, gw.colRefs[2])
	}
	keys = append(keys, groupBy[at+1:]...)
	return n, &nsc, keys, gw, nil
}

// groupWindowDescribe is StreamPhysicalGroupWindowAggregate's explain
// terms: GroupWindowAggregate(groupBy=[k], window=[TumblingGroupWindow('w$,
// rowtime, 900000)], properties=[w$start, w$end, w$rowtime, w$proctime],
// select=[k, COUNT(*) AS c, start('w$) AS w$start, ...]).
func (n *WindowAggregate) groupWindowDescribe() string {
	in := n.input().Names()
	var window string
	tc := in[n.TimeCol]
	switch n.Window.Func {
	case "HOP":
		window = "SlidingGroupWindow('w$, " + tc + ", " + strconv.FormatInt(n.Window.Size, 10) + ", " + strconv.FormatInt(n.Window.Slide, 10) + ")"
	case "SESSION":
		window = "SessionGroupWindow('w$, " + tc + ", " + strconv.FormatInt(n.Window.Size, 10) + ")"
	default:
		window = "TumblingGroupWindow('w$, " + tc + ", " + strconv.FormatInt(n.Window.Size, 10) + ")"
	}
	var sel []string
	for _, g := range n.Group {
		sel = append(sel, in[g])
	}
	for _, a := range n.Aggs {
		// AggregateUtil.aggToString prints the calls without their
		// retraction (GroupWindowTest.testWindowAggregateOnRetractStream).
		a.Retract = false
		sel = append(sel, aggString(a, in)+" AS "+a.Name)
	}
	s := "GroupWindowAggregate("
	if len(n.Group) > 0 {
		s += "groupBy=[" + names(in, n.Group) + "], "
	}
	s += "window=[" + window + "], "
	if n.Window.Props {
		props := []string{"w$start", "w$end", "w$rowtime", "w$proctime"}
		if n.Window.ProcTime {
			props = []string{"w$start", "w$end", "w$proctime"}
		}
		s += "properties=[" + strings.Join(props, ", ") + "], "
		for _, p := range props {
			sel = append(sel, strings.TrimPrefix(p, "w$")+"('w$) AS "+p)
		}
	}
	s += "select=[" + strings.Join(sel, ", ") + "]"
	if emit := n.Window.Emit.String(); emit != "" {
		s += ", emit=[" + emit + "]"
	}
	return s + ")"
}

// legacyWindowKeys are the group keys of agg that are a legacy group
// window's columns (w$start, w$end, w$rowtime): Flink groups by the
// window call ($TUMBLE(rowtime, 900000)), which no filter moves below, so
// a HAVING on TUMBLE_START stays above the GroupWindowAggregate
// (GroupWindowTest.testExpressionOnWindowHavingFunction).
func legacyWindowKeys(agg *LogicalAggregate) map[int]bool {
	tvf, exprs := legacyWindowInput(agg)
	if tvf == nil {
		return nil
	}
	nIn := len(tvf.input().Names())
	keys := map[int]bool{}
	for i, g := range agg.Group {
		if ref, ok := exprs[g].(*InputRef); ok && ref.Index >= nIn {
			keys[i] = true
		}
	}
	return keys
}

// legacyWindowInput is the legacy group window agg aggregates (nil when
// none) and the expressions of the Calc or Project between them over its
// row (the identity when there is none).
func legacyWindowInput(agg *LogicalAggregate) (*LogicalWindowTableFunction, []Expr) {
	in := agg.input()
	exprs := identity(in.Types())
	switch x := in.(type) {
	case *LogicalCalc:
		in, exprs = x.input(), x.Exprs
	case *LogicalProject:
		in, exprs = x.input(), x.Exprs
	}
	tvf, ok := in.(*LogicalWindowTableFunction)
	if !ok || !tvf.Window.Legacy {
		return nil, nil
	}
	return tvf, exprs
}

// pruneWindowProperties drops the window properties of a legacy group
// window aggregate when the Calc above it reads none of its window
// columns: Flink's WindowPropertiesRules give the LogicalWindowAggregate
// its properties (w$start, w$end, w$rowtime, w$proctime) only for the
// window property calls of the Project above it, which a property the
// outer query does not read has left (FlinkProjectMergeRule runs in the
// same DEFAULT_REWRITE program), so GroupWindowAggregate prints no
// properties=[...] (GroupWindowTest.testTumbleFunNotInGroupBy). It returns
// the Calc over the aggregate without them, or nil.
func pruneWindowProperties(c *LogicalCalc, agg *LogicalAggregate) (*LogicalCalc, *LogicalAggregate) {
	tvf, exprs := legacyWindowInput(agg)
	if tvf == nil || !tvf.Window.Props || agg.Sets != nil {
		return nil, nil
	}
	used := c.fieldRefs()
	wk := legacyWindowKeys(agg)
	for gi := range wk {
		if used[gi] {
			return nil, nil
		}
	}
	// Without properties the aggregate groups by w$start and w$end only,
	// as bindGroupWindow binds it: the time column's key goes.
	timeCol := len(tvf.input().Names()) + 2
	drop := -1
	for gi, g := range agg.Group {
		if r, ok := exprs[g].(*InputRef); ok && r.Index == timeCol {
			drop = gi
		}
	}
	if drop < 0 {
		return nil, nil
	}
	nt := *tvf
	nt.Window.Props = false
	var in Node = &nt
	if x := agg.input(); x != tvf {
		in = x.WithInputs(&nt)
	}
	m := map[int]int{}
	var names []string
	var types []sql.DataType
	for i := range agg.names {
		if i != drop {
			m[i] = len(names)
			names = append(names, agg.names[i])
			types = append(types, agg.types[i])
		}
	}
	group := append(append([]int(nil), agg.Group[:drop]...), agg.Group[drop+1:]...)
	newAgg := &LogicalAggregate{base: row(names, types, in), Group: group, Aggs: agg.Aggs, PartialFinal: agg.PartialFinal}
	ex := make([]Expr, len(c.Exprs))
	for i, e := range c.Exprs {
		ex[i] = remap(e, m)
	}
	var cond Expr
	if c.Cond != nil {
		cond = remap(c.Cond, m)
	}
	return &LogicalCalc{base: row(c.names, c.types, newAgg), Exprs: ex, Cond: cond}, newAgg
}

// joinTimeAttribute is timeAttribute of field i of an inner join whose
// condition (with the WHERE above it, cond) bounds one input's time
// attribute by the other's: an interval join, whose output keeps both
// inputs' time attributes (Flink's RelTimeIndicatorConverter keeps them
// for a join IntervalJoinUtil.satisfyIntervalJoin accepts), so a group
// window can read either (IntervalJoinTest.testRowTimeInnerJoinAndWindowAggregationOnFirst).
// Any other join materializes them: "".
func joinTimeAttribute(j *LogicalJoin, cond Expr, i int) string {
	if j.JoinType != ast.InnerJoin {
		return ""
	}
	left, right := j.Inputs()[0], j.Inputs()[1]
	nl := len(left.Names())
	var cs []Expr
	if j.Cond != nil {
		cs = append(cs, conjuncts(j.Cond)...)
	}
	if cond != nil {
		cs = append(cs, conjuncts(cond)...)
	}
	interval := false
	for _, c := range cs {
		call, ok := c.(*Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		switch call.Op {
		case ">", ">=", "<", "<=", "=":
		default:
			continue
		}
		a, _, okA := timeOperand(call.Args[0])
		b, _, okB := timeOperand(call.Args[1])
		if !okA || !okB || (a < nl) == (b < nl) {
			continue
		}
		if a >= nl {
			a, b = b, a
		}
		if ka := timeAttribute(left, a); ka != "" && ka == timeAttribute(right, b-nl) {
			interval = true
		}
	}
	if !interval {
		return ""
	}
	if i < nl {
		return timeAttribute(left, i)
	}
	return timeAttribute(right, i-nl)
}

// legacyTimeName names a group window's time field in the Calc below the
// GroupWindowAggregate, at position pos: the column's name, or $f<pos>
// where the column is a window property of a group window below (Flink's
// LogicalWindowAggregateRuleBase projects the time attribute in place of
// the group call; an expression there, such as the TUMBLE_ROWTIME of an
// inner window, takes the projection's derived name:
// GroupWindowTest.testMultiWindowSqlWithAggregation, Calc(select=[w$rowtime
// AS $f0])).
func legacyTimeName(tvf *LogicalWindowTableFunction, pos int) string {
	n, i := tvf.input(), tvf.TimeCol
	for {
		switch x := n.(type) {
		case *LogicalProject:
			r, ok := x.Exprs[i].(*InputRef)
			if !ok {
				return tvf.names[tvf.TimeCol]
			}
			n, i = x.input(), r.Index
			continue
		case *LogicalCalc:
			r, ok := x.Exprs[i].(*InputRef)
			if !ok {
				return tvf.names[tvf.TimeCol]
			}
			n, i = x.input(), r.Index
			continue
		case *LogicalFilter:
			n = x.input()
			continue
		case *LogicalAggregate:
			if legacyWindowKeys(x)[i] {
				return "$f" + strconv.Itoa(pos)
			}
		}
		return tvf.names[tvf.TimeCol]
	}
}

// legacyProjectMerge is FlinkAggregateProjectMergeRule over the Project
// below a group window aggregate (below, over in): when it only picks
// in's fields, all of them, the LogicalWindowAggregate reads in directly,
// its window's time field included (the rule counts it among the fields
// the aggregate reads), as Flink's Volcano planner keeps the merged plan
// when the Project prunes nothing (RelTimeIndicatorConverterTest.testWindow2:
// the GroupWindowAggregate over the scan; the materialization of a rowtime
// an aggregate call reads is then a Calc over in's fields, CAST in place:
// testWindowWithAggregationOnRowtime). A Project that prunes fields stays
// (GroupWindowTest.testMultiWindowSqlWithAggregation: Calc(select=[rowtime,
// a])), as does one that would reorder the group keys (Calcite's group
// set is ordered), as aggregateProjectMerge does. It remaps pos, partPos
// and the time field's position, and returns below, its names and that
// position, unchanged when the merge does not apply.
func legacyProjectMerge(r *LogicalAggregate, exprs []Expr, in Node, below []Expr, names []string, pos map[int]int, partPos []int, timeAt int) ([]Expr, []string, int) {
	if !modifyKinds(in, map[Node]sql.ChangelogMode{}).IsInsertOnly() {
		// An updating input: an upsert source's scan reads its key for
		// the ChangelogNormalize added later, which the Project then
		// prunes (WatermarkAssignerChangelogNormalizeTransposeRuleTest.
		// testPushdownWatermarkAssignerWithCalc), as aggregateProjectMerge
		// keeps the Calc over a scan that needs the normalize.
		return below, names, timeAt
	}
	// A Calc under it is part of Flink's one Project (FlinkProjectMergeRule):
	// the fields it picks out of its input are pruned ones.
	over := in
	merged := below
	if c, ok := in.(*Calc); ok {
		if c.Cond != nil {
			return below, names, timeAt
		}
		over = c.input()
		merged = make([]Expr, len(below))
		for i, e := range below {
			merged[i] = inline(e, c.Exprs)
		}
	}
	m := make([]int, len(below))
	covered := map[int]bool{}
	for i, e := range merged {
		ref, ok := e.(*InputRef)
		if !ok {
			return below, names, timeAt
		}
		m[i] = ref.Index
		covered[ref.Index] = true
	}
	if len(covered) != len(over.Names()) {
		return below, names, timeAt
	}
	// Over a Calc that only reorders its input, the aggregate reads that
	// Calc's fields (its own order), which are all of its input's.
	for i, e := range below {
		m[i] = e.(*InputRef).Index
	}
	last := -1
	for _, g := range r.Group {
		p, ok := pos[g]
		if !ok {
			continue // a window column
		}
		if m[p] <= last {
			return below, names, timeAt
		}
		last = m[p]
	}
	for k, p := range pos {
		pos[k] = m[p]
	}
	for i, p := range partPos {
		partPos[i] = m[p]
	}
	if timeAt >= 0 {
		timeAt = m[timeAt]
	}
	return identity(in.Types()), append([]string(nil), in.Names()...), timeAt
}

// legacyFieldOrder reorders the fields of nt, the narrowed legacy group
// window tvf, in the order the Calc above reads them (exprs, over tvf's
// row), the time field where the Calc first reads a window column: the
// order of the Project LogicalWindowAggregateRuleBase leaves below the
// window aggregate (the GROUP BY's items, the window call replaced by its
// time field, then the calls' arguments), which Flink pushes into the scan
// as it is (WatermarkAssignerChangelogNormalizeTransposeRuleTest.
// testPushdownWatermarkAssignerWithCalc: project=[currency_time, rate,
// currency]). m maps tvf's fields to nt's and is returned remapped.
func legacyFieldOrder(tvf, nt *LogicalWindowTableFunction, m map[int]int, exprs []Expr) (Node, map[int]int) {
	inner, ok := nt.input().(*LogicalCalc)
	if !ok || inner.Cond != nil {
		return nt, m
	}
	nIn := len(tvf.input().Names())
	nNew := len(inner.Exprs)
	var order []int // nt's input fields in the new order
	seen := map[int]bool{}
	add := func(f int) {
		if !seen[f] {
			seen[f] = true
			order = append(order, f)
		}
	}
	for _, e := range exprs {
		walkExpr(e, func(x Expr) {
			if r, ok := x.(*InputRef); ok {
				if r.Index >= nIn {
					add(m[tvf.TimeCol])
				} else {
					add(m[r.Index])
				}
			}
		})
	}
	for f := 0; f < nNew; f++ {
		add(f)
	}
	perm := map[int]int{} // old position in nt's input -> new
	ex := make([]Expr, nNew)
	names := make([]string, nNew)
	types := make([]sql.DataType, nNew)
	for i, f := range order {
		perm[f] = i
		ex[i], names[i], types[i] = inner.Exprs[f], inner.names[f], inner.types[f]
	}
	newInner := &LogicalCalc{base: row(names, types, inner.input()), Exprs: ex}
	out := *nt
	outNames := append(append([]string(nil), names...), nt.names[nNew:]...)
	outTypes := append(append([]sql.DataType(nil), types...), nt.types[nNew:]...)
	out.base = row(outNames, outTypes, newInner)
	out.TimeCol = perm[nt.TimeCol]
	out.Window.Partition = nil
	for _, k := range nt.Window.Partition {
		out.Window.Partition = append(out.Window.Partition, perm[k])
	}
	nm := map[int]int{}
	for k, v := range m {
		if v < nNew {
			nm[k] = perm[v]
		} else {
			nm[k] = v
		}
	}
	return &out, nm
}

// legacyBelowName names field pos of the Calc below a GroupWindowAggregate,
// e over the group window's row. LogicalWindowAggregateRuleBase rebuilds
// that Project with a RelBuilder and no names, over the input of the
// Project FlinkProjectMergeRule left under the aggregate (the query's
// projections merged into one, down to a filter or any other node):
// RelBuilder's inferAlias names a field reference, or a CAST of one, after
// the field (CAST(a AS BIGINT) AS a, the implicit cast of a UDAF's
// argument: GroupWindowTest.testHoppingFunction), and any other
// expression $f<pos> (GroupWindowTest.testReturnTypeInferenceForWindowAgg:
// CASE(...) AS $f1, though a subquery named it correct).
func legacyBelowName(tvf *LogicalWindowTableFunction, e Expr, pos int) string {
	var n Node = tvf
	for {
		if c, ok := e.(*Call); ok && c.Op == "CAST" && len(c.Args) == 1 {
			e = c.Args[0]
		}
		r, ok := e.(*InputRef)
		if !ok {
			return "$f" + strconv.Itoa(pos)
		}
		var exprs []Expr
		switch x := n.(type) {
		case *LogicalWindowTableFunction:
			if r.Index >= len(x.input().Names()) {
				return n.Names()[r.Index]
			}
			n = x.input()
			continue
		case *LogicalProject:
			exprs = x.Exprs
		case *LogicalCalc:
			if x.Cond != nil {
				// Its projection merges; the filter under it stops
				// the merging (a Filter between Projects).
				if in, ok := x.Exprs[r.Index].(*InputRef); ok {
					return x.input().Names()[in.Index]
				}
				if c, ok := x.Exprs[r.Index].(*Call); ok && c.Op == "CAST" && len(c.Args) == 1 {
					if in, ok := c.Args[0].(*InputRef); ok {
						return x.input().Names()[in.Index]
					}
				}
				return "$f" + strconv.Itoa(pos)
			}
			exprs = x.Exprs
		default:
			return n.Names()[r.Index]
		}
		e, n = exprs[r.Index], n.Inputs()[0]
	}
}

// EmitStrategy is Flink's WindowEmitStrategy of a legacy group window,
// read from the experimental table.exec.emit.* options: early firings
// before the watermark passes the window's end, late firings after it
// (within the allowed lateness, for which the window's state is kept).
// A delay of 0 fires on every element (ElementTriggers.every), a
// positive one at most once per delay of processing time
// (ProcessingTimeTriggers.every).
type EmitStrategy struct {
	EarlyFire, LateFire   bool
	EarlyDelay, LateDelay int64 // milliseconds
	AllowLateness         int64 // milliseconds
}

// ProduceUpdates is WindowEmitStrategy.produceUpdates: a window that
// fires more than once updates its earlier result.
func (e EmitStrategy) ProduceUpdates(procTime bool) bool {
	if procTime {
		return e.EarlyFire
	}
	return e.EarlyFire || e.LateFire
}

// String is WindowEmitStrategy.toString, printed as emit=[...].
func (e EmitStrategy) String() string {
	delay := func(d int64) string {
		if d > 0 {
			return "delay " + strconv.FormatInt(d, 10) + " millisecond"
		}
		return "no delay"
	}
	var parts []string
	if e.EarlyFire {
		parts = append(parts, "early "+delay(e.EarlyDelay))
	}
	if e.LateFire {
		parts = append(parts, "late "+delay(e.LateDelay))
	}
	return strings.Join(parts, ", ")
}

// emitStrategy is WindowEmitStrategy.apply and its checkValidation for a
// group window of function fn (TUMBLE, HOP, SESSION).
func emitStrategy(cfg map[string]string, fn string, procTime bool) (EmitStrategy, error) {
	var e EmitStrategy
	var err error
	if e.EarlyFire, err = config.Bool(cfg, config.KeyEmitEarlyFireEnabled); err != nil {
		return e, err
	}
	if e.LateFire, err = config.Bool(cfg, config.KeyEmitLateFireEnabled); err != nil {
		return e, err
	}
	millis := func(key string) (int64, bool, error) {
		if _, set := cfg[key]; !set {
			return 0, false, nil
		}
		d, err := config.Duration(cfg, key)
		return d.Milliseconds(), true, err
	}
	earlySet, lateSet := false, false
	if e.EarlyDelay, earlySet, err = millis(config.KeyEmitEarlyFireDelay); err != nil {
		return e, err
	}
	if e.LateDelay, lateSet, err = millis(config.KeyEmitLateFireDelay); err != nil {
		return e, err
	}
	session := fn == "SESSION"
	// parseAllowLateness: none for a session window or without late
	// firing; else the option, or the idle state retention
	// (table.exec.state.ttl, TableConfig.getMinIdleStateRetentionTime).
	if !session && e.LateFire {
		if v, set, err := millis(config.KeyEmitAllowLateness); err != nil {
			return e, err
		} else if set {
			e.AllowLateness = v
		} else {
			ttl, err := config.Duration(cfg, config.KeyStateTTL)
			if err != nil {
				return e, err
			}
			e.AllowLateness = max(ttl.Milliseconds(), 0)
		}
	}
	switch {
	case session && (e.EarlyFire || e.LateFire):
		return e, sql.Errorf(sql.TableException, "Session window doesn't support EMIT strategy currently.")
	case !procTime && e.LateFire && e.AllowLateness <= 0:
		return e, sql.Errorf(sql.TableException, "The 'AFTER WATERMARK' emit strategy requires set 'allow-lateness' or 'minIdleStateRetentionTime' in table config.")
	case e.EarlyFire && (!earlySet || e.EarlyDelay < 0):
		return e, sql.Errorf(sql.TableException, "Early-fire delay should not be null or negative value whenenable early-fire emit strategy.")
	case e.LateFire && (!lateSet || e.LateDelay < 0):
		return e, sql.Errorf(sql.TableException, "Late-fire delay should not be null or negative value whenenable late-fire emit strategy.")
	case e.LateFire && e.LateDelay > e.AllowLateness:
		return e, sql.Errorf(sql.TableException, "Allow-lateness [%dms] should not be smaller than Late-fire delay [%dms] when enable late-fire emit strategy.", e.AllowLateness, e.LateDelay)
	}
	return e, nil
}

// checkEmitConfiguration is WindowUtil.checkEmitConfiguration: a window
// TVF aggregation takes no early or late firing
// (WindowAggregateTest.testUnsupportedException_EarlyFire / _LateFire).
func checkEmitConfiguration(cfg map[string]string) error {
	early, err := config.Bool(cfg, config.KeyEmitEarlyFireEnabled)
	if err != nil {
		return err
	}
	late, err := config.Bool(cfg, config.KeyEmitLateFireEnabled)
	if err != nil {
		return err
	}
	if early || late {
		return sql.Errorf(sql.TableException, "Currently, window table function based aggregate doesn't support early-fire and late-fire configuration '%s' and '%s'.",
			config.KeyEmitEarlyFireEnabled, config.KeyEmitLateFireEnabled)
	}
	return nil
}
