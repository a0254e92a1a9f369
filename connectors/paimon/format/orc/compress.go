package orc

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// maxStream bounds the decompressed size of one stream (1 GiB), so that a
// damaged length cannot make the reader allocate without limit.
const maxStream = 1 << 30

var zstdDec = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxStream))
	if err != nil {
		panic(err)
	}
	return d
})

// decompress undoes the chunk framing of a compressed stream: each chunk
// has a 3-byte little-endian header holding length<<1 | isOriginal.
func (f *File) decompress(b []byte) ([]byte, error) {
	if f.comp == compNone {
		return b, nil
	}
	var out []byte
	for len(b) > 0 {
		if len(b) < 3 {
			return nil, fmt.Errorf("truncated chunk header")
		}
		h := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		b = b[3:]
		n := h >> 1
		if n > len(b) {
			return nil, fmt.Errorf("chunk of %d bytes, %d left", n, len(b))
		}
		chunk := b[:n]
		b = b[n:]
		if h&1 == 1 {
			out = append(out, chunk...)
		} else {
			var err error
			if out, err = f.inflate(out, chunk); err != nil {
				return nil, fmt.Errorf("%s chunk: %w", compNames[f.comp], err)
			}
		}
		if len(out) > maxStream {
			return nil, fmt.Errorf("stream larger than %d bytes", maxStream)
		}
	}
	return out, nil
}

// inflate appends the decompressed chunk to out; no chunk decompresses to
// more than the file's compression block size.
func (f *File) inflate(out, chunk []byte) ([]byte, error) {
	switch f.comp {
	case compZlib:
		r := flate.NewReader(bytes.NewReader(chunk))
		defer r.Close()
		var buf bytes.Buffer
		n, err := io.Copy(&buf, io.LimitReader(r, int64(f.blockSize)+1))
		if err != nil {
			return nil, err
		}
		if n > int64(f.blockSize) {
			return nil, fmt.Errorf("chunk larger than the block size %d", f.blockSize)
		}
		return append(out, buf.Bytes()...), nil
	case compSnappy:
		n, err := s2.DecodedLen(chunk)
		if err != nil {
			return nil, err
		}
		if n > f.blockSize {
			return nil, fmt.Errorf("chunk of %d bytes, larger than the block size %d", n, f.blockSize)
		}
		d, err := s2.Decode(nil, chunk)
		if err != nil {
			return nil, err
		}
		return append(out, d...), nil
	case compLZ4:
		buf := make([]byte, f.blockSize)
		n, err := lz4.UncompressBlock(chunk, buf)
		if err != nil {
			return nil, err
		}
		return append(out, buf[:n]...), nil
	case compZstd:
		d, err := zstdDec().DecodeAll(chunk, nil)
		if err != nil {
			return nil, err
		}
		if len(d) > f.blockSize {
			return nil, fmt.Errorf("chunk of %d bytes, larger than the block size %d", len(d), f.blockSize)
		}
		return append(out, d...), nil
	}
	return nil, fmt.Errorf("%w: %s compression", ErrUnsupported, compNames[f.comp])
}
