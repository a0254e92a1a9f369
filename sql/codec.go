package sql

// The binary value codec of checkpointed data: operator state (keys and
// snapshots) and the committables sinks store in checkpoints.
//
// It is our own rather than encoding/gob because keys must encode
// deterministically (equal values → equal bytes, so a key's bytes can be a
// map key or a pebble key) and because gob cannot carry the []any values of
// a Row without registering every concrete type.

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/shopspring/decimal"
)

// Value tags. They are part of the checkpoint format: never renumber.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagFloat32
	tagFloat64
	tagDecimal
	tagString
	tagBytes
	tagTimestamp
	tagArray
	tagMap
)

// ErrCorruptEncoding marks bytes that do not decode; it matches ErrCorrupt.
var ErrCorruptEncoding = Corrupt("state: corrupt encoding")

// Encoder appends values to a byte buffer. The zero value is ready to use.
type Encoder struct {
	Buf []byte
}

// Uvarint appends an unsigned varint.
func (e *Encoder) Uvarint(v uint64) { e.Buf = binary.AppendUvarint(e.Buf, v) }

// Varint appends a signed varint.
func (e *Encoder) Varint(v int64) { e.Buf = binary.AppendVarint(e.Buf, v) }

// Bytes appends a length-prefixed byte string.
func (e *Encoder) Bytes(b []byte) {
	e.Uvarint(uint64(len(b)))
	e.Buf = append(e.Buf, b...)
}

// String appends a length-prefixed string.
func (e *Encoder) String(s string) {
	e.Uvarint(uint64(len(s)))
	e.Buf = append(e.Buf, s...)
}

// Row appends a row: its kind, field count and values.
func (e *Encoder) Row(r Row) error {
	e.Buf = append(e.Buf, byte(r.Kind))
	return e.Values(r.Values)
}

// Values appends a count and each value.
func (e *Encoder) Values(vs []any) error {
	e.Uvarint(uint64(len(vs)))
	for _, v := range vs {
		if err := e.Value(v); err != nil {
			return err
		}
	}
	return nil
}

// Value appends one sql value (one of the Go types listed in sql/row.go).
func (e *Encoder) Value(v any) error {
	switch x := v.(type) {
	case nil:
		e.Buf = append(e.Buf, tagNull)
	case bool:
		if x {
			e.Buf = append(e.Buf, tagTrue)
		} else {
			e.Buf = append(e.Buf, tagFalse)
		}
	case int8:
		e.Buf = append(e.Buf, tagInt8, byte(x))
	case int16:
		e.Buf = append(e.Buf, tagInt16)
		e.Varint(int64(x))
	case int32:
		e.Buf = append(e.Buf, tagInt32)
		e.Varint(int64(x))
	case int64:
		e.Buf = append(e.Buf, tagInt64)
		e.Varint(x)
	case float32:
		e.Buf = append(e.Buf, tagFloat32)
		e.Buf = binary.LittleEndian.AppendUint32(e.Buf, math.Float32bits(x))
	case float64:
		e.Buf = append(e.Buf, tagFloat64)
		e.Buf = binary.LittleEndian.AppendUint64(e.Buf, math.Float64bits(x))
	case decimal.Decimal:
		// Coefficient and exponent, so 80.00 and 80.0 stay distinct (scale
		// is part of the value the sink sees).
		e.Buf = append(e.Buf, tagDecimal)
		e.Varint(int64(x.Exponent()))
		e.String(x.Coefficient().String())
	case string:
		e.Buf = append(e.Buf, tagString)
		e.String(x)
	case []byte:
		e.Buf = append(e.Buf, tagBytes)
		e.Bytes(x)
	case TimestampData:
		e.Buf = append(e.Buf, tagTimestamp)
		e.Varint(x.Millis)
		e.Varint(int64(x.NanoOfMilli))
	case []any:
		e.Buf = append(e.Buf, tagArray)
		return e.Values(x)
	case *Map:
		e.Buf = append(e.Buf, tagMap)
		if err := e.Values(x.Keys); err != nil {
			return err
		}
		return e.Values(x.Values)
	default:
		return fmt.Errorf("cannot encode value of type %T", v)
	}
	return nil
}

// Decoder reads what an Encoder wrote.
type Decoder struct {
	Buf []byte
	Off int
}

// Done reports whether every byte was consumed.
func (d *Decoder) Done() bool { return d.Off >= len(d.Buf) }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.Buf[d.Off:])
	if n <= 0 {
		return 0, ErrCorruptEncoding
	}
	d.Off += n
	return v, nil
}

// Varint reads a signed varint.
func (d *Decoder) Varint() (int64, error) {
	v, n := binary.Varint(d.Buf[d.Off:])
	if n <= 0 {
		return 0, ErrCorruptEncoding
	}
	d.Off += n
	return v, nil
}

// Bytes reads a length-prefixed byte string (a copy).
func (d *Decoder) Bytes() ([]byte, error) {
	n, err := d.Uvarint()
	if err != nil {
		return nil, err
	}
	if uint64(len(d.Buf)-d.Off) < n {
		return nil, ErrCorruptEncoding
	}
	b := make([]byte, n)
	copy(b, d.Buf[d.Off:])
	d.Off += int(n)
	return b, nil
}

// String reads a length-prefixed string.
func (d *Decoder) String() (string, error) {
	n, err := d.Uvarint()
	if err != nil {
		return "", err
	}
	if uint64(len(d.Buf)-d.Off) < n {
		return "", ErrCorruptEncoding
	}
	s := string(d.Buf[d.Off : d.Off+int(n)])
	d.Off += int(n)
	return s, nil
}

func (d *Decoder) byte1() (byte, error) {
	if d.Off >= len(d.Buf) {
		return 0, ErrCorruptEncoding
	}
	b := d.Buf[d.Off]
	d.Off++
	return b, nil
}

// Row reads a row.
func (d *Decoder) Row() (Row, error) {
	k, err := d.byte1()
	if err != nil {
		return Row{}, err
	}
	if !RowKind(k).Valid() {
		return Row{}, ErrCorruptEncoding
	}
	vs, err := d.Values()
	return Row{Kind: RowKind(k), Values: vs}, err
}

// Values reads a count and that many values.
func (d *Decoder) Values() ([]any, error) {
	n, err := d.Uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.Buf)-d.Off) { // every value takes at least one byte
		return nil, ErrCorruptEncoding
	}
	vs := make([]any, n)
	for i := range vs {
		if vs[i], err = d.Value(); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// Value reads one value.
func (d *Decoder) Value() (any, error) {
	tag, err := d.byte1()
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagNull:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagInt8:
		b, err := d.byte1()
		return int8(b), err
	case tagInt16:
		v, err := d.Varint()
		return int16(v), err
	case tagInt32:
		v, err := d.Varint()
		return int32(v), err
	case tagInt64:
		return d.Varint()
	case tagFloat32:
		if len(d.Buf)-d.Off < 4 {
			return nil, ErrCorruptEncoding
		}
		v := math.Float32frombits(binary.LittleEndian.Uint32(d.Buf[d.Off:]))
		d.Off += 4
		return v, nil
	case tagFloat64:
		if len(d.Buf)-d.Off < 8 {
			return nil, ErrCorruptEncoding
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.Buf[d.Off:]))
		d.Off += 8
		return v, nil
	case tagDecimal:
		exp, err := d.Varint()
		if err != nil {
			return nil, err
		}
		s, err := d.String()
		if err != nil {
			return nil, err
		}
		c, err := decimal.NewFromString(s)
		if err != nil {
			return nil, ErrCorruptEncoding
		}
		return decimal.NewFromBigInt(c.BigInt(), int32(exp)), nil
	case tagString:
		return d.String()
	case tagBytes:
		return d.Bytes()
	case tagTimestamp:
		ms, err := d.Varint()
		if err != nil {
			return nil, err
		}
		ns, err := d.Varint()
		return TimestampData{Millis: ms, NanoOfMilli: int32(ns)}, err
	case tagArray:
		return d.Values()
	case tagMap:
		ks, err := d.Values()
		if err != nil {
			return nil, err
		}
		vs, err := d.Values()
		if err != nil {
			return nil, err
		}
		if len(ks) != len(vs) {
			return nil, ErrCorruptEncoding
		}
		return &Map{Keys: ks, Values: vs}, nil
	}
	return nil, fmt.Errorf("%w: unknown value tag %d", ErrCorruptEncoding, tag)
}

// Byte reads one byte.
func (d *Decoder) Byte() (byte, error) { return d.byte1() }

// skipN moves past n bytes.
func (d *Decoder) skipN(n uint64) error {
	if uint64(len(d.Buf)-d.Off) < n {
		return ErrCorruptEncoding
	}
	d.Off += int(n)
	return nil
}

// Skip moves past one value without building it (the merge tree's lookup
// index reads only the keys of a block's records).
func (d *Decoder) Skip() error {
	tag, err := d.byte1()
	if err != nil {
		return err
	}
	switch tag {
	case tagNull, tagFalse, tagTrue:
		return nil
	case tagInt8:
		return d.skipN(1)
	case tagInt16, tagInt32, tagInt64:
		_, err := d.Varint()
		return err
	case tagFloat32:
		return d.skipN(4)
	case tagFloat64:
		return d.skipN(8)
	case tagDecimal:
		if _, err := d.Varint(); err != nil {
			return err
		}
		return d.skipBytes()
	case tagString, tagBytes:
		return d.skipBytes()
	case tagTimestamp:
		if _, err := d.Varint(); err != nil {
			return err
		}
		_, err := d.Varint()
		return err
	case tagArray:
		return d.SkipValues()
	case tagMap:
		if err := d.SkipValues(); err != nil {
			return err
		}
		return d.SkipValues()
	}
	return fmt.Errorf("%w: unknown value tag %d", ErrCorruptEncoding, tag)
}

// SkipValues moves past a count and that many values.
func (d *Decoder) SkipValues() error {
	n, err := d.Uvarint()
	if err != nil {
		return err
	}
	if n > uint64(len(d.Buf)-d.Off) {
		return ErrCorruptEncoding
	}
	for ; n > 0; n-- {
		if err := d.Skip(); err != nil {
			return err
		}
	}
	return nil
}

func (d *Decoder) skipBytes() error {
	n, err := d.Uvarint()
	if err != nil {
		return err
	}
	return d.skipN(n)
}

// Key appends v as a key value: equal SQL values give equal bytes. DECIMAL
// keys are normalized (80.0 and 80.00 are one key, as SQL equality says);
// other values are encoded as Value encodes them.
func (e *Encoder) Key(v any) error {
	if d, ok := v.(decimal.Decimal); ok {
		e.Buf = append(e.Buf, tagDecimal)
		e.String(d.String()) // String drops trailing zeros
		return nil
	}
	return e.Value(v)
}
