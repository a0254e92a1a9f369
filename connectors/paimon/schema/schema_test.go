package schema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

func TestTypeStrings(t *testing.T) {
	for _, s := range []string{"BOOLEAN", "TINYINT", "SMALLINT", "INT NOT NULL", "BIGINT", "FLOAT", "DOUBLE", "DATE", "STRING NOT NULL",
		"BYTES", "CHAR(3)", "VARCHAR(10)", "BINARY(4)", "VARBINARY(8)", "DECIMAL(10, 2)", "DECIMAL(38, 18) NOT NULL", "TIME(0)",
		"TIMESTAMP(3)", "TIMESTAMP(9) WITH LOCAL TIME ZONE", "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL"} {
		dt, err := ParseTypeString(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		back, err := TypeString(dt)
		if err != nil || back != s {
			t.Errorf("%s -> %v -> %q %v", s, dt, back, err)
		}
	}
	if dt, _ := ParseTypeString("VARCHAR(2147483647)"); dt.String() != "STRING" {
		t.Errorf("max varchar is STRING: %v", dt)
	}
	if _, err := ParseTypeString("VARIANT"); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("VARIANT: %v", err)
	}
}

// TestFixtureSchemas reads every Java-written schema, checks it and checks
// that writing and re-reading it gives the same schema.
func TestFixtureSchemas(t *testing.T) {
	root := fixtures.PaimonDir(t)
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.db", "*", "schema", "schema-*"))
	if len(files) < 6 {
		t.Fatalf("found %d schema files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Errorf("%s: round trip differs:\n%+v\n%+v", f, s, s2)
		}
		// Java's text and ours differ at most in the order of options.
		if stripOptions(string(b)) != stripOptions(string(out)) {
			t.Errorf("%s: written text differs from Java's:\n%s\n---\n%s", f, b, out)
		}
	}
	b, _ := os.ReadFile(filepath.Join(root, "pk_mor_partitioned/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/schema/schema-0"))
	s, _ := Parse(b)
	if got := strings.Join(s.TrimmedPrimaryKeys(), ","); got != "f0,f2" {
		t.Errorf("trimmed pk %s", got)
	}
	if got := strings.Join(s.BucketKeys(), ","); got != "f2" || s.Bucket() != 2 {
		t.Errorf("bucket keys %s bucket %d", got, s.Bucket())
	}
	if s.Fields[0].Type.Nullable || s.Fields[0].Type.Root != sql.TypeVarChar || !s.Fields[3].Type.Nullable {
		t.Errorf("types %v", s.Types())
	}
}

func stripOptions(s string) string {
	i := strings.Index(s, `"options" : {`)
	j := strings.Index(s[i:], "}")
	return s[:i] + s[i+j:]
}

func TestOldVersions(t *testing.T) {
	s, err := Parse([]byte(`{"id":0,"fields":[{"id":0,"name":"k","type":"INT"}],"highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{},"timeMillis":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || s.Options["bucket"] != "1" || s.Options["file.format"] != "orc" {
		t.Fatalf("v1 upgrade: %+v", s)
	}
	s, _ = Parse([]byte(`{"version":2,"id":0,"fields":[],"highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1"},"timeMillis":1}`))
	if s.Options["bucket"] != "-1" || s.Options["file.format"] != "orc" {
		t.Fatalf("v2 upgrade: %+v", s.Options)
	}
}

func TestMarshalGolden(t *testing.T) {
	datadriven.RunTest(t, "testdata/marshal", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "new":
			var cols []sql.Column
			var pk, part []string
			opts := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				k, v, _ := strings.Cut(line, ":")
				v = strings.TrimSpace(v)
				switch k {
				case "pk":
					pk = strings.Split(v, ",")
				case "partition":
					part = strings.Split(v, ",")
				case "option":
					ok, ov, _ := strings.Cut(v, "=")
					opts[ok] = ov
				default:
					dt, err := ParseTypeString(v)
					if err != nil {
						dt = nestedFor(v)
					}
					cols = append(cols, sql.Column{Name: k, Type: dt})
				}
			}
			s, err := New(cols, part, pk, opts, "", 1756266931880)
			if err != nil {
				return err.Error()
			}
			b, err := s.Marshal()
			if err != nil {
				return err.Error()
			}
			s2, err := Parse(b)
			if err != nil || !reflect.DeepEqual(s, s2) {
				return fmt.Sprintf("round trip failed: %v\n%+v\n%+v", err, s, s2)
			}
			return string(b)
		}
		return "unknown command"
	})
}

// nestedFor builds the composite test types the golden file uses.
func nestedFor(v string) sql.DataType {
	switch v {
	case "ROW<a INT, b ROW<c STRING>>":
		return sql.RowOf(sql.Field{Name: "a", Type: sql.Int()}, sql.Field{Name: "b", Type: sql.RowOf(sql.Field{Name: "c", Type: sql.String()})})
	case "ARRAY<INT NOT NULL>":
		return sql.ArrayOf(sql.Int().NotNull())
	case "MAP<STRING, BIGINT>":
		return sql.MapOf(sql.String(), sql.BigInt())
	}
	return sql.Null()
}

func TestManager(t *testing.T) {
	m := NewManager(fs.NewLocal(), t.TempDir())
	if s, err := m.Latest(); s != nil || err != nil {
		t.Fatalf("empty table: %v %v", s, err)
	}
	s, _ := New([]sql.Column{{Name: "k", Type: sql.Int()}}, nil, []string{"k"}, map[string]string{"bucket": "1"}, "", 1)
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := m.CommitNext(s)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = c.ID
		}(i)
	}
	wg.Wait()
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("two writers got schema id %d: %v", id, ids)
		}
		seen[id] = true
	}
	l, err := m.Latest()
	if err != nil || l.ID != 7 {
		t.Fatalf("latest %v %v", l, err)
	}
	if err := m.Commit(l); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("recommit: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":{"type":"ROW","fields":[{"id":1,"name":"x","type":"INT"}]}}],"options":{"a":"b"}}`))
	f.Add([]byte(`{"fields":[{"type":"DECIMAL(1"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		_, _ = s.Marshal()
	})
}

// TestFieldIDsAsPaimon checks id allocation against Paimon's
// Schema.Builder.column + ReassignFieldId: a column takes the next id, then
// its ROW fields the following ones, a ROW field after its own nested
// fields (RowType.Builder.field increments once the field's type has been
// reassigned); the next column comes after. Issue 14: nested ids were
// allocated after all top-level ids.
func TestFieldIDsAsPaimon(t *testing.T) {
	r := sql.RowOf(sql.Field{Name: "a", Type: sql.Int()},
		sql.Field{Name: "b", Type: sql.RowOf(sql.Field{Name: "c", Type: sql.String()})})
	s, err := New([]sql.Column{{Name: "k", Type: sql.Int()}, {Name: "r", Type: r},
		{Name: "arr", Type: sql.ArrayOf(sql.RowOf(sql.Field{Name: "x", Type: sql.Int()}))}, {Name: "z", Type: sql.Int()}},
		nil, nil, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	type ids struct {
		id     int
		nested []int
	}
	var got []ids
	for _, f := range s.Fields {
		got = append(got, ids{f.ID, f.NestedIDs})
	}
	// k=0; r=1, a=2, c=3, b=4; arr=5, x=6; z=7.
	want := []ids{{0, nil}, {1, []int{2, 4, 3}}, {5, []int{6}}, {7, nil}}
	if !reflect.DeepEqual(got, want) || s.HighestFieldID != 7 {
		t.Fatalf("ids %v highest %d, want %v highest 7", got, s.HighestFieldID, want)
	}
}

// TestBlobColumns: a BLOB column (BlobType, Paimon 1.3+) reads as BYTES with
// its nullability and is written back as BLOB; renaming it or changing its
// type is refused as SchemaManager does, and SchemaValidation's BLOB rules
// apply with Paimon's messages. Before, "unsupported Paimon data type".
func TestBlobColumns(t *testing.T) {
	src := `{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},{"id":1,"name":"pic","type":"BLOB NOT NULL"},` +
		`{"id":2,"name":"doc","type":"BLOB"}],"highestFieldId":2,"partitionKeys":[],"primaryKeys":[],` +
		`"options":{"row-tracking.enabled":"true","data-evolution.enabled":"true"},"timeMillis":1}`
	s, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Fields[1]; !f.Blob || !f.Type.Equal(sql.Bytes().NotNull()) || s.Fields[0].Blob || !s.Fields[2].Type.Nullable {
		t.Fatalf("fields %+v", s.Fields)
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"type" : "BLOB NOT NULL"`) || !strings.Contains(string(out), `"type" : "BLOB"`) {
		t.Fatalf("marshalled:\n%s", out)
	}
	if err := s.ValidateCreate(); err != nil {
		t.Fatalf("valid BLOB table refused: %v", err)
	}
	a := Alter{Table: "db.t"}
	if _, err := s.Apply(a, RenameColumn{"pic", "picture"}); err == nil || err.Error() != "Cannot rename BLOB column: [pic]" {
		t.Errorf("rename: %v", err)
	}
	if _, err := s.Apply(a, UpdateColumnType{"doc", sql.Bytes()}); err == nil || !strings.Contains(err.Error(), "doc[BLOB] cannot be converted to BYTES") {
		t.Errorf("type change: %v", err)
	}
	if s2, err := s.Apply(a, RenameColumn{"id", "k"}); err != nil || !s2.Fields[1].Blob {
		t.Errorf("renaming another column: %v, blob kept %v", err, err == nil && s2.Fields[1].Blob)
	}
	for _, c := range []struct{ mutate, want string }{
		{"no-evolution", "Data evolution config must enabled for table with BLOB type column."},
		{"only-blobs", "Table with BLOB type column must have other normal columns."},
		{"partitioned", "The BLOB type column can not be part of partition keys."},
	} {
		bad, _ := Parse([]byte(src))
		switch c.mutate {
		case "no-evolution":
			delete(bad.Options, "data-evolution.enabled")
		case "only-blobs":
			bad.Fields = bad.Fields[1:]
		case "partitioned":
			bad.PartitionKeys = []string{"doc"}
		}
		if err := bad.ValidateCreate(); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.mutate, err, c.want)
		}
	}
}
