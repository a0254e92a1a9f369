package plan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// TestRules runs the goldens of the optimizer's rules: one file per rule
// in testdata/rules, named after the rule, each case a statement and its
// tree just before and just after the rule (or "unchanged" where the rule
// does not apply); the file "convert" traces the conversion into physical
// nodes between the logical and the physical rules. Commands:
//
//	exec        DDL / SET statements, as in TestExplain
//	rule        one INSERT or query; the file's rule (or step) is traced
//
// Regenerate with: go test ./plan -run TestRules -rewrite
func TestRules(t *testing.T) {
	dir := filepath.Join("..", "testdata", "rules")
	for _, name := range plan.RuleNames() {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("rule %s has no golden file: %v", name, err)
		}
	}
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		rule := filepath.Base(path)
		known := rule == "convert"
		for _, n := range plan.RuleNames() {
			known = known || n == rule
		}
		if !known {
			t.Fatalf("%s names no rule", path)
		}
		env := newEnv()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec":
				var out strings.Builder
				for _, s := range splitStatements(d.Input) {
					if _, err := env.exec(s, false); err != nil {
						out.WriteString(formatErr(err))
					}
				}
				if out.Len() == 0 {
					return "ok\n"
				}
				return out.String()
			case "rule":
				stmt, err := parser.Parse(strings.TrimSuffix(strings.TrimSpace(d.Input), ";"))
				if err != nil {
					return formatErr(err)
				}
				res, err := plan.TraceRule(plan.New(env), stmt, rule)
				if err != nil {
					return formatErr(err)
				}
				return res
			}
			return fmt.Sprintf("unknown command %q\n", d.Cmd)
		})
	})
}
