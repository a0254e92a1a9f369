package format

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/parquet-go/parquet-go"
	pformat "github.com/parquet-go/parquet-go/format"
)

// Column chunk statistics as parquet-java writes them
// (ParquetMetadataConverter.toParquetStatistics with the column's
// PrimitiveComparator): min and max in each type's order — signed for
// BOOLEAN, INT32, INT64 and DECIMAL (a FIXED_LEN_BYTE_ARRAY decimal is a
// big-endian two's complement integer, compared as signed, not as bytes),
// Double.compare's for FLOAT and DOUBLE, unsigned lexicographic for BINARY
// and STRING; none for INT96 (its column order is undefined) unless min
// equals max. min_value/max_value are set where the column order is
// type-defined, the deprecated min/max where the order is signed; no
// min/max when they together reach 4096 bytes (MAX_STATS_SIZE).

// maxStatsSize is parquet-java's ParquetMetadataConverter.MAX_STATS_SIZE.
const maxStatsSize = 4096

// chunkStats are the min/max of one column chunk (PLAIN-encoded values).
type chunkStats struct {
	typ      pformat.Type
	decimal  bool // FIXED_LEN_BYTE_ARRAY decimal: signed order
	has      bool
	min, max []byte
}

// compare orders two PLAIN-encoded values of the column's type.
func (s *chunkStats) compare(a, b []byte) int {
	switch s.typ {
	case pformat.Boolean:
		return int(a[0]) - int(b[0])
	case pformat.Int32:
		x, y := int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b))
		return cmpOrdered(x, y)
	case pformat.Int64:
		x, y := int64(binary.LittleEndian.Uint64(a)), int64(binary.LittleEndian.Uint64(b))
		return cmpOrdered(x, y)
	case pformat.Float:
		return javaDoubleCompare(float64(math.Float32frombits(binary.LittleEndian.Uint32(a))), float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case pformat.Double:
		return javaDoubleCompare(math.Float64frombits(binary.LittleEndian.Uint64(a)), math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case pformat.FixedLenByteArray:
		if s.decimal {
			return compareSignedBigEndian(a, b)
		}
	case pformat.Int96:
		// INT96's comparator in parquet-java up to 1.15 (Paimon's):
		// BINARY_AS_SIGNED_INTEGER_COMPARATOR over the 12 bytes as stored.
		return compareSignedBigEndian(a, b)
	}
	return bytes.Compare(a, b)
}

func cmpOrdered[T int32 | int64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// javaDoubleCompare is Java's Double.compare: -0.0 before 0.0, NaN after
// everything (parquet-java's FLOAT and DOUBLE comparators).
func javaDoubleCompare(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xb, yb := math.Float64bits(x), math.Float64bits(y)
	if math.IsNaN(x) {
		xb = 0x7ff8000000000000
	}
	if math.IsNaN(y) {
		yb = 0x7ff8000000000000
	}
	// Equal or unordered: the bits decide, as Java's doubleToLongBits.
	return cmpOrdered(int64(xb), int64(yb))
}

// compareSignedBigEndian compares two's complement big-endian integers
// of equal length.
func compareSignedBigEndian(a, b []byte) int {
	if len(a) > 0 && len(b) > 0 && (a[0]^b[0])&0x80 != 0 {
		if a[0]&0x80 != 0 {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

// add folds a PLAIN-encoded value into the statistics; v is copied when
// it becomes the min or max.
func (s *chunkStats) add(v []byte) {
	if !s.has {
		s.min, s.max, s.has = append(s.min[:0], v...), append(s.max[:0], v...), true
		return
	}
	if s.compare(v, s.min) < 0 {
		s.min = append(s.min[:0], v...)
	}
	if s.compare(v, s.max) > 0 {
		s.max = append(s.max[:0], v...)
	}
}

// addValue folds a non-null parquet-go value into the statistics.
func (s *chunkStats) addValue(v parquet.Value) {
	var buf [12]byte
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			buf[0] = 1
		}
		s.add(buf[:1])
	case parquet.Int32:
		binary.LittleEndian.PutUint32(buf[:], uint32(v.Int32()))
		s.add(buf[:4])
	case parquet.Int64:
		binary.LittleEndian.PutUint64(buf[:], uint64(v.Int64()))
		s.add(buf[:8])
	case parquet.Int96:
		for i, u := range v.Int96() {
			binary.LittleEndian.PutUint32(buf[4*i:], u)
		}
		s.add(buf[:12])
	case parquet.Float:
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v.Float()))
		s.add(buf[:4])
	case parquet.Double:
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v.Double()))
		s.add(buf[:8])
	default:
		s.add(v.ByteArray())
	}
}

func (s *chunkStats) reset() { s.has, s.min, s.max = false, s.min[:0], s.max[:0] }

// format returns the chunk's Statistics as parquet-java writes them.
func (s *chunkStats) format(nulls int64) pformat.Statistics {
	st := pformat.Statistics{NullCount: nulls}
	if s.has && len(s.min)+len(s.max) >= maxStatsSize {
		// parquet-java writes empty statistics; parquet-go's encoder
		// always writes null_count, so it stays true rather than 0.
		return st
	}
	if !s.has {
		return st
	}
	equal := bytes.Equal(s.min, s.max)
	signed := s.typ != pformat.ByteArray && s.typ != pformat.Int96 && (s.typ != pformat.FixedLenByteArray || s.decimal)
	if signed || equal {
		st.Min, st.Max = bytes.Clone(s.min), bytes.Clone(s.max)
	}
	if s.typ != pformat.Int96 || equal {
		st.MinValue, st.MaxValue = bytes.Clone(s.min), bytes.Clone(s.max)
	}
	return st
}

// leafStatsOf makes the statistics of each leaf column of the schema els.
func leafStatsOf(els []schemaElement) []chunkStats {
	var out []chunkStats
	for _, e := range els {
		if e.leaf {
			out = append(out, chunkStats{typ: e.typ, decimal: e.converted == ctDecimal})
		}
	}
	return out
}
