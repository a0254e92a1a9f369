package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
)

// overOperator runs an OverAggregate: ROW_NUMBER counts the rows of a ROWS
// frame; a bounded frame retracts the rows that leave it, so its MIN and
// MAX keep every value.
func overOperator(n *plan.OverAggregate) (runtime.OperatorFactory, error) {
	unbounded := n.Frame.Lower.Kind == "UNBOUNDED PRECEDING"
	spec := operators.OverSpec{Partition: n.Partition, TimeCol: n.Order[0].Field, Rowtime: n.Rowtime,
		Rows: n.Frame.Rows, Unbounded: unbounded, Preceding: n.Frame.Lower.Offset}
	for _, a := range n.Aggs {
		if a.Func == "ROW_NUMBER" {
			spec.Aggs = append(spec.Aggs, operators.AggSpec{Kind: operators.CountStar, ResultType: a.T})
			continue
		}
		a.Retract = !unbounded
		s, err := aggSpec(a)
		if err != nil {
			return nil, err
		}
		spec.Aggs = append(spec.Aggs, s)
	}
	return operators.OverAggregate(spec), nil
}
