package mergetree

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// The record codec serializes a KV for local files the merge tree owns (the
// disk lookup index). It is private to this machine and version: nothing
// else reads it, so it favours simplicity over Paimon compatibility. Each
// value carries a tag byte, so one codec serves every schema.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagFloat32
	tagFloat64
	tagString
	tagBytes
	tagDecimal
	tagTimestamp
	tagList
	tagMap
)

func appendRecord(b []byte, r *KV) ([]byte, error) {
	var err error
	b = binary.AppendUvarint(b, uint64(len(r.Key)))
	for _, v := range r.Key {
		if b, err = appendValue(b, v); err != nil {
			return nil, err
		}
	}
	b = binary.AppendVarint(b, r.Seq)
	b = append(b, byte(r.Kind))
	b = binary.AppendUvarint(b, uint64(len(r.Value)))
	for _, v := range r.Value {
		if b, err = appendValue(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int8:
		return binary.AppendVarint(append(b, tagInt8), int64(x)), nil
	case int16:
		return binary.AppendVarint(append(b, tagInt16), int64(x)), nil
	case int32:
		return binary.AppendVarint(append(b, tagInt32), int64(x)), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt64), x), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(b, tagFloat32), math.Float32bits(x)), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat64), math.Float64bits(x)), nil
	case string:
		b = binary.AppendUvarint(append(b, tagString), uint64(len(x)))
		return append(b, x...), nil
	case []byte:
		b = binary.AppendUvarint(append(b, tagBytes), uint64(len(x)))
		return append(b, x...), nil
	case decimal.Decimal:
		// Coefficient and exponent, so the scale (80.00) survives.
		b = binary.AppendVarint(append(b, tagDecimal), int64(x.Exponent()))
		c := x.Coefficient()
		sign := byte(0)
		if c.Sign() < 0 {
			sign = 1
		}
		mag := c.Bytes()
		b = append(b, sign)
		b = binary.AppendUvarint(b, uint64(len(mag)))
		return append(b, mag...), nil
	case sql.TimestampData:
		b = binary.AppendVarint(append(b, tagTimestamp), x.Millis)
		return binary.AppendVarint(b, int64(x.NanoOfMilli)), nil
	case []any:
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		var err error
		for _, e := range x {
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *sql.Map:
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(x.Keys)))
		var err error
		for i := range x.Keys {
			if b, err = appendValue(b, x.Keys[i]); err != nil {
				return nil, err
			}
			if b, err = appendValue(b, x.Values[i]); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("mergetree: cannot encode value of type %T", v)
}

// decoder reads records back; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("mergetree: corrupt lookup record (%s)", what)
	}
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("uvarint")
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if uint64(len(d.b)) < n {
		d.fail("length")
		d.b = nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) record() *KV {
	r := &KV{}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("key arity")
		return nil
	}
	r.Key = make([]any, n)
	for i := range r.Key {
		r.Key[i] = d.value()
	}
	r.Seq = d.varint()
	k := d.bytes(1)
	if len(k) == 1 {
		r.Kind = sql.RowKind(k[0])
	}
	n = d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("value arity")
		return nil
	}
	r.Value = make([]any, n)
	for i := range r.Value {
		r.Value[i] = d.value()
	}
	if d.err != nil {
		return nil
	}
	return r
}

func (d *decoder) value() any {
	t := d.bytes(1)
	if len(t) == 0 {
		return nil
	}
	switch t[0] {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt8:
		return int8(d.varint())
	case tagInt16:
		return int16(d.varint())
	case tagInt32:
		return int32(d.varint())
	case tagInt64:
		return d.varint()
	case tagFloat32:
		if b := d.bytes(4); len(b) == 4 {
			return math.Float32frombits(binary.LittleEndian.Uint32(b))
		}
		return nil
	case tagFloat64:
		if b := d.bytes(8); len(b) == 8 {
			return math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
		return nil
	case tagString:
		return string(d.bytes(d.uvarint()))
	case tagBytes:
		return append([]byte(nil), d.bytes(d.uvarint())...)
	case tagDecimal:
		exp := int32(d.varint())
		sign := d.bytes(1)
		mag := d.bytes(d.uvarint())
		c := new(big.Int).SetBytes(mag)
		if len(sign) == 1 && sign[0] == 1 {
			c.Neg(c)
		}
		return decimal.NewFromBigInt(c, exp)
	case tagTimestamp:
		ms := d.varint()
		return sql.TimestampData{Millis: ms, NanoOfMilli: int32(d.varint())}
	case tagList:
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			d.fail("list length")
			return nil
		}
		out := make([]any, n)
		for i := range out {
			out[i] = d.value()
		}
		return out
	case tagMap:
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			d.fail("map length")
			return nil
		}
		m := &sql.Map{Keys: make([]any, n), Values: make([]any, n)}
		for i := range m.Keys {
			m.Keys[i] = d.value()
			m.Values[i] = d.value()
		}
		return m
	}
	d.fail(fmt.Sprintf("tag %d", t[0]))
	return nil
}

// skipValue moves past one value without building it.
func (d *decoder) skipValue() {
	t := d.bytes(1)
	if len(t) == 0 {
		return
	}
	switch t[0] {
	case tagNil, tagFalse, tagTrue:
	case tagInt8, tagInt16, tagInt32, tagInt64:
		d.varint()
	case tagFloat32:
		d.bytes(4)
	case tagFloat64:
		d.bytes(8)
	case tagString, tagBytes:
		d.bytes(d.uvarint())
	case tagDecimal:
		d.varint()
		d.bytes(1)
		d.bytes(d.uvarint())
	case tagTimestamp:
		d.varint()
		d.varint()
	case tagList:
		n := d.uvarint()
		for i := uint64(0); i < n && d.err == nil; i++ {
			d.skipValue()
		}
	case tagMap:
		n := d.uvarint()
		for i := uint64(0); i < 2*n && d.err == nil; i++ {
			d.skipValue()
		}
	default:
		d.fail(fmt.Sprintf("tag %d", t[0]))
	}
}

// skipRecord moves past one record.
func (d *decoder) skipRecord() {
	n := d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		d.skipValue()
	}
	d.varint()
	d.bytes(1)
	n = d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		d.skipValue()
	}
}

// key decodes only the key of the record at the decoder's position.
func (d *decoder) key() []any {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("key arity")
		return nil
	}
	k := make([]any, n)
	for i := range k {
		k[i] = d.value()
	}
	return k
}
