package plan_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestExplain runs the EXPLAIN goldens in testdata/explain. Commands:
//
//	exec        DDL / SET statements, one per line group separated by ';'
//	explain     one statement; prints its output or the error
//	dot         one EXPLAIN statement; prints the Graphviz rendering
//
// Regenerate with: go test ./plan -run TestExplain -rewrite
func TestExplain(t *testing.T) {
	datadriven.Walk(t, filepath.Join("..", "testdata", "explain"), func(t *testing.T, path string) {
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
			case "explain", "dot":
				res, err := env.exec(strings.TrimSuffix(strings.TrimSpace(d.Input), ";"), d.Cmd == "dot")
				if err != nil {
					return formatErr(err)
				}
				return res
			}
			return fmt.Sprintf("unknown command %q\n", d.Cmd)
		})
	})
}

func splitStatements(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";\n") {
		p = strings.TrimSuffix(strings.TrimSpace(p), ";")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
