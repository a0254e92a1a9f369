package gen

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite docs/connectors.md from the registered factories")

// TestConnectorsDocIsCurrent fails when docs/connectors.md is not what the
// registered factories and the notes render to, so an option added to a
// connector without regenerating the page is caught in CI.
func TestConnectorsDocIsCurrent(t *testing.T) { checkCurrent(t, "../connectors.md", Render) }

// TestConfigDocIsCurrent does the same for docs/config.md (SET keys).
func TestConfigDocIsCurrent(t *testing.T) { checkCurrent(t, "../config.md", RenderConfig) }

func checkCurrent(t *testing.T, target string, render func() (string, error)) {
	t.Helper()
	got, err := render()
	if err != nil {
		t.Fatal(err)
	}
	if *rewrite {
		if err := os.WriteFile(target, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(target)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./docs/gen -rewrite)", err)
	}
	if string(want) != got {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Fatalf("%s is stale from line %d:\n  committed: %q\n  generated: %q\nregenerate with: go test ./docs/gen -rewrite", target, i+1, w, g)
			}
		}
	}
}

// TestRenderCoversEveryOption checks the page against the declarations it
// is made from: every registered connector has a section and every option
// key appears in it, and no password-like default leaks.
func TestRenderCoversEveryOption(t *testing.T) {
	got, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"blackhole", "datagen", "filesystem", "jdbc", "paimon", "print", "values"} {
		if !strings.Contains(got, "\n## "+id+"\n") {
			t.Errorf("no section for %s", id)
		}
	}
	for _, key := range []string{"`sink.buffer-flush.max-rows`", "`100`", "`changelog-producer`", "`consumer-id`",
		"`scan.mode`", "`rows-per-second`", "`print-identifier`", "`fields.*` (prefix)"} {
		if !strings.Contains(got, key) {
			t.Errorf("rendered page lacks %s", key)
		}
	}
	if !strings.Contains(got, "| `password` | String | (none) | no | The JDBC password. Shown as `******`") {
		t.Errorf("password row not rendered as expected")
	}
	if strings.Contains(got, "\t") {
		t.Errorf("rendered page contains a tab")
	}
}
