package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
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

// batchOverInput builds the Exchange under a batch OverAggregate's or
// global Rank's Sort (the operator sorts its input itself), skipping, for
// a Rank, the local Rank and its Sort: the global one ranks every row of
// a partition, so the rows the local one would drop change nothing.
func (b *builder) batchOverInput(n plan.Node, path string) (edge, error) {
	in := n.Inputs()[0]
	if s, ok := in.(*plan.Sort); ok {
		in = s.Inputs()[0]
	}
	ex, ok := in.(*plan.Exchange)
	if !ok {
		return edge{}, sql.Errorf(sql.TableException, "sqlrun cannot run %s over %s", n.Name(), in.Name())
	}
	below := ex.Inputs()[0]
	if r, ok := below.(*plan.BatchRank); ok && !r.Global {
		below = r.Inputs()[0]
		if s, ok := below.(*plan.Sort); ok {
			below = s.Inputs()[0]
		}
	}
	e, err := b.build(below, path+".0")
	if err != nil {
		return edge{}, err
	}
	e.exchanged = true
	if ex.Single {
		e.part = runtime.Partitioning{Kind: runtime.Global}
	} else {
		e.part = runtime.Partitioning{Kind: runtime.Hash, Keys: ex.Keys}
	}
	return e, nil
}

func batchSortKeys(order []plan.SortKey) []operators.SortKey {
	keys := make([]operators.SortKey, len(order))
	for i, k := range order {
		keys[i] = operators.SortKey{Index: k.Field, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return keys
}

func rankFunc(f string) operators.RankFunc {
	switch f {
	case "ROW_NUMBER":
		return operators.RowNumber
	case "RANK":
		return operators.RankNumber
	case "DENSE_RANK":
		return operators.DenseRank
	}
	return operators.NoRank
}

func frameBound(fb plan.OverBound) operators.FrameBound {
	switch fb.Kind {
	case "UNBOUNDED PRECEDING":
		return operators.FrameBound{Kind: operators.UnboundedPreceding}
	case "PRECEDING":
		return operators.FrameBound{Kind: operators.Preceding, Offset: fb.Offset}
	case "FOLLOWING":
		return operators.FrameBound{Kind: operators.Following, Offset: fb.Offset}
	case "UNBOUNDED FOLLOWING":
		return operators.FrameBound{Kind: operators.UnboundedFollowing}
	}
	return operators.FrameBound{Kind: operators.CurrentRow}
}

// batchOver runs a batch OverAggregate (operators.BatchOver).
func (b *builder) batchOver(n *plan.BatchOverAggregate, path string) (edge, error) {
	spec := operators.BatchOverSpec{Partition: n.Partition, Order: batchSortKeys(n.Order), Rows: n.Frame.Rows,
		Lower: frameBound(n.Frame.Lower), Upper: frameBound(n.Frame.Upper)}
	unbounded := spec.Lower.Kind == operators.UnboundedPreceding
	for _, a := range n.Aggs {
		if f := rankFunc(a.Func); f != operators.NoRank {
			spec.Calls = append(spec.Calls, operators.BatchOverCall{Rank: f})
			continue
		}
		// A frame whose start moves retracts the rows it leaves.
		a.Retract = !unbounded
		s, err := aggSpec(a)
		if err != nil {
			return edge{}, err
		}
		spec.Calls = append(spec.Calls, operators.BatchOverCall{Agg: s})
	}
	return b.batchOverVertex(n, spec, path)
}

// batchRank runs a batch Rank: the global one (operators.BatchOver with a
// rank filter) over its input's rows.
func (b *builder) batchRank(n *plan.BatchRank, path string) (edge, error) {
	if !n.Global {
		return b.build(n.Inputs()[0], path+".0")
	}
	spec := operators.BatchOverSpec{Partition: n.Partition, Order: batchSortKeys(n.Order),
		Rank: &operators.BatchRankFilter{Func: rankFunc(n.Func), Start: n.Start, End: n.End, OutputNumber: n.OutputNumber}}
	return b.batchOverVertex(n, spec, path)
}

func (b *builder) batchOverVertex(n plan.Node, spec operators.BatchOverSpec, path string) (edge, error) {
	in, err := b.batchOverInput(n, path)
	if err != nil {
		return edge{}, err
	}
	p := b.defaultP
	if in.part.Kind == runtime.Global {
		p = 1
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.BatchOver(spec), p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
}
