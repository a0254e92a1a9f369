// Package schema reads and writes Paimon's TableSchema files
// (schema/schema-<id>, paimon-format.md §2) and manages their ids.
//
// A schema is immutable once written: ALTER TABLE writes schema-<id+1>, and
// every data file records the schema id it was written with. Fields carry
// stable ids (a rename keeps the id, a new column gets highestFieldId+1), so
// readers map old files to the current schema by id, never by name or
// position.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/internal/jackson"
	"github.com/sqlrun/sqlrun/sql"
)

// CurrentVersion is the schema file version written (and the newest read).
const CurrentVersion = 3

// Field is one top-level column with its stable id.
type Field struct {
	ID   int
	Name string
	Type sql.DataType
	// Description is the column comment; nil when absent (Java writes
	// "description" only when set, possibly to "").
	Description  *string
	DefaultValue *string
	// NestedIDs are the ids of nested ROW fields (at any depth) in
	// depth-first order; nested fields consume ids from the same counter.
	NestedIDs []int
	// Blob marks a Paimon BLOB column (Paimon 1.3+, BlobType): its values
	// live in separate .blob files, and Flink reads it as BYTES
	// (DataTypeToLogicalType.visit(BlobType) = VARBINARY(MAX)), so Type is
	// BYTES with the column's nullability.
	Blob bool
}

// TableSchema is the content of one schema file.
type TableSchema struct {
	// Version is the file version as read (1, 2 or 3); always written as 3.
	Version        int
	ID             int64
	Fields         []Field
	HighestFieldID int
	PartitionKeys  []string
	PrimaryKeys    []string
	// Options holds only user-set options (defaults are not materialised),
	// all values as strings.
	Options    map[string]string
	Comment    *string
	TimeMillis int64
}

// New builds schema 0 of a new table from sql columns, primary-key columns
// made NOT NULL as Paimon does. Field ids are allocated as Paimon's
// Schema.Builder.column does: each column takes the next id, then its
// nested ROW fields take the following ones (ReassignFieldId), before the
// next column.
func New(cols []sql.Column, partitionKeys, primaryKeys []string, options map[string]string, comment string, timeMillis int64) (*TableSchema, error) {
	s := &TableSchema{Version: CurrentVersion, PartitionKeys: nonNil(partitionKeys), PrimaryKeys: nonNil(primaryKeys),
		Options: map[string]string{}, TimeMillis: timeMillis, HighestFieldID: -1}
	for k, v := range options {
		s.Options[k] = v
	}
	if comment != "" {
		s.Comment = &comment
	}
	pk := map[string]bool{}
	for _, k := range primaryKeys {
		pk[k] = true
	}
	for _, c := range cols {
		t := c.Type
		if pk[c.Name] {
			t = t.NotNull()
		}
		s.HighestFieldID++
		f := Field{ID: s.HighestFieldID, Name: c.Name, Type: t}
		f.NestedIDs = assignNested(t, &s.HighestFieldID)
		if c.Comment != "" {
			f.Description = &c.Comment
		}
		s.Fields = append(s.Fields, f)
	}
	if err := s.ValidateCreate(); err != nil {
		return nil, err
	}
	return s, nil
}

// javaList prints names as Java's List.toString: [a, b].
func javaList(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

func containsAll(all, sub []string) bool {
	set := map[string]bool{}
	for _, a := range all {
		set[a] = true
	}
	for _, x := range sub {
		if !set[x] {
			return false
		}
	}
	return true
}

// ValidateCreate checks what Paimon checks when a table is created, with
// its messages (java.lang.IllegalStateException / RuntimeException):
// key columns exist, the primary key is not only partition keys (it may
// lack some: Paimon 1.x's cross-partition upsert), and bucket-key columns are primary-key, non-partition
// columns.
func (s *TableSchema) ValidateCreate() error {
	names := s.Names()
	if !containsAll(names, s.PartitionKeys) {
		return sql.Errorf(sql.IllegalStateException, "Table column %s should include all partition fields %s", javaList(names), javaList(s.PartitionKeys))
	}
	if len(s.PrimaryKeys) > 0 {
		if !containsAll(names, s.PrimaryKeys) {
			return sql.Errorf(sql.IllegalStateException, "Table column %s should include all primary key constraint %s", javaList(names), javaList(s.PrimaryKeys))
		}
		if len(s.PartitionKeys) > 0 && containsAll(s.PartitionKeys, s.PrimaryKeys) {
			return sql.Errorf(sql.IllegalStateException, "Primary key constraint %s should not be same with partition fields %s, this will result in only one record in a partition",
				javaList(s.PrimaryKeys), javaList(s.PartitionKeys))
		}
	}
	if bk := strings.TrimSpace(s.Options["bucket-key"]); bk != "" {
		keys := strings.Split(bk, ",")
		if !containsAll(names, keys) {
			return sql.Errorf(sql.RuntimeException, "Field names %s should contains all bucket keys %s.", javaList(names), javaList(keys))
		}
		for _, k := range keys {
			for _, p := range s.PartitionKeys {
				if k == p {
					return sql.Errorf(sql.RuntimeException, "Bucket keys %s should not in partition keys %s.", javaList(keys), javaList(s.PartitionKeys))
				}
			}
		}
		if len(s.PrimaryKeys) > 0 && !containsAll(s.PrimaryKeys, keys) {
			return sql.Errorf(sql.RuntimeException, "Primary keys %s should contains all bucket keys %s.", javaList(s.PrimaryKeys), javaList(keys))
		}
	}
	if err := s.ValidateTable(); err != nil {
		return err
	}
	return s.Validate()
}

// assignNested allocates the ids of t's nested ROW fields after *highest
// as Paimon's ReassignFieldId does: a ROW field's own nested fields are
// numbered before the field itself (RowType.Builder.field takes its id
// after the field's type has been reassigned). The ids are returned in
// NestedIDs order (depth-first, a field before its nested fields).
func assignNested(t sql.DataType, highest *int) []int {
	var ids []int
	var walk func(t sql.DataType)
	walk = func(t sql.DataType) {
		switch t.Root {
		case sql.TypeArray:
			walk(*t.Elem)
		case sql.TypeMap:
			walk(*t.Elem)
			walk(*t.Value)
		case sql.TypeRow:
			for _, f := range t.Fields {
				slot := len(ids)
				ids = append(ids, 0)
				walk(f.Type)
				*highest++
				ids[slot] = *highest
			}
		}
	}
	walk(t)
	return ids
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Validate checks that keys name existing columns and ids are unique.
func (s *TableSchema) Validate() error {
	seen := map[int]bool{}
	for _, f := range s.Fields {
		if seen[f.ID] {
			return fmt.Errorf("schema %d: duplicate field id %d", s.ID, f.ID)
		}
		seen[f.ID] = true
	}
	for _, k := range append(append([]string{}, s.PartitionKeys...), s.PrimaryKeys...) {
		if s.FieldIndex(k) < 0 {
			return fmt.Errorf("schema %d: key column %q is not a table column", s.ID, k)
		}
	}
	return nil
}

// FieldIndex returns the position of the named column or -1.
func (s *TableSchema) FieldIndex(name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FieldByID returns the position of the column with the given id or -1.
func (s *TableSchema) FieldByID(id int) int {
	for i, f := range s.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// Names lists the column names.
func (s *TableSchema) Names() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// Types lists the column types.
func (s *TableSchema) Types() []sql.DataType {
	out := make([]sql.DataType, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Type
	}
	return out
}

// SQLSchema converts to the engine's schema.
func (s *TableSchema) SQLSchema() sql.Schema {
	out := sql.Schema{PrimaryKey: append([]string(nil), s.PrimaryKeys...)}
	for _, f := range s.Fields {
		c := sql.Column{Name: f.Name, Type: f.Type}
		if f.Description != nil {
			c.Comment = *f.Description
		}
		out.Columns = append(out.Columns, c)
	}
	return out
}

// Project returns the fields named, in order (an error names a missing one).
func (s *TableSchema) Project(names []string) ([]Field, error) {
	out := make([]Field, len(names))
	for i, n := range names {
		j := s.FieldIndex(n)
		if j < 0 {
			return nil, fmt.Errorf("column %q not found in schema %d", n, s.ID)
		}
		out[i] = s.Fields[j]
	}
	return out, nil
}

// TrimmedPrimaryKeys is the primary key minus partition keys, in primary-key
// order: the _KEY_ columns of data files and the key of a KeyValue.
func (s *TableSchema) TrimmedPrimaryKeys() []string {
	part := map[string]bool{}
	for _, p := range s.PartitionKeys {
		part[p] = true
	}
	var out []string
	for _, k := range s.PrimaryKeys {
		if !part[k] {
			out = append(out, k)
		}
	}
	if len(out) == 0 && len(s.PrimaryKeys) > 0 { // Paimon rejects this at create
		return append([]string(nil), s.PrimaryKeys...)
	}
	return out
}

// BucketKeys is option bucket-key (comma separated, listed order), else the
// trimmed primary key, else (append tables) all columns — the fields whose
// BinaryRow is hashed for the bucket.
func (s *TableSchema) BucketKeys() []string {
	if bk := strings.TrimSpace(s.Options["bucket-key"]); bk != "" {
		var out []string
		for _, k := range strings.Split(bk, ",") {
			out = append(out, strings.TrimSpace(k))
		}
		return out
	}
	if len(s.PrimaryKeys) > 0 {
		return s.TrimmedPrimaryKeys()
	}
	return s.Names()
}

// Bucket is option bucket (default -1).
func (s *TableSchema) Bucket() int {
	if v, ok := s.Options["bucket"]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n
		}
	}
	return -1
}

// Option returns an option or def when unset.
func (s *TableSchema) Option(key, def string) string {
	if v, ok := s.Options[key]; ok {
		return v
	}
	return def
}

type fieldJSON struct {
	ID           int             `json:"id"`
	Name         string          `json:"name"`
	Type         json.RawMessage `json:"type"`
	Description  *string         `json:"description,omitempty"`
	DefaultValue *string         `json:"defaultValue,omitempty"`
}

type schemaJSON struct {
	Version        *int            `json:"version,omitempty"`
	ID             int64           `json:"id"`
	Fields         []fieldJSON     `json:"fields"`
	HighestFieldID int             `json:"highestFieldId"`
	PartitionKeys  []string        `json:"partitionKeys"`
	PrimaryKeys    []string        `json:"primaryKeys"`
	Options        json.RawMessage `json:"options"`
	Comment        *string         `json:"comment,omitempty"`
	TimeMillis     int64           `json:"timeMillis"`
}

// Parse decodes a schema file, applying Java's upgrades of old versions: a
// missing version is 1; version ≤1 without bucket means bucket=1; version ≤2
// without file.format means orc.
func Parse(data []byte) (*TableSchema, error) {
	var j schemaJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	s := &TableSchema{Version: 1, ID: j.ID, HighestFieldID: j.HighestFieldID, PartitionKeys: nonNil(j.PartitionKeys),
		PrimaryKeys: nonNil(j.PrimaryKeys), Options: map[string]string{}, Comment: j.Comment, TimeMillis: j.TimeMillis}
	if j.Version != nil {
		s.Version = *j.Version
	}
	if len(j.Options) > 0 && string(j.Options) != "null" {
		var raw map[string]any
		d := json.NewDecoder(bytes.NewReader(j.Options))
		d.UseNumber()
		if err := d.Decode(&raw); err != nil {
			return nil, fmt.Errorf("parse schema %d options: %w", j.ID, err)
		}
		for k, v := range raw {
			s.Options[k] = fmt.Sprint(v) // Java writes strings; be lenient
		}
	}
	for _, f := range j.Fields {
		var ids []int
		if len(f.Type) == 0 {
			return nil, fmt.Errorf("parse schema %d: field %q has no type", j.ID, f.Name)
		}
		t, blob, err := parseFieldType(f.Type, &ids)
		if err != nil {
			return nil, fmt.Errorf("parse schema %d field %q: %w", j.ID, f.Name, err)
		}
		fl := Field{ID: f.ID, Name: f.Name, Type: t, Description: f.Description, DefaultValue: f.DefaultValue, NestedIDs: ids, Blob: blob}
		s.Fields = append(s.Fields, fl)
	}
	if s.Version <= 1 {
		if _, ok := s.Options["bucket"]; !ok {
			s.Options["bucket"] = "1"
		}
	}
	if s.Version <= 2 {
		if _, ok := s.Options["file.format"]; !ok {
			s.Options["file.format"] = "orc"
		}
	}
	return s, nil
}

// Marshal encodes the schema as Java does (version 3, Jackson pretty print,
// Java's key order). Options are written sorted by key (Java's order is a
// hash map's; readers do not care).
func (s *TableSchema) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	w := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		return nil
	}
	fields := make([]any, len(s.Fields))
	for i, f := range s.Fields {
		ids := f.NestedIDs
		k := 0
		var used []int
		t, err := typeJSON(f.Type, &used, func() int {
			if k < len(ids) {
				k++
				return ids[k-1]
			}
			return -1
		})
		if err != nil {
			return nil, fmt.Errorf("schema %d field %q: %w", s.ID, f.Name, err)
		}
		if f.Blob {
			t = blobTypeString(f.Type.Nullable)
		}
		o := orderedObj{{"id", f.ID}, {"name", f.Name}, {"type", t}}
		if f.Description != nil {
			o = append(o, kv{"description", *f.Description})
		}
		if f.DefaultValue != nil {
			o = append(o, kv{"defaultValue", *f.DefaultValue})
		}
		fields[i] = o
	}
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	opts := orderedObj{}
	for _, k := range keys {
		opts = append(opts, kv{k, s.Options[k]})
	}
	for _, e := range []kv{{"version", CurrentVersion}, {"id", s.ID}, {"fields", fields}, {"highestFieldId", s.HighestFieldID},
		{"partitionKeys", nonNil(s.PartitionKeys)}, {"primaryKeys", nonNil(s.PrimaryKeys)}, {"options", opts}} {
		if err := w(e.k, e.v); err != nil {
			return nil, err
		}
	}
	if s.Comment != nil {
		if err := w("comment", *s.Comment); err != nil {
			return nil, err
		}
	}
	if err := w("timeMillis", s.TimeMillis); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return jackson.Format(b.Bytes())
}
