package mergetree

import (
	"fmt"
	"unsafe"
)

// pageChunk is the size of the largest mapping of the write buffer's
// record pages. Paimon's write buffer takes pages of `page-size` (64 kb)
// from a pool of `write-buffer-size`; a buffer's chunks double from 64 KB
// (minChunk) to 2 MiB, which keeps the number of system calls small (a
// 256 MiB buffer is 133 mappings) and a bucket of a few records small. A
// record larger than pageChunk gets a mapping of its own.
const pageChunk = 2 << 20

// recordPages holds the serialized records of a write buffer in chunks
// its MemoryPool lends, mapped outside the Go heap (offHeapAlloc), so a
// full buffer costs its
// bytes once: the garbage collector neither scans it nor counts it toward
// the next collection's target (with the binary's GOGC=400 a buffer on the
// heap let the heap grow to five times the buffer). A record is addressed
// by a ref: chunk index << 32 | offset.
type recordPages struct {
	pool   *MemoryPool
	chunks [][]byte
	used   int   // bytes used in the last chunk
	bytes  int64 // bytes of records stored
}

// add copies rec into the pages and returns its ref.
func (p *recordPages) add(rec []byte) (uint64, error) {
	if len(p.chunks) == 0 || p.used+len(rec) > len(p.chunks[len(p.chunks)-1]) {
		last := 0
		if len(p.chunks) > 0 {
			last = len(p.chunks[len(p.chunks)-1])
		}
		c, err := p.pool.get(chunkSize(last, len(rec)))
		if err != nil {
			return 0, err
		}
		p.chunks = append(p.chunks, c)
		p.used = 0
	}
	ci := len(p.chunks) - 1
	ref := uint64(ci)<<32 | uint64(p.used)
	copy(p.chunks[ci][p.used:], rec)
	p.used += len(rec)
	p.bytes += int64(len(rec))
	return ref, nil
}

// at returns the record bytes at ref, n bytes long. The slice points into
// the pages: it is valid until release (the pool then lends the chunk
// to the next fill).
func (p *recordPages) at(ref uint64, n int) []byte {
	c := p.chunks[ref>>32]
	off := int(uint32(ref))
	return c[off : off+n : off+n]
}

// mapped is the memory the pages hold, records or not.
func (p *recordPages) mapped() int64 {
	var n int64
	for _, c := range p.chunks {
		n += int64(len(c))
	}
	return n
}

// release returns every chunk to the pool.
func (p *recordPages) release() {
	p.pool.put(p.chunks...)
	clear(p.chunks)
	p.chunks, p.used, p.bytes = p.chunks[:0], 0, 0
}

// bufEntry is one record of the write buffer's index: the sort key of the
// integer-key fast path (unused otherwise), the sequence number and where
// the record is. It holds no pointers, so the index lives outside the heap
// as well.
type bufEntry struct {
	key, seq int64
	ref      uint64
	size     uint32
	kind     int8
}

const entrySize = int(unsafe.Sizeof(bufEntry{}))

// entryIndex is a growable array of bufEntry outside the Go heap, in
// memory of its buffer's pool (chunkSize's classes, then its own mappings
// past pageChunk).
type entryIndex struct {
	pool  *MemoryPool
	mem   []byte
	ents  []bufEntry // len = records, cap = what mem holds
	moves int        // mappings the index moved to, over the buffer's life
}

// append adds e; when the index is full it moves to a larger mapping,
// of at least want entries when want is above its own growth.
func (x *entryIndex) append(e bufEntry, want int) error {
	if len(x.ents) == cap(x.ents) {
		size := chunkSize(len(x.mem), 0)
		if len(x.mem) >= pageChunk {
			size = max(len(x.mem)+len(x.mem)/2, want*entrySize)
			size = (size + pageChunk - 1) &^ (pageChunk - 1)
		}
		mem, err := x.pool.get(size)
		if err != nil {
			return fmt.Errorf("mergetree: write buffer index: %w", err)
		}
		ents := unsafe.Slice((*bufEntry)(unsafe.Pointer(unsafe.SliceData(mem))), size/entrySize)[:len(x.ents)]
		copy(ents, x.ents)
		if x.mem != nil {
			x.pool.put(x.mem)
		}
		x.mem, x.ents = mem, ents
		x.moves++
	}
	x.ents = append(x.ents, e)
	return nil
}

func (x *entryIndex) mapped() int64 { return int64(len(x.mem)) }

func (x *entryIndex) release() {
	if x.mem != nil {
		x.pool.put(x.mem)
	}
	x.mem, x.ents = nil, nil
}
