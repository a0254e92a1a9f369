package orc

import (
	"errors"
	"fmt"
	"math/big"
)

var errShort = errors.New("stream ends early")

// byteStream is a decompressed stream being consumed.
type byteStream struct {
	b []byte
}

func (s *byteStream) byte() (byte, error) {
	if len(s.b) == 0 {
		return 0, errShort
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c, nil
}

func (s *byteStream) take(n int) ([]byte, error) {
	if n < 0 || n > len(s.b) {
		return nil, errShort
	}
	out := s.b[:n:n]
	s.b = s.b[n:]
	return out, nil
}

func (s *byteStream) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := s.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint too long")
}

func (s *byteStream) varint() (int64, error) {
	u, err := s.uvarint()
	return unzigzag(u), err
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// bigVarint reads a zigzag varint of any length (decimal DATA streams):
// small holds it when it fits 63 bits, otherwise big.
func (s *byteStream) bigVarint() (small int64, bigv *big.Int, err error) {
	start := s.b
	n := 0
	for {
		c, err := s.byte()
		if err != nil {
			return 0, nil, err
		}
		n++
		if c < 0x80 {
			break
		}
		if n > 40 {
			return 0, nil, errors.New("decimal varint too long")
		}
	}
	g := start[:n]
	if n <= 9 {
		var u uint64
		for i := n - 1; i >= 0; i-- {
			u = u<<7 | uint64(g[i]&0x7f)
		}
		return unzigzag(u), nil, nil
	}
	acc := new(big.Int)
	for i := n - 1; i >= 0; i-- {
		acc.Lsh(acc, 7)
		acc.Or(acc, big.NewInt(int64(g[i]&0x7f)))
	}
	neg := acc.Bit(0) == 1
	acc.Rsh(acc, 1)
	if neg {
		acc.Neg(acc).Sub(acc, big.NewInt(1))
	}
	return 0, acc, nil
}

// readByteRLE decodes n bytes of byte run-length encoding.
func readByteRLE(s *byteStream, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for len(out) < n {
		h, err := s.byte()
		if err != nil {
			return nil, err
		}
		if h < 0x80 { // run of h+3 copies
			v, err := s.byte()
			if err != nil {
				return nil, err
			}
			for i := 0; i < int(h)+3; i++ {
				out = append(out, v)
			}
		} else { // 256-h literals
			lit, err := s.take(256 - int(h))
			if err != nil {
				return nil, err
			}
			out = append(out, lit...)
		}
	}
	return out[:n], nil
}

// readBools decodes n booleans (byte RLE, most significant bit first).
func readBools(s *byteStream, n int) ([]bool, error) {
	b, err := readByteRLE(s, (n+7)/8)
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = b[i>>3]&(0x80>>(i&7)) != 0
	}
	return out, nil
}

// readInts decodes n integers of run-length encoding version 1 or 2.
func readInts(s *byteStream, n int, signed, v2 bool) ([]int64, error) {
	out := make([]int64, 0, n)
	var err error
	for len(out) < n && err == nil {
		if v2 {
			out, err = rleV2Run(s, out, signed)
		} else {
			out, err = rleV1Run(s, out, signed)
		}
	}
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

func rleV1Run(s *byteStream, out []int64, signed bool) ([]int64, error) {
	h, err := s.byte()
	if err != nil {
		return nil, err
	}
	read := s.uvarint
	if signed {
		read = func() (uint64, error) { v, err := s.varint(); return uint64(v), err }
	}
	if h < 0x80 {
		d, err := s.byte()
		if err != nil {
			return nil, err
		}
		base, err := read()
		if err != nil {
			return nil, err
		}
		for i := 0; i < int(h)+3; i++ {
			out = append(out, int64(base)+int64(i)*int64(int8(d)))
		}
		return out, nil
	}
	for i := 0; i < 256-int(h); i++ {
		v, err := read()
		if err != nil {
			return nil, err
		}
		out = append(out, int64(v))
	}
	return out, nil
}

// widths maps the 5-bit width code of RLE v2 to a bit width.
func decodeWidth(code int) int {
	switch {
	case code <= 23:
		return code + 1
	case code == 24:
		return 26
	case code == 25:
		return 28
	case code == 26:
		return 30
	case code == 27:
		return 32
	case code == 28:
		return 40
	case code == 29:
		return 48
	case code == 30:
		return 56
	}
	return 64
}

func closestFixedBits(n int) int {
	switch {
	case n == 0:
		return 1
	case n <= 24:
		return n
	case n <= 26:
		return 26
	case n <= 28:
		return 28
	case n <= 30:
		return 30
	case n <= 32:
		return 32
	case n <= 40:
		return 40
	case n <= 48:
		return 48
	case n <= 56:
		return 56
	}
	return 64
}

// unpack reads n big-endian bit-packed values of width bits.
func unpack(s *byteStream, n, width int) ([]uint64, error) {
	if n < 0 || width < 1 || width > 64 {
		return nil, fmt.Errorf("bit width %d", width)
	}
	nbytes := (n*width + 7) / 8
	b, err := s.take(nbytes)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, n)
	bit := 0
	for i := range out {
		var v uint64
		for need := width; need > 0; {
			cur := b[bit>>3]
			avail := 8 - bit&7
			k := avail
			if k > need {
				k = need
			}
			v = v<<k | uint64(cur>>(avail-k))&(1<<k-1)
			need -= k
			bit += k
		}
		out[i] = v
	}
	return out, nil
}

func rleV2Run(s *byteStream, out []int64, signed bool) ([]int64, error) {
	h, err := s.byte()
	if err != nil {
		return nil, err
	}
	fix := func(u uint64) int64 {
		if signed {
			return unzigzag(u)
		}
		return int64(u)
	}
	switch h >> 6 {
	case 0: // SHORT_REPEAT
		w := int(h>>3&7) + 1
		b, err := s.take(w)
		if err != nil {
			return nil, err
		}
		var u uint64
		for _, c := range b {
			u = u<<8 | uint64(c)
		}
		v := fix(u)
		for i := 0; i < int(h&7)+3; i++ {
			out = append(out, v)
		}
		return out, nil
	case 1: // DIRECT
		h2, err := s.byte()
		if err != nil {
			return nil, err
		}
		w := decodeWidth(int(h >> 1 & 31))
		n := int(h&1)<<8 | int(h2) + 1
		vs, err := unpack(s, n, w)
		if err != nil {
			return nil, err
		}
		for _, u := range vs {
			out = append(out, fix(u))
		}
		return out, nil
	case 2: // PATCHED_BASE
		hb, err := s.take(3)
		if err != nil {
			return nil, err
		}
		w := decodeWidth(int(h >> 1 & 31))
		n := int(h&1)<<8 | int(hb[0]) + 1
		bw := int(hb[1]>>5&7) + 1
		pw := decodeWidth(int(hb[1] & 31))
		pgw := int(hb[2]>>5&7) + 1
		pll := int(hb[2] & 31)
		bb, err := s.take(bw)
		if err != nil {
			return nil, err
		}
		var base uint64
		for _, c := range bb {
			base = base<<8 | uint64(c)
		}
		mask := uint64(1) << (uint(bw)*8 - 1)
		b := int64(base &^ mask)
		if base&mask != 0 {
			b = -b
		}
		vs, err := unpack(s, n, w)
		if err != nil {
			return nil, err
		}
		if pw+pgw > 64 {
			return nil, fmt.Errorf("patch width %d + gap width %d", pw, pgw)
		}
		ps, err := unpack(s, pll, closestFixedBits(pw+pgw))
		if err != nil {
			return nil, err
		}
		pos := 0
		for _, p := range ps {
			pos += int(p >> uint(pw))
			patch := p & (1<<uint(pw) - 1)
			if pw == 64 {
				patch = p
			}
			if patch == 0 {
				continue // a gap longer than 255 is split with empty patches
			}
			if pos >= n {
				return nil, fmt.Errorf("patch position %d past %d values", pos, n)
			}
			if w < 64 {
				vs[pos] |= patch << uint(w)
			}
		}
		for _, u := range vs {
			out = append(out, b+int64(u))
		}
		return out, nil
	default: // DELTA
		h2, err := s.byte()
		if err != nil {
			return nil, err
		}
		code := int(h >> 1 & 31)
		w := 0
		if code != 0 {
			w = decodeWidth(code)
		}
		n := int(h&1)<<8 | int(h2) + 1
		var base int64
		if signed {
			base, err = s.varint()
		} else {
			var u uint64
			u, err = s.uvarint()
			base = int64(u)
		}
		if err != nil {
			return nil, err
		}
		delta, err := s.varint()
		if err != nil {
			return nil, err
		}
		out = append(out, base)
		if n == 1 {
			return out, nil
		}
		prev := base + delta
		out = append(out, prev)
		if w == 0 {
			for i := 2; i < n; i++ {
				prev += delta
				out = append(out, prev)
			}
			return out, nil
		}
		if n < 2 {
			return out, nil
		}
		ds, err := unpack(s, n-2, w)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if delta < 0 {
				prev -= int64(d)
			} else {
				prev += int64(d)
			}
			out = append(out, prev)
		}
		return out, nil
	}
}
