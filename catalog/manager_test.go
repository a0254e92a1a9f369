package catalog

import (
	"errors"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Flink names unnamed keys PK_<List.hashCode>; PK_3386 for (id) is what
// Flink 1.20 prints for the seed tables.
func TestPrimaryKeyName(t *testing.T) {
	for _, c := range []struct {
		cols []string
		want string
	}{
		{[]string{"id"}, "PK_3386"},
		{[]string{"b"}, "PK_129"},
		{[]string{"id", "dt"}, "PK_108182"},
		// Hashes wrap as Java's int does: "status".hashCode() is
		// -892481550 in Java.
		{[]string{"status"}, "PK_-892481519"},
	} {
		if got := PrimaryKeyName(c.cols); got != c.want {
			t.Errorf("%v: %s, want %s", c.cols, got, c.want)
		}
	}
}

func name(parts ...string) ast.ObjectName {
	switch len(parts) {
	case 1:
		return ast.ObjectName{Table: parts[0]}
	case 2:
		return ast.ObjectName{Database: parts[0], Table: parts[1]}
	}
	return ast.ObjectName{Catalog: parts[0], Database: parts[1], Table: parts[2]}
}

func table(cols ...string) *Table {
	t := &Table{Options: map[string]string{"connector": "blackhole"}}
	for _, c := range cols {
		t.Schema.Columns = append(t.Schema.Columns, sql.Column{Name: c, Type: sql.Int()})
	}
	return t
}

func TestResolution(t *testing.T) {
	m := NewManager()
	if err := m.CreateDatabase("", "db1", false); err != nil {
		t.Fatal(err)
	}
	id := m.Qualify(name("db1", "t"))
	if id != (connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "db1", Name: "t"}) {
		t.Fatalf("qualify: %v", id)
	}
	if err := m.CreateTable(id, table("a"), false, false); err != nil {
		t.Fatal(err)
	}
	// Unqualified names resolve through the current database.
	if _, _, err := m.LookupTable(name("t")); err == nil || err.Error() != "Object 't' not found" {
		t.Fatalf("lookup t from default_database: %v", err)
	}
	if err := m.UseDatabase("", "db1"); err != nil {
		t.Fatal(err)
	}
	got, tb, err := m.LookupTable(name("t"))
	if err != nil || got != id || tb.Schema.Columns[0].Name != "a" {
		t.Fatalf("lookup t from db1: %v %v %v", got, tb, err)
	}
	for _, c := range []struct {
		n    ast.ObjectName
		want string
	}{
		{name("missing"), "Object 'missing' not found"},
		{name("nodb", "t"), "Object 'nodb' not found"},
		{name("db1", "missing"), "Object 'missing' not found within 'db1'"},
		{name("nocat", "db1", "t"), "Object 'nocat' not found"},
		{name("default_catalog", "nodb", "t"), "Object 'nodb' not found within 'default_catalog'"},
		{name("default_catalog", "db1", "x"), "Object 'x' not found within 'default_catalog.db1'"},
	} {
		_, _, err := m.LookupTable(c.n)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrTableNotExist) {
			t.Errorf("%v: %v, want %q", c.n, err, c.want)
		}
		if rc := sql.RootCause(err); rc == nil || rc.Class != sql.SqlValidatorException {
			t.Errorf("%v: class %v", c.n, rc)
		}
	}
}

// A temporary table shadows the permanent one until dropped, and the
// catalog's copy is untouched.
func TestTemporaryShadowing(t *testing.T) {
	m := NewManager()
	id := m.Qualify(name("t"))
	if err := m.CreateTable(id, table("perm"), false, false); err != nil {
		t.Fatal(err)
	}
	if err := m.CreateTable(id, table("temp"), false, true); err != nil {
		t.Fatal(err)
	}
	rt, err := m.GetTable(id)
	if err != nil || !rt.Temporary || rt.Table.Schema.Columns[0].Name != "temp" {
		t.Fatalf("shadow: %+v %v", rt, err)
	}
	// Changing the returned copy changes nothing stored.
	rt.Table.Options["x"] = "y"
	if rt2, _ := m.GetTable(id); rt2.Table.Options["x"] != "" {
		t.Fatal("GetTable returned shared state")
	}
	if err := m.DropTable(id, false, false); err == nil {
		t.Fatal("dropping the permanent table under a temporary one succeeded")
	}
	if err := m.DropTable(id, false, true); err != nil {
		t.Fatal(err)
	}
	rt, err = m.GetTable(id)
	if err != nil || rt.Temporary || rt.Table.Schema.Columns[0].Name != "perm" {
		t.Fatalf("after drop: %+v %v", rt, err)
	}
	names, err := m.ListTables("", "")
	if err != nil || len(names) != 1 || names[0] != "t" {
		t.Fatalf("list: %v %v", names, err)
	}
}

// The shell's completer reads table names while statements run.
func TestConcurrentUse(t *testing.T) {
	m := NewManager()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				id := m.Qualify(name(string(rune('a'+i)) + string(rune('a'+j%26))))
				_ = m.CreateTable(id, table("x"), true, j%2 == 0)
				_ = m.AllTableNames()
				_, _, _ = m.LookupTable(name(id.Name))
			}
		}(i)
	}
	wg.Wait()
	if n := len(m.AllTableNames()); n != 4*26 {
		t.Fatalf("%d tables", n)
	}
}

func TestQuoteColumns(t *testing.T) {
	cols := map[string]bool{"ts": true, "SECOND": false, "a_1": true}
	for in, want := range map[string]string{
		"ts - INTERVAL '5' SECOND":        "`ts` - INTERVAL '5' SECOND",
		"CASE WHEN ts > 'ts' THEN ts END": "CASE WHEN `ts` > 'ts' THEN `ts` END",
		"`ts` - INTERVAL '1' SECOND":      "`ts` - INTERVAL '1' SECOND",
		"COALESCE(a_1, 'it''s ts', ts2)":  "COALESCE(`a_1`, 'it''s ts', ts2)",
		"x.ts":                            "x.ts",
	} {
		if got := quoteColumns(in, cols); got != want {
			t.Errorf("quoteColumns(%q) = %q, want %q", in, got, want)
		}
	}
}
