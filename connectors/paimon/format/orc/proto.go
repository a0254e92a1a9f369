package orc

import (
	"errors"
	"fmt"
)

// The ORC tail (PostScript, Footer, StripeFooter) is protobuf
// (orc_proto.proto). Only the fields a reader needs are decoded, with a
// small wire-format reader rather than generated code: unknown fields are
// skipped, as protobuf requires.

var errTruncated = errors.New("truncated protobuf message")

type pbReader struct {
	b   []byte
	err error
}

func (p *pbReader) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(p.b) == 0 {
			p.fail(errTruncated)
			return 0
		}
		c := p.b[0]
		p.b = p.b[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	p.fail(errors.New("protobuf varint too long"))
	return 0
}

func (p *pbReader) fail(err error) {
	if p.err == nil {
		p.err = err
	}
	p.b = nil
}

func (p *pbReader) bytes() []byte {
	n := p.uvarint()
	if n > uint64(len(p.b)) {
		p.fail(errTruncated)
		return nil
	}
	out := p.b[:n]
	p.b = p.b[n:]
	return out
}

// next returns the next field number and wire type; ok is false at the end
// or on error.
func (p *pbReader) next() (field int, wire int, ok bool) {
	if len(p.b) == 0 || p.err != nil {
		return 0, 0, false
	}
	k := p.uvarint()
	return int(k >> 3), int(k & 7), p.err == nil
}

func (p *pbReader) skip(wire int) {
	switch wire {
	case 0:
		p.uvarint()
	case 1:
		p.take(8)
	case 2:
		p.bytes()
	case 5:
		p.take(4)
	default:
		p.fail(fmt.Errorf("protobuf wire type %d not supported", wire))
	}
}

func (p *pbReader) take(n int) {
	if len(p.b) < n {
		p.fail(errTruncated)
		return
	}
	p.b = p.b[n:]
}

// varints reads a repeated uint field, packed (wire 2) or not.
func (p *pbReader) varints(wire int, out []uint64) []uint64 {
	if wire == 0 {
		return append(out, p.uvarint())
	}
	q := pbReader{b: p.bytes()}
	for len(q.b) > 0 && q.err == nil {
		out = append(out, q.uvarint())
	}
	if q.err != nil {
		p.fail(q.err)
	}
	return out
}

// postScript is the file's last message (orc_proto.PostScript).
type postScript struct {
	footerLength    uint64
	compression     uint64
	compressionSize uint64
	metadataLength  uint64
	magic           string
}

func parsePostScript(b []byte) (ps postScript, err error) {
	p := pbReader{b: b}
	for {
		f, w, ok := p.next()
		if !ok {
			break
		}
		switch {
		case f == 1 && w == 0:
			ps.footerLength = p.uvarint()
		case f == 2 && w == 0:
			ps.compression = p.uvarint()
		case f == 3 && w == 0:
			ps.compressionSize = p.uvarint()
		case f == 5 && w == 0:
			ps.metadataLength = p.uvarint()
		case f == 8000 && w == 2:
			ps.magic = string(p.bytes())
		default:
			p.skip(w)
		}
	}
	return ps, p.err
}

type stripeInfo struct {
	offset, indexLength, dataLength, footerLength, numRows uint64
}

type footer struct {
	stripes []stripeInfo
	types   []*Type
	numRows uint64
}

func parseFooter(b []byte) (ft footer, err error) {
	p := pbReader{b: b}
	for {
		f, w, ok := p.next()
		if !ok {
			break
		}
		switch {
		case f == 3 && w == 2:
			q := pbReader{b: p.bytes()}
			var s stripeInfo
			for {
				f, w, ok := q.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && w == 0:
					s.offset = q.uvarint()
				case f == 2 && w == 0:
					s.indexLength = q.uvarint()
				case f == 3 && w == 0:
					s.dataLength = q.uvarint()
				case f == 4 && w == 0:
					s.footerLength = q.uvarint()
				case f == 5 && w == 0:
					s.numRows = q.uvarint()
				case f == 6 || f == 7:
					// encryption: stripe keys
					return ft, fmt.Errorf("%w: encrypted ORC files", ErrUnsupported)
				default:
					q.skip(w)
				}
			}
			if q.err != nil {
				return ft, fmt.Errorf("stripe information: %w", q.err)
			}
			ft.stripes = append(ft.stripes, s)
		case f == 4 && w == 2:
			t, err := parseType(p.bytes())
			if err != nil {
				return ft, err
			}
			ft.types = append(ft.types, t)
		case f == 6 && w == 0:
			ft.numRows = p.uvarint()
		case f == 10 && w == 2:
			return ft, fmt.Errorf("%w: encrypted ORC files", ErrUnsupported)
		default:
			p.skip(w)
		}
	}
	return ft, p.err
}

func parseType(b []byte) (*Type, error) {
	p := pbReader{b: b}
	t := &Type{}
	var subs []uint64
	for {
		f, w, ok := p.next()
		if !ok {
			break
		}
		switch {
		case f == 1 && w == 0:
			t.Kind = Kind(p.uvarint())
		case f == 2 && (w == 0 || w == 2):
			subs = p.varints(w, subs)
		case f == 3 && w == 2:
			t.FieldNames = append(t.FieldNames, string(p.bytes()))
		case f == 4 && w == 0:
			t.MaxLength = int(p.uvarint())
		case f == 5 && w == 0:
			t.Precision = int(p.uvarint())
		case f == 6 && w == 0:
			t.Scale = int(p.uvarint())
		case f == 7 && w == 2:
			q := pbReader{b: p.bytes()}
			var k, v string
			for {
				f, w, ok := q.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && w == 2:
					k = string(q.bytes())
				case f == 2 && w == 2:
					v = string(q.bytes())
				default:
					q.skip(w)
				}
			}
			if q.err != nil {
				return nil, q.err
			}
			if t.Attributes == nil {
				t.Attributes = map[string]string{}
			}
			t.Attributes[k] = v
		default:
			p.skip(w)
		}
	}
	if p.err != nil {
		return nil, fmt.Errorf("type: %w", p.err)
	}
	for _, s := range subs {
		if s > 1<<24 {
			return nil, fmt.Errorf("type: subtype %d out of range", s)
		}
		t.subtypes = append(t.subtypes, int(s))
	}
	return t, nil
}

type streamInfo struct {
	kind, column, length uint64
}

type encoding struct {
	kind, dictSize uint64
}

type stripeFooter struct {
	streams   []streamInfo
	encodings []encoding
	timezone  string
}

func parseStripeFooter(b []byte) (sf stripeFooter, err error) {
	p := pbReader{b: b}
	for {
		f, w, ok := p.next()
		if !ok {
			break
		}
		switch {
		case f == 1 && w == 2:
			q := pbReader{b: p.bytes()}
			var s streamInfo
			for {
				f, w, ok := q.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && w == 0:
					s.kind = q.uvarint()
				case f == 2 && w == 0:
					s.column = q.uvarint()
				case f == 3 && w == 0:
					s.length = q.uvarint()
				default:
					q.skip(w)
				}
			}
			if q.err != nil {
				return sf, q.err
			}
			sf.streams = append(sf.streams, s)
		case f == 2 && w == 2:
			q := pbReader{b: p.bytes()}
			var e encoding
			for {
				f, w, ok := q.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && w == 0:
					e.kind = q.uvarint()
				case f == 2 && w == 0:
					e.dictSize = q.uvarint()
				default:
					q.skip(w)
				}
			}
			if q.err != nil {
				return sf, q.err
			}
			sf.encodings = append(sf.encodings, e)
		case f == 3 && w == 2:
			sf.timezone = string(p.bytes())
		case f == 4 && w == 2:
			return sf, fmt.Errorf("%w: encrypted ORC files", ErrUnsupported)
		default:
			p.skip(w)
		}
	}
	return sf, p.err
}
