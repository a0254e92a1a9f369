package mergetree

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSortIntKeysMatchesComparator: the write buffer's integer-key fast
// path orders records exactly as the generic comparator (key, then
// SeqOrder) does, for INT and BIGINT keys including negative values and
// many versions per key; shapes it does not handle fall back.
func TestSortIntKeysMatchesComparator(t *testing.T) {
	for _, kt := range []sql.DataType{sql.Int().NotNull(), sql.BigInt().NotNull()} {
		spec, err := newSpec([]string{"k", "v"}, []sql.DataType{kt, sql.String()}, []string{"k"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(7))
		b := NewWriteBuffer(spec, 1<<40, nil)
		for i := 0; i < 5000; i++ {
			k := int64(r.Intn(300)) - 150
			var key any = int32(k)
			if kt.Root == sql.TypeBigInt {
				key = k << 35
			}
			v := []any{key, "x"}
			if _, err := b.Put(&KV{Key: []any{key}, Seq: int64(r.Intn(1 << 20)), Kind: sql.Insert, Value: v}); err != nil {
				t.Fatal(err)
			}
		}
		want := slices.Clone(b.recs)
		slices.SortStableFunc(want, func(x, y *KV) int {
			if c := spec.Key.Compare(x.Key, y.Key); c != 0 {
				return c
			}
			return spec.Order.Compare(x, y)
		})
		if !b.sortIntKeys() {
			t.Fatalf("%s: fast path not taken", kt)
		}
		for i := range want {
			if spec.Key.Compare(want[i].Key, b.recs[i].Key) != 0 || want[i].Seq != b.recs[i].Seq {
				t.Fatalf("%s: position %d: got key %v seq %d, want key %v seq %d", kt, i, b.recs[i].Key, b.recs[i].Seq, want[i].Key, want[i].Seq)
			}
		}
	}

	// STRING keys and sequence.field keep the generic sort.
	spec, err := newSpec([]string{"k", "v"}, []sql.DataType{sql.String().NotNull(), sql.Int()}, []string{"k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := NewWriteBuffer(spec, 1<<40, nil)
	b.Put(&KV{Key: []any{"b"}, Seq: 1, Value: []any{"b", int32(1)}})
	b.Put(&KV{Key: []any{"a"}, Seq: 2, Value: []any{"a", int32(1)}})
	if b.sortIntKeys() {
		t.Fatal("fast path taken for a STRING key")
	}
	spec, err = newSpec([]string{"k", "v"}, []sql.DataType{sql.Int().NotNull(), sql.Int()}, []string{"k"}, map[string]string{"sequence.field": "v"})
	if err != nil {
		t.Fatal(err)
	}
	b = NewWriteBuffer(spec, 1<<40, nil)
	b.Put(&KV{Key: []any{int32(1)}, Seq: 1, Value: []any{int32(1), int32(9)}})
	b.Put(&KV{Key: []any{int32(1)}, Seq: 2, Value: []any{int32(1), int32(3)}})
	if b.sortIntKeys() {
		t.Fatal("fast path taken with sequence.field")
	}
	b.sort()
	if b.recs[0].Seq != 2 {
		t.Fatalf("sequence.field order lost: first seq %d", b.recs[0].Seq)
	}
}
