package connectors

import (
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestParseTextTimePrecision: a TIME's text keeps no more of its fraction
// than the column's precision, as Flink's CsvToRowDataConverters.
// convertToTime rounds it down (JSON's keeps whole seconds; a DDL column
// is TIME(0)).
func TestParseTextTimePrecision(t *testing.T) {
	for _, c := range []struct {
		s    string
		p    int
		want int32
	}{
		{"12:34:56.789", 0, 45296000},
		{"12:34:56.789", 1, 45296700},
		{"12:34:56.789", 2, 45296780},
		{"12:34:56.789", 3, 45296789},
		{"12:34:56.7891", 3, 45296789},
		{"12:34", 0, 45240000},
	} {
		got, err := ParseText(c.s, sql.Time(c.p))
		if err != nil || got != c.want {
			t.Errorf("ParseText(%q, TIME(%d)) = %v, %v; want %d", c.s, c.p, got, err, c.want)
		}
	}
}
