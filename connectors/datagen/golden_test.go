package datagen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// TestOptionsGolden is the golden contract of datagen's options: which
// options each kind and type accepts, Flink's validation messages, and
// sample rows (values are a function of the row index, so they are
// stable). Input lines are columns ("name TYPE") or options ("key =
// value"); "create rows=N" prints the first N rows, or the error.
func TestOptionsGolden(t *testing.T) {
	datadriven.RunTest(t, "testdata/options", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "create" {
			t.Fatalf("unknown command %s", td.Cmd)
		}
		var cols []sql.Column
		opts := map[string]string{"rows-per-second": "0"}
		for _, line := range strings.Split(td.Input, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
				continue
			}
			name, typ, _ := strings.Cut(strings.TrimSpace(line), " ")
			dt, rest, err := parseType(strings.TrimSpace(typ))
			if err != nil || rest != "" {
				t.Fatalf("%s: bad type %q: %v", td.Pos, typ, err)
			}
			cols = append(cols, sql.Column{Name: name, Type: dt})
		}
		rows := 0
		td.MaybeScanArgs(t, "rows", &rows)
		if rows > 0 {
			opts["number-of-rows"] = strconv.Itoa(rows)
		}
		src, err := Factory{}.CreateSource(&connectors.Context{Schema: sql.Schema{Columns: cols}, Options: opts})
		if err != nil {
			var se *sql.Error
			if !errors.As(err, &se) {
				t.Fatalf("%s: untyped error %v", td.Pos, err)
			}
			return fmt.Sprintf("%s: %s\n", se.Class, se.Msg)
		}
		if rows == 0 {
			return "ok\n"
		}
		var b strings.Builder
		out, _ := readAll(t, src.(*Source), 0, 1, nil, -1)
		types := make([]sql.DataType, len(cols))
		for i, c := range cols {
			types[i] = c.Type
		}
		for _, r := range out {
			b.WriteString(sql.FormatRow(r, types))
			b.WriteByte('\n')
		}
		return b.String()
	})
}

// parseType reads the few type spellings the golden file uses, returning
// the rest of s.
func parseType(s string) (sql.DataType, string, error) {
	word := s
	if i := strings.IndexAny(s, "(<,>"); i >= 0 {
		word = s[:i]
	}
	rest := s[len(word):]
	word = strings.TrimSpace(word)
	args := func() ([]int, error) {
		if !strings.HasPrefix(rest, "(") {
			return nil, nil
		}
		end := strings.Index(rest, ")")
		var out []int
		for _, a := range strings.Split(rest[1:end], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		rest = rest[end+1:]
		return out, nil
	}
	simple := map[string]sql.DataType{"BOOLEAN": sql.Boolean(), "TINYINT": sql.TinyInt(), "SMALLINT": sql.SmallInt(),
		"INT": sql.Int(), "BIGINT": sql.BigInt(), "FLOAT": sql.Float(), "DOUBLE": sql.Double(), "STRING": sql.String(),
		"BYTES": sql.Bytes(), "DATE": sql.Date()}
	if t, ok := simple[word]; ok {
		return t, rest, nil
	}
	a, err := args()
	if err != nil {
		return sql.DataType{}, "", err
	}
	arg := func(i, def int) int {
		if i < len(a) {
			return a[i]
		}
		return def
	}
	switch word {
	case "CHAR":
		return sql.Char(arg(0, 1)), rest, nil
	case "VARCHAR":
		return sql.VarChar(arg(0, 1)), rest, nil
	case "BINARY":
		return sql.Binary(arg(0, 1)), rest, nil
	case "VARBINARY":
		return sql.VarBinary(arg(0, 1)), rest, nil
	case "DECIMAL":
		return sql.Decimal(arg(0, 10), arg(1, 0)), rest, nil
	case "TIME":
		return sql.Time(arg(0, 0)), rest, nil
	case "TIMESTAMP":
		return sql.Timestamp(arg(0, 6)), rest, nil
	case "TIMESTAMP_LTZ":
		return sql.TimestampLTZ(arg(0, 6)), rest, nil
	case "ARRAY", "MAP":
		elem, r, err := parseType(strings.TrimPrefix(rest, "<"))
		if err != nil {
			return sql.DataType{}, "", err
		}
		if word == "ARRAY" {
			return sql.ArrayOf(elem), strings.TrimPrefix(r, ">"), nil
		}
		val, r, err := parseType(strings.TrimSpace(strings.TrimPrefix(r, ",")))
		if err != nil {
			return sql.DataType{}, "", err
		}
		return sql.MapOf(elem, val), strings.TrimPrefix(r, ">"), nil
	}
	return sql.DataType{}, "", fmt.Errorf("unknown type %q", word)
}
