package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// intervalJoin runs an IntervalJoin: both inputs hashed on the join keys
// (one subtask without), one IntervalJoin operator.
func (b *builder) intervalJoin(n *plan.IntervalJoin, path string) (edge, error) {
	l, err := b.build(n.Inputs()[0], path+".0")
	if err != nil {
		return edge{}, err
	}
	r, err := b.build(n.Inputs()[1], path+".1")
	if err != nil {
		return edge{}, err
	}
	p := b.defaultP
	if len(n.LeftKeys) == 0 {
		p = 1
	}
	cond, err := plan.Compile(n.Cond)
	if err != nil {
		return edge{}, err
	}
	spec := operators.IntervalJoinSpec{Cond: cond, Rowtime: n.Rowtime, LowerBound: n.LowerBound, UpperBound: n.UpperBound,
		LeftTime: n.LeftTime, RightTime: n.RightTime,
		Left: operators.JoinSideSpec{Keys: n.LeftKeys, Arity: len(n.Inputs()[0].Names()),
			Outer: n.JoinType == ast.LeftJoin || n.JoinType == ast.FullJoin},
		Right: operators.JoinSideSpec{Keys: n.RightKeys, Arity: len(n.Inputs()[1].Names()),
			Outer: n.JoinType == ast.RightJoin || n.JoinType == ast.FullJoin}}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.IntervalJoin(spec), p)
	b.connect(l, v, p)
	b.connect(r, v, p)
	return edge{vertex: v, p: p}, nil
}
