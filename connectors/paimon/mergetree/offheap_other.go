//go:build !unix

package mergetree

// offHeapAlloc falls back to the Go heap where anonymous mappings are not
// available.
func offHeapAlloc(n int) ([]byte, error) { return make([]byte, n), nil }

func offHeapFree([]byte) {}
