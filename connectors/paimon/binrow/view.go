package binrow

import (
	"encoding/binary"
	"fmt"
)

// The accessors below read one field of a BinaryRow in place, as Paimon's
// BinaryRow.getInt/getLong/getString do, for writers that copy a record's
// fields straight from its serialized form (a write buffer's flush into a
// Parquet file) instead of decoding it into values first. The caller has
// checked the row's size with CheckFixed and that the field is not null.

// CheckFixed reports an error when b is too short for the fixed part of a
// row of arity fields.
func CheckFixed(b []byte, arity int) error {
	if nb := NullBitsSize(arity); len(b) < nb+8*arity {
		return fmt.Errorf("%w: %d bytes, fixed part of %d fields needs %d", ErrCorrupt, len(b), arity, nb+8*arity)
	}
	return nil
}

// Int32At is the INT, DATE or TIME field i of a row of arity fields.
func Int32At(b []byte, arity, i int) int32 {
	return int32(binary.LittleEndian.Uint32(b[NullBitsSize(arity)+8*i:]))
}

// Int64At is the BIGINT field i of a row of arity fields.
func Int64At(b []byte, arity, i int) int64 {
	return int64(binary.LittleEndian.Uint64(b[NullBitsSize(arity)+8*i:]))
}

// BytesAt is the bytes of the CHAR, VARCHAR, BINARY or VARBINARY field i
// of a row of arity fields (inline in its slot up to 7 bytes, else in the
// variable part). The slice points into b.
func BytesAt(b []byte, arity, i int) ([]byte, error) {
	v, err := varBytes(b, NullBitsSize(arity)+8*i)
	if err != nil {
		return nil, fmt.Errorf("field %d: %w", i, err)
	}
	return v, nil
}
