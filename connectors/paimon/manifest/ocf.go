package manifest

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// The Avro object container framing (magic, metadata map, sync marker,
// blocks of count + size + compressed records + sync) is written here rather
// than with a library: it is forty lines, and owning it guarantees the
// codec name ("zstandard", what Java's Avro expects for
// manifest.compression=zstd), the schema text and the exact byte size that
// snapshots and manifest lists record.

var magic = []byte{'O', 'b', 'j', 1}

// blockSize is the uncompressed size after which a block is flushed (Java
// Avro's DataFileWriter default sync interval).
const blockSize = 64000

// Codec names (the avro.codec metadata values).
const (
	CodecNull    = "null"
	CodecDeflate = "deflate"
	CodecZstd    = "zstandard"
	CodecSnappy  = "snappy"
)

// AvroCodec maps Paimon's manifest.compression option to the Avro codec
// name: zstd → zstandard, none → null.
func AvroCodec(compression string) (string, error) {
	switch compression {
	case "", "zstd", "zstandard":
		return CodecZstd, nil
	case "none", "null", "uncompressed":
		return CodecNull, nil
	case "deflate":
		return CodecDeflate, nil
	}
	return "", fmt.Errorf("unsupported manifest.compression %q (supported: zstd, deflate, none)", compression)
}

var (
	zencOnce sync.Once
	zenc     *zstd.Encoder
	zdecOnce sync.Once
	zdec     *zstd.Decoder
)

func zstdEncoder() *zstd.Encoder {
	zencOnce.Do(func() {
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	})
	return zenc
}

func zstdDecoder() *zstd.Decoder {
	zdecOnce.Do(func() {
		zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	})
	return zdec
}

func compress(codec string, b []byte) ([]byte, error) {
	switch codec {
	case CodecNull:
		return b, nil
	case CodecZstd:
		return zstdEncoder().EncodeAll(b, nil), nil
	case CodecDeflate:
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.DefaultCompression)
		w.Write(b)
		if err := w.Close(); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("unsupported Avro codec %q", codec)
}

func decompress(codec string, b []byte) ([]byte, error) {
	switch codec {
	case CodecNull, "":
		return b, nil
	case CodecZstd:
		return zstdDecoder().DecodeAll(b, nil)
	case CodecDeflate:
		return io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	case CodecSnappy: // snappy block + 4-byte CRC32 of the uncompressed data
		if len(b) < 4 {
			return nil, errors.New("snappy block too short")
		}
		return s2.Decode(nil, b[:len(b)-4])
	}
	return nil, fmt.Errorf("unsupported Avro codec %q", codec)
}

// avroAPI bounds what a corrupt file can make the decoder allocate: no
// Paimon array has a million elements and no stats row is 16 MiB.
var avroAPI = avro.Config{MaxByteSliceSize: 16 << 20, MaxSliceAllocSize: 1 << 20}.Freeze()

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]avro.Schema{}
)

// parseSchema parses a writer schema, caching the few distinct ones Paimon
// versions write; the cache is bounded so that garbage cannot grow it.
func parseSchema(s string) (avro.Schema, error) {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if sc, ok := schemaCache[s]; ok {
		return sc, nil
	}
	sc, err := avro.ParseWithCache(s, "", &avro.SchemaCache{})
	if err != nil {
		return nil, err
	}
	if len(schemaCache) >= 64 {
		clear(schemaCache)
	}
	schemaCache[s] = sc
	return sc, nil
}

// ocfWriter accumulates encoded records and frames them.
type ocfWriter struct {
	out   bytes.Buffer
	block enc
	count int
	codec string
	sync  [16]byte
	err   error
}

func newOCFWriter(schema, codec string) *ocfWriter {
	w := &ocfWriter{codec: codec}
	_, _ = rand.Read(w.sync[:])
	w.out.Write(magic)
	var h enc
	h.long(2)
	h.str("avro.schema")
	h.bytes([]byte(schema))
	h.str("avro.codec")
	h.bytes([]byte(codec))
	h.long(0)
	w.out.Write(h.b)
	w.out.Write(w.sync[:])
	return w
}

// endRecord counts the record just encoded into w.block.
func (w *ocfWriter) endRecord() {
	w.count++
	if len(w.block.b) >= blockSize {
		w.flush()
	}
}

func (w *ocfWriter) flush() {
	if w.count == 0 || w.err != nil {
		return
	}
	data, err := compress(w.codec, w.block.b)
	if err != nil {
		w.err = err
		return
	}
	var h enc
	h.long(int64(w.count))
	h.long(int64(len(data)))
	w.out.Write(h.b)
	w.out.Write(data)
	w.out.Write(w.sync[:])
	w.block.b = w.block.b[:0]
	w.count = 0
}

// finish returns the whole file.
func (w *ocfWriter) finish() ([]byte, error) {
	w.flush()
	return w.out.Bytes(), w.err
}

// readOCF decodes every record of an Avro container file into generic maps
// (hamba/avro's generic form, with the writer's schema: fields are then
// looked up by name, which is how Java reads files of other versions).
func readOCF(data []byte) ([]map[string]any, error) {
	if len(data) >= 3 && string(data[:3]) == "ORC" {
		return readORCRecords(data)
	}
	if len(data) >= 4 && string(data[:4]) == "PAR1" {
		return nil, fmt.Errorf("%w: the file is Parquet, written with 'manifest.format' = 'parquet'; sqlrun reads Avro and ORC manifests", ErrUnsupportedFormat)
	}
	d, meta, sync, err := readHeader(data)
	if err != nil {
		return nil, err
	}
	schema, err := parseSchema(string(meta["avro.schema"]))
	if err != nil {
		// A damaged header makes the Avro library quote the whole
		// (binary) schema back; keep the message short and printable so
		// the file name before it stays readable on a terminal.
		msg := err.Error()
		if len(msg) > 120 {
			msg = msg[:120] + "..."
		}
		return nil, fmt.Errorf("avro schema is not valid: %q", msg)
	}
	codec := string(meta["avro.codec"])
	var out []map[string]any
	for d.p < len(d.b) {
		count := d.long()
		blk := d.bytes()
		s := d.fixed(16)
		if d.err != nil {
			return nil, fmt.Errorf("avro block: %w", d.err)
		}
		if !bytes.Equal(s, sync) {
			return nil, errors.New("avro block: sync marker mismatch")
		}
		if count < 0 || count > int64(len(data))*8+16 {
			return nil, fmt.Errorf("avro block: bad record count %d", count)
		}
		raw, err := decompress(codec, blk)
		if err != nil {
			return nil, fmt.Errorf("avro block (%s): %w", codec, err)
		}
		r := avro.NewReader(bytes.NewReader(raw), 4096, avro.WithReaderConfig(avroAPI))
		_, nullable := schema.(*avro.UnionSchema)
		for i := int64(0); i < count; i++ {
			var m map[string]any
			r.ReadVal(schema, &m)
			if r.Error != nil {
				return nil, fmt.Errorf("avro record %d: %w", len(out), r.Error)
			}
			if nullable {
				// Older Paimon writes the row as ["null", record] (a nullable
				// RowType): the generic form names the branch taken.
				if m, err = unionRecord(m); err != nil {
					return nil, fmt.Errorf("avro record %d: %w", len(out), err)
				}
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// unionRecord returns the record of a ["null", record] top-level union
// in hamba/avro's generic form ({"<record name>": {...}}).
func unionRecord(m map[string]any) (map[string]any, error) {
	if len(m) == 1 {
		for _, v := range m {
			if rec, ok := v.(map[string]any); ok {
				return rec, nil
			}
		}
	}
	return nil, errors.New("the writer's schema is a union and the record is null or not a record")
}

// Header returns the writer schema and codec of an Avro container file.
func Header(data []byte) (schema, codec string, err error) {
	_, meta, _, err := readHeader(data)
	if err != nil {
		return "", "", err
	}
	return string(meta["avro.schema"]), string(meta["avro.codec"]), nil
}

// ErrUnsupportedFormat is wrapped when a metadata file uses a feature
// sqlrun does not read (an ORC manifest with LZO compression, say).
var ErrUnsupportedFormat = errors.New("unsupported manifest format")

func readHeader(data []byte) (*dec, map[string][]byte, []byte, error) {
	if len(data) < 4 || !bytes.Equal(data[:4], magic) {
		return nil, nil, nil, errors.New("not an Avro object container file (bad magic)")
	}
	d := &dec{b: data, p: 4}
	meta := map[string][]byte{}
	for {
		n := d.long()
		if n == 0 || d.err != nil {
			break
		}
		if n < 0 {
			n = -n
			d.long()
		}
		for i := int64(0); i < n && d.err == nil; i++ {
			k := string(d.bytes())
			meta[k] = d.bytes()
		}
	}
	sync := d.fixed(16)
	if d.err != nil {
		return nil, nil, nil, fmt.Errorf("avro header: %w", d.err)
	}
	return d, meta, sync, nil
}

// enc is an Avro binary encoder.
type enc struct{ b []byte }

func (e *enc) long(v int64) { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) int(v int)    { e.long(int64(v)) }
func (e *enc) str(s string) { e.long(int64(len(s))); e.b = append(e.b, s...) }
func (e *enc) bytes(b []byte) {
	e.long(int64(len(b)))
	e.b = append(e.b, b...)
}

// null writes union branch 0 (null); some writes branch 1 (the value
// follows). Paimon's unions are always ["null", T].
func (e *enc) null() { e.long(0) }
func (e *enc) some() { e.long(1) }

func (e *enc) optLong(p *int64) {
	if p == nil {
		e.null()
		return
	}
	e.some()
	e.long(*p)
}

func (e *enc) optInt(p *int32) {
	if p == nil {
		e.null()
		return
	}
	e.some()
	e.long(int64(*p))
}

func (e *enc) optStr(p *string) {
	if p == nil {
		e.null()
		return
	}
	e.some()
	e.str(*p)
}

func (e *enc) strArray(s []string) {
	if len(s) > 0 {
		e.long(int64(len(s)))
		for _, x := range s {
			e.str(x)
		}
	}
	e.long(0)
}

// dec is a minimal Avro binary decoder for the container framing.
type dec struct {
	b   []byte
	p   int
	err error
}

func (d *dec) long() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.p:])
	if n <= 0 {
		d.err = io.ErrUnexpectedEOF
		return 0
	}
	d.p += n
	return v
}

func (d *dec) fixed(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.p {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	out := d.b[d.p : d.p+n]
	d.p += n
	return out
}

func (d *dec) bytes() []byte { return d.fixed(int(d.long())) }
