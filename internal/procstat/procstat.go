// Package procstat reads what the benchmarks report about their own
// process: CPU time, resident memory and the bytes a directory holds. On
// the shared 2-core machines wall-clock rates depend on the other
// engineers' load, so every benchmark also reports work per CPU second
// and peak RSS (docs/performance.md).
package procstat

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPU is the process's CPU time so far, user plus system; 0 if the
// kernel does not say.
func CPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Memory is the process's resident set now (VmRSS) and at its peak
// (VmHWM), in bytes, from /proc/self/status; zeros where it is missing.
func Memory() (cur, peak int64) {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = n << 10
		case "VmHWM:":
			peak = n << 10
		}
	}
	return cur, peak
}

// DirSize is the sum of the sizes of the regular files under dir; files
// that vanish while it walks (a compaction deleting its inputs) count as
// nothing.
func DirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
