package schema

import (
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// Node is a type with the ids of its ROW fields at every depth, as Paimon's
// DataField tree holds them (a Field keeps them flat in NestedIDs).
type Node struct {
	Type sql.DataType
	IDs  []int   // ROW: one id per field
	Kids []*Node // ROW: one per field; ARRAY: the element; MAP: key, value
}

// Tree pairs the field's type with its NestedIDs. It reports false when
// NestedIDs does not cover every nested ROW field (a hand-made schema).
func (f Field) Tree() (*Node, bool) {
	n, rest, ok := pairIDs(f.Type, f.NestedIDs)
	return n, ok && len(rest) == 0
}

func pairIDs(t sql.DataType, ids []int) (*Node, []int, bool) {
	n := &Node{Type: t}
	var kids []sql.DataType
	switch t.Root {
	case sql.TypeRow:
		for _, f := range t.Fields {
			if len(ids) == 0 {
				return nil, nil, false
			}
			n.IDs = append(n.IDs, ids[0])
			k, rest, ok := pairIDs(f.Type, ids[1:])
			if !ok {
				return nil, nil, false
			}
			n.Kids, ids = append(n.Kids, k), rest
		}
		return n, ids, true
	case sql.TypeArray:
		kids = []sql.DataType{*t.Elem}
	case sql.TypeMap:
		kids = []sql.DataType{*t.Elem, *t.Value}
	}
	for _, kt := range kids {
		k, rest, ok := pairIDs(kt, ids)
		if !ok {
			return nil, nil, false
		}
		n.Kids, ids = append(n.Kids, k), rest
	}
	return n, ids, true
}

// NestedIDs flattens the tree's ids in pre-order (Field.NestedIDs).
func (n *Node) NestedIDs() []int {
	var out []int
	var walk func(n *Node)
	walk = func(n *Node) {
		for i, k := range n.Kids {
			if n.Type.Root == sql.TypeRow {
				out = append(out, n.IDs[i])
			}
			walk(k)
		}
	}
	walk(n)
	return out
}

// SameIgnoringNullable is DataType.equalsIgnoreNullable over DataFields:
// the types equal but for the outer nullability, and every ROW field's id
// the same (DataField.equals compares ids).
func (n *Node) SameIgnoringNullable(o *Node) bool {
	return n.Type.WithNullable(true).Equal(o.Type.WithNullable(true)) && n.sameIDs(o)
}

func (n *Node) sameIDs(o *Node) bool {
	if !slices.Equal(n.IDs, o.IDs) || len(n.Kids) != len(o.Kids) {
		return false
	}
	for i := range n.Kids {
		if !n.Kids[i].sameIDs(o.Kids[i]) {
			return false
		}
	}
	return true
}

// modifyNested is ALTER TABLE MODIFY of a ROW, ARRAY or MAP column as
// Paimon 1.4 runs it: FlinkCatalog turns the new type into nested schema
// changes (NestedSchemaUtils.generateNestedColumnUpdates: dropped ROW
// fields, added ones placed after their predecessor, leaf type and
// nullability updates, comments), which SchemaManager applies in that
// order, so an added field takes the next id and its own nested fields
// the ones after (ReassignFieldId), and a kept field keeps its id.
type nestedModify struct {
	highest              *int
	table                string
	disableNullToNotNull bool
	allowExplicit        bool
	canCast              func(from, to sql.DataType) bool
}

func (m nestedModify) modify(f Field, to sql.DataType) (Field, error) {
	old, ok := f.Tree()
	if !ok {
		return f, sql.Errorf(sql.IllegalStateException, "Column %s of table %s has no ids for its nested fields.", f.Name, m.table)
	}
	n, err := m.node([]string{f.Name}, f.Name, old, to)
	if err != nil {
		return f, err
	}
	f.Type, f.NestedIDs = n.Type, n.NestedIDs()
	return f, nil
}

// node evolves old to the type to; path is the field path Paimon's
// messages join with "." (ARRAY elements and MAP values are "element" and
// "value"), field the name of the DataField that holds old.
func (m nestedModify) node(path []string, field string, old *Node, to sql.DataType) (*Node, error) {
	joined := strings.Join(path, ".")
	from := old.Type
	var out *Node
	switch from.Root {
	case sql.TypeRow:
		if to.Root != sql.TypeRow {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Column %s can only be updated to row type, and cannot be updated to %s type", joined, RootName(to))
		}
		var err error
		if out, err = m.row(path, old, to); err != nil {
			return nil, err
		}
	case sql.TypeArray:
		if to.Root != sql.TypeArray {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Column %s can only be updated to array type, and cannot be updated to %s type", joined, typeString(to))
		}
		e, err := m.node(append(slices.Clone(path), "element"), field, old.Kids[0], *to.Elem)
		if err != nil {
			return nil, err
		}
		t := sql.ArrayOf(e.Type)
		out = &Node{Type: t, Kids: []*Node{e}}
	case sql.TypeMap:
		if to.Root != sql.TypeMap {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Column %s can only be updated to map type, and cannot be updated to %s type", joined, typeString(to))
		}
		if !from.Elem.Equal(*to.Elem) {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Cannot update key type of column %s from %s type to %s type", joined, typeString(*from.Elem), typeString(*to.Elem))
		}
		v, err := m.node(append(slices.Clone(path), "value"), field, old.Kids[1], *to.Value)
		if err != nil {
			return nil, err
		}
		out = &Node{Type: sql.MapOf(*from.Elem, v.Type), Kids: []*Node{old.Kids[0], v}}
	default: // handlePrimitiveTypeUpdate: an UpdateColumnType of this path
		out = &Node{Type: from}
		if !from.WithNullable(true).Equal(to.WithNullable(true)) {
			if err := nullabilityChange(from.Nullable, to.Nullable, joined, m.disableNullToNotNull); err != nil {
				return nil, err
			}
			if !supportsCast(from, to, m.allowExplicit) || (m.canCast != nil && !m.canCast(from, to)) {
				return nil, sql.Errorf(sql.IllegalStateException, "Column type %s[%s] cannot be converted to %s without loosing information.", field, typeString(from), typeString(to))
			}
			out.Type = to
		}
	}
	// handleNullabilityChange: an UpdateColumnNullability of this path.
	if from.Nullable != to.Nullable {
		if err := nullabilityChange(from.Nullable, to.Nullable, joined, m.disableNullToNotNull); err != nil {
			return nil, err
		}
	}
	out.Type = out.Type.WithNullable(to.Nullable)
	return out, nil
}

// row is handleRowTypeUpdate: kept fields keep their order and ids, the
// others are dropped, new ones added with fresh ids.
func (m nestedModify) row(path []string, old *Node, to sql.DataType) (*Node, error) {
	joined := strings.Join(path, ".")
	at := map[string]int{}
	for i, f := range old.Type.Fields {
		at[f.Name] = i
	}
	last, lastName := -1, ""
	for _, f := range to.Fields {
		if i, ok := at[f.Name]; ok {
			if i <= last {
				return nil, sql.Errorf(sql.IllegalStateException, "Order of existing fields in column %s must be kept the same. However, field %s and %s have changed their orders.", joined, lastName, f.Name)
			}
			last, lastName = i, f.Name
		}
	}
	out := &Node{}
	fields := make([]sql.Field, len(to.Fields))
	for i, f := range to.Fields {
		fp := append(slices.Clone(path), f.Name)
		j, kept := at[f.Name]
		if !kept { // AddColumn: nested adds must be nullable
			if !f.Type.Nullable {
				return nil, sql.Errorf(sql.IllegalArgumentException, "Column %s cannot specify NOT NULL in the %s table.", strings.Join(fp, "."), m.table)
			}
			*m.highest++
			id := *m.highest
			nested := assignNested(f.Type, m.highest)
			k, _, _ := pairIDs(f.Type, nested)
			out.IDs, out.Kids = append(out.IDs, id), append(out.Kids, k)
			fields[i] = f
			continue
		}
		k, err := m.node(fp, f.Name, old.Kids[j], f.Type)
		if err != nil {
			return nil, err
		}
		out.IDs, out.Kids = append(out.IDs, old.IDs[j]), append(out.Kids, k)
		fields[i] = sql.Field{Name: f.Name, Type: k.Type, Description: f.Description}
	}
	out.Type = sql.RowOf(fields...)
	return out, nil
}

func typeString(t sql.DataType) string {
	s, err := TypeString(t)
	if err != nil {
		return t.String()
	}
	return s
}

// RootName is DataTypeRoot's name, as Paimon's messages print it.
func RootName(t sql.DataType) string {
	switch t.Root {
	case sql.TypeInt:
		return "INTEGER"
	case sql.TypeVarChar:
		return "VARCHAR"
	case sql.TypeChar:
		return "CHAR"
	case sql.TypeTimestamp:
		return "TIMESTAMP_WITHOUT_TIME_ZONE"
	case sql.TypeTimestampLTZ:
		return "TIMESTAMP_WITH_LOCAL_TIME_ZONE"
	case sql.TypeTime:
		return "TIME_WITHOUT_TIME_ZONE"
	}
	s := typeString(t.WithNullable(true))
	if i := strings.IndexAny(s, "(<"); i > 0 {
		s = s[:i]
	}
	return s
}
