package plan

import (
	"strconv"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// IntervalJoin is Flink's StreamPhysicalIntervalJoin: an INNER, LEFT,
// RIGHT or FULL join whose condition bounds the left time attribute by
// the right one (a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts), both
// event time or both processing time, over insert-only inputs. A left row
// at lt joins a right row at rt when lt - rt is within [LowerBound,
// UpperBound] (milliseconds) and Cond holds; its output is insert-only.
type IntervalJoin struct {
	base
	Cond                   Expr
	JoinType               ast.JoinKind
	LeftKeys, RightKeys    []int
	Rowtime                bool
	LowerBound, UpperBound int64
	LeftTime, RightTime    int
}

func (*IntervalJoin) Name() string { return "IntervalJoin" }

func (n *IntervalJoin) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *IntervalJoin) describe(f Format) string {
	both := uniquify(append(append([]string(nil), n.inputs[0].Names()...), n.inputs[1].Names()...))
	return "IntervalJoin(joinType=[" + joinTypeName(n.JoinType) + "], windowBounds=[isRowTime=" +
		strconv.FormatBool(n.Rowtime) + ", leftLowerBound=" + strconv.FormatInt(n.LowerBound, 10) +
		", leftUpperBound=" + strconv.FormatInt(n.UpperBound, 10) + ", leftTimeIndex=" + strconv.Itoa(n.LeftTime) +
		", rightTimeIndex=" + strconv.Itoa(n.RightTime) + "], where=[" + FormatExpr(n.Cond, both, f) +
		"], select=[" + joinSelect(n.names) + "])"
}

func joinSelect(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// timeOperand reads one side of a time predicate: a time attribute field,
// plus or minus a constant day-time interval.
func timeOperand(e Expr) (field int, offset int64, ok bool) {
	switch x := e.(type) {
	case *InputRef:
		return x.Index, 0, true
	case *Call:
		if (x.Op != "+" && x.Op != "-") || len(x.Args) != 2 {
			return 0, 0, false
		}
		ref, okR := x.Args[0].(*InputRef)
		lit, okL := x.Args[1].(*Literal)
		if !okR || !okL {
			if x.Op == "+" {
				ref, okR = x.Args[1].(*InputRef)
				lit, okL = x.Args[0].(*Literal)
			}
			if !okR || !okL {
				return 0, 0, false
			}
		}
		iv, isIv := lit.Value.(expr.Interval)
		if !isIv || iv.YearMonth() {
			return 0, 0, false
		}
		if x.Op == "-" {
			return ref.Index, -iv.Millis, true
		}
		return ref.Index, iv.Millis, true
	}
	return 0, 0, false
}

// newIntervalJoin is StreamPhysicalIntervalJoinRule with
// IntervalJoinUtil.extractWindowBoundsFromPredicate: nil when the join is
// not an interval join (then it is a regular join, as in Flink: one bound
// only, an OR, or time attributes of different kinds).
func newIntervalJoin(r *LogicalJoin, left, right Node) (*IntervalJoin, error) {
	switch r.JoinType {
	case ast.InnerJoin, ast.LeftJoin, ast.RightJoin, ast.FullJoin:
	default:
		return nil, nil
	}
	nl := len(left.Names())
	lIn, rIn := r.inputs[0], r.inputs[1]
	var lower, upper *int64
	kind, lt, rt := notTime, -1, -1
	var rest []Expr
	for _, c := range conjuncts(r.Cond) {
		call, ok := c.(*Call)
		if !ok || len(call.Args) != 2 {
			rest = append(rest, c)
			continue
		}
		op := call.Op
		switch op {
		case ">", ">=", "<", "<=", "=":
		default:
			rest = append(rest, c)
			continue
		}
		a, ao, okA := timeOperand(call.Args[0])
		b, bo, okB := timeOperand(call.Args[1])
		if !okA || !okB || (a < nl) == (b < nl) {
			rest = append(rest, c)
			continue
		}
		if a >= nl { // right op left: flip to left op right
			a, ao, b, bo = b, bo, a, ao
			op = map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}[op]
		}
		ka, kb := timeAttr(lIn, a), timeAttr(rIn, b-nl)
		if ka == notTime {
			ka = windowTimeAttr(left, a)
		}
		if kb == notTime {
			kb = windowTimeAttr(right, b-nl)
		}
		if ka == notTime || ka != kb || (kind != notTime && ka != kind) ||
			(lt >= 0 && lt != a) || (rt >= 0 && rt != b-nl) {
			rest = append(rest, c)
			continue
		}
		kind, lt, rt = ka, a, b-nl
		// l + ao OP r + bo: l - r OP bo - ao.
		d := bo - ao
		set := func(p **int64, v int64) { x := v; *p = &x }
		switch op {
		case ">=":
			set(&lower, d)
		case ">":
			set(&lower, d+1)
		case "<=":
			set(&upper, d)
		case "<":
			set(&upper, d-1)
		case "=":
			set(&lower, d)
			set(&upper, d)
		}
	}
	if lower == nil || upper == nil {
		return nil, nil
	}
	// The equi-join keys: the remaining field equalities across the inputs.
	var lk, rk []int
	for _, c := range rest {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" {
			continue
		}
		x, okX := call.Args[0].(*InputRef)
		y, okY := call.Args[1].(*InputRef)
		if !okX || !okY {
			continue
		}
		switch {
		case x.Index < nl && y.Index >= nl:
			lk, rk = append(lk, x.Index), append(rk, y.Index-nl)
		case y.Index < nl && x.Index >= nl:
			lk, rk = append(lk, y.Index), append(rk, x.Index-nl)
		}
	}
	for _, in := range []Node{left, right} {
		mk := map[Node]sql.ChangelogMode{}
		if k := modifyKinds(in, mk); !k.IsInsertOnly() {
			return nil, (&inference{mk: mk}).consumeError("StreamPhysicalIntervalJoin", in, k.Without(sql.Insert))
		}
	}
	j := newJoin(left, right, r.Cond, r.JoinType).(*Join)
	ex := func(in Node, keys []int) Node {
		return &Exchange{base: sameRow(in), Keys: keys, Single: len(keys) == 0}
	}
	return &IntervalJoin{base: row(j.names, j.types, ex(left, lk), ex(right, rk)), Cond: r.Cond, JoinType: r.JoinType,
		LeftKeys: lk, RightKeys: rk, Rowtime: kind == rowTime, LowerBound: *lower, UpperBound: *upper,
		LeftTime: lt, RightTime: rt}, nil
}

// windowTimeAttr reports a rowtime window_time that a window join passes
// on: Flink's RelTimeIndicatorConverter materializes no time attribute of
// a join that satisfies WindowJoinUtil.satisfyWindowJoin, so the
// window_time of its windowed inputs (a window TVF's, or a window
// aggregate's) stays a rowtime attribute an interval join above can use
// (WindowJoinTest.testTimeAttributePropagateForWindowJoin{,1}). It follows
// field f of physical node n through Exchanges and Calcs; a
// processing-time window_time is left to timeAttr.
func windowTimeAttr(n Node, f int) timeKind {
	switch x := n.(type) {
	case *Exchange:
		return windowTimeAttr(x.input(), f)
	case *Calc:
		if r, ok := x.Exprs[f].(*InputRef); ok {
			return windowTimeAttr(x.input(), r.Index)
		}
	case *WindowJoin:
		if nl := len(x.Inputs()[0].Names()); f >= nl {
			return windowedRowtime(x.Inputs()[1], f-nl)
		}
		return windowedRowtime(x.Inputs()[0], f)
	}
	return notTime
}

// windowedRowtime is rowTime when field f of a window join's input is its
// event-time window_time.
func windowedRowtime(n Node, f int) timeKind {
	if p, ok := physWindowProps(n); ok && p.time >= 0 && p.time == f && !p.window.ProcTime {
		return rowTime
	}
	return notTime
}
