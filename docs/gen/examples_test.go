package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var sqlBlock = regexp.MustCompile("(?s)```sql\n(.*?)```")

// TestSQLExamplesRun runs every ```sql block of docs/sql.md, in order, and
// the values example of the connector notes through the real sqlrun binary
// (`sqlrun -f`, which stops at the first failing statement and exits 1), so
// an example that stops working fails here instead of in a reader's shell.
// Blocks containing STOP JOB are skipped: they name a job id.
func TestSQLExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the sqlrun binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "sqlrun")
	build := exec.Command("go", "build", "-o", bin, "github.com/sqlrun/sqlrun/cmd/sqlrun")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build sqlrun: %v\n%s", err, out)
	}
	// Every block starts from the modes a script needs: queries in
	// tableau, INSERTs waited for (the examples' sources are bounded).
	const pre = "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'table.dml-sync' = 'true';\n"
	var script strings.Builder
	for _, doc := range []string{"../sql.md", "notes/values.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sqlBlock.FindAllStringSubmatch(string(text), -1) {
			if strings.Contains(m[1], "STOP JOB") {
				continue
			}
			script.WriteString(pre)
			script.WriteString(m[1])
		}
	}
	wh := filepath.Join(dir, "wh")
	body := strings.ReplaceAll(script.String(), "'/tmp/wh'", "'"+wh+"'")
	file := filepath.Join(dir, "examples.sql")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-f", file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlrun -f on the docs' examples: %v\n%s", err, tail(string(out), 40))
	}
	for _, want := range []string{"[INFO] Complete execution of the SQL update statement.", "Success", "== Optimized Physical Plan ==", "order_changes"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("examples output lacks %q", want)
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
