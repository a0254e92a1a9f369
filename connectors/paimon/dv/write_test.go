package dv

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// TestEncodeIndexFileLayout checks the bytes of an index file sqlrun
// writes against the layout of Paimon 1.4's DeletionFileWriter (version
// byte VERSION_ID_V1) and BitmapDeletionVector.serializeTo: per vector
// [size BE][MAGIC_NUMBER BE][RoaringBitmap32 portable bytes][CRC32 BE of
// magic + bitmap], the recorded offset at the size prefix and the
// recorded length = size. The bitmap is the RoaringFormatSpec's bytes for
// {0, 3, 4, 99} (one array container; runOptimize keeps it an array),
// as in TestPortableSpecBytes.
func TestEncodeIndexFileLayout(t *testing.T) {
	var bm []byte
	bm = binary.LittleEndian.AppendUint32(bm, 12346) // cookie, no runs
	bm = binary.LittleEndian.AppendUint32(bm, 1)     // one container
	bm = binary.LittleEndian.AppendUint16(bm, 0)     // key
	bm = binary.LittleEndian.AppendUint16(bm, 3)     // cardinality - 1
	bm = binary.LittleEndian.AppendUint32(bm, 16)    // offset of the container
	for _, p := range []uint16{0, 3, 4, 99} {
		bm = binary.LittleEndian.AppendUint16(bm, p)
	}
	rec := func(bitmap []byte) []byte {
		data := append(binary.BigEndian.AppendUint32(nil, Magic32), bitmap...)
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(out, data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(data))
	}

	a, b := NewBitmap(false), NewBitmap(false)
	for _, p := range []int64{99, 3, 0, 4} {
		if added, err := a.Delete(p); err != nil || !added {
			t.Fatalf("delete %d: %v %v", p, added, err)
		}
	}
	if added, _ := a.Delete(3); added {
		t.Fatal("a second delete of 3 reports a change (DeletionVector.checkedDelete)")
	}
	b.Delete(7)
	file, ranges, err := EncodeIndexFile(map[string]*Bitmap{"data-b-0.parquet": b, "data-a-0.parquet": a})
	if err != nil {
		t.Fatal(err)
	}
	var want7 []byte
	want7 = binary.LittleEndian.AppendUint32(want7, 12346)
	want7 = binary.LittleEndian.AppendUint32(want7, 1)
	want7 = binary.LittleEndian.AppendUint16(want7, 0)
	want7 = binary.LittleEndian.AppendUint16(want7, 0)
	want7 = binary.LittleEndian.AppendUint32(want7, 16)
	want7 = binary.LittleEndian.AppendUint16(want7, 7)
	want := append([]byte{IndexFileVersion}, rec(bm)...)
	bOff := len(want)
	want = append(want, rec(want7)...)
	if !bytes.Equal(file, want) {
		t.Fatalf("index file\n got % x\nwant % x", file, want)
	}
	if len(ranges) != 2 || ranges[0] != (Range{"data-a-0.parquet", 1, int64(4 + len(bm)), 4}) ||
		ranges[1] != (Range{"data-b-0.parquet", int64(bOff), int64(4 + len(want7)), 1}) {
		t.Fatalf("ranges %+v", ranges)
	}
	// The read side decodes what the write side wrote.
	for _, r := range ranges {
		v, err := Read(bytes.NewReader(file), r.Offset, r.Length, "index-x-0")
		if err != nil || v.Cardinality() != r.Cardinality {
			t.Fatalf("%s: %v %v", r.DataFile, v, err)
		}
	}
	// No vector: the version byte alone (written when compaction removed
	// a bucket's last vector, so it replaces the previous file).
	if file, ranges, err := EncodeIndexFile(nil); err != nil || !bytes.Equal(file, []byte{1}) || len(ranges) != 0 {
		t.Fatalf("empty index file % x %v %v", file, ranges, err)
	}
}

// TestEncode64 checks Bitmap64DeletionVector's record: [size BE][magic
// LE][roaring64 portable][CRC32 BE], the recorded length covering all of
// it, and positions beyond 2^31 that the 32-bit vector refuses with
// BitmapDeletionVector's message.
func TestEncode64(t *testing.T) {
	v := NewBitmap(true)
	for _, p := range []int64{5, 1 << 33} {
		if _, err := v.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	file, ranges, err := EncodeIndexFile(map[string]*Bitmap{"f": v})
	if err != nil {
		t.Fatal(err)
	}
	r := ranges[0]
	if r.Offset != 1 || r.Length != int64(len(file)-1) || binary.LittleEndian.Uint32(file[5:]) != Magic64 {
		t.Fatalf("64-bit record: %+v in % x", r, file)
	}
	got, err := Read(bytes.NewReader(file), r.Offset, r.Length, "f")
	if err != nil || !got.IsDeleted(1<<33) || !got.IsDeleted(5) || got.Cardinality() != 2 {
		t.Fatalf("read back: %v", err)
	}
	back, err := ToBitmap(got)
	if err != nil || !back.Bitmap64() {
		t.Fatalf("restored vector: %v", err)
	}
	if _, err := NewBitmap(false).Delete(1 << 31); err == nil || err.Error() != "The file has too many rows, RoaringBitmap32 only supports files with row count not exceeding 2147483647." {
		t.Fatalf("32-bit vector beyond 2^31-1: %v", err)
	}
}

// TestMaintainer: vectors change only by new positions or removals, and
// Encode writes only after a change (BucketedDvMaintainer.modified).
func TestMaintainer(t *testing.T) {
	m := NewMaintainer(nil, false)
	if _, _, ok, _ := m.Encode(); ok {
		t.Fatal("an unchanged maintainer wrote an index file")
	}
	if err := m.Delete("f1", 2); err != nil {
		t.Fatal(err)
	}
	if !m.IsDeleted("f1", 2) || m.IsDeleted("f1", 3) || !m.Has("f1") || m.Has("f2") {
		t.Fatal("positions")
	}
	if _, ranges, ok, _ := m.Encode(); !ok || len(ranges) != 1 {
		t.Fatal("first encode")
	}
	m.Delete("f1", 2)
	m.Remove("f2")
	if _, _, ok, _ := m.Encode(); ok {
		t.Fatal("no change, but an index file")
	}
	m.Remove("f1")
	if file, ranges, ok, _ := m.Encode(); !ok || len(ranges) != 0 || len(file) != 1 {
		t.Fatal("removing the last vector writes an empty index file")
	}
}
