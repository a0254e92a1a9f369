package binrow

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

var (
	typString  = box.TypeOf("")
	typInt32   = box.TypeOf(int32(0))
	typInt64   = box.TypeOf(int64(0))
	typFloat64 = box.TypeOf(float64(0))
)

// DecodeCompact decodes BinaryRow bytes into out (len(out) == len(types))
// as DecodeInto does, with the values of its STRING, CHAR, VARCHAR, INT,
// DATE, TIME, BIGINT and DOUBLE fields in one new allocation (package
// internal/box) instead of one or two each: a row of 20 strings is two
// allocations where DecodeInto makes 41. The values share no memory with
// b, which may be reused as soon as DecodeCompact returns; a value kept
// keeps the row's allocation alive (a few hundred bytes), not b.
func DecodeCompact(out []any, types []sql.DataType, b []byte) error {
	arity := len(types)
	nb := NullBitsSize(arity)
	if len(b) < nb+8*arity {
		return fmt.Errorf("%w: %d bytes, fixed part of %d fields needs %d", ErrCorrupt, len(b), arity, nb+8*arity)
	}
	const hdr = int(unsafe.Sizeof(""))
	size := 0
	for i, t := range types {
		if IsNullAt(b, i) {
			continue
		}
		switch t.Root {
		case sql.TypeChar, sql.TypeVarChar:
			v, err := varBytes(b, nb+8*i)
			if err != nil {
				return fmt.Errorf("field %d (%s): %w", i, t, err)
			}
			size += hdr + (len(v)+7)&^7 // headers stay word aligned
		case sql.TypeInt, sql.TypeDate, sql.TypeTime, sql.TypeBigInt, sql.TypeDouble:
			size += 8
		}
	}
	var arena []byte
	if size > 0 {
		arena = make([]byte, size)
	}
	off := 0
	for i, t := range types {
		if IsNullAt(b, i) {
			out[i] = nil
			continue
		}
		slot := nb + 8*i
		switch t.Root {
		case sql.TypeChar, sql.TypeVarChar:
			v, _ := varBytes(b, slot) // checked above
			h := (*string)(unsafe.Pointer(&arena[off]))
			if len(v) > 0 {
				data := arena[off+hdr : off+hdr+len(v)]
				copy(data, v)
				*h = unsafe.String(&data[0], len(v))
			}
			box.Set(&out[i], typString, unsafe.Pointer(h))
			off += hdr + (len(v)+7)&^7
		case sql.TypeInt, sql.TypeDate, sql.TypeTime:
			p := (*int32)(unsafe.Pointer(&arena[off]))
			*p = int32(binary.LittleEndian.Uint32(b[slot:]))
			box.Set(&out[i], typInt32, unsafe.Pointer(p))
			off += 8
		case sql.TypeBigInt:
			p := (*int64)(unsafe.Pointer(&arena[off]))
			*p = int64(binary.LittleEndian.Uint64(b[slot:]))
			box.Set(&out[i], typInt64, unsafe.Pointer(p))
			off += 8
		case sql.TypeDouble:
			p := (*uint64)(unsafe.Pointer(&arena[off]))
			*p = binary.LittleEndian.Uint64(b[slot:])
			box.Set(&out[i], typFloat64, unsafe.Pointer(p))
			off += 8
		default:
			v, err := decodeField(b, slot, t)
			if err != nil {
				return fmt.Errorf("field %d (%s): %w", i, t, err)
			}
			out[i] = v
		}
	}
	return nil
}
