package plan

import (
	"slices"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// WindowJoin is Flink's StreamPhysicalWindowJoin: a join of two windowed
// inputs (window TVF rows, window aggregates, window Top-N) whose
// condition equates both window_start and both window_end columns. Each
// window's rows are buffered per join key and joined once, when the
// watermark passes the window's end; the output is insert-only. Cond is
// the remaining condition (without the window equalities; nil is true),
// LeftKeys and RightKeys its equi-join keys (the Exchanges' hash keys).
type WindowJoin struct {
	base
	Cond                Expr
	JoinType            ast.JoinKind
	LeftKeys, RightKeys []int
	Window              Windowing
	// LeftStart, LeftEnd, RightStart and RightEnd are the inputs'
	// window_start and window_end fields.
	LeftStart, LeftEnd, RightStart, RightEnd int
}

func (*WindowJoin) Name() string { return "WindowJoin" }

// IsSemi reports a LeftSemiJoin.
func (n *WindowJoin) IsSemi() bool { return n.JoinType == semiJoin }

// IsAnti reports a LeftAntiJoin.
func (n *WindowJoin) IsAnti() bool { return n.JoinType == antiJoin }

func (n *WindowJoin) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// describe is StreamPhysicalWindowJoin.explainTerms (WindowJoinTest).
func (n *WindowJoin) describe(f Format) string {
	l, r := n.inputs[0].Names(), n.inputs[1].Names()
	both := uniquify(append(append([]string(nil), l...), r...))
	where := "true"
	if n.Cond != nil {
		where = FormatExpr(n.Cond, both, f)
	}
	return "WindowJoin(leftWindow=[" + attachedWindow(n.Window, l, n.LeftStart, n.LeftEnd) + "], rightWindow=[" +
		attachedWindow(n.Window, r, n.RightStart, n.RightEnd) + "], joinType=[" + joinTypeName(n.JoinType) +
		"], where=[" + where + "], select=[" + joinSelect(n.names) + "])"
}

// sameWindowing is WindowSpec equality (the same function, sizes, offset
// and partition keys) and the same kind of time attribute: WindowJoinUtil
// plans a regular join of windows on event and processing time
// (WindowJoinTest.testNotSameTimeAttributeType).
func sameWindowing(a, b Windowing) bool {
	return a.Func == b.Func && a.Size == b.Size && a.Slide == b.Slide && a.Step == b.Step && a.Offset == b.Offset &&
		slices.Equal(a.Partition, b.Partition) && a.ProcTime == b.ProcTime
}

// newWindowJoin is StreamPhysicalWindowJoinRule with
// WindowJoinUtil.satisfyWindowJoin and
// excludeWindowStartEqualityAndEndEqualityFromWindowJoinCondition: nil
// when the join is not a window join (both inputs windowed the same way,
// the condition equating their window_start and their window_end); then it
// is planned as another join, as in Flink.
func newWindowJoin(r *LogicalJoin, left, right Node) (*WindowJoin, error) {
	lp, okL := physWindowProps(left)
	rp, okR := physWindowProps(right)
	if !okL || !okR {
		return nil, nil
	}
	nl := len(left.Names())
	// Calcite's JoinInfo: the equalities between a left and a right field
	// are the equi-join pairs, the rest the non-equi condition.
	var starts, ends, keys [][2]int
	var equi, rest []Expr
	for _, c := range conjuncts(r.Cond) {
		call, ok := c.(*Call)
		if ok && (call.Op == "=" || call.Op == "IS NOT DISTINCT FROM") && len(call.Args) == 2 {
			x, okX := call.Args[0].(*InputRef)
			y, okY := call.Args[1].(*InputRef)
			if okX && okY && (x.Index < nl) != (y.Index < nl) {
				if x.Index >= nl {
					x, y = y, x
				}
				pair := [2]int{x.Index, y.Index - nl}
				switch {
				case pair[0] == lp.start && pair[1] == rp.start:
					starts = append(starts, pair)
				case pair[0] == lp.end && pair[1] == rp.end:
					ends = append(ends, pair)
				default:
					// Rebuilt left field first, as WindowJoinUtil does.
					keys = append(keys, pair)
					equi = append(equi, &Call{Op: call.Op, Args: []Expr{x, y}, T: call.T})
				}
				continue
			}
		}
		rest = append(rest, c)
	}
	// Flink logs and plans a regular join when either equality is missing
	// or the windows differ (WindowJoinUtil).
	if len(starts) == 0 || len(ends) == 0 || !sameWindowing(lp.window, rp.window) {
		return nil, nil
	}
	for _, in := range []Node{left, right} {
		mk := map[Node]sql.ChangelogMode{}
		if k := modifyKinds(in, mk); !k.IsInsertOnly() {
			return nil, (&inference{mk: mk}).consumeError("StreamPhysicalWindowJoin", in, k.Without(sql.Insert))
		}
	}
	var lk, rk []int
	for _, p := range keys {
		lk, rk = append(lk, p[0]), append(rk, p[1])
	}
	j := newJoin(left, right, r.Cond, r.JoinType).(*Join)
	ex := func(in Node, keys []int) Node {
		return &Exchange{base: sameRow(in), Keys: keys, Single: len(keys) == 0}
	}
	return &WindowJoin{base: row(j.names, j.types, ex(left, lk), ex(right, rk)), Cond: and(append(equi, rest...)),
		JoinType: r.JoinType, LeftKeys: lk, RightKeys: rk, Window: lp.window,
		LeftStart: starts[0][0], LeftEnd: ends[0][0], RightStart: starts[0][1], RightEnd: ends[0][1]}, nil
}
