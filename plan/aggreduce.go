package plan

import (
	"math"
	"slices"

	"github.com/sqlrun/sqlrun/sql"
)

// aggregateReduceFunctions is Calcite's AggregateReduceFunctionsRule as
// Flink's LOGICAL program applies it (CoreRules.AGGREGATE_REDUCE_FUNCTIONS
// in FlinkStreamRuleSets / FlinkBatchRuleSets.LOGICAL_OPT_RULES): SUM(x)
// becomes CASE(COUNT(x) = 0, NULL, $SUM0(x)) and AVG(x) becomes
// CAST(SUM(x) / COUNT(x)), whose SUM the rule then reduces in turn, every
// new call shared with an equal one (Calcite's RexBuilder.addAggCall, which
// also reads COUNT of NOT NULL fields as COUNT(*)). The rule only offers an
// alternative to Flink's Volcano planner; the plan keeps it when it is
// cheaper by FlinkLogicalAggregate's cost (a CPU cost of one unit per input
// row and aggregate call) and FlinkLogicalCalc's (one per output row and
// computed projection, CASTs not counted), i.e. when the shared calls
// leave fewer aggregate calls than the computations the Calc above adds
// on the aggregate's output rows (with no statistics, a grouped
// aggregate's output is its input times 1 - exp(-0.1 * group keys),
// FlinkRelMdUtil.getAggregationRatioIfNdvUnavailable; a global one's is
// one row). DistinctAggregateTest.testSingleDistinctAggWithAllNonDistinctAgg:
// SUM(b), AVG(b) and COUNT(b) are $SUM0(b) and COUNT(b), one call fewer;
// testSingleDistinctAggWithAndNonDistinctAggOnSameColumn keeps SUM and
// AVG (as many calls, and a Calc more). The Calc is merged into the one
// above the aggregate (FlinkCalcMergeRule).
func aggregateReduceFunctions(_ *binder, n Node) (Node, error) {
	var above *LogicalCalc
	agg, ok := n.(*LogicalAggregate)
	if !ok {
		c, ok := n.(*LogicalCalc)
		if !ok {
			return nil, nil
		}
		if agg, ok = c.input().(*LogicalAggregate); !ok {
			return nil, nil
		}
		above = c
	}
	// An aggregate of grouping sets costs infinity in FlinkLogicalAggregate
	// either way, and a split one is LOGICAL_REWRITE's, after this choice.
	// A variance call must be reduced whatever the cost (aggvariance.go).
	if agg.PartialFinal != NotSplit || agg.Sets != nil && !slices.ContainsFunc(agg.Aggs, isVariance) {
		return nil, nil
	}
	exprs, reduced := reduceAggregateFunctions(agg)
	if reduced == nil {
		return nil, nil
	}
	calc := &LogicalCalc{base: row(agg.names, exprTypes(exprs), reduced), Exprs: exprs}
	if above == nil {
		return calc, nil
	}
	return mergeCalc(&LogicalCalc{base: row(above.names, above.types, calc), Exprs: above.Exprs, Cond: above.Cond}), nil
}

// reduceAggregateFunctions returns the reduced aggregate and the
// projection of agg's row over it, or nil when the rule does not match or
// its result would cost more.
func reduceAggregateFunctions(agg *LogicalAggregate) ([]Expr, *LogicalAggregate) {
	reducible := func(a AggCall) bool { return a.Func == "SUM" || a.Func == "AVG" || isVariance(a) }
	if !slices.ContainsFunc(agg.Aggs, reducible) {
		return nil, nil
	}
	ng := len(agg.Group)
	ratio := 0.0 // a global aggregate: one output row
	if ng > 0 {
		ratio = 1 - math.Exp(-0.1*float64(ng))
	}
	// cost is FlinkLogicalAggregate's rowCnt * aggCnt plus
	// FlinkLogicalCalc's outRows * computed projections, per input row.
	cost := func(proj []Expr, a *LogicalAggregate) float64 {
		computed := 0
		for _, e := range proj[ng:] {
			switch e := e.(type) {
			case *InputRef, *Literal:
			case *Call:
				if e.Op != "CAST" {
					computed++
				}
			default:
				computed++
			}
		}
		return float64(len(a.Aggs)) + float64(computed)*ratio
	}
	// A variance call has no runtime function: the aggregate must be
	// reduced, and of the aggregates each further firing offers (the
	// SUMs it made reduced to $SUM0 in turn) Volcano keeps the cheapest,
	// the first of equal ones (the Calc below, x * x, is theirs alike).
	forced := slices.ContainsFunc(agg.Aggs, isVariance)
	// proj maps agg's row onto the current aggregate's row.
	proj := identity(agg.types)
	cur := agg
	var bestProj []Expr
	var best *LogicalAggregate
	for slices.ContainsFunc(cur.Aggs, reducible) {
		step, next := reduceAggsOnce(cur)
		for i, e := range proj {
			proj[i] = inline(e, step)
		}
		cur = next
		if forced && (best == nil || cost(proj, cur) < cost(bestProj, best)) {
			bestProj, best = slices.Clone(proj), cur
		}
	}
	if forced {
		return bestProj, best
	}
	if cost(proj, cur)-float64(len(cur.Aggs)) >= float64(len(agg.Aggs)-len(cur.Aggs)) {
		return nil, nil
	}
	return proj, cur
}

// reduceAggsOnce is one firing of AggregateReduceFunctionsRule.reduceAggs:
// every SUM and AVG of agg reduced, the other calls kept, equal calls
// shared. It returns agg's row as expressions over the new aggregate.
func reduceAggsOnce(agg *LogicalAggregate) ([]Expr, *LogicalAggregate) {
	ng := len(agg.Group)
	in := agg.input()
	vin := newVarianceInput(in)
	var calls []AggCall
	// add is RexBuilder.addAggCall: a non-distinct COUNT drops its NOT
	// NULL arguments; an equal call (function, distinctness, arguments,
	// filter) is shared.
	add := func(c AggCall) *InputRef {
		if c.Func == "COUNT" && !c.Distinct {
			var args []int
			for _, a := range c.Args {
				if in.Types()[a].Nullable {
					args = append(args, a)
				}
			}
			c.Args = args
		}
		for i, o := range calls {
			if o.Func == c.Func && o.Distinct == c.Distinct && slices.Equal(o.Args, c.Args) &&
				o.Filtered == c.Filtered && (!c.Filtered || o.Filter == c.Filter) {
				return &InputRef{Index: ng + i, T: o.T}
			}
		}
		c.Retract = false
		if c.Unnamed || c.Name == "" {
			c.Unnamed = true
			c.Name = c.fieldName(ng + len(calls))
		}
		calls = append(calls, c)
		return &InputRef{Index: ng + len(calls) - 1, T: c.T}
	}
	// derived is a call the rule creates from old: old's arguments,
	// distinctness and filter, no name.
	derived := func(old AggCall, fn string, t sql.DataType) AggCall {
		return AggCall{Func: fn, Distinct: old.Distinct, Args: old.Args, Filtered: old.Filtered, Filter: old.Filter, T: t, Unnamed: true}
	}
	countT := sql.BigInt().NotNull()
	exprs := identity(agg.types)
	for i, a := range agg.Aggs {
		switch a.Func {
		case "SUM":
			// reduceSum: $SUM0 keeps the call's name.
			sum0 := a
			sum0.Func, sum0.T = "$SUM0", a.T.WithNullable(false)
			ref := add(sum0)
			if !a.T.Nullable {
				exprs[ng+i] = ref
				continue
			}
			count := add(derived(a, "COUNT", countT))
			exprs[ng+i] = &Call{Op: "CASE", T: a.T, Args: []Expr{
				&Call{Op: "=", Args: []Expr{count, &Literal{Value: int32(0), T: sql.Int().NotNull()}}, T: sql.Boolean().NotNull()},
				&Literal{Value: nil, T: a.T.WithNullable(true)},
				ref,
			}}
		case "AVG":
			// reduceAvg: CAST(SUM(x) / COUNT(x)), the numerator cast to
			// the average's type first when it differs.
			// The SUM's type as AggregateCall.create infers it (AGG_SUM):
			// NOT NULL when grouped, unfiltered and over a NOT NULL x.
			sumT := aggResultType("SUM", in.Types()[a.Args[0]]).WithNullable(
				len(agg.Group) == 0 || a.Filtered || in.Types()[a.Args[0]].Nullable)
			sum := add(derived(a, "SUM", sumT))
			count := add(derived(a, "COUNT", countT))
			num := castExpr(sum, a.T.WithNullable(sumT.Nullable))
			div := &Call{Op: "/", Args: []Expr{num, count}, T: arithmeticType("/", num.Type(), countT)}
			exprs[ng+i] = castExpr(div, a.T)
		default:
			if isVariance(a) {
				exprs[ng+i] = reduceVariance(a, ng, in, vin, add, derived)
				continue
			}
			exprs[ng+i] = add(a)
		}
	}
	in = vin.node()
	names := slices.Clone(agg.names[:ng])
	types := slices.Clone(agg.types[:ng])
	for _, c := range calls {
		names = append(names, c.Name)
		types = append(types, c.T)
	}
	return exprs, &LogicalAggregate{base: row(aggregateNames(names, ng), types, in), Group: agg.Group, Aggs: calls, Sets: agg.Sets}
}
