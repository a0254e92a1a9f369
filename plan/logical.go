package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql/ast"
)

// The logical nodes: the tree binding builds and EXPLAIN prints as the
// Abstract Syntax Tree, shaped as Calcite's SqlToRelConverter shapes it.

// LogicalTableScan reads a table. In the AST it has only Table; the
// FilterIntoScan and ProjectIntoScan rules give it Flink's push-down specs
// (it is then Flink's FlinkLogicalTableSourceScan): the projected fields
// and the filter digest, as TableSourceScan prints them.
type LogicalTableScan struct {
	base
	Table        *TableRef
	Project      []int
	FilterDigest string
	FilterPushed bool
	// Watermark is the WATERMARK FOR clause pushed into the source
	// (WatermarkIntoScan).
	Watermark *PushedWatermark
	// Limit is the limit pushed into the source (LimitIntoScan); 0:
	// none (a LIMIT 0 never reaches a scan).
	Limit int64
}

// LogicalProject computes Exprs over its input.
type LogicalProject struct {
	base
	Exprs []Expr
}

// LogicalFilter keeps the rows where Cond is true.
type LogicalFilter struct {
	base
	Cond Expr
}

// LogicalAggregate groups by Group (input fields) and computes Aggs.
type LogicalAggregate struct {
	base
	Group []int
	Aggs  []AggCall
	// Sets are the grouping sets (GROUPING SETS / ROLLUP / CUBE) as sorted
	// input fields, in Calcite's order; nil for a plain GROUP BY.
	Sets [][]int
	// PartialFinal is the aggregate's part in a split distinct aggregation
	// (splitAggregate).
	PartialFinal PartialFinal
	// Converted marks the aggregate the binder builds of a query's GROUP
	// BY (SqlToRelConverter's): a call no select item names prints as
	// agg#<i> there (Calcite's Aggregate.explainTerms for a call whose
	// name is null: agg#1=[GROUPING($0)], GroupingSetsTest
	// .testGroupingInOrderByClause), and as its field $f<position> in
	// the aggregates rules build.
	Converted bool
}

// LogicalValues is a literal relation.
type LogicalValues struct {
	base
	Rows [][]Expr
}

// LogicalUnion concatenates its inputs (All: UNION ALL).
type LogicalUnion struct {
	base
	All bool
}

// LogicalSort orders, offsets and limits (Fetch < 0: no limit).
type LogicalSort struct {
	base
	Order  []SortKey
	Offset int64
	Fetch  int64
}

// LogicalSink writes its input into a table.
type LogicalSink struct {
	base
	Table *TableRef
	// TargetColumns are the sink positions of an explicit INSERT column
	// list.
	TargetColumns []int
	// SinkHints are the OPTIONS hint pairs written after the sink table.
	SinkHints []ast.Option
}

// LogicalJoin joins two inputs on Cond (over the concatenated row).
type LogicalJoin struct {
	base
	Cond     Expr
	JoinType ast.JoinKind
	// pushed marks a join the JoinPushDown rule has made (its inputs
	// project and filter what the join needs).
	pushed bool
	// queryHints are its query block's join hints as the AST prints
	// them; joinHints those that name one of its inputs (joinhint.go).
	queryHints []queryHint
	joinHints  []joinHint
}

// LogicalCalc is Flink's FlinkLogicalCalc: a projection and an optional
// condition. The CalcMerge rule makes it from LogicalProject /
// LogicalFilter chains; it never appears in the AST.
type LogicalCalc struct {
	base
	Exprs []Expr
	Cond  Expr
	// fresh marks a projection made after Flink's expression reduction
	// (FlinkProjectJoinTransposeRule's over a join input that had none):
	// the fields its condition fixes stay references, not constants
	// (JoinTest.testLeftJoinWithJoinConditionPushDown:
	// Calc(select=[b1, b2], where=[(b2 = 1)])).
	fresh bool
	// projected marks a Calc that CalcMerge made of a chain with a
	// LogicalProject: Calcite's ReduceExpressionsRule.PROJECT_INSTANCE
	// reduces a projection with the predicates pulled up from below it, a
	// Filter alone has none to reduce.
	projected bool
	// pinned marks the projection CalcRankTransposeRule puts below a rank
	// (LOGICAL_REWRITE): no project rule of an earlier program moves it
	// past a window table function or a watermark assigner.
	pinned bool
}

func (*LogicalTableScan) Name() string { return "LogicalTableScan" }
func (*LogicalProject) Name() string   { return "LogicalProject" }
func (*LogicalFilter) Name() string    { return "LogicalFilter" }
func (*LogicalAggregate) Name() string { return "LogicalAggregate" }
func (*LogicalValues) Name() string    { return "LogicalValues" }
func (*LogicalUnion) Name() string     { return "LogicalUnion" }
func (*LogicalSort) Name() string      { return "LogicalSort" }
func (*LogicalSink) Name() string      { return "LogicalSink" }
func (*LogicalJoin) Name() string      { return "LogicalJoin" }
func (*LogicalCalc) Name() string      { return "FlinkLogicalCalc" }

func (n *LogicalCalc) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalCalc) describe(f Format) string {
	return calcDigest("FlinkLogicalCalc", n.Exprs, n.Cond, n.input().Names(), n.names, f)
}

func (n *LogicalTableScan) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalProject) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalFilter) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalValues) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalUnion) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalSort) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalSink) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalJoin) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalSink) describe(Format) string {
	return "LogicalSink(table=[" + n.Table.ID.String() + "], " + targetCols(n.TargetColumns) + "fields=[" +
		strings.Join(n.names, ", ") + "]" + sinkHintText(n.SinkHints) + ")"
}

func (n *LogicalProject) describe(f Format) string {
	in := n.input().Names()
	parts := make([]string, len(n.Exprs))
	for i, e := range n.Exprs {
		parts[i] = n.names[i] + "=[" + FormatExpr(e, in, f) + "]"
	}
	return "LogicalProject(" + strings.Join(parts, ", ") + ")"
}

func (n *LogicalFilter) describe(f Format) string {
	return "LogicalFilter(condition=[" + FormatExpr(n.Cond, n.input().Names(), f) + "])"
}

func (n *LogicalAggregate) describe(Format) string {
	g := make([]string, len(n.Group))
	for i, x := range n.Group {
		g[i] = strconv.Itoa(x)
	}
	s := "LogicalAggregate(group=[{" + strings.Join(g, ", ") + "}]"
	if n.Sets != nil {
		sets := make([]string, len(n.Sets))
		for i, x := range n.Sets {
			sets[i] = setString(x)
		}
		s += ", groups=[[" + strings.Join(sets, ", ") + "]]"
	}
	for k, a := range n.Aggs {
		name := a.Name
		if n.Converted && a.Unnamed {
			name = "agg#" + strconv.Itoa(k)
		}
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = "$" + strconv.Itoa(x)
		}
		d := ""
		if a.Distinct {
			d = "DISTINCT "
		}
		filter := ""
		if a.Filtered {
			filter = " FILTER $" + strconv.Itoa(a.Filter)
		}
		s += ", " + name + "=[" + a.Func + "(" + d + strings.Join(args, ", ") + ")" + filter + "]"
	}
	return s + ")"
}

func (n *LogicalTableScan) describe(Format) string {
	if n.Project != nil || n.FilterPushed || n.Watermark != nil || n.Limit > 0 {
		return scanDigest("FlinkLogicalTableSourceScan", n.Table, n.Project, n.FilterDigest, n.FilterPushed, n.Limit, n.Watermark, n.names)
	}
	s := "LogicalTableScan(table=[[" + tablePath(n.Table)
	if len(n.Table.MetadataKeys) > 0 {
		s += ", metadata=[" + strings.Join(n.Table.MetadataKeys, ", ") + "]"
	}
	s += "]]"
	if len(n.Table.Hints) > 0 {
		s += ", hints=[[[OPTIONS inheritPath:[] options:" + hintMap(n.Table.Hints) + "]]]"
	}
	return s + ")"
}

func (n *LogicalValues) describe(f Format) string {
	return "LogicalValues(tuples=[" + tuples(n.Rows, f) + "])"
}

func (n *LogicalJoin) describe(f Format) string {
	return "LogicalJoin(condition=[" + FormatExpr(n.Cond, nil, f) + "], joinType=[" + strings.ToLower(string(n.JoinType)) + "]" +
		joinHintsDigest(n.queryHints) + ")"
}

func (n *LogicalUnion) describe(Format) string {
	return "LogicalUnion(all=[" + strconv.FormatBool(n.All) + "])"
}

func (n *LogicalSort) describe(Format) string {
	var parts []string
	for i, k := range n.Order {
		parts = append(parts, fmt.Sprintf("sort%d=[$%d]", i, k.Field))
	}
	for i, k := range n.Order {
		// Calcite's RelFieldCollation.shortString: the null direction is
		// printed when it is not the direction's default (NULLS LAST for
		// ASC, NULLS FIRST for DESC).
		d := "ASC"
		if k.NullsFirst {
			d += "-nulls-first"
		}
		if k.Desc {
			d = "DESC"
			if !k.NullsFirst {
				d += "-nulls-last"
			}
		}
		parts = append(parts, fmt.Sprintf("dir%d=[%s]", i, d))
	}
	if n.Offset > 0 {
		parts = append(parts, fmt.Sprintf("offset=[%d]", n.Offset))
	}
	if n.Fetch >= 0 {
		parts = append(parts, fmt.Sprintf("fetch=[%d]", n.Fetch))
	}
	return "LogicalSort(" + strings.Join(parts, ", ") + ")"
}
