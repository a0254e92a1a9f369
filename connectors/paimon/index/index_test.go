package index

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// IntFileUtils.writeInts: each int as 4 big-endian bytes, nothing else.
func TestHashFileFormat(t *testing.T) {
	b := EncodeHashes([]int32{0x01020304, -1, 0})
	if !bytes.Equal(b, []byte{1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}) {
		t.Fatalf("% x", b)
	}
	got, err := DecodeHashes(b, "f")
	if err != nil || fmt.Sprint(got) != "[16909060 -1 0]" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := DecodeHashes(b[:5], "index-x-0"); !errors.Is(err, ErrCorrupt) || !errors.Is(err, sql.ErrCorrupt) {
		t.Fatalf("got %v, want an error matching index.ErrCorrupt and sql.ErrCorrupt (issue 21: one corruption marker)", err)
	}
}

// DynamicBucketIndexMaintainer: the restored file is not rewritten until a
// new hash arrives; a hash seen before changes nothing.
func TestBucketHashes(t *testing.T) {
	b := NewBucketHashes([]int32{5, 7})
	b.Add(7)
	if b.Modified() {
		t.Fatal("known hash modified the set")
	}
	b.Add(-3)
	if !b.Modified() || fmt.Sprint(b.Hashes()) != "[5 7 -3]" || b.Len() != 3 {
		t.Fatalf("%v %v", b.Modified(), b.Hashes())
	}
	b.Written()
	if b.Modified() {
		t.Fatal("still modified")
	}
}

func noIndex([]byte) ([]LoadedBucket, error) { return nil, nil }

func assignAll(t *testing.T, a BucketAssigner, part string, hashes ...int32) []int {
	t.Helper()
	var out []int
	for _, h := range hashes {
		b, err := a.Assign([]byte(part), h)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// PartitionIndex.assign: a known hash keeps its bucket, new hashes fill
// bucket 0 to target-row-num, then bucket 1, ...; partitions are
// independent.
func TestAssignerFillsBuckets(t *testing.T) {
	a := NewAssigner(Options{TargetRows: 2, MaxBuckets: -1}, noIndex)
	if got := fmt.Sprint(assignAll(t, a, "p", 10, 11, 10, 12, 13, 14, 11)); got != "[0 0 0 1 1 2 0]" {
		t.Fatal(got)
	}
	if got := fmt.Sprint(assignAll(t, a, "q", 10, 20)); got != "[0 0]" {
		t.Fatal(got)
	}
}

// PartitionIndex.loadIndex: hashes of the index files keep their bucket;
// each bucket holds as many rows as hashes; new keys go to the first
// non-full bucket in java.util.HashMap order.
func TestAssignerLoadsIndex(t *testing.T) {
	load := func(p []byte) ([]LoadedBucket, error) {
		return []LoadedBucket{{Bucket: 20, Hashes: []int32{1}}, {Bucket: 3, Hashes: []int32{2, 3}}, {Bucket: 0, Hashes: []int32{4, 5, 6}}}, nil
	}
	a := NewAssigner(Options{TargetRows: 3, MaxBuckets: -1}, load)
	// HashMap<Integer,Long> of capacity 16 iterates 0, 3, 20 (slot 4);
	// bucket 0 is full, 3 has room for one, then 20 for two, then the
	// lowest unused id, 1.
	if got := fmt.Sprint(assignAll(t, a, "p", 2, 1, 100, 101, 102, 103, 104)); got != "[3 20 3 20 20 1 1]" {
		t.Fatal(got)
	}
}

// java.util.HashMap iteration order of Integer keys: by slot (key masked
// by the capacity, 16 doubling past 0.75 load), insertion order within a
// slot.
func TestJavaIntMapOrder(t *testing.T) {
	m := newJavaIntMap()
	for _, k := range []int{20, 3, 40, 5, 36} {
		m.add(k, 1)
	}
	if got := fmt.Sprint(m.keys()); got != "[3 20 36 5 40]" {
		t.Fatal(got)
	}
	for k := 100; len(m.entries) < 13; k++ {
		m.add(k, 1)
	}
	// 13 entries: capacity 32; slot 4 (20, 36, 100) splits into slot 4
	// (36, 100, in their order) and slot 20 (20).
	if m.capacity != 32 {
		t.Fatalf("capacity %d", m.capacity)
	}
	if got := fmt.Sprint(m.keys()); got != "[3 36 100 5 101 102 103 40 104 105 106 107 20]" {
		t.Fatal(got)
	}
}

// dynamic-bucket.max-buckets: past the bound new keys go to a random
// existing bucket (ListUtils.pickRandomly).
func TestAssignerMaxBuckets(t *testing.T) {
	a := NewAssigner(Options{TargetRows: 1, MaxBuckets: 2}, noIndex)
	got := assignAll(t, a, "p", 1, 2, 3, 4, 5)
	if got[0] != 0 || got[1] != 1 {
		t.Fatal(got)
	}
	for _, b := range got[2:] {
		if b != 0 && b != 1 {
			t.Fatal(got)
		}
	}
}

// BucketAssigner.isMyBucket: with several assigners each creates only the
// buckets congruent to its id.
func TestAssignerOwnsItsBuckets(t *testing.T) {
	a := NewAssigner(Options{TargetRows: 1, MaxBuckets: -1, NumAssigners: 3, AssignID: 1}, noIndex)
	if got := fmt.Sprint(assignAll(t, a, "p", 1, 2, 3)); got != "[1 4 7]" {
		t.Fatal(got)
	}
}

// SimpleHashBucketAssigner (INSERT OVERWRITE): fills the current bucket,
// then moves to the next free id.
func TestSimpleAssigner(t *testing.T) {
	a := NewSimpleAssigner(Options{TargetRows: 2, MaxBuckets: -1})
	if got := fmt.Sprint(assignAll(t, a, "p", 1, 2, 1, 3, 4, 5)); got != "[0 0 0 1 1 2]" {
		t.Fatal(got)
	}
}
