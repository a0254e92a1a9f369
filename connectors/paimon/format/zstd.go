package format

import (
	"sync"

	pformat "github.com/parquet-go/parquet-go/format"
)

// zstdCodec compresses data pages with zstd at one level, with encoders
// shared by every writer of the process. parquet-go's zstd.Codec keeps its
// encoders in a sync.Pool of its own, and each file's writer had a Codec of
// its own, so every file written (and every file after a garbage
// collection emptied the pool) built an encoder with the library's default
// 8 MiB window: a 16 MiB history buffer allocated per file, several of them
// live while a flush and a compaction write at once. A page is compressed
// on its own (one frame). The encoder is the reference zstd library where
// the binary is built with cgo (pageEncoder, zstd_cgo.go), the library
// zstd-jni wraps for Paimon's writer, and klauspost's pure-Go one otherwise.
type zstdCodec struct {
	level int // zstd's own level (file.compression.zstd-level)
	mu    sync.Mutex
	free  []*pageEncoder
}

// zstdWindow is the pure-Go encoder's window: pageSize rounded up to a
// power of two, so a page of up to 1 MiB is matched against all of itself
// (the reference zstd lowers its window to the source's size the same
// way), and the history needed is twice that.
const zstdWindow = 1 << 20

// maxFreeEncoders bounds the idle encoders kept per level: writers of a
// flush, a compaction and a few buckets at once.
const maxFreeEncoders = 4

var (
	zstdCodecsMu sync.Mutex
	zstdCodecs   = map[int]*zstdCodec{}
	zstdDecoders decoderPool // decoding only (the readers look codecs up by id)
)

// decoderPool keeps idle zstd decoders for page decompression. parquet-go's
// zstd.Codec keeps its decoders in a sync.Pool, which every second garbage
// collection empties: a batch read that collects a few times a second
// rebuilt its decoders (and their literal and sequence buffers) as often.
// A decoder decompresses one page at a time (DecodeAll, concurrency 1, no
// goroutines of its own), so the pool holds a few of them for good.
type decoderPool struct {
	mu   sync.Mutex
	free []*pageDecoder
}

// maxFreeDecoders bounds the idle decoders kept: one per reading
// goroutine at a time.
const maxFreeDecoders = 8

// Decode decompresses the zstd frames of src, appending to dst.
func (p *decoderPool) Decode(dst, src []byte) ([]byte, error) {
	p.mu.Lock()
	var d *pageDecoder
	if n := len(p.free); n > 0 {
		d = p.free[n-1]
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if d == nil {
		var err error
		if d, err = newPageDecoder(); err != nil {
			return nil, err
		}
	}
	out, err := d.decode(dst, src)
	p.mu.Lock()
	if len(p.free) < maxFreeDecoders {
		p.free = append(p.free, d)
		d = nil
	}
	p.mu.Unlock()
	if d != nil {
		d.close()
	}
	return out, err
}

// zstdCodecOf returns the shared codec of a zstd level.
func zstdCodecOf(level int) *zstdCodec {
	zstdCodecsMu.Lock()
	defer zstdCodecsMu.Unlock()
	c := zstdCodecs[level]
	if c == nil {
		c = &zstdCodec{level: level}
		zstdCodecs[level] = c
	}
	return c
}

func (c *zstdCodec) String() string { return "ZSTD" }

func (c *zstdCodec) CompressionCodec() pformat.CompressionCodec { return pformat.Zstd }

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	e, err := c.get()
	if err != nil {
		return nil, err
	}
	out, err := e.encode(dst[:0], src)
	c.put(e)
	return out, err
}

func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return zstdDecoders.Decode(dst[:0], src) }

func (c *zstdCodec) get() (*pageEncoder, error) {
	c.mu.Lock()
	if n := len(c.free); n > 0 {
		e := c.free[n-1]
		c.free = c.free[:n-1]
		c.mu.Unlock()
		return e, nil
	}
	c.mu.Unlock()
	return newPageEncoder(c.level)
}

func (c *zstdCodec) put(e *pageEncoder) {
	c.mu.Lock()
	if len(c.free) < maxFreeEncoders {
		c.free = append(c.free, e)
	}
	c.mu.Unlock()
}
