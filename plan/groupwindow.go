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
