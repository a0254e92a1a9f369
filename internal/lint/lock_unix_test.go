//go:build unix

package lint

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// machineLock takes an exclusive lock shared by every process on the
// machine that runs this test (a file in the tools' cache directory) and
// returns its release. deadcode holds 4-5 GB while it analyses the module;
// several worktrees linting at once on one machine swapped it to a halt
// (eight copies, 23 of 24 GB), so they take turns instead.
func machineLock(t *testing.T, name string) func() {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "sqlrun-lint")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("lock %s: %v", name, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatalf("lock %s: %v", name, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", name, err)
	}
	return func() { f.Close() } // closing the file releases the lock
}
