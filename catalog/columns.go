package catalog

import (
	"sort"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// ColumnKind tells Flink's three kinds of columns apart (Column.Physical,
// Column.Computed, Column.Metadata of Flink's ResolvedSchema).
type ColumnKind int

// The column kinds.
const (
	Physical ColumnKind = iota
	Computed
	Metadata
)

// TableColumn is one column of a table as declared, of any kind.
type TableColumn struct {
	sql.Column
	Kind ColumnKind
	// Expr is a computed column's expression; ExprSQL its text with the
	// column names quoted, as Flink stores and prints it ("`a` + 1").
	// Type is resolved by the planner (plan.ResolveComputedColumns).
	Expr    ast.Expr
	ExprSQL string
	// MetadataKey is the FROM key of a metadata column, "" when absent
	// (the column's name is the key then).
	MetadataKey string
	// Virtual marks a metadata column that is read only (METADATA VIRTUAL).
	Virtual bool
}

// Key is the metadata key a metadata column reads: its FROM key, else
// its name.
func (c TableColumn) Key() string {
	if c.MetadataKey != "" {
		return c.MetadataKey
	}
	return c.Name
}

// IsProctime reports a computed column declared AS PROCTIME(): its type
// is Flink's processing-time attribute, TIMESTAMP_LTZ(3) *PROCTIME*.
func (c TableColumn) IsProctime() bool {
	return c.Kind == Computed && c.ExprSQL == "PROCTIME()"
}

// Extras is DESCRIBE's extras cell, Flink's Column.explainExtras: "AS
// expr" for a computed column, "METADATA [FROM 'key'] [VIRTUAL]" for a
// metadata column, "" for a physical one.
func (c TableColumn) Extras() string {
	switch c.Kind {
	case Computed:
		return "AS " + c.ExprSQL
	case Metadata:
		s := "METADATA"
		if c.MetadataKey != "" {
			s += " FROM " + ast.QuoteString(c.MetadataKey)
		}
		if c.Virtual {
			s += " VIRTUAL"
		}
		return s
	}
	return ""
}

// NonPhysicalColumn is a computed or metadata column with its position
// among all of the table's columns.
type NonPhysicalColumn struct {
	TableColumn
	Pos int
}

// Columns lists every column in declaration order: the physical ones of
// Schema with the computed and metadata ones of NonPhysical between them.
func (t *Table) Columns() []TableColumn {
	out := make([]TableColumn, 0, len(t.Schema.Columns)+len(t.NonPhysical))
	phys := t.Schema.Columns
	for _, np := range t.NonPhysical {
		for len(out) < np.Pos && len(phys) > 0 {
			out = append(out, TableColumn{Column: phys[0]})
			phys = phys[1:]
		}
		out = append(out, np.TableColumn)
	}
	for _, c := range phys {
		out = append(out, TableColumn{Column: c})
	}
	return out
}

// SetColumns replaces the table's columns with all (in declaration
// order), splitting them into Schema's physical columns and NonPhysical.
func (t *Table) SetColumns(all []TableColumn) {
	t.Schema.Columns = nil
	t.NonPhysical = nil
	for i, c := range all {
		if c.Kind == Physical {
			t.Schema.Columns = append(t.Schema.Columns, c.Column)
			continue
		}
		t.NonPhysical = append(t.NonPhysical, NonPhysicalColumn{TableColumn: c, Pos: i})
	}
	sort.SliceStable(t.NonPhysical, func(i, j int) bool { return t.NonPhysical[i].Pos < t.NonPhysical[j].Pos })
}

// MetadataColumns lists the metadata columns in declaration order.
func (t *Table) MetadataColumns() []TableColumn {
	var out []TableColumn
	for _, c := range t.NonPhysical {
		if c.Kind == Metadata {
			out = append(out, c.TableColumn)
		}
	}
	return out
}

// HasComputed reports whether the table declares computed columns.
func (t *Table) HasComputed() bool {
	for _, c := range t.NonPhysical {
		if c.Kind == Computed {
			return true
		}
	}
	return false
}
