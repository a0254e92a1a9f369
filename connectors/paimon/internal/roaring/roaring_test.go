package roaring

import (
	"encoding/binary"
	"errors"
	"testing"
)

// build writes the portable format by the spec: each container given as
// (key, kind, values); runs as (start, lengthMinus1) pairs.
func build(withRuns bool, cs []struct {
	key  uint16
	kind byte
	vals []uint16
	bits map[uint16]bool
}) []byte {
	le16 := func(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
	le32 := func(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
	var out []byte
	n := len(cs)
	if withRuns {
		out = le32(out, uint32(cookieRun)|uint32(n-1)<<16)
		rb := make([]byte, (n+7)/8)
		for i, c := range cs {
			if c.kind == 'r' {
				rb[i/8] |= 1 << (i % 8)
			}
		}
		out = append(out, rb...)
	} else {
		out = le32(le32(out, cookieNoRun), uint32(n))
	}
	for _, c := range cs {
		card := len(c.vals)
		switch c.kind {
		case 'r':
			card = 0
			for j := 0; j < len(c.vals); j += 2 {
				card += int(c.vals[j+1]) + 1
			}
		case 'b':
			card = len(c.bits)
		}
		out = le16(le16(out, c.key), uint16(card-1))
	}
	if !withRuns || n >= 4 {
		for range cs {
			out = le32(out, 0)
		}
	}
	for _, c := range cs {
		switch c.kind {
		case 'r':
			out = le16(out, uint16(len(c.vals)/2))
			for _, v := range c.vals {
				out = le16(out, v)
			}
		case 'b':
			words := make([]uint64, 1024)
			for v := range c.bits {
				words[v>>6] |= 1 << (v & 63)
			}
			for _, w := range words {
				out = binary.LittleEndian.AppendUint64(out, w)
			}
		default:
			for _, v := range c.vals {
				out = le16(out, v)
			}
		}
	}
	return out
}

func TestRead(t *testing.T) {
	bits := map[uint16]bool{}
	for i := 0; i < 5000; i++ {
		bits[uint16(i*13)] = true
	}
	type ct = struct {
		key  uint16
		kind byte
		vals []uint16
		bits map[uint16]bool
	}
	for _, runs := range []bool{false, true} {
		cs := []ct{{0, 'a', []uint16{1, 5, 9}, nil}, {2, 'b', nil, bits}}
		if runs {
			cs = append(cs, ct{3, 'r', []uint16{10, 4, 100, 0}, nil}, ct{7, 'a', []uint16{65535}, nil})
		}
		data := build(runs, cs)
		b, used, err := Read(append(data, 0xEE)) // trailing byte not consumed
		if err != nil || used != len(data) {
			t.Fatalf("runs=%v: %v used %d of %d", runs, err, used, len(data))
		}
		in := []uint32{1, 5, 9, 2<<16 + 13, 2<<16 + 4999*13}
		out := []uint32{0, 2, 10, 1 << 16, 2<<16 + 1, 4<<16 + 10}
		if runs {
			in = append(in, 3<<16+10, 3<<16+14, 3<<16+100, 7<<16+65535)
			out = append(out, 3<<16+9, 3<<16+15, 3<<16+101, 3<<16+99)
		}
		for _, x := range in {
			if !b.Contains(x) {
				t.Errorf("runs=%v: %d missing", runs, x)
			}
		}
		for _, x := range out {
			if b.Contains(x) {
				t.Errorf("runs=%v: %d present", runs, x)
			}
		}
		want := 3 + 5000
		if runs {
			want += 5 + 1 + 1
		}
		if b.Cardinality() != want {
			t.Errorf("cardinality %d want %d", b.Cardinality(), want)
		}
		for cut := 0; cut < len(data); cut += 7 {
			if _, _, err := Read(data[:cut]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated at %d: %v", cut, err)
			}
		}
	}
	// 64-bit: two bitmaps with high keys 0 and 5.
	one := build(false, []ct{{0, 'a', []uint16{3}, nil}})
	data := binary.LittleEndian.AppendUint64(nil, 2)
	data = binary.LittleEndian.AppendUint32(data, 0)
	data = append(data, one...)
	data = binary.LittleEndian.AppendUint32(data, 5)
	data = append(data, one...)
	b64, err := Read64(data)
	if err != nil || !b64.Contains(3) || !b64.Contains(5<<32+3) || b64.Contains(4) || b64.Cardinality() != 2 {
		t.Fatalf("64-bit: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(build(true, []struct {
		key  uint16
		kind byte
		vals []uint16
		bits map[uint16]bool
	}{{1, 'r', []uint16{0, 10}, nil}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, _, err := Read(data); err == nil {
			b.Contains(12345)
		}
		if b, err := Read64(data); err == nil {
			b.Contains(1)
		}
	})
}
