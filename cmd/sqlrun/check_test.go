package main

import (
	"strings"
	"testing"
)

// TestCheckCommand: `sqlrun check --target flink-1.20` exits 0 for a
// portable script, 1 with file:line:col findings, 2 for a wrong target, a
// missing file or no file; it runs nothing.
func TestCheckCommand(t *testing.T) {
	portable := writeScript(t, "CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');\n")
	code, out, _ := runCLI(t, "check", "--target", "flink-1.20", portable)
	if code != exitOK || !strings.Contains(out, "nothing that flink-1.20 rejects") {
		t.Fatalf("portable script: exit %d\n%s", code, out)
	}
	own := writeScript(t, "CREATE TABLE v (id BIGINT) WITH ('connector' = 'values', 'rows' = '[]');\n")
	code, out, _ = runCLI(t, "check", "--target", "flink-1.20", own)
	if code != exitFailed || !strings.Contains(out, own+":1:34: connector 'values'") {
		t.Fatalf("values script: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"check", "--target", "flink-1.19", portable},
		{"check", portable},
		{"check", "--target", "flink-1.20"},
		{"check", "--target", "flink-1.20", portable + ".missing"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage || errOut == "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
