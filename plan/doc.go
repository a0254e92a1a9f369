// Package plan turns a parsed INSERT, SELECT or statement set into Flink's
// plans and prints them as Flink 1.20's EXPLAIN does.
//
// Plan nodes: every node kind is its own type behind the Node interface
// (rel.go): Inputs/WithInputs, the row type (Names, Types), the changelog
// Mode and UpsertKeys changelog inference sets, and the digest EXPLAIN
// prints (Digest). The logical kinds (logical.go) are LogicalSink,
// LogicalProject, LogicalFilter, LogicalAggregate, LogicalTableScan,
// LogicalValues, LogicalUnion, LogicalSort and LogicalJoin (and, for
// UNNEST and INTERSECT / EXCEPT ALL, unnest.go's LogicalTableCorrelate,
// Uncollect and TableFunctionScan, setopall.go's LogicalSetOpAll); the physical
// ones (nodes.go) TableSourceScan, Values, Calc, Exchange,
// ChangelogNormalize, DropUpdateBefore, GroupAggregate, Union, Limit,
// SortLimit, Join, Rank, Deduplicate (rank.go), Correlate (an UNNEST,
// unnest.go), Sink, mini-batch's
// MiniBatchAssigner and LocalGroupAggregate / GlobalGroupAggregate /
// IncrementalGroupAggregate (minibatch.go, applied after changelog inference), and batch mode's LocalAggregate / FinalAggregate
// (Local- and final Hash- or SortAggregate) and Sort. Consumers (explain,
// changelog inference, plan/dot, exec/compile) switch on the node's type.
//
// The trip of one statement:
//
//  1. Binding (bind.go) resolves tables through Env, merges OPTIONS hints
//     over the table options (as Flink's dynamic table options do), lets
//     the connector factory validate them and describe its source or sink,
//     and type-checks expressions with Flink's (Calcite's) rules and
//     messages. The result is the logical tree that EXPLAIN prints as the
//     Abstract Syntax Tree: LogicalSink / LogicalProject / LogicalFilter /
//     LogicalAggregate / LogicalTableScan / LogicalValues / LogicalUnion /
//     LogicalSort, shaped as Calcite's SqlToRelConverter shapes them (a
//     projection below every aggregate, trivial projections dropped, a
//     casting projection below the sink when a column type differs).
//
//  2. Optimization (rules.go, physical.go) is a list of named rewrite
//     rules, each run in one top-down pass over the whole tree, in the
//     order Flink's programs (FlinkStreamProgram, with the rule sets of
//     FlinkStreamRuleSets) apply the rules they stand for. Each has a
//     golden in ../testdata/rules/<name> with the tree just before and
//     just after it (TestRules):
//     - Rank: a filter on the number of ROW_NUMBER() / RANK() /
//     DENSE_RANK() OVER (...) over the projection computing it becomes a
//     FlinkLogicalRank with a constant range (PROJECT_TO_WINDOW, LOGICAL:
//     ProjectToWindowRule, FlinkLogicalRankRule; rank.go);
//     - RewriteSetOpAll: INTERSECT ALL / EXCEPT ALL become a UNION ALL
//     with markers, an aggregate counting each side's copies, a filter and
//     a Correlate of ReplicateRows (LOGICAL: RewriteIntersectAllRule,
//     RewriteMinusAllRule; setopall.go);
//     - Unnest: an UNNEST's Uncollect under its LogicalCorrelate becomes
//     a table function scan of $UNNEST_ROWS$1 (DEFAULT_REWRITE:
//     LogicalUnnestRule; unnest.go);
//     - CalcMerge: Project/Filter chains become one FlinkLogicalCalc
//     (DEFAULT_REWRITE .. LOGICAL: FILTER_MERGE, FlinkFilterProjectTransposeRule,
//     FlinkProjectMergeRule, FILTER_TO_CALC, PROJECT_TO_CALC, FlinkCalcMergeRule);
//     - FilterCorrelate: a WHERE over an UNNEST correlate goes below it
//     (conjuncts on the left side) or into its condition (conjuncts on
//     the unnested fields), a rename-only projection over it goes
//     (DECORRELATE's pre-pass: FILTER_CORRELATE; unnest.go);
//     - RankProjectTranspose: the Calc above a rank prunes the rank's
//     input and number, a one-row ROW_NUMBER range becomes the literal
//     (ProjectRankTransposeRule, RankNumberColumnRemoveRule);
//     - AggregateConstantKeys: group keys computed as literals leave the
//     group and come back in a Calc above (DEFAULT_REWRITE:
//     AGGREGATE_PROJECT_PULL_UP_CONSTANTS);
//     - PruneEmpty: LIMIT 0 and an always-false condition become
//     Values(tuples=[[]]) (DEFAULT_REWRITE, PREDICATE_PUSHDOWN:
//     PruneEmptyRules.SORT_FETCH_ZERO_INSTANCE, ReduceExpressionsRule);
//     - AggregateValues: a global aggregate over an input that yields no
//     row is Values of its one result row under a Calc (SUM as
//     CASE(COUNT = 0, NULL, $SUM0), AVG as SUM / COUNT: LOGICAL:
//     AGGREGATE_REDUCE_FUNCTIONS, then AGGREGATE_VALUES);
//     - UnionTranspose: a Calc above UNION ALL goes into each input,
//     through a CAST where an input's type differs from the union's
//     (PREDICATE_PUSHDOWN, PROJECT_REWRITE: FILTER_SET_OP_TRANSPOSE,
//     PROJECT_SET_OP_TRANSPOSE);
//     - JoinPushDown: WHERE conjuncts over both sides of an inner or comma
//     join join its condition, one-side conjuncts go below it, a WHERE that
//     rejects an outer side's nulls narrows the join (the Calc above reads
//     the fields that became NOT NULL through a CAST), an inner join's OR
//     condition yields the filter it implies on each side, a one-side filter
//     crosses the join's equalities to the other side, an outer join's ON
//     conjuncts over its null-padded side go below it, the WHERE's
//     field = literal fixes the field above, an operand of a condition's
//     equality that reads one side only is computed below the join so the
//     equality is an equi-join key, and each side projects the
//     fields used (PREDICATE_PUSHDOWN, PROJECT_REWRITE: JoinPushExpressionsRule,
//     JoinDependentConditionDerivationRule, JoinPushTransitivePredicatesRule,
//     ReduceExpressionsRule.PROJECT,
//     FlinkFilterJoinRule with RelOptUtil.simplifyJoin,
//     FlinkProjectJoinTransposeRule; sqlrun does both in one rule, so it
//     runs before FilterIntoScan);
//     - FilterAggregateTranspose: conjuncts over an aggregate's group keys
//     go below it (PREDICATE_PUSHDOWN: FILTER_AGGREGATE_TRANSPOSE);
//     - PruneEmptyJoin: a join with an input that yields no row is empty,
//     or its kept side padded with typed NULLs; an inner join whose
//     condition is FALSE or NULL with its inputs' constants put in is
//     empty, and so is a Calc over it (PREDICATE_PUSHDOWN:
//     PruneEmptyRules.JOIN_LEFT_INSTANCE, FlinkPruneEmptyRules.JOIN_RIGHT_INSTANCE,
//     ReduceExpressionsRule.JOIN, PruneEmptyRules.PROJECT_INSTANCE);
//     - PruneEmptyAggregate: an aggregate with a GROUP BY key over an
//     input that yields no row is empty, and so are the projections,
//     sorts and joins that need its rows above it (PREDICATE_PUSHDOWN:
//     PruneEmptyRules.AGGREGATE_INSTANCE with the other PRUNE_EMPTY_RULES;
//     an INTERSECT / EXCEPT over an always-empty input);
//     - FilterIntoScan: sources in Flink's filter push-down print
//     filter=[...] (PREDICATE_PUSHDOWN: PushFilterIntoTableSourceScanRule);
//     - ProjectWindowTableFunctionTranspose: a Calc over a window table
//     function projects the input fields it reads, the time column and
//     SESSION's partition keys below the function (PROJECT_REWRITE:
//     ProjectWindowTableFunctionTransposeRule);
//     - ProjectWatermarkAssignerTranspose: a Calc over a WatermarkAssigner
//     projects the fields it and the watermark read (and the rowtime)
//     below the assigner, so that they reach the source; the Calc goes
//     when the identity is left; only where that is cheaper in Flink's
//     cost model (fewer computations or Calcs below the assigner, fewer
//     fields the source reads), as Flink's Volcano program keeps the
//     cheaper plan (LOGICAL: ProjectWatermarkAssignerTransposeRule);
//     - ProjectIntoScan: projections go into sources that take them,
//     fields in Flink's order, honouring 'enable-projection-push-down'
//     (a Calc that reads no field, COUNT(*)'s, keeps the first);
//     metadata-capable sources print metadata=[]; the projected scan
//     reads a source of its own, as the rule copies the
//     DynamicTableSource, since the scan may have other readers (a WITH
//     query read twice) (LOGICAL: PushProjectIntoTableSourceScanRule);
//     - SortProjectTranspose: a LIMIT or ORDER BY ... LIMIT goes below a
//     Calc that only picks fields, of a scan or (when the sort keeps fewer
//     rows than it reads, the order Flink's Volcano program costs lower)
//     of any input (LOGICAL: SORT_PROJECT_TRANSPOSE);
//     - LimitIntoScan: a LIMIT without ORDER BY right above a scan whose
//     source takes one puts offset + fetch into it, printed limit=[n];
//     the Limit stays (LOGICAL: PushLimitIntoTableSourceScanRule);
//     - AggregateProjectMerge: a Calc that only reorders its input's fields
//     merges into the aggregate above (LOGICAL: FlinkAggregateProjectMergeRule);
//     - PruneAggregateCall: aggregate calls no field of the Calc above
//     reads are dropped, and a Calc left as the identity goes (LOGICAL:
//     PruneAggregateCallRule.CALC_ON_AGGREGATE; a legacy group window is no
//     group key there); first, a legacy group window's properties no field
//     reads go (DEFAULT_REWRITE: WindowPropertiesRules, groupwindow.go);
//     - AggregateReduceFunctions: SUM(x) as CASE(COUNT(x) = 0, NULL,
//     $SUM0(x)) and AVG(x) as SUM(x) / COUNT(x), equal calls shared,
//     kept where it leaves the aggregate fewer calls than the Calc it adds
//     costs, as Flink's Volcano planner chooses by FlinkLogicalAggregate's
//     cost (LOGICAL: AGGREGATE_REDUCE_FUNCTIONS; aggreduce.go);
//     - WatermarkIntoScan: a WatermarkAssigner over a scan whose source
//     generates watermarks (connectors.WatermarkPushDownSource) goes into
//     the scan, which prints watermark=[...] and watermarkEmitStrategy=[...];
//     across a Calc of computed columns the watermark expression inlines
//     them, the Calc computes the rowtime as Reinterpret(...) and merges
//     with a Calc above (LOGICAL_REWRITE:
//     PushWatermarkIntoTableSourceScanRule,
//     PushWatermarkIntoTableSourceScanAcrossCalcRule; watermark.go);
//     - FilterInCalcIntoScan: the filter over such a scan is offered to
//     its source, filter=[...] after watermark=[...] (LOGICAL_REWRITE:
//     PushFilterInCalcIntoTableSourceScanRule);
//     - SplitAggregate: under table.optimizer.distinct-agg.split.enabled,
//     an aggregate with a DISTINCT call (a regular one, or a window TVF
//     aggregate on event time) becomes a PARTIAL aggregate also grouped
//     by MOD(HASH_CODE(x), bucket-num) of its DISTINCT / MIN / MAX /
//     FIRST_VALUE / LAST_VALUE arguments (over an Expand when they group
//     differently) under a FINAL one that merges the partial results
//     (LOGICAL_REWRITE: SplitAggregateRule; splitagg.go); convert plans a
//     split window aggregate's partial one over the chain of Calcs and
//     Expands as a window aggregate on the time attribute and its final
//     one as a window aggregate on the partial one's window_start and
//     window_end (WindowAttachedWindowingStrategy; windowattached.go);
//     - then convert turns the logical tree into physical nodes (PHYSICAL:
//     a rank ordered by one time attribute over insert-only input is a
//     Deduplicate, StreamPhysicalDeduplicateRule; other ranks a Rank whose
//     strategy changelog inference picks;
//     every GroupAggregate gets its hash Exchange, joins their input
//     Exchanges with the equi-keys (a batch shuffled join none over an
//     input already hashed on them: FlinkExpandConversionRule with the
//     inputs' satisfyTraits, batchjoin.go; a batch aggregate over such an
//     input runs in one phase without one), upsert sources Exchange(hash[pk]) →
//     ChangelogNormalize exactly where DynamicSourceUtils.changelogNormalizeEnabled
//     says, with the source validation errors of validateScanSourceForStreaming;
//     StreamPhysicalTableSourceScanRule);
//     - WatermarkAssignerChangelogNormalizeTranspose: a WatermarkAssigner
//     (and the Calc under it) above an upsert source's ChangelogNormalize
//     moves below its Exchange (PHYSICAL_REWRITE's watermark transpose:
//     WatermarkAssignerChangelogNormalizeTransposeRule);
//     - PushCalcPastChangelogNormalize: key-only filter conjuncts (and a
//     projection the source could not take, or, over an Exchange of
//     something else than the scan, such as a WatermarkAssigner, a
//     projection of the fields used and the key) go below the normalize
//     (PHYSICAL_REWRITE: PushCalcPastChangelogNormalizeRule).
//     ../testdata/flinksuite measures the result against Flink's own
//     planner tests (TestFlinkSuites).
//
//  3. Changelog inference (changelog.go) is FlinkChangelogModeInferenceProgram
//     in its two passes, modify kinds up and required update kinds down,
//     with upsert keys per node; it inserts DropUpdateBefore, marks
//     aggregates as retracting (MIN/MAX not over an argument that only
//     grows or only shrinks: FlinkRelMdModifiedMonotonicity, monotonicity.go),
//     and decides the sink's upsert materializer.
//     Batch mode skips it and only checks that every source is
//     insert-only. Then reuseScans (reuse.go, Flink's ScanReuser in
//     SubplanReuser) merges the scans of one table that differ only in
//     their projected fields, across all of a statement set's sinks.
//
//  4. EXPLAIN (explain.go) prints the three sections with Calcite's tree
//     drawing; expressions print in Calcite's digest ($0, typed literals)
//     in the AST, Flink's prefix form in the physical plan and infix in the
//     execution plan. A batch statement's execution plan fuses what Flink's
//     MultipleInputNodeCreationProcessor fuses (multipleinput.go): a join
//     with the members feeding it up to their Exchanges prints as one
//     MultipleInput(readOrder=[...], members=[...]), unless
//     table.optimizer.multiple-input-enabled is off; the job is unchanged.
//     Plan.DOT draws the physical plan for Graphviz with every edge
//     labelled by its changelog mode.
//
// A Calc's condition is simplified as Calcite's RexSimplify does for
// Flink (expr.SimplifyFilter): comparisons of one field with literals
// become SEARCH(field, Sarg[...]); IN lists bind as ORs of equalities, as
// Calcite's SqlToRelConverter expands them. Its projections are reduced
// as Flink's ReduceExpressionsRule does (expr.SubstituteConstants): a field
// the condition fixes with "field = literal" becomes that constant, and
// calls over constants are folded.
//
// Expressions (package expr, aliased in expr.go) are typed once at binding
// and compiled into closures over row values; the runtime's Calc runs those
// closures and never sees the AST. exec/compile turns a Plan into the
// runtime's job graph.
//
// Regular joins (inner, left, right, full; semi and anti from IN / EXISTS
// subqueries in WHERE, and a left join on TRUE from a scalar subquery that
// is one aggregate row, see subquery.go) are planned
// with their hash Exchanges, input specs and upsert keys.
//
// Lookup joins (FOR SYSTEM_TIME AS OF a processing-time attribute) are
// planned in lookup.go: a LogicalCorrelate in the AST, the LookupJoin and
// LookupJoinPushDown rules, then Flink's LookupJoin node. Temporal joins
// against versioned tables (FOR SYSTEM_TIME AS OF a rowtime attribute, or
// a processing-time one on a table that is not a lookup source) are
// planned in temporaljoin.go: the same correlate, made a LogicalJoin with
// Flink's temporal join condition, then Flink's TemporalJoin node.
//
// What sqlrun's plans leave out compared with Flink: windows, batch
// HashJoin/SortMergeJoin naming, watermarks, computed and metadata columns, DISTINCT aggregates in batch
// mode (planned as one GroupAggregate), removing a GROUP BY on a unique
// key (FlinkAggregateRemoveRule), and a real cost model (ESTIMATED_COST
// prints a fixed estimate).
// Batch aggregates are planned two-phase as Flink does (Local and final
// Hash- or SortAggregate).
package plan
