package expr

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSimilarToAsCalcite runs Calcite 1.32's SqlOperatorTest
// testSimilarToOperator cases (the ones it expects a result of; Flink
// 1.20's SIMILAR TO is Calcite's SqlFunctions.similar) through SIMILAR TO,
// with the pattern a literal and a column.
func TestSimilarToAsCalcite(t *testing.T) {
	for _, c := range []struct {
		s, pattern, escape string
		want               bool
	}{
		{"", "", "", true},
		{"a", "a", "", true},
		{"a", "b", "", false},
		{"a", "A", "", false},
		{"a", "a_", "", false},
		{"a", "_a", "", false},
		{"a", "%a", "", true},
		{"a", "%a%", "", true},
		{"a", "a%", "", true},
		{"ab", "a_", "", true},
		{"abc", "a_", "", false},
		{"abcd", "a%", "", true},
		{"ab", "_b", "", true},
		{"abcd", "_d", "", false},
		{"abcd", "%d", "", true},
		{"ab\ncd", "ab%", "", true},
		{"abc\ncd", "ab%", "", true},
		{"123\n\n45\n", "%", "", true},
		{"ab\ncd\nef", "%cd%", "", true},
		{"ab\ncd\nef", "%cde%", "", false},
		{"acd", "ab*c+d", "", true},
		{"abcd", "ab*c+d", "", true},
		{"acccd", "ab*c+d", "", true},
		{"abcccd", "ab*c+d", "", true},
		{"abd", "ab*c+d", "", false},
		{"aabc", "ab*c+d", "", false},
		{"xy", "x(ab|c)*y", "", true},
		{"xccy", "x(ab|c)*y", "", true},
		{"xababcy", "x(ab|c)*y", "", true},
		{"xbcy", "x(ab|c)*y", "", false},
		{"xy", "x(ab|c)+y", "", false},
		{"xccy", "x(ab|c)+y", "", true},
		{"xababcy", "x(ab|c)+y", "", true},
		{"xbcy", "x(ab|c)+y", "", false},
		{"ab", "a%", "", true},
		{"a", "a%", "", true},
		{"abcd", "a_", "", false},
		{"abcd", "a%", "", true},
		{"1a", "_a", "", true},
		{"123aXYZ", "%a%", "", true},
		{"123aXYZ", "_%_a%_", "", true},
		{"xy", "(xy)", "", true},
		{"abd", "[ab][bcde]d", "", true},
		{"bdd", "[ab][bcde]d", "", true},
		{"abd", "[ab]d", "", false},
		{"cd", "[a-e]d", "", true},
		{"amy", "amy|fred", "", true},
		{"fred", "amy|fred", "", true},
		{"mike", "amy|fred", "", false},
		{"acd", "ab*c+d", "", true},
		{"accccd", "ab*c+d", "", true},
		{"abd", "ab*c+d", "", false},
		{"aabc", "ab*c+d", "", false},
		{"abb", "a(b{3})", "", false},
		{"abbb", "a(b{3})", "", true},
		{"abbbbb", "a(b{3})", "", false},
		{"abbbbb", "ab{3,6}", "", true},
		{"abbbbbbbb", "ab{3,6}", "", false},
		{"", "ab?", "", false},
		{"a", "ab?", "", true},
		{"a", "a(b?)", "", true},
		{"ab", "ab?", "", true},
		{"ab", "a(b?)", "", true},
		{"abb", "ab?", "", false},
		{"ab", `a\_`, `\`, false},
		{"ab", `a\%`, `\`, false},
		{"a_", `a\_`, `\`, true},
		{"a%", `a\%`, `\`, true},
		{"a(b{3})", "a(b{3})", "", false},
		{"a(b{3})", `a\(b\{3\}\)`, `\`, true},
		{"yd", "[a-ey]d", "", true},
		{"yd", "[^a-ey]d", "", false},
		{"yd", "[^a-ex-z]d", "", false},
		{"yd", "[a-ex-z]d", "", true},
		{"yd", "[x-za-e]d", "", true},
		{"yd", "[^a-ey]?d", "", false},
		{"yyyd", "[a-ey]*d", "", true},
		{"yd", "x-zd", "", false},
		{"y", "x-z", "", false}} {
		for _, lit := range []bool{true, false} {
			got, err := evalSimilarCase(c.s, c.pattern, c.escape, lit)
			if err != nil {
				t.Errorf("%q SIMILAR TO %q ESCAPE %q (literal %v): %v", c.s, c.pattern, c.escape, lit, err)
				continue
			}
			if got != c.want {
				t.Errorf("%q SIMILAR TO %q ESCAPE %q (literal %v) = %v, Calcite %v", c.s, c.pattern, c.escape, lit, got, c.want)
			}
		}
	}
}

// TestSimilarToRefused: the patterns Calcite's translation or Java's
// Pattern refuse fail the query with the reason (SqlOperatorTest's
// negative cases, and Like's own messages).
func TestSimilarToRefused(t *testing.T) {
	for _, c := range []struct{ pattern, escape, want string }{
		{"[x-ze-a]d", "", "no valid regular expression"},
		{"[:LOWER:]{2}[:DIGIT:]{,5}", "", "no valid regular expression"},
		{"a]", "", "Invalid regular expression 'a]', index 1"},
		{"[ab", "", "Invalid regular expression '[ab', index 3"},
		{"a#b", "#", "Invalid escape sequence 'a#b', 1"},
		{"ab+", "+", "Invalid escape sequence 'ab+', 2"},
		{"ab", "##", "Invalid escape character '##'"},
	} {
		_, err := evalSimilarCase("ab", c.pattern, c.escape, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SIMILAR TO %q ESCAPE %q: got %v, want an error with %q", c.pattern, c.escape, err, c.want)
		}
	}
}

func evalSimilarCase(s, pattern, escape string, literal bool) (bool, error) {
	args := []Expr{&InputRef{Index: 0, T: sql.String()}, &InputRef{Index: 1, T: sql.String()}}
	if literal {
		args[1] = &Literal{Value: pattern, T: sql.String()}
	}
	if escape != "" {
		args = append(args, &Literal{Value: escape, T: sql.String()})
	}
	ev, err := Compile(&Call{Op: "SIMILAR TO", Args: args, T: sql.Boolean()})
	if err != nil {
		return false, err
	}
	v, err := ev([]any{s, pattern})
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}
