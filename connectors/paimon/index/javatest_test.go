package index

import (
	"fmt"
	"testing"
)

// The expectations of Paimon 1.4.2's HashBucketAssignerTest
// (paimon-core/src/test/java/org/apache/paimon/index), whose assigners have
// dynamic-bucket.target-row-num 5, replayed on sqlrun's Assigner: row(1)
// and row(2) are two partitions, Java's numAssigners and assignId are
// Options.NumAssigners and AssignID. Java's check that a record reaches
// the assigner its hash belongs to ("This is a bug, record assign id ...")
// has no counterpart: sqlrun runs one assigner task, which owns every
// hash. The restore case feeds the index files Java commits there.

func javaAssigner(numAssigners, assignID, maxBuckets int, load Loader) *Assigner {
	if load == nil {
		load = noIndex
	}
	return NewAssigner(Options{TargetRows: 5, MaxBuckets: maxBuckets, NumAssigners: numAssigners, AssignID: assignID}, load)
}

func expectBuckets(t *testing.T, a *Assigner, part string, hashes []int32, want ...int) {
	t.Helper()
	if got := assignAll(t, a, part, hashes...); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("partition %s, hashes %v: buckets %v, Java's test expects %v", part, hashes, got, want)
	}
}

// testAssign: assigner 0 of 2 fills bucket 0 with five keys, then opens
// its next bucket, 2; another partition starts at 0; a known hash keeps
// its bucket.
func TestJavaHashBucketAssignerAssign(t *testing.T) {
	a := javaAssigner(2, 0, -1, nil)
	expectBuckets(t, a, "row1", []int32{0, 2, 4, 6, 8}, 0, 0, 0, 0, 0)
	expectBuckets(t, a, "row1", []int32{10}, 2)
	expectBuckets(t, a, "row2", []int32{12}, 0)
	expectBuckets(t, a, "row1", []int32{6}, 0)
}

// testAssignWithUpperBound: with dynamic-bucket.max-buckets 2, assigner 0
// of 2 may not open bucket 2: past bucket 0's five keys everything stays
// in its buckets (0), in either partition.
func TestJavaHashBucketAssignerUpperBound(t *testing.T) {
	a := javaAssigner(2, 0, 2, nil)
	expectBuckets(t, a, "row1", []int32{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	expectBuckets(t, a, "row2", []int32{12}, 0)
	expectBuckets(t, a, "row1", []int32{6}, 0)
	for _, part := range []string{"row1", "row2"} {
		hash := map[string]int32{"row1": 18, "row2": 12}[part]
		for i := 0; i < 200; i++ {
			hash += 2
			b, err := a.Assign([]byte(part), hash)
			if err != nil || (b != 0 && b != 2) {
				t.Fatalf("partition %s hash %d: bucket %d (%v), Java's test expects 0 or 2", part, hash, b, err)
			}
		}
	}
}

// testAssignWithUpperBoundMultiAssigners: max-buckets 3, two assigners:
// assigner 0 opens 0 and 2, then (the assigner-wide largest bucket at the
// bound) keeps a new partition in its buckets; assigner 1 opens 1 and
// keeps partition 2 there.
func TestJavaHashBucketAssignerUpperBoundMultiAssigners(t *testing.T) {
	a0, a1 := javaAssigner(2, 0, 3, nil), javaAssigner(2, 1, 3, nil)
	expectBuckets(t, a0, "row1", []int32{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2)
	for hash, i := int32(18), 0; i < 200; i++ {
		hash += 2
		if b, err := a0.Assign([]byte("row2"), hash); err != nil || (b != 0 && b != 2) {
			t.Fatalf("assigner 0, partition 2, hash %d: bucket %d (%v), Java's test expects 0 or 2", hash, b, err)
		}
	}
	expectBuckets(t, a1, "row1", []int32{1, 3, 5, 7, 9}, 1, 1, 1, 1, 1)
	for hash, i := int32(9), 0; i < 200; i++ {
		hash += 2
		if b, err := a1.Assign([]byte("row2"), hash); err != nil || b != 1 {
			t.Fatalf("assigner 1, partition 2, hash %d: bucket %d (%v), Java's test expects 1", hash, b, err)
		}
	}
}

// testPartitionCopy: one assigner; two partitions each start at bucket 0,
// whatever max-buckets is.
func TestJavaHashBucketAssignerPartitions(t *testing.T) {
	for _, maxBuckets := range []int{-1, 1, 2} {
		a := javaAssigner(1, 0, maxBuckets, nil)
		expectBuckets(t, a, "row1", []int32{0, 1}, 0, 0)
		expectBuckets(t, a, "row2", []int32{5, 6}, 0, 0)
	}
}

// testAssignRestore: the latest snapshot has partition row(1)'s HASH index
// files of bucket 0 ({2, 5}) and bucket 2 ({4, 7}); of three assigners,
// 0 and 2 find their keys there, and assigner 0 fills bucket 0 up to five
// keys before opening its next bucket, 3.
func TestJavaHashBucketAssignerRestore(t *testing.T) {
	load := func(p []byte) ([]LoadedBucket, error) {
		if string(p) != "row1" {
			return nil, nil
		}
		return []LoadedBucket{{Bucket: 0, Hashes: []int32{2, 5}}, {Bucket: 2, Hashes: []int32{4, 7}}}, nil
	}
	a0, a2 := javaAssigner(3, 0, -1, load), javaAssigner(3, 2, -1, load)
	expectBuckets(t, a0, "row1", []int32{2}, 0)
	expectBuckets(t, a2, "row1", []int32{4}, 2)
	expectBuckets(t, a0, "row1", []int32{5}, 0)
	expectBuckets(t, a2, "row1", []int32{7}, 2)
	expectBuckets(t, a0, "row1", []int32{8, 11, 14, 17}, 0, 0, 0, 3)
}

// testAssignRestoreWithUpperBound: the same restore with max-buckets 1:
// assigner 2 keeps using its restored bucket, and assigner 0, its bucket
// full, may open none and stays in bucket 0.
func TestJavaHashBucketAssignerRestoreUpperBound(t *testing.T) {
	load := func(p []byte) ([]LoadedBucket, error) {
		return []LoadedBucket{{Bucket: 0, Hashes: []int32{2, 5}}, {Bucket: 2, Hashes: []int32{4, 7}}}, nil
	}
	a0, a2 := javaAssigner(3, 0, 1, load), javaAssigner(3, 2, 1, load)
	expectBuckets(t, a0, "row1", []int32{2}, 0)
	expectBuckets(t, a2, "row1", []int32{4}, 2)
	expectBuckets(t, a0, "row1", []int32{5}, 0)
	expectBuckets(t, a2, "row1", []int32{7}, 2)
	expectBuckets(t, a0, "row1", []int32{8, 11, 14}, 0, 0, 0)
	expectBuckets(t, a2, "row1", []int32{16}, 2)
	expectBuckets(t, a0, "row1", []int32{17}, 0)
}

// testAssignDecoupled: two assigners on three channels own the buckets
// congruent to their id modulo the number of assigners (assigner 2 the
// even ones, like assigner 0).
func TestJavaHashBucketAssignerDecoupled(t *testing.T) {
	expectBuckets(t, javaAssigner(2, 1, -1, nil), "row1", []int32{0, 2, 4, 6, 8, 10}, 1, 1, 1, 1, 1, 3)
	expectBuckets(t, javaAssigner(2, 2, -1, nil), "row1", []int32{1, 3, 5, 7, 9, 11}, 0, 0, 0, 0, 0, 2)
	expectBuckets(t, javaAssigner(2, 0, -1, nil), "row2", []int32{1, 3, 5, 7, 9, 11}, 0, 0, 0, 0, 0, 2)
}

// SimpleHashBucketAssignerTest (INSERT OVERWRITE's assigner,
// SimpleHashBucketAssigner(numAssigners, assignId, targetRows 100,
// maxBuckets)): sequential hashes fill the assigner's buckets one after
// the other; past max-buckets they go to its existing buckets; a hash seen
// before keeps its bucket.
func TestJavaSimpleHashBucketAssigner(t *testing.T) {
	simple := func(numAssigners, assignID, target, maxBuckets int) *SimpleAssigner {
		return NewSimpleAssigner(Options{TargetRows: int64(target), MaxBuckets: maxBuckets, NumAssigners: numAssigners, AssignID: assignID})
	}
	// run assigns n sequential hashes from *hash and checks each bucket.
	run := func(name string, a *SimpleAssigner, part string, hash *int32, n int, ok func(int) bool) {
		t.Helper()
		for i := 0; i < n; i++ {
			b, err := a.Assign([]byte(part), *hash)
			if err != nil || !ok(b) {
				t.Fatalf("%s: hash %d: bucket %d (%v)", name, *hash, b, err)
			}
			*hash++
		}
	}
	is := func(bs ...int) func(int) bool {
		return func(b int) bool {
			for _, x := range bs {
				if b == x {
					return true
				}
			}
			return false
		}
	}

	var h int32 // testAssign
	a := simple(2, 0, 100, -1)
	run("testAssign", a, "", &h, 100, is(0))
	run("testAssign", a, "", &h, 100, is(2))
	run("testAssign", a, "", &h, 1, is(4))

	h = 0 // testAssignWithUpperBound
	a = simple(2, 0, 100, 3)
	run("testAssignWithUpperBound", a, "", &h, 100, is(0))
	run("testAssignWithUpperBound", a, "", &h, 100, is(2))
	run("testAssignWithUpperBound", a, "", &h, 200, is(0, 2))

	h = 0 // testAssignWithUpperBoundMultiAssigners
	a0, a1 := simple(2, 0, 100, 3), simple(2, 1, 100, 3)
	run("multi, assigner 0", a0, "", &h, 100, is(0))
	run("multi, assigner 1", a1, "", &h, 100, is(1))
	run("multi, assigner 0", a0, "", &h, 100, is(2))
	run("multi, assigner 0", a0, "", &h, 200, is(0, 2))
	run("multi, assigner 1", a1, "", &h, 200, is(1))

	for _, maxBuckets := range []int{-1, 1, 2} {
		h = 0 // testAssignWithSameHash
		a = simple(2, 0, 100, maxBuckets)
		run("testAssignWithSameHash", a, "", &h, 100, is(0))
		h = 0
		run("testAssignWithSameHash", a, "", &h, 100, is(0))

		a = simple(1, 0, 5, maxBuckets) // testPartitionCopy
		for _, c := range []struct {
			part string
			hash int32
		}{{"row1", 0}, {"row1", 1}, {"row2", 5}, {"row2", 6}} {
			h = c.hash
			run("testPartitionCopy", a, c.part, &h, 1, is(0))
		}
	}
}
