package mergetree

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on Linux/amd64 and
// arm64 with 4 KB pages.
const hugePage = 2 << 20

// offHeapAlloc maps n bytes of anonymous memory, zeroed, outside the Go
// heap; offHeapFree unmaps it. A mapping of hugePage bytes or more is
// aligned to hugePage and advised MADV_HUGEPAGE (the kernel's default
// transparent_hugepage mode is madvise): the first write to each 4 KB
// page of a fresh mapping is a page fault, and on this project's VMs
// faulting in a 256 MB write buffer 4 KB at a time took seconds of CPU, 2
// MB at a time a hundredth of it. Where huge pages are off the advice is
// ignored and the mapping is the same.
func offHeapAlloc(n int) ([]byte, error) {
	if n < hugePage {
		p, err := unix.MmapPtr(-1, 0, nil, uintptr(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			return nil, err
		}
		return unsafe.Slice((*byte)(p), n), nil
	}
	size := (n + hugePage - 1) &^ (hugePage - 1)
	// Map one huge page more and unmap the unaligned head and tail.
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(size+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	head := int((hugePage - uintptr(p)%hugePage) % hugePage)
	if head > 0 {
		_ = unix.MunmapPtr(p, uintptr(head))
	}
	if tail := hugePage - head; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(p, head+size), uintptr(tail))
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, head)), size)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b[:n], nil
}

// offHeapFree unmaps b, as offHeapAlloc returned it (its capacity is the
// mapping's size).
func offHeapFree(b []byte) { _ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(cap(b))) }
