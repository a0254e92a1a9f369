// Package dv reads Paimon's deletion vectors: the DELETION_VECTORS index
// files a table with 'deletion-vectors.enabled' = 'true' keeps under
// index/, each holding the deleted row positions of some data files
// (Paimon's DeletionVectorsIndexFile, BitmapDeletionVector and
// Bitmap64DeletionVector). sqlrun applies them on read; it writes none.
package dv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/sqlrun/sqlrun/sql"
)

// Vector marks the deleted row positions (0-based) of one data file.
type Vector interface {
	IsDeleted(pos int64) bool
	Cardinality() int64
}

// ErrCorrupt is wrapped when a deletion vector cannot be decoded.
var ErrCorrupt = sql.Corrupt("corrupt deletion vector") // matches sql.ErrCorrupt

// Magic numbers: BitmapDeletionVector.MAGIC_NUMBER (stored big-endian)
// and Bitmap64DeletionVector.MAGIC_NUMBER (stored little-endian, which is
// how a reader tells the two apart).
const (
	Magic32 = 1581511376
	Magic64 = 1681511377
)

// IndexFileVersion is the first byte of a deletion-vector index file
// (DeletionVectorsIndexFile.VERSION_ID_V1).
const IndexFileVersion = 1

// cursor answers IsDeleted for increasing positions by keeping the next
// deleted position: readers ask in position order, so most rows cost one
// comparison instead of a bitmap search. It restarts when asked about an
// earlier position. A Vector is used by one reader at a time.
type cursor struct {
	next  int64 // next deleted position ≥ the last one asked; MaxInt64 at the end
	reset func()
	seek  func(pos int64) int64 // the first deleted position ≥ pos, or MaxInt64
	last  int64
}

func (c *cursor) IsDeleted(pos int64) bool {
	if pos < 0 {
		return false
	}
	if pos < c.last {
		c.reset()
		c.next = c.seek(0)
	}
	c.last = pos
	if pos < c.next {
		return false
	}
	if pos > c.next {
		c.next = c.seek(pos)
	}
	return pos == c.next
}

type vec32 struct {
	cursor
	b  *roaring.Bitmap
	it roaring.IntPeekable
}

func newVec32(b *roaring.Bitmap) *vec32 {
	v := &vec32{b: b}
	v.reset = func() { v.it = b.Iterator() }
	v.seek = func(pos int64) int64 {
		if pos > math.MaxUint32 {
			return math.MaxInt64
		}
		v.it.AdvanceIfNeeded(uint32(pos))
		if !v.it.HasNext() {
			return math.MaxInt64
		}
		return int64(v.it.PeekNext())
	}
	v.reset()
	v.next = v.seek(0)
	return v
}

func (v *vec32) Cardinality() int64 { return int64(v.b.GetCardinality()) }

type vec64 struct {
	cursor
	b  *roaring64.Bitmap
	it roaring64.IntPeekable64
}

func newVec64(b *roaring64.Bitmap) *vec64 {
	v := &vec64{b: b}
	v.reset = func() { v.it = b.Iterator() }
	v.seek = func(pos int64) int64 {
		v.it.AdvanceIfNeeded(uint64(pos))
		if !v.it.HasNext() || v.it.PeekNext() > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v.it.PeekNext())
	}
	v.reset()
	v.next = v.seek(0)
	return v
}

func (v *vec64) Cardinality() int64 { return int64(v.b.GetCardinality()) }

// Read decodes the deletion vector at offset of an index file, length
// being what the index manifest records for it (DeletionVectorMeta):
//
//   - 32-bit (BitmapDeletionVector): [length BE][magic BE][roaring32]
//     [crc32 BE], the recorded length = magic + bitmap bytes;
//   - 64-bit (Bitmap64DeletionVector, Iceberg's layout): [length BE]
//     [magic LE][roaring64 portable][crc32 BE], the recorded length
//     covering the whole record.
//
// The CRC32 covers magic and bitmap in both; a mismatch is an error.
func Read(r io.ReaderAt, offset, length int64, file string) (Vector, error) {
	if offset < 0 || length < 8 || length > 1<<31 {
		return nil, fmt.Errorf("%w: %s at offset %d, length %d", ErrCorrupt, file, offset, length)
	}
	// Room for the 32-bit form's length prefix and checksum.
	buf := make([]byte, length+8)
	n, err := r.ReadAt(buf, offset)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read deletion vector in %s: %w", file, err)
	}
	return Decode(buf[:n], length, file)
}

// Decode is Read on bytes that start at the vector's length prefix.
func Decode(buf []byte, length int64, file string) (v Vector, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, file, r)
		}
	}()
	if len(buf) < 12 {
		return nil, fmt.Errorf("%w: %s: truncated", ErrCorrupt, file)
	}
	size := int64(binary.BigEndian.Uint32(buf))
	if size < 4 || 4+size+4 > int64(len(buf)) {
		return nil, fmt.Errorf("%w: %s: length %d does not fit", ErrCorrupt, file, size)
	}
	data := buf[4 : 4+size]
	if crc := binary.BigEndian.Uint32(buf[4+size:]); crc != crc32.ChecksumIEEE(data) {
		return nil, fmt.Errorf("%w: %s: checksum mismatch", ErrCorrupt, file)
	}
	switch {
	case binary.BigEndian.Uint32(data) == Magic32:
		if size != length {
			return nil, fmt.Errorf("%w: %s: Size not match, actual size: %d, expected size: %d", ErrCorrupt, file, size, length)
		}
		b := roaring.New()
		if _, err := b.ReadFrom(bytes.NewReader(data[4:])); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, file, err)
		}
		return newVec32(b), nil
	case binary.LittleEndian.Uint32(data) == Magic64:
		if size != length-8 {
			return nil, fmt.Errorf("%w: %s: Size not match, actual size: %d, expected size: %d", ErrCorrupt, file, size, length-8)
		}
		bm := data[4:]
		// The count of 32-bit bitmaps bounds the allocation roaring makes.
		if len(bm) < 8 || binary.LittleEndian.Uint64(bm) > uint64(len(bm)/12) {
			return nil, fmt.Errorf("%w: %s: bad 64-bit bitmap header", ErrCorrupt, file)
		}
		b := roaring64.New()
		if _, err := b.ReadFrom(bytes.NewReader(bm)); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, file, err)
		}
		return newVec64(b), nil
	}
	return nil, fmt.Errorf("%w: %s: unknown magic number", ErrCorrupt, file)
}
