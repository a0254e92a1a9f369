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
			off = boxString(&out[i], arena, off, v)
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

// DecodePackedCompact is DecodeCompact of the BinaryRow whose packed form
// is p (AppendPacked), read from the packed bytes without unpacking them
// when every field is a STRING, CHAR, VARCHAR, INT, DATE, TIME, BIGINT or
// DOUBLE; a row with other types is unpacked into scratch first. It
// returns scratch, grown, for the next call.
func DecodePackedCompact(out []any, types []sql.DataType, p, scratch []byte) ([]byte, error) {
	for _, t := range types {
		switch t.Root {
		case sql.TypeChar, sql.TypeVarChar, sql.TypeInt, sql.TypeDate, sql.TypeTime, sql.TypeBigInt, sql.TypeDouble:
			continue
		}
		var err error
		if scratch, err = AppendUnpacked(scratch[:0], types, p); err != nil {
			return scratch, err
		}
		return scratch, DecodeCompact(out, types, scratch)
	}
	arity := len(types)
	nn := (arity + 7) / 8
	if len(p) < nn {
		return scratch, fmt.Errorf("%w: packed row of %d bytes, %d fields", ErrCorrupt, len(p), arity)
	}
	const hdr = int(unsafe.Sizeof(""))
	size := 0
	pos := nn
	for i, t := range types {
		if p[i>>3]&(1<<(i&7)) != 0 {
			continue
		}
		n, err := PackedFieldSize(t, p[pos:])
		if err != nil {
			return scratch, fmt.Errorf("binrow: packed field %d: %w", i, err)
		}
		pos += n
		if t.Root == sql.TypeChar || t.Root == sql.TypeVarChar {
			size += hdr + (n+7)&^7 // at most the string's length: headers stay word aligned
		} else {
			size += 8
		}
	}
	if pos != len(p) {
		return scratch, fmt.Errorf("%w: packed row of %d bytes, fields end at %d", ErrCorrupt, len(p), pos)
	}
	var arena []byte
	if size > 0 {
		arena = make([]byte, size)
	}
	off := 0
	pos = nn
	for i, t := range types {
		if p[i>>3]&(1<<(i&7)) != 0 {
			out[i] = nil
			continue
		}
		switch t.Root {
		case sql.TypeChar, sql.TypeVarChar:
			l, k := binary.Uvarint(p[pos:]) // checked above
			v := p[pos+k : pos+k+int(l)]
			pos += k + int(l)
			off = boxString(&out[i], arena, off, v)
		case sql.TypeInt, sql.TypeDate, sql.TypeTime:
			x := (*int32)(unsafe.Pointer(&arena[off]))
			*x = int32(binary.LittleEndian.Uint32(p[pos:]))
			box.Set(&out[i], typInt32, unsafe.Pointer(x))
			pos += 4
			off += 8
		case sql.TypeBigInt:
			x := (*int64)(unsafe.Pointer(&arena[off]))
			*x = int64(binary.LittleEndian.Uint64(p[pos:]))
			box.Set(&out[i], typInt64, unsafe.Pointer(x))
			pos += 8
			off += 8
		case sql.TypeDouble:
			x := (*uint64)(unsafe.Pointer(&arena[off]))
			*x = binary.LittleEndian.Uint64(p[pos:])
			box.Set(&out[i], typFloat64, unsafe.Pointer(x))
			pos += 8
			off += 8
		}
	}
	return scratch, nil
}

// boxString copies v into arena at off behind a string header, boxes that
// string into *dst, and returns the offset after it (word aligned).
func boxString(dst *any, arena []byte, off int, v []byte) int {
	const hdr = int(unsafe.Sizeof(""))
	h := (*string)(unsafe.Pointer(&arena[off]))
	if len(v) > 0 {
		data := arena[off+hdr : off+hdr+len(v)]
		copy(data, v)
		*h = unsafe.String(&data[0], len(v))
	}
	box.Set(dst, typString, unsafe.Pointer(h))
	return off + hdr + (len(v)+7)&^7
}
