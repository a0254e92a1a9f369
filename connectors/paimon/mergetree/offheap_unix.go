//go:build unix && !linux

package mergetree

import "syscall"

// offHeapAlloc maps n bytes of anonymous memory, zeroed, outside the Go
// heap; offHeapFree unmaps it.
func offHeapAlloc(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

func offHeapFree(b []byte) { _ = syscall.Munmap(b) }
