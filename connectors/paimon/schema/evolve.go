package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// Change is one ALTER TABLE step, applied by Apply to produce the next
// schema (Paimon's SchemaChange). Field ids are never reused: a new column
// gets highestFieldId+1, a rename keeps the id, a drop forgets it.
type Change interface{ isChange() }

// SetOption sets a table option ('k' = 'v').
type SetOption struct{ Key, Value string }

// RemoveOption resets a table option to its default.
type RemoveOption struct{ Key string }

// AddColumn adds a column: last, first, or after another.
type AddColumn struct {
	Field Field  // ID is assigned by Apply
	First bool   // place first
	After string // place after this column (when not First)
}

// RenameColumn renames a column, keeping its id.
type RenameColumn struct{ From, To string }

// DropColumn removes a column. Key columns cannot be dropped.
type DropColumn struct{ Name string }

// MoveColumn moves a column first or after another (UpdateColumnPosition).
type MoveColumn struct {
	Name  string
	First bool
	After string
}

// UpdateColumnType changes a column's type (keepNullability = false, as
// Flink's ALTER TABLE MODIFY produces it): the new type's nullability is
// checked as well.
type UpdateColumnType struct {
	Name string
	Type sql.DataType
}

// UpdateColumnNullability makes a column nullable or NOT NULL.
type UpdateColumnNullability struct {
	Name     string
	Nullable bool
}

// UpdateColumnComment sets a column's comment (nil removes it).
type UpdateColumnComment struct {
	Name    string
	Comment *string
}

// UpdateComment sets the table comment (nil removes it).
type UpdateComment struct{ Comment *string }

func (SetOption) isChange()               {}
func (RemoveOption) isChange()            {}
func (AddColumn) isChange()               {}
func (RenameColumn) isChange()            {}
func (DropColumn) isChange()              {}
func (UpdateComment) isChange()           {}
func (MoveColumn) isChange()              {}
func (UpdateColumnType) isChange()        {}
func (UpdateColumnNullability) isChange() {}
func (UpdateColumnComment) isChange()     {}

// The exception classes of Paimon's catalog that an ALTER can end with.
const (
	ColumnAlreadyExistException sql.ExceptionClass = "org.apache.paimon.catalog.Catalog$ColumnAlreadyExistException"
	ColumnNotExistException     sql.ExceptionClass = "org.apache.paimon.catalog.Catalog$ColumnNotExistException"
)

// Alter is the context of one ALTER TABLE.
type Alter struct {
	// Table is the table's full name (Identifier.getFullName, "db.t")
	// for messages.
	Table      string
	TimeMillis int64
	// CanCast reports whether values of type from can be read as type to
	// (CastExecutors.resolve(from, to) != null). Nil allows what
	// DataTypeCasts allows.
	CanCast func(from, to sql.DataType) bool
}

// Apply returns the schema after changes, with id s.ID+1, as Paimon's
// SchemaManager.generateTableSchema (release-1.4) builds it: the changes in
// order, each with SchemaManager's checks and messages, then
// SchemaValidation. s is not modified.
func (s *TableSchema) Apply(a Alter, changes ...Change) (*TableSchema, error) {
	n := &TableSchema{Version: CurrentVersion, ID: s.ID + 1, Fields: slices.Clone(s.Fields), HighestFieldID: s.HighestFieldID,
		PartitionKeys: slices.Clone(s.PartitionKeys), PrimaryKeys: slices.Clone(s.PrimaryKeys), Options: map[string]string{},
		Comment: s.Comment, TimeMillis: a.TimeMillis}
	for k, v := range s.Options {
		n.Options[k] = v
	}
	boolOpt := func(k string, def bool) bool {
		if v, ok := s.Options[k]; ok {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
		return def
	}
	disableNullToNotNull := boolOpt("alter-column-null-to-not-null.disabled", true)
	allowExplicit := !boolOpt("disable-explicit-type-casting", false)
	addBeforePartition := boolOpt("add-column-before-partition", false)
	notExist := func(name string) error {
		return sql.Errorf(ColumnNotExistException, "Column %s does not exist in the %s table.", name, a.Table)
	}
	exists := func(name string) error {
		return sql.Errorf(ColumnAlreadyExistException, "Column %s already exists in the %s table.", name, a.Table)
	}
	renames := map[string]string{}
	for _, c := range changes {
		switch c := c.(type) {
		case SetOption:
			n.Options[c.Key] = c.Value
		case RemoveOption:
			delete(n.Options, c.Key)
		case UpdateComment:
			n.Comment = c.Comment
		case AddColumn:
			if !c.Field.Type.Nullable {
				return nil, sql.Errorf(sql.IllegalArgumentException, "Column %s cannot specify NOT NULL in the %s table.", c.Field.Name, a.Table)
			}
			if n.FieldIndex(c.Field.Name) >= 0 {
				return nil, exists(c.Field.Name)
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
					return nil, notExist(c.After)
				}
				pos = i + 1
			case addBeforePartition && len(s.PartitionKeys) > 0:
				for i, g := range n.Fields {
					if slices.Contains(s.PartitionKeys, g.Name) {
						pos = i
						break
					}
				}
			}
			n.Fields = slices.Insert(n.Fields, pos, f)
		case RenameColumn:
			if slices.Contains(s.PartitionKeys, c.From) {
				return nil, sql.Errorf(sql.UnsupportedOperation, "Cannot rename partition column: [%s]", c.From)
			}
			i := n.FieldIndex(c.From)
			if i < 0 {
				return nil, notExist(c.From)
			}
			if n.Fields[i].Blob { // SchemaManager.assertNotRenamingBlobColumn
				return nil, sql.Errorf(sql.UnsupportedOperation, "Cannot rename BLOB column: [%s]", c.From)
			}
			if n.FieldIndex(c.To) >= 0 {
				return nil, exists(c.To)
			}
			n.Fields[i].Name = c.To
			renames[c.From] = c.To
		case DropColumn:
			if slices.Contains(s.PartitionKeys, c.Name) || slices.Contains(s.PrimaryKeys, c.Name) {
				return nil, sql.Errorf(sql.UnsupportedOperation, "Cannot drop partition key or primary key: [%s]", c.Name)
			}
			i := n.FieldIndex(c.Name)
			if i < 0 {
				return nil, notExist(c.Name)
			}
			n.Fields = slices.Delete(n.Fields, i, i+1)
			if len(n.Fields) == 0 {
				return nil, sql.Errorf(sql.IllegalArgumentException, "Cannot drop all fields in table")
			}
		case UpdateColumnType:
			if slices.Contains(s.PartitionKeys, c.Name) {
				return nil, sql.Errorf(sql.UnsupportedOperation, "Cannot update partition column: [%s]", c.Name)
			}
			if slices.Contains(s.PrimaryKeys, c.Name) {
				return nil, sql.Errorf(sql.UnsupportedOperation, "Cannot update primary key")
			}
			i := n.FieldIndex(c.Name)
			if i < 0 {
				return nil, notExist(c.Name)
			}
			from := n.Fields[i].Type
			if n.Fields[i].Blob {
				// BLOB casts to nothing (CastExecutors has no BLOB rule).
				ts, _ := TypeString(c.Type)
				return nil, sql.Errorf(sql.IllegalStateException, "Column type %s[%s] cannot be converted to %s without loosing information.", n.Fields[i].Name, blobTypeString(from.Nullable), ts)
			}
			if isComposite(from) {
				// Flink's ALTER TABLE MODIFY of a composite column becomes
				// nested changes (FlinkCatalog.generateNestedColumnUpdates).
				m := nestedModify{highest: &n.HighestFieldID, table: a.Table, disableNullToNotNull: disableNullToNotNull,
					allowExplicit: allowExplicit, canCast: a.CanCast}
				f, err := m.modify(n.Fields[i], c.Type)
				if err != nil {
					return nil, err
				}
				n.Fields[i] = f
				continue
			}
			if err := nullabilityChange(from.Nullable, c.Type.Nullable, c.Name, disableNullToNotNull); err != nil {
				return nil, err
			}
			if !supportsCast(from, c.Type, allowExplicit) || (a.CanCast != nil && !a.CanCast(from, c.Type)) {
				fs, _ := TypeString(from)
				ts, _ := TypeString(c.Type)
				return nil, sql.Errorf(sql.IllegalStateException, "Column type %s[%s] cannot be converted to %s without loosing information.", n.Fields[i].Name, fs, ts)
			}
			n.Fields[i].Type = c.Type
		case UpdateColumnNullability:
			if c.Nullable && slices.Contains(s.PrimaryKeys, c.Name) {
				return nil, sql.Errorf(sql.UnsupportedOperation, "Cannot change nullability of primary key")
			}
			i := n.FieldIndex(c.Name)
			if i < 0 {
				return nil, notExist(c.Name)
			}
			if err := nullabilityChange(n.Fields[i].Type.Nullable, c.Nullable, c.Name, disableNullToNotNull); err != nil {
				return nil, err
			}
			n.Fields[i].Type = n.Fields[i].Type.WithNullable(c.Nullable)
		case UpdateColumnComment:
			i := n.FieldIndex(c.Name)
			if i < 0 {
				return nil, notExist(c.Name)
			}
			n.Fields[i].Description = c.Comment
		case MoveColumn:
			moved, err := applyMove(n.Fields, c)
			if err != nil {
				return nil, err
			}
			n.Fields = moved
		default:
			return nil, fmt.Errorf("unsupported schema change %T", c)
		}
	}
	if len(renames) > 0 {
		n.PrimaryKeys = renameAll(n.PrimaryKeys, renames)
		n.Options = renameInOptions(s.Options, n.Options, renames)
	}
	if err := n.ValidateTable(); err != nil {
		return nil, err
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return n, nil
}

func isComposite(t sql.DataType) bool {
	return t.Root == sql.TypeRow || t.Root == sql.TypeArray || t.Root == sql.TypeMap
}

// nullabilityChange is SchemaManager.assertNullabilityChange.
func nullabilityChange(oldNullable, newNullable bool, name string, disableNullToNotNull bool) error {
	if disableNullToNotNull && oldNullable && !newNullable {
		return sql.Errorf(sql.UnsupportedOperation, "Cannot update column type from nullable to non nullable for %s. "+
			"You can set table configuration option 'alter-column-null-to-not-null.disabled' = 'false' "+
			"to allow converting null columns to not null", name)
	}
	return nil
}

// applyMove is SchemaManager.applyMove: FIRST, or AFTER a reference
// column; moving a column onto itself fails.
func applyMove(fields []Field, m MoveColumn) ([]Field, error) {
	idx := func(name string) int {
		for i, f := range fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	from := idx(m.Name)
	if from < 0 {
		return nil, sql.Errorf(sql.IllegalArgumentException, "Field name not found: %s", m.Name)
	}
	self := func() error {
		return sql.Errorf(sql.UnsupportedOperation, "Cannot move itself for column %s", m.Name)
	}
	to := 0
	if m.First {
		if from == 0 {
			return nil, self()
		}
	} else {
		ref := idx(m.After)
		if ref < 0 {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Reference field name not found: %s", m.After)
		}
		if ref == from {
			return nil, self()
		}
		to = ref
		if from > ref {
			to++
		}
		to = min(to, len(fields)-1)
	}
	f := fields[from]
	rest := slices.Delete(slices.Clone(fields), from, from+1)
	return slices.Insert(rest, to, f), nil
}

func renameAll(names []string, renames map[string]string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if r, ok := renames[n]; ok {
			n = r
		}
		out[i] = n
	}
	return out
}

// renameInOptions is SchemaManager.applyRenameColumnsToOptions: the
// options that name columns follow a rename (bucket-key, sequence.field,
// fields.<col>.aggregate-function and its siblings, and the keys and
// values of fields.<cols>.sequence-group / nested-key).
func renameInOptions(old, opts map[string]string, renames map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range opts {
		out[k] = v
	}
	renameList := func(v string) string { return strings.Join(renameAll(strings.Split(v, ","), renames), ",") }
	for _, k := range []string{"bucket-key", "sequence.field"} {
		if v := old[k]; strings.TrimSpace(v) != "" {
			out[k] = renameList(v)
		}
	}
	for from, to := range renames {
		for _, suffix := range []string{"aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter"} {
			k := "fields." + from + "." + suffix
			if v, ok := out[k]; ok {
				delete(out, k)
				out["fields."+to+"."+suffix] = v
			}
		}
	}
	for k := range old {
		if !strings.HasPrefix(k, "fields.") {
			continue
		}
		for _, suffix := range []string{"sequence-group", "nested-key"} {
			if !strings.HasSuffix(k, "."+suffix) || len(k) <= len("fields.")+len(suffix)+1 {
				continue
			}
			keyFields := k[len("fields.") : len(k)-len(suffix)-1]
			v, ok := out[k]
			if !ok {
				continue
			}
			delete(out, k)
			out["fields."+renameList(keyFields)+"."+suffix] = renameList(v)
		}
	}
	return out
}
