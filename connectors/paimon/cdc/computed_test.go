package cdc

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestComputedColumnFunctions: the table action looks a --computed_column's
// function up before its column, as Expression.create does: a name Paimon
// 1.4.1 does not know fails with its message (its functions in its HashMap's
// order); a missing column is named with the fields in HashMap order
// (ReferencedField.checkArgument prints typeMapping.keySet()); the string
// functions take a VARCHAR column and no literal
// (NoLiteralsStringExpressionBase); cast takes one or two arguments.
func TestComputedColumnFunctions(t *testing.T) {
	fields := []sql.Column{{Name: "ts", Type: sql.Timestamp(3)}, {Name: "s", Type: sql.String()}, {Name: "c", Type: sql.Char(4)}}
	for arg, want := range map[string]string{
		"y=reverse(s)":  "Unsupported expression: reverse. Supported expressions are: year,upper,lower,substring,minute,second,cast,month,hour,truncate,trim,now,date_format,day",
		"y=year(x)":     "Referenced field 'x' is not in given fields: [s, c, ts].",
		"y=upper(c)":    "computed column y: 'upper' expression only supports type root of 'VARCHAR', but found 'CHAR'.",
		"y=trim(ts)":    "computed column y: 'trim' expression only supports type root of 'VARCHAR', but found 'TIMESTAMP_WITHOUT_TIME_ZONE'.",
		"y=lower(s, 1)": "computed column y: 'lower' expression only supports 0 argument, but found '1'.",
		"y=cast(1,2,3)": "computed column y: 'cast' expression supports one or two arguments, but found '3'.",
		"y=a=b(s)":      "Invalid computed column argument: y=a=b(s).",
		"y=upper(y)":    "Cycle detected: y",
		"a=upper(b)":    "Referenced field 'b' is not in given fields: [s, c, ts].",
	} {
		if _, err := buildComputedColumns([]string{arg}, fields); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
	if cs, err := buildComputedColumns([]string{"y=year(ts)"}, fields); err != nil || len(cs) != 1 || cs[0].typ.Root != sql.TypeInt {
		t.Errorf("y=year(ts): %+v, %v", cs, err)
	}
	// A column may reference one computed before it, in any argument
	// order (sortComputedColumnArgs, DfsSort): the Paimon table's columns
	// follow that order.
	cs, err := buildComputedColumns([]string{"b=upper(a)", "c=lower(a)", "d=trim(b)", "x=upper(s)", "a=substring(s,1)", "e=cast(7, INT)", "n=now()"}, fields)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.name+" "+c.typ.String()+" = "+c.expr)
	}
	want := []string{
		"x STRING = UPPER(`s`)",
		"a STRING = SUBSTRING(CAST(`s` AS STRING) FROM 2)",
		"e INT = CAST('7' AS INT)",
		"n TIMESTAMP(3) = CAST(LOCALTIMESTAMP AS TIMESTAMP(3))",
		"c STRING = LOWER((SUBSTRING(CAST(`s` AS STRING) FROM 2)))",
		"b STRING = UPPER((SUBSTRING(CAST(`s` AS STRING) FROM 2)))",
		"d STRING = TRIM(BOTH " + javaWhitespace + " FROM (UPPER((SUBSTRING(CAST(`s` AS STRING) FROM 2)))))",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chained computed columns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestJavaHashOrder: the iteration order of a java.util.HashMap's keys,
// as OpenJDK 17 printed them for these insertions (HashMap.hash spreads
// String.hashCode; the table doubles past 3/4 full, and, below 64 slots,
// when a bucket of 8 takes another: the third case's 14 two-letter keys
// share bucket 0 of 16 and 32 slots).
func TestJavaHashOrder(t *testing.T) {
	for _, c := range [][2]string{
		{"ts s", "s ts"},
		{"id amount status note created_at y m d up", "note amount d created_at y id up m status"},
		{"a b c aa bb cc dd ee ff gg hh ii jj kk ll mm nn", "bb dd ff hh jj ll nn aa cc ee gg ii kk mm a b c"},
	} {
		if got := strings.Join(javaHashOrder(strings.Fields(c[0])), " "); got != c[1] {
			t.Errorf("%s: %s, want %s", c[0], got, c[1])
		}
	}
}

// TestDfsSortKeys: Paimon's DfsSort.sortKeys over dependencies b→a, c→a,
// d→b, x→name, a→name, e→a (keys in that order; name is no key): the
// walks from b, c and e give d b c e, the keys without a dependency among
// the keys (x a) reversed follow, and the whole is reversed.
func TestDfsSortKeys(t *testing.T) {
	keys := []string{"b", "c", "d", "x", "a", "e"}
	dep := map[string]string{"b": "a", "c": "a", "d": "b", "x": "name", "a": "name", "e": "a"}
	got, err := dfsSortKeys(keys, dep)
	if err != nil || strings.Join(got, " ") != "x a e c b d" {
		t.Errorf("dfsSortKeys: %v %v, want x a e c b d", got, err)
	}
}
