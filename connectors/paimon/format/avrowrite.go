package format

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/klauspost/compress/s2"
	kzstd "github.com/klauspost/compress/zstd"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// Avro KeyValue data files as Paimon's postpone bucket writer writes them
// (PostponeBucketFileStoreWrite: 'file.format' = 'avro' and
// 'metadata.stats-mode' = 'none' whenever AvroSchemaConverter accepts the
// table's row type; PostponeBucketWriter appends the records in arrival
// order, unsorted and unmerged). The record schema is
// AvroSchemaConverter.convertToSchema of KeyValue.schema(key, value): the
// _KEY_ fields, _SEQUENCE_NUMBER, _VALUE_KIND and the value fields, record
// "org.apache.paimon.avro.generated.record", nullable types a union with
// null first and default null. Records are encoded as AvroRowDatumWriter
// encodes them and framed as Java Avro's DataFileWriter frames them
// (blocks flushed past 64000 bytes, its default sync interval), with the
// codec AvroFileFormat picks: 'avro.codec' if set, else zstandard at
// 'file.compression.zstd-level' for 'file.compression' = 'zstd', else the
// compression's Avro codec name.

// avroSyncInterval is DataFileConstants.DEFAULT_SYNC_INTERVAL.
const avroSyncInterval = 64000

// AvroCodec is AvroFileFormat.createCodecFactory: the Avro codec a data
// file gets from 'avro.codec' (when set) or 'file.compression'.
func AvroCodec(avroCodec, compression string) (string, error) {
	c := avroCodec
	if c == "" {
		c = strings.ToLower(compression)
		if c == "zstd" || c == "" { // '' is the default, zstd
			c = "zstandard"
		}
	}
	switch c {
	case "null", "deflate", "snappy", "zstandard":
		return c, nil
	}
	return "", fmt.Errorf("%w: Avro codec %q (from 'avro.codec' / 'file.compression'): sqlrun writes Avro data files with null, deflate, snappy or zstandard", ErrUnsupportedFormat, c)
}

// AvroSchemaOf is the Avro schema text of a KeyValue file with these key
// and value fields, as Java Avro's Schema.toString prints
// AvroSchemaConverter.convertToSchema. Types AvroSchemaConverter rejects
// (TIME precision > 3, TIMESTAMP precision > 6) are refused naming the
// field.
func AvroSchemaOf(keys, values []schema.Field) (string, error) {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[`)
	for i, c := range KeyValueColumns(keys, values) {
		t, err := avroTypeJSON(c.Type, "record_"+c.Name)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", c.Name, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(c.Name)
		fmt.Fprintf(&b, `{"name":%s,"type":%s`, name, t)
		if c.Type.Nullable {
			b.WriteString(`,"default":null`)
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return b.String(), nil
}

// avroTypeJSON is convertToSchema of t. rowName is the record name a ROW
// (or a MAP with non-string keys) gets: the enclosing record's name, "_"
// and the field's name (the element's of an ARRAY and the value's of a
// string-keyed MAP are their container's; a key/value record's key and
// value add "_key" and "_value"); every name is in the top record's
// namespace, which Schema.toString leaves out.
func avroTypeJSON(t sql.DataType, rowName string) (string, error) {
	var s string
	quote := func(n string) string { q, _ := json.Marshal(n); return string(q) }
	switch t.Root {
	case sql.TypeBoolean:
		s = `"boolean"`
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt:
		s = `"int"`
	case sql.TypeBigInt:
		s = `"long"`
	case sql.TypeFloat:
		s = `"float"`
	case sql.TypeDouble:
		s = `"double"`
	case sql.TypeChar, sql.TypeVarChar:
		s = `"string"`
	case sql.TypeBinary, sql.TypeVarBinary:
		s = `"bytes"`
	case sql.TypeDate:
		s = `{"type":"int","logicalType":"date"}`
	case sql.TypeTime:
		if t.Precision > 3 {
			return "", fmt.Errorf("Avro does not support TIME type with precision: %d, it only supports precision less than 3.", t.Precision)
		}
		s = `{"type":"int","logicalType":"time-millis"}`
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		unit := "millis"
		switch {
		case t.Precision > 6:
			return "", fmt.Errorf("Avro does not support TIMESTAMP type with precision: %d, it only supports precision less than 6.", t.Precision)
		case t.Precision > 3:
			unit = "micros"
		}
		lt := "timestamp-"
		if t.Root == sql.TypeTimestampLTZ {
			lt = "local-timestamp-"
		}
		s = `{"type":"long","logicalType":"` + lt + unit + `"}`
	case sql.TypeDecimal:
		s = fmt.Sprintf(`{"type":"bytes","logicalType":"decimal","precision":%d,"scale":%d}`, t.Precision, t.Scale)
	case sql.TypeRow:
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"record","name":%s,"fields":[`, quote(rowName))
		for i, f := range t.Fields {
			ft, err := avroTypeJSON(f.Type, rowName+"_"+f.Name)
			if err != nil {
				return "", fmt.Errorf("field %s: %w", f.Name, err)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":%s,"type":%s`, quote(f.Name), ft)
			if f.Type.Nullable {
				b.WriteString(`,"default":null`)
			}
			b.WriteByte('}')
		}
		b.WriteString("]}")
		s = b.String()
	case sql.TypeArray:
		et, err := avroTypeJSON(*t.Elem, rowName)
		if err != nil {
			return "", err
		}
		s = `{"type":"array","items":` + et + `}`
	case sql.TypeMap:
		if k := t.Elem.Root; k == sql.TypeVarChar || k == sql.TypeChar {
			vt, err := avroTypeJSON(*t.Value, rowName)
			if err != nil {
				return "", err
			}
			s = `{"type":"map","values":` + vt + `}`
			break
		}
		// isArrayMap: an array of key/value records, logical type "map".
		kt, err := avroTypeJSON(*t.Elem, rowName+"_key")
		if err != nil {
			return "", err
		}
		vt, err := avroTypeJSON(*t.Value, rowName+"_value")
		if err != nil {
			return "", err
		}
		def := ""
		if t.Value.Nullable {
			def = `,"default":null`
		}
		s = fmt.Sprintf(`{"type":"array","items":{"type":"record","name":%s,"fields":[{"name":"key","type":%s},{"name":"value","type":%s%s}]},"logicalType":"map"}`,
			quote(rowName), kt, vt, def)
	default:
		return "", fmt.Errorf("%w: sqlrun does not write %s columns in Avro data files", ErrUnsupportedFormat, t)
	}
	if t.Nullable {
		s = `["null",` + s + `]`
	}
	return s, nil
}

// AvroKVWriter writes a KeyValue file in Avro, records in the order given
// (keys may repeat and need not ascend), with the manifest statistics
// Paimon's writer records under 'metadata.stats-mode' = 'none'
// (KeyValueDataFileWriter with NoneSimpleColStatsCollector for every
// column): min key the first key written, max key the last, key stats
// all null (SimpleStatsConverter.toBinaryAllMode of SimpleColStats.NONE),
// no value stats (toBinaryDenseMode: _VALUE_STATS_COLS = []).
type AvroKVWriter struct {
	AvroKVEncoder
	out         io.Writer
	written     int64
	codec       string
	zenc        *kzstd.Encoder
	sync        [16]byte
	block       []byte
	count       int
	rows        int64
	first, last []any
	// firstBin, lastBin: the first and last key as BinaryRow, when the
	// records came encoded (WriteEncoded).
	firstBin, lastBin []byte
	minSeq, maxSeq    int64
	del               int64
	err               error
}

// AvroKVEncoder encodes KeyValue records as AvroKVWriter writes them into
// its blocks (AvroRowDatumWriter), for a writer that buffers encoded
// records before it writes a file (PostponeBucketWriter's
// BufferedSinkWriter).
type AvroKVEncoder struct {
	enc      []func(b []byte, v any) ([]byte, error)
	keyTypes []sql.DataType
	nk, nv   int
}

// NewAvroKVEncoder returns the encoder of the KeyValue records of keys and
// values.
func NewAvroKVEncoder(keys, values []schema.Field) (*AvroKVEncoder, error) {
	if _, err := AvroSchemaOf(keys, values); err != nil {
		return nil, err
	}
	e := &AvroKVEncoder{keyTypes: FieldTypes(keys), nk: len(keys), nv: len(values)}
	for _, c := range KeyValueColumns(keys, values) {
		e.enc = append(e.enc, avroEncoder(c.Type))
	}
	return e, nil
}

// KeyTypes are the key fields' types.
func (e *AvroKVEncoder) KeyTypes() []sql.DataType { return e.keyTypes }

// Append appends r's Avro record to b; on an error b is returned as it was.
func (e *AvroKVEncoder) Append(b []byte, r *kv.KeyValue) ([]byte, error) {
	if len(r.Key) != e.nk || len(r.Value) != e.nv {
		return b, fmt.Errorf("KeyValue has %d key and %d value fields, file has %d and %d", len(r.Key), len(r.Value), e.nk, e.nv)
	}
	start := len(b)
	var err error
	col := 0
	for i, k := range r.Key {
		if b, err = e.enc[col](b, k); err != nil {
			return b[:start], fmt.Errorf("key field %d: %w", i, err)
		}
		col++
	}
	b = binary.AppendVarint(b, r.Seq)
	b = binary.AppendVarint(b, int64(r.Kind))
	col += 2
	for i, v := range r.Value {
		if b, err = e.enc[col](b, v); err != nil {
			return b[:start], fmt.Errorf("value field %d: %w", i, err)
		}
		col++
	}
	return b, nil
}

// NewAvroKVWriter writes the file header to w.
func NewAvroKVWriter(w io.Writer, keys, values []schema.Field, codec string, zstdLevel int) (*AvroKVWriter, error) {
	sch, err := AvroSchemaOf(keys, values)
	if err != nil {
		return nil, err
	}
	e, err := NewAvroKVEncoder(keys, values)
	if err != nil {
		return nil, err
	}
	a := &AvroKVWriter{AvroKVEncoder: *e, out: w, codec: codec}
	if codec == "zstandard" {
		if zstdLevel <= 0 {
			zstdLevel = 1
		}
		if a.zenc, err = kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.EncoderLevelFromZstd(zstdLevel)), kzstd.WithEncoderConcurrency(1)); err != nil {
			return nil, err
		}
	}
	_, _ = rand.Read(a.sync[:])
	h := append([]byte{}, avroMagic...)
	h = binary.AppendVarint(h, 2)
	h = avroAppendBytes(h, []byte("avro.schema"))
	h = avroAppendBytes(h, []byte(sch))
	h = avroAppendBytes(h, []byte("avro.codec"))
	h = avroAppendBytes(h, []byte(codec))
	h = binary.AppendVarint(h, 0)
	h = append(h, a.sync[:]...)
	a.emit(h)
	return a, a.err
}

func avroAppendBytes(b, v []byte) []byte {
	b = binary.AppendVarint(b, int64(len(v)))
	return append(b, v...)
}

func (a *AvroKVWriter) emit(b []byte) {
	if a.err != nil {
		return
	}
	n, err := a.out.Write(b)
	a.written += int64(n)
	if err != nil {
		a.err = err
	}
}

// Write appends one KeyValue.
func (a *AvroKVWriter) Write(r *kv.KeyValue) error {
	if a.err != nil {
		return a.err
	}
	b, err := a.Append(a.block, r)
	a.block = b
	if err != nil {
		return err
	}
	if a.first == nil {
		a.first = append([]any(nil), r.Key...)
	}
	a.last = append(a.last[:0], r.Key...)
	return a.added(r.Seq, r.Kind)
}

// WriteEncoded appends one record Append encoded, whose key is key as a
// BinaryRow; the records of a file come all through Write or all through
// WriteEncoded.
func (a *AvroKVWriter) WriteEncoded(rec, key []byte, seq int64, kind sql.RowKind) error {
	if a.err != nil {
		return a.err
	}
	a.block = append(a.block, rec...)
	if a.firstBin == nil {
		a.firstBin = append([]byte(nil), key...)
	}
	a.lastBin = append(a.lastBin[:0], key...)
	return a.added(seq, kind)
}

// added counts the record just appended to the block.
func (a *AvroKVWriter) added(seq int64, kind sql.RowKind) error {
	if a.rows == 0 {
		a.minSeq, a.maxSeq = seq, seq
	}
	a.count++
	a.rows++
	a.minSeq, a.maxSeq = min(a.minSeq, seq), max(a.maxSeq, seq)
	if kind.IsRetract() {
		a.del++
	}
	if len(a.block) >= avroSyncInterval {
		a.flush()
	}
	return a.err
}

func (a *AvroKVWriter) flush() {
	if a.count == 0 || a.err != nil {
		return
	}
	var data []byte
	switch a.codec {
	case "null":
		data = a.block
	case "zstandard":
		data = a.zenc.EncodeAll(a.block, nil)
	case "snappy": // a snappy block + the big-endian CRC32 of the input
		data = s2.EncodeSnappy(nil, a.block)
		data = binary.BigEndian.AppendUint32(data, crc32.ChecksumIEEE(a.block))
	case "deflate":
		var buf bytes.Buffer
		fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
		_, _ = fw.Write(a.block)
		if err := fw.Close(); err != nil {
			a.err = err
			return
		}
		data = buf.Bytes()
	}
	h := binary.AppendVarint(nil, int64(a.count))
	h = binary.AppendVarint(h, int64(len(data)))
	a.emit(h)
	a.emit(data)
	a.emit(a.sync[:])
	a.block, a.count = a.block[:0], 0
}

// RowCount is the number of records written so far.
func (a *AvroKVWriter) RowCount() int64 { return a.rows }

// BytesWritten is the bytes written plus the block being filled
// (uncompressed), for rolling at target-file-size.
func (a *AvroKVWriter) BytesWritten() int64 { return a.written + int64(len(a.block)) }

// Close flushes the last block and returns the file's statistics; it does
// not close the underlying writer.
func (a *AvroKVWriter) Close() (*Result, error) {
	a.flush()
	if a.zenc != nil {
		a.zenc.Close()
	}
	if a.err != nil {
		return nil, a.err
	}
	r := &Result{FileSize: a.written, RowCount: a.rows, MinSeq: a.minSeq, MaxSeq: a.maxSeq, DeleteRowCount: a.del}
	var err error
	if a.firstBin != nil {
		r.MinKey, r.MaxKey = a.firstBin, a.lastBin
	} else {
		if a.first == nil {
			a.first = make([]any, a.nk)
			a.last = a.first
		}
		if r.MinKey, err = binrow.Serialize(a.keyTypes, a.first); err != nil {
			return nil, fmt.Errorf("min key: %w", err)
		}
		if r.MaxKey, err = binrow.Serialize(a.keyTypes, a.last); err != nil {
			return nil, fmt.Errorf("max key: %w", err)
		}
	}
	nt := make([]sql.DataType, a.nk)
	for i, t := range a.keyTypes {
		nt[i] = t.WithNullable(true)
	}
	none, err := binrow.Serialize(nt, make([]any, a.nk))
	if err != nil {
		return nil, fmt.Errorf("key stats: %w", err)
	}
	r.KeyStats = manifest.SimpleStats{MinValues: none, MaxValues: none, NullCounts: make([]*int64, a.nk)}
	r.ValueStats, r.ValueStatsCols = manifest.EmptyStats(), []string{}
	return r, nil
}

// avroEncoder appends one value of type t as AvroRowDatumWriter writes it
// (FieldWriterFactory): nullable values as the union index (0 null, 1 the
// value) first.
func avroEncoder(t sql.DataType) func(b []byte, v any) ([]byte, error) {
	var enc func(b []byte, v any) ([]byte, bool)
	switch t.Root {
	case sql.TypeBoolean:
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.(bool)
			if x {
				return append(b, 1), ok
			}
			return append(b, 0), ok
		}
	case sql.TypeTinyInt:
		enc = func(b []byte, v any) ([]byte, bool) { x, ok := v.(int8); return binary.AppendVarint(b, int64(x)), ok }
	case sql.TypeSmallInt:
		enc = func(b []byte, v any) ([]byte, bool) { x, ok := v.(int16); return binary.AppendVarint(b, int64(x)), ok }
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		enc = func(b []byte, v any) ([]byte, bool) { x, ok := v.(int32); return binary.AppendVarint(b, int64(x)), ok }
	case sql.TypeBigInt:
		enc = func(b []byte, v any) ([]byte, bool) { x, ok := v.(int64); return binary.AppendVarint(b, x), ok }
	case sql.TypeFloat:
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.(float32)
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(x)), ok
		}
	case sql.TypeDouble:
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.(float64)
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(x)), ok
		}
	case sql.TypeChar, sql.TypeVarChar:
		enc = func(b []byte, v any) ([]byte, bool) { x, ok := v.(string); return avroAppendBytes(b, []byte(x)), ok }
	case sql.TypeBinary, sql.TypeVarBinary:
		enc = func(b []byte, v any) ([]byte, bool) { x, ok := v.([]byte); return avroAppendBytes(b, x), ok }
	case sql.TypeDecimal:
		scale := t.Scale
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.(decimal.Decimal)
			return avroAppendBytes(b, binrow.UnscaledBytes(x, scale)), ok
		}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		micros := t.Precision > 3
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.(sql.TimestampData)
			if micros {
				return binary.AppendVarint(b, x.Millis*1000+int64(x.NanoOfMilli/1000)), ok
			}
			return binary.AppendVarint(b, x.Millis), ok
		}
	case sql.TypeRow:
		fields := make([]func(b []byte, v any) ([]byte, error), len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = avroEncoder(f.Type)
		}
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.([]any)
			if !ok || len(x) != len(fields) {
				return b, false
			}
			for i, f := range fields {
				var err error
				if b, err = f(b, x[i]); err != nil {
					return b, false
				}
			}
			return b, true
		}
	case sql.TypeArray:
		elem := avroEncoder(*t.Elem)
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.([]any)
			if !ok {
				return b, false
			}
			// BinaryEncoder: the item count when there are items, then 0.
			if len(x) > 0 {
				b = binary.AppendVarint(b, int64(len(x)))
			}
			for _, e := range x {
				var err error
				if b, err = elem(b, e); err != nil {
					return b, false
				}
			}
			return append(b, 0), true
		}
	case sql.TypeMap:
		stringKeys := t.Elem.Root == sql.TypeVarChar || t.Elem.Root == sql.TypeChar
		key, val := avroEncoder(*t.Elem), avroEncoder(*t.Value)
		enc = func(b []byte, v any) ([]byte, bool) {
			x, ok := v.(*sql.Map)
			if !ok || len(x.Keys) != len(x.Values) {
				return b, false
			}
			if len(x.Keys) > 0 {
				b = binary.AppendVarint(b, int64(len(x.Keys)))
			}
			for i, k := range x.Keys {
				var err error
				if stringKeys {
					// The map's keys are Avro strings, never a union.
					ks, ok := k.(string)
					if !ok {
						return b, false
					}
					b = avroAppendBytes(b, []byte(ks))
				} else if b, err = key(b, k); err != nil {
					return b, false
				}
				if b, err = val(b, x.Values[i]); err != nil {
					return b, false
				}
			}
			return append(b, 0), true
		}
	default:
		return func(b []byte, _ any) ([]byte, error) { return b, fmt.Errorf("type %s is not written in Avro", t) }
	}
	nullable := t.Nullable
	return func(b []byte, v any) ([]byte, error) {
		if v == nil {
			if !nullable {
				return b, fmt.Errorf("null value for NOT NULL type %s", t)
			}
			return append(b, 0), nil
		}
		if nullable {
			b = append(b, 2) // union branch 1, zigzag
		}
		out, ok := enc(b, v)
		if !ok {
			return b, fmt.Errorf("value %v (%T) is not a %s", v, v, t)
		}
		return out, nil
	}
}
