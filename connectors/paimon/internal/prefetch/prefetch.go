// Package prefetch asks the processor to bring memory into cache ahead of
// use, without waiting for it.
//
// A plain load of memory that is not in cache stalls the processor once
// its reorder buffer fills (a few hundred instructions, far less than the
// ~100 ns a miss to memory takes), so "touching" data early only moves the
// stall. A prefetch instruction is a hint that retires at once; the line
// arrives while other work goes on. Go has no prefetch intrinsic, hence
// these one-instruction assembly functions (a no-op on other
// architectures).
package prefetch

import "unsafe"

// Line prefetches the cache line holding p into all cache levels.
func Line(p unsafe.Pointer) { line(uintptr(p)) }

// Range prefetches every cache line of the n bytes at p.
func Range(p unsafe.Pointer, n int) {
	const lineSize = 64
	start := uintptr(p) &^ (lineSize - 1)
	for a := start; a < uintptr(p)+uintptr(n); a += lineSize {
		line(a)
	}
}
