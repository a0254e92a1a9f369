package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// intervalJoin runs an IntervalJoin: both inputs hashed on the join keys
// (one subtask without), one IntervalJoin operator.
func (b *builder) intervalJoin(n *plan.IntervalJoin, path string) (edge, error) {
	jp, err := b.joinParts(n, n.LeftKeys, n.RightKeys, n.JoinType, n.Cond, path)
	if err != nil {
		return edge{}, err
	}
	spec := operators.IntervalJoinSpec{Cond: jp.cond, Rowtime: n.Rowtime, LowerBound: n.LowerBound, UpperBound: n.UpperBound,
		LeftTime: n.LeftTime, RightTime: n.RightTime, Left: jp.left, Right: jp.right}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.IntervalJoin(spec), jp.p)
	b.connect(jp.l, v, jp.p)
	b.connect(jp.r, v, jp.p)
	return edge{vertex: v, p: jp.p}, nil
}

// joinParts are what a two-input join operator is built from: both
// inputs, the parallelism (one subtask without equi-join keys), the
// compiled condition (nil without one), and each side's keys, arity and whether its rows
// are kept unmatched (the outer side).
type joinParts struct {
	l, r        edge
	p           int
	cond        plan.Eval
	left, right operators.JoinSideSpec
}

// joinParts builds the inputs of join n (input 0 the left side, 1 the
// right) and its parts.
func (b *builder) joinParts(n plan.Node, lk, rk []int, kind ast.JoinKind, cond plan.Expr, path string) (joinParts, error) {
	var jp joinParts
	var err error
	if jp.l, err = b.build(n.Inputs()[0], path+".0"); err != nil {
		return jp, err
	}
	if jp.r, err = b.build(n.Inputs()[1], path+".1"); err != nil {
		return jp, err
	}
	jp.p = b.defaultP
	if len(lk) == 0 {
		jp.p = 1
	}
	if cond != nil {
		if jp.cond, err = plan.Compile(b.atStart(cond)); err != nil {
			return jp, err
		}
	}
	jp.left = operators.JoinSideSpec{Keys: lk, Arity: len(n.Inputs()[0].Names()), Outer: kind == ast.LeftJoin || kind == ast.FullJoin}
	jp.right = operators.JoinSideSpec{Keys: rk, Arity: len(n.Inputs()[1].Names()), Outer: kind == ast.RightJoin || kind == ast.FullJoin}
	return jp, nil
}

// windowJoin runs a WindowJoin: both inputs hashed on the remaining
// equi-join keys (one subtask without), one WindowJoin operator.
func (b *builder) windowJoin(n *plan.WindowJoin, path string) (edge, error) {
	jp, err := b.joinParts(n, n.LeftKeys, n.RightKeys, n.JoinType, n.Cond, path)
	if err != nil {
		return edge{}, err
	}
	spec := operators.WindowJoinSpec{Cond: jp.cond, Left: jp.left, Right: jp.right, LeftEnd: n.LeftEnd, RightEnd: n.RightEnd,
		Semi: n.IsSemi(), Anti: n.IsAnti(), Zone: n.Window.Zone}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.WindowJoin(spec), jp.p)
	b.connect(jp.l, v, jp.p)
	b.connect(jp.r, v, jp.p)
	return edge{vertex: v, p: jp.p}, nil
}
