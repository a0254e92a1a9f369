package orc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// Stream kinds (orc_proto.Stream.Kind).
const (
	streamPresent    = 0
	streamData       = 1
	streamLength     = 2
	streamDictionary = 3
	streamSecondary  = 5
)

// Column encodings (orc_proto.ColumnEncoding.Kind).
const (
	encDirect       = 0
	encDictionary   = 1
	encDirectV2     = 2
	encDictionaryV2 = 3
)

// maxValues bounds the values of one column in one stripe (lists
// included), so a damaged length cannot make the reader allocate without
// limit; the fuzz test lowers it.
var maxValues uint64 = 1 << 27

// orcEpoch is 2015-01-01T00:00:00Z: timestamps are stored as seconds
// relative to 2015-01-01 00:00 of the writer's zone.
const orcEpoch = 1420070400

type streamKey struct{ col, kind uint64 }

type stripe struct {
	f       *File
	data    []byte // the stripe's index and data regions
	streams map[streamKey][]byte
	enc     []encoding
	zone    *time.Location
	rows    int
}

// ReadStripe decodes stripe i's top-level columns cols (positions in
// Schema().Children); out[j] holds a value per row of the stripe for
// cols[j].
func (f *File) ReadStripe(i int, cols []int) (out [][]any, rows int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: stripe %d: internal error: %v", ErrCorrupt, i, p)
		}
	}()
	st := f.stripes[i]
	if st.numRows > maxValues {
		return nil, 0, fmt.Errorf("%w: stripe %d has %d rows", ErrCorrupt, i, st.numRows)
	}
	s := &stripe{f: f, streams: map[streamKey][]byte{}, rows: int(st.numRows)}
	s.data = make([]byte, st.indexLength+st.dataLength)
	if _, err := f.r.ReadAt(s.data, int64(st.offset)); err != nil {
		return nil, 0, fmt.Errorf("stripe %d: %w", i, err)
	}
	raw := make([]byte, st.footerLength)
	if _, err := f.r.ReadAt(raw, int64(st.offset+st.indexLength+st.dataLength)); err != nil {
		return nil, 0, fmt.Errorf("stripe %d: %w", i, err)
	}
	dec, err := f.decompress(raw)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: stripe %d footer: %v", ErrCorrupt, i, err)
	}
	sf, err := parseStripeFooter(dec)
	if err != nil {
		if errors.Is(err, ErrUnsupported) {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("%w: stripe %d footer: %v", ErrCorrupt, i, err)
	}
	var off uint64
	for _, si := range sf.streams {
		if si.length > uint64(len(s.data))-off {
			return nil, 0, fmt.Errorf("%w: stripe %d: stream of column %d extends past the stripe", ErrCorrupt, i, si.column)
		}
		s.streams[streamKey{si.column, si.kind}] = s.data[off : off+si.length]
		off += si.length
	}
	s.enc = sf.encodings
	if len(s.enc) < len(f.types) {
		return nil, 0, fmt.Errorf("%w: stripe %d has %d column encodings for %d columns", ErrCorrupt, i, len(s.enc), len(f.types))
	}
	if sf.timezone != "" && sf.timezone != "UTC" && sf.timezone != "GMT" {
		if s.zone, err = loadZone(sf.timezone); err != nil {
			return nil, 0, fmt.Errorf("%w: stripe %d: writer time zone %q: %v", ErrUnsupported, i, sf.timezone, err)
		}
	}
	root := f.root
	out = make([][]any, len(cols))
	for j, c := range cols {
		if c < 0 || c >= len(root.Children) {
			return nil, 0, fmt.Errorf("column %d out of range", c)
		}
		t := root.Children[c]
		if out[j], err = s.column(t, s.rows); err != nil {
			return nil, 0, fmt.Errorf("%w: stripe %d column %s (%s): %v", ErrCorrupt, i, root.FieldNames[c], t, err)
		}
	}
	return out, s.rows, nil
}

var zones sync.Map

func loadZone(name string) (*time.Location, error) {
	if z, ok := zones.Load(name); ok {
		return z.(*time.Location), nil
	}
	z, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, z)
	return z, nil
}

// stream returns a column's decompressed stream (empty when absent).
func (s *stripe) stream(t *Type, kind uint64) (*byteStream, error) {
	b, ok := s.streams[streamKey{uint64(t.ID), kind}]
	if !ok {
		return &byteStream{}, nil
	}
	d, err := s.f.decompress(b)
	if err != nil {
		return nil, err
	}
	return &byteStream{b: d}, nil
}

func (s *stripe) ints(t *Type, kind uint64, n int, signed bool) ([]int64, error) {
	st, err := s.stream(t, kind)
	if err != nil {
		return nil, err
	}
	e := s.enc[t.ID].kind
	return readInts(st, n, signed, e == encDirectV2 || e == encDictionaryV2)
}

// column decodes n values of column t (n: the parent's non-null slots).
func (s *stripe) column(t *Type, n int) ([]any, error) {
	var present []bool
	k := n
	if b, ok := s.streams[streamKey{uint64(t.ID), streamPresent}]; ok {
		d, err := s.f.decompress(b)
		if err != nil {
			return nil, err
		}
		if present, err = readBools(&byteStream{b: d}, n); err != nil {
			return nil, fmt.Errorf("present: %w", err)
		}
		k = 0
		for _, p := range present {
			if p {
				k++
			}
		}
	}
	vals, err := s.values(t, k)
	if err != nil || present == nil {
		return vals, err
	}
	out := make([]any, n)
	j := 0
	for i, p := range present {
		if p {
			out[i] = vals[j]
			j++
		}
	}
	return out, nil
}

func (s *stripe) values(t *Type, k int) ([]any, error) {
	out := make([]any, k)
	switch t.Kind {
	case Boolean:
		st, err := s.stream(t, streamData)
		if err != nil {
			return nil, err
		}
		bs, err := readBools(st, k)
		if err != nil {
			return nil, err
		}
		for i, b := range bs {
			out[i] = b
		}
	case Byte:
		st, err := s.stream(t, streamData)
		if err != nil {
			return nil, err
		}
		bs, err := readByteRLE(st, k)
		if err != nil {
			return nil, err
		}
		for i, b := range bs {
			out[i] = int8(b)
		}
	case Short, Int, Long, Date:
		vs, err := s.ints(t, streamData, k, true)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			switch t.Kind {
			case Short:
				out[i] = int16(v)
			case Int, Date:
				out[i] = int32(v)
			default:
				out[i] = v
			}
		}
	case Float, Double:
		st, err := s.stream(t, streamData)
		if err != nil {
			return nil, err
		}
		w := 4
		if t.Kind == Double {
			w = 8
		}
		b, err := st.take(k * w)
		if err != nil {
			return nil, err
		}
		for i := range out {
			if w == 4 {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			} else {
				out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
		}
	case String, Varchar, Char, Binary:
		return s.strings(t, out)
	case Decimal:
		return s.decimals(t, out)
	case Timestamp, TimestampInstant:
		return s.timestamps(t, out)
	case Struct:
		kids := make([][]any, len(t.Children))
		for j, c := range t.Children {
			var err error
			if kids[j], err = s.column(c, k); err != nil {
				return nil, fmt.Errorf("field %s: %w", t.FieldNames[j], err)
			}
		}
		for i := range out {
			row := make([]any, len(kids))
			for j := range kids {
				row[j] = kids[j][i]
			}
			out[i] = row
		}
	case List, Map:
		lens, total, err := s.lengths(t, k)
		if err != nil {
			return nil, err
		}
		kids := make([][]any, len(t.Children))
		for j, c := range t.Children {
			if kids[j], err = s.column(c, total); err != nil {
				return nil, err
			}
		}
		at := 0
		for i, l := range lens {
			if t.Kind == List {
				out[i] = kids[0][at : at+l : at+l]
			} else {
				out[i] = MapValue{Keys: kids[0][at : at+l : at+l], Values: kids[1][at : at+l : at+l]}
			}
			at += l
		}
	default:
		return nil, fmt.Errorf("%w: %s columns", ErrUnsupported, t.Kind)
	}
	return out, nil
}

// lengths reads k unsigned lengths and their sum.
func (s *stripe) lengths(t *Type, k int) ([]int, int, error) {
	vs, err := s.ints(t, streamLength, k, false)
	if err != nil {
		return nil, 0, fmt.Errorf("lengths: %w", err)
	}
	out := make([]int, k)
	total := 0
	for i, v := range vs {
		if v < 0 || uint64(total)+uint64(v) > maxValues {
			return nil, 0, fmt.Errorf("length %d out of range", v)
		}
		out[i] = int(v)
		total += int(v)
	}
	return out, total, nil
}

func (s *stripe) strings(t *Type, out []any) ([]any, error) {
	k := len(out)
	e := s.enc[t.ID]
	conv := func(b []byte) any {
		if t.Kind == Binary {
			return b
		}
		return string(b)
	}
	if t.Kind != Binary && (e.kind == encDictionary || e.kind == encDictionaryV2) {
		if e.dictSize > maxValues {
			return nil, fmt.Errorf("dictionary of %d entries", e.dictSize)
		}
		lens, _, err := s.lengths(t, int(e.dictSize))
		if err != nil {
			return nil, err
		}
		dd, err := s.stream(t, streamDictionary)
		if err != nil {
			return nil, err
		}
		dict := make([]any, len(lens))
		for i, l := range lens {
			b, err := dd.take(l)
			if err != nil {
				return nil, fmt.Errorf("dictionary: %w", err)
			}
			dict[i] = conv(b)
		}
		idx, err := s.ints(t, streamData, k, false)
		if err != nil {
			return nil, err
		}
		for i, x := range idx {
			if x < 0 || x >= int64(len(dict)) {
				return nil, fmt.Errorf("dictionary index %d of %d", x, len(dict))
			}
			out[i] = dict[x]
		}
		return out, nil
	}
	lens, _, err := s.lengths(t, k)
	if err != nil {
		return nil, err
	}
	data, err := s.stream(t, streamData)
	if err != nil {
		return nil, err
	}
	for i, l := range lens {
		b, err := data.take(l)
		if err != nil {
			return nil, err
		}
		out[i] = conv(b)
	}
	return out, nil
}

func (s *stripe) decimals(t *Type, out []any) ([]any, error) {
	data, err := s.stream(t, streamData)
	if err != nil {
		return nil, err
	}
	scales, err := s.ints(t, streamSecondary, len(out), true)
	if err != nil {
		return nil, fmt.Errorf("scales: %w", err)
	}
	for i := range out {
		small, b, err := data.bigVarint()
		if err != nil {
			return nil, err
		}
		sc := scales[i]
		if sc < -1000 || sc > 1000 {
			return nil, fmt.Errorf("decimal scale %d", sc)
		}
		var d decimal.Decimal
		if b == nil {
			d = decimal.New(small, -int32(sc))
		} else {
			d = decimal.NewFromBigInt(b, -int32(sc))
		}
		if int(sc) != t.Scale {
			d = d.Round(int32(t.Scale))
		}
		out[i] = d
	}
	return out, nil
}

func (s *stripe) timestamps(t *Type, out []any) ([]any, error) {
	secs, err := s.ints(t, streamData, len(out), true)
	if err != nil {
		return nil, err
	}
	nanos, err := s.ints(t, streamSecondary, len(out), false)
	if err != nil {
		return nil, fmt.Errorf("nanos: %w", err)
	}
	base := int64(orcEpoch)
	zone := s.zone
	if t.Kind == Timestamp && zone != nil {
		base = time.Date(2015, 1, 1, 0, 0, 0, 0, zone).Unix()
	}
	for i := range out {
		u := uint64(nanos[i])
		ns := u >> 3
		if z := u & 7; z != 0 {
			for j := uint64(0); j <= z; j++ {
				ns *= 10
			}
		}
		if ns >= 1e9 {
			return nil, fmt.Errorf("nanoseconds %d", ns)
		}
		sec := secs[i] + base
		// The writer rounds seconds toward zero (Java's millis / 1000);
		// a negative time with a fraction of at least a millisecond is one
		// second early (the ORC readers' correction).
		if sec < 0 && ns > 999999 {
			sec--
		}
		wall := sec
		if zone != nil {
			_, off := time.Unix(sec, 0).In(zone).Zone()
			wall += int64(off)
		}
		out[i] = TS{Sec: sec, Wall: wall, Nano: int32(ns)}
	}
	return out, nil
}
