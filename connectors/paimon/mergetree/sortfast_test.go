package mergetree

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// flushOrder puts records into b and returns the (key, seq) of each as the
// flush hands them over unmerged.
func flushOrder(t *testing.T, b *WriteBuffer, recs []*KV) (order []*KV) {
	t.Helper()
	for _, r := range recs {
		if _, err := b.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(func(*KV) error { return nil }, func(r *KV) error { order = append(order, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return order
}

// TestSortIntKeysMatchesComparator: the write buffer's integer-key fast
// path orders records exactly as the generic comparator (key, then
// SeqOrder) does, for INT and BIGINT keys including negative values and
// many versions per key, with sequence numbers in arrival order (a
// writer's: the radix sort) or not; shapes it does not handle fall back.
func TestSortIntKeysMatchesComparator(t *testing.T) {
	for _, c := range []struct {
		kt      sql.DataType
		ordered bool
	}{{sql.Int().NotNull(), false}, {sql.BigInt().NotNull(), false}, {sql.Int().NotNull(), true}, {sql.BigInt().NotNull(), true}} {
		kt := c.kt
		spec, err := newSpec([]string{"k", "v"}, []sql.DataType{kt, sql.String()}, []string{"k"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(7))
		b := NewWriteBuffer(spec, 1<<40, nil, nil)
		if b.generic {
			t.Fatalf("%s: fast path not taken", kt)
		}
		var recs []*KV
		for i := 0; i < 5000; i++ {
			k := int64(r.Intn(300)) - 150
			var key any = int32(k)
			if kt.Root == sql.TypeBigInt {
				key = k << 35
			}
			seq := int64(r.Intn(1 << 20))
			if c.ordered {
				seq = int64(i)
			}
			recs = append(recs, &KV{Key: []any{key}, Seq: seq, Kind: sql.Insert, Value: []any{key, "x"}})
		}
		want := slices.Clone(recs)
		slices.SortStableFunc(want, func(x, y *KV) int {
			if c := spec.Key.Compare(x.Key, y.Key); c != 0 {
				return c
			}
			return spec.Order.Compare(x, y)
		})
		got := flushOrder(t, b, recs)
		if b.unordered {
			t.Fatalf("%s: records not in sequence order after the flush", kt)
		}
		for i := range want {
			if spec.Key.Compare(want[i].Key, got[i].Key) != 0 || want[i].Seq != got[i].Seq {
				t.Fatalf("%s: position %d: got key %v seq %d, want key %v seq %d", kt, i, got[i].Key, got[i].Seq, want[i].Key, want[i].Seq)
			}
		}
	}

	// STRING keys and sequence.field keep the generic sort.
	spec, err := newSpec([]string{"k", "v"}, []sql.DataType{sql.String().NotNull(), sql.Int()}, []string{"k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := NewWriteBuffer(spec, 1<<40, nil, nil)
	if !b.generic {
		t.Fatal("fast path taken for a STRING key")
	}
	got := flushOrder(t, b, []*KV{{Seq: 1, Value: []any{"b", int32(1)}}, {Seq: 2, Value: []any{"a", int32(1)}}})
	if got[0].Key[0] != "a" || got[1].Key[0] != "b" {
		t.Fatalf("STRING key order: %v %v", got[0].Key, got[1].Key)
	}
	spec, err = newSpec([]string{"k", "v"}, []sql.DataType{sql.Int().NotNull(), sql.Int()}, []string{"k"}, map[string]string{"sequence.field": "v"})
	if err != nil {
		t.Fatal(err)
	}
	b = NewWriteBuffer(spec, 1<<40, nil, nil)
	if !b.generic {
		t.Fatal("fast path taken with sequence.field")
	}
	got = flushOrder(t, b, []*KV{{Seq: 1, Value: []any{int32(1), int32(9)}}, {Seq: 2, Value: []any{int32(1), int32(3)}}})
	if got[0].Seq != 2 {
		t.Fatalf("sequence.field order lost: first seq %d", got[0].Seq)
	}
}
