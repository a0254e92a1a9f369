package gen

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var benchFunc = regexp.MustCompile(`(?m)^func (Benchmark\w+)\(`)

// TestBenchScriptCoversBenchmarks keeps `make bench` honest: every Go
// benchmark in the repository is either run by scripts/bench.sh (its name
// appears in a -bench pattern) or named there on a "# not run:" line with a
// reason, so a new benchmark cannot silently miss the performance table.
func TestBenchScriptCoversBenchmarks(t *testing.T) {
	script, err := os.ReadFile("../../scripts/bench.sh")
	if err != nil {
		t.Fatal(err)
	}
	text := string(script)
	root := "../.."
	var missing []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range benchFunc.FindAllStringSubmatch(string(src), -1) {
			name := strings.TrimPrefix(m[1], "Benchmark")
			if !strings.Contains(text, name) {
				rel, _ := filepath.Rel(root, path)
				missing = append(missing, m[1]+" ("+rel+")")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("scripts/bench.sh neither runs nor lists under '# not run:' these benchmarks:\n  %s", strings.Join(missing, "\n  "))
	}
}

// TestBenchScriptParses runs `bash -n` on scripts/bench.sh.
func TestBenchScriptParses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	if out, err := exec.Command(bash, "-n", "../../scripts/bench.sh").CombinedOutput(); err != nil {
		t.Fatalf("bash -n scripts/bench.sh: %v\n%s", err, out)
	}
}
