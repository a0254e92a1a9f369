package dv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Bitmap is a deletion vector that can grow: BitmapDeletionVector (32-bit
// positions, Paimon's default) or Bitmap64DeletionVector
// ('deletion-vectors.bitmap64' = 'true').
type Bitmap struct {
	b32 *roaring.Bitmap
	b64 *roaring64.Bitmap
}

// NewBitmap creates an empty vector of the given width.
func NewBitmap(bitmap64 bool) *Bitmap {
	if bitmap64 {
		return &Bitmap{b64: roaring64.New()}
	}
	return &Bitmap{b32: roaring.New()}
}

// ToBitmap copies a vector Read or Decode returned into a Bitmap of the
// same width, so a writer can add to what it restored.
func ToBitmap(v Vector) (*Bitmap, error) {
	switch v := v.(type) {
	case *vec32:
		return &Bitmap{b32: v.b.Clone()}, nil
	case *vec64:
		return &Bitmap{b64: v.b.Clone()}, nil
	case *Bitmap:
		return v.Clone(), nil
	}
	return nil, fmt.Errorf("deletion vector of type %T", v)
}

// Clone returns an independent copy.
func (b *Bitmap) Clone() *Bitmap {
	if b.b64 != nil {
		return &Bitmap{b64: b.b64.Clone()}
	}
	return &Bitmap{b32: b.b32.Clone()}
}

// Bitmap64 reports a 64-bit vector.
func (b *Bitmap) Bitmap64() bool { return b.b64 != nil }

// IsDeleted implements Vector.
func (b *Bitmap) IsDeleted(pos int64) bool {
	if pos < 0 {
		return false
	}
	if b.b64 != nil {
		return b.b64.Contains(uint64(pos))
	}
	return pos <= math.MaxInt32 && b.b32.Contains(uint32(pos))
}

// Cardinality implements Vector.
func (b *Bitmap) Cardinality() int64 {
	if b.b64 != nil {
		return int64(b.b64.GetCardinality())
	}
	return int64(b.b32.GetCardinality())
}

// Delete marks pos and reports whether it was not marked before
// (DeletionVector.checkedDelete). A 32-bit vector refuses positions beyond
// 2^31-1 with BitmapDeletionVector's message.
func (b *Bitmap) Delete(pos int64) (bool, error) {
	if pos < 0 {
		return false, fmt.Errorf("deletion vector: negative position %d", pos)
	}
	if b.b64 != nil {
		return b.b64.CheckedAdd(uint64(pos)), nil
	}
	if pos > math.MaxInt32 {
		return false, fmt.Errorf("The file has too many rows, RoaringBitmap32 only supports files with row count not exceeding 2147483647.")
	}
	return b.b32.CheckedAdd(uint32(pos)), nil
}

// appendTo appends the vector's record as DeletionVector.serializeTo
// writes it and returns the length the index manifest records for it
// (DeletionVectorMeta.length):
//
//   - 32-bit (BitmapDeletionVector): [size BE][magic BE][roaring32 after
//     runOptimize][crc32 BE of magic+bitmap]; the length is size;
//   - 64-bit (Bitmap64DeletionVector): [size BE][magic LE][roaring64
//     portable after runLengthEncode][crc32 BE]; the length is the whole
//     record.
func (b *Bitmap) appendTo(out []byte) ([]byte, int64, error) {
	var data bytes.Buffer
	if b.b64 != nil {
		data.Write(binary.LittleEndian.AppendUint32(nil, Magic64))
		b.b64.RunOptimize()
		if _, err := b.b64.WriteTo(&data); err != nil {
			return out, 0, err
		}
	} else {
		data.Write(binary.BigEndian.AppendUint32(nil, Magic32))
		b.b32.RunOptimize()
		if _, err := b.b32.WriteTo(&data); err != nil {
			return out, 0, err
		}
	}
	d := data.Bytes()
	if len(d) > math.MaxInt32-8 {
		return out, 0, fmt.Errorf("Can't serialize index > 2GB")
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(d)))
	out = append(out, d...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(d))
	if b.b64 != nil {
		return out, int64(len(d)) + 8, nil
	}
	return out, int64(len(d)), nil
}

// Range locates one data file's vector in an index file (Paimon's
// DeletionVectorMeta): Offset is where its size prefix starts.
type Range struct {
	DataFile    string
	Offset      int64
	Length      int64
	Cardinality int64
}

// EncodeIndexFile lays out a DELETION_VECTORS index file as
// DeletionFileWriter writes one: the version byte (VERSION_ID_V1), then
// every vector's record, here in data file name order. An empty map gives
// the one-byte file Paimon writes when a compaction removed the bucket's
// last vector, so the new file replaces the old one.
func EncodeIndexFile(vecs map[string]*Bitmap) ([]byte, []Range, error) {
	names := make([]string, 0, len(vecs))
	for n := range vecs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []byte{IndexFileVersion}
	ranges := make([]Range, 0, len(names))
	for _, n := range names {
		start := int64(len(out))
		var length int64
		var err error
		if out, length, err = vecs[n].appendTo(out); err != nil {
			return nil, nil, fmt.Errorf("deletion vector of %s: %w", n, err)
		}
		ranges = append(ranges, Range{DataFile: n, Offset: start, Length: length, Cardinality: vecs[n].Cardinality()})
	}
	if len(out) > math.MaxInt32 {
		return nil, nil, fmt.Errorf("deletion vector index file of %d bytes exceeds 2 GiB", len(out))
	}
	return out, ranges, nil
}

// Maintainer keeps the deletion vectors of one bucket while it is written
// (Paimon's BucketedDvMaintainer): compaction marks positions and drops
// the vectors of files it rewrote; Encode serializes all vectors when
// something changed. Safe for concurrent use.
type Maintainer struct {
	bitmap64 bool

	mu       sync.Mutex
	vecs     map[string]*Bitmap
	modified bool
}

// NewMaintainer starts from the restored vectors (taken over, not
// copied); new vectors are 64-bit when bitmap64.
func NewMaintainer(restored map[string]*Bitmap, bitmap64 bool) *Maintainer {
	if restored == nil {
		restored = map[string]*Bitmap{}
	}
	return &Maintainer{bitmap64: bitmap64, vecs: restored}
}

// IsDeleted reports whether pos of data file is marked.
func (m *Maintainer) IsDeleted(file string, pos int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.vecs[file]
	return v != nil && v.IsDeleted(pos)
}

// Has reports whether data file has a vector.
func (m *Maintainer) Has(file string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.vecs[file] != nil
}

// Delete marks pos of data file (notifyNewDeletion).
func (m *Maintainer) Delete(file string, pos int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.vecs[file]
	if v == nil {
		v = NewBitmap(m.bitmap64)
		m.vecs[file] = v
	}
	added, err := v.Delete(pos)
	if err != nil {
		return fmt.Errorf("deletion vector of %s: %w", file, err)
	}
	m.modified = m.modified || added
	return nil
}

// Remove drops the vector of a data file compaction rewrote
// (removeDeletionVectorOf).
func (m *Maintainer) Remove(file string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.vecs[file]; ok {
		delete(m.vecs, file)
		m.modified = true
	}
}

// Encode returns the index file of all vectors when they changed since
// the last call (writeDeletionVectorsIndex), else ok = false.
func (m *Maintainer) Encode() (file []byte, ranges []Range, ok bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.modified {
		return nil, nil, false, nil
	}
	if file, ranges, err = EncodeIndexFile(m.vecs); err != nil {
		return nil, nil, false, err
	}
	m.modified = false
	return file, ranges, true, nil
}
