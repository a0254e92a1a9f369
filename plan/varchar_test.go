package plan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// The spellings of Flink's unbounded string and binary types: VARCHAR and
// VARBINARY without a length are VARCHAR(2147483647) and VARBINARY(2147483647)
// (FlinkTypeSystem.getDefaultPrecision), i.e. STRING and BYTES.
var (
	unboundedStrings = []string{"VARCHAR", "STRING", "CHARACTER VARYING", "CHAR VARYING", "VARCHAR(2147483647)"}
	unboundedBinary  = []string{"VARBINARY", "BYTES", "BINARY VARYING", "VARBINARY(2147483647)"}
)

// evalCast binds "SELECT <expr> FROM t" over a table whose column s holds
// str and b holds bin, and evaluates it.
func evalCast(t *testing.T, expr, str string, bin []byte) (any, sql.DataType) {
	t.Helper()
	tbl := &catalog.Table{
		Schema: sql.Schema{Columns: []sql.Column{
			{Name: "s", Type: sql.String()}, {Name: "b", Type: sql.Bytes()},
		}},
		Options: map[string]string{"connector": "values"},
	}
	stmt, err := parser.Parse("SELECT " + expr + " FROM t")
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	b := &binder{env: evalEnv{tbl}, config: map[string]string{}, streaming: true}
	r, err := b.bindQuery(stmt.(*ast.Query).Body)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	proj, ok := r.(*LogicalProject)
	if !ok {
		t.Fatalf("%s: unexpected plan %s", expr, r.Name())
	}
	ev, err := Compile(proj.Exprs[0])
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	v, err := ev([]any{str, bin})
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v, proj.Exprs[0].Type()
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// checkNotCut asserts that no default length cuts str or bin: a cast of a
// column or a literal to any unbounded spelling gives the value back whole,
// and the type is STRING or BYTES.
func checkNotCut(t *testing.T, str string, bin []byte) {
	for _, ty := range unboundedStrings {
		for _, arg := range []string{"s", sqlString(str)} {
			v, typ := evalCast(t, fmt.Sprintf("CAST(%s AS %s)", arg, ty), str, bin)
			if typ.Root != sql.TypeVarChar || typ.Length != sql.MaxLength {
				t.Fatalf("CAST(%s AS %s) has type %s, want STRING", arg, ty, typ)
			}
			if v != str {
				t.Fatalf("CAST(%s AS %s) = %q, want %q", arg, ty, v, str)
			}
		}
	}
	for _, ty := range unboundedBinary {
		v, typ := evalCast(t, fmt.Sprintf("CAST(b AS %s)", ty), str, bin)
		if typ.Root != sql.TypeVarBinary || typ.Length != sql.MaxLength {
			t.Fatalf("CAST(b AS %s) has type %s, want BYTES", ty, typ)
		}
		if got, _ := v.([]byte); !bytes.Equal(got, bin) {
			t.Fatalf("CAST(b AS %s) = %x, want %x", ty, v, bin)
		}
	}
	for _, ty := range append(append([]string{}, unboundedStrings...), unboundedBinary...) {
		st, err := parser.Parse("CREATE TABLE x (c " + ty + ") WITH ('connector' = 'print')")
		if err != nil {
			t.Fatalf("%s: %v", ty, err)
		}
		if got := st.(*ast.CreateTable).Columns[0].Type; got.Length != sql.MaxLength {
			t.Fatalf("column of type %s is %s, want length %d", ty, got, sql.MaxLength)
		}
	}
}

// TestVarcharDefaultLength: VARCHAR without a length once meant VARCHAR(1),
// so 'hello' became 'h'.
func TestVarcharDefaultLength(t *testing.T) {
	checkNotCut(t, "hello", []byte{1, 2, 3})
	checkNotCut(t, strings.Repeat("x", 70000), bytes.Repeat([]byte{7}, 70000))
}

// FuzzVarcharNotCut: no string or byte string is ever cut by a default
// length.
func FuzzVarcharNotCut(f *testing.F) {
	f.Add("hello", []byte("hello"))
	f.Add("", []byte{})
	f.Add("it's ünïcödé 🙂", []byte{0, 255})
	f.Fuzz(func(t *testing.T, s string, b []byte) {
		if b == nil {
			b = []byte{}
		}
		// SQL text is UTF-8 (Flink's strings are Unicode): bytes that are
		// not UTF-8 are not a string a statement can spell.
		s = strings.ToValidUTF8(s, "?")
		checkNotCut(t, s, b)
	})
}
