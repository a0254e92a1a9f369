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
	s1, err := s0.Apply(java.TimeMillis,
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
	if _, err := s0.Apply(0, DropColumn{"key0"}); err == nil || !strings.Contains(err.Error(), "partition") {
		t.Fatalf("drop partition key: %v", err)
	}
	if _, err := s0.Apply(0, AddColumn{Field: Field{Name: "a", Type: sql.Int()}}); err == nil {
		t.Fatal("duplicate column accepted")
	}
	// A bucketed append table names its bucket key (SchemaValidation).
	s2, err := s0.Apply(1, AddColumn{Field: Field{Name: "z", Type: sql.Int()}, First: true},
		SetOption{"bucket", "4"}, SetOption{"bucket-key", "k"}, RemoveOption{"file.format"})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Fields[0].Name != "z" || s2.Fields[0].ID != 7 || s2.Options["bucket"] != "4" || s2.Options["file.format"] != "" || s2.ID != 1 {
		t.Fatalf("%+v", s2)
	}
}
