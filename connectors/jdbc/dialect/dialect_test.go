package dialect

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// parseType reads the handful of Flink type spellings the golden files use.
func parseType(s string) (sql.DataType, error) {
	s = strings.TrimSpace(s)
	notNull := strings.HasSuffix(s, " NOT NULL")
	s = strings.TrimSuffix(s, " NOT NULL")
	name, args := s, []int{}
	if i := strings.IndexByte(s, '('); i > 0 {
		name = s[:i]
		for _, a := range strings.Split(strings.TrimSuffix(s[i+1:], ")"), ",") {
			n, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil {
				return sql.DataType{}, err
			}
			args = append(args, n)
		}
	}
	arg := func(i, d int) int {
		if i < len(args) {
			return args[i]
		}
		return d
	}
	var t sql.DataType
	switch name {
	case "BOOLEAN":
		t = sql.Boolean()
	case "TINYINT":
		t = sql.TinyInt()
	case "SMALLINT":
		t = sql.SmallInt()
	case "INT":
		t = sql.Int()
	case "BIGINT":
		t = sql.BigInt()
	case "FLOAT":
		t = sql.Float()
	case "DOUBLE":
		t = sql.Double()
	case "DECIMAL":
		t = sql.Decimal(arg(0, 10), arg(1, 0))
	case "STRING":
		t = sql.String()
	case "VARCHAR":
		t = sql.VarChar(arg(0, 1))
	case "CHAR":
		t = sql.Char(arg(0, 1))
	case "BYTES":
		t = sql.Bytes()
	case "BINARY":
		t = sql.Binary(arg(0, 1))
	case "VARBINARY":
		t = sql.VarBinary(arg(0, 1))
	case "DATE":
		t = sql.Date()
	case "TIME":
		t = sql.Time(arg(0, 0))
	case "TIMESTAMP":
		t = sql.Timestamp(arg(0, 6))
	case "TIMESTAMP_LTZ":
		t = sql.TimestampLTZ(arg(0, 6))
	case "ARRAY<INT>":
		t = sql.ArrayOf(sql.Int())
	default:
		return sql.DataType{}, fmt.Errorf("unknown type %q", s)
	}
	if notNull {
		t = t.NotNull()
	}
	return t, nil
}

// TestDialect is the golden contract of the generated SQL, type checks,
// type mapping, literals and URL translation.
func TestDialect(t *testing.T) {
	var d MySQL
	datadriven.RunTest(t, "testdata/mysql", func(t *testing.T, td *datadriven.TestData) string {
		arg := func(k string) string {
			for _, a := range td.CmdArgs {
				if a.Key == k {
					return strings.Join(a.Vals, ",")
				}
			}
			return ""
		}
		split := func(k string) []string {
			if v := arg(k); v != "" {
				return strings.Split(v, ",")
			}
			return nil
		}
		switch td.Cmd {
		case "sql":
			table, cols, keys := arg("table"), split("cols"), split("keys")
			var b strings.Builder
			fmt.Fprintf(&b, "quote:  %s\n", d.Quote(table))
			fmt.Fprintf(&b, "insert: %s\n", d.InsertSQL(table, cols))
			fmt.Fprintf(&b, "upsert: %s\n", d.UpsertSQL(table, cols))
			fmt.Fprintf(&b, "delete: %s\n", d.DeleteSQL(table, keys))
			fmt.Fprintf(&b, "update: %s\n", d.UpdateSQL(table, cols, keys))
			fmt.Fprintf(&b, "lookup: %s\n", d.SelectSQL(table, cols, keys))
			fmt.Fprintf(&b, "exists: %s\n", d.RowExistsSQL(table, keys))
			fmt.Fprintf(&b, "scan:   %s\n", d.SelectSQL(table, cols, nil))
			fmt.Fprintf(&b, "split:  %s\n", d.ScanSQL(table, cols, arg("partition")))
			return b.String()
		case "validate":
			var s sql.Schema
			for i, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
				typ, err := parseType(line)
				if err != nil {
					return err.Error()
				}
				s.Columns = append(s.Columns, sql.Column{Name: fmt.Sprintf("f%d", i), Type: typ})
			}
			if err := d.Validate(s); err != nil {
				e := sql.RootCause(err)
				return fmt.Sprintf("%s: %s\n", e.Class, e.Msg)
			}
			var b strings.Builder
			for _, c := range s.Columns {
				ct, err := d.ColumnType(c.Type)
				if err != nil {
					return err.Error()
				}
				fmt.Fprintf(&b, "%s -> %s\n", c.Type, ct)
			}
			return b.String()
		case "from-mysql":
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
				typ, err := d.FlinkType(line, "c", true)
				if err != nil {
					fmt.Fprintf(&b, "%s -> error: %v\n", line, err)
					continue
				}
				fmt.Fprintf(&b, "%s -> %s\n", line, typ)
			}
			return b.String()
		case "url":
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
				c, err := ParseURL(line, arg("user"), "s3cr3t", arg("user") != "")
				if err != nil {
					fmt.Fprintf(&b, "%s\n  error: %v\n", RedactURL(line), err)
					continue
				}
				cfg := *c.Config
				if cfg.Passwd != "" {
					cfg.Passwd = "PW"
				}
				fmt.Fprintf(&b, "%s\n  dsn: %s\n", RedactURL(line), cfg.FormatDSN())
			}
			return b.String()
		}
		return "unknown command " + td.Cmd
	})
}

// TestLiterals checks value encoding in both escaping modes.
func TestLiterals(t *testing.T) {
	var d MySQL
	cases := []struct {
		v    any
		t    sql.DataType
		want string
		noBS string
	}{
		{nil, sql.Int(), "NULL", ""},
		{true, sql.Boolean(), "TRUE", ""},
		{int32(-7), sql.Int(), "-7", ""},
		{int64(1001), sql.BigInt(), "1001", ""},
		{float64(1.5), sql.Double(), "1.5", ""},
		{decimal.RequireFromString("120.00"), sql.Decimal(10, 2), "120.00", ""},
		{"it's a \\ \"x\"\n", sql.String(), `'it\'s a \\ \"x\"\n'`, "'it''s a \\ \"x\"\n'"},
		{[]byte{0, 0xff}, sql.Bytes(), "X'00ff'", ""},
		{int32(19724), sql.Date(), "'2024-01-02'", ""},
		{int32(36000123), sql.Time(3), "'10:00:00.123'", ""},
		{sql.TimestampData{Millis: 1704189600123, NanoOfMilli: 456000}, sql.Timestamp(6), "'2024-01-02 10:00:00.123456000'", ""},
	}
	for _, c := range cases {
		got, err := d.AppendLiteral(nil, c.v, c.t, BackslashEscapes)
		if err != nil || string(got) != c.want {
			t.Errorf("%v as %s: got %s, %v; want %s", c.v, c.t, got, err, c.want)
		}
		if c.noBS != "" {
			got, _ := d.AppendLiteral(nil, c.v, c.t, NoBackslashEscapes)
			if string(got) != c.noBS {
				t.Errorf("%v NO_BACKSLASH_ESCAPES: got %s want %s", c.v, got, c.noBS)
			}
		}
	}
	if _, err := d.AppendLiteral(nil, "x", sql.Int(), BackslashEscapes); err != nil {
		t.Errorf("string as INT should still encode: %v", err)
	}
	if _, err := d.AppendLiteral(nil, []any{1}, sql.ArrayOf(sql.Int()), BackslashEscapes); err == nil {
		t.Errorf("ARRAY value should fail")
	}
}
