package plan

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Event-time temporal joins: `FROM o JOIN rates FOR SYSTEM_TIME AS OF
// o.rowtime AS r ON o.currency = r.currency` against a versioned table (a
// table or view with a primary key, or a unique key its plan derives, and
// one rowtime attribute). Binding makes Calcite's LogicalCorrelate shape
// (the AST EXPLAIN prints) and validates it as Flink's
// LogicalCorrelateToJoinFromGeneralTemporalTableRule does; the LookupJoin
// rule turns it into a regular LogicalJoin whose condition carries
// __INITIAL_TEMPORAL_JOIN_CONDITION(left time, right time,
// __TEMPORAL_JOIN_LEFT_KEY(...), __TEMPORAL_JOIN_RIGHT_KEY(...)), so that
// the join push-down rules move and prune around it as they do around any
// join; convert checks the versioned side's primary key
// (TemporalJoinRewriteWithUniqueKeyRule) and makes Flink's TemporalJoin
// node (StreamPhysicalTemporalJoinRule).

const (
	initialTemporalCond = "__INITIAL_TEMPORAL_JOIN_CONDITION"
	temporalCond        = "__TEMPORAL_JOIN_CONDITION"
	temporalPK          = "__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY"
	temporalLeftKey     = "__TEMPORAL_JOIN_LEFT_KEY"
	temporalRightKey    = "__TEMPORAL_JOIN_RIGHT_KEY"
)

// temporalVersioned is what a temporal correlate knows of its versioned
// side: the join the LookupJoin rule makes of it.
type temporalVersioned struct {
	right Node
	cond  Expr // the ON condition AND the initial temporal condition
	kind  ast.JoinKind
}

// TemporalJoin is Flink's StreamPhysicalTemporalJoin on event time: every
// left row waits until the watermark passes its time, then joins the
// version of the right row of its key that was valid at that time
// (TemporalRowTimeJoinOperator). Cond is the whole condition, the
// __TEMPORAL_JOIN_CONDITION call included; the output is the left row's
// fields, then the right's, with the left row's kind.
type TemporalJoin struct {
	base
	Cond                Expr
	JoinType            ast.JoinKind
	LeftKeys, RightKeys []int
	// Rowtime: an event-time join; LeftTime and RightTime are the inputs'
	// rowtime fields. A processing-time join (RightTime -1) is planned as
	// Flink plans it and refused at run time, as Flink refuses it.
	Rowtime             bool
	LeftTime, RightTime int
	// rightRowtime is the right input's rowtime attribute (-1: none),
	// which is a plain TIMESTAMP above the join.
	rightRowtime int
}

func (*TemporalJoin) Name() string { return "TemporalJoin" }

func (n *TemporalJoin) WithInputs(in ...Node) Node { c := *n; c.base = n.with(in); return &c }

func (n *TemporalJoin) describe(f Format) string {
	both := uniquify(append(append([]string(nil), n.inputs[0].Names()...), n.inputs[1].Names()...))
	return "TemporalJoin(joinType=[" + joinTypeName(n.JoinType) + "], where=[" + FormatExpr(n.Cond, both, f) +
		"], select=[" + strings.Join(n.names, ", ") + "])"
}

// NonEquiCond is the condition the operator evaluates on a left row and
// the version it found: Cond without the equi-join keys (the operator is
// keyed on them) and the temporal call; nil when nothing is left.
func (n *TemporalJoin) NonEquiCond() Expr {
	nl := len(n.inputs[0].Names())
	var rest []Expr
	for _, c := range conjuncts(n.Cond) {
		if call, ok := c.(*Call); ok {
			if call.Op == temporalCond {
				continue
			}
			if call.Op == "=" && len(call.Args) == 2 {
				a, okA := call.Args[0].(*InputRef)
				b, okB := call.Args[1].(*InputRef)
				if okA && okB && (a.Index < nl) != (b.Index < nl) {
					continue
				}
			}
		}
		rest = append(rest, c)
	}
	if len(rest) == 0 {
		return nil
	}
	return and(rest)
}

// rowtimeTypeName is a rowtime attribute's type as Flink's
// TimeIndicatorRelDataType prints it.
func rowtimeTypeName(t sql.DataType) string {
	p := strconv.Itoa(t.Precision)
	if t.Root == sql.TypeTimestampLTZ {
		return "TIMESTAMP_LTZ(" + p + ") *ROWTIME*"
	}
	return "TIMESTAMP(" + p + ") *ROWTIME*"
}

// bindTemporalJoin binds `left [LEFT] JOIN versioned FOR SYSTEM_TIME AS
// OF left.rowtime ON ...` into the LogicalCorrelate the AST shows, with
// the join it becomes.
func (b *binder) bindTemporalJoin(x *ast.Join, tr *ast.TableRef, l Node, ls *scope, leftTime int, rowtime bool) (Node, *scope, error) {
	kind, err := correlateKind(x)
	if err != nil {
		return nil, nil, err
	}
	if len(x.Using) > 0 {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support USING in a temporal join yet; write ON")
	}
	plain := *tr
	plain.SystemTimeAsOf = nil
	r, rs, err := b.bindFrom(&plain)
	if err != nil {
		return nil, nil, err
	}
	sc, cond, err := b.bindCorrelateOn(x, ls, rs, kind)
	if err != nil {
		return nil, nil, err
	}
	nl := len(l.Names())
	// The equi-join keys (LogicalCorrelateToJoinFromGeneralTemporalTableRule
	// .extractJoinKeys).
	var lk, rk []Expr
	for _, c := range conjuncts(cond) {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" || len(call.Args) != 2 {
			continue
		}
		a, okA := call.Args[0].(*InputRef)
		bb, okB := call.Args[1].(*InputRef)
		if !okA || !okB {
			continue
		}
		switch {
		case a.Index < nl && bb.Index >= nl:
			lk, rk = append(lk, a), append(rk, bb)
		case bb.Index < nl && a.Index >= nl:
			lk, rk = append(lk, bb), append(rk, a)
		}
	}
	if len(lk) == 0 {
		return nil, nil, sql.Errorf(sql.ValidationException, "Currently the join key in Temporal Table Join can not be empty.")
	}
	lt := l.Types()[leftTime]
	boolT := sql.Boolean().NotNull()
	initial := &Call{Op: initialTemporalCond, T: boolT, Args: []Expr{
		&InputRef{Index: leftTime, T: lt},
		&Call{Op: temporalLeftKey, Args: lk, T: boolT},
		&Call{Op: temporalRightKey, Args: rk, T: boolT},
	}}
	// The versioned side's one rowtime attribute.
	rightTime := -1
	for i := range r.Names() {
		if !rowtime {
			break
		}
		if timeAttr(r, i) == rowTime {
			if rightTime >= 0 {
				rightTime = -2
				break
			}
			rightTime = i
		}
	}
	if rowtime && rightTime < 0 {
		return nil, nil, sql.Errorf(sql.ValidationException,
			"Event-Time Temporal Table Join requires both primary key and row time attribute in versioned table, but no row time attribute can be found.")
	}
	if rowtime {
		rtt := r.Types()[rightTime]
		if (lt.Root == sql.TypeTimestampLTZ) != (rtt.Root == sql.TypeTimestampLTZ) {
			return nil, nil, sql.Errorf(sql.ValidationException,
				"Event-Time Temporal Table Join requires same rowtime type in left table and versioned table, but the rowtime types are %s and %s.",
				rowtimeTypeName(lt), rowtimeTypeName(rtt))
		}
		initial.Args = append(initial.Args[:1], append([]Expr{&InputRef{Index: nl + rightTime, T: sc.cols[nl+rightTime].t}}, initial.Args[1:]...)...)
	}
	var joinCond Expr = initial
	if !isTrueLiteral(cond) {
		joinCond = and([]Expr{cond, initial})
	}
	c := newCorrelate(l, r, sc, leftTime, cond)
	c.dim = &lookupDim{Kind: kind}
	c.temporal = &temporalVersioned{right: r, cond: joinCond, kind: kind}
	return c, sc, nil
}

// eventTimeTemporal reports whether cond is an event-time temporal join's
// before conversion: it carries __INITIAL_TEMPORAL_JOIN_CONDITION with
// the versioned side's rowtime. No filter moves into or through such a
// join, neither a WHERE above it nor its ON conjuncts into its inputs
// (FlinkFilterJoinRule's FlinkJoinConditionPushRule and
// FlinkFilterIntoJoinRule do not match it, isEventTimeTemporalJoin,
// FLINK-28988, Flink 1.17): a filter below the versioned side would drop
// versions, so that an older version than the one valid at the left row's
// time would join it.
func eventTimeTemporal(cond Expr) bool {
	t := temporalCall(cond)
	return t != nil && t.Op == initialTemporalCond && len(t.Args) == 4
}

// snapshotScan is Flink's EventTimeTemporalJoinRewriteRule (FLINK-29849,
// Flink 1.17): the scan of an event-time temporal join's versioned side,
// when that side is the scan under its watermark assigner with at most a
// Calc below that and Calcs above it (Flink's eight patterns: Join,
// [Calc], Snapshot, [Calc], WatermarkAssigner, [Calc], TableScan), is
// marked eventTimeSnapshotRequired, and StreamPhysicalTableSourceScanRule
// then puts no ChangelogNormalize over it: the join reads an upsert
// source's +U and -D rows as they come, each a version from its own
// rowtime (a ChangelogNormalize's -D would carry the stored row's older
// rowtime). nil when the join is no event-time temporal join or its
// versioned side has another shape (a view's Deduplicate, say).
func snapshotScan(j *LogicalJoin) *LogicalTableScan {
	if !eventTimeTemporal(j.Cond) {
		return nil
	}
	n := j.inputs[1]
	for calcs := 0; ; calcs++ {
		c, ok := n.(*LogicalCalc)
		if !ok {
			break
		}
		if calcs == 2 {
			return nil
		}
		n = c.input()
	}
	if s, ok := n.(*LogicalTableScan); ok && s.Watermark != nil {
		// The assigner went into the scan (watermarkIntoScan, after
		// Flink's rewrite marked the scan).
		return s
	}
	w, ok := n.(*LogicalWatermarkAssigner)
	if !ok {
		return nil
	}
	n = w.input()
	if c, ok := n.(*LogicalCalc); ok {
		n = c.input()
	}
	s, _ := n.(*LogicalTableScan)
	return s
}

// temporalCall finds the temporal condition among cond's conjuncts.
func temporalCall(cond Expr) *Call {
	for _, c := range conjuncts(cond) {
		if call, ok := c.(*Call); ok && (call.Op == initialTemporalCond || call.Op == temporalCond) {
			return call
		}
	}
	return nil
}

// convertTemporalJoin is TemporalJoinRewriteWithUniqueKeyRule and
// StreamPhysicalTemporalJoinRule: the versioned side's shortest upsert
// key is its primary key, which the right join keys must cover; the
// inputs are hashed on the equi-join keys.
func (b *binder) convertTemporalJoin(r *LogicalJoin, init *Call, left, right Node) (Node, error) {
	if !b.streaming {
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support temporal joins against a versioned table (FOR SYSTEM_TIME AS OF) in batch mode")
	}
	nl := len(left.Names())
	rowtime := len(init.Args) == 4
	leftTime := init.Args[0].(*InputRef)
	keyArgs := init.Args[1:]
	var rightTime *InputRef
	if rowtime {
		rightTime, keyArgs = init.Args[1].(*InputRef), init.Args[2:]
	}
	rightKeys := keyArgs[1].(*Call).Args
	var pk []int
	for _, k := range upsertKeys(right) {
		if len(k) > 0 && (pk == nil || len(k) < len(pk)) {
			pk = k
		}
	}
	if pk == nil {
		return nil, sql.Errorf(sql.ValidationException,
			"Temporal Table Join requires primary key in versioned table, but no primary key can be found. The physical plan is:\n%s",
			"FlinkLogicalJoin(condition=["+FormatExpr(r.Cond, nil, FormatAST)+"], joinType=["+strings.ToLower(string(r.JoinType))+"])")
	}
	covered := func(f int) bool {
		for _, k := range rightKeys {
			if k.(*InputRef).Index == nl+f {
				return true
			}
		}
		return false
	}
	pkRefs := make([]Expr, len(pk))
	for i, f := range pk {
		pkRefs[i] = &InputRef{Index: nl + f, T: r.types[nl+f]}
	}
	for _, f := range pk {
		if covered(f) {
			continue
		}
		var pkNames, pairs []string
		for _, g := range pk {
			pkNames = append(pkNames, r.names[nl+g])
		}
		j := newJoin(left, right, r.Cond, r.JoinType).(*Join)
		for i := range j.LeftKeys {
			pairs = append(pairs, left.Names()[j.LeftKeys[i]]+"="+right.Names()[j.RightKeys[i]])
		}
		return nil, sql.Errorf(sql.ValidationException,
			"Temporal table's primary key [%s] must be included in the equivalence condition of temporal join, but current temporal join condition is [%s].",
			strings.Join(pkNames, ","), strings.Join(pairs, ","))
	}
	args := []Expr{leftTime}
	if rowtime {
		args = append(args, rightTime)
	}
	args = append(args, &Call{Op: temporalPK, Args: pkRefs, T: init.T}, keyArgs[0], keyArgs[1])
	final := &Call{Op: temporalCond, T: init.T, Args: args}
	var parts []Expr
	for _, c := range conjuncts(r.Cond) {
		if c == Expr(init) {
			c = final
		}
		parts = append(parts, c)
	}
	cond := and(parts)
	j := newJoin(left, right, cond, r.JoinType).(*Join)
	out := &TemporalJoin{base: row(j.names, j.types, j.inputs...), Cond: cond, JoinType: r.JoinType,
		LeftKeys: j.LeftKeys, RightKeys: j.RightKeys, Rowtime: rowtime, LeftTime: leftTime.Index, RightTime: -1}
	out.rightRowtime = -1
	if rowtime {
		out.RightTime = rightTime.Index - nl
		out.rightRowtime = out.RightTime
	} else {
		for i := range r.inputs[1].Names() {
			if timeAttr(r.inputs[1], i) == rowTime {
				out.rightRowtime = i
				break
			}
		}
	}
	return out, nil
}

// temporalJoinRule makes the correlate a LogicalJoin carrying the
// temporal condition. A processing-time inner join's ON conjuncts over one
// input alone filter that input below the join (FlinkFilterJoinRule's
// JOIN_CONDITION_PUSH); a LEFT join's over the versioned side go below it
// in the JoinPushDown rule. An event-time join keeps them all in its
// condition (isEventTimeTemporalJoin: see eventTimeTemporal).
func temporalJoinRule(c *LogicalCorrelate, t *temporalVersioned) Node {
	left, right, cond := c.inputs[0], t.right, t.cond
	if t.kind == ast.InnerJoin && !eventTimeTemporal(cond) {
		nl := len(left.Names())
		var lc, rc, keep []Expr
		for _, e := range conjuncts(cond) {
			r := map[int]bool{}
			refs(e, r)
			onlyLeft, onlyRight := len(r) > 0 && expr.Deterministic(e), len(r) > 0 && expr.Deterministic(e)
			for f := range r {
				onlyLeft = onlyLeft && f < nl
				onlyRight = onlyRight && f >= nl
			}
			switch {
			case onlyLeft:
				lc = append(lc, e)
			case onlyRight:
				shift := map[int]int{}
				for f := range r {
					shift[f] = f - nl
				}
				rc = append(rc, remap(e, shift))
			default:
				keep = append(keep, e)
			}
		}
		if len(lc) > 0 {
			left = &LogicalFilter{base: sameRow(left), Cond: and(lc)}
		}
		if len(rc) > 0 {
			right = &LogicalFilter{base: sameRow(right), Cond: and(rc)}
		}
		cond = and(keep)
	}
	return &LogicalJoin{base: row(c.names, c.types, left, right), Cond: cond, JoinType: t.kind}
}
