package catalog

import (
	"fmt"
	"slices"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// TableChange is one column change of ALTER TABLE ADD / MODIFY / DROP /
// RENAME, as Flink's planner hands it to a catalog (TableChange): a
// catalog that keeps its own schema history (Paimon's) applies these
// instead of replacing the descriptor.
type TableChange interface{ tableChange() }

// AddColumn adds Column last, first, or after another column.
type AddColumn struct {
	Column sql.Column
	First  bool
	After  string
}

// DropColumn drops a column.
type DropColumn struct{ Name string }

// RenameColumn renames a column (TableChange.ModifyColumnName).
type RenameColumn struct{ Old, New string }

// ModifyColumnType changes a physical column's type; Old is its type before.
type ModifyColumnType struct {
	Name     string
	Old, New sql.DataType
}

// ModifyColumnComment changes a column's comment ("" clears it).
type ModifyColumnComment struct{ Name, Comment string }

// ModifyColumnPosition moves a column first or after another.
type ModifyColumnPosition struct {
	Name  string
	First bool
	After string
}

func (AddColumn) tableChange()            {}
func (DropColumn) tableChange()           {}
func (RenameColumn) tableChange()         {}
func (ModifyColumnType) tableChange()     {}
func (ModifyColumnComment) tableChange()  {}
func (ModifyColumnPosition) tableChange() {}

// ColumnAlterer is implemented by catalogs that apply column changes
// themselves (Paimon's FlinkCatalog.alterTable with TableChanges). Others
// get the new descriptor through AlterTable.
type ColumnAlterer interface {
	AlterColumns(db, name string, changes []TableChange) error
}

// alterPrefix is Flink's AlterSchemaConverter.EX_MSG_PREFIX.
const alterPrefix = "Failed to execute ALTER TABLE statement.\n"

func alterErr(format string, args ...any) error {
	return sql.Errorf(sql.ValidationException, alterPrefix+format, args...)
}

// AlterColumns applies an ALTER TABLE ADD / MODIFY / DROP / RENAME column
// statement to t as Flink 1.20's AlterSchemaConverter does, with its
// checks and messages, and returns the new descriptor and the
// TableChanges it collected (in Flink's order). t is not modified.
func AlterColumns(t *Table, stmt ast.Statement) (*Table, []TableChange, error) {
	if len(t.NonPhysical) > 0 {
		return nil, nil, sql.Errorf(sql.UnsupportedOperation,
			"ALTER TABLE column changes of a table with computed or metadata columns ('%s') are not supported by sqlrun yet.", t.NonPhysical[0].Name)
	}
	n := t.Clone()
	var changes []TableChange
	cols := n.Schema.Columns
	index := func(name string) int {
		for i, c := range cols {
			if c.Name == name {
				return i
			}
		}
		return -1
	}
	// checkReferences is ReferencesManager.checkReferences.
	checkReferences := func(name string) error {
		if index(name) < 0 {
			return alterErr("The column `%s` does not exist in the base table.", name)
		}
		if slices.Contains(t.PartitionKeys, name) {
			return alterErr("The column `%s` is used as the partition keys.", name)
		}
		if t.Watermark != nil && t.Watermark.Column == name {
			return alterErr("The column `%s` is referenced by watermark expression.", name)
		}
		return nil
	}
	switch st := stmt.(type) {
	case *ast.AlterTableAddColumns:
		seen := map[string]bool{}
		for _, c := range st.Columns {
			name := c.Column.Name
			if seen[name] {
				return nil, nil, alterErr("Encounter duplicate column `%s`.", name)
			}
			seen[name] = true
			if index(name) >= 0 {
				return nil, nil, alterErr("Try to add a column `%s` which already exists in the table.", name)
			}
			// AlterSchemaConverter types a column as CREATE TABLE does
			// (toLogicalType: TIME(p) is TIME(0), sql.Planned).
			col := sql.Column{Name: name, Type: sql.Planned(c.Column.Type), Comment: c.Column.Comment}
			pos := len(cols)
			switch {
			case c.First:
				pos = 0
			case c.After != "":
				i := index(c.After)
				if i < 0 {
					return nil, nil, alterErr("Referenced column `%s` by 'AFTER' does not exist in the table.", c.After)
				}
				pos = i + 1
			}
			cols = slices.Insert(cols, pos, col)
			changes = append(changes, AddColumn{Column: col, First: c.First, After: c.After})
		}
	case *ast.AlterTableModifyColumns:
		seen := map[string]bool{}
		for _, c := range st.Columns {
			name := c.Column.Name
			if seen[name] {
				return nil, nil, alterErr("Encounter duplicate column `%s`.", name)
			}
			seen[name] = true
			i := index(name)
			if i < 0 {
				return nil, nil, alterErr("Try to modify a column `%s` which does not exist in the table.", name)
			}
			if c.After != "" && index(c.After) < 0 {
				return nil, nil, alterErr("Referenced column `%s` by 'AFTER' does not exist in the table.", c.After)
			}
			old := cols[i]
			col := old
			col.Type = sql.Planned(c.Column.Type)
			if slices.Contains(t.Schema.PrimaryKey, name) {
				col.Type = col.Type.NotNull() // SchemaConverter.updatePrimaryKeyNullability
			}
			if c.Column.Comment != "" {
				col.Comment = c.Column.Comment
			}
			// OperationConverterUtils.buildModifyColumnChange: comment,
			// type, then position.
			if col.Comment != old.Comment {
				changes = append(changes, ModifyColumnComment{Name: name, Comment: col.Comment})
			}
			if !col.Type.Equal(old.Type) {
				changes = append(changes, ModifyColumnType{Name: name, Old: old.Type, New: col.Type})
			}
			cols[i] = col
			if c.First || c.After != "" {
				cols = slices.Delete(cols, i, i+1)
				pos := 0
				if !c.First {
					pos = index(c.After) + 1
				}
				cols = slices.Insert(cols, pos, col)
				changes = append(changes, ModifyColumnPosition{Name: name, First: c.First, After: c.After})
			}
		}
	case *ast.AlterTableDropColumns:
		seen := map[string]bool{}
		for _, name := range st.Columns {
			if seen[name] {
				return nil, nil, alterErr("Duplicate column `%s`.", name)
			}
			seen[name] = true
		}
		for _, name := range st.Columns {
			if err := checkReferences(name); err != nil {
				return nil, nil, err
			}
			if slices.Contains(t.Schema.PrimaryKey, name) {
				return nil, nil, alterErr("The column `%s` is used as the primary key.", name)
			}
			i := index(name)
			cols = slices.Delete(cols, i, i+1)
			changes = append(changes, DropColumn{Name: name})
		}
	case *ast.AlterTableRenameColumn:
		if err := checkReferences(st.Old); err != nil {
			return nil, nil, err
		}
		if index(st.New) >= 0 {
			return nil, nil, alterErr("The column `%s` already existed in table schema.", st.New)
		}
		cols[index(st.Old)].Name = st.New
		for i, k := range n.Schema.PrimaryKey {
			if k == st.Old {
				n.Schema.PrimaryKey[i] = st.New
			}
		}
		changes = append(changes, RenameColumn{Old: st.Old, New: st.New})
	default:
		return nil, nil, fmt.Errorf("catalog.AlterColumns: unexpected statement %T", stmt)
	}
	n.Schema.Columns = cols
	if err := n.resolve(); err != nil {
		return nil, nil, sql.Errorf(sql.ValidationException, "%s%s", alterPrefix, err.Error())
	}
	return n, changes, nil
}
