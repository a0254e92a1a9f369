package procstat

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCPUGrows(t *testing.T) {
	c0 := CPU()
	if c0 <= 0 {
		t.Fatalf("CPU() = %v, want > 0 for a running test process", c0)
	}
	x := 0
	for i := 0; CPU()-c0 <= 0 && i < 1e9; i++ {
		x += i
	}
	if CPU() <= c0 {
		t.Fatalf("CPU() did not grow after a busy loop (%d)", x)
	}
}

func TestMemory(t *testing.T) {
	cur, peak := Memory()
	if cur <= 0 || peak < cur {
		t.Fatalf("Memory() = %d, %d: want 0 < rss <= peak", cur, peak)
	}
}

func TestDirSize(t *testing.T) {
	d := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"a": 10, "sub/b": 32} {
		if err := os.WriteFile(filepath.Join(d, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := DirSize(d); got != 42 {
		t.Fatalf("DirSize = %d, want 42", got)
	}
	if got := DirSize(filepath.Join(d, "missing")); got != 0 {
		t.Fatalf("DirSize(missing) = %d, want 0", got)
	}
}
