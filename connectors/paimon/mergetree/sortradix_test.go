package mergetree

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
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
			radixSortByKey(ents, make([]bufEntry, len(ents)))
			if !slices.Equal(ents, want) {
				t.Fatalf("%s, %d entries: radix sort differs from a stable sort", name, n)
			}
		}
	}
}

// TestWriteBufferLargeSort: a buffer whose index passes pageChunk sorts
// through scratch mapped from its pool (WriteBuffer.radixSortByKey), for
// the integer-key and the packed-key sorts alike: the flushed records
// come in key then sequence order, all of them.
func TestWriteBufferLargeSort(t *testing.T) {
	for _, keyType := range []sql.DataType{sql.Int(), sql.String()} {
		spec, err := newSpec([]string{"id", "v"}, []sql.DataType{keyType, sql.BigInt()}, []string{"id"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		const n = 3 * pageChunk / entrySize
		r := rand.New(rand.NewPCG(5, 6))
		buf := NewWriteBuffer(spec, 1<<30, nil, nil)
		for i := 0; i < n; i++ {
			var k any = int32(r.IntN(n / 2))
			if keyType.Root != sql.TypeInt {
				k = fmt.Sprintf("%08d", k)
			}
			v := []any{k, int64(i)}
			if _, err := buf.Put(&KV{Key: spec.KeyOf(v), Seq: int64(i), Kind: sql.Insert, Value: v}); err != nil {
				t.Fatal(err)
			}
		}
		var raw []*KV
		if err := buf.Flush(func(*KV) error { return nil }, func(x *KV) error { raw = append(raw, x); return nil }); err != nil {
			t.Fatal(err)
		}
		buf.Close()
		if len(raw) != n {
			t.Fatalf("%s key: %d records flushed, want %d", keyType, len(raw), n)
		}
		for i := 1; i < n; i++ {
			if c := spec.Key.Compare(raw[i-1].Key, raw[i].Key); c > 0 || c == 0 && raw[i-1].Seq >= raw[i].Seq {
				t.Fatalf("%s key: records %d and %d out of order: %v/%d, %v/%d", keyType, i-1, i, raw[i-1].Key, raw[i-1].Seq, raw[i].Key, raw[i].Seq)
			}
		}
	}
}

// TestWriteBufferIndexGrowth: filling a buffer to its limit moves its
// index to a new mapping once past pageChunk (sized for the records the
// buffer will hold, WriteBuffer.indexWant), not at every 1.5x growth: the
// 1.5x steps from 2 MiB to the ~12 MiB of this fill were 5 moves.
func TestWriteBufferIndexGrowth(t *testing.T) {
	spec, err := newSpec([]string{"id", "v"}, []sql.DataType{sql.Int(), sql.String()}, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 20
	buf := NewWriteBuffer(spec, limit, nil, nil)
	defer buf.Close()
	pad := strings.Repeat("x", 170)
	for i := 0; ; i++ {
		v := []any{int32(i), pad}
		full, err := buf.Put(&KV{Key: spec.KeyOf(v), Seq: int64(i), Kind: sql.Insert, Value: v})
		if err != nil {
			t.Fatal(err)
		}
		if full {
			break
		}
	}
	// 64 KiB doubling to 2 MiB (chunkSize's classes) is 6 mappings; then
	// one move to the estimate, and one more at most.
	if m := buf.idx.moves; m > 8 {
		t.Errorf("the index moved %d times filling %d records", m, buf.Len())
	}
	if need, got := buf.Len()*entrySize, len(buf.idx.mem); got > need+need/8+pageChunk {
		t.Errorf("index of %d bytes for %d records (%d bytes)", got, buf.Len(), need)
	}
}
