package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sqlrun compact compacts a write-only lookup table written by a script:
// the COMPACT snapshot appears with the lookup changelog; a second run has
// nothing to compact; --continuous keeps going until a signal; bad
// command lines exit 2 with the usage.
func TestCompactSubcommand(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	script := writeScript(t, `SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '`+wh+`');
USE CATALOG p;
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
WITH ('bucket' = '1', 'write-only' = 'true', 'changelog-producer' = 'lookup');
INSERT INTO orders VALUES (1001, 80.00);
INSERT INTO orders VALUES (1001, 100.00);
`)
	if code, out, errOut := runCLI(t, "-f", script); code != 0 {
		t.Fatalf("script: exit %d %s\n%s", code, errOut, out)
	}
	code, out, errOut := runCLI(t, "compact", "--warehouse", "file://"+wh, "--database", "default", "--table", "orders")
	if code != 0 || out != "[INFO] Compaction of default.orders committed snapshot 3.\n" {
		t.Fatalf("compact: exit %d %s\n%s", code, errOut, out)
	}
	snap3, err := os.ReadFile(filepath.Join(wh, "default.db", "orders", "snapshot", "snapshot-3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"commitKind" : "COMPACT"`, `"changelogRecordCount" : 1`} {
		if !bytes.Contains(snap3, []byte(want)) {
			t.Errorf("snapshot-3 lacks %s:\n%s", want, snap3)
		}
	}
	path := filepath.Join(wh, "default.db", "orders")
	code, out, _ = runCLI(t, "compact", "--path", path, "--full")
	if code != 0 || !strings.Contains(out, "nothing to compact") {
		t.Fatalf("second compact: exit %d\n%s", code, out)
	}

	// --continuous: runs round after round until a signal arrives. The
	// signal is sent once two rounds have reported, however slowly the
	// machine runs them.
	sigs := make(chan os.Signal, 1)
	var o, e syncBuffer
	done := make(chan int)
	go func() {
		done <- runCompact([]string{"--path", path, "--continuous", "--interval", "20ms"}, &o, &e, sigs)
	}()
	for deadline := time.Now().Add(time.Minute); strings.Count(o.String(), "nothing to compact") < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("continuous compaction ran fewer than two rounds in a minute:\n%s%s", o.String(), e.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	sigs <- os.Interrupt
	select {
	case c := <-done:
		if c != 0 || strings.Count(o.String(), "nothing to compact") < 2 || !strings.HasSuffix(o.String(), "stopped.\n") {
			t.Fatalf("continuous: exit %d\n%s%s", c, o.String(), e.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("continuous compaction did not stop on the signal")
	}

	for _, args := range [][]string{
		{"compact"},
		{"compact", "--path", path, "--table", "t"},
		{"compact", "--path", path, "--interval", "0s"},
		// Paimon's compact action: full is batch only; two strategies only.
		{"compact", "--path", path, "--continuous", "--full"},
		{"compact", "--path", path, "--compact_strategy", "major"},
	} {
		if code, _, errOut := runCLI(t, args...); code != 2 || !strings.Contains(errOut, "Usage:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "compact", "--path", filepath.Join(wh, "nope")); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("missing table: exit %d, stderr %q", code, errOut)
	}
}
