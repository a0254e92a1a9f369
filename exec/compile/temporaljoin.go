package compile

import (
	"fmt"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// temporalJoin runs an event-time TemporalJoin: both inputs hashed on the
// join keys, one TemporalJoin operator keyed on them.
func (b *builder) temporalJoin(n *plan.TemporalJoin, path string) (edge, error) {
	if !n.Rowtime {
		// StreamExecTemporalJoin: FLINK-19830.
		return edge{}, sql.Errorf(sql.TableException, "Processing-time temporal join is not supported yet.")
	}
	lt, rt := n.Inputs()[0].Types(), n.Inputs()[1].Types()
	for i := range n.LeftKeys {
		a, c := lt[n.LeftKeys[i]], rt[n.RightKeys[i]]
		if a.Root != c.Root && !(isString(a) && isString(c)) {
			// The state key and the hash exchange read the values as they
			// are: keys of different types would never meet.
			return edge{}, fmt.Errorf("sqlrun cannot run a temporal join on keys of different types (%s and %s) yet: cast one side in a view", a, c)
		}
	}
	l, err := b.build(n.Inputs()[0], path+".0")
	if err != nil {
		return edge{}, err
	}
	r, err := b.build(n.Inputs()[1], path+".1")
	if err != nil {
		return edge{}, err
	}
	var cond func([]any) (any, error)
	if e := n.NonEquiCond(); e != nil {
		if cond, err = plan.Compile(e); err != nil {
			return edge{}, err
		}
	}
	ttl, err := config.Duration(b.opts.Config, config.KeyStateTTL)
	if err != nil {
		return edge{}, err
	}
	p := b.defaultP
	spec := operators.TemporalJoinSpec{Cond: cond, LeftTime: n.LeftTime, RightTime: n.RightTime, Retention: ttl,
		Left:  operators.JoinSideSpec{Keys: n.LeftKeys, Arity: len(lt), Outer: n.JoinType == ast.LeftJoin},
		Right: operators.JoinSideSpec{Keys: n.RightKeys, Arity: len(rt)}}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.TemporalJoin(spec), p)
	b.connect(l, v, p)
	b.connect(r, v, p)
	return edge{vertex: v, p: p}, nil
}
