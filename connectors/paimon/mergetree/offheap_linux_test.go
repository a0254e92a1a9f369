package mergetree

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkFirstTouch: the system time of first writing a fresh anonymous
// mapping of 256 MiB, in 4 KB pages (what offHeapAlloc maps) and in
// transparent huge pages (MADV_HUGEPAGE, what it mapped until issue 14's
// measurements). Each op maps, touches one byte per 4 KB page and
// unmaps; sys-ms/op is the process's system time per op (getrusage).
// Run it as one op per process (-benchtime 1x) to see a cold process's
// figure: later ops may reuse the pages the previous one freed.
func BenchmarkFirstTouch(b *testing.B) {
	const n = 256 << 20
	for _, huge := range []bool{false, true} {
		name := "4k"
		if huge {
			name = "thp"
		}
		b.Run(name, func(b *testing.B) {
			var r0, r1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			for i := 0; i < b.N; i++ {
				m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				if huge {
					if err := unix.Madvise(m, unix.MADV_HUGEPAGE); err != nil {
						b.Skip(err)
					}
				}
				for j := 0; j < n; j += 4096 {
					m[j] = 1
				}
				if err := syscall.Munmap(m); err != nil {
					b.Fatal(err)
				}
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			b.ReportMetric(float64(r1.Stime.Nano()-r0.Stime.Nano())/1e6/float64(b.N), "sys-ms/op")
		})
	}
}
