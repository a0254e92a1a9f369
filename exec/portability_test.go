package exec_test

import (
	"fmt"
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
			case "e2e-scripts":
				files, _ := filepath.Glob("../testdata/e2e/*")
				sort.Strings(files)
				var b strings.Builder
				for _, f := range files {
					if fi, err := os.Stat(f); err != nil || fi.IsDir() {
						continue
					}
					for i, script := range e2eScripts(t, f) {
						rep, err := exec.CheckPortability(script)
						if err != nil {
							b.WriteString(fmt.Sprintf("%s run %d: error: %v\n", strings.TrimPrefix(f, "../"), i+1, err))
							continue
						}
						b.WriteString(exec.FormatPortability(fmt.Sprintf("%s run %d", strings.TrimPrefix(f, "../"), i+1), rep))
					}
				}
				return b.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// e2eScripts reads the scripts a testdata/e2e file runs through the binary
// (its `run` inputs, with the `var` inputs they name expanded), skipping
// expected outputs.
func e2eScripts(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	vars := map[string]string{}
	var scripts []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fields := strings.Fields(l)
		var input []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			input = append(input, lines[i])
		}
		// The expected output: "----" then either a block up to a blank
		// line, or "----" ... "----" / "----" for a multi-line one.
		if i+1 < len(lines) && lines[i+1] == "----" {
			for i += 2; i+1 < len(lines) && !(lines[i] == "----" && lines[i+1] == "----"); i++ {
			}
			i++
		} else {
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			}
		}
		text := strings.Join(input, "\n")
		switch fields[0] {
		case "var":
			for _, a := range fields[1:] {
				if name, ok := strings.CutPrefix(a, "name="); ok {
					vars["$"+name] = text
				}
			}
		case "run":
			for k, v := range vars {
				text = strings.ReplaceAll(text, k, v)
			}
			scripts = append(scripts, text)
		}
	}
	return scripts
}
