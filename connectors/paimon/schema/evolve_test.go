package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

// TestApplyReproducesFixture replays the ALTERs of the
// append_partitioned_schema_evolution fixture on schema-0 and gets Java's
// schema-1 (ids, order, highestFieldId).
func TestApplyReproducesFixture(t *testing.T) {
	dir := filepath.Join(fixtures.PaimonDir(t), "append_partitioned_schema_evolution/append_table_with_alter_table.db/append_table_with_alter_table/schema")
	b0, _ := os.ReadFile(filepath.Join(dir, "schema-0"))
	b1, _ := os.ReadFile(filepath.Join(dir, "schema-1"))
	s0, err := Parse(b0)
	if err != nil {
		t.Fatal(err)
	}
	java, _ := Parse(b1)
	empty := ""
	// schema-0: key0 key1 a b c d k → schema-1: key0 key1 k c(3) d(7) a(5) e(8)
	s1, err := s0.Apply(Alter{TimeMillis: java.TimeMillis},
		DropColumn{"a"}, DropColumn{"c"}, RenameColumn{"b", "c"}, RenameColumn{"d", "a"},
		AddColumn{Field: Field{Name: "d", Type: sql.Int(), Description: &empty}},
		AddColumn{Field: Field{Name: "e", Type: sql.Int()}},
		MoveColumn{Name: "k", After: "key1"}, MoveColumn{Name: "d", After: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s1, java) {
		t.Fatalf("ours %+v\njava %+v", s1, java)
	}
	if _, err := s0.Apply(Alter{}, DropColumn{"key0"}); err == nil || !strings.Contains(err.Error(), "partition") {
		t.Fatalf("drop partition key: %v", err)
	}
	if _, err := s0.Apply(Alter{}, AddColumn{Field: Field{Name: "a", Type: sql.Int()}}); err == nil {
		t.Fatal("duplicate column accepted")
	}
	// A bucketed append table names its bucket key (SchemaValidation).
	s2, err := s0.Apply(Alter{TimeMillis: 1}, AddColumn{Field: Field{Name: "z", Type: sql.Int()}, First: true},
		SetOption{"bucket", "4"}, SetOption{"bucket-key", "k"}, RemoveOption{"file.format"})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Fields[0].Name != "z" || s2.Fields[0].ID != 7 || s2.Options["bucket"] != "4" || s2.Options["file.format"] != "" || s2.ID != 1 {
		t.Fatalf("%+v", s2)
	}
}

// TestApplyPaimonRules checks SchemaManager.generateTableSchema's rules:
// DataTypeCasts for MODIFY (explicit casts unless
// 'disable-explicit-type-casting'), applyMove's positions, and the options
// that follow a rename (applyRenameColumnsToOptions).
func TestApplyPaimonRules(t *testing.T) {
	s0, err := New([]sql.Column{{Name: "k", Type: sql.Int()}, {Name: "a", Type: sql.Int()}, {Name: "b", Type: sql.String()}, {Name: "c", Type: sql.Double()}},
		nil, []string{"k"}, map[string]string{"bucket": "1", "sequence.field": "a", "fields.b.aggregate-function": "max", "merge-engine": "aggregation"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	a := Alter{Table: "db.t"}
	for _, c := range []struct {
		from, to sql.DataType
		explicit bool
		ok       bool
	}{
		{sql.Int(), sql.BigInt(), false, true},         // implicit widening
		{sql.BigInt(), sql.Int(), false, false},        // narrowing is explicit
		{sql.BigInt(), sql.Int(), true, true},          //
		{sql.String(), sql.Bytes(), true, true},        // VARBINARY explicitly from CHARACTER_STRING
		{sql.Int(), sql.Date(), true, false},           // DATE: no numeric source
		{sql.Boolean(), sql.String(), false, false},    // to VARCHAR only explicitly from non-strings
		{sql.Date(), sql.Timestamp(3), false, false},   // TIMESTAMP implicitly only from timestamps
		{sql.Timestamp(6), sql.Date(), false, true},    // DATE implicitly from TIMESTAMP
		{sql.Decimal(10, 2), sql.Float(), false, true}, // FLOAT implicitly from DECIMAL
		{sql.Double(), sql.Float(), false, false},      //
		{sql.Int().NotNull(), sql.Int(), false, true},  // same type, nullability aside
		{sql.Int(), sql.Int().NotNull(), false, false}, // nullable to NOT NULL needs explicit
		{sql.Bytes(), sql.Binary(4), true, true},       // BINARY explicitly from VARBINARY
		{sql.Time(0), sql.Timestamp(3), true, true},    // TIMESTAMP explicitly from DATETIME
		{sql.Boolean(), sql.Decimal(5, 0), true, true}, //
		{sql.Boolean(), sql.Timestamp(3), true, false}, //
	} {
		if got := supportsCast(c.from, c.to, c.explicit); got != c.ok {
			t.Errorf("supportsCast(%s, %s, %v) = %v", c.from, c.to, c.explicit, got)
		}
	}
	if _, err := s0.Apply(a, UpdateColumnType{"a", sql.Date()}); err == nil ||
		err.Error() != "Column type a[INT] cannot be converted to DATE without loosing information." {
		t.Errorf("INT to DATE: %v", err)
	}
	strict := *s0
	strict.Options = map[string]string{"bucket": "1", "disable-explicit-type-casting": "true"}
	if _, err := strict.Apply(a, UpdateColumnType{"c", sql.Int()}); err == nil {
		t.Error("DOUBLE to INT accepted with disable-explicit-type-casting")
	}
	if _, err := s0.Apply(a, UpdateColumnType{"c", sql.Int()}); err != nil {
		t.Errorf("DOUBLE to INT: %v", err)
	}
	// applyMove: AFTER a later column, AFTER an earlier one, FIRST.
	for _, c := range []struct {
		m    MoveColumn
		want string
	}{
		{MoveColumn{Name: "k", After: "b"}, "a b k c"},
		{MoveColumn{Name: "c", After: "k"}, "k c a b"},
		{MoveColumn{Name: "b", First: true}, "b k a c"},
		{MoveColumn{Name: "a", After: "c"}, "k b c a"},
	} {
		s1, err := s0.Apply(a, c.m)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(s1.Names(), " "); got != c.want {
			t.Errorf("%+v: %s, want %s", c.m, got, c.want)
		}
	}
	s1, err := s0.Apply(a, RenameColumn{"a", "a2"}, RenameColumn{"b", "b2"}, RenameColumn{"k", "k2"})
	if err != nil {
		t.Fatal(err)
	}
	if s1.Options["sequence.field"] != "a2" || s1.Options["fields.b2.aggregate-function"] != "max" ||
		s1.Options["fields.b.aggregate-function"] != "" || strings.Join(s1.PrimaryKeys, ",") != "k2" {
		t.Errorf("after renames: keys %v options %v", s1.PrimaryKeys, s1.Options)
	}
	// A dropped column's id is not reused: the column added after it takes
	// highestFieldId+1.
	s2, err := s0.Apply(a, DropColumn{"c"}, AddColumn{Field: Field{Name: "c", Type: sql.Double()}})
	if err != nil {
		t.Fatal(err)
	}
	if f := s2.Fields[s2.FieldIndex("c")]; f.ID != 4 || s2.HighestFieldID != 4 {
		t.Errorf("re-added c: id %d, highest %d", f.ID, s2.HighestFieldID)
	}
}
