package prefetch

import (
	"testing"
	"unsafe"
)

// TestPrefetchIsHarmless: prefetching any address — in range, at the end
// of an allocation, nil — neither faults nor changes memory.
func TestPrefetchIsHarmless(t *testing.T) {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = byte(i)
	}
	Range(unsafe.Pointer(&b[0]), len(b))
	Line(unsafe.Pointer(&b[len(b)-1]))
	Line(nil)
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d changed", i)
		}
	}
}
