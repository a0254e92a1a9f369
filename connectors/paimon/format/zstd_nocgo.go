//go:build !cgo

package format

import kzstd "github.com/klauspost/compress/zstd"

// pageEncoder compresses a page with klauspost's pure-Go zstd where the
// binary is built without cgo (zstd_cgo.go uses the reference library),
// at the nearest of its levels to zstd's: 1 is SpeedFastest.
type pageEncoder struct{ enc *kzstd.Encoder }

func newPageEncoder(level int) (*pageEncoder, error) {
	e, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.EncoderLevelFromZstd(level)), kzstd.WithEncoderConcurrency(1),
		kzstd.WithWindowSize(zstdWindow), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
	if err != nil {
		return nil, err
	}
	return &pageEncoder{enc: e}, nil
}

func (e *pageEncoder) encode(dst, src []byte) ([]byte, error) { return e.enc.EncodeAll(src, dst), nil }

// pageDecoder decompresses pages with klauspost's decoder where the binary
// is built without cgo (zstd_cgo.go uses the reference library).
type pageDecoder struct{ dec *kzstd.Decoder }

func newPageDecoder() (*pageDecoder, error) {
	d, err := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderLowmem(false))
	if err != nil {
		return nil, err
	}
	return &pageDecoder{dec: d}, nil
}

// decode appends the zstd frames of src, decompressed, to dst.
func (d *pageDecoder) decode(dst, src []byte) ([]byte, error) { return d.dec.DecodeAll(src, dst) }

func (d *pageDecoder) close() { d.dec.Close() }
