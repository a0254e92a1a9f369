// Package roaring reads Roaring bitmaps in the portable serialization
// (github.com/RoaringBitmap/RoaringFormatSpec), which Paimon's deletion
// vectors store: 32-bit bitmaps as written by Java's RoaringBitmap, and the
// 64-bit form (a count of 32-bit bitmaps, each with its high 32-bit key) as
// written by Paimon's OptimizedRoaringBitmap64. Only reading is needed:
// sqlrun applies Java's deletion vectors but writes none.
package roaring

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// ErrCorrupt is wrapped for malformed input.
var ErrCorrupt = errors.New("corrupt roaring bitmap")

const (
	cookieNoRun = 12346
	cookieRun   = 12347
	arrayMax    = 4096
)

type container struct {
	key  uint16
	kind byte     // 'a' array, 'b' bitmap, 'r' run
	arr  []uint16 // array values, or run pairs (start, length-1)
	bits []uint64
	card int
}

// Bitmap is a read-only set of uint32 values.
type Bitmap struct {
	cs []container // sorted by key
}

// Contains reports whether x is in the set.
func (b *Bitmap) Contains(x uint32) bool {
	hi, lo := uint16(x>>16), uint16(x)
	i := sort.Search(len(b.cs), func(i int) bool { return b.cs[i].key >= hi })
	if i == len(b.cs) || b.cs[i].key != hi {
		return false
	}
	c := &b.cs[i]
	switch c.kind {
	case 'a':
		j := sort.Search(len(c.arr), func(j int) bool { return c.arr[j] >= lo })
		return j < len(c.arr) && c.arr[j] == lo
	case 'b':
		return c.bits[lo>>6]&(1<<(lo&63)) != 0
	default:
		n := len(c.arr) / 2
		j := sort.Search(n, func(j int) bool { return c.arr[2*j] > lo }) // first run starting after lo
		if j == 0 {
			return false
		}
		start, l := c.arr[2*(j-1)], c.arr[2*(j-1)+1]
		return uint32(lo) <= uint32(start)+uint32(l)
	}
}

// Cardinality is the number of values.
func (b *Bitmap) Cardinality() int {
	n := 0
	for _, c := range b.cs {
		n += c.card
	}
	return n
}

// Read parses a 32-bit portable bitmap from the start of data and returns
// it with the number of bytes consumed.
func Read(data []byte) (*Bitmap, int, error) {
	p := 0
	u16 := func() (uint16, error) {
		if p+2 > len(data) {
			return 0, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		v := binary.LittleEndian.Uint16(data[p:])
		p += 2
		return v, nil
	}
	u32 := func() (uint32, error) {
		if p+4 > len(data) {
			return 0, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		v := binary.LittleEndian.Uint32(data[p:])
		p += 4
		return v, nil
	}
	cookie, err := u32()
	if err != nil {
		return nil, 0, err
	}
	var size int
	var runBits []byte
	switch {
	case cookie&0xFFFF == cookieRun:
		size = int(cookie>>16) + 1
		n := (size + 7) / 8
		if p+n > len(data) {
			return nil, 0, fmt.Errorf("%w: truncated run bitmap", ErrCorrupt)
		}
		runBits = data[p : p+n]
		p += n
	case cookie == cookieNoRun:
		s, err := u32()
		if err != nil {
			return nil, 0, err
		}
		size = int(s)
	default:
		return nil, 0, fmt.Errorf("%w: unknown cookie %d", ErrCorrupt, cookie)
	}
	if size < 0 || size > 1<<16 || size*4 > len(data) {
		return nil, 0, fmt.Errorf("%w: %d containers", ErrCorrupt, size)
	}
	b := &Bitmap{cs: make([]container, size)}
	for i := range b.cs {
		k, err := u16()
		if err != nil {
			return nil, 0, err
		}
		c, err := u16()
		if err != nil {
			return nil, 0, err
		}
		b.cs[i].key, b.cs[i].card = k, int(c)+1
		if i > 0 && k <= b.cs[i-1].key {
			return nil, 0, fmt.Errorf("%w: keys not ascending", ErrCorrupt)
		}
	}
	if runBits == nil || size >= 4 { // offset header (unused: containers follow in order)
		p += 4 * size
		if p > len(data) {
			return nil, 0, fmt.Errorf("%w: truncated offsets", ErrCorrupt)
		}
	}
	for i := range b.cs {
		c := &b.cs[i]
		switch {
		case runBits != nil && runBits[i/8]&(1<<(i%8)) != 0:
			n, err := u16()
			if err != nil {
				return nil, 0, err
			}
			if p+4*int(n) > len(data) {
				return nil, 0, fmt.Errorf("%w: truncated runs", ErrCorrupt)
			}
			c.kind, c.arr, c.card = 'r', make([]uint16, 2*int(n)), 0
			for j := range c.arr {
				c.arr[j] = binary.LittleEndian.Uint16(data[p:])
				p += 2
			}
			for j := 0; j < int(n); j++ {
				c.card += int(c.arr[2*j+1]) + 1
			}
		case c.card > arrayMax:
			if p+8192 > len(data) {
				return nil, 0, fmt.Errorf("%w: truncated bitmap container", ErrCorrupt)
			}
			c.kind, c.bits = 'b', make([]uint64, 1024)
			for j := range c.bits {
				c.bits[j] = binary.LittleEndian.Uint64(data[p:])
				p += 8
			}
		default:
			if p+2*c.card > len(data) {
				return nil, 0, fmt.Errorf("%w: truncated array container", ErrCorrupt)
			}
			c.kind, c.arr = 'a', make([]uint16, c.card)
			for j := range c.arr {
				c.arr[j] = binary.LittleEndian.Uint16(data[p:])
				p += 2
			}
		}
	}
	return b, p, nil
}

// Bitmap64 is a set of uint64 values: 32-bit bitmaps by high 32 bits.
type Bitmap64 struct {
	keys []uint32
	bms  []*Bitmap
}

// Read64 parses the 64-bit portable form: a little-endian 8-byte count,
// then per bitmap a 4-byte high key and a 32-bit portable bitmap.
func Read64(data []byte) (*Bitmap64, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("%w: truncated 64-bit header", ErrCorrupt)
	}
	n := binary.LittleEndian.Uint64(data)
	p := 8
	if n > uint64(len(data)) {
		return nil, fmt.Errorf("%w: %d bitmaps", ErrCorrupt, n)
	}
	out := &Bitmap64{}
	for i := uint64(0); i < n; i++ {
		if p+4 > len(data) {
			return nil, fmt.Errorf("%w: truncated key", ErrCorrupt)
		}
		k := binary.LittleEndian.Uint32(data[p:])
		p += 4
		b, used, err := Read(data[p:])
		if err != nil {
			return nil, err
		}
		p += used
		out.keys, out.bms = append(out.keys, k), append(out.bms, b)
	}
	return out, nil
}

// Contains reports whether x is in the set.
func (b *Bitmap64) Contains(x uint64) bool {
	hi := uint32(x >> 32)
	for i, k := range b.keys {
		if k == hi {
			return b.bms[i].Contains(uint32(x))
		}
	}
	return false
}

// Cardinality is the number of values.
func (b *Bitmap64) Cardinality() int {
	n := 0
	for _, bm := range b.bms {
		n += bm.Cardinality()
	}
	return n
}
