package format

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// Avro data files ('file.format' = 'avro'): object container files whose
// record schema Paimon's AvroSchemaConverter derives from the table's row
// type: BOOLEAN boolean, TINYINT/SMALLINT/INT int, BIGINT long, FLOAT
// float, DOUBLE double, CHAR/VARCHAR string, BINARY/BYTES bytes, DECIMAL
// bytes or fixed with logicalType decimal, DATE int date, TIME int
// time-millis, TIMESTAMP long timestamp-millis/-micros, TIMESTAMP_LTZ long
// local-timestamp-millis/-micros, ARRAY array, MAP map (string keys) or an
// array of key/value records, ROW record, nullable types a union with
// null. Values are decoded by the writer's schema (from the file header)
// straight into the Paimon type's Go value; a block of records is one
// batch.

type avroFile struct {
	name   string
	r      io.ReaderAt
	codec  string
	schema *avro.RecordSchema
	sync   []byte
	blocks []avroBlock
	rows   int64
}

type avroBlock struct {
	off, size, count int64
}

// maxAvroBlock bounds one block's compressed size (256 MiB).
const maxAvroBlock = 256 << 20

var avroMagic = []byte{'O', 'b', 'j', 1}

func openAvro(r io.ReaderAt, size int64, name string) (*File, error) {
	a, err := scanAvro(r, size)
	if err != nil {
		var ue unsupportedAvro
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("%w: avro data file %s: %v", ErrUnsupportedFormat, name, err)
		}
		return nil, fmt.Errorf("%w %s: avro: %v", ErrCorrupt, name, err)
	}
	a.name = name
	return &File{name: name, alien: a}, nil
}

type unsupportedAvro struct{ msg string }

func (u unsupportedAvro) Error() string { return u.msg }

// avroIn reads varints from a file at increasing offsets.
type avroIn struct {
	r    io.ReaderAt
	off  int64
	size int64
	err  error
}

func (in *avroIn) byte() byte {
	var b [1]byte
	if in.err != nil {
		return 0
	}
	if in.off >= in.size {
		in.err = io.ErrUnexpectedEOF
		return 0
	}
	if _, err := in.r.ReadAt(b[:], in.off); err != nil {
		in.err = err
		return 0
	}
	in.off++
	return b[0]
}

func (in *avroIn) long() int64 {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := in.byte()
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1)
		}
	}
	if in.err == nil {
		in.err = errors.New("varint too long")
	}
	return 0
}

func (in *avroIn) bytes(max int64) []byte {
	n := in.long()
	if in.err != nil {
		return nil
	}
	if n < 0 || n > max || in.off+n > in.size {
		in.err = fmt.Errorf("length %d out of range", n)
		return nil
	}
	b := make([]byte, n)
	if _, err := in.r.ReadAt(b, in.off); err != nil {
		in.err = err
		return nil
	}
	in.off += n
	return b
}

func scanAvro(r io.ReaderAt, size int64) (*avroFile, error) {
	head := make([]byte, 4)
	if size < 4 {
		return nil, errors.New("file too short")
	}
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if !bytes.Equal(head, avroMagic) {
		return nil, errors.New("not an Avro object container file (bad magic)")
	}
	in := &avroIn{r: r, off: 4, size: size}
	meta := map[string][]byte{}
	for in.err == nil {
		n := in.long()
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			in.long()
		}
		if n > 1024 {
			return nil, fmt.Errorf("header has %d metadata entries", n)
		}
		for i := int64(0); i < n && in.err == nil; i++ {
			k := string(in.bytes(1 << 20))
			meta[k] = in.bytes(16 << 20)
		}
	}
	sync := in.bytes16()
	if in.err != nil {
		return nil, fmt.Errorf("header: %w", in.err)
	}
	a := &avroFile{r: r, codec: string(meta["avro.codec"]), sync: sync}
	switch a.codec {
	case "", "null", "deflate", "snappy", "zstandard":
	default:
		return nil, unsupportedAvro{fmt.Sprintf("codec %q (sqlrun reads null, deflate, snappy and zstandard; set 'avro.codec')", a.codec)}
	}
	sc, err := avro.ParseWithCache(string(meta["avro.schema"]), "", &avro.SchemaCache{})
	if err != nil {
		msg := err.Error()
		if len(msg) > 120 {
			msg = msg[:120] + "..."
		}
		return nil, fmt.Errorf("schema is not valid: %q", msg)
	}
	rec, ok := sc.(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("schema is a %s, not a record", sc.Type())
	}
	a.schema = rec
	for in.off < size {
		count := in.long()
		bsize := in.long()
		if in.err != nil {
			return nil, fmt.Errorf("block header: %w", in.err)
		}
		if count < 0 || bsize < 0 || bsize > maxAvroBlock || in.off+bsize+16 > size || count > (bsize+1)*(1<<20) {
			return nil, fmt.Errorf("block at %d: %d records in %d bytes", in.off, count, bsize)
		}
		a.blocks = append(a.blocks, avroBlock{off: in.off, size: bsize, count: count})
		a.rows += count
		in.off += bsize
		s := in.bytes16()
		if in.err != nil {
			return nil, in.err
		}
		if !bytes.Equal(s, sync) {
			return nil, fmt.Errorf("block at %d: sync marker mismatch", in.off)
		}
	}
	return a, nil
}

func (in *avroIn) bytes16() []byte {
	if in.err != nil {
		return nil
	}
	if in.off+16 > in.size {
		in.err = io.ErrUnexpectedEOF
		return nil
	}
	b := make([]byte, 16)
	if _, err := in.r.ReadAt(b, in.off); err != nil {
		in.err = err
		return nil
	}
	in.off += 16
	return b
}

func (a *avroFile) columns() []string {
	out := make([]string, len(a.schema.Fields()))
	for i, f := range a.schema.Fields() {
		out[i] = f.Name()
	}
	return out
}

func (a *avroFile) fieldIDs() []int { return make([]int, len(a.schema.Fields())) }
func (a *avroFile) numRows() int64  { return a.rows }

var avroZstd = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		panic(err)
	}
	return d
})

func (a *avroFile) block(b avroBlock) ([]byte, error) {
	raw := make([]byte, b.size)
	if _, err := a.r.ReadAt(raw, b.off); err != nil {
		return nil, err
	}
	switch a.codec {
	case "", "null":
		return raw, nil
	case "zstandard":
		return avroZstd().DecodeAll(raw, nil)
	case "deflate":
		return io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), 1<<30))
	default: // snappy: block + CRC32 of the uncompressed data
		if len(raw) < 4 {
			return nil, errors.New("snappy block too short")
		}
		if n, err := s2.DecodedLen(raw[:len(raw)-4]); err != nil || n > maxAvroBlock {
			return nil, fmt.Errorf("snappy block of %d bytes: %v", n, err)
		}
		return s2.Decode(nil, raw[:len(raw)-4])
	}
}

func (a *avroFile) open(cols []int, ts []sql.DataType, _ Projection) (func() ([][]any, int, error), error) {
	fields := a.schema.Fields()
	slot := make([]int, len(fields))
	for i := range slot {
		slot[i] = -1
	}
	for j, c := range cols {
		slot[c] = j
	}
	decs := make([]avroFn, len(fields))
	for i, f := range fields {
		var err error
		if slot[i] < 0 {
			decs[i], err = avroDecoder(f.Type(), nil)
		} else {
			decs[i], err = avroDecoder(f.Type(), &ts[slot[i]])
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name(), err)
		}
	}
	next := 0
	return func() ([][]any, int, error) {
		for next < len(a.blocks) {
			b := a.blocks[next]
			next++
			if b.count == 0 {
				continue
			}
			raw, err := a.block(b)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: block %d: %v", ErrCorrupt, next-1, err)
			}
			if b.count > int64(len(raw))+1 {
				// Every record of a Paimon schema takes at least a byte.
				return nil, 0, fmt.Errorf("%w: block %d: %d records in %d bytes", ErrCorrupt, next-1, b.count, len(raw))
			}
			n := int(b.count)
			out := make([][]any, len(cols))
			for j := range out {
				out[j] = make([]any, n)
			}
			d := &avroDec{b: raw}
			for r := 0; r < n; r++ {
				for i, dec := range decs {
					v := dec(d)
					if s := slot[i]; s >= 0 {
						out[s][r] = v
					}
				}
				if d.err != nil {
					return nil, 0, fmt.Errorf("%w: block %d record %d: %v", ErrCorrupt, next-1, r, d.err)
				}
			}
			return out, n, nil
		}
		return nil, 0, nil
	}, nil
}

// avroDec decodes Avro binary values from one block.
type avroDec struct {
	b   []byte
	err error
}

func (d *avroDec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *avroDec) long() int64 {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(d.b) == 0 {
			d.fail(io.ErrUnexpectedEOF)
			return 0
		}
		c := d.b[0]
		d.b = d.b[1:]
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1)
		}
	}
	d.fail(errors.New("varint too long"))
	return 0
}

func (d *avroDec) fixed(n int64) []byte {
	if n < 0 || n > int64(len(d.b)) {
		d.fail(io.ErrUnexpectedEOF)
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *avroDec) bytes() []byte { return d.fixed(d.long()) }

// blockCount reads an array or map block header: the item count, 0 at
// the end (a negative count is followed by the block's byte size).
func (d *avroDec) blockCount() int64 {
	n := d.long()
	if n < 0 {
		n = -n
		d.long()
	}
	if n > int64(len(d.b))+16 {
		d.fail(fmt.Errorf("block of %d items", n))
		return 0
	}
	return n
}

// avroFn decodes one value (nil for null); errors go to d.err.
type avroFn func(d *avroDec) any

// avroDecoder builds the decoder of writer schema s into Paimon type *pt;
// a nil pt only skips the value.
func avroDecoder(s avro.Schema, pt *sql.DataType) (avroFn, error) {
	return avroDecoderAt(s, pt, 0)
}

// maxAvroDepth bounds the nesting of a writer schema (a recursive record
// would otherwise recurse without end).
const maxAvroDepth = 64

func avroDecoderAt(s avro.Schema, pt *sql.DataType, depth int) (avroFn, error) {
	if depth > maxAvroDepth {
		return nil, fmt.Errorf("avro schema nested deeper than %d levels", maxAvroDepth)
	}
	skip := pt == nil
	var t sql.DataType
	if !skip {
		t = *pt
	}
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	bad := fmt.Errorf("avro type %s cannot hold %s", s.Type(), t)
	logical := ""
	switch x := s.(type) {
	case *avro.PrimitiveSchema:
		if l := x.Logical(); l != nil {
			logical = string(l.Type())
		}
	case *avro.FixedSchema:
		if l := x.Logical(); l != nil {
			logical = string(l.Type())
		}
	}
	switch x := s.(type) {
	case *avro.UnionSchema:
		branches := make([]avroFn, len(x.Types()))
		for i, b := range x.Types() {
			if b.Type() == avro.Null {
				continue
			}
			var err error
			if branches[i], err = avroDecoderAt(b, pt, depth+1); err != nil {
				return nil, err
			}
		}
		return func(d *avroDec) any {
			i := d.long()
			if i < 0 || i >= int64(len(branches)) {
				d.fail(fmt.Errorf("union branch %d", i))
				return nil
			}
			if branches[i] == nil {
				return nil
			}
			return branches[i](d)
		}, nil
	case *avro.RecordSchema:
		fs := x.Fields()
		if !skip && (t.Root != sql.TypeRow || len(t.Fields) != len(fs)) {
			return nil, bad
		}
		decs := make([]avroFn, len(fs))
		for i, f := range fs {
			var ft *sql.DataType
			if !skip {
				ft = &t.Fields[i].Type
			}
			var err error
			if decs[i], err = avroDecoderAt(f.Type(), ft, depth+1); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name(), err)
			}
		}
		return func(d *avroDec) any {
			out := make([]any, len(decs))
			for i, dec := range decs {
				out[i] = dec(d)
			}
			if skip {
				return nil
			}
			return out
		}, nil
	case *avro.ArraySchema:
		if !skip && t.Root == sql.TypeMap {
			// MAP with non-string keys: an array of {key, value} records.
			rec, ok := x.Items().(*avro.RecordSchema)
			if !ok || len(rec.Fields()) != 2 {
				return nil, bad
			}
			kd, err := avroDecoderAt(rec.Fields()[0].Type(), t.Elem, depth+1)
			if err != nil {
				return nil, err
			}
			vd, err := avroDecoderAt(rec.Fields()[1].Type(), t.Value, depth+1)
			if err != nil {
				return nil, err
			}
			return func(d *avroDec) any {
				m := &sql.Map{}
				for n := d.blockCount(); n > 0 && d.err == nil; n = d.blockCount() {
					for i := int64(0); i < n && d.err == nil; i++ {
						m.Keys = append(m.Keys, kd(d))
						m.Values = append(m.Values, vd(d))
					}
				}
				return m
			}, nil
		}
		if !skip && t.Root != sql.TypeArray {
			return nil, bad
		}
		var et *sql.DataType
		if !skip {
			et = t.Elem
		}
		ed, err := avroDecoderAt(x.Items(), et, depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *avroDec) any {
			out := []any{}
			for n := d.blockCount(); n > 0 && d.err == nil; n = d.blockCount() {
				for i := int64(0); i < n && d.err == nil; i++ {
					out = append(out, ed(d))
				}
			}
			if skip {
				return nil
			}
			return out
		}, nil
	case *avro.MapSchema:
		if !skip && (t.Root != sql.TypeMap || !t.Elem.IsString()) {
			return nil, bad
		}
		var vt *sql.DataType
		if !skip {
			vt = t.Value
		}
		vd, err := avroDecoderAt(x.Values(), vt, depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *avroDec) any {
			m := &sql.Map{}
			for n := d.blockCount(); n > 0 && d.err == nil; n = d.blockCount() {
				for i := int64(0); i < n && d.err == nil; i++ {
					m.Keys = append(m.Keys, string(d.bytes()))
					m.Values = append(m.Values, vd(d))
				}
			}
			if skip {
				return nil
			}
			return m
		}, nil
	case *avro.FixedSchema:
		size := int64(x.Size())
		if skip {
			return func(d *avroDec) any { d.fixed(size); return nil }, nil
		}
		return avroBytes(func(d *avroDec) []byte { return d.fixed(size) }, logical, t, bad)
	case *avro.EnumSchema:
		if !skip && !t.IsString() {
			return nil, bad
		}
		syms := x.Symbols()
		return func(d *avroDec) any {
			i := d.long()
			if i < 0 || i >= int64(len(syms)) {
				d.fail(fmt.Errorf("enum index %d", i))
				return nil
			}
			return syms[i]
		}, nil
	case *avro.PrimitiveSchema:
		return avroPrimitive(x.Type(), logical, t, skip, bad)
	}
	return nil, fmt.Errorf("avro type %s is not supported", s.Type())
}

func avroBytes(read func(*avroDec) []byte, logical string, t sql.DataType, bad error) (avroFn, error) {
	switch {
	case t.Root == sql.TypeDecimal && logical == string(avro.Decimal):
		exp := -int32(t.Scale)
		return func(d *avroDec) any {
			b := read(d)
			if d.err != nil {
				return nil
			}
			if len(b) <= 8 {
				var v int64
				for _, c := range b {
					v = v<<8 | int64(c)
				}
				if n := len(b); n > 0 && n < 8 && b[0]&0x80 != 0 {
					v -= 1 << (8 * uint(n))
				}
				return decimal.New(v, exp)
			}
			return decimal.NewFromBigInt(fromFixedDecimal(b), exp)
		}, nil
	case t.IsBinary():
		return func(d *avroDec) any { return append([]byte{}, read(d)...) }, nil
	case t.IsString():
		return func(d *avroDec) any { return string(read(d)) }, nil
	}
	return nil, bad
}

func avroPrimitive(k avro.Type, logical string, t sql.DataType, skip bool, bad error) (avroFn, error) {
	switch k {
	case avro.Null:
		return func(*avroDec) any { return nil }, nil
	case avro.Boolean:
		if skip || t.Root == sql.TypeBoolean {
			return func(d *avroDec) any {
				b := d.fixed(1)
				if d.err != nil {
					return nil
				}
				return b[0] != 0
			}, nil
		}
	case avro.Int:
		switch {
		case skip || t.Root == sql.TypeInt || t.Root == sql.TypeDate || t.Root == sql.TypeTime:
			return func(d *avroDec) any { return int32(d.long()) }, nil
		case t.Root == sql.TypeTinyInt:
			return func(d *avroDec) any { return int8(d.long()) }, nil
		case t.Root == sql.TypeSmallInt:
			return func(d *avroDec) any { return int16(d.long()) }, nil
		}
	case avro.Long:
		switch {
		case skip || t.Root == sql.TypeBigInt:
			return func(d *avroDec) any { return d.long() }, nil
		case t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ:
			unit := int64(0)
			switch logical {
			case string(avro.TimestampMillis), string(avro.LocalTimestampMillis):
				unit = 1
			case string(avro.TimestampMicros), string(avro.LocalTimestampMicros):
				unit = 1000
			case "":
				if t.Precision <= 3 {
					unit = 1
				} else if t.Precision <= 6 {
					unit = 1000
				}
			}
			if unit == 0 {
				return nil, fmt.Errorf("%w (logical type %q)", bad, logical)
			}
			return func(d *avroDec) any {
				v := d.long()
				if unit == 1 {
					return sql.TimestampData{Millis: v}
				}
				ms := floorDiv(v, unit)
				return sql.TimestampData{Millis: ms, NanoOfMilli: int32(v-ms*unit) * int32(1e6/unit)}
			}, nil
		}
	case avro.Float:
		if skip || t.Root == sql.TypeFloat {
			return func(d *avroDec) any {
				b := d.fixed(4)
				if d.err != nil {
					return nil
				}
				return math.Float32frombits(binary.LittleEndian.Uint32(b))
			}, nil
		}
	case avro.Double:
		if skip || t.Root == sql.TypeDouble {
			return func(d *avroDec) any {
				b := d.fixed(8)
				if d.err != nil {
					return nil
				}
				return math.Float64frombits(binary.LittleEndian.Uint64(b))
			}, nil
		}
	case avro.String:
		if skip || t.IsString() {
			return func(d *avroDec) any { return string(d.bytes()) }, nil
		}
	case avro.Bytes:
		if skip {
			return func(d *avroDec) any { d.bytes(); return nil }, nil
		}
		return avroBytes((*avroDec).bytes, logical, t, bad)
	}
	return nil, bad
}
