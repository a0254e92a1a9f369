package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProgressLines runs a rate-limited job with --progress and checks that
// the status lines report its throughput and checkpoints while -f waits.
func TestProgressLines(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	script := filepath.Join(dir, "p.sql")
	err := os.WriteFile(script, []byte(`
SET 'execution.checkpointing.interval' = '300ms';
SET 'state.checkpoints.dir' = '`+filepath.Join(dir, "chk")+`';
CREATE TABLE g (id BIGINT, v STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
  'number-of-rows' = '4000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4000');
CREATE TABLE b (id BIGINT, v STRING) WITH ('connector' = 'blackhole');
INSERT INTO b SELECT id, v FROM g;
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-f", script, "--progress", "--progress-interval", "500ms"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	line := regexp.MustCompile(`(?m)^\[PROGRESS\] [0-9a-f]{32} RUNNING: in ([0-9]+) rows/s, out ([0-9]+) rows/s, (checkpoint [0-9]+ .*|no checkpoint yet), backpressure [0-9]+%$`)
	matches := line.FindAllStringSubmatch(errOut.String(), -1)
	if len(matches) == 0 {
		t.Fatalf("no progress line in stderr:\n%s", errOut.String())
	}
	sawRows, sawCheckpoint := false, false
	for _, m := range matches {
		if m[1] != "0" {
			sawRows = true
		}
		if strings.HasPrefix(m[3], "checkpoint ") {
			sawCheckpoint = true
		}
	}
	if !sawRows || !sawCheckpoint {
		t.Errorf("progress never showed rows and a checkpoint:\n%s", errOut.String())
	}
	if strings.Contains(out.String(), "[PROGRESS]") {
		t.Error("progress lines belong on stderr, not in the statement output")
	}
}
