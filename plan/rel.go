package plan

import (
	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Kind names a plan node. The same Rel type carries logical nodes (the
// Abstract Syntax Tree: Logical*) and physical ones; each kind uses the
// fields its comment in Rel names.
type Kind int

// Logical and physical node kinds, named as Flink prints them.
const (
	LogicalTableScan Kind = iota
	LogicalProject
	LogicalFilter
	LogicalAggregate
	LogicalValues
	LogicalUnion
	LogicalSort
	LogicalSink

	TableSourceScan
	Values
	Calc
	Exchange
	ChangelogNormalize
	DropUpdateBefore
	GroupAggregate
	Union
	Limit
	SortLimit
	Sink

	// Batch aggregation, two-phase as Flink plans it by default: a local
	// pre-aggregation per input subtask, an Exchange, and the final merge.
	LocalHashAggregate
	HashAggregate
	LocalSortAggregate
	SortAggregate
	Sort

	// Regular joins (streaming and batch alike).
	LogicalJoin
	Join
)

var kindNames = map[Kind]string{
	LogicalTableScan: "LogicalTableScan", LogicalProject: "LogicalProject", LogicalFilter: "LogicalFilter",
	LogicalAggregate: "LogicalAggregate", LogicalValues: "LogicalValues", LogicalUnion: "LogicalUnion",
	LogicalSort: "LogicalSort", LogicalSink: "LogicalSink",
	TableSourceScan: "TableSourceScan", Values: "Values", Calc: "Calc", Exchange: "Exchange",
	ChangelogNormalize: "ChangelogNormalize", DropUpdateBefore: "DropUpdateBefore", GroupAggregate: "GroupAggregate",
	Union: "Union", Limit: "Limit", SortLimit: "SortLimit", Sink: "Sink",
	LocalHashAggregate: "LocalHashAggregate", HashAggregate: "HashAggregate",
	LocalSortAggregate: "LocalSortAggregate", SortAggregate: "SortAggregate", Sort: "Sort",
	LogicalJoin: "LogicalJoin", Join: "Join",
}

func (k Kind) String() string { return kindNames[k] }

// TableRef is a resolved table reference: the catalog table, the options
// after OPTIONS hints, and the connector's description of it.
type TableRef struct {
	ID     connectors.ObjectIdentifier
	Table  *catalog.Table
	Schema sql.Schema
	// Options are the table options with hint options merged over them.
	Options map[string]string
	// Hints are the OPTIONS hint pairs in the order written.
	Hints   []ast.Option
	Factory connectors.Factory
	Source  connectors.TableSource
	Sink    connectors.TableSink
}

// AggCall is one aggregate call of an Aggregate.
type AggCall struct {
	// Func is COUNT, SUM, MIN, MAX or AVG.
	Func     string
	Distinct bool
	// Args are input field indexes (empty for COUNT(*)).
	Args []int
	Name string
	T    sql.DataType
	// Retract is set on updating input (printed as SUM_RETRACT etc.).
	Retract bool
}

// SortKey is one ORDER BY key over the input fields.
type SortKey struct {
	Field      int
	Desc       bool
	NullsFirst bool
}

// Rel is one plan node.
type Rel struct {
	Kind   Kind
	Inputs []*Rel
	// Names and Types describe the output row.
	Names []string
	Types []sql.DataType

	// Table is the scanned or written table (scans, sinks).
	Table *TableRef
	// Project is the projection pushed into a TableSourceScan (nil: all
	// columns in order).
	Project []int
	// FilterDigest is the filter=[...] digest of a scan whose source
	// accepted the query's filters.
	FilterDigest string
	// FilterPushed marks a scan whose source was offered the filters above
	// it (Flink's SupportsFilterPushDown): it prints filter=[FilterDigest]
	// even when the source accepted none.
	FilterPushed bool

	// Exprs and Cond are a Project's / Calc's expressions and a Filter's /
	// Calc's condition.
	Exprs []Expr
	Cond  Expr

	// Group and Aggs are an Aggregate's group fields and calls.
	Group []int
	Aggs  []AggCall

	// Rows are the tuples of Values (literals).
	Rows [][]Expr
	// Batch marks a Values planned in batch mode: BatchPhysicalValues
	// prints values=[names], StreamPhysicalValues (Calcite's Values) does
	// not.
	Batch bool

	// Keys are an Exchange's hash fields (nil with Single) or a
	// ChangelogNormalize's key.
	Keys   []int
	Single bool

	// Order, Offset and Fetch describe Sort / Limit (Fetch < 0: none).
	Order  []SortKey
	Offset int64
	Fetch  int64

	// All is UNION ALL.
	All bool

	// JoinType is a join's kind (INNER, LEFT, RIGHT, FULL); LeftKeys and
	// RightKeys are the equi-join fields of each input (a Join's Cond is
	// the whole condition over the concatenated row).
	JoinType  ast.JoinKind
	LeftKeys  []int
	RightKeys []int

	// TargetColumns are the sink positions of an explicit INSERT column
	// list; UpsertMaterialize is the sink's SinkUpsertMaterializer.
	TargetColumns []int
	// SinkHints are the OPTIONS hint pairs written after the sink table.
	SinkHints         []ast.Option
	UpsertMaterialize bool
	// Collect marks the sink of a SELECT (the client's collect sink), which
	// EXPLAIN does not print.
	Collect bool

	// Mode is the changelog mode this node produces (sinks: NoChanges),
	// and UpsertKeys its unique keys, both set by changelog inference.
	Mode       sql.ChangelogMode
	UpsertKeys [][]int
}

func (r *Rel) input() *Rel { return r.Inputs[0] }

// Walk visits r and its inputs depth first, parents before children.
func (r *Rel) Walk(f func(*Rel)) {
	f(r)
	for _, in := range r.Inputs {
		in.Walk(f)
	}
}
