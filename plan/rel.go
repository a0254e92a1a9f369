package plan

import (
	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"strconv"
)

// Node is one plan node. Each node kind is its own type (logical.go: the
// Logical* nodes of the Abstract Syntax Tree; nodes.go: the physical
// ones), as go-mysql-server's sql/plan has one type per node; this
// interface is what every kind shares.
//
// The interface has unexported methods: only this package defines nodes.
type Node interface {
	// Name is the node's kind as Flink prints it ("Calc", "LogicalProject").
	Name() string
	// Inputs are the node's children, left to right.
	Inputs() []Node
	// WithInputs returns a shallow copy of the node over other inputs.
	WithInputs(inputs ...Node) Node
	// Names and Types describe the output row.
	Names() []string
	Types() []sql.DataType
	// Mode is the changelog mode the node produces (sinks: NoChanges), set
	// by changelog inference; UpsertKeys are its unique keys.
	Mode() sql.ChangelogMode
	UpsertKeys() [][]int

	// describe is the node's one-line text (see Digest).
	describe(f Format) string
	head() *base
	input() Node
}

// base is what every node carries: inputs, row type and the traits
// changelog inference sets.
type base struct {
	inputs     []Node
	names      []string
	types      []sql.DataType
	mode       sql.ChangelogMode
	upsertKeys [][]int
}

func row(names []string, types []sql.DataType, inputs ...Node) base {
	return base{inputs: inputs, names: names, types: types}
}

// sameRow is the row of in, over in.
func sameRow(in Node) base { return row(in.Names(), in.Types(), in) }

func (b *base) Inputs() []Node          { return b.inputs }
func (b *base) Names() []string         { return b.names }
func (b *base) Types() []sql.DataType   { return b.types }
func (b *base) Mode() sql.ChangelogMode { return b.mode }
func (b *base) UpsertKeys() [][]int     { return b.upsertKeys }
func (b *base) head() *base             { return b }
func (b *base) input() Node             { return b.inputs[0] }
func (b *base) with(inputs []Node) base { c := *b; c.inputs = inputs; return c }

// Walk visits n and its inputs depth first, parents before children.
func Walk(n Node, f func(Node)) {
	f(n)
	for _, in := range n.Inputs() {
		Walk(in, f)
	}
}

// Digest is the node's one-line text in EXPLAIN's optimized physical plan
// (without children or changelog mode), e.g.
// "ChangelogNormalize(key=[id])". Renderers outside this package (the DOT
// picture, plan/dot) show it in full where they abbreviate the label.
func Digest(n Node) string { return n.describe(FormatPrefix) }

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
	// MetadataKeys are the metadata keys the source reads after the
	// physical columns (metadata=[...] of the scan's digest).
	MetadataKeys []string
	Source       connectors.TableSource
	Sink         connectors.TableSink
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
	// Filtered says the call reads only the rows whose BOOLEAN NOT NULL
	// input field Filter is TRUE: AGG(...) FILTER (WHERE cond), whose cond
	// Calcite's SqlToRelConverter (AggConverter) projects below the
	// aggregate, wrapped in IS TRUE when nullable (Calcite's filterArg).
	Filtered bool
	Filter   int
	// Unnamed is a call no select item names (nested in an expression or
	// in HAVING): Calcite names its field $f<position> in every aggregate
	// a rule builds from it.
	Unnamed bool
	// UDF is the user-defined aggregate function the call is of (Func
	// is then its registered name), nil for a built-in one.
	UDF *UserFunction
	// ArgLits, when set, are an OVER call's arguments that are constants
	// (LEAD/LAG's offset and default, NTILE's bucket count), one entry per
	// argument, nil for those read from the fields in Args, in order.
	ArgLits []*Literal
}

// fieldName is the call's field name at position pos of an aggregate's
// output.
func (a AggCall) fieldName(pos int) string {
	if a.Unnamed {
		return "$f" + strconv.Itoa(pos)
	}
	return a.Name
}

// fields are the input fields the call reads: its arguments and its
// FILTER field.
func (a AggCall) fields() []int {
	if !a.Filtered {
		return a.Args
	}
	return append(append([]int(nil), a.Args...), a.Filter)
}

// remapped is the call reading field m(f) for each field f it reads.
func (a AggCall) remapped(m func(int) int) AggCall {
	args := make([]int, len(a.Args))
	for i, f := range a.Args {
		args[i] = m(f)
	}
	a.Args = args
	if a.Filtered {
		a.Filter = m(a.Filter)
	}
	return a
}

// SortKey is one ORDER BY key over the input fields.
type SortKey struct {
	Field      int
	Desc       bool
	NullsFirst bool
}
