package fs

import (
	"strings"
	"testing"
)

// TestNamesStayInTheirParent: every user-given name becomes exactly one
// path element under its parent, or is refused (issue 25, finding 2).
// Paimon's own rules and messages where it has them: TagManager's and
// BranchManager's "... name '%s' is blank.", BranchManager.validateBranch's
// main-branch and pure-numeric checks.
func TestNamesStayInTheirParent(t *testing.T) {
	bad := []string{"", " ", ".", "..", "../x", "x/..", "a/b", "/abs", `a\b`, "x\x00", "x\ny"}
	for _, n := range bad {
		if p, err := DatabasePath("/wh", n); err == nil {
			t.Errorf("DatabasePath(%q) = %q, want an error", n, p)
		}
		if p, err := TablePath("/wh", "db", n); err == nil {
			t.Errorf("TablePath(%q) = %q, want an error", n, p)
		}
		if p, err := TagPath("/t", n); err == nil {
			t.Errorf("TagPath(%q) = %q, want an error", n, p)
		}
		if p, err := ConsumerPath("/t", n); err == nil {
			t.Errorf("ConsumerPath(%q) = %q, want an error", n, p)
		}
		if p, err := BranchPath("/t", n); err == nil {
			t.Errorf("BranchPath(%q) = %q, want an error", n, p)
		}
	}
	for _, c := range []struct{ got, want string }{
		{must(DatabasePath("/wh", "db")), "/wh/db.db"},
		{must(DatabasePath("/wh", "..x")), "/wh/..x.db"},
		{must(TablePath("file:///wh", "db", "t$x")), "file:///wh/db.db/t$x"},
		{must(TagPath("/t", "2024-01-01")), "/t/tag/tag-2024-01-01"},
		{must(ConsumerPath("/t", "mysql-orders-v1")), "/t/consumer/consumer-mysql-orders-v1"},
		{must(BranchPath("/t", "main")), "/t"},
		{must(BranchPath("/t", "b1")), "/t/branch/branch-b1"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{CheckName(KindTag, " "), "Tag name ' ' is blank."},
		{CheckName(KindTable, "../../t"), "Table name '../../t' must not contain '/'"},
		{CheckName(KindDatabase, ".."), "Database name '..' is not a valid name"},
		{CheckName(KindConsumer, "a\nb"), `Consumer id name 'a\nb' must not contain control characters.`},
		{CheckBranchName("main"), "Branch name 'main' is the default branch and cannot be used."},
		{CheckBranchName("123"), "Branch name cannot be pure numeric string but is '123'."},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

func must(p string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return p
}
