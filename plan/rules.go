package plan

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Rule is one named rewrite of the optimizer. The rules run in the order
// of rules below, each in one top-down pass over the whole tree: the
// logical ones over the logical tree, then the tree is converted into
// physical nodes (convert, Flink's PHYSICAL program), then the physical
// ones. Changelog inference (changelog.go) follows.
type Rule struct {
	// Name is sqlrun's name for the rule (its golden is
	// testdata/rules/<Name>).
	Name string
	// Program is the FlinkStreamProgram phase Flink applies it in, and
	// Flink the Flink / Calcite rules it stands for.
	Program, Flink string
	// Physical rules run over the physical tree.
	Physical bool
	// apply rewrites n when the rule matches it; nil, nil when it does not.
	apply func(b *binder, n Node) (Node, error)
}

// rules are the optimizer's rewrites in the order Flink's programs
// (FlinkStreamProgram, FlinkStreamRuleSets) apply the rules they stand for.
var rules = []Rule{
	{Name: "DecomposeGroupingSets", Program: "LOGICAL_REWRITE",
		Flink: "DecomposeGroupingSetsRule (groupingsets.go; run first here, so that no other rule sees grouping sets)",
		apply: decomposeGroupingSets},
	{Name: "LookupJoin", Program: "TEMPORAL_JOIN_REWRITE",
		Flink: "LogicalCorrelateToJoinFromTemporalTableRule (lookup join, lookup.go)",
		apply: lookupJoinRule},
	{Name: "TimeTravel", Program: "TEMPORAL_JOIN_REWRITE",
		Flink: "a time-travel LogicalSnapshot (constant period, FLIP-308) is its scan: Flink 1.20's TimeTravelTest plans have no Snapshot node (timetravel.go)",
		apply: timeTravel},
	{Name: "WindowProjectMerge", Program: "DEFAULT_REWRITE",
		Flink: "FlinkProjectMergeRule, which DEFAULT_REWRITE_RULES apply before CoreRules.PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW: a projection holding OVER calls merges with a projection of fields below it (over.go: projectMergeBeforeWindow)",
		apply: projectMergeBeforeWindow},
	{Name: "Rank", Program: "PROJECT_TO_WINDOW, LOGICAL",
		Flink: "CoreRules.PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW, FlinkLogicalRankRule (constant rank range)",
		apply: rankRule},
	{Name: "OverAggregate", Program: "PROJECT_TO_WINDOW, LOGICAL",
		Flink: "CoreRules.PROJECT_TO_LOGICAL_PROJECT_AND_WINDOW, FlinkLogicalOverAggregateConverter",
		apply: overRule},
	{Name: "RewriteSetOpAll", Program: "LOGICAL (run here before CalcMerge, which makes Calcs of the projections it builds)",
		Flink: "RewriteIntersectAllRule, RewriteMinusAllRule: INTERSECT ALL / EXCEPT ALL as a marked UNION ALL, an aggregate counting each side's copies, a filter and a Correlate of ReplicateRows (setopall.go)",
		apply: rewriteSetOpAll},
	{Name: "Unnest", Program: "DEFAULT_REWRITE",
		Flink: "LogicalUnnestRule: an UNNEST's Uncollect under a LogicalCorrelate becomes a table function scan of $UNNEST_ROWS$1 (unnest.go)",
		apply: unnestRule},
	{Name: "CalcMerge", Program: "DEFAULT_REWRITE .. LOGICAL",
		Flink: "CoreRules.FILTER_MERGE, FlinkFilterProjectTransposeRule, FlinkProjectMergeRule, FILTER_TO_CALC, PROJECT_TO_CALC, FlinkCalcMergeRule",
		apply: calcMerge},
	{Name: "FilterCorrelate", Program: "DECORRELATE (RelDecorrelator.decorrelateQuery's pre-pass; here over the merged Calc)",
		Flink: "CoreRules.FILTER_CORRELATE: a WHERE's conjuncts over the left side go below an UNNEST correlate, those over the unnested fields into its condition (unnest.go)",
		apply: filterCorrelate},
	{Name: "LookupJoinPushDown", Program: "PREDICATE_PUSHDOWN, PROJECT_REWRITE",
		Flink: "FlinkFilterJoinRule, FlinkProjectJoinTransposeRule over a temporal join (lookup.go)",
		apply: lookupPushDown},
	{Name: "RankProjectTranspose", Program: "LOGICAL, LOGICAL_REWRITE",
		Flink: "ProjectRankTransposeRule, RankNumberColumnRemoveRule",
		apply: rankProjectTranspose},
	{Name: "AggregateConstantKeys", Program: "DEFAULT_REWRITE",
		Flink: "CoreRules.AGGREGATE_PROJECT_PULL_UP_CONSTANTS (with the field trimming of PROJECT_RULES)",
		apply: aggregateConstantKeys},
	{Name: "PruneEmpty", Program: "DEFAULT_REWRITE, PREDICATE_PUSHDOWN",
		Flink: "PruneEmptyRules.SORT_FETCH_ZERO_INSTANCE, ReduceExpressionsRule.FILTER (always-false filter to empty Values)",
		apply: pruneEmpty},
	{Name: "AggregateValues", Program: "LOGICAL, then REDUCE_EXPRESSION_RULES",
		Flink: "CoreRules.AGGREGATE_REDUCE_FUNCTIONS, CoreRules.AGGREGATE_VALUES (a global aggregate over an always-empty input)",
		apply: aggregateValues},
	{Name: "UnionTranspose", Program: "PREDICATE_PUSHDOWN, PROJECT_REWRITE",
		Flink: "CoreRules.FILTER_SET_OP_TRANSPOSE, CoreRules.PROJECT_SET_OP_TRANSPOSE",
		apply: unionTranspose},
	{Name: "JoinPushDown", Program: "PREDICATE_PUSHDOWN, PROJECT_REWRITE",
		Flink: "FlinkFilterJoinRule.FILTER_INTO_JOIN / JOIN_CONDITION_PUSH (with RelOptUtil.simplifyJoin), CoreRules.JOIN_PUSH_EXPRESSIONS, FlinkProjectJoinTransposeRule",
		apply: joinPushDown},
	{Name: "FilterAggregateTranspose", Program: "PREDICATE_PUSHDOWN",
		Flink: "CoreRules.FILTER_AGGREGATE_TRANSPOSE",
		apply: filterAggregateTranspose},
	{Name: "JoinReduceConstants", Program: "PREDICATE_PUSHDOWN",
		Flink: "ReduceExpressionsRule.JOIN_INSTANCE and PROJECT_INSTANCE with RelMdPredicates of an inner join's inputs' filters",
		apply: joinReduceConstants},
	{Name: "PruneEmptyJoin", Program: "PREDICATE_PUSHDOWN",
		Flink: "PruneEmptyRules.JOIN_LEFT_INSTANCE, FlinkPruneEmptyRules.JOIN_RIGHT_INSTANCE (with ReduceExpressionsRule.FILTER's always-false filter; ReduceExpressionsRule.JOIN's condition made FALSE by the inputs' constants; PROJECT_INSTANCE above)",
		apply: pruneEmptyJoin},
	{Name: "PruneEmptyAggregate", Program: "PREDICATE_PUSHDOWN",
		Flink: "PruneEmptyRules.AGGREGATE_INSTANCE (an aggregate with a GROUP BY key over an input that yields no row), with PROJECT_INSTANCE, CALC_INSTANCE, SORT_INSTANCE and the join rules above it, as Flink's HepPlanner applies them to a fixpoint",
		apply: pruneEmptyAggregate},
	{Name: "FilterIntoScan", Program: "PREDICATE_PUSHDOWN",
		Flink: "PushFilterIntoTableSourceScanRule",
		apply: filterIntoScan},
	{Name: "ProjectWindowTableFunctionTranspose", Program: "PROJECT_REWRITE",
		Flink: "ProjectWindowTableFunctionTransposeRule (PROJECT_RULES)",
		apply: projectWindowTableFunctionTranspose},
	{Name: "ProjectWatermarkAssignerTranspose", Program: "LOGICAL",
		Flink: "ProjectWatermarkAssignerTransposeRule (PROJECT_RULES)",
		apply: projectWatermarkTranspose},
	{Name: "ProjectIntoScan", Program: "LOGICAL",
		Flink: "PushProjectIntoTableSourceScanRule",
		apply: projectIntoScan},
	{Name: "SortProjectTranspose", Program: "LOGICAL",
		Flink: "CoreRules.SORT_PROJECT_TRANSPOSE",
		apply: sortProjectTranspose},
	{Name: "LimitIntoScan", Program: "LOGICAL",
		Flink: "PushLimitIntoTableSourceScanRule",
		apply: limitIntoScan},
	{Name: "AggregateRemove", Program: "LOGICAL",
		Flink: "FlinkAggregateRemoveRule",
		apply: aggregateRemove},
	{Name: "AggregateProjectMerge", Program: "LOGICAL",
		Flink: "FlinkAggregateProjectMergeRule",
		apply: aggregateProjectMerge},
	{Name: "PruneAggregateCall", Program: "LOGICAL",
		Flink: "PruneAggregateCallRule.CALC_ON_AGGREGATE, and WindowPropertiesRules' properties only where read (groupwindow.go)",
		apply: pruneAggregateCall},
	{Name: "AggregateReduceFunctions", Program: "LOGICAL",
		Flink: "CoreRules.AGGREGATE_REDUCE_FUNCTIONS, kept where FlinkLogicalAggregate's cost is lower (aggreduce.go)",
		apply: aggregateReduceFunctions},
	{Name: "WatermarkIntoScan", Program: "LOGICAL_REWRITE",
		Flink: "PushWatermarkIntoTableSourceScanRule, PushWatermarkIntoTableSourceScanAcrossCalcRule, then FlinkCalcMergeRule (watermark.go)",
		apply: watermarkIntoScan},
	{Name: "FilterInCalcIntoScan", Program: "LOGICAL_REWRITE",
		Flink: "PushFilterInCalcIntoTableSourceScanRule, over a scan a watermark went into (watermark.go)",
		apply: filterInCalcIntoScan},
	{Name: "SplitAggregate", Program: "LOGICAL_REWRITE",
		Flink: "SplitAggregateRule (table.optimizer.distinct-agg.split.enabled, splitagg.go)",
		apply: splitAggregate},
	{Name: "WatermarkAssignerChangelogNormalizeTranspose", Program: "PHYSICAL_REWRITE (watermark transpose)", Physical: true,
		Flink: "WatermarkAssignerChangelogNormalizeTransposeRule.WITH_CALC, WITHOUT_CALC (WATERMARK_TRANSPOSE_RULES, watermarktranspose.go)",
		apply: watermarkChangelogNormalizeTranspose},
	{Name: "PushCalcPastChangelogNormalize", Program: "PHYSICAL_REWRITE", Physical: true,
		Flink: "PushCalcPastChangelogNormalizeRule (CHANGELOG_NORMALIZE_TRANSPOSE_RULES)",
		apply: pushCalcPastChangelogNormalize},
}

// optimize runs the rules over a bound statement and returns its physical
// plan. trace, when set, sees the tree before and after every rule (and
// the conversion, named "convert").
func (b *binder) optimize(root Node, trace func(step string, before, after Node)) (Node, error) {
	n := root
	converted := false
	for _, r := range rules {
		if r.Physical && !converted {
			p, err := b.convert(n)
			if err != nil {
				return nil, err
			}
			if err := refuseWindowTVFConsumers(p); err != nil {
				return nil, err
			}
			if trace != nil {
				trace("convert", n, p)
			}
			n, converted = p, true
		}
		out, err := b.applyRule(r, n)
		if err != nil {
			return nil, err
		}
		if trace != nil {
			trace(r.Name, n, out)
		}
		n = out
	}
	return n, nil
}

// applyRule applies r to n, then to the inputs of the result, top down.
func (b *binder) applyRule(r Rule, n Node) (Node, error) {
	out, err := r.apply(b, n)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = n
	}
	ins := out.Inputs()
	var changed []Node
	for i, in := range ins {
		c, err := b.applyRule(r, in)
		if err != nil {
			return nil, err
		}
		if c != in {
			if changed == nil {
				changed = append([]Node(nil), ins...)
			}
			changed[i] = c
		}
	}
	if changed != nil {
		out = out.WithInputs(changed...)
	}
	return out, nil
}

// calcMerge collapses a LogicalProject / LogicalFilter chain into one
// LogicalCalc over the chain's input: projections inlined, conditions
// ANDed, lower ones first.
func calcMerge(_ *binder, n Node) (Node, error) {
	switch n.(type) {
	case *LogicalProject, *LogicalFilter:
	default:
		return nil, nil
	}
	exprs, cond, in := flattenCalc(n)
	projected := false
	for r := n; ; r = r.input() {
		if _, ok := r.(*LogicalProject); ok {
			projected = true
		} else if _, ok := r.(*LogicalFilter); !ok {
			break
		}
	}
	return &LogicalCalc{base: row(n.Names(), exprTypes(exprs), in), Exprs: exprs, Cond: cond, projected: projected}, nil
}

// flattenCalc merges a chain of LogicalProject/LogicalFilter into one
// projection and condition over the chain's base input.
func flattenCalc(r Node) ([]Expr, Expr, Node) {
	switch r := r.(type) {
	case *LogicalProject:
		exprs, cond, base := flattenCalc(r.input())
		if exprs == nil {
			return r.Exprs, cond, base
		}
		if duplicatesNonDeterministic(exprs, false, r.Exprs...) {
			return r.Exprs, nil, r.input()
		}
		out := make([]Expr, len(r.Exprs))
		for i, e := range r.Exprs {
			out[i] = inline(e, exprs)
		}
		return out, cond, base
	case *LogicalFilter:
		exprs, cond, base := flattenCalc(r.input())
		if exprs != nil && duplicatesNonDeterministic(exprs, true, r.Cond) {
			return identity(r.Types()), r.Cond, r.input()
		}
		c := r.Cond
		if exprs != nil {
			c = inline(c, exprs)
		}
		if cond != nil {
			c = and(append(conjuncts(cond), conjuncts(c)...))
		}
		if exprs == nil {
			exprs = identity(r.Types())
		}
		return exprs, c, base
	}
	return nil, nil, r
}

func exprTypes(exprs []Expr) []sql.DataType {
	types := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	return types
}

// mergeCalc merges c into a LogicalCalc below it, if there is one.
func mergeCalc(c *LogicalCalc) *LogicalCalc {
	below, ok := c.input().(*LogicalCalc)
	if !ok || duplicatesNonDeterministic(below.Exprs, false, append([]Expr{c.Cond}, c.Exprs...)...) {
		return c
	}
	exprs := make([]Expr, len(c.Exprs))
	for i, e := range c.Exprs {
		exprs[i] = inline(e, below.Exprs)
	}
	cond := below.Cond
	if c.Cond != nil {
		upper := inline(c.Cond, below.Exprs)
		if cond == nil {
			cond = upper
		} else {
			cond = and(append(conjuncts(cond), conjuncts(upper)...))
		}
	}
	return &LogicalCalc{base: row(c.names, exprTypes(exprs), below.input()), Exprs: exprs, Cond: cond}
}

// pruneEmpty turns LIMIT 0 and an always-false condition into empty
// Values of the same row type.
func pruneEmpty(_ *binder, n Node) (Node, error) {
	switch x := n.(type) {
	case *LogicalSort:
		if x.Fetch == 0 {
			return emptyValues(x), nil
		}
	case *LogicalCalc:
		// ReduceExpressionsRule.FILTER reduces the condition with
		// RexSimplify in UNKNOWN-as-FALSE mode, ranges that cannot hold
		// (k > 4 AND k < 2) included, and an always-false filter is empty.
		if x.Cond != nil && isFalseLiteral(simplifyFilter(fold(x.Cond))) {
			return emptyValues(x), nil
		}
		// The rules run top down: a Calc over a LIMIT 0 is empty too
		// (PruneEmptyRules.PROJECT_INSTANCE, CALC_INSTANCE;
		// SortLimitTest.testSortRowTimeFirstDescWithLimit0, where the
		// ORDER BY column is not selected).
		if s, ok := x.input().(*LogicalSort); ok && s.Fetch == 0 || isEmptyRel(x.input()) {
			return emptyValues(x), nil
		}
	}
	return nil, nil
}

// emptyValues is Flink's Values(tuples=[[]]) with r's row type.
func emptyValues(r Node) *LogicalValues {
	return &LogicalValues{base: row(r.Names(), r.Types()), Rows: [][]Expr{}}
}

// unionTranspose pushes a Calc over a UNION ALL into each of its inputs:
// each branch gets its own Calc (merged with the branch's own), and the
// Union carries the Calc's names. It applies when every branch has the
// union's types, so no cast is lost.
func unionTranspose(_ *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	u, ok := c.input().(*LogicalUnion)
	if !ok || !u.All {
		return nil, nil
	}
	if trivialCalc(c) {
		// A Calc that only renames the union's fields (VALUES ... AS
		// T(a, b)) is gone before it could move: ProjectRemoveRule drops
		// a trivial projection whatever its names, so the union keeps
		// its own (ValuesTest.testMultiRows: union=[EXPR$0, EXPR$1]).
		return nil, nil
	}
	for _, in := range u.inputs {
		if len(in.Types()) != len(u.types) {
			return nil, nil
		}
	}
	ins := make([]Node, len(u.inputs))
	for i, in := range u.inputs {
		// An input whose field types differ from the union's (a type or
		// only a nullability) reads them through a CAST to the union's
		// type, as Flink's plans show after ProjectSetOpTransposeRule
		// (ChangelogModeInferenceTest.testGroupByWithUnion:
		// CAST(cnt AS BIGINT) of a NOT NULL COUNT in one branch).
		exprs, cond := c.Exprs, c.Cond
		below := make([]Expr, len(u.types))
		cast := false
		for j, t := range in.Types() {
			below[j] = &InputRef{Index: j, T: t}
			if !t.Equal(u.types[j]) {
				below[j] = &Call{Op: "CAST", Args: []Expr{below[j]}, T: u.types[j]}
				cast = true
			}
		}
		if cast {
			exprs = make([]Expr, len(c.Exprs))
			for j, e := range c.Exprs {
				exprs[j] = inline(e, below)
			}
			if cond != nil {
				cond = inline(cond, below)
			}
		}
		branch := mergeCalc(&LogicalCalc{base: row(c.names, c.types, in), Exprs: exprs, Cond: cond})
		ins[i] = branch
		if e, _ := pruneEmpty(nil, branch); e != nil {
			ins[i] = e
		}
	}
	return &LogicalUnion{base: row(c.names, c.types, ins...), All: true}, nil
}

// joinPushDown plans a Calc over a join (or a join alone) as Flink's rules
// leave it: the fields each side needs are projected below the join,
// filter conjuncts that read one side of an inner join go below it,
// conjuncts over both sides join its condition (so an equality becomes
// the join key instead of a filter over a cross join), a WHERE that
// rejects an outer side's nulls narrows the join, and the rest stays in
// the Calc above.
func joinPushDown(_ *binder, n Node) (Node, error) {
	var join *LogicalJoin
	var exprs []Expr
	var cond Expr
	switch x := n.(type) {
	case *LogicalCalc:
		j, ok := x.input().(*LogicalJoin)
		if !ok || j.pushed {
			return nil, nil
		}
		join, exprs, cond = j, x.Exprs, x.Cond
	case *LogicalJoin:
		if x.pushed {
			return nil, nil
		}
		join, exprs = x, identity(x.types)
	default:
		return nil, nil
	}
	names := n.Names()
	nl := len(join.inputs[0].Names())
	// No filter moves into, through or out of an event-time temporal join
	// (eventTimeTemporal): the WHERE stays above it, the ON in it, and the
	// outer join is not simplified; the projections still move below it.
	eventTime := eventTimeTemporal(join.Cond)
	kind := join.JoinType
	if !eventTime {
		kind = simplifyOuterJoin(join.JoinType, cond, nl)
	}
	inner := kind == ast.InnerJoin || kind == ast.CrossJoin
	if inner {
		kind = ast.InnerJoin
	}
	if cond != nil {
		// The WHERE's field = literal conjuncts fix those fields in the
		// projection above (ReduceExpressionsRule.PROJECT with the
		// filter's predicates, before the filter moves into the join):
		// a field read only for such a conjunct is then no longer read
		// above the join, which does not output it (FlinkProjectJoinTransposeRule
		// after the reduction; JoinHintTestBase's
		// testJoinHintWithoutAffectingJoinInViewWhileRootOfViewIsFilter).
		exprs = substituteConstants(exprs, cond)
	}
	used := map[int]bool{}
	for _, e := range exprs {
		refs(e, used)
	}
	refs(join.Cond, used)
	var leftConds, rightConds, rest []Expr
	joinCond := join.Cond
	if (inner || isSemiAnti(kind)) && !eventTime {
		var jc []Expr
		for _, c := range conjuncts(join.Cond) {
			if c == nil || isTrueLiteral(c) {
				continue
			}
			// An inner join's ON conjunct over one input goes below it
			// (FilterJoinRule.JOIN_CONDITION_PUSH). Of a semi join's, both
			// sides' do, of an anti join's only the right side's (Calcite's
			// JoinRelType.canPushLeftFromWithin / canPushRightFromWithin:
			// a left row an anti join's condition rejects is kept;
			// SemiAntiJoinTest.testExistsAndNotExists filters t below the
			// LeftAntiJoin, testNotExistsWithCorrelated_NonEquiCondition2
			// keeps (a < 10) in it).
			r := map[int]bool{}
			refs(c, r)
			onlyLeft, onlyRight := len(r) > 0, len(r) > 0
			for f := range r {
				onlyLeft = onlyLeft && f < nl
				onlyRight = onlyRight && f >= nl
			}
			switch {
			case onlyLeft && kind != antiJoin:
				leftConds = append(leftConds, c)
			case onlyRight && !(kind == antiJoin && isRef(c)):
				rightConds = append(rightConds, c)
			default:
				// (The $f0 an uncorrelated NOT EXISTS's anti join reads
				// stays in it: SemiAntiJoinTest.testExistsAndNotExists,
				// where=[$f0].)
				jc = append(jc, c)
			}
		}
		joinCond = and(jc)
		if !inner {
			// What went below is read there, not by the join.
			used = map[int]bool{}
			for _, e := range exprs {
				refs(e, used)
			}
			for _, c := range jc {
				refs(c, used)
			}
		}
	}
	if (kind == ast.LeftJoin || kind == ast.RightJoin) && !eventTime {
		var pushed []Expr
		joinCond, pushed = pushOnIntoPaddedSide(join, kind, nl)
		if len(pushed) > 0 {
			if kind == ast.LeftJoin {
				rightConds = append(rightConds, pushed...)
			} else {
				leftConds = append(leftConds, pushed...)
			}
			used = map[int]bool{}
			for _, e := range exprs {
				refs(e, used)
			}
			refs(joinCond, used)
		}
	}
	if cond != nil {
		for _, c := range conjuncts(cond) {
			r := map[int]bool{}
			refs(c, r)
			onlyLeft, onlyRight := len(r) > 0, len(r) > 0
			for f := range r {
				onlyLeft = onlyLeft && f < nl
				onlyRight = onlyRight && f >= nl
			}
			switch {
			case eventTime:
				rest = append(rest, c)
				refs(c, used)
			case (inner || isSemiAnti(kind) || kind == ast.LeftJoin) && onlyLeft:
				// A semi or anti join keeps or drops whole left rows, so a
				// filter on them goes below it as below an inner join; so
				// does a filter on the side an outer join does not pad
				// (FilterJoinRule: JoinRelType.canPushLeftFromAbove).
				leftConds = append(leftConds, c)
			case (inner || kind == ast.RightJoin) && onlyRight:
				rightConds = append(rightConds, c)
			case inner && len(r) > 0:
				if joinCond == nil {
					joinCond = c
				} else {
					joinCond = and(append(conjuncts(joinCond), c))
				}
				refs(c, used)
			default:
				rest = append(rest, c)
				refs(c, used)
			}
		}
	}
	if inner && joinCond != nil && !eventTime {
		// An inner join's OR conditions imply a filter on each side
		// (JoinDependentConditionDerivationRule); the side's own
		// conjuncts go below the join with the rest.
		joinCond = dropTrueTerms(joinCond)
		l, r := dependentConditions(joinCond, nl)
		leftConds = append(leftConds, l...)
		rightConds = append(rightConds, r...)
		leftConds, rightConds = transitiveConditions(joinCond, leftConds, rightConds, nl, len(join.inputs[1].Names()))
	}
	if (kind == ast.LeftJoin || kind == ast.RightJoin) && joinCond != nil && !eventTime {
		leftConds, rightConds = paddedSideConditions(join, kind, joinCond, leftConds, rightConds, nl)
	}
	lin, rin, jtypes := join.inputs[0], join.inputs[1], join.types
	width := nl + len(rin.Names()) // the condition's row: both inputs
	joinCond, err := coerceJoinConditionSides(joinCond, nl)
	if err != nil {
		return nil, err
	}
	if pc, le, re := pushJoinExpressions(joinCond, nl, len(rin.Names())); len(le)+len(re) > 0 {
		// The ON's equality operands over one input are computed below
		// it: the inputs grow by those expressions (after the left's
		// fields, the right's fields move up by len(le)).
		sh := map[int]int{}
		for i := 0; i < width; i++ {
			sh[i] = i
			if i >= nl {
				sh[i] = i + len(le)
			}
		}
		exprs, rest, rightConds = remapAll(exprs, sh), remapAll(rest, sh), remapAll(rightConds, sh)
		used = map[int]bool{}
		for _, e := range exprs {
			refs(e, used)
		}
		for _, c := range rest {
			refs(c, used)
		}
		refs(pc, used)
		if !inner {
			// An outer join's conjuncts stay in the condition.
			for _, c := range conjuncts(join.Cond) {
				// The conjunct as coerceJoinCondition typed it: e = i
				// over BIGINT and INT compares CAST(i AS BIGINT), pushed
				// below as i0, so i is not read at the join
				// (SemiAntiJoinTest.testInWithUncorrelated_JoinInSubQuery).
				if cc, err := coerceJoinConditionSides(c, nl); err == nil {
					c = cc
				}
				if !hasPushableOperand(c, nl, width-nl) {
					refs(remap(c, sh), used)
				}
			}
		}
		joinCond = pc
		jtypes = withPushedTypes(join, le, re, nl)
		lin, rin = withExprs(lin, le), withExprs(rin, re)
		nl += len(le)
		width = nl + len(rin.Names())
	}
	if joinCond == nil {
		joinCond = &Literal{Value: true, T: sql.Boolean().NotNull()}
	}
	var lf, rf []int
	for i := 0; i < width; i++ {
		if !used[i] {
			continue
		}
		if i < nl {
			lf = append(lf, i)
		} else {
			rf = append(rf, i-nl)
		}
	}
	if len(lf) == 0 {
		lf = []int{0}
	}
	if bareJoin(n) && isSemiAnti(kind) && len(rf) == 0 {
		// No projection above a semi or anti join (another join reads
		// it whole, and RelBuilder makes no identity projection):
		// Flink's ProjectSemiAntiJoinTransposeRule, which prunes its
		// right input, needs one, so that input stays as the subquery's
		// rewrite made it: a correlated one's projects what the
		// condition reads (as rf does), an uncorrelated EXISTS's is true
		// AS $f0 (SemiAntiJoinTest.testMultiExistsWithUncorrelated: the
		// inner EXISTS's right input keeps it, the outer's, under the
		// query's projection, selects nothing).
		rf = rf[:0]
		for i := nl; i < width; i++ {
			rf = append(rf, i-nl)
		}
	}
	if len(rf) == 0 && width > nl && !isSemiAnti(kind) {
		// A semi or anti join whose condition reads no right field
		// projects its right input to no field at all
		// (SemiAntiJoinTest.testExistsWithCorrelated_NonEquiCondition2:
		// Calc(select=[]) under where=[true]), as an uncorrelated EXISTS's
		// right input has none.
		rf = []int{0}
	}
	m := map[int]int{}
	for i, f := range lf {
		m[f] = i
	}
	for i, f := range rf {
		m[f+nl] = len(lf) + i
	}
	shift := map[int]int{}
	for i := nl; i < width; i++ {
		shift[i] = i - nl
	}
	var rc Expr
	if len(rightConds) > 0 {
		shifted := make([]Expr, len(rightConds))
		for i, c := range rightConds {
			shifted[i] = remap(c, shift)
		}
		rc = and(shifted)
	}
	left := joinSide(lin, lf, and(leftConds))
	right := joinSide(rin, rf, rc)
	// A side grown by pushJoinExpressions is projected as its input was.
	for _, s := range [][2]Node{{lin, join.inputs[0]}, {rin, join.inputs[1]}} {
		if s[0] != s[1] {
			_, projected := s[1].(*LogicalCalc)
			side := left
			if s[1] == join.inputs[1] {
				side = right
			}
			side.fresh = !projected
		}
	}
	// RelBuilder makes no projection that selects its input whole: a
	// semi or anti join below keeps no Calc above it, and so keeps its
	// right input's fields (bare, above).
	var lside, rside Node = left, right
	for _, s := range []*Node{&lside, &rside} {
		c := (*s).(*LogicalCalc)
		if j, ok := c.input().(*LogicalJoin); ok && isSemiAnti(j.JoinType) && isIdentityCalc(c) {
			*s = j
		}
	}
	var types []sql.DataType
	for _, t := range left.types {
		types = append(types, t.WithNullable(t.Nullable || kind == ast.RightJoin || kind == ast.FullJoin))
	}
	jnames := append([]string(nil), left.names...)
	if !isSemiAnti(kind) { // a semi or anti join's row is its left input's
		for _, t := range right.types {
			types = append(types, t.WithNullable(t.Nullable || kind == ast.LeftJoin || kind == ast.FullJoin))
		}
		jnames = uniquify(append(jnames, right.names...))
	}
	j := &LogicalJoin{base: row(jnames, types, lside, rside), Cond: remap(joinCond, m), JoinType: kind, pushed: true,
		queryHints: join.queryHints, joinHints: join.joinHints}
	// Where narrowing an outer join made a field NOT NULL, the Calc reads
	// it through a CAST to the type it had (FlinkFilterJoinRule converts
	// the new join to the old row type with RelBuilder.convert).
	below := make([]Expr, width)
	for f, to := range m {
		if to >= len(j.types) {
			continue // a semi or anti join's right fields are not in its row
		}
		t := j.types[to]
		var e Expr = &InputRef{Index: to, T: t}
		if f < len(jtypes) && !jtypes[f].Equal(t) {
			e = &Call{Op: "CAST", Args: []Expr{e}, T: jtypes[f]}
		}
		below[f] = e
	}
	top := make([]Expr, len(exprs))
	for i, e := range exprs {
		top[i] = inline(e, below)
	}
	var topCond Expr
	if len(rest) > 0 {
		rc := make([]Expr, len(rest))
		for i, c := range rest {
			rc[i] = remap(c, m)
		}
		topCond = and(rc)
	}
	return &LogicalCalc{base: row(names, exprTypes(top), j), Exprs: top, Cond: topCond}, nil
}

// joinSide is one join input restricted to fields, with cond (over the
// input's own fields) applied below the join.
func joinSide(in Node, fields []int, cond Expr) *LogicalCalc {
	exprs := make([]Expr, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		exprs[i] = &InputRef{Index: f, T: in.Types()[f]}
		names[i] = in.Names()[f]
	}
	_, projected := in.(*LogicalCalc)
	return mergeCalc(&LogicalCalc{base: row(names, exprTypes(exprs), in), Exprs: exprs, Cond: cond, fresh: !projected})
}

// pushJoinExpressions is Calcite's JoinPushExpressionsRule
// (RelOptUtil.pushDownJoinConditions, in Flink's
// PREDICATE_SIMPLIFY_EXPRESSION_RULES): an operand of an = or IS NOT
// DISTINCT FROM conjunct of a join condition that is neither a field nor a
// literal (nor an OR or NOT) and reads one input only is computed by a
// projection below the join, so that a + 1 = d becomes the equi-join
// $f3 = d (ShuffledHashJoinTest.testInnerJoinWithNonEquiPred: a HashJoin,
// not a NestedLoopJoin). cond is over both inputs (nl and nr fields); the
// result is over the grown inputs, left's extra expressions (over its
// fields) after its fields, then the right's fields and its extra
// expressions (over the right's own fields).
func pushJoinExpressions(cond Expr, nl, nr int) (Expr, []Expr, []Expr) {
	if cond == nil {
		return nil, nil, nil
	}
	var le, re []Expr
	type slot struct {
		left bool
		i    int
	}
	var out []Expr
	pushedAt := map[*Call][2]*slot{}
	cs := conjuncts(cond)
	if whole, ok := cond.(*Call); ok && len(cs) == 1 && pushableOperand(whole) &&
		whole.Op != "=" && whole.Op != "IS NOT DISTINCT FROM" {
		// A condition that is one call other than =, AND, OR or NOT is
		// pushDownEqualJoinConditions' default case: when it reads one
		// input only, the whole of it is computed below the join
		// (SemiAntiJoinTest.testNotExistsWithCorrelated_NonEquiCondition2:
		// an anti join where=[$f3] over Calc(select=[a, b, c, (a < 10) AS
		// $f3])). Under an AND such a conjunct stays.
		switch left, right := exprSides(whole, nl); {
		case left && !right:
			return &InputRef{Index: nl, T: whole.Type()}, []Expr{whole}, nil
		case right && !left:
			sh := map[int]int{}
			r := map[int]bool{}
			refs(whole, r)
			for f := range r {
				sh[f] = f - nl
			}
			return &InputRef{Index: nl + nr, T: whole.Type()}, nil, []Expr{remap(whole, sh)}
		}
	}
	for _, c := range cs {
		call, ok := c.(*Call)
		if !ok || !hasPushableOperand(c, nl, nr) {
			continue
		}
		var at [2]*slot
		for k, a := range call.Args {
			left, right := exprSides(a, nl)
			switch {
			case !pushableOperand(a) || left == right:
			case left:
				le = append(le, a)
				at[k] = &slot{true, len(le) - 1}
			default:
				sh := map[int]int{}
				r := map[int]bool{}
				refs(a, r)
				for f := range r {
					sh[f] = f - nl
				}
				re = append(re, remap(a, sh))
				at[k] = &slot{false, len(re) - 1}
			}
		}
		pushedAt[call] = at
	}
	if len(le)+len(re) == 0 {
		return cond, nil, nil
	}
	sh := map[int]int{}
	for i := 0; i < nl+nr; i++ {
		sh[i] = i
		if i >= nl {
			sh[i] = i + len(le)
		}
	}
	for _, c := range cs {
		call, ok := c.(*Call)
		at, pushed := pushedAt[call]
		if !ok || !pushed {
			out = append(out, remap(c, sh))
			continue
		}
		args := make([]Expr, len(call.Args))
		for k, a := range call.Args {
			switch s := at[k]; {
			case s == nil:
				args[k] = remap(a, sh)
			case s.left:
				args[k] = &InputRef{Index: nl + s.i, T: a.Type()}
			default:
				args[k] = &InputRef{Index: nl + len(le) + nr + s.i, T: a.Type()}
			}
		}
		out = append(out, &Call{Op: call.Op, Args: args, T: call.T})
	}
	return and(out), le, re
}

// coerceJoinCondition is Flink's JoinConditionTypeCoerceRule: an
// equality of two fields of different types (nullability aside) compares
// both cast to their common type, so that a hash join's two sides hash
// equal values alike (then pushJoinExpressions computes the CAST below the
// join); fields without a common type (INT = STRING) fail as Flink fails
// (JoinTestBase.testJoinNonMatchingKeyTypes: TableException).
func coerceJoinCondition(cond Expr) (Expr, error) {
	return coerceJoinConditionSides(cond, -1)
}

// coerceJoinConditionSides is coerceJoinCondition on a join with nl left
// fields (nl < 0: fields only): it also coerces an equality whose operand
// pushJoinExpressions computes below the join (an expression over one
// input, the other operand reading the other input). Flink runs
// JoinPushExpressionsRule and JoinConditionTypeCoerceRule in one HEP
// program (FlinkStreamRuleSets / FlinkBatchRuleSets
// JOIN_PREDICATE_REWRITE_RULES) to a fixpoint, so b + 3 = k over BIGINT
// and INT becomes $f2 = k and then $f2 = CAST(k AS BIGINT); without the
// cast the two sides' keys are an int64 and an int32, which never match.
func coerceJoinConditionSides(cond Expr, nl int) (Expr, error) {
	if cond == nil {
		return nil, nil
	}
	cs := conjuncts(cond)
	changed := false
	for i, c := range cs {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" {
			continue
		}
		a, b := call.Args[0], call.Args[1]
		_, okA := a.(*InputRef)
		_, okB := b.(*InputRef)
		if (!okA || !okB) && nl >= 0 {
			// A pushed operand becomes a field of the input it reads.
			la, ra := exprSides(a, nl)
			lb, rb := exprSides(b, nl)
			okA = okA || pushableOperand(a) && la != ra
			okB = okB || pushableOperand(b) && lb != rb
			if okA && okB && la == lb {
				okA = false // both over one input: not a key
			}
		}
		if !okA || !okB || a.Type().WithNullable(true).Equal(b.Type().WithNullable(true)) {
			continue
		}
		t, ok := commonType(a.Type(), b.Type())
		if !ok {
			return nil, sql.Errorf(sql.TableException,
				"implicit type conversion between %s and %s is not supported on join's condition now",
				relTypeString(a.Type()), relTypeString(b.Type()))
		}
		ensure := func(r Expr) Expr {
			if r.Type().WithNullable(true).Equal(t.WithNullable(true)) {
				return r
			}
			return &Call{Op: "CAST", Args: []Expr{r}, T: t.WithNullable(r.Type().Nullable)}
		}
		cs[i] = &Call{Op: "=", Args: []Expr{ensure(a), ensure(b)}, T: call.T}
		changed = true
	}
	if !changed {
		return cond, nil
	}
	return and(cs), nil
}

// relTypeString is Calcite's RelDataType.toString: the digest without
// its character set and nullability (INTEGER, VARCHAR(2147483647)).
func relTypeString(t sql.DataType) string {
	return strings.TrimSuffix(calciteType(t.WithNullable(true)), ` CHARACTER SET "UTF-16LE"`)
}

// remapAll is remap over each of es, into a new slice.
func remapAll(es []Expr, m map[int]int) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = remap(e, m)
	}
	return out
}

// hasPushableOperand reports whether c is an = or IS NOT DISTINCT FROM
// with an operand JoinPushExpressionsRule computes below the join.
func hasPushableOperand(c Expr, nl, nr int) bool {
	call, ok := c.(*Call)
	if !ok || call.Op != "=" && call.Op != "IS NOT DISTINCT FROM" {
		return false
	}
	for _, a := range call.Args {
		if left, right := exprSides(a, nl); pushableOperand(a) && left != right {
			return true
		}
	}
	return false
}

// pushableOperand: not a field, literal, OR or NOT
// (RelOptUtil.pushDownEqualJoinConditions leaves those).
func pushableOperand(e Expr) bool {
	c, ok := e.(*Call)
	return ok && c.Op != "OR" && c.Op != "NOT"
}

// exprSides reports which inputs of a join (nl left fields) e reads.
func exprSides(e Expr, nl int) (left, right bool) {
	r := map[int]bool{}
	refs(e, r)
	for f := range r {
		if f < nl {
			left = true
		} else {
			right = true
		}
	}
	return left, right
}

// withExprs is in with extra computed fields after its own, named as
// Calcite's RelBuilder.project names the unnamed projections
// RelOptUtil.pushDownJoinConditions adds: inferAlias gives a field, or a
// CAST of one, that field's name, anything else $f<index>, and a name
// already taken gets the first free suffix 0, 1, ... (SqlValidatorUtil's
// F_SUGGESTER): CAST(i AS BIGINT) beside i is i0
// (SemiAntiJoinTest.testInWithUncorrelated_JoinInSubQuery).
func withExprs(in Node, extra []Expr) Node {
	if len(extra) == 0 {
		return in
	}
	exprs := identity(in.Types())
	names := append([]string(nil), in.Names()...)
	taken := map[string]bool{}
	for _, n := range names {
		taken[strings.ToLower(n)] = true
	}
	for _, e := range extra {
		name := inferAlias(e, in.Names())
		if name == "" || taken[strings.ToLower(name)] {
			base, j := name, 0
			if name == "" {
				base, j = "$f", len(exprs)
			}
			for name = base + strconv.Itoa(j); taken[strings.ToLower(name)]; j++ {
				name = base + strconv.Itoa(j+1)
			}
		}
		taken[strings.ToLower(name)] = true
		names = append(names, name)
		exprs = append(exprs, e)
	}
	return mergeCalc(&LogicalCalc{base: row(names, exprTypes(exprs), in), Exprs: exprs})
}

// inferAlias is RelBuilder.inferAlias: a field's name, through CASTs; ""
// for any other expression.
func inferAlias(e Expr, in []string) string {
	for {
		switch x := e.(type) {
		case *InputRef:
			if x.Index < len(in) {
				return in[x.Index]
			}
			return ""
		case *Call:
			if x.Op == "CAST" && len(x.Args) == 1 {
				e = x.Args[0]
				continue
			}
		}
		return ""
	}
}

// withPushedTypes is the row of join with the expressions
// pushJoinExpressions computes below it (le after the left's nl fields,
// re after the right's), nullable as the join type makes them.
func withPushedTypes(join *LogicalJoin, le, re []Expr, nl int) []sql.DataType {
	kind := join.JoinType
	out := append([]sql.DataType(nil), join.types[:nl]...)
	for _, e := range le {
		t := e.Type()
		out = append(out, t.WithNullable(t.Nullable || kind == ast.RightJoin || kind == ast.FullJoin))
	}
	if isSemiAnti(kind) {
		return out
	}
	out = append(out, join.types[nl:]...)
	for _, e := range re {
		t := e.Type()
		out = append(out, t.WithNullable(t.Nullable || kind == ast.LeftJoin || kind == ast.FullJoin))
	}
	return out
}

// scanBelow returns the Calc over an unpushed table scan that n is.
func scanBelow(n Node) (*LogicalCalc, *LogicalTableScan, bool) {
	c, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil, false
	}
	s, ok := c.input().(*LogicalTableScan)
	return c, s, ok
}

// filterIntoScan offers the Calc's condition to the source below it:
// sources in Flink's filter push-down print filter=[...] (the conjuncts
// they accept), and the Calc keeps evaluating the condition.
//
// With 'table.optimizer.source.predicate-pushdown-enabled' false no source
// is offered a filter (PushFilterIntoSourceScanRuleBase.matches), so no
// scan prints filter=[...].
func filterIntoScan(b *binder, n Node) (Node, error) {
	c, scan, ok := scanBelow(n)
	if !ok || c.Cond == nil || scan.FilterPushed {
		return nil, nil
	}
	if on, err := config.Bool(b.config, config.KeyPredicatePushdown); err == nil && !on {
		return nil, nil
	}
	out := *scan
	if fp, ok := scan.Table.Source.(connectors.FilterPushDownSource); ok && fp.FilterPushDown() {
		out.FilterPushed = true
	}
	if fd, ok := scan.Table.Source.(connectors.FilterDigestSource); ok && fd.AcceptsFilters() {
		var accepted []Expr
		for _, x := range conjuncts(c.Cond) {
			if pushableFilter(x) {
				accepted = append(accepted, x)
			}
		}
		if len(accepted) > 0 {
			parts := make([]string, len(accepted))
			for i, x := range accepted {
				parts[i] = FormatExpr(x, scan.names, FormatPrefix)
			}
			digest := parts[0]
			if len(parts) > 1 {
				digest = "and(" + strings.Join(parts, ", ") + ")"
			}
			out.FilterDigest, out.FilterPushed = digest, true
		}
	}
	if !out.FilterPushed {
		return nil, nil
	}
	return c.WithInputs(&out), nil
}

// scanFields are the scan fields a Calc over it needs, in Flink's order:
// with no condition, PushProjectIntoTableSourceScanRule takes the fields
// in the order the projection first uses them, then the primary key a
// normalize needs (pk, when cn); below a filter, Calcite's
// ProjectFilterTransposeRule has already made the projection the sorted
// set of the fields both use.
func scanFields(exprs []Expr, cond Expr, nfields int, pk []int, cn bool) []int {
	var fields []int
	if cond == nil {
		seen := map[int]bool{}
		for _, e := range exprs {
			refsInOrder(e, seen, &fields)
		}
		if cn {
			for _, k := range pk {
				if !seen[k] {
					seen[k] = true
					fields = append(fields, k)
				}
			}
		}
		return fields
	}
	used := map[int]bool{}
	for _, e := range exprs {
		refs(e, used)
	}
	refs(cond, used)
	if cn {
		for _, k := range pk {
			used[k] = true
		}
	}
	for i := 0; i < nfields; i++ {
		if used[i] {
			fields = append(fields, i)
		}
	}
	sort.Ints(fields)
	return fields
}

// projectIntoScan pushes the fields a Calc needs into a source that takes
// projections (keeping the primary key when a normalize follows),
// honouring 'enable-projection-push-down'. The projected scan reads a
// source of its own (binder.ownSource).
func projectIntoScan(b *binder, n Node) (Node, error) {
	c, scan, ok := scanBelow(n)
	if !ok || scan.Project != nil {
		return nil, nil
	}
	cn, err := b.needsNormalize(scan.Table)
	if err != nil {
		return nil, err
	}
	pk := scanPK(scan.Table, scan.names)
	fields := scanFields(c.Exprs, c.Cond, len(scan.names), pk, cn)
	if len(fields) == 0 {
		// A Calc that reads no field (COUNT(*)'s 0 AS $f0) still needs
		// the rows: Flink projects the first field.
		fields = []int{0}
	}
	if _, ok := projector(scan.Table.Source); !ok || len(fields) >= len(scan.names) {
		return nil, nil
	}
	if np := len(scan.Table.Schema.Columns); len(scan.Table.MetadataKeys) > 0 {
		// Metadata fields follow the physical ones, in key order.
		var ph, md []int
		for _, f := range fields {
			if f < np {
				ph = append(ph, f)
			} else {
				md = append(md, f)
			}
		}
		sort.Ints(md)
		fields = append(ph, md...)
	}
	// The scan may have several parents (a WITH query read twice): the
	// projected scan reads a source of its own (ownSource).
	own, err := b.ownSource(scan.Table)
	if err != nil {
		return nil, err
	}
	pp, ok := projector(own.Source)
	if !ok {
		return nil, nil
	}
	pp.ApplyProjection(fields)
	m := map[int]int{}
	ns := make([]string, len(fields))
	ts := make([]sql.DataType, len(fields))
	for i, f := range fields {
		m[f] = i
		ns[i], ts[i] = scan.names[f], scan.types[f]
	}
	out := *scan
	out.Table = own
	out.base = row(ns, ts)
	out.Project = fields
	exprs := make([]Expr, len(c.Exprs))
	for i, e := range c.Exprs {
		exprs[i] = remap(e, m)
	}
	var cond Expr
	if c.Cond != nil {
		cond = remap(c.Cond, m)
	}
	return &LogicalCalc{base: row(c.names, c.types, &out), Exprs: exprs, Cond: cond}, nil
}

// aggregateProjectMerge merges a Calc that only reorders a scan's fields
// into the aggregate above it. The group must stay in ascending order, as
// Calcite's group set keeps it (else the merge would need a projection on
// top, which Flink's plans then show).
func aggregateProjectMerge(b *binder, n Node) (Node, error) {
	agg, ok := n.(*LogicalAggregate)
	if !ok {
		return nil, nil
	}
	c, ok := agg.input().(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	if c.Cond != nil {
		return aggregateFilterMerge(agg, c), nil
	}
	// Over a scan or any other input (an aggregate's output, as in Flink's
	// TableSinkTest.testRetractSink2), a Calc that only permutes all the
	// input's fields under their own names merges into the aggregate.
	in := c.input()
	if len(c.Exprs) != len(in.Names()) {
		return nil, nil
	}
	if scan, ok := in.(*LogicalTableScan); ok {
		if cn, err := b.needsNormalize(scan.Table); err != nil || cn {
			return nil, nil
		}
	}
	m := make([]int, len(c.Exprs))
	seen := map[int]bool{}
	for i, e := range c.Exprs {
		ref, ok := e.(*InputRef)
		if !ok || seen[ref.Index] || c.names[i] != in.Names()[ref.Index] {
			return nil, nil
		}
		seen[ref.Index] = true
		m[i] = ref.Index
	}
	g := make([]int, len(agg.Group))
	for i, f := range agg.Group {
		g[i] = m[f]
		if i > 0 && g[i] <= g[i-1] {
			return nil, nil
		}
	}
	aggs := make([]AggCall, len(agg.Aggs))
	for i, a := range agg.Aggs {
		aggs[i] = a.remapped(func(f int) int { return m[f] })
	}
	return &LogicalAggregate{base: row(agg.names, agg.types, in), Group: g, Aggs: aggs}, nil
}

// aggregateFilterMerge is FlinkAggregateProjectMergeRule over the Project
// of a Project-over-Filter (a Calc with a condition): when every field the
// aggregate reads is a plain field of the Filter's input, the aggregate
// reads the Filter directly, whose Calc then selects only the fields its
// condition and the aggregate read (ProjectFilterTransposeRule narrowed
// the Filter's input to them). Flink's Volcano planner keeps the merged
// plan when it is the cheaper (CommonCalc's cost counts the program's
// expressions): when the projection computed something the aggregate does
// not read, such as the 0 Calcite projects for COUNT(*) (TableScanTest.
// testAggregateOnChangelogSource: COUNT(*) ... WHERE a > 1 reads
// Calc(select=[a], where=[>(a, 1)]), not Calc(select=[0 AS $f0], ...)).
// nil when it does not apply.
func aggregateFilterMerge(agg *LogicalAggregate, c *LogicalCalc) Node {
	if agg.Sets != nil || agg.PartialFinal != 0 {
		return nil
	}
	read := map[int]bool{}
	for _, f := range agg.Group {
		read[f] = true
	}
	for _, a := range agg.Aggs {
		for _, f := range a.fields() {
			read[f] = true
		}
	}
	needed := map[int]bool{}
	refs(c.Cond, needed)
	computes := false
	for i, e := range c.Exprs {
		ref, isRef := e.(*InputRef)
		if read[i] && !isRef {
			return nil
		}
		if !isRef {
			computes = true
		}
		if read[i] {
			needed[ref.Index] = true
		}
	}
	if !computes {
		return nil
	}
	var fields []int
	for f := range needed {
		fields = append(fields, f)
	}
	sort.Ints(fields)
	in := c.input()
	m := map[int]int{}
	exprs := make([]Expr, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		m[f] = i
		exprs[i] = &InputRef{Index: f, T: in.Types()[f]}
		names[i] = in.Names()[f]
	}
	pos := func(f int) int { return m[c.Exprs[f].(*InputRef).Index] }
	g := make([]int, len(agg.Group))
	for i, f := range agg.Group {
		g[i] = pos(f)
		if i > 0 && g[i] <= g[i-1] {
			// The group would need a projection on top to keep its order.
			return nil
		}
	}
	aggs := make([]AggCall, len(agg.Aggs))
	for i, a := range agg.Aggs {
		aggs[i] = a.remapped(pos)
	}
	calc := &LogicalCalc{base: row(names, exprTypes(exprs), in), Exprs: exprs, Cond: c.Cond}
	return &LogicalAggregate{base: row(agg.names, agg.types, calc), Group: g, Aggs: aggs}
}

// sortProjectTranspose moves a sort or limit below a Calc that only picks
// fields, so that the Calc reads the few rows the limit keeps: Flink's
// LimitTest and SortLimitTest plan SELECT a, c FROM t LIMIT 10 as
// Calc(select=[a, c]) over Limit over the scan. Over a scan, the Calc is
// one that took no projection (over a source that prunes its fields
// ProjectIntoScan has already removed it). Over any other input (a
// WatermarkAssigner that ProjectWatermarkAssignerTranspose has put a
// projection under), the sort must keep fewer rows than it reads (a
// fetch or an offset): CoreRules.SORT_PROJECT_TRANSPOSE offers both
// orders to Flink's LOGICAL Volcano program, and there a FlinkLogicalCalc
// costs its row count, which is the limit's above the FlinkLogicalSort
// (whose own cost is its output rows either way), so the Calc above the
// sort is the cheaper plan; a sort that keeps every row costs the same in
// both orders and stays where it is.
func sortProjectTranspose(_ *binder, n Node) (Node, error) {
	s, ok := n.(*LogicalSort)
	if !ok {
		return nil, nil
	}
	c, ok := s.input().(*LogicalCalc)
	if !ok || c.Cond != nil {
		return nil, nil
	}
	if _, overScan := c.input().(*LogicalTableScan); !overScan && s.Fetch < 0 && s.Offset <= 0 {
		return nil, nil
	}
	refs := make([]int, len(c.Exprs))
	for i, e := range c.Exprs {
		r, ok := e.(*InputRef)
		if !ok {
			return nil, nil
		}
		refs[i] = r.Index
	}
	order := make([]SortKey, len(s.Order))
	for i, k := range s.Order {
		k.Field = refs[k.Field]
		order[i] = k
	}
	below := &LogicalSort{base: sameRow(c.input()), Order: order, Offset: s.Offset, Fetch: s.Fetch}
	return &LogicalCalc{base: row(c.names, c.types, below), Exprs: c.Exprs}, nil
}

// limitIntoScan offers offset + fetch of a limit without ORDER BY right
// above a scan to its source (Flink's PushLimitIntoTableSourceScanRule:
// a Sort with no collation and a fetch, over a source that supports limit
// push-down and has none yet); the scan prints limit=[n] and the limit
// stays above it. The source is not told: the scans of a statement may
// share it (connectors.LimitPushDownSource).
func limitIntoScan(_ *binder, n Node) (Node, error) {
	s, ok := n.(*LogicalSort)
	if !ok || len(s.Order) > 0 || s.Fetch < 0 {
		return nil, nil
	}
	scan, ok := s.input().(*LogicalTableScan)
	if !ok || scan.Limit > 0 {
		return nil, nil
	}
	if lp, ok := scan.Table.Source.(connectors.LimitPushDownSource); !ok || !lp.LimitPushDown() {
		return nil, nil
	}
	out := *scan
	out.Limit = s.Offset + s.Fetch
	return s.WithInputs(&out), nil
}

// pushCalcPastChangelogNormalize moves the conjuncts of a Calc over
// ChangelogNormalize that read only the primary key below the normalize,
// with the projection when the source could not take it.
func pushCalcPastChangelogNormalize(b *binder, n Node) (Node, error) {
	calc, ok := n.(*Calc)
	if !ok {
		return nil, nil
	}
	cn, ok := calc.input().(*ChangelogNormalize)
	if !ok {
		return nil, nil
	}
	ex, ok := cn.input().(*Exchange)
	if !ok {
		return nil, nil
	}
	scan, ok := ex.input().(*TableSourceScan)
	if !ok {
		return pushCalcPastNormalizeOf(calc, cn, ex), nil
	}
	pk := pkIndexes(scan)
	low, high := splitOnKeys(calc.Cond, pk, false)
	fields := scanFields(calc.Exprs, calc.Cond, len(scan.names), pk, true)
	needProj := scan.Project == nil && len(fields) < len(scan.names)
	if len(low) == 0 && !needProj {
		return nil, nil
	}
	exprs := append([]Expr(nil), calc.Exprs...)
	if needProj {
		m := map[int]int{}
		for i, f := range fields {
			m[f] = i
		}
		for i := range exprs {
			exprs[i] = remap(exprs[i], m)
		}
		for i := range high {
			high[i] = remap(high[i], m)
		}
	}
	below := func(s *TableSourceScan) Node {
		var pe []Expr
		var pn []string
		if needProj {
			for _, f := range fields {
				pe = append(pe, &InputRef{Index: f, T: s.types[f]})
				pn = append(pn, s.names[f])
			}
		} else {
			pe, pn = identity(s.types), s.names
		}
		return newCalc(s, pe, and(low), pn)
	}
	top, err := b.finishScan(scan, below)
	if err != nil {
		return nil, err
	}
	return newCalc(top, exprs, and(high), calc.names), nil
}

// pushCalcPastNormalizeOf is PushCalcPastChangelogNormalizeRule over an
// Exchange whose input is not the scan (a WatermarkAssigner the
// WatermarkAssignerChangelogNormalizeTransposeRule moved below it): a Calc
// of the fields the Calc above reads and the normalize's keys, in input
// order, and the conjuncts that read only the keys, goes below the
// Exchange, which with the normalize is keyed by the keys' new positions;
// the Calc above keeps the rest (and goes when only the identity is
// left). Nil when there is nothing to push.
func pushCalcPastNormalizeOf(calc *Calc, cn *ChangelogNormalize, ex *Exchange) Node {
	in := ex.input()
	low, high := splitOnKeys(calc.Cond, cn.Keys, true)
	used := map[int]bool{}
	for _, e := range calc.Exprs {
		refs(e, used)
	}
	if calc.Cond != nil {
		refs(calc.Cond, used)
	}
	for _, k := range cn.Keys {
		used[k] = true
	}
	var fields []int
	for i := range in.Names() {
		if used[i] {
			fields = append(fields, i)
		}
	}
	if len(low) == 0 && len(fields) == len(in.Names()) {
		return nil
	}
	m := map[int]int{}
	pe := make([]Expr, len(fields))
	pn := make([]string, len(fields))
	for i, f := range fields {
		m[f] = i
		pe[i] = &InputRef{Index: f, T: in.Types()[f]}
		pn[i] = in.Names()[f]
	}
	pushed := newCalc(in, pe, and(low), pn)
	remapKeys := func(ks []int) []int {
		out := make([]int, len(ks))
		for i, k := range ks {
			out[i] = m[k]
		}
		return out
	}
	ne := &Exchange{base: sameRow(pushed), Keys: remapKeys(ex.Keys)}
	ncn := &ChangelogNormalize{base: sameRow(ne), Keys: remapKeys(cn.Keys)}
	exprs := make([]Expr, len(calc.Exprs))
	for i, e := range calc.Exprs {
		exprs[i] = remap(e, m)
	}
	for i := range high {
		high[i] = remap(high[i], m)
	}
	return newCalc(ncn, exprs, and(high), calc.names)
}

// aggregateConstantKeys removes the group keys a Calc below an aggregate
// computes as literals (at least one key stays, as Calcite keeps one):
// the aggregate groups by the others over a Calc of only the fields it
// still reads, and a Calc above puts the constants back in their places.
func aggregateConstantKeys(_ *binder, n Node) (Node, error) {
	agg, ok := n.(*LogicalAggregate)
	if !ok {
		return nil, nil
	}
	c, ok := agg.input().(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	konst := map[int]*Literal{}
	for i, g := range agg.Group {
		if l, ok := c.Exprs[g].(*Literal); ok && l.Value != nil {
			konst[i] = l
		}
	}
	if len(konst) == 0 {
		return nil, nil
	}
	if len(konst) == len(agg.Group) {
		delete(konst, 0)
		if len(konst) == 0 {
			return nil, nil
		}
	}
	// The fields the aggregate still reads, in input order.
	used := map[int]bool{}
	for i, g := range agg.Group {
		if konst[i] == nil {
			used[g] = true
		}
	}
	for _, a := range agg.Aggs {
		for _, f := range a.fields() {
			used[f] = true
		}
	}
	m := map[int]int{}
	var exprs []Expr
	var names []string
	for f := range c.Exprs {
		if used[f] {
			m[f] = len(exprs)
			exprs = append(exprs, c.Exprs[f])
			names = append(names, c.names[f])
		}
	}
	below := &LogicalCalc{base: row(names, exprTypes(exprs), c.input()), Exprs: exprs, Cond: c.Cond}
	var group []int
	var outNames []string
	var outTypes []sql.DataType
	top := make([]Expr, len(agg.names))
	for i, g := range agg.Group {
		if l := konst[i]; l != nil {
			top[i] = l
			continue
		}
		top[i] = &InputRef{Index: len(group), T: agg.types[i]}
		group = append(group, m[g])
		outNames = append(outNames, agg.names[i])
		outTypes = append(outTypes, agg.types[i])
	}
	aggs := make([]AggCall, len(agg.Aggs))
	for i, a := range agg.Aggs {
		aggs[i] = a.remapped(func(f int) int { return m[f] })
		top[len(agg.Group)+i] = &InputRef{Index: len(group) + i, T: a.T}
		outNames = append(outNames, agg.names[len(agg.Group)+i])
		outTypes = append(outTypes, agg.types[len(agg.Group)+i])
	}
	newAgg := &LogicalAggregate{base: row(outNames, outTypes, below), Group: group, Aggs: aggs}
	return &LogicalCalc{base: row(agg.names, agg.types, newAgg), Exprs: top}, nil
}

// pruneAggregateCall drops the aggregate calls no field of the Calc above
// reads, as Flink's PruneAggregateCallRule does: at least one output
// column stays (a global aggregate keeps its first call), the aggregate's
// input is left as it is, and the Calc goes when it has become the
// identity under the aggregate's own names (JoinTest.testInnerJoinWithEqualPk:
// GroupAggregate(groupBy=[a1], select=[a1]) over Calc(select=[a1, a2])).
func pruneAggregateCall(_ *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	agg, ok := c.input().(*LogicalAggregate)
	if !ok {
		return nil, nil
	}
	var props Node // the Calc over the aggregate without its unread window properties
	if pc, pagg := pruneWindowProperties(c, agg); pc != nil {
		c, agg, props = pc, pagg, pc
	}
	// A legacy group window is no group key of Flink's
	// LogicalWindowAggregate (its window holds it): a group window
	// aggregate without other keys keeps its one call
	// (GroupWindowTest.testMultiWindowSqlWithAggregation: the inner
	// window's COUNT(a) AS a, which nothing reads).
	keys := len(agg.Group) - len(legacyWindowKeys(agg))
	if len(agg.Aggs) == 0 || (keys == 0 && len(agg.Aggs) == 1) {
		return props, nil
	}
	used := c.fieldRefs()
	ng := len(agg.Group)
	var keep []AggCall
	drop := map[int]bool{}
	for i, a := range agg.Aggs {
		if used[ng+i] {
			keep = append(keep, a)
		} else {
			drop[ng+i] = true
		}
	}
	if len(drop) == 0 {
		return props, nil
	}
	if len(keep) == 0 && keys == 0 {
		keep = agg.Aggs[:1]
		delete(drop, ng)
	}
	m := map[int]int{}
	var names []string
	var types []sql.DataType
	for i := range agg.names {
		if !drop[i] {
			m[i] = len(names)
			names = append(names, agg.names[i])
			types = append(types, agg.types[i])
		}
	}
	newAgg := &LogicalAggregate{base: row(names, types, agg.input()), Group: agg.Group, Aggs: keep}
	exprs := make([]Expr, len(c.Exprs))
	trivial := c.Cond == nil && len(exprs) == len(names)
	for i, e := range c.Exprs {
		exprs[i] = remap(e, m)
		if r, ok := exprs[i].(*InputRef); !ok || r.Index != i || c.names[i] != names[i] {
			trivial = false
		}
	}
	if trivial {
		return newAgg, nil
	}
	var cond Expr
	if c.Cond != nil {
		cond = remap(c.Cond, m)
	}
	return &LogicalCalc{base: row(c.names, c.types, newAgg), Exprs: exprs, Cond: cond}, nil
}

// dependentConditions derives, from each OR conjunct of an inner join's
// condition, the filter it implies on the left and on the right input,
// as Flink's JoinDependentConditionDerivationRule does: OR over the
// disjuncts of the AND of each disjunct's conjuncts that read only that
// side (a conjunct reading no field counts as the left's); a disjunct with
// none makes the side's filter TRUE, and no filter is derived. The right
// side's filters are over the join's row (the caller shifts them).
func dependentConditions(cond Expr, nl int) (left, right []Expr) {
	for _, c := range conjuncts(cond) {
		ds := disjuncts(c)
		if len(ds) < 2 {
			continue
		}
		var lds, rds []Expr
		lTrue, rTrue := false, false
		for _, d := range ds {
			var lc, rc []Expr
			for _, x := range conjuncts(d) {
				r := map[int]bool{}
				refs(x, r)
				allLeft, noneLeft := true, true
				for f := range r {
					if f < nl {
						noneLeft = false
					} else {
						allLeft = false
					}
				}
				switch {
				case allLeft:
					lc = append(lc, x)
				case noneLeft:
					rc = append(rc, x)
				}
			}
			lTrue = lTrue || len(lc) == 0
			rTrue = rTrue || len(rc) == 0
			lds = append(lds, and(lc))
			rds = append(rds, and(rc))
		}
		if !lTrue {
			left = append(left, expr.NullTestsFirst(or(lds)))
		}
		if !rTrue {
			right = append(right, expr.NullTestsFirst(or(rds)))
		}
	}
	return left, right
}

// disjuncts splits e at its top-level ORs.
func disjuncts(e Expr) []Expr {
	if c, ok := e.(*Call); ok && c.Op == "OR" {
		var out []Expr
		for _, a := range c.Args {
			out = append(out, disjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}

func or(es []Expr) Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &Call{Op: "OR", Args: es, T: es[0].Type()}
}

// dropTrueTerms removes TRUE literals from the ANDs of e (Calcite's
// RexSimplify: x AND TRUE is x), where they are not the whole condition.
func dropTrueTerms(e Expr) Expr {
	c, ok := e.(*Call)
	if !ok || (c.Op != "AND" && c.Op != "OR") {
		return e
	}
	var args []Expr
	for _, a := range c.Args {
		a = dropTrueTerms(a)
		if c.Op == "AND" && isTrueLiteral(a) {
			continue
		}
		args = append(args, a)
	}
	switch len(args) {
	case 0:
		return &Literal{Value: true, T: c.T}
	case 1:
		return args[0]
	}
	return &Call{Op: c.Op, Args: args, T: c.T, Written: c.Written}
}

// filterAggregateTranspose moves the conjuncts of a Calc's condition that
// read only an aggregate's group keys below the aggregate, as Calcite's
// FilterAggregateTransposeRule does: a group's rows are kept or dropped
// whole, so filtering them before aggregating gives the same groups
// (JoinTest.testInnerJoinWithFilterPushDown: where=[(b1 = 2)] under
// GroupAggregate(groupBy=[b1])). A global aggregate (no group) keeps its
// filter above: over no rows it still yields a row.
func filterAggregateTranspose(_ *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalCalc)
	if !ok || c.Cond == nil {
		return nil, nil
	}
	agg, ok := c.input().(*LogicalAggregate)
	if !ok || len(agg.Group) == 0 {
		return nil, nil
	}
	ng := len(agg.Group)
	windowKey := legacyWindowKeys(agg)
	var push, keep []Expr
	for _, x := range conjuncts(c.Cond) {
		r := map[int]bool{}
		refs(x, r)
		onKeys := len(r) > 0 && expr.Deterministic(x)
		for f := range r {
			onKeys = onKeys && f < ng && !windowKey[f]
		}
		if onKeys {
			push = append(push, x)
		} else {
			keep = append(keep, x)
		}
	}
	if len(push) == 0 {
		return nil, nil
	}
	m := map[int]int{}
	for i, g := range agg.Group {
		m[i] = g
	}
	below := make([]Expr, len(push))
	for i, x := range push {
		below[i] = remap(x, m)
	}
	in := agg.input()
	filtered := mergeCalc(&LogicalCalc{base: sameRow(in), Exprs: identity(in.Types()), Cond: and(below)})
	exprs := c.Exprs
	if c.projected {
		// A pushed key = literal fixes that key in the aggregate's output
		// too: ReduceExpressionsRule.PROJECT_INSTANCE reduces the
		// projection above with the predicates RelMdPredicates pulls up
		// through the aggregate (TwoStageAggregateTest.testGroupAggregateWithFilter:
		// Calc(select=[CAST(2 AS BIGINT) AS b, EXPR$1]) above it).
		exprs = substituteConstants(exprs, and(push))
	}
	return &LogicalCalc{base: row(c.names, c.types, agg.WithInputs(filtered)), Exprs: exprs, Cond: and(keep), fresh: c.fresh, projected: c.projected}, nil
}

// joinReduceConstants is Calcite's ReduceExpressionsRule on an inner join
// and the Calc above it, with the predicates RelMdPredicates pulls up from
// the join's inputs: a filter of an input's Calc fixing a field it
// projects to a literal. A join equality of two fields so fixed to the
// same literal is TRUE and goes; the Calc above reads such a field as the
// literal, and the inputs then project only what the join and the Calc
// still read (JoinTest.testInnerJoinWithJoinConditionPushDown: with a2 = 1
// above the left aggregate and b2 = 1, derived, above the right, the join
// keeps a1 = b1 only and the Calc prints 1 AS b2; a1 = 2 below the
// aggregate reaches the join through CAST(2 AS INTEGER) AS a1, no field
// of the aggregate's input, and fixes nothing).
func joinReduceConstants(_ *binder, n Node) (Node, error) {
	top, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	j, ok := top.input().(*LogicalJoin)
	if !ok || j.JoinType != ast.InnerJoin || j.Cond == nil || temporalCall(j.Cond) != nil {
		return nil, nil
	}
	nl := len(j.inputs[0].Names())
	var fixed []Expr // field = literal over the join's row
	for side, in := range j.inputs {
		c, ok := in.(*LogicalCalc)
		if !ok || c.Cond == nil {
			continue
		}
		// A field that other conjuncts also read is one Sarg with them
		// (a = 10 AND a < 12 is SEARCH(a, Sarg[10])), which
		// RexUtil.predicateConstants does not read as a constant
		// (NestedLoopJoinTest.testLeftOuterJoinWithFilter1 keeps a = d).
		readers := map[int]int{}
		for _, x := range conjuncts(c.Cond) {
			r := map[int]bool{}
			refs(x, r)
			for f := range r {
				readers[f]++
			}
		}
		for _, x := range conjuncts(c.Cond) {
			call, ok := x.(*Call)
			if !ok || call.Op != "=" || len(call.Args) != 2 {
				continue
			}
			for _, o := range [][2]Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
				ref, isRef := o[0].(*InputRef)
				lit, isLit := o[1].(*Literal)
				if !isRef || !isLit || lit.Value == nil || readers[ref.Index] > 1 {
					continue
				}
				for i, e := range c.Exprs {
					if r, ok := e.(*InputRef); ok && r.Index == ref.Index {
						at := i
						if side == 1 {
							at += nl
						}
						fixed = append(fixed, &Call{Op: "=", Args: []Expr{&InputRef{Index: at, T: j.types[at]}, lit}, T: call.T})
					}
				}
				break
			}
		}
	}
	cond, dropped := dropConstantPairs(j.Cond, fixed)
	if !dropped {
		return nil, nil
	}
	if cond == nil {
		cond = &Literal{Value: true, T: sql.Boolean().NotNull()}
	}
	exprs := substituteConstants(top.Exprs, and(fixed))
	// Each input projects what the join and the Calc still read.
	used := map[int]bool{}
	for _, e := range exprs {
		refs(e, used)
	}
	if top.Cond != nil {
		refs(top.Cond, used)
	}
	refs(cond, used)
	var lf, rf []int
	for i := range j.types {
		if !used[i] {
			continue
		}
		if i < nl {
			lf = append(lf, i)
		} else {
			rf = append(rf, i-nl)
		}
	}
	if len(lf) == 0 {
		lf = []int{0}
	}
	if len(rf) == 0 {
		rf = []int{0}
	}
	m := map[int]int{}
	var names []string
	var types []sql.DataType
	for i, f := range lf {
		m[f] = i
		names, types = append(names, j.names[f]), append(types, j.types[f])
	}
	for i, f := range rf {
		m[nl+f] = len(lf) + i
		names, types = append(names, j.names[nl+f]), append(types, j.types[nl+f])
	}
	left := joinSide(j.inputs[0], lf, nil)
	right := joinSide(j.inputs[1], rf, nil)
	nj := *j
	nj.base = row(names, types, left, right)
	nj.Cond = remap(cond, m)
	out := *top
	out.base = top.base.with([]Node{&nj})
	out.Exprs = remapAll(exprs, m)
	if top.Cond != nil {
		out.Cond = remap(top.Cond, m)
	}
	return &out, nil
}

// bareJoin reports a join with no projection of Flink's above it: n is
// the join itself, or a Calc that only filters it which an enclosing
// join's push-down made (fresh), where Flink has a Filter it pushes into
// the join.
func bareJoin(n Node) bool {
	c, ok := n.(*LogicalCalc)
	if !ok {
		_, ok := n.(*LogicalJoin)
		return ok
	}
	if !c.fresh || len(c.Exprs) != len(c.input().Names()) {
		return false
	}
	for i, e := range c.Exprs {
		if r, ok := e.(*InputRef); !ok || r.Index != i {
			return false
		}
	}
	return true
}

// dropConstantPairs removes the conjuncts of cond that equal two fields
// conds fix to the same literal (field = literal); dropped reports any.
func dropConstantPairs(cond Expr, conds []Expr) (Expr, bool) {
	fixed := map[int]string{}
	for _, c := range conds {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" || len(call.Args) != 2 {
			continue
		}
		for _, o := range [][2]Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
			ref, isRef := o[0].(*InputRef)
			lit, isLit := o[1].(*Literal)
			if isRef && isLit && lit.Value != nil {
				if _, dup := fixed[ref.Index]; !dup {
					fixed[ref.Index] = FormatExpr(lit, nil, FormatPrefix)
				}
			}
		}
	}
	var keep []Expr
	dropped := false
	for _, c := range conjuncts(cond) {
		if call, ok := c.(*Call); ok && call.Op == "=" && len(call.Args) == 2 {
			a, okA := call.Args[0].(*InputRef)
			b, okB := call.Args[1].(*InputRef)
			if okA && okB {
				va, fa := fixed[a.Index]
				vb, fb := fixed[b.Index]
				if fa && fb && va == vb {
					dropped = true
					continue
				}
			}
		}
		keep = append(keep, c)
	}
	if !dropped {
		return cond, false
	}
	if len(keep) == 0 {
		return nil, true
	}
	return and(keep), true
}

// transitiveConditions copies each one-side filter of an inner join to
// the other side through the join's field = field equalities, as Calcite's
// JoinPushTransitivePredicatesRule does (a1 = b1 AND b1 = 2 filters the
// left input on a1 = 2: JoinTest.testInnerJoinWithFilterPushDown). Filters
// are over the join's row; only equalities of fields of the same type
// carry one, and a filter the other side has already is not repeated.
func transitiveConditions(joinCond Expr, leftConds, rightConds []Expr, nl, nr int) ([]Expr, []Expr) {
	toRight, toLeft := map[int]int{}, map[int]int{}
	for _, c := range conjuncts(joinCond) {
		call, ok := c.(*Call)
		if !ok || call.Op != "=" || len(call.Args) != 2 {
			continue
		}
		a, ok1 := call.Args[0].(*InputRef)
		b, ok2 := call.Args[1].(*InputRef)
		if !ok1 || !ok2 || !a.T.WithNullable(false).Equal(b.T.WithNullable(false)) {
			continue
		}
		if a.Index >= nl {
			a, b = b, a
		}
		if a.Index >= nl || b.Index < nl {
			continue
		}
		if _, dup := toRight[a.Index]; !dup {
			toRight[a.Index] = b.Index
		}
		if _, dup := toLeft[b.Index]; !dup {
			toLeft[b.Index] = a.Index
		}
	}
	if len(toRight) == 0 {
		return leftConds, rightConds
	}
	names := make([]string, nl+nr)
	for i := range names {
		names[i] = "$" + strconv.Itoa(i)
	}
	carry := func(from, to []Expr, m map[int]int) []Expr {
		have := map[string]bool{}
		for _, c := range to {
			have[FormatExpr(c, names, FormatPrefix)] = true
		}
		out := to
		for _, c := range from {
			r := map[int]bool{}
			refs(c, r)
			ok := len(r) > 0 && expr.Deterministic(c)
			for f := range r {
				_, mapped := m[f]
				ok = ok && mapped
			}
			if !ok {
				continue
			}
			d := remap(c, m)
			if k := FormatExpr(d, names, FormatPrefix); !have[k] {
				have[k] = true
				out = append(out, d)
			}
		}
		return out
	}
	origLeft := leftConds
	leftConds = carry(rightConds, leftConds, toLeft)
	rightConds = carry(origLeft, rightConds, toRight)
	return leftConds, rightConds
}

// pushOnIntoPaddedSide splits an outer join's ON condition: the conjuncts
// that read only the side the join pads with nulls (the right of a LEFT
// JOIN, the left of a RIGHT JOIN) filter that input below the join, as
// Flink's FlinkFilterJoinRule (JOIN_CONDITION_PUSH) does; the preserved
// side's are kept, since its unmatched rows are still emitted. The
// field = literal conjuncts pushed fix those fields in what stays
// (ReduceExpressionsRule.JOIN with the input's predicates:
// JoinTest.testLeftJoinWithJoinConditionPushDown turns a2 = b2 into
// a2 = 1 under b2 = 1), unless the field is a group key of an aggregate
// below, where the filter goes under the aggregate and Calcite's
// predicates no longer see it. It returns the kept condition and the
// pushed conjuncts, over the join's row.
func pushOnIntoPaddedSide(join *LogicalJoin, kind ast.JoinKind, nl int) (Expr, []Expr) {
	var keep, pushed []Expr
	for _, c := range conjuncts(join.Cond) {
		r := map[int]bool{}
		refs(c, r)
		padded := len(r) > 0 && expr.Deterministic(c)
		for f := range r {
			padded = padded && (f >= nl) == (kind == ast.LeftJoin)
		}
		if padded {
			pushed = append(pushed, c)
		} else {
			keep = append(keep, c)
		}
	}
	if len(pushed) == 0 {
		return join.Cond, nil
	}
	side, off := join.inputs[1], nl
	if kind == ast.RightJoin {
		side, off = join.inputs[0], 0
	}
	for i, c := range pushed {
		// Below the join the fields have the input's types, not the
		// join row's nullable ones.
		r := map[int]bool{}
		refs(c, r)
		for f := range r {
			c = retype(c, f, side.Types()[f-off])
		}
		pushed[i] = c
	}
	var fixes []Expr
	for _, c := range pushed {
		r := map[int]bool{}
		refs(c, r)
		for f := range r {
			if len(r) == 1 && !groupKeyBelow(side, f-off) {
				// The input's predicate, in the input's own field type
				// (not the join row's nullable one).
				fixes = append(fixes, c)
			}
		}
	}
	if len(fixes) > 0 && len(keep) > 0 {
		keep = substituteConstants(keep, and(fixes))
		var kept []Expr
		for _, c := range keep {
			if !isTrueLiteral(c) {
				kept = append(kept, c)
			}
		}
		keep = kept
	}
	if len(keep) == 0 {
		return &Literal{Value: true, T: sql.Boolean().NotNull()}, pushed
	}
	return and(keep), pushed
}

// groupKeyBelow reports whether field f of n is a group key of an
// aggregate n is (or a Calc over one passes through).
func groupKeyBelow(n Node, f int) bool {
	if c, ok := n.(*LogicalCalc); ok {
		r, ok := c.Exprs[f].(*InputRef)
		if !ok {
			return false
		}
		n, f = c.input(), r.Index
	}
	a, ok := n.(*LogicalAggregate)
	return ok && f < len(a.Group)
}

// retype gives the references to field f in e the type t.
// paddedSideConditions carries an outer join's filters on the side it
// keeps whole to the side it pads, through the ON's field equalities, as
// Calcite's JoinPushTransitivePredicatesRule does with RelMdPredicates:
// for a LEFT join the right input gets the predicates inferred from the
// left's (a right row no left row matches is never output), and not the
// other way round. ... WHERE a < 12 over LEFT JOIN ... ON a = d filters
// d < 12 below the join's right side (JoinTestBase's
// testLeftOuterJoinWithFilter2).
func paddedSideConditions(join *LogicalJoin, kind ast.JoinKind, joinCond Expr, leftConds, rightConds []Expr, nl int) ([]Expr, []Expr) {
	nr := len(join.inputs[1].Names())
	l, r := transitiveConditions(joinCond, leftConds, rightConds, nl, nr)
	side, off := join.inputs[1], nl
	derived := r[len(rightConds):]
	if kind == ast.RightJoin {
		side, off = join.inputs[0], 0
		derived = l[len(leftConds):]
	}
	for i, c := range derived {
		// Below the join the fields have the input's types, not the
		// join row's nullable ones.
		fs := map[int]bool{}
		refs(c, fs)
		for f := range fs {
			c = retype(c, f, side.Types()[f-off])
		}
		derived[i] = c
	}
	if kind == ast.RightJoin {
		return l, rightConds
	}
	return leftConds, r
}

func retype(e Expr, f int, t sql.DataType) Expr {
	switch x := e.(type) {
	case *InputRef:
		if x.Index == f {
			return &InputRef{Index: f, T: t}
		}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = retype(a, f, t)
		}
		return &Call{Op: x.Op, Args: args, T: x.T, Written: x.Written}
	}
	return e
}

// pruneEmptyJoin plans a join with an input that can produce no row (an
// empty Values, or a filter that is always false once simplified, as
// ReduceExpressionsRule.FILTER makes it) as Calcite's PruneEmptyRules and
// Flink's FlinkPruneEmptyRules do: a join that needs rows from the empty
// side is empty; an outer join that keeps the other side's rows pads them
// with typed NULLs (JoinTest.testSelfJoinPlan: a LEFT JOIN whose right
// side is filtered by key = 0 AND key > 10); an anti join keeps its left.
func pruneEmptyJoin(b *binder, n Node) (Node, error) {
	if c, ok := n.(*LogicalCalc); ok {
		// The rules run top down: a Calc over a join this rule empties is
		// empty too (PruneEmptyRules.PROJECT_INSTANCE, CALC_INSTANCE).
		if _, ok := c.input().(*LogicalJoin); ok {
			if out, err := pruneEmptyJoin(b, c.input()); err == nil && out != nil && isEmptyRel(out) {
				return emptyValues(c), nil
			}
		}
		return nil, nil
	}
	j, ok := n.(*LogicalJoin)
	if !ok {
		return nil, nil
	}
	le, re := isEmptyRel(j.inputs[0]), isEmptyRel(j.inputs[1])
	if !le && !re {
		if j.JoinType == ast.InnerJoin && constantFalse(j) {
			return emptyValues(j), nil
		}
		return nil, nil
	}
	nl := len(j.inputs[0].Names())
	pad := func(keep Node, keepLeft bool) Node {
		exprs := make([]Expr, len(j.types))
		for i, t := range j.types {
			if (i < nl) == keepLeft {
				f := i
				if !keepLeft {
					f = i - nl
				}
				exprs[i] = &InputRef{Index: f, T: keep.Types()[f]}
				if !keep.Types()[f].Equal(t) {
					exprs[i] = &Call{Op: "CAST", Args: []Expr{exprs[i]}, T: t}
				}
			} else {
				exprs[i] = &Literal{Value: nil, T: t}
			}
		}
		return &LogicalCalc{base: row(j.names, j.types, keep), Exprs: exprs}
	}
	switch {
	case j.JoinType == antiJoin && re && !le:
		return j.inputs[0], nil
	case j.JoinType == ast.LeftJoin && re && !le:
		return pad(j.inputs[0], true), nil
	case j.JoinType == ast.RightJoin && le && !re:
		return pad(j.inputs[1], false), nil
	case j.JoinType == ast.FullJoin && (le != re):
		if re {
			return pad(j.inputs[0], true), nil
		}
		return pad(j.inputs[1], false), nil
	}
	return emptyValues(j), nil
}

// pruneEmptyAggregate empties an aggregate with a GROUP BY key over an
// input that yields no row, as Calcite's PruneEmptyRules.AGGREGATE_INSTANCE
// does (Aggregate.isNotGrandTotal: an aggregate without a key yields one
// row over no rows, and is left to AggregateValues), and what the rules
// that run with it in Flink's PRUNE_EMPTY_RULES then empty above it: a
// projection, filter or sort of no rows, a join that needs rows from such
// an input (SetOperatorsTest.testIntersectLeftIsEmpty: the distinct
// aggregate of an INTERSECT over its empty semi join is Values(tuples=[[]])).
// The rules run top down, so the topmost node that yields no row goes.
// An aggregate of grouping sets that have the empty set is not emptied
// (its grand total row: Calcite's rule looks only at the key's size).
func pruneEmptyAggregate(b *binder, n Node) (Node, error) {
	if _, ok := n.(*LogicalValues); ok {
		return nil, nil
	}
	if emptyThroughAggregate(n, false) {
		return emptyValues(n), nil
	}
	if j, ok := n.(*LogicalJoin); ok {
		// An outer join keeps the other side's rows, padded
		// (pruneEmptyJoin), or an anti join its left's.
		ins := append([]Node(nil), j.inputs...)
		changed := false
		for i, in := range ins {
			if _, ok := in.(*LogicalValues); !ok && emptyThroughAggregate(in, false) {
				ins[i], changed = emptyValues(in), true
			}
		}
		if changed {
			nj := j.WithInputs(ins...)
			if out, err := pruneEmptyJoin(b, nj); err != nil || out != nil {
				return out, err
			}
			return nj, nil
		}
	}
	return nil, nil
}

// emptyThroughAggregate reports a node that yields no row because an
// aggregate with a key below it (or under it, when under is set) does, or
// an input already yields none: isEmptyRel, and the aggregates, sorts and
// joins of no rows.
func emptyThroughAggregate(n Node, under bool) bool {
	if under && isEmptyRel(n) {
		return true
	}
	switch x := n.(type) {
	case *LogicalAggregate:
		if len(x.Group) == 0 || slices.ContainsFunc(x.Sets, func(s []int) bool { return len(s) == 0 }) {
			return false
		}
		return emptyThroughAggregate(x.input(), true)
	case *LogicalCalc:
		return emptyThroughAggregate(x.input(), under)
	case *LogicalProject:
		return emptyThroughAggregate(x.input(), under)
	case *LogicalFilter:
		return emptyThroughAggregate(x.input(), under)
	case *LogicalSort:
		return emptyThroughAggregate(x.input(), under)
	case *LogicalJoin:
		l, r := emptyThroughAggregate(x.inputs[0], under), emptyThroughAggregate(x.inputs[1], under)
		switch x.JoinType {
		case ast.InnerJoin, ast.CrossJoin, semiJoin:
			return l || r
		case ast.LeftJoin, antiJoin:
			return l
		case ast.RightJoin:
			return r
		case ast.FullJoin:
			return l && r
		}
	}
	return false
}

// constantFalse reports an inner join whose condition is FALSE or NULL
// once the fields its inputs compute as constants are put in: Flink's
// ReduceExpressionsRule.JOIN simplifies the condition with the predicates
// RelMdPredicates pulls up from the inputs (x = 12, x IS NULL), and
// PruneEmptyRules then drops the join (IntervalJoinTest
// .testJoinWithNullLiteral: t1.nullField = t2.nullField with NULL on one
// side and 12 on the other).
func constantFalse(j *LogicalJoin) bool {
	exprs := identity(j.types)
	off := 0
	for _, in := range j.inputs {
		if c, ok := in.(*LogicalCalc); ok {
			for i, e := range c.Exprs {
				// A literal, or a CAST of one (Reduce's form of a constant).
				e = fold(e)
				if x, ok := e.(*Call); ok && x.Op == "CAST" && len(x.Args) == 1 {
					if l, ok := x.Args[0].(*Literal); ok && !l.Flag {
						exprs[off+i] = e
					}
				}
				if l, ok := e.(*Literal); ok && !l.Flag {
					exprs[off+i] = l
				}
			}
		}
		off += len(in.Names())
	}
	for _, c := range conjuncts(inline(j.Cond, exprs)) {
		if l, ok := simplifyFilter(fold(c)).(*Literal); ok && (l.Value == nil || l.Value == false) {
			return true
		}
	}
	return false
}

// isEmptyRel reports an input that yields no row: an empty Values or a
// Calc whose condition simplifies to FALSE.
func isEmptyRel(n Node) bool {
	switch x := n.(type) {
	case *LogicalValues:
		return len(x.Rows) == 0
	case *LogicalCalc:
		return x.Cond != nil && isFalseLiteral(simplifyFilter(fold(x.Cond))) || isEmptyRel(x.input())
	case *LogicalProject:
		// PruneEmptyRules.PROJECT_INSTANCE: a projection of no rows.
		return isEmptyRel(x.input())
	}
	return false
}

// aggregateRemove replaces an aggregate whose input is already unique on
// its group keys, and whose calls are all SUM, MIN or MAX of one argument,
// by a projection of the keys and the arguments: each group holds one row
// (Flink's FlinkAggregateRemoveRule, in its LOGICAL_OPT_RULES; as
// PushCalcPastChangelogNormalizeRuleTest.testWithMultipleFilters plans
// GROUP BY on the primary key). The projection casts an argument whose type
// is not the call's (SUM of a DECIMAL widens it), not for nullability
// alone (RelBuilder.convert); a Calc directly above merges into it.
func aggregateRemove(_ *binder, n Node) (Node, error) {
	if c, ok := n.(*LogicalCalc); ok {
		agg, ok := c.input().(*LogicalAggregate)
		if !ok {
			return nil, nil
		}
		p := removeAggregate(agg)
		if p == nil {
			return nil, nil
		}
		return mergeCalc(&LogicalCalc{base: row(c.names, c.types, p), Exprs: c.Exprs, Cond: c.Cond}), nil
	}
	agg, ok := n.(*LogicalAggregate)
	if !ok {
		return nil, nil
	}
	if p := removeAggregate(agg); p != nil {
		return p, nil
	}
	return nil, nil
}

func removeAggregate(agg *LogicalAggregate) *LogicalCalc {
	if len(agg.Group) == 0 {
		return nil
	}
	for _, a := range agg.Aggs {
		if a.Filtered {
			return nil // Calcite's AggregateRemoveRule keeps a call with a filterArg
		}
		switch a.Func {
		case "SUM", "MIN", "MAX":
		default:
			return nil
		}
		if len(a.Args) != 1 {
			return nil
		}
	}
	in := agg.input()
	if !uniqueOn(logicalUniqueKeys(in), agg.Group) {
		return nil
	}
	fields := append([]int(nil), agg.Group...)
	for _, a := range agg.Aggs {
		fields = append(fields, a.Args[0])
	}
	exprs := make([]Expr, len(fields))
	for i, f := range fields {
		var e Expr = &InputRef{Index: f, T: in.Types()[f]}
		if want := agg.types[i]; !want.WithNullable(true).Equal(e.Type().WithNullable(true)) {
			e = castExpr(e, want)
		}
		exprs[i] = e
	}
	return mergeCalc(&LogicalCalc{base: row(agg.names, exprTypes(exprs), in), Exprs: exprs})
}

// uniqueOn reports whether one of keys lies within cols
// (RelMetadataQuery.areColumnsUnique).
func uniqueOn(keys [][]int, cols []int) bool {
	for _, k := range keys {
		if len(k) > 0 && containsAll(cols, k) {
			return true
		}
	}
	return false
}

// logicalUniqueKeys are the column sets a logical node's rows are unique
// on, as far as sqlrun derives them (FlinkRelMdUniqueKeys for a scan of a
// table with a primary key, a Calc keeping a key's fields, an aggregate's
// group keys); anything else has none, so that a rule relying on them does
// not fire.
func logicalUniqueKeys(n Node) [][]int {
	switch n := n.(type) {
	case *LogicalTableScan:
		if pk := scanPK(n.Table, n.Names()); len(pk) > 0 && len(pk) == len(n.Table.Schema.PrimaryKey) {
			return [][]int{pk}
		}
	case *LogicalCalc:
		return projectKeys(logicalUniqueKeys(n.input()), n.Exprs)
	case *LogicalProject:
		return projectKeys(logicalUniqueKeys(n.input()), n.Exprs)
	case *LogicalFilter:
		return logicalUniqueKeys(n.input())
	case *LogicalAggregate:
		g := make([]int, len(n.Group))
		for i := range g {
			g[i] = i
		}
		return [][]int{g}
	}
	return nil
}

// projectKeys maps keys through a projection that keeps each key field as
// a plain reference.
func projectKeys(keys [][]int, exprs []Expr) [][]int {
	var out [][]int
	if !slices.ContainsFunc(exprs, func(e Expr) bool { _, ok := e.(*InputRef); return ok }) {
		// A projection that reads no field as it is has no key, not even
		// the empty key of a global aggregate below it
		// (FlinkRelMdUniqueKeys.getProjectUniqueKeys: "if there's no
		// RexInputRef in the projected expressions return empty set";
		// SemiAntiJoinTest.testExistsWithUncorrelated_SimpleCondition1:
		// rightInputSpec=[NoUniqueKey] over Calc(select=[])).
		return nil
	}
	for _, k := range keys {
		mapped := make([]int, 0, len(k))
		for _, f := range k {
			for i, e := range exprs {
				if r, ok := e.(*InputRef); ok && r.Index == f {
					mapped = append(mapped, i)
					break
				}
			}
		}
		if len(mapped) == len(k) {
			out = append(out, mapped)
		}
	}
	return out
}

// aggregateValues plans a global aggregate (no GROUP BY) over an input
// that yields no row as its one result row: Calcite's
// AggregateReduceFunctionsRule (LOGICAL: CoreRules.AGGREGATE_REDUCE_FUNCTIONS)
// first rewrites SUM(x) as CASE(COUNT(x) = 0, NULL, $SUM0(x)) and AVG(x)
// as CAST(SUM(x) / COUNT(x)), sharing equal calls; AggregateValuesRule
// (CoreRules.AGGREGATE_VALUES in REDUCE_EXPRESSION_RULES) then replaces
// the aggregate over the empty Values by Values of each call's value on
// no rows (COUNT and $SUM0 0, the others NULL), under a Calc computing
// the rewritten calls (AggregateTest.testGlobalAggOverEmptyInputReplacedByValues).
// Aggregates with other calls, DISTINCT, or sums whose zero sqlrun does
// not spell are left to run.
func aggregateValues(_ *binder, n Node) (Node, error) {
	agg, ok := n.(*LogicalAggregate)
	if !ok || len(agg.Group) > 0 || !yieldsNoRow(agg.input()) {
		return nil, nil
	}
	type slot struct {
		fn   string
		args []int
		t    sql.DataType
	}
	var slots []slot
	var names []string
	add := func(fn string, args []int, name string, t sql.DataType) *InputRef {
		for i, s := range slots {
			if s.fn == fn && slices.Equal(s.args, args) {
				return &InputRef{Index: i, T: s.t}
			}
		}
		if name == "" {
			name = "$f" + strconv.Itoa(len(slots))
		}
		slots = append(slots, slot{fn: fn, args: args, t: t})
		names = append(names, name)
		return &InputRef{Index: len(slots) - 1, T: t}
	}
	countT := sql.BigInt().NotNull()
	exprs := make([]Expr, len(agg.Aggs))
	for i, a := range agg.Aggs {
		if a.Distinct || a.Filtered {
			return nil, nil
		}
		switch a.Func {
		case "COUNT", "MIN", "MAX":
			exprs[i] = add(a.Func, a.Args, a.Name, a.T)
		case "SUM":
			if zeroOf(a.T) == nil {
				return nil, nil
			}
			sum0 := add("$SUM0", a.Args, a.Name, a.T.WithNullable(false))
			count := add("COUNT", a.Args, "", countT)
			exprs[i] = &Call{Op: "CASE", T: a.T, Args: []Expr{
				&Call{Op: "=", Args: []Expr{count, &Literal{Value: int32(0), T: sql.Int().NotNull()}}, T: sql.Boolean().NotNull()},
				&Literal{Value: nil, T: a.T},
				sum0,
			}}
		case "AVG":
			sumT := aggResultType("SUM", agg.input().Types()[a.Args[0]]).WithNullable(true)
			sum := add("SUM", a.Args, "", sumT)
			count := add("COUNT", a.Args, "", countT)
			div := &Call{Op: "/", Args: []Expr{sum, count}, T: arithmeticType("/", sumT, countT)}
			exprs[i] = castExpr(div, a.T)
		default:
			return nil, nil
		}
	}
	tuple := make([]Expr, len(slots))
	types := make([]sql.DataType, len(slots))
	for i, s := range slots {
		types[i] = s.t
		switch s.fn {
		case "COUNT":
			tuple[i] = &Literal{Value: int64(0), T: s.t}
		case "$SUM0":
			tuple[i] = &Literal{Value: zeroOf(s.t), T: s.t}
		default:
			tuple[i] = &Literal{Value: nil, T: s.t}
		}
	}
	values := &LogicalValues{base: row(names, types), Rows: [][]Expr{tuple}}
	return &LogicalCalc{base: row(agg.names, agg.types, values), Exprs: exprs}, nil
}

// yieldsNoRow reports an empty input, or Calcs over one
// (PruneEmptyRules.PROJECT_INSTANCE, FILTER_INSTANCE).
func yieldsNoRow(n Node) bool {
	if isEmptyRel(n) {
		return true
	}
	c, ok := n.(*LogicalCalc)
	return ok && yieldsNoRow(c.input())
}

// zeroOf is the zero of a numeric type sqlrun spells as a literal (nil
// for the others).
func zeroOf(t sql.DataType) any {
	switch t.Root {
	case sql.TypeTinyInt:
		return int8(0)
	case sql.TypeSmallInt:
		return int16(0)
	case sql.TypeInt:
		return int32(0)
	case sql.TypeBigInt:
		return int64(0)
	case sql.TypeDouble:
		return float64(0)
	case sql.TypeFloat:
		return float32(0)
	}
	return nil
}

// splitOnKeys splits cond's conjuncts into those that read only the key
// fields (low: they may go below a ChangelogNormalize keyed on them) and
// the rest (high). A conjunct that reads no field goes low only with
// constants set.
func splitOnKeys(cond Expr, keys []int, constants bool) (low, high []Expr) {
	if cond == nil {
		return nil, nil
	}
	keySet := map[int]bool{}
	for _, k := range keys {
		keySet[k] = true
	}
	for _, c := range conjuncts(cond) {
		r := map[int]bool{}
		refs(c, r)
		onKeys := constants || len(r) > 0
		for f := range r {
			onKeys = onKeys && keySet[f]
		}
		if onKeys {
			low = append(low, c)
		} else {
			high = append(high, c)
		}
	}
	return low, high
}
