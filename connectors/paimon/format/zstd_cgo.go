//go:build cgo

package format

import (
	"fmt"

	dzstd "github.com/DataDog/zstd"
)

// pageEncoder compresses a page with the reference zstd library (libzstd,
// compiled into the binary; pebble links the same one), the library
// zstd-jni wraps and parquet-java's ZstandardCodec calls for Paimon's
// writer, at zstd's own level. At level 1 on the PLAIN string pages of
// Paimon's TableWriterBenchmark row it is about 1.5x as fast as
// klauspost's SpeedFastest and its frames 2 % smaller (BenchmarkZstdPage);
// it was 41 % of a cold primary-key write's CPU (issue 14).
type pageEncoder struct {
	ctx   dzstd.Ctx
	level int
}

func newPageEncoder(level int) (*pageEncoder, error) {
	return &pageEncoder{ctx: dzstd.NewCtx(), level: level}, nil
}

// encode compresses src into one zstd frame in dst's memory when it has
// room for the worst case, in a new slice otherwise.
func (e *pageEncoder) encode(dst, src []byte) ([]byte, error) {
	out, err := e.ctx.CompressLevel(dst, src, e.level)
	if err != nil {
		return nil, fmt.Errorf("zstd level %d: %w", e.level, err)
	}
	return out, nil
}

// pageDecoder decompresses pages with the reference zstd library, which
// decodes the PLAIN string pages of the bench's 4M-row table in about
// half the CPU klauspost's decoder takes (issue 24: zstd was 40-45 % of a
// filtered read's CPU). A page decompresses straight into the reader's
// buffer, whose room (the page's size plus decodeSlack) the caller sized
// from the page header.
type pageDecoder struct{ ctx dzstd.Ctx }

func newPageDecoder() (*pageDecoder, error) { return &pageDecoder{ctx: dzstd.NewCtx()}, nil }

// decode appends the zstd frames of src, decompressed, to dst.
func (d *pageDecoder) decode(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst, nil
	}
	if room := dst[len(dst):cap(dst)]; len(room) > 0 {
		n, err := d.ctx.DecompressInto(room, src)
		if err == nil {
			return dst[:len(dst)+n], nil
		}
		if !dzstd.IsDstSizeTooSmallError(err) {
			return nil, err
		}
	}
	out, err := d.ctx.Decompress(nil, src)
	if err != nil {
		return nil, err
	}
	return append(dst, out...), nil
}

func (d *pageDecoder) close() {}
