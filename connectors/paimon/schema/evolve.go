package schema

import (
	"fmt"
	"slices"
)

// Change is one ALTER TABLE step, applied by Apply to produce the next
// schema (Paimon's SchemaChange). Field ids are never reused: a new column
// gets highestFieldId+1, a rename keeps the id, a drop forgets it.
type Change interface{ isChange() }

// SetOption sets a table option ('k' = 'v').
type SetOption struct{ Key, Value string }

// RemoveOption resets a table option to its default.
type RemoveOption struct{ Key string }

// AddColumn appends a column (or places it first / after another).
type AddColumn struct {
	Field Field  // ID is assigned by Apply
	First bool   // place first
	After string // place after this column (when not First)
}

// RenameColumn renames a column, keeping its id.
type RenameColumn struct{ From, To string }

// DropColumn removes a column. Key columns cannot be dropped.
type DropColumn struct{ Name string }

// MoveColumn moves a column first or after another.
type MoveColumn struct {
	Name  string
	First bool
	After string
}

// UpdateComment sets the table comment (nil removes it).
type UpdateComment struct{ Comment *string }

func (SetOption) isChange()     {}
func (RemoveOption) isChange()  {}
func (AddColumn) isChange()     {}
func (RenameColumn) isChange()  {}
func (DropColumn) isChange()    {}
func (UpdateComment) isChange() {}
func (MoveColumn) isChange()    {}

// Apply returns the schema after changes, with id s.ID+1 and the given
// creation time. s is not modified.
func (s *TableSchema) Apply(timeMillis int64, changes ...Change) (*TableSchema, error) {
	n := &TableSchema{Version: CurrentVersion, ID: s.ID + 1, Fields: slices.Clone(s.Fields), HighestFieldID: s.HighestFieldID,
		PartitionKeys: slices.Clone(s.PartitionKeys), PrimaryKeys: slices.Clone(s.PrimaryKeys), Options: map[string]string{},
		Comment: s.Comment, TimeMillis: timeMillis}
	for k, v := range s.Options {
		n.Options[k] = v
	}
	isKey := func(name string) bool {
		return slices.Contains(n.PartitionKeys, name) || slices.Contains(n.PrimaryKeys, name)
	}
	for _, c := range changes {
		switch c := c.(type) {
		case SetOption:
			n.Options[c.Key] = c.Value
		case RemoveOption:
			delete(n.Options, c.Key)
		case UpdateComment:
			n.Comment = c.Comment
		case AddColumn:
			if n.FieldIndex(c.Field.Name) >= 0 {
				return nil, fmt.Errorf("column %s already exists in the table", c.Field.Name)
			}
			f := c.Field
			n.HighestFieldID++
			f.ID = n.HighestFieldID
			f.NestedIDs = assignNested(f.Type, &n.HighestFieldID)
			pos := len(n.Fields)
			switch {
			case c.First:
				pos = 0
			case c.After != "":
				i := n.FieldIndex(c.After)
				if i < 0 {
					return nil, fmt.Errorf("column %s does not exist in the table", c.After)
				}
				pos = i + 1
			}
			n.Fields = slices.Insert(n.Fields, pos, f)
		case RenameColumn:
			i := n.FieldIndex(c.From)
			if i < 0 {
				return nil, fmt.Errorf("column %s does not exist in the table", c.From)
			}
			if n.FieldIndex(c.To) >= 0 {
				return nil, fmt.Errorf("column %s already exists in the table", c.To)
			}
			if isKey(c.From) {
				return nil, fmt.Errorf("cannot rename primary key or partition column %s", c.From)
			}
			n.Fields[i].Name = c.To
		case DropColumn:
			i := n.FieldIndex(c.Name)
			if i < 0 {
				return nil, fmt.Errorf("column %s does not exist in the table", c.Name)
			}
			if isKey(c.Name) {
				return nil, fmt.Errorf("cannot drop primary key or partition column %s", c.Name)
			}
			if len(n.Fields) == 1 {
				return nil, fmt.Errorf("cannot drop all fields in table")
			}
			n.Fields = slices.Delete(n.Fields, i, i+1)
		case MoveColumn:
			i := n.FieldIndex(c.Name)
			if i < 0 {
				return nil, fmt.Errorf("column %s does not exist in the table", c.Name)
			}
			f := n.Fields[i]
			n.Fields = slices.Delete(n.Fields, i, i+1)
			pos := 0
			if !c.First {
				j := n.FieldIndex(c.After)
				if j < 0 {
					return nil, fmt.Errorf("column %s does not exist in the table", c.After)
				}
				pos = j + 1
			}
			n.Fields = slices.Insert(n.Fields, pos, f)
		default:
			return nil, fmt.Errorf("unsupported schema change %T", c)
		}
	}
	if err := n.ValidateTable(); err != nil {
		return nil, err
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return n, nil
}
