package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyntaxErrorOffset pins where the bridge finds TiDB's failure: the
// scanner's offset of the token the grammar could not take (TiDB's error
// carries it only inside its message text, which we do not read). An
// upgrade of TiDB that renames the scanner's field fails here, not in the
// goldens' positions.
func TestSyntaxErrorOffset(t *testing.T) {
	for _, tc := range []struct{ text, at string }{
		{"SELECT a FORM t", "t"},
		{"SELECT a FROM t WHERE", ""},
		{"SELECT (1 + ) FROM t", ") FROM t"},
		{"SELECT a, FROM t", "FROM t"},
	} {
		tp := newTiDB()
		_, _, err := tp.Parse(tc.text, "", "")
		if err == nil {
			t.Fatalf("%q parsed", tc.text)
		}
		off, ok := syntaxErrorOffset(tp, err)
		if !ok {
			t.Fatalf("%q: no offset for %v", tc.text, err)
		}
		if got := strings.TrimSpace(tc.text[off:]); got != tc.at {
			t.Errorf("%q: failure at %q, want %q", tc.text, got, tc.at)
		}
	}
	// An error TiDB raises with a code has no token.
	tp := newTiDB()
	_, _, err := tp.Parse("SELECT 'a' LIKE 'b' ESCAPE 'cd'", "", "")
	if err == nil {
		t.Fatal("ESCAPE 'cd' parsed")
	}
	if off, ok := syntaxErrorOffset(tp, err); ok {
		t.Errorf("coded error %v placed at %d", err, off)
	}
}

// TestRulesTable: every rule of the pre-pass has an action, and a word's
// rules are found under its spelling.
func TestRulesTable(t *testing.T) {
	for _, rl := range rules {
		if rl.do == nil || rl.key == "" {
			t.Errorf("rule %q incomplete", rl.key)
		}
		if rl.key == keyIdent && rl.when == nil {
			t.Errorf("a generic word rule needs a condition")
		}
	}
	if len(rulesByKey["OFFSET"]) != 2 || len(rulesByKey["CONCAT"]) != 1 {
		t.Errorf("OFFSET rules %d, CONCAT rules %d", len(rulesByKey["OFFSET"]), len(rulesByKey["CONCAT"]))
	}
}

// TestNoPanicForControlFlow: failures are values (parser.err), never
// panics; Parse's recover is only the net for bugs, which the fuzzers look
// for.
func TestNoPanicForControlFlow(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "panic(") {
			t.Errorf("%s panics", f)
		}
	}
}
