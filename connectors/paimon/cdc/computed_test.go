package cdc

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestComputedColumnFunctions: the table action looks a --computed_column's
// function up before its column, as Expression.create does: a name Paimon
// 1.4.1 does not know fails with its message (its functions in its HashMap's
// order), one Paimon knows and sqlrun has not built (cast, now, upper, lower,
// trim) is refused by name, even when it references no column.
func TestComputedColumnFunctions(t *testing.T) {
	fields := []sql.Column{{Name: "ts", Type: sql.Timestamp(3)}, {Name: "s", Type: sql.String()}}
	for arg, want := range map[string]string{
		"y=reverse(s)": "Unsupported expression: reverse. Supported expressions are: year,upper,lower,substring,minute,second,cast,month,hour,truncate,trim,now,date_format,day",
		"y=now()":      "computed column y: 'now' is not supported by sqlrun yet",
		"y=UPPER(s)":   "computed column y: 'upper' is not supported by sqlrun yet",
		"y=year(x)":    "Referenced field 'x' is not in given fields: [ts, s].",
	} {
		if _, err := buildComputedColumns([]string{arg}, fields); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
	if cs, err := buildComputedColumns([]string{"y=year(ts)"}, fields); err != nil || len(cs) != 1 || cs[0].typ.Root != sql.TypeInt {
		t.Errorf("y=year(ts): %+v, %v", cs, err)
	}
}
