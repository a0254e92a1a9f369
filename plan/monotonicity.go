package plan

import "github.com/sqlrun/sqlrun/sql"

// Modified monotonicity is Flink's FlinkRelMdModifiedMonotonicity, in the
// part that decides whether MIN and MAX need retraction: how a field of a
// node's output changes when the node updates a row it emitted before. A
// field of an insert-only input never changes (constant); an aggregate's
// group keys are constant; MAX over a constant or increasing field only
// increases, MIN only decreases. AggregateUtil.getNeedRetractions then
// drops the retraction of a MAX over an increasing and of a MIN over a
// decreasing field: an older value is never the result again, so the -U
// need not be undone (MaxWithRetractAggFunction becomes MaxAggFunction,
// printed MAX instead of MAX_RETRACT).

type monotonicity int

const (
	notMonotonic monotonicity = iota
	constant
	increasing
	decreasing
)

// fieldMonotonicity is the modified monotonicity of field f of n.
func fieldMonotonicity(n Node, f int) monotonicity {
	switch x := n.(type) {
	case *TableSourceScan:
		if x.Table.Source.ChangelogMode().IsInsertOnly() {
			return constant
		}
	case *Values:
		return constant
	case *Exchange:
		return fieldMonotonicity(x.input(), f)
	case *Expand:
		// Flink's default for a node it has no rule for
		// (FlinkRelMdModifiedMonotonicity.getMonotonicity): every field is
		// constant over an insert-only input (a split distinct
		// aggregation's Expand, SplitAggregateRule).
		if insertOnlyNode(x.input()) {
			return constant
		}
		return notMonotonic
	case *Calc:
		if x.Cond != nil && !insertOnlyBelow(x.input()) {
			// A filter can turn an update into a delete.
			return notMonotonic
		}
		switch e := x.Exprs[f].(type) {
		case *InputRef:
			return fieldMonotonicity(x.input(), e.Index)
		case *Literal:
			return constant
		}
		if insertOnlyNode(x.input()) {
			// getProjectMonotonicity: every expression over an
			// insert-only input is constant (MOD(HASH_CODE(b), 1024) of a
			// split distinct aggregation).
			return constant
		}
	case *Rank:
		return rankMonotonicity(x, f)
	case *GroupAggregate:
		if !constantGroup(x) {
			return notMonotonic
		}
		if f < len(x.Group) {
			return constant
		}
		return aggMonotonicity(x, f-len(x.Group))
	}
	return notMonotonic
}

// constantGroup reports an aggregate whose group keys are constant fields
// of its input: FlinkRelMdModifiedMonotonicity's
// getRelModifiedMonotonicityOnAggregate has no monotonicity (null) for
// an aggregate grouped by an updating field, whose rows move between
// groups: a row that leaves a group takes its value out of the group's
// MIN / MAX, which then needs retraction.
func constantGroup(agg *GroupAggregate) bool {
	for _, g := range agg.Group {
		if fieldMonotonicity(agg.input(), g) != constant {
			return false
		}
	}
	return true
}

// insertOnlyNode reports a node that only inserts, by its changelog kinds.
func insertOnlyNode(n Node) bool {
	return modifyKinds(n, map[Node]sql.ChangelogMode{}).IsInsertOnly()
}

// insertOnlyBelow reports a subtree whose every field is constant: one
// that only inserts.
func insertOnlyBelow(n Node) bool {
	for f := range n.Names() {
		if fieldMonotonicity(n, f) != constant {
			return false
		}
	}
	return true
}

// aggMonotonicity is the monotonicity of aggregate call i's result.
func aggMonotonicity(agg *GroupAggregate, i int) monotonicity {
	if !constantGroup(agg) {
		return notMonotonic
	}
	a := agg.Aggs[i]
	if a.Func == "COUNT" && insertOnlyInput(agg) {
		// A count over rows that are never retracted only grows (what
		// lets a Top-N over it take UpdateFastStrategy).
		return increasing
	}
	if a.Distinct || len(a.Args) != 1 {
		return notMonotonic
	}
	if (a.Func == "SUM" || a.Func == "SUM0" || a.Func == "$SUM0") && insertOnlyInput(agg) {
		var nonNeg, nonPos bool
		if a.Filtered {
			nonNeg, nonPos = filteredBounds(agg.input(), a.Args[0], a.Filter)
		}
		switch {
		case nonNeg || nonNegative(agg.input(), a.Args[0]):
			return increasing // rank_interval.go
		case nonPos:
			return decreasing
		}
	}
	arg := fieldMonotonicity(agg.input(), a.Args[0])
	switch {
	case a.Func == "MAX" && (arg == constant || arg == increasing):
		return increasing
	case a.Func == "MIN" && (arg == constant || arg == decreasing):
		return decreasing
	}
	return notMonotonic
}

// needsRetraction reports whether aggregate call i of an aggregate over an
// updating input consumes retractions (AggregateUtil.getNeedRetractions).
func needsRetraction(agg *GroupAggregate, i int) bool {
	switch aggMonotonicity(agg, i) {
	case increasing:
		return agg.Aggs[i].Func != "MAX"
	case decreasing:
		return agg.Aggs[i].Func != "MIN"
	}
	return true
}
