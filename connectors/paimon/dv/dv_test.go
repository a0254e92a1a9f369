package dv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// indexFile32 lays out a DELETION_VECTORS index file with one 32-bit
// vector as BitmapDeletionVector.serializeTo writes it after
// DeletionVectorsIndexFile's version byte. bitmap is the portable
// roaring serialization. It returns the file, offset and recorded length.
func indexFile32(bitmap []byte) ([]byte, int64, int64) {
	data := binary.BigEndian.AppendUint32(nil, Magic32)
	data = append(data, bitmap...)
	file := []byte{IndexFileVersion}
	file = binary.BigEndian.AppendUint32(file, uint32(len(data)))
	file = append(file, data...)
	file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(data))
	return file, 1, int64(len(data))
}

// indexFile64 is the same for Bitmap64DeletionVector.serializeToBytes:
// length BE, magic LE, bitmap, CRC BE; the recorded length is all of it.
func indexFile64(bitmap []byte) ([]byte, int64, int64) {
	data := binary.LittleEndian.AppendUint32(nil, Magic64)
	data = append(data, bitmap...)
	rec := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	rec = append(rec, data...)
	rec = binary.BigEndian.AppendUint32(rec, crc32.ChecksumIEEE(data))
	return append([]byte{IndexFileVersion}, rec...), 1, int64(len(rec))
}

// TestPortableSpecBytes decodes a 32-bit bitmap written byte by byte from
// the RoaringFormatSpec (one array container, no-run cookie 12346), which
// is what Java's RoaringBitmap.serialize writes.
func TestPortableSpecBytes(t *testing.T) {
	var bm []byte
	bm = binary.LittleEndian.AppendUint32(bm, 12346) // cookie, no runs
	bm = binary.LittleEndian.AppendUint32(bm, 1)     // one container
	bm = binary.LittleEndian.AppendUint16(bm, 0)     // key
	bm = binary.LittleEndian.AppendUint16(bm, 3)     // cardinality - 1
	bm = binary.LittleEndian.AppendUint32(bm, 16)    // offset of the container
	for _, p := range []uint16{0, 3, 4, 99} {
		bm = binary.LittleEndian.AppendUint16(bm, p)
	}
	file, off, n := indexFile32(bm)
	v, err := Read(bytes.NewReader(file), off, n, "index-a-0")
	if err != nil {
		t.Fatal(err)
	}
	if v.Cardinality() != 4 || !v.IsDeleted(3) || !v.IsDeleted(99) || v.IsDeleted(5) || v.IsDeleted(-1) {
		t.Fatalf("decoded %d positions", v.Cardinality())
	}
}

func TestRead(t *testing.T) {
	b32 := roaring.BitmapOf(1, 2, 70000, 1<<31-1)
	b32.AddRange(100, 5000)
	b32.RunOptimize()
	var w32 bytes.Buffer
	if _, err := b32.WriteTo(&w32); err != nil {
		t.Fatal(err)
	}
	b64 := roaring64.BitmapOf(0, 7, 1<<33, 1<<40+5)
	b64.AddRange(10, 2000)
	b64.RunOptimize() // Bitmap64DeletionVector run-length encodes before writing
	var w64 bytes.Buffer
	if _, err := b64.WriteTo(&w64); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		file      []byte
		off, n    int64
		card      int64
		in, notIn []int64
	}{
		{"32-bit", nil, 0, 0, int64(b32.GetCardinality()), []int64{1, 100, 4999, 70000, 1<<31 - 1}, []int64{0, 5000, 1 << 31, -3}},
		{"64-bit", nil, 0, 0, int64(b64.GetCardinality()), []int64{0, 7, 10, 1999, 1 << 33, 1<<40 + 5}, []int64{1, 2000, 1<<33 + 1, -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "32-bit" {
				c.file, c.off, c.n = indexFile32(w32.Bytes())
			} else {
				c.file, c.off, c.n = indexFile64(w64.Bytes())
			}
			v, err := Read(bytes.NewReader(c.file), c.off, c.n, "index-b-0")
			if err != nil {
				t.Fatal(err)
			}
			if v.Cardinality() != c.card {
				t.Errorf("cardinality %d, want %d", v.Cardinality(), c.card)
			}
			for _, p := range c.in {
				if !v.IsDeleted(p) {
					t.Errorf("position %d not deleted", p)
				}
			}
			for _, p := range c.notIn {
				if v.IsDeleted(p) {
					t.Errorf("position %d deleted", p)
				}
			}
			// Every damaged byte is an error, never a panic or a vector.
			for i := int(c.off); i < len(c.file); i++ {
				bad := append([]byte(nil), c.file...)
				bad[i] ^= 0x41
				if _, err := Read(bytes.NewReader(bad), c.off, c.n, "index-b-0"); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("byte %d flipped: %v", i, err)
				}
			}
			// A recorded length that disagrees with the record.
			if _, err := Read(bytes.NewReader(c.file), c.off, c.n+1, "index-b-0"); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("wrong length: %v", err)
			}
			// Truncated file.
			if _, err := Read(bytes.NewReader(c.file[:len(c.file)-3]), c.off, c.n, "index-b-0"); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated: %v", err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	file, _, n := indexFile32([]byte{0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 5, 0})
	f.Add(file[1:], n)
	f.Fuzz(func(t *testing.T, b []byte, n int64) {
		_, _ = Decode(b, n, "fuzz") // must not panic or hang
	})
}
