package format

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/sqlrun/sqlrun/connectors/paimon/internal/roaring"
)

// DeletionVector marks the deleted row positions (0-based, across row
// groups) of one data file. Paimon writes them for tables with
// deletion-vectors.enabled: a row whose position is marked must not be
// returned, and for primary-key tables a file with a deletion vector is
// read without merging.
type DeletionVector interface {
	IsDeleted(pos int64) bool
	Cardinality() int64
}

// Magic numbers of the two deletion vector encodings.
const (
	dvMagic32 = 1581511376 // BitmapDeletionVector, big-endian int
	dvMagic64 = 1681511377 // Bitmap64DeletionVector, stored little-endian
)

type dv32 struct{ b *roaring.Bitmap }

func (d dv32) IsDeleted(pos int64) bool {
	return pos >= 0 && pos <= 0x7fffffff && d.b.Contains(uint32(pos))
}
func (d dv32) Cardinality() int64 { return int64(d.b.Cardinality()) }

type dv64 struct{ b *roaring.Bitmap64 }

func (d dv64) IsDeleted(pos int64) bool { return pos >= 0 && d.b.Contains(uint64(pos)) }
func (d dv64) Cardinality() int64       { return int64(d.b.Cardinality()) }

// ReadDeletionVector decodes the deletion vector of one data file from a
// deletion-vector index file, at the offset and length its index manifest
// entry records (manifest.DVRange). The 32-bit form is
// [length BE][magic BE][roaring32][crc32 BE] with length = 4 + bitmap
// bytes (so length+8 bytes in the file); the 64-bit form is
// [length][magic LE][roaring64][crc] and its recorded length covers all.
func ReadDeletionVector(r io.ReaderAt, offset, length int64, fileName string) (DeletionVector, error) {
	if offset < 0 || length < 4 || length > 1<<31 {
		return nil, fmt.Errorf("%w: deletion vector in %s at %d+%d", ErrCorrupt, fileName, offset, length)
	}
	buf := make([]byte, length+8)
	n, err := r.ReadAt(buf, offset)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read deletion vector in %s: %w", fileName, err)
	}
	buf = buf[:n]
	if len(buf) < 8 {
		return nil, fmt.Errorf("%w: deletion vector in %s truncated", ErrCorrupt, fileName)
	}
	size := int64(binary.BigEndian.Uint32(buf))
	switch {
	case binary.BigEndian.Uint32(buf[4:]) == dvMagic32:
		if size != length || int64(len(buf)) < size+8 {
			return nil, fmt.Errorf("%w: deletion vector in %s: length %d, index says %d", ErrCorrupt, fileName, size, length)
		}
		data := buf[4 : 4+size]
		if crc := binary.BigEndian.Uint32(buf[4+size:]); crc != crc32.ChecksumIEEE(data) {
			return nil, fmt.Errorf("%w: deletion vector in %s: checksum mismatch", ErrCorrupt, fileName)
		}
		b, _, err := roaring.Read(data[4:])
		if err != nil {
			return nil, fmt.Errorf("deletion vector in %s: %w", fileName, err)
		}
		return dv32{b}, nil
	case binary.LittleEndian.Uint32(buf[4:]) == dvMagic64:
		end := 4 + size
		if end > int64(len(buf)) || size < 4 {
			return nil, fmt.Errorf("%w: deletion vector in %s: length %d", ErrCorrupt, fileName, size)
		}
		b, err := roaring.Read64(buf[8:end])
		if err != nil {
			return nil, fmt.Errorf("deletion vector in %s: %w", fileName, err)
		}
		return dv64{b}, nil
	}
	return nil, fmt.Errorf("%w: deletion vector in %s: unknown magic number", ErrCorrupt, fileName)
}
