package sql

import "strings"

// Column is one column of a table schema.
type Column struct {
	Name    string
	Type    DataType
	Comment string
}

// Schema is a table's columns and primary key. Primary-key columns are NOT
// NULL, as Flink and Paimon make them.
type Schema struct {
	Columns []Column
	// PrimaryKey names the key columns in declaration order; empty when the
	// table has none.
	PrimaryKey []string
	// PrimaryKeyName is the constraint name (Flink generates PK_<hash>).
	PrimaryKeyName string
}

// Index returns the position of the named column (case-insensitive, as
// Flink resolves identifiers by default is case-sensitive; we match exact
// first, then case-insensitively), or -1.
func (s Schema) Index(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	for i, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Names lists the column names.
func (s Schema) Names() []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.Name
	}
	return out
}

// Types lists the column types.
func (s Schema) Types() []DataType {
	out := make([]DataType, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.Type
	}
	return out
}

// PrimaryKeyIndexes returns the positions of the primary-key columns.
func (s Schema) PrimaryKeyIndexes() []int {
	out := make([]int, 0, len(s.PrimaryKey))
	for _, k := range s.PrimaryKey {
		out = append(out, s.Index(k))
	}
	return out
}

// HasPrimaryKey reports whether a primary key is declared.
func (s Schema) HasPrimaryKey() bool { return len(s.PrimaryKey) > 0 }

// RowType is the schema as a ROW type.
func (s Schema) RowType() DataType {
	fields := make([]Field, len(s.Columns))
	for i, c := range s.Columns {
		fields[i] = Field{Name: c.Name, Type: c.Type, Description: c.Comment}
	}
	return RowOf(fields...).NotNull()
}
