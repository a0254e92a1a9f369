//go:build cgo

package mergetree

import (
	"fmt"

	dzstd "github.com/DataDog/zstd"
)

// spillEncoder compresses a spill file's block with the reference zstd
// library (libzstd, compiled into the binary as for the Parquet pages:
// format's pageEncoder), the library zstd-jni wraps for Paimon's spill
// channels, at spill-compression.zstd-level. At level 1 it is faster than
// klauspost's SpeedFastest on a write buffer's records, which it replaced:
// after the spill stopped unpacking records, compressing them was most of
// the spill's CPU (issue 24). Reading a run back takes any zstd frame
// (klauspost's decoder).
type spillEncoder struct {
	ctx   dzstd.Ctx
	level int
}

func newSpillEncoder(level int) (*spillEncoder, error) {
	return &spillEncoder{ctx: dzstd.NewCtx(), level: level}, nil
}

// encode compresses src into one zstd frame, in dst's memory when it has
// room for the worst case.
func (e *spillEncoder) encode(dst, src []byte) ([]byte, error) {
	out, err := e.ctx.CompressLevel(dst, src, e.level)
	if err != nil {
		return nil, fmt.Errorf("zstd level %d: %w", e.level, err)
	}
	return out, nil
}
