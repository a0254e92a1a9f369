//go:build unix

package mergetree

import "syscall"

// offHeapAlloc maps n bytes of anonymous memory, zeroed, outside the Go
// heap; offHeapFree unmaps it.
//
// The mapping is left in the kernel's default page size: it is not advised
// MADV_HUGEPAGE. On this project's VMs (the guest reports its free memory
// to the host, which then drops it) a fresh 2 MiB transparent huge page
// was almost always one the host had dropped: zeroing it took the host's
// faults for all of it, and first touching 256 MB took 0.6–3.0 s of
// system time, against 0.14–0.20 s in 4 KB pages (BenchmarkFirstTouch;
// only huge pages freed within the last seconds, not yet reported, were
// faster). A cold 1M-row primary-key write spent 1.8–5.0 s of system time
// faulting in its buffer in huge pages, 0.7–0.8 s in 4 KB ones (issue 14).
// The pool keeps the pages for the next fill either way (MemoryPool).
func offHeapAlloc(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

func offHeapFree(b []byte) { _ = syscall.Munmap(b) }
