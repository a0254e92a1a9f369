package format

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/sqlrun/sqlrun/sql"
)

// Blob files (".blob", Paimon 1.3+ BlobFileFormat) hold the values of one
// BLOB column of a data-evolution table, row after row, in the layout
// BlobFormatWriter writes (BlobFileMeta and BlobFormatReader read it):
//
//	per non-null value:  magic (int32 LE 1481511375) | the value's bytes |
//	                     bin length (int64 LE: 4 + len + 8 + 4) | CRC-32 of all before it (int32 LE)
//	index:               each row's bin length (-1 for NULL), delta- and
//	                     zigzag-varint encoded (DeltaVarintCompressor)
//	trailer:             index length (int32 LE) | version (1 byte, 1)
//
// The file records neither its column's name nor its type: the column is
// the data file's one _WRITE_COLS entry (the table layer passes it as the
// projection's only file field), and its values are BYTES, as Flink reads
// a BLOB (DataTypeToLogicalType.visit(BlobType) = VARBINARY(MAX)).

const (
	blobMagic   = 1481511375 // BlobFormatWriter.MAGIC_NUMBER
	blobVersion = 1

	// blobBatchBytes bounds the bytes one batch of blob values holds.
	blobBatchBytes = 8 << 20
)

type blobFile struct {
	name    string
	r       io.ReaderAt
	offsets []int64 // -1: NULL
	lengths []int64 // bin lengths; -1: NULL
}

func openBlob(r io.ReaderAt, size int64, name string) (*File, error) {
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: blob file: %s", ErrCorrupt, name, fmt.Sprintf(format, args...))
	}
	if size < 5 {
		return nil, corrupt("%d bytes is too short for its trailer", size)
	}
	var trailer [5]byte
	if _, err := r.ReadAt(trailer[:], size-5); err != nil {
		return nil, fmt.Errorf("read blob file %s: %w", name, err)
	}
	if v := trailer[4]; v != blobVersion {
		return nil, fmt.Errorf("%w: blob file %s has version %d; sqlrun reads version %d (BlobFormatWriter)", ErrUnsupportedFormat, name, v, blobVersion)
	}
	n := int64(int32(binary.LittleEndian.Uint32(trailer[:4])))
	if n < 0 || n > size-5 {
		return nil, corrupt("index length %d outside the file's %d bytes", n, size)
	}
	index := make([]byte, n)
	if _, err := r.ReadAt(index, size-5-n); err != nil {
		return nil, fmt.Errorf("read blob file %s: %w", name, err)
	}
	lengths, err := decodeDeltaVarints(index)
	if err != nil {
		return nil, corrupt("index: %v", err)
	}
	b := &blobFile{name: name, r: r, lengths: lengths, offsets: make([]int64, len(lengths))}
	var off int64
	for i, l := range lengths {
		switch {
		case l == -1:
			b.offsets[i] = -1
		case l < 16 || off+l > size-5-n:
			return nil, corrupt("row %d: bin length %d at offset %d does not fit in the data section", i, l, off)
		default:
			b.offsets[i] = off
			off += l
		}
	}
	return &File{name: name, alien: b}, nil
}

// decodeDeltaVarints is DeltaVarintCompressor.decompress: zigzag varints,
// each the difference from the previous value.
func decodeDeltaVarints(b []byte) ([]int64, error) {
	var out []int64
	var prev int64
	for len(b) > 0 {
		v, k := binary.Varint(b) // Go's Varint is zigzag over 64 bits, as encodeVarint
		if k <= 0 {
			return nil, fmt.Errorf("bad varint at index byte %d", len(b))
		}
		b = b[k:]
		if len(out) > 0 {
			v += prev
		}
		out = append(out, v)
		prev = v
	}
	return out, nil
}

func (b *blobFile) columns() []string { return []string{""} }
func (b *blobFile) fieldIDs() []int   { return []int{0} }
func (b *blobFile) numRows() int64    { return int64(len(b.lengths)) }

func (b *blobFile) open(cols []int, ts []sql.DataType, _ Projection) (func() ([][]any, int, error), error) {
	for i, c := range cols {
		if c != 0 || ts[i].Root != sql.TypeVarBinary {
			return nil, fmt.Errorf("a blob file holds one BYTES column, not column %d of type %s", c, ts[i])
		}
	}
	row := 0
	return func() ([][]any, int, error) {
		var vals []any
		var bytes int64
		for ; row < len(b.lengths) && bytes < blobBatchBytes; row++ {
			v, err := b.value(row)
			if err != nil {
				return nil, 0, err
			}
			vals = append(vals, v)
			bytes += max(b.lengths[row], 0)
		}
		batch := make([][]any, len(cols))
		for i := range batch {
			batch[i] = vals
		}
		return batch, len(vals), nil
	}, nil
}

// value reads row i's bytes (nil for NULL), checking the magic, the bin
// length written after the bytes and the CRC-32 (BlobFormatWriter).
func (b *blobFile) value(i int) (any, error) {
	off, l := b.offsets[i], b.lengths[i]
	if off < 0 {
		return nil, nil
	}
	buf := make([]byte, l)
	if _, err := b.r.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("row %d: %w", i, err)
	}
	data := buf[4 : l-12]
	switch {
	case binary.LittleEndian.Uint32(buf) != blobMagic:
		return nil, fmt.Errorf("%w %s: blob file: row %d at offset %d has no blob magic number", ErrCorrupt, b.name, i, off)
	case int64(binary.LittleEndian.Uint64(buf[l-12:])) != l:
		return nil, fmt.Errorf("%w %s: blob file: row %d: the stored length differs from the index's %d", ErrCorrupt, b.name, i, l)
	case binary.LittleEndian.Uint32(buf[l-4:]) != crc32.ChecksumIEEE(buf[:l-4]):
		return nil, fmt.Errorf("%w %s: blob file: row %d: CRC-32 mismatch", ErrCorrupt, b.name, i)
	}
	return data, nil
}
