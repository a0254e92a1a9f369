package plan

import (
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
)

// Mini-batch (table.exec.mini-batch.enabled) as Flink's stream planner
// applies it after changelog inference: MiniBatchIntervalInferRule puts a
// MiniBatchAssigner above every source scan and WatermarkAssigner, and
// TwoStageOptimizedAggregateRule splits a GroupAggregate over an Exchange
// into LocalGroupAggregate, Exchange and GlobalGroupAggregate; a regular
// join prints miniBatch=[true] (StreamPhysicalJoin). sqlrun's
// runtime handles each row as it arrives (a mini-batch of one row): the
// assigner passes rows through, the global phase runs as the one-phase
// aggregate it replaces and a join as without mini-batch, which gives the
// same rows.

// MiniBatchAssigner is Flink's StreamPhysicalMiniBatchAssigner.
type MiniBatchAssigner struct {
	base
	Interval time.Duration
	RowTime  bool
}

func (*MiniBatchAssigner) Name() string { return "MiniBatchAssigner" }

func (n *MiniBatchAssigner) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *MiniBatchAssigner) describe(Format) string {
	mode := "ProcTime"
	if n.RowTime {
		mode = "RowTime"
	}
	return "MiniBatchAssigner(interval=[" + strconv.FormatInt(n.Interval.Milliseconds(), 10) + "ms], mode=[" + mode + "])"
}

// LocalGroupAggregate is Flink's StreamPhysicalLocalGroupAggregate: the
// group keys, each call's accumulator fields, an input count when the
// input retracts and no call is COUNT(*), and one DISTINCT view per
// distinct argument list (AggregateUtil.transformToStreamAggregateInfoList).
type LocalGroupAggregate struct {
	base
	Group []int
	Aggs  []AggCall
	// PartialFinal is the part of a split distinct aggregation
	// (splitAggregate) the two phases stand for.
	PartialFinal PartialFinal
	// Count1 is the COUNT(*) input count added for a retracting input
	// (needInputCount) when no call is one.
	Count1 bool
}

// GlobalGroupAggregate is Flink's StreamPhysicalGlobalGroupAggregate over
// an Exchange of its LocalGroupAggregate. One is the one-phase aggregate
// it replaces (its calls, output row and changelog mode).
type GlobalGroupAggregate struct {
	base
	One *GroupAggregate
	// Incr are the calls IncrementalAggregateRule gives a final global
	// phase it rebuilds over an IncrementalGroupAggregate: One's calls
	// with the partial phase's retraction (nil: One's calls).
	Incr []AggCall
	// CountStar is the rebuilt phase's indexOfCountStar (the partial
	// phase's own COUNT(*), which counts the rows of a retracting input)
	// when HasCountStar.
	CountStar    int
	HasCountStar bool
}

// IncrementalGroupAggregate is Flink's StreamPhysicalIncrementalGroupAggregate
// (IncrementalAggregateRule, on by table.optimizer.incremental-agg-enabled):
// the partial global phase and the final local phase of a split distinct
// aggregation (splitAggregate) in one operator, which merges the partial
// local phase's accumulators and emits them grouped by the final keys.
// Partial is the partial global phase over the same input; the runtime
// runs the final global phase as its one-phase aggregate over Partial's
// (GlobalGroupAggregate.OnePhase), which gives the same rows.
type IncrementalGroupAggregate struct {
	base
	Partial *GlobalGroupAggregate
	// FinalGroup are the final phase's keys in Partial's output.
	FinalGroup []int
}

func (*IncrementalGroupAggregate) Name() string { return "IncrementalGroupAggregate" }

func (n *IncrementalGroupAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	c.Partial = n.Partial.WithInputs(in...).(*GlobalGroupAggregate)
	return &c
}

// describe prints StreamPhysicalIncrementalGroupAggregate.explainTerms:
// the partial keys, the final keys, and the partial global phase's calls
// over the partial local phase's accumulators, each AS those
// accumulators (the operator's output), then the partial phase's added
// input count.
func (n *IncrementalGroupAggregate) describe(Format) string {
	pl := n.Partial.local()
	l := pl.accs()
	in := n.input().Names()
	var sel, fin []string
	for _, g := range n.FinalGroup {
		fin = append(fin, in[g])
	}
	sel = append(sel, fin...)
	for i, a := range n.Partial.One.Aggs {
		fn := a.Func
		if a.Retract {
			fn += "_RETRACT"
		}
		arg := l.as(i)
		if a.Distinct {
			arg = l.distinctOf[i] + " " + arg
		}
		sel = append(sel, fn+"("+arg+") AS "+l.as(i))
	}
	if l.count1 != "" {
		sel = append(sel, "COUNT_RETRACT("+l.count1+") AS "+l.count1)
	}
	return "IncrementalGroupAggregate(partialAggGrouping=[" + strings.Join(in[:len(pl.Group)], ", ") + "], finalAggGrouping=[" +
		strings.Join(fin, ", ") + "], select=[" + strings.Join(sel, ", ") + "])"
}

// incremental is IncrementalAggregateRule over a final global phase g: when
// its local phase reads a partial global phase, the two become one
// IncrementalGroupAggregate below g's Exchange. Where the partial phase
// added no input count, g's calls take the partial phase's retraction and
// its COUNT(*) as indexOfCountStar; else g stays as it is (its calls read
// the same accumulator layout).
func incremental(g *GlobalGroupAggregate) Node {
	fl, ok := g.below().(*LocalGroupAggregate)
	if !ok || g.One.PartialFinal != Final || fl.PartialFinal != Final {
		return g
	}
	p, ok := fl.input().(*GlobalGroupAggregate)
	if !ok || p.One.PartialFinal != Partial {
		return g
	}
	pl := p.local()
	l := pl.accs()
	var ns []string
	var ts []sql.DataType
	for _, k := range fl.Group {
		ns = append(ns, p.Names()[k])
		ts = append(ts, p.Types()[k])
	}
	for i := range l.bufs {
		ns = append(ns, l.bufs[i]...)
		ts = append(ts, l.types[i]...)
	}
	if l.count1 != "" {
		ns = append(ns, l.count1)
		ts = append(ts, sql.BigInt().NotNull())
	}
	inc := &IncrementalGroupAggregate{base: row(ns, ts, p.input()), Partial: p, FinalGroup: append([]int(nil), fl.Group...)}
	inc.mode = sql.InsertOnly
	old := g.input().(*Exchange)
	ex := &Exchange{base: sameRow(inc), Keys: old.Keys, Single: old.Single}
	ex.mode = sql.InsertOnly
	c := *g
	c.base = g.with([]Node{ex})
	if !pl.Count1 {
		retracting := !pl.input().Mode().IsInsertOnly()
		c.Incr = make([]AggCall, len(g.One.Aggs))
		for i, a := range g.One.Aggs {
			a.Retract = p.One.Aggs[i].Retract
			c.Incr[i] = a
		}
		if retracting {
			for i, a := range p.One.Aggs {
				if a.Func == "COUNT" && len(a.Args) == 0 && !a.Distinct && !a.Filtered {
					c.CountStar, c.HasCountStar = i, true
					break
				}
			}
		}
	}
	return &c
}

func (*LocalGroupAggregate) Name() string  { return "LocalGroupAggregate" }
func (*GlobalGroupAggregate) Name() string { return "GlobalGroupAggregate" }

func (n *LocalGroupAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *GlobalGroupAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// local is the global phase's LocalGroupAggregate below its Exchange.
func (n *GlobalGroupAggregate) local() *LocalGroupAggregate {
	return n.below().(*LocalGroupAggregate)
}

// below is the node below the global phase's Exchange: its
// LocalGroupAggregate or an IncrementalGroupAggregate.
func (n *GlobalGroupAggregate) below() Node {
	return n.input().(*Exchange).input()
}

// OnePhase is the one-phase GroupAggregate the runtime runs for this
// global phase: over a hash Exchange of the local phase's input, so the
// final rows are the same as the two phases'.
func (n *GlobalGroupAggregate) OnePhase() *GroupAggregate {
	var in Node
	switch x := n.below().(type) {
	case *LocalGroupAggregate:
		in = x.input()
	case *IncrementalGroupAggregate:
		// The final phase over the partial phase, as without the rule.
		in = x.Partial
	}
	ex := &Exchange{base: sameRow(in), Keys: append([]int(nil), n.One.Group...), Single: len(n.One.Group) == 0}
	ex.mode = in.Mode()
	c := *n.One
	c.base = n.One.with([]Node{ex})
	return &c
}

// accs are the local phase's accumulators, named as the window aggregate's
// local phase names them (localAccs).
func (n *LocalGroupAggregate) accs() localAccs {
	intypes := n.input().Types()
	l := streamAccs(n.Aggs, intypes)
	if n.Count1 {
		nbuf := 0
		for _, b := range l.bufs {
			nbuf += len(b)
		}
		l.count1 = "count1$" + strconv.Itoa(nbuf)
	}
	return l
}

func (n *LocalGroupAggregate) describe(Format) string {
	in := n.input().Names()
	sel := localSelect(in, n.Group, n.Aggs, n.accs(), "COUNT_RETRACT(*)")
	s := "LocalGroupAggregate("
	if len(n.Group) > 0 {
		s += "groupBy=[" + names(in, n.Group) + "], "
	}
	return s + n.PartialFinal.term() + "select=[" + strings.Join(sel, ", ") + "])"
}

// describe prints the global phase as RelExplainUtil's
// stringifyGlobalAggregates: each call over its accumulator fields in the
// local phase's output, zipped with the output names (so the added input
// count is not printed).
//
// Over an IncrementalGroupAggregate each call reads the accumulator
// fields of its input by position, as named there.
func (n *GlobalGroupAggregate) describe(Format) string {
	aggs := n.One.Aggs
	var l localAccs
	if local, ok := n.below().(*LocalGroupAggregate); ok {
		l = local.accs()
	} else {
		if n.Incr != nil {
			aggs = n.Incr
		}
		l = streamAccs(aggs, n.One.input().Types())
	}
	in := n.input().Names()
	out := n.names
	k := len(n.One.Group)
	var sel []string
	for i := 0; i < k; i++ {
		if in[i] == out[i] {
			sel = append(sel, in[i])
		} else {
			sel = append(sel, in[i]+" AS "+out[i])
		}
	}
	pos := k
	for i, a := range aggs {
		fn := a.Func
		if a.Retract {
			fn += "_RETRACT"
		}
		bufs := in[pos : pos+len(l.bufs[i])]
		pos += len(l.bufs[i])
		arg := strings.Join(bufs, ", ")
		if len(bufs) > 1 {
			arg = "(" + arg + ")"
		}
		if a.Distinct {
			arg = l.distinctOf[i] + " " + arg
		}
		sel = append(sel, fn+"("+arg+") AS "+out[k+i])
	}
	s := "GlobalGroupAggregate("
	if k > 0 {
		s += "groupBy=[" + strings.Join(in[:k], ", ") + "], "
	}
	s += n.One.PartialFinal.term() + "select=[" + strings.Join(sel, ", ") + "]"
	if n.HasCountStar {
		s += ", indexOfCountStar=[" + strconv.Itoa(n.CountStar) + "]"
	}
	return s + ")"
}

// streamAccs names the accumulators of a stream aggregate's calls as
// Flink's declarative functions' buffers: accBuffers', and a retracting
// SUM's (sum$i, count$i+1) (SumWithRetractAggFunction).
func streamAccs(aggs []AggCall, intypes []sql.DataType) localAccs {
	var l localAccs
	l.bufs, l.types = accBuffers(aggs, func(a AggCall) sql.DataType { return intypes[a.Args[0]] })
	nbuf := 0
	for i, a := range aggs {
		if a.Retract && a.Func == "SUM" {
			// Renumber: this call's buffers are (sum, count), which
			// shifts every later call's index by one.
			l.bufs[i] = []string{"sum$" + strconv.Itoa(nbuf), "count$" + strconv.Itoa(nbuf+1)}
			l.types[i] = []sql.DataType{a.T, sql.BigInt().NotNull()}
			for j := i + 1; j < len(aggs); j++ {
				for b := range l.bufs[j] {
					name := l.bufs[j][b]
					at := strings.LastIndexByte(name, '$')
					x, _ := strconv.Atoi(name[at+1:])
					l.bufs[j][b] = name[:at+1] + strconv.Itoa(x+1)
				}
			}
		}
		nbuf += len(l.bufs[i])
	}
	keys := map[string]int{}
	l.distinctOf = make([]string, len(aggs))
	for i, a := range aggs {
		if !a.Distinct {
			continue
		}
		k := strconv.Quote(names(nil, a.Args))
		d, ok := keys[k]
		if !ok {
			d = len(l.distinctArgs)
			keys[k] = d
			l.distinctArgs = append(l.distinctArgs, a.Args)
		}
		l.distinctOf[i] = "distinct$" + strconv.Itoa(d)
	}
	return l
}

// twoStageEligible reports a GroupAggregate TwoStageOptimizedAggregateRule
// splits: every call's function supports partial merge
// (AggregateUtil.doAllSupportPartialMerge: a DeclarativeAggregateFunction,
// or one with a merge method). Of sqlrun's aggregates these are COUNT,
// SUM, $SUM0 and AVG (declarative, with or without retraction), MIN and
// MAX (MinWithRetractAggFunction / MaxWithRetractAggFunction merge),
// LISTAGG (the declarative ListAggFunction; ListAggWithRetractAggFunction
// and ListAggWsWithRetractAggFunction merge) and the insert-only
// FIRST_VALUE / LAST_VALUE (the declarative FirstValueAggFunction /
// LastValueAggFunction); FirstValueWithRetractAggFunction and
// LastValueWithRetractAggFunction have no merge and keep one phase. A
// DISTINCT call merges through its distinct view, with or without
// retraction. The runtime runs the global phase as the one-phase
// aggregate (GlobalGroupAggregate.OnePhase), so the choice changes the
// plan's text, not its rows.
func twoStageEligible(agg *GroupAggregate) bool {
	for _, a := range agg.Aggs {
		switch a.Func {
		case "COUNT", "SUM", "$SUM0", "AVG", "MIN", "MAX", "LISTAGG":
		case "FIRST_VALUE", "LAST_VALUE":
			if a.Retract {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// requiresWatermark is Flink's StreamPhysicalRel.requireWatermark: the
// event-time operators, below which the MiniBatchAssigner runs in RowTime
// mode (MiniBatchIntervalInferRule merges the parent's interval with
// (RowTime, 0)).
func requiresWatermark(n Node) bool {
	switch x := n.(type) {
	case *WindowAggregate:
		return !x.Window.ProcTime
	case *WindowJoin:
		return !x.Window.ProcTime
	case *WindowRank:
		return !x.Window.ProcTime
	case *WindowDeduplicate:
		return !x.Window.ProcTime
	case *WindowTableFunction:
		return !x.Window.ProcTime
	case *IntervalJoin:
		return x.Rowtime
	case *TemporalJoin:
		return x.Rowtime
	case *OverAggregate:
		return x.Rowtime
	case *Deduplicate:
		return x.Rowtime
	}
	return false
}

// applyMiniBatch rewrites a streaming plan for table.exec.mini-batch.enabled.
func applyMiniBatch(root *Sink, cfg map[string]string) (*Sink, error) {
	on, err := config.Bool(cfg, config.KeyMiniBatchEnabled)
	if err != nil || !on {
		return root, err
	}
	latency, err := config.Duration(cfg, config.KeyMiniBatchLatency)
	if err != nil {
		return nil, err
	}
	if latency.Milliseconds() <= 0 {
		// StreamCommonSubGraphBasedOptimizer's check.
		return nil, sql.Errorf(sql.IllegalArgumentException, "MiniBatch Latency must be greater than 0 ms.")
	}
	strategy, err := config.Enum(cfg, config.KeyAggPhaseStrategy)
	if err != nil {
		return nil, err
	}
	if err := checkMiniBatchJoinSize(root, cfg); err != nil {
		return nil, err
	}
	incr, err := config.Bool(cfg, config.KeyIncrementalAgg)
	if err != nil {
		return nil, err
	}
	var rewrite func(n Node, assign, rowtime bool) Node
	rewrite = func(n Node, assign, rowtime bool) Node {
		rowtime = rowtime || requiresWatermark(n)
		// A WatermarkAssigner's and a MiniBatchAssigner's inputs get
		// MiniBatchIntervalTrait.NONE: no assigner below them.
		childAssign := assign
		switch n.(type) {
		case *WatermarkAssigner, *MiniBatchAssigner:
			childAssign = false
		}
		ins := n.Inputs()
		if len(ins) == 0 {
			return n
		}
		newIns := make([]Node, len(ins))
		for i, in := range ins {
			c := rewrite(in, childAssign, rowtime)
			switch in.(type) {
			case *TableSourceScan, *WatermarkAssigner:
				if childAssign {
					m := &MiniBatchAssigner{base: sameRow(c), Interval: latency, RowTime: rowtime}
					m.mode, m.upsertKeys = c.Mode(), c.UpsertKeys()
					c = m
				}
			}
			newIns[i] = c
		}
		out := n.WithInputs(newIns...)
		if j, ok := out.(*Join); ok && j.Strategy == "" {
			// StreamPhysicalJoin.explainTerms: miniBatch=[true] whenever
			// mini-batch is on (MinibatchUtil.isMiniBatchEnabled).
			c := *j
			c.MiniBatch = true
			return &c
		}
		agg, ok := out.(*GroupAggregate)
		if !ok || agg.OnePhase || strategy == "ONE_PHASE" || !twoStageEligible(agg) {
			return out
		}
		ex, ok := agg.input().(*Exchange)
		if !ok {
			return out
		}
		g := twoStage(agg, ex.input())
		if incr {
			return incremental(g)
		}
		return g
	}
	return rewrite(root, true, false).(*Sink), nil
}

// twoStage is TwoStageOptimizedAggregateRule's rewrite of agg over real
// (the input of its Exchange).
func twoStage(agg *GroupAggregate, real Node) *GlobalGroupAggregate {
	retracting := !real.Mode().IsInsertOnly()
	local := &LocalGroupAggregate{Group: agg.Group, Aggs: agg.Aggs, PartialFinal: agg.PartialFinal}
	if retracting {
		local.Count1 = true
		for _, a := range agg.Aggs {
			if a.Func == "COUNT" && len(a.Args) == 0 && !a.Distinct && !a.Filtered {
				local.Count1 = false
			}
		}
	}
	local.base = sameRow(real)
	var ln []string
	var lt []sql.DataType
	for _, g := range agg.Group {
		ln = append(ln, real.Names()[g])
		lt = append(lt, real.Types()[g])
	}
	bn, bt := local.accs().fieldNames()
	local.base = row(append(ln, bn...), append(lt, bt...), real)
	local.mode = sql.InsertOnly
	keys := make([]int, len(agg.Group))
	for i := range keys {
		keys[i] = i
	}
	gex := &Exchange{base: sameRow(local), Keys: keys, Single: len(keys) == 0}
	gex.mode = sql.InsertOnly
	g := &GlobalGroupAggregate{base: row(agg.names, agg.types, gex), One: agg}
	g.mode, g.upsertKeys = agg.mode, agg.upsertKeys
	return g
}

// checkMiniBatchJoinSize is MinibatchUtil.miniBatchSize's check, which
// Flink's StreamExecJoin makes when a mini-batch join's execution node is
// built, so EXPLAIN fails too (JoinTest.testMiniBatchJoinWithNegativeMiniBatchSize);
// the mini-batch aggregates check the size only when the job is built
// (exec/compile's checkMiniBatchSize).
func checkMiniBatchJoinSize(root Node, cfg map[string]string) error {
	join := false
	Walk(root, func(n Node) {
		if j, ok := n.(*Join); ok && j.Strategy == "" {
			join = true
		}
	})
	if !join {
		return nil
	}
	size, err := config.Int(cfg, config.KeyMiniBatchSize)
	if err != nil {
		return err
	}
	if size <= 0 {
		return sql.Errorf(sql.IllegalArgumentException, "Key: '%s' , default: -1 (fallback keys: []) must be > 0.", config.KeyMiniBatchSize)
	}
	return nil
}
