package plan

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
)

// OVER windows and ranks in batch mode, as Flink 1.20's batch planner
// plans them:
//
//   - FlinkLogicalRankRuleForConstantRange (FlinkBatchRuleSets) makes a
//     rank only of RANK() with a constant range (rk <= N, rk = N, BETWEEN):
//     BatchPhysicalRankRule plans it as a global Rank over a Sort on the
//     partition and order keys over a hash (single without keys) Exchange
//     over a local Rank (range 1 to the end, no number) over the same Sort
//     (RankTest.testRankValueFilterWithUpperValue);
//   - ROW_NUMBER() and DENSE_RANK(), filtered or not, and RANK() without a
//     constant range stay window calls: an OverAggregate (window#0=[...])
//     over the same Sort over the Exchange, and the filter a Calc above it
//     (RankTest.testRankWithAnotherRankAsInput,
//     OverAggregateTest.testDenseRankOnOrder);
//   - an OVER aggregate is that OverAggregate too (BatchPhysicalOverAggregateRule),
//     over any order key and frame (ROWS or RANGE, PRECEDING, CURRENT ROW,
//     FOLLOWING).
//
// At run time both sort a bounded input by those keys at its end
// (operators.BatchOver); a Rank's range, or a filter of the Calc above an
// OverAggregate that bounds its ranking numbers (RankEnd), bounds the
// rows kept per partition (operators.BatchTopN), and the local Rank
// passes on only those its task's rows rank within the range.

// batchRankable reports a window projection whose ranking call Flink's
// batch planner makes a Rank: RANK() only.
func batchRankable(exprs []Expr) bool {
	for _, e := range exprs {
		if o, ok := e.(*OverCall); ok && o.Func != "RANK" {
			return false
		}
	}
	return true
}

// BatchOverAggregate is Flink's BatchPhysicalOverAggregate of one window
// group: the input's fields, then one field per call.
type BatchOverAggregate struct {
	base
	Partition []int
	Order     []SortKey
	Frame     OverFrame
	Aggs      []AggCall
}

// BatchRank is Flink's BatchPhysicalRank: local (Global false: rows
// ranked up to End, no number) or global.
type BatchRank struct {
	base
	Func         string
	Partition    []int
	Order        []SortKey
	Start, End   int64
	OutputNumber bool
	Global       bool
}

func (*BatchOverAggregate) Name() string { return "OverAggregate" }
func (*BatchRank) Name() string          { return "Rank" }

func (n *BatchOverAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *BatchRank) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// batchOverCallText is a call as RelExplainUtil.overAggregationToString
// prints it in a batch window: RANK(*), COUNT(*), $SUM0(a).
func batchOverCallText(a AggCall, in []string) string {
	if isRankingFunc(a.Func) {
		return a.Func + "(*)"
	}
	fn := a.Func
	if fn == "SUM" {
		// Calcite's $SUM0 under the CASE(COUNT > 0) SqlToRelConverter
		// wraps it in.
		fn = "$SUM0"
	}
	d := ""
	if a.Distinct {
		d = "DISTINCT "
	}
	return fn + "(" + d + overArgsText(a, in) + ")"
}

func (n *BatchOverAggregate) describe(Format) string {
	in := n.input().Names()
	s := "OverAggregate("
	if len(n.Partition) > 0 {
		s += "partitionBy=[" + names(in, n.Partition) + "], "
	}
	if len(n.Order) > 0 {
		s += "orderBy=[" + orderText(n.Order, in) + "], "
	}
	// Flink's OverAggregateUtil.splitOutOffsetOrInsensitiveGroup splits a
	// window's calls into runs of one class: the calls that allow a frame,
	// and those of each operator class that allows none (SqlRankFunction:
	// the ranking calls, CUME_DIST, PERCENT_RANK; SqlLeadLagAggFunction:
	// LEAD, LAG), in the calls' order (OverAggregateTest
	// .testDiffPartitionKeysWithDiffOrderKeys1: window#0=[COUNT(a) AS
	// w0$o0, $SUM0(a) AS w0$o1 ...], window#1=[RANK(*) AS w0$o2 ...]).
	var groups [][]string
	last := ""
	for i, a := range n.Aggs {
		t := batchOverCallText(a, in) + " AS " + n.names[len(in)+i]
		k := "framing"
		switch {
		case isOffsetFunc(a.Func):
			k = "offset"
		case !allowsFraming(a.Func):
			k = "rank"
		}
		if k != last || len(groups) == 0 {
			groups = append(groups, nil)
			last = k
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], t)
	}
	w := 0
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		s += "window#" + strconv.Itoa(w) + "=[" + strings.Join(g, ", ") + n.Frame.physicalText() + "], "
		w++
	}
	return s + "select=[" + strings.Join(n.names, ", ") + "])"
}

func (n *BatchRank) describe(Format) string {
	in := n.input().Names()
	return "Rank(rankType=[" + n.Func + "], rankRange=[rankStart=" + strconv.FormatInt(n.Start, 10) +
		", rankEnd=" + strconv.FormatInt(n.End, 10) + "], partitionBy=[" + names(in, n.Partition) +
		"], orderBy=[" + orderText(n.Order, in) + "], global=[" + strconv.FormatBool(n.Global) +
		"], select=[" + strings.Join(n.names, ", ") + "])"
}

// partitionSortOrder is the collation Flink requires of a batch window's
// or rank's input: the partition keys ascending, then the order keys
// (a key already there is not repeated: RankTest.testRankFunctionInMiddle,
// Sort(orderBy=[a ASC]) for PARTITION BY a ORDER BY a).
func partitionSortOrder(partition []int, order []SortKey) []SortKey {
	seen := map[int]bool{}
	var out []SortKey
	for _, p := range partition {
		if !seen[p] {
			seen[p] = true
			out = append(out, SortKey{Field: p, NullsFirst: true})
		}
	}
	for _, k := range order {
		if !seen[k.Field] {
			seen[k.Field] = true
			out = append(out, k)
		}
	}
	return out
}

// sortedExchange is in hash-distributed on partition (single without) and
// sorted as partitionSortOrder says.
func sortedExchange(in Node, partition []int, order []SortKey) Node {
	var n Node = &Exchange{base: sameRow(in), Keys: append([]int(nil), partition...), Single: len(partition) == 0}
	if o := partitionSortOrder(partition, order); len(o) > 0 {
		n = &Sort{base: sameRow(n), Order: o}
	}
	return n
}

// convertBatchOver is BatchPhysicalOverAggregateRule.
func (b *binder) convertBatchOver(r *LogicalOverAggregate) (Node, error) {
	for _, a := range r.Aggs {
		if a.Distinct {
			return nil, sql.Errorf(sql.TableException, "sqlrun does not support %s(DISTINCT ...) OVER in batch mode yet", a.Func)
		}
	}
	if err := checkBatchWindowFuncs(r.Aggs); err != nil {
		return nil, err
	}
	f := r.Frame
	if !f.Rows && len(r.Order) != 1 && (f.Lower.Kind == "PRECEDING" || f.Lower.Kind == "FOLLOWING" ||
		f.Upper.Kind == "PRECEDING" || f.Upper.Kind == "FOLLOWING") {
		return nil, sql.Errorf(sql.ValidationException, "RANGE clause cannot be used with compound ORDER BY clause")
	}
	in, err := b.convert(r.input())
	if err != nil {
		return nil, err
	}
	return &BatchOverAggregate{base: row(r.names, r.types, sortedExchange(in, r.Partition, r.Order)),
		Partition: r.Partition, Order: r.Order, Frame: r.Frame, Aggs: r.Aggs}, nil
}

// convertBatchRank is BatchPhysicalRankRule: global Rank, Sort, Exchange,
// local Rank (ranks 1 to End), Sort.
func (b *binder) convertBatchRank(r *LogicalRank) (Node, error) {
	in, err := b.convert(r.input())
	if err != nil {
		return nil, err
	}
	var below Node = in
	if o := partitionSortOrder(r.Partition, r.Order); len(o) > 0 {
		below = &Sort{base: sameRow(in), Order: o}
	}
	local := &BatchRank{base: sameRow(below), Func: r.Func, Partition: r.Partition, Order: r.Order,
		Start: 1, End: r.End}
	return &BatchRank{base: row(r.names, r.types, sortedExchange(local, r.Partition, r.Order)), Func: r.Func,
		Partition: r.Partition, Order: r.Order, Start: r.Start, End: r.End, OutputNumber: r.OutputNumber, Global: true}, nil
}

// RankEnd is the constant upper bound a filter puts on the rank number in
// field w: the least end of its top-level conjuncts that compare w with an
// integer literal (w = N, w <= N, w < N, BETWEEN's w <= N), false when
// none does.
func RankEnd(cond Expr, w int) (int64, bool) {
	if cond == nil {
		return 0, false
	}
	start, end := int64(1), noEnd
	for _, c := range conjuncts(cond) {
		if castsRef(c, w) {
			// A narrowing CAST of the number may wrap: no bound.
			continue
		}
		if !rankBound(c, w, &start, &end) {
			if v, ok := sargEnd(c, w); ok {
				end = minEnd(end, v)
			}
		}
	}
	return end, end != noEnd
}

// castsRef reports a comparison c whose operand is a CAST of field w.
func castsRef(c Expr, w int) bool {
	call, ok := c.(*Call)
	if !ok {
		return false
	}
	for _, a := range call.Args {
		if x, ok := a.(*Call); ok && x.Op == "CAST" && len(x.Args) == 1 {
			if ref, ok := x.Args[0].(*InputRef); ok && ref.Index == w {
				return true
			}
		}
	}
	return false
}

// sargEnd is the largest integer SEARCH(w, Sarg[...]) accepts (BETWEEN
// and IN on w after SimplifyFilter), false when c is not one or has no
// upper bound.
func sargEnd(c Expr, w int) (int64, bool) {
	call, ok := c.(*Call)
	if !ok || call.Op != "SEARCH" || len(call.Args) != 2 {
		return 0, false
	}
	if ref, ok := call.Args[0].(*InputRef); !ok || ref.Index != w {
		return 0, false
	}
	lit, ok := call.Args[1].(*Literal)
	if !ok {
		return 0, false
	}
	sarg, ok := lit.Value.(*expr.Sarg)
	if !ok || len(sarg.Ranges) == 0 {
		return 0, false
	}
	hi := sarg.Ranges[len(sarg.Ranges)-1].Hi
	if hi.Unbounded {
		return 0, false
	}
	v, ok := toInt(hi.Value)
	if !ok {
		return 0, false
	}
	if !hi.Closed {
		v--
	}
	return v, true
}
