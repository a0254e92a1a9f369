package exec_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	_ "github.com/sqlrun/sqlrun/connectors/all"
	"github.com/sqlrun/sqlrun/exec"
)

// TestPortability runs `sqlrun check --target flink-1.20` over scripts:
// testdata/check holds `check` cases (a script and its report), and
// `examples` checks every script in examples/ (rewrite with -rewrite).
func TestPortability(t *testing.T) {
	datadriven.Walk(t, "../testdata/check", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "check":
				rep, err := exec.CheckPortability(d.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return exec.FormatPortability("job.sql", rep)
			case "examples":
				files, _ := filepath.Glob("../examples/*.sql")
				sort.Strings(files)
				var b strings.Builder
				for _, f := range files {
					text, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					rep, err := exec.CheckPortability(string(text))
					if err != nil {
						t.Fatal(err)
					}
					b.WriteString(exec.FormatPortability(strings.TrimPrefix(f, "../"), rep))
				}
				return b.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}
