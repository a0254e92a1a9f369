package connectors

import (
	"fmt"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestParseMySQLText: MySQL's text forms, as the JDBC source and the MySQL
// CDC source read them.
func TestParseMySQLText(t *testing.T) {
	for _, c := range []struct {
		s    string
		t    sql.DataType
		want string
	}{
		{"1", sql.Boolean(), "true"},
		{"false", sql.Boolean(), "false"},
		{"\x01", sql.Boolean(), "true"},
		{"-3", sql.Boolean(), "true"},
		{"-128", sql.TinyInt(), "-128"},
		{"123.456", sql.Decimal(5, 2), "123.46"},
		{"12345.6", sql.Decimal(5, 2), "<nil>"}, // overflows DECIMAL(5, 2): NULL, as Flink
		{"100:00:00", sql.Time(0), "360000000"}, // beyond 24 hours
		{"838:59:59", sql.Time(0), "error"},     // beyond TIME(0) in milliseconds
		{"-01:00:00.5", sql.Time(3), "-3600500"},
		{"2024-02-29", sql.Date(), "19782"},
		{"2024-02-29 10:11:12.345", sql.Timestamp(3), "2024-02-29T10:11:12.345"},
		{"2024-02-29", sql.Timestamp(0), "2024-02-29T00:00"},
		{"a,b", sql.ArrayOf(sql.String()), "[a b]"},
	} {
		v, err := ParseMySQLText(c.s, c.t)
		if c.want == "error" {
			if err == nil {
				t.Errorf("%q as %s: no error", c.s, c.t)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q as %s: %v", c.s, c.t, err)
			continue
		}
		got := fmt.Sprint(v)
		if ts, ok := v.(sql.TimestampData); ok {
			got = sql.FormatValue(ts, c.t)
		}
		if got != c.want {
			t.Errorf("%q as %s: %s, want %s", c.s, c.t, got, c.want)
		}
	}
	if _, err := ParseMySQLText("x", sql.Int()); err == nil {
		t.Error("x as INT: no error")
	}
}
