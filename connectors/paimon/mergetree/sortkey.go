package mergetree

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/sql"
)

// sortKeyEncoder turns the fields a write buffer sorts on (the primary
// key, then the sequence.field fields) into a byte string read straight
// from a record's packed form, whose bytewise order is the order
// Spec.Key then SeqOrder's user fields give the decoded values (the
// normalized keys of Paimon's BinaryRow sort, NormalizedKeyComputer,
// taken over the whole key): the buffer sorts on its first 8 bytes and
// compares whole strings only between records those bytes tie.
//
// Each field is a byte 0 (NULL) or 1 followed by its value: integers
// big-endian with the sign bit flipped; FLOAT and DOUBLE the same after
// -0 is made +0 and NaN is put below every number (cmp.Compare's order,
// which Comparator uses); DECIMAL the unscaled value as a 16-byte signed
// integer (the values of one column share its scale); TIMESTAMP the
// milliseconds then the nanoseconds of the millisecond; strings and
// binaries their bytes with 0x00 written 0x00 0xFF and ended by 0x00 0x00,
// so no field's encoding is a prefix of another's. A descending field
// (sequence.field.sort-order) has its bytes inverted, NULL included, as
// Comparator reverses its result.
type sortKeyEncoder struct {
	types  []sql.DataType
	fields []sortKeyField
	offs   []int // scratch: the packed fields' offsets, up to the last one read
}

type sortKeyField struct {
	idx  int // in the value row
	desc bool
}

func newSortKeyEncoder(spec *Spec) (*sortKeyEncoder, error) {
	k := &sortKeyEncoder{types: spec.FieldTypes}
	for _, f := range spec.Key.fields {
		k.fields = append(k.fields, sortKeyField{idx: spec.KeyIndex[f.idx], desc: f.desc})
	}
	if spec.Order.user != nil {
		for _, f := range spec.Order.user.fields {
			k.fields = append(k.fields, sortKeyField{idx: f.idx, desc: f.desc})
		}
	}
	last := -1
	for _, f := range k.fields {
		if !sortKeyType(k.types[f.idx]) {
			return nil, fmt.Errorf("mergetree: type %s cannot be compared (not allowed in a primary key or sequence field)", k.types[f.idx])
		}
		last = max(last, f.idx)
	}
	k.offs = make([]int, last+1)
	return k, nil
}

func sortKeyType(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeBoolean, sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeDate, sql.TypeTime,
		sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble, sql.TypeDecimal, sql.TypeChar, sql.TypeVarChar,
		sql.TypeBinary, sql.TypeVarBinary, sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return true
	}
	return false
}

// append appends the sort key of the packed record p to dst.
func (k *sortKeyEncoder) append(dst, p []byte) ([]byte, error) {
	if err := binrow.PackedFieldOffsets(k.types, p, k.offs); err != nil {
		return dst, err
	}
	for _, f := range k.fields {
		start := len(dst)
		if off := k.offs[f.idx]; off < 0 {
			dst = append(dst, 0)
		} else {
			dst = appendSortValue(append(dst, 1), k.types[f.idx], p[off:])
		}
		if f.desc {
			for i := start; i < len(dst); i++ {
				dst[i] = ^dst[i]
			}
		}
	}
	return dst, nil
}

// appendSortValue appends the order-preserving form of the non-null
// packed field of type t at the start of p (PackedFieldOffsets checked
// that its bytes are there).
func appendSortValue(dst []byte, t sql.DataType, p []byte) []byte {
	const sign64, sign32 = 1 << 63, 1 << 31
	switch t.Root {
	case sql.TypeBoolean:
		return append(dst, p[0])
	case sql.TypeTinyInt:
		return append(dst, p[0]^0x80)
	case sql.TypeSmallInt:
		return binary.BigEndian.AppendUint16(dst, binary.LittleEndian.Uint16(p)^0x8000)
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		return binary.BigEndian.AppendUint32(dst, binary.LittleEndian.Uint32(p)^sign32)
	case sql.TypeBigInt:
		return binary.BigEndian.AppendUint64(dst, binary.LittleEndian.Uint64(p)^sign64)
	case sql.TypeFloat:
		f := math.Float32frombits(binary.LittleEndian.Uint32(p))
		var u uint32 // NaN: below -Inf
		switch {
		case f == 0: // -0 and +0 are equal
			u = sign32
		case f < 0:
			u = ^math.Float32bits(f)
		case f > 0:
			u = math.Float32bits(f) | sign32
		}
		return binary.BigEndian.AppendUint32(dst, u)
	case sql.TypeDouble:
		f := math.Float64frombits(binary.LittleEndian.Uint64(p))
		var u uint64
		switch {
		case f == 0:
			u = sign64
		case f < 0:
			u = ^math.Float64bits(f)
		case f > 0:
			u = math.Float64bits(f) | sign64
		}
		return binary.BigEndian.AppendUint64(dst, u)
	case sql.TypeDecimal:
		if binrow.IsCompactDecimal(t.Precision) {
			return binary.BigEndian.AppendUint64(dst, binary.LittleEndian.Uint64(p)^sign64)
		}
		// The unscaled value's minimal big-endian two's complement,
		// sign-extended to 16 bytes.
		n := int(p[0])
		v := p[1 : 1+n]
		var ext byte
		if n > 0 && v[0]&0x80 != 0 {
			ext = 0xff
		}
		start := len(dst)
		for i := n; i < 16; i++ {
			dst = append(dst, ext)
		}
		dst = append(dst, v...)
		dst[start] ^= 0x80
		return dst
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		dst = binary.BigEndian.AppendUint64(dst, binary.LittleEndian.Uint64(p)^sign64)
		if binrow.IsCompactTimestamp(t.Precision) {
			return binary.BigEndian.AppendUint32(dst, sign32) // nanoseconds 0
		}
		return binary.BigEndian.AppendUint32(dst, binary.LittleEndian.Uint32(p[8:])^sign32)
	}
	// CHAR, VARCHAR, BINARY, VARBINARY (sortKeyType).
	l, k := binary.Uvarint(p)
	v := p[k : k+int(l)]
	for {
		i := bytes.IndexByte(v, 0)
		if i < 0 {
			break
		}
		dst = append(append(dst, v[:i]...), 0, 0xff)
		v = v[i+1:]
	}
	return append(append(dst, v...), 0, 0)
}

// sortKeyPrefix is the first 8 bytes of a sort key as an integer, zeros
// after a shorter key: a strict order of two prefixes is that of their
// keys (no key is a proper prefix of another); equal prefixes say
// nothing.
func sortKeyPrefix(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// tieEntry is an index entry with its whole sort key, while the entries
// whose prefixes tie are sorted.
type tieEntry struct {
	key []byte
	e   bufEntry
}

// sortPacked orders the index by key, then SeqOrder, on sort keys made
// from the packed records (sortKeyEncoder): a stable radix sort on each
// record's 8-byte prefix (kept in the entry's key while the index is
// sorted), then, for the records whose prefixes tie, a stable sort on the
// whole sort keys and the sequence numbers. Stable: records equal in all
// of these stay in the order they came.
func (b *WriteBuffer) sortPacked() error {
	if b.keyEnc == nil {
		enc, err := newSortKeyEncoder(b.spec)
		if err != nil {
			return err
		}
		b.keyEnc = enc
	}
	ents := b.idx.ents
	var err error
	for i := range ents {
		e := &ents[i]
		if b.keyBuf, err = b.keyEnc.append(b.keyBuf[:0], b.pages.at(e.ref, int(e.size))); err != nil {
			return fmt.Errorf("mergetree: write buffer: %w", err)
		}
		// radixSortByKey orders signed keys: flip the sign bit so the
		// unsigned prefixes sort as they compare.
		e.key = int64(sortKeyPrefix(b.keyBuf) ^ 1<<63)
	}
	if err := b.radixSortByKey(ents); err != nil {
		return err
	}
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].key == ents[i].key {
			j++
		}
		if j-i > 1 {
			if err := b.sortTies(ents[i:j]); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// sortTies sorts entries whose sort-key prefixes are equal on their whole
// sort keys, then sequence numbers.
func (b *WriteBuffer) sortTies(ents []bufEntry) error {
	buf, ends := b.keyBuf[:0], b.tieEnds[:0]
	var err error
	for i := range ents {
		if buf, err = b.keyEnc.append(buf, b.pages.at(ents[i].ref, int(ents[i].size))); err != nil {
			return fmt.Errorf("mergetree: write buffer: %w", err)
		}
		ends = append(ends, len(buf))
	}
	ties := b.ties[:0]
	start := 0
	for i, end := range ends {
		ties = append(ties, tieEntry{key: buf[start:end:end], e: ents[i]})
		start = end
	}
	slices.SortStableFunc(ties, func(x, y tieEntry) int {
		if c := bytes.Compare(x.key, y.key); c != 0 {
			return c
		}
		return cmp.Compare(x.e.seq, y.e.seq)
	})
	for i := range ties {
		ents[i] = ties[i].e
	}
	clear(ties) // no references into buf past this run
	b.keyBuf, b.tieEnds, b.ties = buf, ends, ties
	return nil
}
