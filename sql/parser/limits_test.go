package parser

import (
	"strings"
	"testing"
)

// TestLimits: hostile statements fail with a clear SqlParserException
// instead of a Go stack overflow, an out-of-memory or a parse that never
// ends (issue 25, finding 8: a million nested '+' or NOT crashed, ten
// thousand UNIONs ran out of memory); statements just inside the limits
// still parse.
func TestLimits(t *testing.T) {
	n := MaxNestingDepth
	refused := []struct{ name, sql, want string }{
		{"1M +", "SELECT 1" + strings.Repeat("+1", 1_000_000), "nested more than 2000 levels deep"},
		{"1M NOT", "SELECT " + strings.Repeat("NOT ", 1_000_000) + "TRUE", "nested more than 2000 levels deep"},
		{"1M unary -", "SELECT " + strings.Repeat("- ", 1_000_000) + "1", "nested more than 2000 levels deep"},
		{"100k parentheses", "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000), "Parentheses are nested more than 2000 levels deep"},
		{"nested function calls", "SELECT " + strings.Repeat("ABS(", n) + "1" + strings.Repeat(")", n), "nested more than 2000 levels deep"},
		{"deep OR chain in WHERE", "SELECT a FROM t WHERE " + strings.Repeat("a = 1 OR ", n+1) + "a = 2", "nested more than 2000 levels deep"},
		{"nested CASE", "SELECT " + strings.Repeat("CASE WHEN a = 1 THEN ", n) + "1" + strings.Repeat(" END", n), "nested more than 2000 levels deep"},
		{"10k UNION ALL", strings.Repeat("SELECT 1 UNION ALL ", 10_000) + "SELECT 1", "The statement has 10000 set operations (UNION, INTERSECT, EXCEPT); sqlrun accepts at most 1000."},
		{"5 MiB", "SELECT '" + strings.Repeat("x", 5<<20) + "'", "sqlrun accepts statements of at most 4194304 bytes"},
		{"nested subqueries", "SELECT * FROM " + strings.Repeat("(SELECT * FROM ", 700) + "t" + strings.Repeat(")", 700), "nested more than 2000 levels deep"},
	}
	for _, c := range refused {
		_, err := Parse(c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "SQL parse failed.") {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	accepted := []struct{ name, sql string }{
		{"1500 +", "SELECT 1" + strings.Repeat("+1", 1500)},
		{"1500 parentheses", "SELECT " + strings.Repeat("(", 1500) + "1" + strings.Repeat(")", 1500)},
		{"1000 set operations", strings.Repeat("SELECT 1 UNION ALL ", 1000) + "SELECT 1"},
		{"CONCAT of 100k terms", "SELECT CONCAT(" + strings.Repeat("'a', ", 100_000) + "'a')"},
		{"a 20k-row VALUES", "INSERT INTO t VALUES " + strings.Repeat("(1, 'a', 2.5 + 1), ", 20_000) + "(1, 'a', 3.5)"},
		{"a CASE with 3000 branches", "SELECT CASE " + strings.Repeat("WHEN a = 1 THEN 2 ", 3000) + "END FROM t"},
	}
	for _, c := range accepted {
		if _, err := Parse(c.sql); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
