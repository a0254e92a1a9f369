package plan

import (
	"slices"
	"sort"
	"strconv"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
)

// PartialFinal is an aggregate's part in a split distinct aggregation
// (Flink's PartialFinalType): none, the PARTIAL aggregate that groups by
// the hash buckets too, or the FINAL one that merges its results.
type PartialFinal uint8

// The parts of a split aggregation.
const (
	NotSplit PartialFinal = iota
	Partial
	Final
)

// term is how EXPLAIN prints the part (StreamPhysicalGroupAggregateBase's
// partialFinalType=[...]); empty for an aggregate that is not split.
func (p PartialFinal) term() string {
	switch p {
	case Partial:
		return "partialFinalType=[PARTIAL], "
	case Final:
		return "partialFinalType=[FINAL], "
	}
	return ""
}

// splitFuncs is SplitAggregateRule.PARTIAL_FINAL_MAP: each aggregate
// function the rule splits, with the functions of its partial and of its
// final calls (AVG is a $SUM0 and a COUNT, merged by a Calc above).
// SINGLE_VALUE, also in Flink's map, is not a sqlrun aggregate. A
// LISTAGG's final call joins the partial strings with ',' (it reads only
// the partial result, as Flink's final call does).
var splitFuncs = map[string][2][]string{
	"AVG":         {{"$SUM0", "COUNT"}, {"$SUM0", "$SUM0"}},
	"COUNT":       {{"COUNT"}, {"$SUM0"}},
	"MIN":         {{"MIN"}, {"MIN"}},
	"MAX":         {{"MAX"}, {"MAX"}},
	"SUM":         {{"SUM"}, {"SUM"}},
	"$SUM0":       {{"$SUM0"}, {"$SUM0"}},
	"FIRST_VALUE": {{"FIRST_VALUE"}, {"FIRST_VALUE"}},
	"LAST_VALUE":  {{"LAST_VALUE"}, {"LAST_VALUE"}},
	"LISTAGG":     {{"LISTAGG"}, {"LISTAGG"}},
}

// splitNeedsHash is SplitAggregateRule.needAddHashFields: a DISTINCT call,
// and MIN, MAX, FIRST_VALUE and LAST_VALUE (which would otherwise gather
// a group's retractions on one task), group by the hash buckets of their
// arguments.
func splitNeedsHash(a AggCall) bool {
	switch a.Func {
	case "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE":
		return true
	}
	return a.Distinct
}

// splitAggregate is Flink's SplitAggregateRule (LOGICAL_REWRITE, streaming
// only), on under table.optimizer.distinct-agg.split.enabled: an aggregate
// with a DISTINCT call becomes a PARTIAL aggregate that also groups by
// MOD(HASH_CODE(x), table.optimizer.distinct-agg.split.bucket-num) of the
// DISTINCT (and MIN/MAX/FIRST_VALUE/LAST_VALUE) arguments, under a FINAL
// aggregate over the original group keys that merges the partial results
// (COUNT's partial counts by $SUM0, SUM by SUM, MIN by MIN, ...). Calls
// that group by different buckets read an Expand of the input, one copy
// per grouping, each call filtered to its copy ($g_<id> = $e = <id>, ANDed
// with its own FILTER). The result is the same as the one aggregate's: a
// DISTINCT value lies in one bucket, so the per-bucket distinct counts add
// up, and every other call reads each input row once. A window TVF
// aggregate on event time splits the same way: both aggregates group by
// window_start and window_end, and the final one becomes a window
// aggregate over the partial one's window columns (convertWindowAggregate
// and convertAggregateOnWindows). Aggregates with a call the rule has
// no partial/final pair for keep one aggregate.
func splitAggregate(b *binder, n Node) (Node, error) {
	agg, ok := n.(*LogicalAggregate)
	if !ok || !b.streaming || agg.PartialFinal != NotSplit || agg.Sets != nil {
		return nil, nil
	}
	if ok, err := splits(b, agg); err != nil || !ok {
		return nil, err
	}
	buckets, err := config.Int(b.config, config.KeyDistinctAggBuckets)
	if err != nil {
		return nil, err
	}
	in := agg.input()
	nIn := len(in.Names())
	isGroup := map[int]bool{}
	for _, g := range agg.Group {
		isGroup[g] = true
	}

	// STEP 1: the hash fields, MOD(HASH_CODE(x), buckets) of each argument
	// of a call that needs them, in field order, after the input's fields.
	var hashOf []int
	for _, a := range agg.Aggs {
		if splitNeedsHash(a) {
			for _, x := range a.Args {
				if !isGroup[x] && !slices.Contains(hashOf, x) {
					hashOf = append(hashOf, x)
				}
			}
		}
	}
	sort.Ints(hashOf)
	cur := in
	hashAt := map[int]int{}
	if len(hashOf) > 0 {
		exprs := identity(in.Types())
		names := append([]string(nil), in.Names()...)
		types := append([]sql.DataType(nil), in.Types()...)
		intT := sql.Int().NotNull()
		for i, x := range hashOf {
			hash := &Call{Op: "HASH_CODE", Args: []Expr{materialized(in, x)}, T: intT}
			mod := &Call{Op: "MOD", Args: []Expr{hash, &Literal{Value: int32(buckets), T: intT}}, T: intT}
			exprs = append(exprs, mod)
			names = append(names, "$f"+strconv.Itoa(nIn+i))
			types = append(types, intT)
			hashAt[x] = nIn + i
		}
		cur = &LogicalCalc{base: row(uniquify(names), types, in), Exprs: exprs}
	}

	// STEP 2: the grouping of each call, in Calcite's ImmutableBitSet
	// ORDERING (a set before its subsets, else lexicographic).
	groupSet := func(a AggCall) []int {
		set := append([]int(nil), agg.Group...)
		if splitNeedsHash(a) {
			for _, x := range a.Args {
				if h, ok := hashAt[x]; ok {
					x = h
				}
				if !slices.Contains(set, x) {
					set = append(set, x)
				}
			}
		}
		sort.Ints(set)
		return set
	}
	var sets [][]int
	indexOf := func(set []int) int {
		for i, s := range sets {
			if slices.Equal(s, set) {
				return i
			}
		}
		return -1
	}
	newSets := 0
	callSet := make([][]int, len(agg.Aggs))
	for i, a := range agg.Aggs {
		set := groupSet(a)
		if indexOf(set) < 0 {
			if splitNeedsHash(a) {
				newSets++
			}
			sets = append(sets, set)
		}
		callSet[i] = set
	}
	sort.SliceStable(sets, func(i, j int) bool { return bitSetLess(sets[i], sets[j]) })
	var full []int
	for _, s := range sets {
		for _, x := range s {
			if !slices.Contains(full, x) {
				full = append(full, x)
			}
		}
	}
	sort.Ints(full)

	// STEP 2.1: the partial calls, each original call's partial functions
	// over its arguments.
	var partial []AggCall
	var partialSet [][]int
	for i, a := range agg.Aggs {
		for _, fn := range splitFuncs[a.Func][0] {
			c := AggCall{Func: fn, Distinct: a.Distinct, Args: a.Args, Filtered: a.Filtered, Filter: a.Filter, Unnamed: true}
			c.T = splitPartialType(fn, a, cur.Types())
			partial = append(partial, c)
			partialSet = append(partialSet, callSet[i])
		}
	}

	// STEP 2.2: with more than one grouping, an Expand with a copy of each
	// row per grouping ($e, ExpandUtil.genExpandId), and a Calc with each
	// call's filter column $g_<id>.
	if newSets > 1 {
		cur, partial = splitExpand(cur, full, sets, partial, partialSet)
	}

	// STEP 2.3: the partial aggregate, grouped by every grouping's fields.
	pNames, pTypes := make([]string, 0, len(full)+len(partial)), make([]sql.DataType, 0, len(full)+len(partial))
	for _, g := range full {
		pNames = append(pNames, cur.Names()[g])
		pTypes = append(pTypes, cur.Types()[g])
	}
	for _, c := range partial {
		pTypes = append(pTypes, c.T)
	}
	pNames = aggCallNames(pNames, len(partial))
	for i := range partial {
		partial[i].Name = pNames[len(full)+i]
	}
	if c, ok := cur.(*LogicalCalc); ok {
		// RelTimeIndicatorConverter (TIME_INDICATOR, after this rule)
		// materializes a time attribute a partial call reads in the Calc
		// below it (WindowAggregateTest.testTumble_DistinctOnWindowColumns:
		// CAST(window_time) AS window_time).
		exprs := append([]Expr(nil), c.Exprs...)
		changed := false
		for _, a := range partial {
			for _, x := range a.Args {
				if x < nIn && timeAttribute(in, x) != "" {
					if _, done := exprs[x].(*Call); !done {
						exprs[x] = materialized(in, x)
						changed = true
					}
				}
			}
		}
		if changed {
			cp := *c
			cp.Exprs = exprs
			cur = &cp
		}
	}
	partialAgg := &LogicalAggregate{base: row(pNames, pTypes, cur), Group: full, Aggs: partial, PartialFinal: Partial}

	// STEP 3: the final aggregate over the partial one, grouped by the
	// original keys, each call over its partial call's field.
	group := make([]int, len(agg.Group))
	for i, g := range agg.Group {
		group[i] = slices.Index(full, g)
	}
	var final []AggCall
	fNames, fTypes := []string{}, []sql.DataType{}
	for _, g := range group {
		fNames = append(fNames, pNames[g])
		fTypes = append(fTypes, pTypes[g])
	}
	x := len(full)
	merge := false
	for _, a := range agg.Aggs {
		fns := splitFuncs[a.Func][1]
		merge = merge || len(fns) > 1
		for _, fn := range fns {
			c := AggCall{Func: fn, Args: []int{x}, T: pTypes[x], Unnamed: true}
			if fn == "$SUM0" {
				c.T = c.T.WithNullable(false)
			}
			final = append(final, c)
			fTypes = append(fTypes, c.T)
			x++
		}
	}
	fNames = aggCallNames(fNames, len(final))
	for i := range final {
		final[i].Name = fNames[len(group)+i]
	}
	var out Node = &LogicalAggregate{base: row(fNames, fTypes, partialAgg), Group: group, Aggs: final, PartialFinal: Final}

	// STEP 4: AVG's sum and count become IF(count = 0, NULL, sum / count).
	if merge {
		exprs := make([]Expr, 0, len(agg.names))
		names := make([]string, 0, len(agg.names))
		for i := range group {
			exprs = append(exprs, &InputRef{Index: i, T: fTypes[i]})
			names = append(names, fNames[i])
		}
		at := len(group)
		for _, a := range agg.Aggs {
			pos := len(exprs)
			if a.Func != "AVG" {
				exprs = append(exprs, &InputRef{Index: at, T: fTypes[at]})
				names = append(names, fNames[at])
				at++
				continue
			}
			sum := &InputRef{Index: at, T: fTypes[at]}
			cnt := &InputRef{Index: at + 1, T: fTypes[at+1]}
			at += 2
			zero := &Call{Op: "=", Args: []Expr{cnt, &Literal{Value: int64(0), T: sql.BigInt().NotNull()}}, T: sql.Boolean().NotNull()}
			divT := arithmeticType("/", sum.T, cnt.T)
			div := &Call{Op: "/", Args: []Expr{sum, cnt}, T: divT}
			var e Expr = &Call{Op: "IF", Args: []Expr{zero, &Literal{T: divT.WithNullable(true)}, div}, T: divT.WithNullable(true)}
			if divT.Root != a.T.Root || divT.Precision != a.T.Precision || divT.Scale != a.T.Scale {
				// relBuilder.convert to the original row type.
				e = castExpr(e, a.T.WithNullable(true))
			}
			exprs = append(exprs, e)
			names = append(names, "$f"+strconv.Itoa(pos))
		}
		out = &LogicalCalc{base: row(uniquify(names), exprTypes(exprs), out), Exprs: exprs}
	}
	return out, nil
}

// splits reports an aggregate SplitAggregateRule.matches: the split is
// on, a call is DISTINCT, every call has a partial/final pair, and it is
// no window aggregate the rule leaves alone (splittableWindow).
func splits(b *binder, agg *LogicalAggregate) (bool, error) {
	on, err := config.Bool(b.config, config.KeyDistinctAggSplit)
	if err != nil || !on || !b.streaming {
		return false, err
	}
	distinct := false
	for _, a := range agg.Aggs {
		if _, ok := splitFuncs[a.Func]; !ok {
			return false, nil
		}
		distinct = distinct || a.Distinct
	}
	if !distinct {
		return false, nil
	}
	if tvf := windowTVFBelow(agg); tvf != nil && !splittableWindow(agg, tvf) {
		return false, nil
	}
	return true, nil
}

// materialized is field x of in, cast to a plain TIMESTAMP when it is a
// time attribute (RelTimeIndicatorConverter's materialization of an
// attribute a function or an aggregate call reads: HASH_CODE(CAST(window_time))).
func materialized(in Node, x int) Expr {
	ref := &InputRef{Index: x, T: in.Types()[x]}
	if timeAttribute(in, x) == "" {
		return ref
	}
	return &Call{Op: "CAST", Args: []Expr{ref}, T: ref.T}
}

// splitPartialType is the type of a partial call fn made of a: COUNT's
// BIGINT NOT NULL, $SUM0's sum type NOT NULL, else the original call's
// type, nullable when the call reads only some rows.
func splitPartialType(fn string, a AggCall, in []sql.DataType) sql.DataType {
	switch fn {
	case "COUNT":
		return sql.BigInt().NotNull()
	case "$SUM0":
		return aggResultType("SUM", in[a.Args[0]]).WithNullable(false)
	}
	return a.T
}

// splitExpand builds SplitAggregateRule's Expand over in (ExpandUtil.
// buildExpandNode: a projection per grouping, the fields of the full
// grouping outside it NULL, and its id as $e) and the Calc above it that
// turns $e into each call's filter column, and remaps the calls to it.
func splitExpand(in Node, full []int, sets [][]int, calls []AggCall, callSet [][]int) (Node, []AggCall) {
	n := len(in.Names())
	common := map[int]bool{}
	for _, f := range full {
		common[f] = true
		for _, s := range sets {
			if !slices.Contains(s, f) {
				common[f] = false
			}
		}
	}
	types := append([]sql.DataType(nil), in.Types()...)
	for _, f := range full {
		if !common[f] {
			types[f] = types[f].WithNullable(true)
		}
	}
	eT := sql.BigInt().NotNull()
	types = append(types, eT)
	// ExpandUtil.buildExpandNode names the expand id by
	// RowTypeUtils.getUniqueName: $e_0 when the input has a $e (the
	// Expand of grouping sets below,
	// WindowAggregateTest.testTumble_GroupingSetsDistinctSplitEnabled).
	names := append(append([]string(nil), in.Names()...), uniqueName("$e", in.Names()))
	projects := make([][]Expr, len(sets))
	for i, s := range sets {
		p := make([]Expr, 0, n+1)
		for f := 0; f < n; f++ {
			if slices.Contains(full, f) && !slices.Contains(s, f) {
				p = append(p, &Literal{T: types[f]})
				continue
			}
			p = append(p, &InputRef{Index: f, T: types[f]})
		}
		projects[i] = append(p, &Literal{Value: expandID(full, s), T: eT})
	}
	ex := &LogicalExpand{base: row(names, types, in), Projects: projects}

	exprs := identity(types[:n])
	cnames := append([]string(nil), names[:n]...)
	eRef := &InputRef{Index: n, T: eT}
	type key struct {
		set    string
		filter int
	}
	cols := map[key]int{}
	out := make([]AggCall, len(calls))
	for i, c := range calls {
		old := -1
		if c.Filtered {
			old = c.Filter
		}
		id := expandID(full, callSet[i])
		k := key{strconv.FormatInt(id, 10), old}
		col, ok := cols[k]
		if !ok {
			// relBuilder.literal(expandId) is an INTEGER literal (Calcite's
			// makeExactLiteral of a value that fits): =($e, 2).
			var cond Expr = &Call{Op: "=", Args: []Expr{eRef, &Literal{Value: int32(id), T: sql.Int().NotNull()}}, T: sql.Boolean().NotNull()}
			if old >= 0 {
				cond = and([]Expr{cond, &InputRef{Index: old, T: types[old]}})
			}
			col = len(exprs)
			exprs = append(exprs, cond)
			cnames = append(cnames, "$g_"+strconv.FormatInt(id, 10))
			cols[k] = col
		}
		c.Filtered, c.Filter = true, col
		out[i] = c
	}
	calc := &LogicalCalc{base: row(uniquify(cnames), exprTypes(exprs), ex), Exprs: exprs}
	return calc, out
}

// expandID is ExpandUtil.genExpandId: over the fields of the full
// grouping, most significant first, a 1 bit for each field the grouping
// set leaves out.
func expandID(full, set []int) int64 {
	var v int64
	bit := int64(1) << (len(full) - 1)
	for _, f := range full {
		if !slices.Contains(set, f) {
			v |= bit
		}
		bit >>= 1
	}
	return v
}

// bitSetLess is Calcite's ImmutableBitSet.COMPARATOR over sorted sets: a
// set before the sets it contains, else lexicographically.
func bitSetLess(a, b []int) bool {
	contains := func(x, y []int) bool {
		for _, f := range y {
			if !slices.Contains(x, f) {
				return false
			}
		}
		return true
	}
	switch {
	case slices.Equal(a, b):
		return false
	case contains(a, b):
		return true
	case contains(b, a):
		return false
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// aggCallNames appends the names Calcite's Aggregate.deriveRowType gives
// n unnamed calls after the group fields: $f<position>, with _0, _1, ...
// added while the name is taken.
func aggCallNames(group []string, n int) []string {
	out := append([]string(nil), group...)
	taken := map[string]bool{}
	for _, g := range group {
		taken[g] = true
	}
	for i := 0; i < n; i++ {
		base := "$f" + strconv.Itoa(len(group)+i)
		name := base
		for k := 0; taken[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		taken[name] = true
		out = append(out, name)
	}
	return out
}

// windowTVFBelow is the window table function an aggregate reads
// (directly or through a Calc), nil when it reads none.
func windowTVFBelow(agg *LogicalAggregate) *LogicalWindowTableFunction {
	in := agg.input()
	switch c := in.(type) {
	case *LogicalCalc:
		in = c.input()
	case *LogicalProject:
		in = c.input()
	}
	tvf, _ := in.(*LogicalWindowTableFunction)
	return tvf
}

// splittableWindow reports an aggregate over a window table function that
// SplitAggregateRule splits: a window TVF aggregate (grouped by
// window_start and window_end) on event time. Flink's rule leaves a
// processing-time window aggregate alone (its two aggregates would each
// materialize processing time: WindowAggregateTest.
// testTumble_DoNotSplitProcessingTimeWindow). sqlrun also keeps one
// aggregate for a SESSION window (whose split Flink plans as regular
// aggregates over the session table function) and a legacy group window
// (GROUP BY TUMBLE(...), Flink's FlinkLogicalWindowAggregate, which the
// rule does not match). An aggregate over the table function that is no
// window aggregate splits as any other.
func splittableWindow(agg *LogicalAggregate, tvf *LogicalWindowTableFunction) bool {
	if tvf.Window.Legacy || tvf.Window.Func == "SESSION" {
		return false
	}
	nIn := len(tvf.input().Names())
	var start, end bool
	for _, g := range agg.Group {
		x := g
		var exprs []Expr
		switch c := agg.input().(type) {
		case *LogicalCalc:
			exprs = c.Exprs
		case *LogicalProject:
			exprs = c.Exprs
		}
		if exprs != nil {
			ref, isRef := exprs[g].(*InputRef)
			if !isRef {
				continue
			}
			x = ref.Index
		}
		start = start || x == nIn
		end = end || x == nIn+1
	}
	return !(start && end && tvf.Window.ProcTime)
}
