package mergetree

import (
	"fmt"
	"unsafe"
)

// pageChunk is the size of one mapping of the write buffer's record pages.
// Paimon's write buffer takes pages of `page-size` (64 kb) from a pool of
// `write-buffer-size`; mapping 2 MiB at a time keeps the number of system
// calls small (a 256 MiB buffer is 128 mappings), makes each chunk one
// transparent huge page on Linux (offHeapAlloc), and a record larger than
// a chunk gets a mapping of its own.
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
		c, err := p.pool.get(max(pageChunk, len(rec)))
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
	p.pool.put(p.chunks)
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

// entryIndex is a growable array of bufEntry outside the Go heap.
type entryIndex struct {
	mem  []byte
	ents []bufEntry // len = records, cap = what mem holds
}

func (x *entryIndex) append(e bufEntry) error {
	if len(x.ents) == cap(x.ents) {
		n := max(1024, cap(x.ents)+cap(x.ents)/2)
		mem, err := offHeapAlloc(n * entrySize)
		if err != nil {
			return fmt.Errorf("mergetree: write buffer index: %w", err)
		}
		ents := unsafe.Slice((*bufEntry)(unsafe.Pointer(unsafe.SliceData(mem))), n)[:len(x.ents)]
		copy(ents, x.ents)
		if x.mem != nil {
			offHeapFree(x.mem)
		}
		x.mem, x.ents = mem, ents
	}
	x.ents = append(x.ents, e)
	return nil
}

func (x *entryIndex) mapped() int64 { return int64(len(x.mem)) }

func (x *entryIndex) release() {
	if x.mem != nil {
		offHeapFree(x.mem)
	}
	x.mem, x.ents = nil, nil
}
