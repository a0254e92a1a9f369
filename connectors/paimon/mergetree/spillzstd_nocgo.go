//go:build !cgo

package mergetree

import "github.com/klauspost/compress/zstd"

// spillEncoder compresses a spill file's block with klauspost's pure-Go
// zstd where the binary is built without cgo (spillzstd_cgo.go uses the
// reference library), at the nearest of its levels to
// spill-compression.zstd-level: 1 is SpeedFastest.
type spillEncoder struct{ enc *zstd.Encoder }

func newSpillEncoder(level int) (*spillEncoder, error) {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(spillBlock), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, err
	}
	return &spillEncoder{enc: e}, nil
}

func (e *spillEncoder) encode(dst, src []byte) ([]byte, error) { return e.enc.EncodeAll(src, dst), nil }
