package compile

import (
	"fmt"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
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
	ttl, err := config.Duration(b.opts.Config, config.KeyStateTTL)
	if err != nil {
		return edge{}, err
	}
	// Only the equi-join keys are the join's own: the rest of the
	// condition is checked per matched pair.
	jp, err := b.joinParts(n, n.LeftKeys, n.RightKeys, n.JoinType, n.NonEquiCond(), path)
	if err != nil {
		return edge{}, err
	}
	l, r, p := jp.l, jp.r, jp.p
	spec := operators.TemporalJoinSpec{Cond: jp.cond, LeftTime: n.LeftTime, RightTime: n.RightTime, Retention: ttl,
		Left: jp.left, Right: jp.right}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.TemporalJoin(spec), p)
	b.connect(l, v, p)
	b.connect(r, v, p)
	return edge{vertex: v, p: p}, nil
}
