package index

import (
	"errors"
	"testing"
	"time"
)

// TestGlobalIndex checks the state of Paimon 1.4.2's GlobalIndexAssigner:
// crosspartition.BucketAssigner (TreeMap order: the lowest bucket below
// the target, else the lowest unused id; decrement of an unknown bucket
// puts 0), the bulk load's duplicate check, and the TTL.
func TestGlobalIndex(t *testing.T) {
	now := time.Unix(1000, 0)
	g := NewGlobalIndex(2, time.Hour, func() time.Time { return now })
	a, b := []byte("a"), []byte("b")
	if err := g.Bootstrap([]byte("k1"), a, 1); err != nil {
		t.Fatal(err)
	}
	if err := g.Bootstrap([]byte("k1"), b, 0); !errors.Is(err, ErrDuplicateKey) {
		t.Fatalf("got %v", err)
	}
	// Bucket 1 holds one key: the next key joins it, then bucket 0 (the
	// lowest id not used) opens, then bucket 2.
	for i, want := range []int{1, 0, 0, 2} {
		if got := g.AssignNew([]byte{'n', byte(i)}, a); got != want {
			t.Fatalf("key %d: bucket %d, want %d", i, got, want)
		}
	}
	g.Decrement(a, 1)
	if got := g.AssignNew([]byte("m"), a); got != 1 {
		t.Fatalf("after decrement: bucket %d", got)
	}
	g.Decrement(b, 5) // unknown: counts 0, so bucket 5 takes keys first
	if got := g.AssignNew([]byte("x"), b); got != 5 {
		t.Fatalf("bucket %d", got)
	}
	if p, bk, ok := g.Get([]byte("k1")); !ok || string(p) != "a" || bk != 1 {
		t.Fatalf("k1: %s %d %v", p, bk, ok)
	}
	now = now.Add(time.Hour + time.Second)
	if _, _, ok := g.Get([]byte("k1")); ok {
		t.Fatal("k1 outlived the TTL")
	}
}
