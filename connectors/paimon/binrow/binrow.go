// Package binrow encodes and decodes Paimon's BinaryRow, the byte layout Java
// uses for partitions, min/max keys and statistics inside manifests, and for
// bucket hashing. Java compares and hashes these rows by their raw bytes, so
// the encoder is canonical: every unused byte is zero and the layout follows
// BinaryRowWriter exactly (see paimon-format.md §5).
//
// Layout (little-endian):
//
//	[null bits: ((arity+63+8)/64)*8 bytes; byte 0 = RowKind header]
//	[one 8-byte slot per field]
//	[variable part, each entry padded to a multiple of 8 bytes]
//
// Field i is null iff bit (i+8)&7 of byte (i+8)>>3 is set. Values of at most
// 8 bytes live in their slot; strings and binaries of at most 7 bytes are
// inlined in the slot with byte 7 = 0x80|len; longer ones, DECIMAL with
// precision > 18, TIMESTAMP with precision > 3 and nested rows go to the
// variable part with slot = offset<<32 | size (for timestamps the low word is
// the nano-of-millisecond instead).
//
// Manifests store a row "serialized": a 4-byte big-endian arity in front of
// the BinaryRow bytes (Serialize / Deserialize). Hashing uses the bare bytes.
//
// Values use the Go types of sql/row.go (INT int32, DECIMAL decimal.Decimal,
// TIMESTAMP sql.TimestampData, ...).
package binrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// ErrCorrupt marks bytes that are not a valid BinaryRow for the given types.
var ErrCorrupt = sql.Corrupt("corrupt BinaryRow") // matches sql.ErrCorrupt

// NullBitsSize is the size of the null-bit region (header included) of a row
// with the given arity.
func NullBitsSize(arity int) int { return ((arity + 63 + 8) / 64) * 8 }

// IsCompactDecimal reports whether a DECIMAL of this precision is stored in
// its 8-byte slot as an unscaled long.
func IsCompactDecimal(precision int) bool { return precision <= 18 }

// IsCompactTimestamp reports whether a TIMESTAMP of this precision is stored
// in its slot as epoch milliseconds.
func IsCompactTimestamp(precision int) bool { return precision <= 3 }

// Encode returns the BinaryRow bytes (no arity prefix) of vals typed by types.
func Encode(types []sql.DataType, vals []any) ([]byte, error) {
	return AppendEncode(nil, types, vals)
}

// AppendEncode appends the BinaryRow bytes of vals to dst; hot paths reuse
// dst to avoid allocation.
func AppendEncode(dst []byte, types []sql.DataType, vals []any) ([]byte, error) {
	if len(types) != len(vals) {
		return dst, fmt.Errorf("binrow: %d values for %d types", len(vals), len(types))
	}
	base := len(dst)
	arity := len(types)
	nb := NullBitsSize(arity)
	fixed := nb + 8*arity
	dst = append(dst, make([]byte, fixed)...)
	for i, t := range types {
		slot := base + nb + 8*i
		v := vals[i]
		if v == nil {
			dst[base+((i+8)>>3)] |= 1 << ((i + 8) & 7)
			// Non-compact decimals and timestamps reserve their var-part bytes
			// even when null (BinaryRowWriter does), and the slot keeps the
			// offset, so that a later in-place update could fill them.
			switch {
			case t.Root == sql.TypeDecimal && !IsCompactDecimal(t.Precision):
				off := len(dst) - base
				dst = append(dst, make([]byte, 16)...)
				binary.LittleEndian.PutUint64(dst[slot:], uint64(off)<<32)
			case (t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ) && !IsCompactTimestamp(t.Precision):
				off := len(dst) - base
				dst = append(dst, make([]byte, 8)...)
				binary.LittleEndian.PutUint64(dst[slot:], uint64(off)<<32)
			}
			continue
		}
		var err error
		dst, err = encodeField(dst, base, slot, t, v)
		if err != nil {
			return dst[:base], fmt.Errorf("binrow: field %d (%s): %w", i, t, err)
		}
	}
	return dst, nil
}

func typeErr(v any) error { return fmt.Errorf("unexpected Go value %T", v) }

func putSlot(dst []byte, slot int, u uint64) { binary.LittleEndian.PutUint64(dst[slot:], u) }

// appendVar appends b to the var part padded to 8 bytes and returns the
// offset (relative to the row start).
func appendVar(dst []byte, base int, b []byte) ([]byte, int) {
	off := len(dst) - base
	dst = append(dst, b...)
	if pad := (8 - len(b)%8) % 8; pad > 0 {
		dst = append(dst, make([]byte, pad)...)
	}
	return dst, off
}

func encodeBytes(dst []byte, base, slot int, b []byte) []byte {
	if len(b) <= 7 {
		copy(dst[slot:], b)
		dst[slot+7] = 0x80 | byte(len(b))
		return dst
	}
	dst, off := appendVar(dst, base, b)
	putSlot(dst, slot, uint64(off)<<32|uint64(len(b)))
	return dst
}

func encodeField(dst []byte, base, slot int, t sql.DataType, v any) ([]byte, error) {
	switch t.Root {
	case sql.TypeBoolean:
		x, ok := v.(bool)
		if !ok {
			return dst, typeErr(v)
		}
		if x {
			dst[slot] = 1
		}
	case sql.TypeTinyInt:
		x, ok := v.(int8)
		if !ok {
			return dst, typeErr(v)
		}
		dst[slot] = byte(x)
	case sql.TypeSmallInt:
		x, ok := v.(int16)
		if !ok {
			return dst, typeErr(v)
		}
		binary.LittleEndian.PutUint16(dst[slot:], uint16(x))
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		x, ok := v.(int32)
		if !ok {
			return dst, typeErr(v)
		}
		binary.LittleEndian.PutUint32(dst[slot:], uint32(x))
	case sql.TypeBigInt:
		x, ok := v.(int64)
		if !ok {
			return dst, typeErr(v)
		}
		putSlot(dst, slot, uint64(x))
	case sql.TypeFloat:
		x, ok := v.(float32)
		if !ok {
			return dst, typeErr(v)
		}
		binary.LittleEndian.PutUint32(dst[slot:], math.Float32bits(x))
	case sql.TypeDouble:
		x, ok := v.(float64)
		if !ok {
			return dst, typeErr(v)
		}
		putSlot(dst, slot, math.Float64bits(x))
	case sql.TypeChar, sql.TypeVarChar:
		x, ok := v.(string)
		if !ok {
			return dst, typeErr(v)
		}
		if len(x) <= 7 {
			copy(dst[slot:], x)
			dst[slot+7] = 0x80 | byte(len(x))
			return dst, nil
		}
		off := len(dst) - base
		dst = append(dst, x...)
		if pad := (8 - len(x)%8) % 8; pad > 0 {
			dst = append(dst, make([]byte, pad)...)
		}
		putSlot(dst, slot, uint64(off)<<32|uint64(len(x)))
	case sql.TypeBinary, sql.TypeVarBinary:
		x, ok := v.([]byte)
		if !ok {
			return dst, typeErr(v)
		}
		dst = encodeBytes(dst, base, slot, x)
	case sql.TypeDecimal:
		x, ok := v.(decimal.Decimal)
		if !ok {
			return dst, typeErr(v)
		}
		unscaled := Unscaled(x, t.Scale)
		if IsCompactDecimal(t.Precision) {
			if !unscaled.IsInt64() {
				return dst, fmt.Errorf("decimal %s overflows precision %d", x, t.Precision)
			}
			putSlot(dst, slot, uint64(unscaled.Int64()))
			return dst, nil
		}
		b := twosComplement(unscaled)
		if len(b) > 16 {
			return dst, fmt.Errorf("decimal %s needs %d bytes (max 16)", x, len(b))
		}
		off := len(dst) - base
		dst = append(dst, make([]byte, 16)...)
		copy(dst[base+off:], b)
		putSlot(dst, slot, uint64(off)<<32|uint64(len(b)))
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		x, ok := v.(sql.TimestampData)
		if !ok {
			return dst, typeErr(v)
		}
		if IsCompactTimestamp(t.Precision) {
			putSlot(dst, slot, uint64(x.Millis))
			return dst, nil
		}
		off := len(dst) - base
		dst = binary.LittleEndian.AppendUint64(dst, uint64(x.Millis))
		putSlot(dst, slot, uint64(off)<<32|uint64(uint32(x.NanoOfMilli)))
	case sql.TypeRow:
		x, ok := v.([]any)
		if !ok {
			return dst, typeErr(v)
		}
		ft := make([]sql.DataType, len(t.Fields))
		for i, f := range t.Fields {
			ft[i] = f.Type
		}
		nested, err := Encode(ft, x)
		if err != nil {
			return dst, err
		}
		var off int
		dst, off = appendVar(dst, base, nested)
		putSlot(dst, slot, uint64(off)<<32|uint64(len(nested)))
	case sql.TypeArray:
		x, ok := v.([]any)
		if !ok {
			return dst, typeErr(v)
		}
		arr, err := EncodeArray(*t.Elem, x)
		if err != nil {
			return dst, err
		}
		var off int
		dst, off = appendVar(dst, base, arr)
		putSlot(dst, slot, uint64(off)<<32|uint64(len(arr)))
	case sql.TypeMap:
		x, ok := v.(*sql.Map)
		if !ok {
			return dst, typeErr(v)
		}
		m, err := EncodeMap(*t.Elem, *t.Value, x)
		if err != nil {
			return dst, err
		}
		var off int
		dst, off = appendVar(dst, base, m)
		putSlot(dst, slot, uint64(off)<<32|uint64(len(m)))
	default:
		return dst, fmt.Errorf("type %s is not supported in BinaryRow yet", t)
	}
	return dst, nil
}

// ElementSize is BinaryArray's fixed slot width for an element type.
func ElementSize(t sql.DataType) int {
	switch t.Root {
	case sql.TypeBoolean, sql.TypeTinyInt:
		return 1
	case sql.TypeSmallInt:
		return 2
	case sql.TypeInt, sql.TypeFloat, sql.TypeDate, sql.TypeTime:
		return 4
	}
	return 8
}

// arrayHeader is the size of numElements + null bits of a BinaryArray.
func arrayHeader(n int) int { return 4 + ((n+31)/32)*4 }

// EncodeArray returns BinaryArray bytes: 4-byte element count, null bits
// (one per element, in 4-byte words), fixed-width element slots rounded up
// to 8 bytes, then the variable part (same encodings as BinaryRow, offsets
// from the array start).
func EncodeArray(elem sql.DataType, vals []any) ([]byte, error) {
	n := len(vals)
	size := ElementSize(elem)
	hdr := arrayHeader(n)
	fixed := (hdr + size*n + 7) &^ 7
	dst := make([]byte, fixed)
	binary.LittleEndian.PutUint32(dst, uint32(n))
	for i, v := range vals {
		slot := hdr + size*i
		if v == nil {
			dst[4+i>>3] |= 1 << (i & 7)
			switch {
			case elem.Root == sql.TypeDecimal && !IsCompactDecimal(elem.Precision):
				off := len(dst)
				dst = append(dst, make([]byte, 16)...)
				putSlot(dst, slot, uint64(off)<<32)
			case (elem.Root == sql.TypeTimestamp || elem.Root == sql.TypeTimestampLTZ) && !IsCompactTimestamp(elem.Precision):
				off := len(dst)
				dst = append(dst, make([]byte, 8)...)
				putSlot(dst, slot, uint64(off)<<32)
			}
			continue
		}
		var err error
		if dst, err = encodeField(dst, 0, slot, elem, v); err != nil {
			return nil, fmt.Errorf("array element %d: %w", i, err)
		}
	}
	return dst, nil
}

// EncodeMap returns BinaryMap bytes: 4-byte size of the key array, the key
// BinaryArray, then the value BinaryArray.
func EncodeMap(key, value sql.DataType, m *sql.Map) ([]byte, error) {
	if len(m.Keys) != len(m.Values) {
		return nil, fmt.Errorf("map has %d keys and %d values", len(m.Keys), len(m.Values))
	}
	k, err := EncodeArray(key, m.Keys)
	if err != nil {
		return nil, fmt.Errorf("map keys: %w", err)
	}
	v, err := EncodeArray(value, m.Values)
	if err != nil {
		return nil, fmt.Errorf("map values: %w", err)
	}
	out := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(k)+len(v)), uint32(len(k)))
	return append(append(out, k...), v...), nil
}

// DecodeArray decodes BinaryArray bytes.
func DecodeArray(elem sql.DataType, b []byte) ([]any, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: array of %d bytes", ErrCorrupt, len(b))
	}
	n := int(int32(binary.LittleEndian.Uint32(b)))
	size := ElementSize(elem)
	if n < 0 || n > len(b) || arrayHeader(n)+size*n > len(b) {
		return nil, fmt.Errorf("%w: array of %d elements in %d bytes", ErrCorrupt, n, len(b))
	}
	hdr := arrayHeader(n)
	out := make([]any, n)
	for i := range out {
		if b[4+i>>3]&(1<<(i&7)) != 0 {
			continue
		}
		v, err := decodeField(b, hdr+size*i, elem)
		if err != nil {
			return nil, fmt.Errorf("array element %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// DecodeMap decodes BinaryMap bytes.
func DecodeMap(key, value sql.DataType, b []byte) (*sql.Map, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: map of %d bytes", ErrCorrupt, len(b))
	}
	kn := int(int32(binary.LittleEndian.Uint32(b)))
	if kn < 0 || kn > len(b)-4 {
		return nil, fmt.Errorf("%w: map key array of %d bytes in %d", ErrCorrupt, kn, len(b))
	}
	keys, err := DecodeArray(key, b[4:4+kn])
	if err != nil {
		return nil, fmt.Errorf("map keys: %w", err)
	}
	vals, err := DecodeArray(value, b[4+kn:])
	if err != nil {
		return nil, fmt.Errorf("map values: %w", err)
	}
	if len(keys) != len(vals) {
		return nil, fmt.Errorf("%w: map with %d keys and %d values", ErrCorrupt, len(keys), len(vals))
	}
	return &sql.Map{Keys: keys, Values: vals}, nil
}

// Unscaled returns d's unscaled value at the given scale (d·10^scale,
// rounded half-up as Java's BigDecimal.setScale(HALF_UP) would).
func Unscaled(d decimal.Decimal, scale int) *big.Int {
	return d.Round(int32(scale)).Shift(int32(scale)).BigInt()
}

// twosComplement returns Java's BigInteger.toByteArray(): the minimal
// big-endian two's complement bytes.
func twosComplement(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x-1 in magnitude, bits inverted.
	m := new(big.Int).Neg(x)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

func fromTwosComplement(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// Serialize returns the manifest form: 4-byte big-endian arity + BinaryRow.
func Serialize(types []sql.DataType, vals []any) ([]byte, error) {
	dst := binary.BigEndian.AppendUint32(make([]byte, 0, 4+NullBitsSize(len(types))+8*len(types)), uint32(len(types)))
	return AppendEncode(dst, types, vals)
}

// EmptyRow is the serialized row of arity 0: the _PARTITION of an
// unpartitioned table and the _MIN_KEY/_MAX_KEY of append files.
func EmptyRow() []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} }

// SerializedArity returns the arity prefix of a serialized row.
func SerializedArity(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, fmt.Errorf("%w: %d bytes, no arity prefix", ErrCorrupt, len(b))
	}
	a := int32(binary.BigEndian.Uint32(b))
	if a < 0 {
		return 0, fmt.Errorf("%w: negative arity %d", ErrCorrupt, a)
	}
	return int(a), nil
}

// Deserialize decodes a serialized row (arity prefix + BinaryRow). The arity
// must equal len(types).
func Deserialize(types []sql.DataType, b []byte) ([]any, error) {
	a, err := SerializedArity(b)
	if err != nil {
		return nil, err
	}
	if a != len(types) {
		return nil, fmt.Errorf("%w: arity %d, expected %d fields", ErrCorrupt, a, len(types))
	}
	return Decode(types, b[4:])
}

// Decode decodes BinaryRow bytes (no arity prefix). It never panics on
// garbage: every offset is bounds-checked and reported as ErrCorrupt.
func Decode(types []sql.DataType, b []byte) ([]any, error) {
	out := make([]any, len(types))
	if err := DecodeInto(out, types, b); err != nil {
		return nil, err
	}
	return out, nil
}

// IsNullAt reports whether field i of the BinaryRow bytes is null.
func IsNullAt(b []byte, i int) bool {
	idx := (i + 8) >> 3
	return idx < len(b) && b[idx]&(1<<((i+8)&7)) != 0
}

// DecodeInto decodes into out (len(out) == len(types)).
func DecodeInto(out []any, types []sql.DataType, b []byte) error {
	arity := len(types)
	nb := NullBitsSize(arity)
	if len(b) < nb+8*arity {
		return fmt.Errorf("%w: %d bytes, fixed part of %d fields needs %d", ErrCorrupt, len(b), arity, nb+8*arity)
	}
	for i, t := range types {
		if IsNullAt(b, i) {
			out[i] = nil
			continue
		}
		slot := nb + 8*i
		v, err := decodeField(b, slot, t)
		if err != nil {
			return fmt.Errorf("field %d (%s): %w", i, t, err)
		}
		out[i] = v
	}
	return nil
}

// DecodeField decodes field i of BinaryRow bytes of arity fields, nil
// when it is null.
func DecodeField(b []byte, arity, i int, t sql.DataType) (any, error) {
	nb := NullBitsSize(arity)
	if i < 0 || i >= arity || len(b) < nb+8*arity {
		return nil, fmt.Errorf("%w: field %d of %d in %d bytes", ErrCorrupt, i, arity, len(b))
	}
	if IsNullAt(b, i) {
		return nil, nil
	}
	v, err := decodeField(b, nb+8*i, t)
	if err != nil {
		return nil, fmt.Errorf("field %d (%s): %w", i, t, err)
	}
	return v, nil
}

func varBytes(b []byte, slot int) ([]byte, error) {
	s := binary.LittleEndian.Uint64(b[slot:])
	if s&(1<<63) != 0 { // inline
		n := int(b[slot+7] & 0x7f)
		if n > 7 {
			return nil, fmt.Errorf("%w: inline length %d", ErrCorrupt, n)
		}
		return b[slot : slot+n], nil
	}
	off, n := int(s>>32), int(uint32(s))
	if off < 0 || n < 0 || off+n > len(b) || off+n < off {
		return nil, fmt.Errorf("%w: var part [%d,+%d) outside %d bytes", ErrCorrupt, off, n, len(b))
	}
	return b[off : off+n], nil
}

func decodeField(b []byte, slot int, t sql.DataType) (any, error) {
	// Array elements may be narrower than 8 bytes and end the buffer.
	var tmp [8]byte
	copy(tmp[:], b[slot:])
	s := tmp[:]
	switch t.Root {
	case sql.TypeBoolean:
		return s[0] != 0, nil
	case sql.TypeTinyInt:
		return int8(s[0]), nil
	case sql.TypeSmallInt:
		return int16(binary.LittleEndian.Uint16(s)), nil
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		return int32(binary.LittleEndian.Uint32(s)), nil
	case sql.TypeBigInt:
		return int64(binary.LittleEndian.Uint64(s)), nil
	case sql.TypeFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(s)), nil
	case sql.TypeDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(s)), nil
	case sql.TypeChar, sql.TypeVarChar:
		v, err := varBytes(b, slot)
		if err != nil {
			return nil, err
		}
		return string(v), nil
	case sql.TypeBinary, sql.TypeVarBinary:
		v, err := varBytes(b, slot)
		if err != nil {
			return nil, err
		}
		return append([]byte{}, v...), nil
	case sql.TypeDecimal:
		if IsCompactDecimal(t.Precision) {
			return decimal.New(int64(binary.LittleEndian.Uint64(s)), -int32(t.Scale)), nil
		}
		v, err := varBytes(b, slot)
		if err != nil {
			return nil, err
		}
		if len(v) > 16 {
			return nil, fmt.Errorf("%w: decimal of %d bytes", ErrCorrupt, len(v))
		}
		return decimal.NewFromBigInt(fromTwosComplement(v), -int32(t.Scale)), nil
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		u := binary.LittleEndian.Uint64(s)
		if IsCompactTimestamp(t.Precision) {
			return sql.TimestampData{Millis: int64(u)}, nil
		}
		off, nanos := int(u>>32), int32(uint32(u))
		if off < 0 || off+8 > len(b) {
			return nil, fmt.Errorf("%w: timestamp offset %d outside %d bytes", ErrCorrupt, off, len(b))
		}
		if nanos < 0 || nanos > 999_999 {
			return nil, fmt.Errorf("%w: nano-of-millisecond %d", ErrCorrupt, nanos)
		}
		return sql.TimestampData{Millis: int64(binary.LittleEndian.Uint64(b[off:])), NanoOfMilli: nanos}, nil
	case sql.TypeRow:
		v, err := varBytes(b, slot)
		if err != nil {
			return nil, err
		}
		ft := make([]sql.DataType, len(t.Fields))
		for i, f := range t.Fields {
			ft[i] = f.Type
		}
		return Decode(ft, v)
	case sql.TypeArray:
		v, err := varBytes(b, slot)
		if err != nil {
			return nil, err
		}
		return DecodeArray(*t.Elem, v)
	case sql.TypeMap:
		v, err := varBytes(b, slot)
		if err != nil {
			return nil, err
		}
		return DecodeMap(*t.Elem, *t.Value, v)
	}
	return nil, fmt.Errorf("type %s is not supported in BinaryRow yet", t)
}

// UnscaledBytes is BigDecimal.unscaledValue().toByteArray() of d at the
// given scale (Paimon's Decimal.toUnscaledBytes): the minimal big-endian
// two's complement bytes, what Avro's decimal logical type stores.
func UnscaledBytes(d decimal.Decimal, scale int) []byte {
	return twosComplement(Unscaled(d, scale))
}
