package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/expr"
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
	for pos, a := range n.Aggs {
		if a.Func == "ROW_NUMBER" {
			spec.Aggs = append(spec.Aggs, operators.AggSpec{Kind: operators.CountStar, ResultType: a.T})
			continue
		}
		if a.Func == "LAG" {
			c, _, err := windowFuncCall(a)
			if err != nil {
				return nil, err
			}
			spec.Lags = append(spec.Lags, operators.OverLag{Pos: pos, Arg: c.Arg, Offset: c.Offset,
				Default: c.Default, DefaultArg: c.DefaultArg})
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
	var e edge
	var err error
	if r, ok := ex.Inputs()[0].(*plan.BatchRank); ok && !r.Global {
		e, err = b.localBatchRank(r, rankFunc(r.Func), path+".0")
	} else {
		e, err = b.build(ex.Inputs()[0], path+".0")
	}
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

// windowFuncCall is a batch OverAggregate's call of LEAD, LAG, NTILE,
// CUME_DIST or PERCENT_RANK (false for another).
func windowFuncCall(a plan.AggCall) (operators.BatchOverCall, bool, error) {
	consts, fields := plan.OverCallArgs(a)
	c := operators.BatchOverCall{DefaultArg: -1, Offset: 1}
	switch a.Func {
	case "CUME_DIST":
		c.Rank = operators.CumeDist
	case "PERCENT_RANK":
		c.Rank = operators.PercentRank
	case "NTILE":
		c.Rank = operators.NTile
		if len(consts) != 1 || fields[0] >= 0 {
			return c, true, sql.Errorf(sql.TableException, "sqlrun cannot run NTILE without a constant bucket count")
		}
		var ok bool
		if c.Buckets, ok = expr.ToInt(consts[0]); !ok {
			return c, true, sql.Errorf(sql.TableException, "sqlrun cannot run NTILE of %T buckets", consts[0])
		}
	case "LEAD", "LAG":
		c.Rank = operators.Lead
		if a.Func == "LAG" {
			c.Rank = operators.Lag
		}
		if len(fields) == 0 || fields[0] < 0 {
			return c, true, sql.Errorf(sql.TableException, "sqlrun cannot run %s of a constant", a.Func)
		}
		c.Arg = fields[0]
		if len(fields) > 1 {
			off, ok := expr.ToInt(consts[1])
			if fields[1] >= 0 || !ok {
				return c, true, sql.Errorf(sql.TableException, "sqlrun supports only an integer constant as the offset of %s yet", a.Func)
			}
			c.Offset = off
		}
		if len(fields) > 2 {
			c.DefaultArg, c.Default = fields[2], consts[2]
		}
	default:
		return c, false, nil
	}
	return c, true, nil
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
		if c, ok, err := windowFuncCall(a); ok || err != nil {
			if err != nil {
				return edge{}, err
			}
			spec.Calls = append(spec.Calls, c)
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
	spec.TopN = b.topN[path]
	return b.batchOverVertex(n, spec, path)
}

// batchTopN notes the bound a Calc's filter puts on the ranking numbers of
// the batch OverAggregate under it (built at path), for it to keep per
// partition only the rows that can pass: a filter rn <= N (= N, < N,
// BETWEEN) on a ranking call, when every call of the window is a ranking
// call (an aggregate's value reads the rows a bound would drop) and no
// other consumer reads the OverAggregate (a reused sub-plan).
func (b *builder) batchTopN(c *plan.Calc, path string) {
	o, ok := c.Inputs()[0].(*plan.BatchOverAggregate)
	if !ok || b.reuse[o] != 0 || !boundTopN {
		return
	}
	width := len(o.Inputs()[0].Names())
	var bound *operators.BatchTopN
	for i, a := range o.Aggs {
		f := rankFunc(a.Func)
		if f == operators.NoRank {
			return
		}
		if end, ok := plan.RankEnd(c.Cond, width+i); ok && bound == nil {
			bound = &operators.BatchTopN{Func: f, End: end}
		}
	}
	if bound == nil {
		return
	}
	if b.topN == nil {
		b.topN = map[string]*operators.BatchTopN{}
	}
	b.topN[path] = bound
	boundedTopNs++
}

// boundTopN turns the bound of batchTopN and of the batch Ranks on (tests
// turn it off to compare); boundedTopNs counts the operators given one.
var (
	boundTopN    = true
	boundedTopNs int
)

// batchRank runs a batch Rank: the global one (operators.BatchOver with a
// rank filter) over its input's rows.
func (b *builder) batchRank(n *plan.BatchRank, path string) (edge, error) {
	f := rankFunc(n.Func)
	if !n.Global {
		return b.localBatchRank(n, f, path)
	}
	spec := operators.BatchOverSpec{Partition: n.Partition, Order: batchSortKeys(n.Order),
		Rank: &operators.BatchRankFilter{Func: f, Start: n.Start, End: n.End, OutputNumber: n.OutputNumber}}
	if boundTopN {
		spec.TopN = &operators.BatchTopN{Func: f, End: n.End}
		boundedTopNs++
	}
	return b.batchOverVertex(n, spec, path)
}

// localBatchRank is Flink's local batch Rank: in each task it passes on
// only the rows ranked 1..End in their partition among that task's rows
// (a superset of those the global Rank keeps), in arrival order, so the
// global Rank numbers and orders its rows as it would all of them. It
// runs at its input's parallelism, before the exchange.
func (b *builder) localBatchRank(n *plan.BatchRank, f operators.RankFunc, path string) (edge, error) {
	below := n.Inputs()[0]
	if !boundTopN {
		for {
			switch x := below.(type) {
			case *plan.Sort, *plan.BatchRank:
				below = x.Inputs()[0]
				continue
			}
			return b.build(below, path+".0")
		}
	}
	if s, ok := below.(*plan.Sort); ok {
		// The local Rank orders its rows itself.
		below = s.Inputs()[0]
	}
	in, err := b.build(below, path+".0")
	if err != nil {
		return edge{}, err
	}
	p := b.consumerP(in)
	spec := operators.BatchOverSpec{Partition: n.Partition, Order: batchSortKeys(n.Order),
		TopN: &operators.BatchTopN{Func: f, End: n.End, Local: true}}
	boundedTopNs++
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.BatchOver(spec), p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
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
