package fnv1a

import (
	"hash/fnv"
	"testing"
)

// The copy agrees with the standard library's FNV-1a.
func TestMatchesHashFNV(t *testing.T) {
	for _, s := range []string{"", "a", "foobar", "\x00\xff\x10 key", "default_catalog.db.t/part-0.csv"} {
		h := fnv.New32a()
		h.Write([]byte(s))
		want := h.Sum32()
		if got := Sum32([]byte(s)); got != want {
			t.Errorf("Sum32(%q) = %d, want %d", s, got, want)
		}
		if got := Sum32String(s); got != want {
			t.Errorf("Sum32String(%q) = %d, want %d", s, got, want)
		}
	}
}
