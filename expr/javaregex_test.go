package expr

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// regexPatterns are the Java patterns TestJavaRegexAsJava runs, each over
// every text of regexTexts.
var regexPatterns = []string{
	`oo|ar`, `foo(.*?)(bar)`, `(\d+)-(\d+)`, `^a`, `a$`, `b$`, `.`, `.+`, `(?s).+`, `a.c`, `\s+`, `\S+`, `\w+`,
	`\W`, `\d{2,3}`, `[a-c]+`, `[^a-c]+`, `[\s,]+`, `[\d.]+`, `\bfoo\b`, `\Bo`, `x*`, `(a|ab)(c|bcd)(d*)`,
	`(?i)FOO`, `(?i:F)oo`, `(?m)^b`, `(?m)a$`, `(?<year>\d{4})-(?<m>\d\d)`, `\u0041`, `\x41`, `\x{41}`,
	`\0101`, `\e`, `\cA`, `\t`, `\p{Lower}+`, `\p{Upper}`, `\P{Alpha}+`, `[\p{Digit}x]+`, `\p{L}+`, `\p{Lu}`,
	`\p{IsLatin}+`, `\pL`, `\h`, `\v`, `\R`, `\Qa.c\E`, `[\Q.\E]`, `a{2}`, `a{1,}`, `(a)|(b)`, `()`,
	`[]a]`, `[a-]`, `\.`, `\$`, `\\`, `\/`, `a|`, `|`, `(?:ab)+`, `a++`, `(a)\1`, `(?=a)`, `(?<=a)b`, `(?>a)`,
	`[a-z&&[^b]]`, `[a[b]]`, `\Z`, `\G`, `(?x) a`, `(`, `)`, `*a`, `a**`, `[a`, `a{`, `{`, `a{x}`, `\k`, `\y`,
	`\p{Latin}`, `\p{InGreek}`, `a{2000}`, `(?u)a`, `\N`, `[\S]`, `é+`, `\é`, `ü|ß`, `.?`, `$`, `^`,
	`[^\n]+`, `a.*`, `\z`, `\A.`, `(?m)^`, `\s*`, `x?`, `x|\b`, `b*`,
}

var regexTexts = []string{
	"", "a", "foothebar", "foobar", "12-345", "abc", "ab\nb", "a\nb", "x,y, z", "3.14", "foo bar_baz",
	"AbC", "aaa", "abcd", "2024-11-03", "éüß", "a\tb", "a\rb", "a\u2028b", "A\x01\x1b", "a.c", "$\\/",
	"b\n",
}

// TestJavaRegexAsJava checks REGEXP, REGEXP_REPLACE and REGEXP_EXTRACT
// against java.util.regex run as Flink's SqlFunctionUtils runs them
// (scripts/compat/Regex.java), over every pattern and text above: each
// result is Java's, or the pattern is one sqlrun refuses by name
// (JavaRegexError) and the refusal is listed.
func TestJavaRegexAsJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("expr: java is not installed; regular expressions not compared with java.util.regex (scripts/compat/install.sh)")
	}
	type tcase struct{ kind, text, pattern, arg string }
	var cases []tcase
	for _, p := range regexPatterns {
		for _, s := range regexTexts {
			cases = append(cases, tcase{"R", s, p, ""}, tcase{"P", s, p, "<$1>"}, tcase{"E", s, p, "0"},
				tcase{"E", s, p, "1"}, tcase{"E", s, p, "2"})
		}
	}
	var in bytes.Buffer
	h := func(s string) string { return hex.EncodeToString([]byte(s)) }
	for _, c := range cases {
		fmt.Fprintf(&in, "%s\t%s\t%s\t%s\n", c.kind, h(c.text), h(c.pattern), h(c.arg))
	}
	cmd := exec.Command(java, filepath.Join("..", "scripts", "compat", "Regex.java"))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Regex.java: %v\n%s", err, stderr.String())
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(cases) {
		t.Fatalf("Regex.java printed %d lines for %d cases", len(want), len(cases))
	}
	refused := map[string]map[string]bool{}
	var diffs []string
	for i, c := range cases {
		got, err := evalRegexCase(c.kind, c.text, c.pattern, c.arg)
		if err != nil {
			var je *JavaRegexError
			if !errors.As(err, &je) {
				t.Fatalf("%s %q %q: %v", c.kind, c.pattern, c.text, err)
			}
			if refused[c.pattern] == nil {
				refused[c.pattern] = map[string]bool{}
			}
			refused[c.pattern][je.Construct] = true
			continue
		}
		if got != want[i] {
			diffs = append(diffs, fmt.Sprintf("%s(%q, %q, %q): sqlrun %s, Java %s", c.kind, c.text, c.pattern, c.arg, got, want[i]))
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
	// The refusals are the constructs the translation names; a pattern
	// appearing here that RE2 could match would be a needless refusal.
	wantRefused := map[string]string{
		`a++`: "a possessive quantifier", `(a)\1`: "a back reference", `(?=a)`: "a look-around group",
		`(?<=a)b`: "a look-around group", `(?>a)`: "an atomic group", `[a-z&&[^b]]`: "a character class intersection",
		`[a[b]]`: "a character class union", `\Z`: `\Z`, `\G`: `\G`, `(?x) a`: "the flag (?x)",
		`\p{Latin}`: `the character property \p{Latin}`, `\p{InGreek}`: `the character property \p{InGreek}`,
		`a{2000}`: "a counted repetition over 1000", `(?u)a`: "the flag (?u)",
		`a$`: "'$' on a text that ends with a line terminator", `b$`: "'$' on a text that ends with a line terminator",
		`$`: "'$' on a text that ends with a line terminator", `[\S]`: `\S inside a character class`,
		`(?m)^b`:  "(?m) on a text with a line terminator other than \\n or at its end",
		`(?m)a$`:  "(?m) on a text with a line terminator other than \\n or at its end",
		`(?m)^`:   "(?m) on a text with a line terminator other than \\n or at its end",
		`x|\b`:    "\\b or \\B on a text with non-ASCII letters or digits; an empty match right after a match, with ^, \\A, \\b or \\B",
		`\Bo`:     "\\b or \\B on a text with non-ASCII letters or digits",
		`\bfoo\b`: "\\b or \\B on a text with non-ASCII letters or digits",
		`(?i)FOO`: "(?i) on a text with non-ASCII cased letters", `(?i:F)oo`: "(?i) on a text with non-ASCII cased letters",
	}
	for p, whats := range refused {
		var list []string
		for w := range whats {
			list = append(list, w)
		}
		sort.Strings(list)
		if what := strings.Join(list, "; "); wantRefused[p] != what {
			t.Errorf("pattern %q refused (%s), not expected", p, what)
		}
	}
	for p := range wantRefused {
		if _, ok := refused[p]; !ok {
			t.Errorf("pattern %q not refused", p)
		}
	}
	t.Logf("%d cases, %d differ, %d patterns refused", len(cases), len(diffs), len(refused))
}

// evalRegexCase runs one case through the functions' evaluation, with the
// pattern as a column (not a literal).
func evalRegexCase(kind, text, pattern, arg string) (string, error) {
	str := &InputRef{Index: 0, T: sql.String()}
	pat := &InputRef{Index: 1, T: sql.String()}
	row := []any{text, pattern, arg}
	var c *Call
	switch kind {
	case "R":
		c = &Call{Op: "REGEXP", Args: []Expr{str, pat}, T: sql.Boolean()}
	case "P":
		c = &Call{Op: "REGEXP_REPLACE", Args: []Expr{str, pat, &InputRef{Index: 2, T: sql.String()}}, T: sql.String()}
	default:
		var g int32
		fmt.Sscan(arg, &g)
		row[2] = g
		c = &Call{Op: "REGEXP_EXTRACT", Args: []Expr{str, pat, &InputRef{Index: 2, T: sql.Int()}}, T: sql.String()}
	}
	ev, err := Compile(c)
	if err != nil {
		return "", err
	}
	v, err := ev(row)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case nil:
		return "NULL", nil
	case bool:
		if v {
			return "TRUE", nil
		}
		return "FALSE", nil
	}
	return "=" + hex.EncodeToString([]byte(v.(string))), nil
}
