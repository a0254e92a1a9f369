package plan

import (
	"math"
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Batch join strategies, as Flink 1.20's batch planner picks them: the
// join rules BatchPhysicalHashJoinRule, BatchPhysicalSortMergeJoinRule and
// BatchPhysicalNestedLoopJoinRule (with BatchPhysicalJoinRuleBase's checks)
// each offer their strategy unless table.exec.disabled-operators names it,
// and the cost model keeps the cheapest. With the table statistics sqlrun
// has (none: every source is Flink's unknown 10^8 rows), that is a hash
// join for an equi-join (broadcast when one side's estimated size is under
// table.optimizer.join.broadcast-threshold, else hash-shuffled), then a
// sort-merge join, then a nested-loop join, which is the only strategy for
// a join without an equality between the two inputs.

// Batch join strategies (Join.Strategy); the empty strategy is the
// streaming Join.
const (
	StrategyHash       = "HashJoin"
	StrategySortMerge  = "SortMergeJoin"
	StrategyNestedLoop = "NestedLoopJoin"
)

// Flink's OperatorType names that table.exec.disabled-operators takes
// (TableConfigUtils.isOperatorDisabled; "HashJoin" disables both hash
// joins).
var operatorTypes = map[string]bool{"NestedLoopJoin": true, "ShuffleHashJoin": true, "BroadcastHashJoin": true,
	"SortMergeJoin": true, "HashAgg": true, "SortAgg": true}

// disabledOperators parses table.exec.disabled-operators.
func disabledOperators(cfg map[string]string) (map[string]bool, error) {
	v, err := config.String(cfg, config.KeyDisabledOperators)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, op := range strings.Split(v, ",") {
		op = strings.TrimSpace(op)
		switch {
		case op == "":
		case op == "HashJoin":
			out["ShuffleHashJoin"], out["BroadcastHashJoin"] = true, true
		case operatorTypes[op]:
			out[op] = true
		default:
			return nil, sql.Errorf(sql.IllegalArgumentException,
				"No enum constant org.apache.flink.table.planner.plan.utils.OperatorType.%s", op)
		}
	}
	return out, nil
}

// cannotPlan is Calcite's CannotPlanException as Flink's optimizer reports
// it when no enabled strategy can run a join (Flink prints the whole
// logical plan; sqlrun the join).
func cannotPlan(j *Join) error {
	return sql.Errorf(sql.TableException,
		"Cannot generate a valid execution plan for the given query: \n\nFlinkLogicalJoin(condition=[%s], joinType=[%s])\n\nThis exception indicates that the query uses an unsupported SQL feature.\nPlease check the documentation for the set of currently supported SQL features.",
		FormatExpr(j.Cond, nil, FormatAST), strings.ToLower(string(j.JoinType)))
}

// batchJoin chooses the join strategy of a batch join and puts the
// exchanges under it its strategy requires. A valid join hint decides the
// strategy and its side (firstValidJoinHint); otherwise the join is
// planned as without hints.
func (b *binder) batchJoin(left, right Node, cond Expr, kind ast.JoinKind, hints []joinHint) (Node, error) {
	j := newJoin(left, right, cond, kind).(*Join)
	disabled, err := disabledOperators(b.config)
	if err != nil {
		return nil, err
	}
	threshold, err := config.Int(b.config, config.KeyBroadcastThreshold)
	if err != nil {
		return nil, err
	}
	if h, ok := firstValidJoinHint(j, hints, disabled); ok {
		switch h.name {
		case hintBroadcast:
			// BROADCAST's side is the broadcast (build) side; a LEFT join
			// broadcasts its right input, a RIGHT join its left.
			return broadcastHashJoin(j, left, right, h.left), nil
		case hintShuffleHash:
			return shuffledHashJoin(j, left, right, h.left), nil
		case hintShuffleMerge:
			return sortMergeJoin(j, left, right), nil
		default:
			return nestedLoopJoin(j, left, right, h.left), nil
		}
	}
	if isSingleRowJoin(kind, left, right) {
		// BatchPhysicalSingleRowJoinRule: a join with an input that is
		// one row by construction (a scalar subquery) is a NestedLoopJoin
		// building that row (the left if it is one).
		n := nestedLoopJoin(j, left, right, isSingleRow(left)).(*Join)
		n.SingleRow = true
		return n, nil
	}
	equi := len(j.LeftKeys) > 0
	// BatchPhysicalHashJoinRule and BatchPhysicalNestedLoopJoinRule: a
	// SEMI or ANTI join reads its right input through a local distinct
	// when chooseSemiBuildDistinct says so (the sort-merge rule does not).
	// The sizes the rules compare are of that input.
	plainRight := right
	distinctRight := isSemiAnti(kind) && chooseSemiBuildDistinct(right)
	if distinctRight {
		right = localDistinct(right)
	}
	leftSize, rightSize := relSize(left), relSize(right)
	unknown := math.IsNaN(leftSize) || math.IsNaN(rightSize)
	switch {
	case equi && !disabled["ShuffleHashJoin"] || equi && !disabled["BroadcastHashJoin"]:
		// BatchPhysicalHashJoinRule: broadcast when canBroadcast says so
		// (and BroadcastHashJoin is enabled), else shuffled.
		broadcast, leftBroadcast := canBroadcast(kind, leftSize, rightSize, float64(threshold))
		if broadcast && disabled["BroadcastHashJoin"] || !broadcast && disabled["ShuffleHashJoin"] {
			if equi && !disabled["SortMergeJoin"] {
				return sortMergeJoin(j, left, plainRight), nil
			}
			if !disabled["NestedLoopJoin"] {
				return nestedLoopJoin(j, left, right, nestLoopBuildLeft(kind, leftSize, rightSize)), nil
			}
			return nil, cannotPlan(j)
		}
		var n Node
		if broadcast {
			n = broadcastHashJoin(j, left, right, leftBroadcast)
		} else {
			// Unknown or equal sizes: the left builds, the right for
			// SEMI/ANTI.
			leftBuild := !isSemiAnti(kind)
			if !unknown && leftSize != rightSize {
				leftBuild = leftSize < rightSize
			}
			n = shuffledHashJoin(j, left, right, leftBuild)
		}
		n.(*Join).TryDistinctBuildRow = distinctRight
		return n, nil
	case equi && !disabled["SortMergeJoin"]:
		return sortMergeJoin(j, left, plainRight), nil
	case !disabled["NestedLoopJoin"]:
		return nestedLoopJoin(j, left, right, nestLoopBuildLeft(kind, leftSize, rightSize)), nil
	}
	return nil, cannotPlan(j)
}

func hashExchange(in Node, keys []int) Node { return &Exchange{base: sameRow(in), Keys: keys} }

// requireHash gives a shuffled join's input the hash distribution on keys
// it requires: the input as it is when it already delivers that
// distribution (satisfyHash), else a hash Exchange over it. That is what
// Flink's FlinkExpandConversionRule makes of the requirement: its
// satisfyTraitsByInput asks the input's own satisfyTraits (a
// BatchPhysicalRel's) for a copy that delivers the distribution, its
// satisfyTraitsBySelf puts an Exchange on top, and the cost model keeps
// the copy whenever it needs no Exchange the other lacks.
func requireHash(in Node, keys []int) Node {
	if n, ok := satisfyHash(in, keys); ok {
		return n
	}
	return hashExchange(in, keys)
}

// satisfyHash returns n rewritten to deliver its rows hash-distributed on
// keys (a join's strict requirement: the same keys in the same order)
// without an Exchange of its own, or false. Only rewrites that add no
// Exchange are offered: pushing the requirement down through a Calc
// (BatchPhysicalCalcBase.satisfyTraits), through a shuffled hash or
// sort-merge join onto the Exchanges under it, which it re-keys
// (BatchPhysicalJoinBase.satisfyHashDistributionOnNonBroadcastJoin), and
// through a broadcast hash or nested-loop join onto its probe side
// (satisfyTraitsOnBroadcastJoin), down to a hash Exchange on the same keys
// or an aggregate grouped by them.
func satisfyHash(n Node, keys []int) (Node, bool) {
	switch n := n.(type) {
	case *Exchange:
		if n.Broadcast || n.Single || !slices.Equal(n.Keys, keys) {
			return nil, false
		}
		return n, true
	case *Calc:
		// A required key must be an input field the Calc projects as it
		// is (a RexInputRef in the projection).
		mapped := make([]int, len(keys))
		for i, k := range keys {
			ref, ok := n.Exprs[k].(*InputRef)
			if !ok {
				return nil, false
			}
			mapped[i] = ref.Index
		}
		in, ok := satisfyHash(n.input(), mapped)
		if !ok {
			return nil, false
		}
		return n.WithInputs(in), true
	case *FinalAggregate, *GroupAggregate:
		// BatchPhysicalHashAggregate / BatchPhysicalSortAggregate
		// satisfyTraits: a strict requirement on exactly the group fields
		// (the first fields of its row) is the hash Exchange the aggregate
		// already reads.
		group := 0
		if f, ok := n.(*FinalAggregate); ok {
			group = len(f.Group)
		} else {
			group = len(n.(*GroupAggregate).Group)
		}
		if group == 0 || len(keys) != group {
			return nil, false
		}
		for i, k := range keys {
			if k != i {
				return nil, false
			}
		}
		return n, true
	case *Join:
		switch {
		case n.Strategy == StrategySortMerge || n.Strategy == StrategyHash && !n.Broadcast:
			lk, rk, ok := hashThroughShuffledJoin(n, keys)
			if !ok {
				return nil, false
			}
			return n.WithInputs(requireHash(unexchanged(n.Inputs()[0]), lk), requireHash(unexchanged(n.Inputs()[1]), rk)), true
		case n.Strategy == StrategyHash || n.Strategy == StrategyNestedLoop && n.JoinType != ast.FullJoin:
			// The required keys must all come from the probe side (the one
			// not broadcast), which must deliver them by itself.
			nl := len(n.Inputs()[0].Names())
			probe := 0
			if n.LeftIsBuild {
				probe = 1
			}
			probeKeys := make([]int, len(keys))
			for i, k := range keys {
				if (k < nl) != (probe == 0) {
					return nil, false
				}
				probeKeys[i] = k - probe*nl
			}
			in, ok := satisfyHash(n.Inputs()[probe], probeKeys)
			if !ok {
				return nil, false
			}
			ins := append([]Node(nil), n.Inputs()...)
			ins[probe] = in
			return n.WithInputs(ins...), true
		}
	}
	return nil, false
}

// sortedOn reports an input whose rows each task delivers sorted on keys
// ascending: a SortMergeJoin's, on a prefix of its left join keys (not of
// a RIGHT or FULL join) or of its right ones (of an INNER or RIGHT join),
// seen through Calcs that project the keys as they are
// (BatchPhysicalSortMergeJoin.satisfyTraits' collation).
func sortedOn(n Node, keys []int) bool {
	switch n := n.(type) {
	case *Calc:
		mapped := make([]int, len(keys))
		for i, k := range keys {
			ref, ok := n.Exprs[k].(*InputRef)
			if !ok {
				return false
			}
			mapped[i] = ref.Index
		}
		return sortedOn(n.input(), mapped)
	case *Join:
		if n.Strategy != StrategySortMerge || n.JoinType == ast.FullJoin || len(keys) > len(n.LeftKeys) {
			return false
		}
		nl := len(n.Inputs()[0].Names())
		left, right := n.JoinType != ast.RightJoin, n.JoinType == ast.InnerJoin || n.JoinType == ast.RightJoin
		for i, k := range keys {
			if !(k < nl && left && n.LeftKeys[i] == k || k >= nl && right && n.RightKeys[i] == k-nl) {
				return false
			}
		}
		return true
	}
	return false
}

// unexchanged is a join input without the hash Exchange the join put on
// it.
func unexchanged(in Node) Node {
	if ex, ok := in.(*Exchange); ok && !ex.Broadcast && !ex.Single {
		return ex.input()
	}
	return in
}

// hashThroughShuffledJoin is
// BatchPhysicalJoinBase.satisfyHashDistributionOnNonBroadcastJoin for a
// strict hash requirement on keys of a shuffled join's output: each key
// must be a join key of the left input (not of a RIGHT join) or of the
// right input (of an INNER or RIGHT join); the join then requires its
// inputs hashed on those keys and their partners, in the required order.
func hashThroughShuffledJoin(n *Join, keys []int) (lk, rk []int, ok bool) {
	if n.JoinType == ast.FullJoin || len(keys) == 0 {
		return nil, nil, false
	}
	nl := len(n.Inputs()[0].Names())
	partner := func(k int, from, to []int) (int, bool) {
		found, at := false, 0
		for i, f := range from { // the last pair wins, as in a Scala Map built by zip
			if f == k {
				found, at = true, to[i]
			}
		}
		return at, found
	}
	for _, k := range keys {
		switch {
		case k < nl && n.JoinType != ast.RightJoin:
			r, found := partner(k, n.LeftKeys, n.RightKeys)
			if !found {
				return nil, nil, false
			}
			lk, rk = append(lk, k), append(rk, r)
		case k >= nl && (n.JoinType == ast.RightJoin || n.JoinType == ast.InnerJoin):
			l, found := partner(k-nl, n.RightKeys, n.LeftKeys)
			if !found {
				return nil, nil, false
			}
			lk, rk = append(lk, l), append(rk, k-nl)
		default:
			return nil, nil, false
		}
	}
	return lk, rk, true
}

// broadcastHashJoin is BatchPhysicalHashJoinRule's broadcast join: the
// build side broadcast, the probe side read where it is.
func broadcastHashJoin(j *Join, left, right Node, leftBroadcast bool) Node {
	out := *j
	out.Strategy, out.Broadcast, out.LeftIsBuild = StrategyHash, true, leftBroadcast
	if leftBroadcast {
		left = &Exchange{base: sameRow(left), Broadcast: true}
	} else {
		right = &Exchange{base: sameRow(right), Broadcast: true}
	}
	out.base = row(j.names, j.types, left, right)
	return &out
}

// shuffledHashJoin is BatchPhysicalHashJoinRule's shuffled join: both
// inputs hashed on the join keys.
func shuffledHashJoin(j *Join, left, right Node, leftBuild bool) Node {
	out := *j
	out.Strategy, out.LeftIsBuild = StrategyHash, leftBuild
	out.base = row(j.names, j.types, requireHash(left, j.LeftKeys), requireHash(right, j.RightKeys))
	return &out
}

// sortMergeJoin is BatchPhysicalSortMergeJoinRule: both inputs hashed on
// the join keys; the operator sorts them itself.
func sortMergeJoin(j *Join, left, right Node) Node {
	out := *j
	out.Strategy = StrategySortMerge
	out.base = row(j.names, j.types, requireHash(left, j.LeftKeys), requireHash(right, j.RightKeys))
	return &out
}

// nestLoopBuildLeft is BatchPhysicalJoinRuleBase.checkNestLoopJoin's build
// side without a hint: the right of a LEFT, SEMI or ANTI join, the left of
// a RIGHT join, and the smaller input (the left on a tie) of an INNER or
// FULL join.
func nestLoopBuildLeft(kind ast.JoinKind, leftSize, rightSize float64) bool {
	switch kind {
	case ast.LeftJoin, semiJoin, antiJoin:
		return false
	case ast.RightJoin:
		return true
	}
	return math.IsNaN(leftSize) || math.IsNaN(rightSize) || leftSize <= rightSize
}

// nestedLoopJoin is BatchPhysicalNestedLoopJoinRule: a FULL join reads
// both inputs on one task; otherwise the build side is broadcast to the
// probe side's tasks.
func nestedLoopJoin(j *Join, left, right Node, leftBuild bool) Node {
	out := *j
	out.Strategy = StrategyNestedLoop
	out.LeftIsBuild = leftBuild
	l, r := left, right
	switch {
	case j.JoinType == ast.FullJoin:
		l = &Exchange{base: sameRow(left), Single: true}
		r = &Exchange{base: sameRow(right), Single: true}
	case out.LeftIsBuild:
		l = &Exchange{base: sameRow(left), Broadcast: true}
	default:
		r = &Exchange{base: sameRow(right), Broadcast: true}
	}
	out.base = row(j.names, j.types, l, r)
	return &out
}

// canBroadcast is BatchPhysicalHashJoinRule.canBroadcast: whether a hash
// join can broadcast one input, and whether that is the left one.
func canBroadcast(kind ast.JoinKind, leftSize, rightSize, threshold float64) (ok, left bool) {
	if math.IsNaN(leftSize) || math.IsNaN(rightSize) {
		return false, false // an unknown size never broadcasts
	}
	switch kind {
	case ast.LeftJoin, semiJoin, antiJoin:
		return rightSize <= threshold, false
	case ast.RightJoin:
		return leftSize <= threshold, true
	case ast.FullJoin:
		return false, false
	}
	return leftSize <= threshold || rightSize <= threshold, leftSize < rightSize
}

// unknownRowCount is the row count Flink's metadata gives a table source
// without statistics (FlinkPreparingTableBase: TableStats.UNKNOWN).
const unknownRowCount = 1e8

// relSize is JoinUtil.binaryRowRelNodeSize: the estimated row count times
// the average size of a row in Flink's BinaryRowData
// (FlinkRelMdUtil.binaryRowAverageSize).
func relSize(n Node) float64 { return rowCount(n) * binaryRowSize(n.Types()) }

// binaryRowSize is a BinaryRowData's average size: 8 bytes per field in
// the fixed-length part, plus the variable part's average (Flink's
// FlinkRelMdSize averages: 12 bytes for a string) and the null bit set.
func binaryRowSize(types []sql.DataType) float64 {
	size := float64(((len(types) + 63 + 8) / 64) * 8)
	for _, t := range types {
		size += 8
		if !fixedLength(t) {
			size += varSize(t)
		}
	}
	return size
}

// varSize is FlinkRelMdSize.averageTypeValueSize of a variable-length
// type.
func varSize(t sql.DataType) float64 {
	switch t.Root {
	case sql.TypeChar:
		return float64(t.Length)
	case sql.TypeBinary:
		return float64(t.Length)
	case sql.TypeVarBinary:
		return 16
	case sql.TypeDecimal, sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return 12
	}
	return 12
}

// rowCount is Flink's row count estimate (FlinkRelMdRowCount) for the
// nodes a batch join input is made of, with unknown statistics: 10^8 rows
// per table, a filter's selectivity from SelectivityEstimator's defaults,
// an aggregate's groups as RelMdUtil guesses them.
func rowCount(n Node) float64 {
	switch x := n.(type) {
	case *TableSourceScan:
		return unknownRowCount
	case *Values:
		return float64(len(x.Rows))
	case *Calc:
		in := rowCount(x.input())
		if x.Cond == nil {
			return in
		}
		return in * selectivity(x.Cond)
	case *Join:
		return joinRowCount(x)
	case *Union:
		var s float64
		for _, in := range x.inputs {
			s += rowCount(in)
		}
		return s
	case *FinalAggregate:
		return groupCount(rowCount(x.Local().input()), len(x.Group))
	case *GroupAggregate:
		return groupCount(rowCount(x.input()), len(x.Group))
	case *LocalAggregate:
		return rowCount(x.input())
	case *Limit:
		return limitCount(rowCount(x.input()), x.Offset, x.Fetch)
	case *SortLimit:
		return limitCount(rowCount(x.input()), x.Offset, x.Fetch)
	}
	if len(n.Inputs()) == 0 {
		return unknownRowCount
	}
	return rowCount(n.Inputs()[0])
}

// joinRowCount is FlinkRelMdRowCount.getRowCount(Join) without column
// statistics: an equi-join whose keys are unique on neither side (no
// distinct counts, which sqlrun's sources never have) has (left + right)
// times the condition's selectivity rows (getEquiInnerJoinRowCount), at
// least the preserved side's rows for an outer join; a join without an
// equality has left times right times the condition's selectivity. A
// SEMI or ANTI join's estimate (the left's rows times the selectivity of
// makeSemiAntiJoinSelectivityRexNode) is left unknown.
func joinRowCount(j *Join) float64 {
	if isSemiAnti(j.JoinType) {
		return math.NaN()
	}
	l, r := rowCount(j.Inputs()[0]), rowCount(j.Inputs()[1])
	if math.IsNaN(l) || math.IsNaN(r) {
		return math.NaN()
	}
	sel := 1.0
	if j.Cond != nil {
		sel = selectivity(j.Cond)
	}
	if len(j.LeftKeys) == 0 {
		return l * r * sel
	}
	lu, ru := uniqueOn(batchUniqueKeys(j.Inputs()[0]), j.LeftKeys), uniqueOn(batchUniqueKeys(j.Inputs()[1]), j.RightKeys)
	// The selectivity of the condition's non-equi part, for a join whose
	// keys are unique on one side.
	rest := 1.0
	if c, ok := j.Cond.(*Call); ok && c.Op == "AND" {
		for _, a := range c.Args {
			if !isEquiConjunct(a, len(j.Inputs()[0].Names())) {
				rest *= selectivity(a)
			}
		}
	} else if j.Cond != nil && !isEquiConjunct(j.Cond, len(j.Inputs()[0].Names())) {
		rest = selectivity(j.Cond)
	}
	var inner float64
	switch {
	case lu && ru:
		inner = math.Min(l, r) * rest
	case lu:
		inner = r * rest
	case ru:
		inner = l * rest
	default:
		inner = (l + r) * sel
	}
	switch j.JoinType {
	case ast.LeftJoin:
		return math.Max(l, inner)
	case ast.RightJoin:
		return math.Max(r, inner)
	case ast.FullJoin:
		return math.Max(l, inner) + math.Max(r, inner) - inner
	}
	return inner
}

// semiBuildDistinctNdvRatio is
// table.optimizer.semi-anti-join.build-distinct.ndv-ratio's default
// (BatchPhysicalJoinRuleBase).
const semiBuildDistinctNdvRatio = 0.8

// chooseSemiBuildDistinct is BatchPhysicalJoinRuleBase's: a SEMI or ANTI
// join's right input is worth a local distinct when the estimated
// distinct count of all its fields is below 0.8 of its row count. Without
// column statistics the distinct count is known only where an aggregate
// gives it (distinctRowCount).
func chooseSemiBuildDistinct(right Node) bool {
	ndv, ok := distinctRowCount(right, firstN(len(right.Names())))
	rows := rowCount(right)
	return ok && !math.IsNaN(rows) && ndv/rows < semiBuildDistinctNdvRatio
}

// localDistinct is BatchPhysicalJoinRuleBase.addLocalDistinctAgg: a
// LocalHashAggregate grouping by every field, without calls.
func localDistinct(in Node) Node {
	return &LocalAggregate{base: sameRow(in), Group: firstN(len(in.Names())), Hash: true}
}

// distinctRowCount is FlinkRelMdDistinctRowCount.getDistinctRowCount
// without a predicate, for the nodes whose estimate does not need column
// statistics (which sqlrun's sources never have): no fields have one
// distinct value; an aggregate (getDistinctRowCountOfAggregate)
// multiplies the distinct count of the input fields behind the group
// fields asked for by sqrt(2 * input rows) per COUNT asked for and a tenth
// of its argument's distinct count per other call, at most the input's
// rows; a Calc passes fields it keeps as they are to its input (a
// computed field or a condition, cardOfCalcExpr and the predicate
// push-down, is left unknown here); an Exchange passes them through.
func distinctRowCount(n Node, keys []int) (float64, bool) {
	if len(keys) == 0 {
		return 1, true
	}
	switch x := n.(type) {
	case *Exchange:
		return distinctRowCount(x.input(), keys)
	case *Calc:
		if x.Cond != nil {
			return 0, false
		}
		base := make([]int, len(keys))
		for i, k := range keys {
			ref, ok := x.Exprs[k].(*InputRef)
			if !ok {
				return 0, false
			}
			base[i] = ref.Index
		}
		return distinctRowCount(x.input(), base)
	case *FinalAggregate:
		return aggDistinctRowCount(x.Local().input(), x.Group, x.Aggs, keys)
	case *GroupAggregate:
		return aggDistinctRowCount(x.input(), x.Group, x.Aggs, keys)
	}
	return 0, false
}

func aggDistinctRowCount(in Node, group []int, aggs []AggCall, keys []int) (float64, bool) {
	var childKey []int
	var calls []AggCall
	for _, k := range keys {
		if k < len(group) {
			childKey = append(childKey, group[k])
		} else {
			calls = append(calls, aggs[k-len(group)])
		}
	}
	ndv, ok := distinctRowCount(in, childKey)
	if !ok {
		return 0, false
	}
	inRows := rowCount(in)
	for _, c := range calls {
		var v float64
		switch {
		case c.Func == "COUNT":
			if math.IsNaN(inRows) {
				return 0, false
			}
			v = math.Sqrt(2 * inRows)
		case len(c.Args) == 0:
			return 0, false
		default:
			a, ok := distinctRowCount(in, c.Args)
			if !ok {
				return 0, false
			}
			v = a * 0.1
		}
		ndv *= math.Max(v, 1)
	}
	if math.IsNaN(inRows) {
		return ndv, true
	}
	return math.Min(ndv, inRows), true
}

// isEquiConjunct reports a conjunct `left field = right field` of a join
// whose left input has nl fields (JoinInfo's equi part).
func isEquiConjunct(e Expr, nl int) bool {
	c, ok := e.(*Call)
	if !ok || c.Op != "=" || len(c.Args) != 2 {
		return false
	}
	a, ok1 := c.Args[0].(*InputRef)
	b, ok2 := c.Args[1].(*InputRef)
	return ok1 && ok2 && (a.Index < nl) != (b.Index < nl)
}

// batchUniqueKeys are the column sets a batch physical node's rows are
// unique on as far as the join estimates need them
// (FlinkRelMdColumnUniqueness): a scan's primary key, an aggregate's
// group fields, through Calcs that keep them and Exchanges.
func batchUniqueKeys(n Node) [][]int {
	switch n := n.(type) {
	case *TableSourceScan:
		if pk := scanPK(n.Table, n.Names()); len(pk) > 0 && len(pk) == len(n.Table.Schema.PrimaryKey) {
			return [][]int{pk}
		}
	case *Exchange:
		return batchUniqueKeys(n.input())
	case *Calc:
		return projectKeys(batchUniqueKeys(n.input()), n.Exprs)
	case *FinalAggregate:
		return [][]int{firstN(len(n.Group))}
	case *GroupAggregate:
		return [][]int{firstN(len(n.Group))}
	}
	return nil
}

func firstN(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// limitCount is FlinkRelMdRowCount's estimate of a Sort with an offset
// and fetch: the input's rows after the offset, at most fetch. Over an
// input whose estimate sqlrun leaves unknown (a SEMI or ANTI join), that
// is the fetch: Flink's estimate of a join of sources without statistics
// is far above any fetch (BroadcastJoinHintTest.testJoinHintWithJoinHintInCorrelateAndWithSortLimit
// broadcasts the SortLimit over a join).
func limitCount(in float64, offset, fetch int64) float64 {
	if math.IsNaN(in) {
		if fetch >= 0 {
			return float64(fetch)
		}
		return in
	}
	n := math.Max(in-float64(offset), 0)
	if fetch >= 0 {
		n = math.Min(n, float64(fetch))
	}
	return n
}

// groupCount: one row without grouping, else a tenth of the input per
// RelMdUtil.getRowCount's guess for unknown distinct counts.
func groupCount(in float64, groups int) float64 {
	if groups == 0 {
		return 1
	}
	return in * 0.1
}

// selectivity is SelectivityEstimator's default for a condition over
// columns without statistics: 0.15 for =, 0.5 for a comparison, 0.1 for
// IS NULL, 0.9 for IS NOT NULL, 0.05 for LIKE, 0.25 otherwise; AND
// multiplies, OR adds (minus the overlap), NOT complements.
func selectivity(e Expr) float64 {
	c, ok := e.(*Call)
	if !ok {
		if isTrueLiteral(e) {
			return 1
		}
		if isFalseLiteral(e) {
			return 0
		}
		return 0.25
	}
	switch c.Op {
	case "AND":
		s := 1.0
		for _, a := range c.Args {
			s *= selectivity(a)
		}
		return s
	case "OR":
		s := 0.0
		for _, a := range c.Args {
			t := selectivity(a)
			s = s + t - s*t
		}
		return s
	case "NOT":
		return 1 - selectivity(c.Args[0])
	case "=":
		return 0.15
	case "<>":
		return 0.85
	case "<", "<=", ">", ">=":
		return 0.5
	case "IS NULL":
		return 0.1
	case "IS NOT NULL":
		return 0.9
	case "LIKE":
		return 0.05
	}
	return 0.25
}

// batchJoinDigest is BatchPhysicalHashJoin / SortMergeJoin /
// NestedLoopJoin's explainTerms.
func (n *Join) batchJoinDigest(f Format) string {
	both := uniquify(append(append([]string(nil), n.inputs[0].Names()...), n.inputs[1].Names()...))
	s := n.Strategy + "(joinType=[" + joinTypeName(n.JoinType) + "], where=[" + FormatExpr(n.Cond, both, f) +
		"], select=[" + strings.Join(n.names, ", ") + "]"
	switch n.Strategy {
	case StrategyHash:
		if n.Broadcast {
			s += ", isBroadcast=[true]"
		}
		s += ", build=[" + buildSide(n.LeftIsBuild) + "]"
		if n.TryDistinctBuildRow {
			s += ", tryDistinctBuildRow=[true]"
		}
	case StrategyNestedLoop:
		s += ", build=[" + buildSide(n.LeftIsBuild) + "]"
		if n.SingleRow {
			s += ", singleRowJoin=[true]"
		}
	}
	return s + ")"
}

// isSingleRowJoin is BatchPhysicalSingleRowJoinRule.matches (without a
// valid join hint).
func isSingleRowJoin(kind ast.JoinKind, left, right Node) bool {
	switch kind {
	case ast.InnerJoin, ast.CrossJoin, ast.FullJoin:
		return isSingleRow(left) || isSingleRow(right)
	case ast.RightJoin:
		return isSingleRow(left)
	}
	return isSingleRow(right) // LEFT, SEMI, ANTI
}

// isSingleRow is BatchPhysicalSingleRowJoinRule.isSingleRow: an aggregate
// without grouping, under any Calcs (the scalar subquery a join reads,
// bindScalarSubqueries).
func isSingleRow(n Node) bool {
	switch x := n.(type) {
	case *Calc:
		return isSingleRow(x.input())
	case *FinalAggregate:
		return len(x.Group) == 0
	case *GroupAggregate:
		return len(x.Group) == 0
	}
	return false
}

func buildSide(left bool) string {
	if left {
		return "left"
	}
	return "right"
}
