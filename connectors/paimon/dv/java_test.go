package dv

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestJavaIndexFiles reads the two DELETION_VECTORS index files Paimon
// Java wrote for its DeletionVectorsIndexFileTest (testdata/java, see its
// README) with the assertions of testReadOldDeletionVector32Bit and
// testReadOldDeletionVector64Bit, then writes the same vectors with
// EncodeIndexFile and requires Java's bytes: version byte, per vector
// [size][magic][portable roaring bitmap][crc32], offsets and the lengths
// Paimon records in DeletionVectorMeta (size for 32-bit vectors, the whole
// record for 64-bit ones). A change to the bitmap serialization (run
// containers, the 64-bit header, the magic's byte order) or to the
// recorded length fails here.
func TestJavaIndexFiles(t *testing.T) {
	for _, tc := range []struct {
		file     string
		bitmap64 bool
		want     []Range
	}{
		// 32-bit: recorded length = size (magic + bitmap); the second
		// record starts after 4 + 24 + 4 bytes.
		{"dvindex-32", false, []Range{
			{DataFile: "a", Offset: 1, Length: 24, Cardinality: 2},
			{DataFile: "b", Offset: 33, Length: 22, Cardinality: 1},
		}},
		// 64-bit: recorded length = the whole record (size prefix and crc
		// included).
		{"dvindex-64", true, []Range{
			{DataFile: "a", Offset: 1, Length: 44, Cardinality: 2},
			{DataFile: "b", Offset: 45, Length: 42, Cardinality: 1},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			java, err := os.ReadFile(filepath.Join("testdata", "java", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if java[0] != IndexFileVersion {
				t.Fatalf("version byte %d", java[0])
			}
			deleted := map[string][]int64{"a": {2, 3}, "b": {1}}
			for _, r := range tc.want {
				v, err := Read(bytes.NewReader(java), r.Offset, r.Length, tc.file)
				if err != nil {
					t.Fatalf("vector %s: %v", r.DataFile, err)
				}
				if v.Cardinality() != r.Cardinality {
					t.Fatalf("vector %s: cardinality %d, want %d", r.DataFile, v.Cardinality(), r.Cardinality)
				}
				for pos := int64(0); pos < 8; pos++ {
					want := false
					for _, d := range deleted[r.DataFile] {
						want = want || d == pos
					}
					if v.IsDeleted(pos) != want {
						t.Fatalf("vector %s: IsDeleted(%d) = %v", r.DataFile, pos, !want)
					}
				}
				b, err := ToBitmap(v)
				if err != nil {
					t.Fatal(err)
				}
				if b.Bitmap64() != tc.bitmap64 {
					t.Fatalf("vector %s: 64-bit %v, want %v", r.DataFile, b.Bitmap64(), tc.bitmap64)
				}
			}

			vecs := map[string]*Bitmap{}
			for name, pos := range deleted {
				b := NewBitmap(tc.bitmap64)
				for _, p := range pos {
					if _, err := b.Delete(p); err != nil {
						t.Fatal(err)
					}
				}
				vecs[name] = b
			}
			ours, ranges, err := EncodeIndexFile(vecs)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours, java) {
				t.Fatalf("sqlrun's index file differs from Java's\n ours % x\njava % x", ours, java)
			}
			if !reflect.DeepEqual(ranges, tc.want) {
				t.Fatalf("ranges %+v, want %+v", ranges, tc.want)
			}
		})
	}
}
