package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// parquet-go's thrift decoder sizes a list, string or binary from the
// length the data declares before reading it, so a damaged footer or page
// header that declares a list of 10^9 elements makes it allocate that
// much: a fatal out-of-memory error, which no recover() catches (found by
// FuzzOpenRead). checkCompact walks a thrift compact-protocol struct
// without allocating and refuses any length the bytes cannot hold, so
// only well-bounded input reaches the decoder.

// errThriftTruncated: the struct runs past the bytes given (a longer read
// may hold it).
var errThriftTruncated = errors.New("thrift struct truncated")

// maxThriftDepth bounds nesting (Parquet's footer nests a few levels).
const maxThriftDepth = 32

// checkCompact validates the thrift compact-protocol struct at the start of
// b and returns its length in bytes.
func checkCompact(b []byte) (int, error) {
	c := compactChecker{b: b}
	if err := c.structBody(0); err != nil {
		return 0, err
	}
	return c.off, nil
}

type compactChecker struct {
	b   []byte
	off int
}

func (c *compactChecker) byte1() (byte, error) {
	if c.off >= len(c.b) {
		return 0, errThriftTruncated
	}
	c.off++
	return c.b[c.off-1], nil
}

func (c *compactChecker) varint() (uint64, error) {
	v, n := binary.Uvarint(c.b[c.off:])
	if n == 0 {
		return 0, errThriftTruncated
	}
	if n < 0 {
		return 0, fmt.Errorf("thrift varint overflows")
	}
	c.off += n
	return v, nil
}

func (c *compactChecker) skip(n uint64) error {
	if n > uint64(len(c.b)-c.off) {
		return errThriftTruncated
	}
	c.off += int(n)
	return nil
}

func (c *compactChecker) structBody(depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("thrift struct nested over %d levels", maxThriftDepth)
	}
	for {
		h, err := c.byte1()
		if err != nil {
			return err
		}
		t := h & 0x0f
		if t == 0 { // STOP
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := c.varint(); err != nil {
				return err
			}
		}
		if err := c.value(t, depth); err != nil {
			return err
		}
	}
}

// value skips one value of compact type t (in a field: booleans carry
// their value in the type, so they take no bytes).
func (c *compactChecker) value(t byte, depth int) error {
	switch t {
	case 1, 2: // BOOLEAN_TRUE, BOOLEAN_FALSE
		return nil
	case 3: // BYTE
		_, err := c.byte1()
		return err
	case 4, 5, 6: // I16, I32, I64
		_, err := c.varint()
		return err
	case 7: // DOUBLE
		return c.skip(8)
	case 8: // BINARY / STRING
		n, err := c.varint()
		if err != nil {
			return err
		}
		return c.skip(n)
	case 9, 10: // LIST, SET
		h, err := c.byte1()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = c.varint(); err != nil {
				return err
			}
		}
		// Every element takes at least one byte.
		if n > uint64(len(c.b)-c.off) {
			return errThriftTruncated
		}
		et := h & 0x0f
		for i := uint64(0); i < n; i++ {
			if et == 1 || et == 2 { // booleans in a list take a byte each
				if _, err := c.byte1(); err != nil {
					return err
				}
				continue
			}
			if err := c.value(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // MAP
		n, err := c.varint()
		if err != nil || n == 0 {
			return err
		}
		if n > uint64(len(c.b)-c.off) {
			return errThriftTruncated
		}
		kv, err := c.byte1()
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			for _, et := range []byte{kv >> 4, kv & 0x0f} {
				if et == 1 || et == 2 {
					if _, err := c.byte1(); err != nil {
						return err
					}
					continue
				}
				if err := c.value(et, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	case 12: // STRUCT
		return c.structBody(depth + 1)
	}
	return fmt.Errorf("thrift compact type %d unknown", t)
}

// checkFooter validates a Parquet file's footer before parquet-go decodes
// it (see checkCompact).
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return nil // parquet-go reports a file too small
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(tail[4:]) != "PAR1" {
		return nil // parquet-go reports it with its own message
	}
	if n > size-12 {
		// parquet-go would allocate the declared length (up to 4 GiB)
		// before finding out.
		return fmt.Errorf("parquet footer of %d bytes does not fit in a file of %d bytes", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	if _, err := checkCompact(footer); err != nil {
		return fmt.Errorf("parquet footer: %w", err)
	}
	return nil
}
