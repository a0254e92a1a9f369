package mergetree

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixSortByKey: the index's radix sort orders by key, stably (equal
// keys keep their order, which is sequence order), for negative keys,
// keys that differ only in high bytes, and the extremes, as a stable
// comparison sort does.
func TestRadixSortByKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gens := map[string]func() int64{
		"int32":   func() int64 { return int64(int32(r.Uint32())) },
		"small":   func() int64 { return int64(r.IntN(50)) - 25 },
		"high":    func() int64 { return int64(r.IntN(4)) << 56 * int64(1-2*r.IntN(2)) },
		"extreme": func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[r.IntN(5)] },
		"same":    func() int64 { return 7 },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 100, 5000} {
			ents := make([]bufEntry, n)
			for i := range ents {
				ents[i] = bufEntry{key: gen(), seq: int64(i)}
			}
			want := slices.Clone(ents)
			slices.SortStableFunc(want, func(x, y bufEntry) int { return cmp.Compare(x.key, y.key) })
			radixSortByKey(ents)
			if !slices.Equal(ents, want) {
				t.Fatalf("%s, %d entries: radix sort differs from a stable sort", name, n)
			}
		}
	}
}
