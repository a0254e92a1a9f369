package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The physical nodes: the Optimized Physical Plan, named as Flink prints
// them (StreamPhysical*/BatchPhysical* without the prefix). exec/compile
// turns each into runtime operators.

// TableSourceScan reads a table through its connector's source.
type TableSourceScan struct {
	base
	Table *TableRef
	// Project is the projection pushed into the source (nil: all columns
	// in order).
	Project []int
	// FilterDigest is the filter=[...] digest of a scan whose source
	// accepted the query's filters.
	FilterDigest string
	// FilterPushed marks a scan whose source was offered the filters above
	// it (Flink's SupportsFilterPushDown): it prints filter=[FilterDigest]
	// even when the source accepted none.
	FilterPushed bool
	// Watermark is the WATERMARK FOR clause the source generates.
	Watermark *PushedWatermark
	// Limit is the limit pushed into the source (0: none).
	Limit int64
}

// Values is a literal relation. Batch marks one planned in batch mode:
// BatchPhysicalValues prints values=[names], StreamPhysicalValues does
// not.
type Values struct {
	base
	Rows  [][]Expr
	Batch bool
}

// Calc is a projection (Exprs) and an optional condition (Cond) over its
// input.
type Calc struct {
	base
	Exprs []Expr
	Cond  Expr
}

// Exchange redistributes rows: by a hash of Keys, or all to one task
// (Single).
type Exchange struct {
	base
	Keys   []int
	Single bool
	// Broadcast sends every row to every task (a batch join's build
	// side).
	Broadcast bool
}

// ChangelogNormalize keeps the last row per Keys and turns an upsert or
// duplicated changelog into a retracting one.
type ChangelogNormalize struct {
	base
	Keys []int
}

// DropUpdateBefore drops -U rows for a consumer that needs +U only.
type DropUpdateBefore struct{ base }

// GroupAggregate is a streaming (or one-phase batch) aggregate over a hash
// Exchange on Group. OnePhase marks a batch aggregate over an input
// already hashed on Group, with no Exchange (BatchPhysicalHashAggRule /
// BatchPhysicalSortAggRule's one-phase aggregate, isMerge=[false]); Sorted
// makes it a SortAggregate over an input already sorted on Group.
type GroupAggregate struct {
	base
	Group            []int
	Aggs             []AggCall
	OnePhase, Sorted bool
	// PartialFinal is the aggregate's part in a split distinct aggregation
	// (splitAggregate), printed partialFinalType=[...].
	PartialFinal PartialFinal
}

// LocalAggregate is the first phase of a batch two-phase aggregate
// (LocalHashAggregate or, with Hash false, LocalSortAggregate): partial
// accumulators per input subtask.
type LocalAggregate struct {
	base
	Group []int
	Aggs  []AggCall
	Hash  bool
}

// FinalAggregate merges LocalAggregate's accumulators after the Exchange
// (HashAggregate or SortAggregate with isMerge=[true]). Group are the
// original input's group fields, the local phase's first fields.
type FinalAggregate struct {
	base
	Group []int
	Aggs  []AggCall
	Hash  bool
}

// Sort orders a batch input (below a sort aggregate). With Stream it is
// Flink's StreamPhysicalSort: a streaming ORDER BY without LIMIT that is
// no TemporalSort, over a single Exchange, whose plan Flink prints (its
// plan tests: SortTest) and whose translation it refuses (StreamExecSort,
// unless its internal testing option is set): CheckTranslation.
type Sort struct {
	base
	Order  []SortKey
	Stream bool
}

// Union merges its inputs (UNION ALL).
type Union struct{ base }

// Limit passes Fetch rows after Offset (Fetch < 0: unlimited). A batch
// Limit is BatchPhysicalLimit: a local one (Global false, offset 0) on
// each task, a global one over the single Exchange.
type Limit struct {
	base
	Offset        int64
	Fetch         int64
	Batch, Global bool
	// Strategy and StrategyKey are a streaming SortLimit's, set by
	// changelog inference as a Rank's are.
	Strategy    string
	StrategyKey []int
}

// SortLimit is ORDER BY with a limit (or a batch ORDER BY without one,
// Fetch < 0). A batch SortLimit is BatchPhysicalSortLimit, local or
// global as a batch Limit.
type SortLimit struct {
	base
	Order         []SortKey
	Offset        int64
	Fetch         int64
	Batch, Global bool
	// Strategy and StrategyKey are a streaming SortLimit's, set by
	// changelog inference as a Rank's are.
	Strategy    string
	StrategyKey []int
}

// Join is a regular join; LeftKeys and RightKeys are the equi-join fields
// of each input, Cond the whole condition over the concatenated row.
type Join struct {
	base
	Cond      Expr
	JoinType  ast.JoinKind
	LeftKeys  []int
	RightKeys []int
	// NullSafe, when not nil, marks the keys (by index) that match NULL
	// with NULL: IS NOT DISTINCT FROM keys (Flink's JoinSpec filterNulls
	// false), which only the streaming join takes (newStreamJoin).
	NullSafe []bool
	// Strategy is a batch join's (batchjoin.go): HashJoin, SortMergeJoin
	// or NestedLoopJoin; empty for the streaming Join.
	Strategy string
	// LeftIsBuild: the left input is the hash table or the nested loop's
	// inner (buffered) side. Broadcast: a broadcast hash join.
	LeftIsBuild, Broadcast bool
	// SingleRow: a NestedLoopJoin whose other side is one row by
	// construction (BatchPhysicalJoinRuleBase.isSingleRowJoin).
	SingleRow bool
	// TryDistinctBuildRow: a SEMI or ANTI hash join reading its right
	// input through a local distinct (BatchPhysicalHashJoinRule,
	// chooseSemiBuildDistinct).
	TryDistinctBuildRow bool
	// MiniBatch: a streaming join planned with table.exec.mini-batch.enabled
	// (StreamPhysicalJoin prints miniBatch=[true]; minibatch.go).
	MiniBatch bool
}

// Sink writes into a table, or for a query into the client's collect sink
// (Collect), which EXPLAIN does not print.
type Sink struct {
	base
	Table         *TableRef
	TargetColumns []int
	SinkHints     []ast.Option
	// UpsertMaterialize is the sink's SinkUpsertMaterializer.
	UpsertMaterialize bool
	Collect           bool
}

func (*TableSourceScan) Name() string    { return "TableSourceScan" }
func (*Values) Name() string             { return "Values" }
func (*Calc) Name() string               { return "Calc" }
func (*Exchange) Name() string           { return "Exchange" }
func (*ChangelogNormalize) Name() string { return "ChangelogNormalize" }
func (*DropUpdateBefore) Name() string   { return "DropUpdateBefore" }
func (*Sort) Name() string               { return "Sort" }
func (*Union) Name() string              { return "Union" }
func (*Limit) Name() string              { return "Limit" }
func (*SortLimit) Name() string          { return "SortLimit" }
func (n *Join) Name() string {
	if n.Strategy != "" {
		return n.Strategy
	}
	return "Join"
}
func (*Sink) Name() string { return "Sink" }

func (n *GroupAggregate) Name() string {
	switch {
	case n.OnePhase && n.Sorted:
		return "SortAggregate"
	case n.OnePhase:
		return "HashAggregate"
	}
	return "GroupAggregate"
}

func (n *LocalAggregate) Name() string {
	if n.Hash {
		return "LocalHashAggregate"
	}
	return "LocalSortAggregate"
}

func (n *FinalAggregate) Name() string {
	if n.Hash {
		return "HashAggregate"
	}
	return "SortAggregate"
}

func (n *TableSourceScan) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Values) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Calc) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Exchange) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *ChangelogNormalize) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *DropUpdateBefore) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *GroupAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LocalAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *FinalAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Sort) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Union) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Limit) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *SortLimit) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Join) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *Sink) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *TableSourceScan) describe(Format) string {
	return scanDigest("TableSourceScan", n.Table, n.Project, n.FilterDigest, n.FilterPushed, n.Limit, n.Watermark, n.names)
}

// scanDigest prints the scan's source ability specs in the order Flink
// applied them: a filter pushed at PREDICATE_PUSHDOWN first, then the
// projection and metadata, then a pushed watermark (LOGICAL_REWRITE), and
// a filter that only reached the scan once the watermark was in it
// (PushFilterInCalcIntoTableSourceScanRule) after that.
func scanDigest(name string, t *TableRef, project []int, filterDigest string, filterPushed bool, limit int64, wm *PushedWatermark, fields []string) string {
	s := name + "(table=[[" + tablePath(t)
	filter := ""
	if filterDigest != "" || filterPushed {
		filter = ", filter=[" + filterDigest + "]"
	}
	if wm == nil {
		s += filter
	}
	switch {
	case project != nil && len(t.MetadataKeys) > 0:
		// Flink's ProjectPushDownSpec names the physical fields,
		// ReadingMetadataSpec the metadata keys still read.
		np := len(t.Schema.Columns)
		var pf, keys []string
		for i, f := range project {
			if f < np {
				pf = append(pf, fields[i])
			} else {
				keys = append(keys, t.MetadataKeys[f-np])
			}
		}
		s += ", project=[" + strings.Join(pf, ", ") + "], metadata=[" + strings.Join(keys, ", ") + "]"
	case project != nil:
		s += ", project=[" + strings.Join(fields, ", ") + "]"
		if m, ok := t.Source.(connectors.MetadataReader); ok && m.ReadsMetadata() {
			s += ", metadata=[]"
		}
	case len(t.MetadataKeys) > 0:
		s += ", metadata=[" + strings.Join(t.MetadataKeys, ", ") + "]"
	}
	if limit > 0 {
		// LimitPushDownSpec, applied in LOGICAL after the projection
		// and before LOGICAL_REWRITE's watermark.
		s += ", limit=[" + strconv.FormatInt(limit, 10) + "]"
	}
	if wm != nil {
		s += ", " + wm.digest(fields) + filter
	}
	if d, ok := t.Source.(connectors.SupportsExplainDigest); ok {
		for _, x := range d.ExplainDigests() {
			s += ", " + x
		}
	}
	s += "]], fields=[" + strings.Join(fields, ", ") + "]"
	if len(t.Hints) > 0 {
		s += ", hints=[[[OPTIONS options:" + hintMap(t.Hints) + "]]]"
	}
	return s + ")"
}

func (n *Values) describe(f Format) string {
	if !n.Batch {
		return "Values(tuples=[" + tuples(n.Rows, f) + "])"
	}
	return "Values(tuples=[" + tuples(n.Rows, f) + "], values=[" + strings.Join(n.names, ", ") + "])"
}

func (n *Calc) describe(f Format) string {
	return calcDigest("Calc", n.Exprs, n.Cond, n.input().Names(), n.names, f)
}

func calcDigest(name string, exprs []Expr, cond Expr, in, out []string, f Format) string {
	parts := make([]string, len(exprs))
	for i, e := range exprs {
		s := FormatExpr(e, in, f)
		if r, ok := e.(*InputRef); !ok || in[r.Index] != out[i] {
			s += " AS " + out[i]
		}
		parts[i] = s
	}
	s := name + "(select=[" + strings.Join(parts, ", ") + "]"
	if cond != nil {
		s += ", where=[" + FormatExpr(cond, in, f) + "]"
	}
	return s + ")"
}

func (n *Exchange) describe(Format) string {
	if n.Broadcast {
		return "Exchange(distribution=[broadcast])"
	}
	if n.Single {
		return "Exchange(distribution=[single])"
	}
	return "Exchange(distribution=[hash[" + names(n.input().Names(), n.Keys) + "]])"
}

func (n *ChangelogNormalize) describe(Format) string {
	return "ChangelogNormalize(key=[" + names(n.input().Names(), n.Keys) + "])"
}

func (n *DropUpdateBefore) describe(Format) string { return "DropUpdateBefore" }

func (n *GroupAggregate) describe(Format) string {
	in := n.input().Names()
	var sel []string
	for _, g := range n.Group {
		sel = append(sel, in[g])
	}
	// Named by the output row's fields, as RelExplainUtil's
	// groupAggregationToString zips the calls with the row type's names
	// (a second call named c is c_0, Aggregate.deriveRowType).
	for i, a := range n.Aggs {
		sel = append(sel, aggString(a, in)+" AS "+n.names[len(n.Group)+i])
	}
	s := "GroupAggregate("
	if n.OnePhase {
		s = n.Name() + "(isMerge=[false], "
	}
	if len(n.Group) > 0 {
		s += "groupBy=[" + names(in, n.Group) + "], "
	}
	return s + n.PartialFinal.term() + "select=[" + strings.Join(sel, ", ") + "])"
}

func (n *LocalAggregate) describe(Format) string {
	in := n.input().Names()
	bufs, _ := accBuffers(n.Aggs, func(a AggCall) sql.DataType { return n.input().Types()[a.Args[0]] })
	var sel []string
	for _, g := range n.Group {
		sel = append(sel, in[g])
	}
	for i, a := range n.Aggs {
		args := "*"
		if len(a.Args) > 0 {
			args = names(in, a.Args)
		}
		as := bufs[i][0]
		if len(bufs[i]) > 1 {
			as = "(" + strings.Join(bufs[i], ", ") + ")"
		}
		if a.Filtered {
			// RelExplainUtil.aggregationToString: the call's filterArg by
			// its input field's name.
			args += ") FILTER " + names(in, []int{a.Filter})
		} else {
			args += ")"
		}
		sel = append(sel, "Partial_"+a.Func+"("+args+" AS "+as)
	}
	s := n.Name() + "("
	if len(n.Group) > 0 {
		s += "groupBy=[" + names(in, n.Group) + "], "
	}
	return s + "select=[" + strings.Join(sel, ", ") + "])"
}

// Local is the aggregate's local phase below its Exchange and Sorts.
func (n *FinalAggregate) Local() *LocalAggregate {
	in := n.input()
	for {
		switch x := in.(type) {
		case *Exchange, *Sort:
			in = x.input()
		case *LocalAggregate:
			return x
		default:
			return nil
		}
	}
}

func (n *FinalAggregate) describe(Format) string {
	local := n.Local()
	bufs, _ := accBuffers(n.Aggs, func(a AggCall) sql.DataType { return local.input().Types()[a.Args[0]] })
	var sel []string
	groupNames := local.names[:len(n.Group)]
	sel = append(sel, groupNames...)
	for i, a := range n.Aggs {
		call := "Final_" + a.Func + "(" + strings.Join(bufs[i], ", ") + ")"
		if a.Filtered && a.Filter < len(local.names) {
			// aggregationToString prints a merge's filterArg too, by the
			// name of the local phase's field at that index, when there
			// is one (the index is the original input's).
			call += " FILTER " + local.names[a.Filter]
		}
		sel = append(sel, call+" AS "+a.Name)
	}
	s := n.Name() + "(isMerge=[true], "
	if len(n.Group) > 0 {
		s += "groupBy=[" + strings.Join(groupNames, ", ") + "], "
	}
	return s + "select=[" + strings.Join(sel, ", ") + "])"
}

func orderText(order []SortKey, in []string) string {
	var parts []string
	for _, k := range order {
		d := "ASC"
		if k.Desc {
			d = "DESC"
		}
		parts = append(parts, in[k.Field]+" "+d)
	}
	return strings.Join(parts, ", ")
}

func (n *Sort) describe(Format) string {
	return "Sort(orderBy=[" + orderText(n.Order, n.input().Names()) + "])"
}

func (n *Union) describe(Format) string {
	return "Union(all=[true], union=[" + strings.Join(n.names, ", ") + "])"
}

func (n *Limit) describe(Format) string {
	if n.Batch {
		return fmt.Sprintf("Limit(offset=[%d], fetch=[%s], global=[%t])", n.Offset, fetchText(n.Fetch), n.Global)
	}
	return fmt.Sprintf("Limit(offset=[%d], fetch=[%s])", n.Offset, fetchText(n.Fetch))
}

func (n *SortLimit) describe(Format) string {
	order := orderText(n.Order, n.input().Names())
	if n.Fetch < 0 && n.Offset == 0 {
		return fmt.Sprintf("Sort(orderBy=[%s])", order)
	}
	if n.Batch {
		return fmt.Sprintf("SortLimit(orderBy=[%s], offset=[%d], fetch=[%s], global=[%t])", order, n.Offset, fetchText(n.Fetch), n.Global)
	}
	return fmt.Sprintf("SortLimit(orderBy=[%s], offset=[%d], fetch=[%s], strategy=[%s])", order, n.Offset, fetchText(n.Fetch), strategyText(n.Strategy, n.StrategyKey))
}

func (n *Join) describe(f Format) string {
	if n.Strategy != "" {
		return n.batchJoinDigest(f)
	}
	// The condition reads both inputs' fields, which a semi or anti join's
	// select does not show.
	both := uniquify(append(append([]string(nil), n.inputs[0].Names()...), n.inputs[1].Names()...))
	return "Join(joinType=[" + joinTypeName(n.JoinType) + "], where=[" + FormatExpr(n.Cond, both, f) + "], select=[" +
		strings.Join(n.names, ", ") + "], leftInputSpec=[" + inputSpec(n.inputs[0], n.LeftKeys) +
		"], rightInputSpec=[" + inputSpec(n.inputs[1], n.RightKeys) + "]" + miniBatchTerm(n.MiniBatch) + ")"
}

func miniBatchTerm(on bool) string {
	if on {
		return ", miniBatch=[true]"
	}
	return ""
}

func (n *Sink) describe(Format) string {
	// StreamPhysicalSink / BatchPhysicalSink print their input's field
	// names (getRowType of the sink is its input's row type).
	fields := strings.Join(n.input().Names(), ", ")
	if n.Collect {
		return "Sink(table=[*anonymous_collect$1*], fields=[" + fields + "])"
	}
	s := "Sink(table=[" + n.Table.ID.String() + "], " + targetCols(n.TargetColumns) + "fields=[" + fields + "]"
	s += sinkHintText(n.SinkHints)
	if n.UpsertMaterialize {
		s += ", upsertMaterialize=[true]"
	}
	return s + ")"
}
