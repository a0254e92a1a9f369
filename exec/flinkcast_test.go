package exec

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// TestFlinkCast runs the cases of Flink's own CastFunctionITCase
// (testdata/flinkfuncs/cast says which version) through sqlrun: each line
// of a "cast" block after its first line, "to T", is a source type, a source value (an SQL
// expression) and what Flink's test expects of CAST(f0 AS T), where f0 is
// a column of the source type holding the value, as
// BuiltInFunctionTestBase evaluates it. The output lists every case where
// sqlrun differs ("ok" when none does), so the golden is the list of
// known differences and a fix or a regression changes it.
//
// Expected values: NULL; !error (Flink fails at run time); !invalid
// (Flink refuses the cast when validating); a Go-quoted string for
// character results; X'..' for binary ones; numbers compared as numbers
// (floating point by value); anything else as sqlrun's Row.toString
// rendering (sql.FormatValue), which is Java's toString of the external
// type (LocalDate, LocalTime, LocalDateTime, BigDecimal, Period...).
func TestFlinkCast(t *testing.T) {
	datadriven.Walk(t, "../testdata/flinkfuncs", func(t *testing.T, path string) {
		s := newTestSession()
		s.Planner = PlanPlanner{}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := s.ExecuteScript(ctx, "SET 'execution.runtime-mode' = 'batch';", "set.sql", io.Discard); err != nil {
			t.Fatal(err)
		}
		from := "" // the FROM clause "fields" defines for "expr" blocks
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "cast":
			case "fields":
				from = flinkFields(t, d)
				return ""
			case "expr":
				return runFlinkExprs(ctx, t, s, d, from)
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			lines := strings.Split(strings.TrimSpace(d.Input), "\n")
			target, ok := strings.CutPrefix(lines[0], "to ")
			if !ok {
				d.Fatalf(t, "the first line is 'to <type>': %q", lines[0])
			}
			var diffs []string
			for i, line := range lines[1:] {
				f := strings.Split(line, " | ")
				if len(f) != 3 {
					d.Fatalf(t, "line %d: want 'type | value | expected': %q", i+1, line)
				}
				src, val, want := strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2])
				q := fmt.Sprintf("SELECT CAST(f0 AS %s) FROM (VALUES (CAST(%s AS %s))) AS t(f0)", target, val, sourceType(t, src))
				got := evalCast(ctx, s, q)
				if !castMatches(got, want) {
					diffs = append(diffs, fmt.Sprintf("CAST(%s %s AS %s): sqlrun %s, Flink %s", src, val, target, got.text, want))
				}
			}
			if len(diffs) == 0 {
				return "ok\n"
			}
			return strings.Join(diffs, "\n") + "\n"
		})
	})
}

// sourceType is the type the test's source column has in Flink's planner:
// BuiltInFunctionTestBase's values become literals of the column's planner
// type (FlinkTypeFactory.createFieldTypeFromLogicalType: a TIME(5) column
// is TIME(0), sql.Planned), which Calcite's makeLiteral rounds to it; so
// the test's TIME(5) '12:34:56.123' is 12:34:56 (its TIME(5) to
// TIMESTAMP(9) case expects 1970-01-01T12:34:56, "Fractional seconds are
// lost"). Other types are written as given.
func sourceType(t *testing.T, src string) string {
	st, err := parser.Parse("SELECT CAST(NULL AS " + src + ")")
	if err != nil {
		t.Fatalf("source type %q: %v", src, err)
	}
	c, ok := st.(*ast.Query).Body.(*ast.Select).Items[0].Expr.(*ast.Cast)
	if !ok {
		t.Fatalf("source type %q: no CAST", src)
	}
	if p := sql.Planned(c.Type); !p.Equal(c.Type) {
		return p.String()
	}
	return src
}

// flinkFields reads a "fields" block, the one row a test's expressions
// read (ExpressionTestBase.testData with its types): each line a field's
// name and type | its value as an SQL expression. The row is a derived
// table whose fields are the values cast to their types, so a value is
// rounded or nulled as the test's data conversion does.
// It is named testTable, as ExpressionTestBase names its table.
func flinkFields(t *testing.T, d *datadriven.TestData) string {
	var items []string
	for i, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		def, val, ok := strings.Cut(line, " | ")
		name, typ, ok2 := strings.Cut(strings.TrimSpace(def), " ")
		if !ok || !ok2 {
			d.Fatalf(t, "line %d: want 'name type | value': %q", i+1, line)
		}
		items = append(items, fmt.Sprintf("CAST(%s AS %s) AS %s", strings.TrimSpace(val), typ, name))
	}
	return " FROM (SELECT " + strings.Join(items, ", ") + ") AS testTable"
}

// runFlinkExprs runs an "expr" block: each line an SQL expression and what
// Flink's ExpressionTestBase.testSqlApi expects of it, the result cast to
// a string (NULL for null; !error when Flink fails at run time; Go-quoted
// when it starts or ends with a blank). The
// output lists the lines sqlrun differs on, "ok" when none.
func runFlinkExprs(ctx context.Context, t *testing.T, s *Session, d *datadriven.TestData, from string) string {
	var diffs []string
	for i, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		k := strings.LastIndex(line, " | ")
		if k < 0 {
			d.Fatalf(t, "line %d: want 'expression | expected': %q", i+1, line)
		}
		e, want := strings.TrimSpace(line[:k]), strings.TrimSpace(line[k+3:])
		if q, err := strconv.Unquote(want); err == nil && strings.HasPrefix(want, `"`) {
			want = q // a Go-quoted expectation keeps its blanks
		}
		got := evalCast(ctx, s, fmt.Sprintf("SELECT CAST((%s) AS STRING)%s", e, from))
		text := got.text
		if got.kind == "" {
			text = "NULL"
			if str, ok := got.val.(string); ok {
				text = str
			}
		}
		if text != want && !(want == "!error" && got.kind != "") {
			diffs = append(diffs, fmt.Sprintf("%s: sqlrun %s, Flink %s", e, text, want))
		}
	}
	if len(diffs) == 0 {
		return "ok\n"
	}
	return strings.Join(diffs, "\n") + "\n"
}

// castResult is what one CAST gave: a value of type typ, or an error of
// kind "!error" (at run time) or "!invalid" (planning refused it).
type castResult struct {
	val  any
	typ  sql.DataType
	text string // what the output shows
	kind string // "", "!error" or "!invalid"
}

func evalCast(ctx context.Context, s *Session, q string) castResult {
	fail := func(kind string, err error) castResult {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return castResult{kind: kind, text: kind + " (" + msg + ")"}
	}
	stmt, err := parser.Parse(q)
	if err != nil {
		return fail("!invalid", err)
	}
	st, ok := stmt.(*ast.Query)
	if !ok {
		return fail("!invalid", fmt.Errorf("not a query: %s", q))
	}
	qj, err := s.Planner.CompileQuery(ctx, s.Env(), st, "collect")
	if err != nil {
		return fail("!invalid", err)
	}
	cfg, err := runtime.ConfigFromMap(s.Config.Map())
	if err != nil {
		return fail("!invalid", err)
	}
	job, err := runtime.Start(ctx, qj.Graph, cfg)
	if err != nil {
		return fail("!error", err)
	}
	defer func() {
		job.Cancel()
		<-job.Done()
	}()
	var rows []sql.Row
	for {
		batch, err := qj.Collect.Next(ctx, job)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail("!error", err)
		}
		rows = append(rows, batch...)
	}
	if len(rows) != 1 || len(rows[0].Values) != 1 {
		return castResult{kind: "!error", text: fmt.Sprintf("!error (%d rows)", len(rows))}
	}
	r := castResult{val: rows[0].Values[0], typ: qj.Schema.Columns[0].Type}
	r.text = castText(r.val, r.typ)
	return r
}

// castText renders a result the way expected values are written.
func castText(v any, t sql.DataType) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strconv.Quote(x)
	case []byte:
		return "X'" + strings.ToUpper(hex.EncodeToString(x)) + "'"
	}
	return sql.FormatValue(v, t)
}

func castMatches(got castResult, want string) bool {
	switch {
	case strings.HasPrefix(want, "!"):
		return got.kind == want
	case got.kind != "":
		return false
	}
	switch x := got.val.(type) {
	case float32:
		w, err := strconv.ParseFloat(want, 32)
		return err == nil && math.Float32bits(float32(w)) == math.Float32bits(x)
	case float64:
		w, err := strconv.ParseFloat(want, 64)
		return err == nil && math.Float64bits(w) == math.Float64bits(x)
	}
	return got.text == want
}
