package binrow

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sqlrun/sqlrun/sql"
)

// The packed form of a BinaryRow is how a write buffer keeps a record in
// memory: the same values without what AppendEncode's layout adds around
// them, so a record of 20 short strings takes 227 bytes instead of 496.
// AppendUnpacked turns it back into exactly the BinaryRow AppendEncode
// writes for the same values (byte for byte: slots, inline strings,
// 8-byte padding, the var-part bytes a null non-compact DECIMAL or
// TIMESTAMP reserves), so what leaves the buffer is unchanged. It is a
// process-local form: only files that do not outlive the process hold it
// (a write buffer's spilled runs, mergetree.DiskSpiller).
//
// Layout: a null bit per field ((arity+7)/8 bytes, bit i of byte i/8),
// then each non-null field in order:
//   - BOOLEAN, TINYINT: 1 byte; SMALLINT: 2; INT, DATE, TIME, FLOAT: 4;
//     BIGINT, DOUBLE, compact DECIMAL and TIMESTAMP: 8 (the slot's bytes);
//   - CHAR, VARCHAR, BINARY, VARBINARY, ROW, ARRAY, MAP: the length as a
//     uvarint, then the bytes (for nested types their binary form);
//   - DECIMAL(p > 18): the length in one byte, then the unscaled bytes;
//   - TIMESTAMP(p > 3): the epoch milliseconds (8 bytes), then the
//     nanoseconds of the millisecond (4 bytes).

// AppendPacked appends the packed form of the BinaryRow AppendEncode
// would append for vals.
func AppendPacked(dst []byte, types []sql.DataType, vals []any) ([]byte, error) {
	if len(types) != len(vals) {
		return dst, fmt.Errorf("binrow: %d values for %d types", len(vals), len(types))
	}
	base := len(dst)
	dst = append(dst, make([]byte, (len(types)+7)/8)...)
	for i, t := range types {
		v := vals[i]
		if v == nil {
			dst[base+i>>3] |= 1 << (i & 7)
			continue
		}
		var err error
		switch t.Root {
		case sql.TypeChar, sql.TypeVarChar:
			if x, ok := v.(string); ok {
				dst = binary.AppendUvarint(dst, uint64(len(x)))
				dst = append(dst, x...)
			} else {
				err = typeErr(v)
			}
		case sql.TypeInt, sql.TypeDate, sql.TypeTime:
			if x, ok := v.(int32); ok {
				dst = binary.LittleEndian.AppendUint32(dst, uint32(x))
			} else {
				err = typeErr(v)
			}
		case sql.TypeBigInt:
			if x, ok := v.(int64); ok {
				dst = binary.LittleEndian.AppendUint64(dst, uint64(x))
			} else {
				err = typeErr(v)
			}
		case sql.TypeDouble:
			if x, ok := v.(float64); ok {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
			} else {
				err = typeErr(v)
			}
		case sql.TypeFloat:
			if x, ok := v.(float32); ok {
				dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
			} else {
				err = typeErr(v)
			}
		case sql.TypeBoolean:
			if x, ok := v.(bool); !ok {
				err = typeErr(v)
			} else if x {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		case sql.TypeTinyInt:
			if x, ok := v.(int8); ok {
				dst = append(dst, byte(x))
			} else {
				err = typeErr(v)
			}
		case sql.TypeSmallInt:
			if x, ok := v.(int16); ok {
				dst = binary.LittleEndian.AppendUint16(dst, uint16(x))
			} else {
				err = typeErr(v)
			}
		case sql.TypeTimestamp, sql.TypeTimestampLTZ:
			if x, ok := v.(sql.TimestampData); !ok {
				err = typeErr(v)
			} else if dst = binary.LittleEndian.AppendUint64(dst, uint64(x.Millis)); !IsCompactTimestamp(t.Precision) {
				dst = binary.LittleEndian.AppendUint32(dst, uint32(x.NanoOfMilli))
			}
		default:
			// The other types through the BinaryRow encoder: the field as
			// the one field of a row (its slot at 0, its var part after).
			var row []byte
			if row, err = encodeField(make([]byte, 8, 32), 0, 0, t, v); err == nil {
				dst, err = packField(dst, t, row, 0)
			}
		}
		if err != nil {
			return dst[:base], fmt.Errorf("binrow: field %d (%s): %w", i, t, err)
		}
	}
	return dst, nil
}

// packField appends the packed form of the non-null field of type t whose
// slot is at row[slot:].
func packField(dst []byte, t sql.DataType, row []byte, slot int) ([]byte, error) {
	if slot+8 > len(row) {
		return dst, fmt.Errorf("%w: slot at %d outside %d bytes", ErrCorrupt, slot, len(row))
	}
	s := binary.LittleEndian.Uint64(row[slot:])
	switch t.Root {
	case sql.TypeBoolean, sql.TypeTinyInt:
		return append(dst, row[slot]), nil
	case sql.TypeSmallInt:
		return append(dst, row[slot:slot+2]...), nil
	case sql.TypeInt, sql.TypeDate, sql.TypeTime, sql.TypeFloat:
		return append(dst, row[slot:slot+4]...), nil
	case sql.TypeBigInt, sql.TypeDouble:
		return append(dst, row[slot:slot+8]...), nil
	case sql.TypeChar, sql.TypeVarChar, sql.TypeBinary, sql.TypeVarBinary:
		b, err := varBytes(row, slot)
		if err != nil {
			return dst, err
		}
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		return append(dst, b...), nil
	case sql.TypeDecimal:
		if IsCompactDecimal(t.Precision) {
			return append(dst, row[slot:slot+8]...), nil
		}
		off, n := int(s>>32), int(uint32(s))
		if n > 16 || off+n > len(row) {
			return dst, fmt.Errorf("%w: decimal bytes [%d,+%d) in %d bytes", ErrCorrupt, off, n, len(row))
		}
		dst = append(dst, byte(n))
		return append(dst, row[off:off+n]...), nil
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		if IsCompactTimestamp(t.Precision) {
			return append(dst, row[slot:slot+8]...), nil
		}
		off := int(s >> 32)
		if off+8 > len(row) {
			return dst, fmt.Errorf("%w: timestamp millis at %d in %d bytes", ErrCorrupt, off, len(row))
		}
		dst = append(dst, row[off:off+8]...)
		return binary.LittleEndian.AppendUint32(dst, uint32(s)), nil
	case sql.TypeRow, sql.TypeArray, sql.TypeMap:
		off, n := int(s>>32), int(uint32(s))
		if off+n > len(row) {
			return dst, fmt.Errorf("%w: var part [%d,+%d) outside %d bytes", ErrCorrupt, off, n, len(row))
		}
		dst = binary.AppendUvarint(dst, uint64(n))
		return append(dst, row[off:off+n]...), nil
	}
	return dst, fmt.Errorf("type %s is not supported in BinaryRow yet", t)
}

// fixedPackedSize is the packed size of a field stored in its slot, 0 for
// the others.
func fixedPackedSize(t sql.DataType) int {
	switch t.Root {
	case sql.TypeBoolean, sql.TypeTinyInt:
		return 1
	case sql.TypeSmallInt:
		return 2
	case sql.TypeInt, sql.TypeDate, sql.TypeTime, sql.TypeFloat:
		return 4
	case sql.TypeBigInt, sql.TypeDouble:
		return 8
	case sql.TypeDecimal:
		if IsCompactDecimal(t.Precision) {
			return 8
		}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		if IsCompactTimestamp(t.Precision) {
			return 8
		}
	}
	return 0
}

// AppendUnpacked appends the BinaryRow whose packed form is p (see
// AppendPacked): the bytes AppendEncode appends for the same values.
func AppendUnpacked(dst []byte, types []sql.DataType, p []byte) ([]byte, error) {
	arity := len(types)
	nn := (arity + 7) / 8
	if len(p) < nn {
		return dst, fmt.Errorf("%w: packed row of %d bytes, %d fields", ErrCorrupt, len(p), arity)
	}
	base := len(dst)
	nb := NullBitsSize(arity)
	dst = append(dst, make([]byte, nb+8*arity)...)
	pos := nn
	// varLen reads a uvarint length and checks the bytes are there.
	varLen := func() (int, bool) {
		n, k := binary.Uvarint(p[pos:])
		if k <= 0 || n > uint64(len(p)-pos-k) {
			return 0, false
		}
		pos += k
		return int(n), true
	}
	for i, t := range types {
		slot := base + nb + 8*i
		if p[i>>3]&(1<<(i&7)) != 0 {
			dst[base+((i+8)>>3)] |= 1 << ((i + 8) & 7)
			// The var-part bytes a null non-compact field reserves (as
			// AppendEncode does).
			switch {
			case t.Root == sql.TypeDecimal && !IsCompactDecimal(t.Precision):
				off := len(dst) - base
				dst = append(dst, make([]byte, 16)...)
				putSlot(dst, slot, uint64(off)<<32)
			case (t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ) && !IsCompactTimestamp(t.Precision):
				off := len(dst) - base
				dst = append(dst, make([]byte, 8)...)
				putSlot(dst, slot, uint64(off)<<32)
			}
			continue
		}
		if n := fixedPackedSize(t); n > 0 {
			if pos+n > len(p) {
				return dst[:base], fmt.Errorf("%w: packed field %d past %d bytes", ErrCorrupt, i, len(p))
			}
			copy(dst[slot:slot+n], p[pos:pos+n])
			pos += n
			continue
		}
		switch t.Root {
		case sql.TypeChar, sql.TypeVarChar, sql.TypeBinary, sql.TypeVarBinary:
			n, ok := varLen()
			if !ok {
				return dst[:base], fmt.Errorf("%w: packed field %d length", ErrCorrupt, i)
			}
			b := p[pos : pos+n]
			pos += n
			if n <= 7 {
				copy(dst[slot:], b)
				dst[slot+7] = 0x80 | byte(n)
				continue
			}
			var off int
			dst, off = appendVar(dst, base, b)
			putSlot(dst, slot, uint64(off)<<32|uint64(n))
		case sql.TypeDecimal: // non-compact
			if pos >= len(p) || int(p[pos]) > 16 || pos+1+int(p[pos]) > len(p) {
				return dst[:base], fmt.Errorf("%w: packed decimal field %d", ErrCorrupt, i)
			}
			n := int(p[pos])
			off := len(dst) - base
			dst = append(dst, make([]byte, 16)...)
			copy(dst[base+off:], p[pos+1:pos+1+n])
			pos += 1 + n
			putSlot(dst, slot, uint64(off)<<32|uint64(n))
		case sql.TypeTimestamp, sql.TypeTimestampLTZ: // non-compact
			if pos+12 > len(p) {
				return dst[:base], fmt.Errorf("%w: packed timestamp field %d", ErrCorrupt, i)
			}
			off := len(dst) - base
			dst = append(dst, p[pos:pos+8]...)
			putSlot(dst, slot, uint64(off)<<32|uint64(binary.LittleEndian.Uint32(p[pos+8:])))
			pos += 12
		case sql.TypeRow, sql.TypeArray, sql.TypeMap:
			n, ok := varLen()
			if !ok {
				return dst[:base], fmt.Errorf("%w: packed field %d length", ErrCorrupt, i)
			}
			var off int
			dst, off = appendVar(dst, base, p[pos:pos+n])
			pos += n
			putSlot(dst, slot, uint64(off)<<32|uint64(n))
		default:
			return dst[:base], fmt.Errorf("binrow: field %d: type %s is not supported in BinaryRow yet", i, t)
		}
	}
	if pos != len(p) {
		return dst[:base], fmt.Errorf("%w: packed row of %d bytes, fields end at %d", ErrCorrupt, len(p), pos)
	}
	return dst, nil
}

// PackedFieldOffsets sets offs[i], for each i < len(offs), to where field
// i's packed bytes start in the packed row p (see AppendPacked), or -1 if
// the field is null: a walk over the fields before the last one asked
// for, without unpacking the row.
func PackedFieldOffsets(types []sql.DataType, p []byte, offs []int) error {
	if len(offs) > len(types) {
		return fmt.Errorf("binrow: %d field offsets asked of %d fields", len(offs), len(types))
	}
	nn := (len(types) + 7) / 8
	if len(p) < nn {
		return fmt.Errorf("%w: packed row of %d bytes, %d fields", ErrCorrupt, len(p), len(types))
	}
	pos := nn
	for i := range offs {
		if p[i>>3]&(1<<(i&7)) != 0 {
			offs[i] = -1
			continue
		}
		offs[i] = pos
		n, err := PackedFieldSize(types[i], p[pos:])
		if err != nil {
			return fmt.Errorf("binrow: packed field %d: %w", i, err)
		}
		pos += n
	}
	return nil
}

// PackedFieldSize is the size of the packed non-null field of type t at
// the start of p, length prefix included.
func PackedFieldSize(t sql.DataType, p []byte) (int, error) {
	n := fixedPackedSize(t)
	switch {
	case n > 0:
	case t.Root == sql.TypeDecimal: // non-compact
		if len(p) == 0 {
			return 0, fmt.Errorf("%w: packed decimal past the row", ErrCorrupt)
		}
		n = 1 + int(p[0])
	case t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ: // non-compact
		n = 12
	default: // the length as a uvarint, then the bytes
		l, k := binary.Uvarint(p)
		if k <= 0 || l > uint64(len(p)-k) {
			return 0, fmt.Errorf("%w: packed field length", ErrCorrupt)
		}
		n = k + int(l)
	}
	if n > len(p) {
		return 0, fmt.Errorf("%w: packed field of %d bytes past the row's %d", ErrCorrupt, n, len(p))
	}
	return n, nil
}
