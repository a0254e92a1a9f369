package mergetree

import (
	"fmt"
	"sync"
)

// MemoryPool lends the write buffers of one task's writers (every
// partition and bucket one TableWrite writes) their page chunks (64 KB
// doubling to 2 MiB, see chunkSize) and their indexes' memory outside the
// Go heap and takes them back when a buffer is flushed,
// spilled or closed, as Paimon's MemoryPoolFactory over a
// HeapMemorySegmentPool of write-buffer-size keeps its pages for the next
// fill: mapping fresh chunks for every fill made each checkpoint fault in
// (and the kernel zero) every page of the buffer again, a quarter of the
// primary-key write's CPU.
//
// The pool keeps a returned chunk while everything it has mapped (chunks
// lent and kept) is within its capacity, and unmaps it otherwise, so what
// it holds between fills is at most its capacity whatever the number of
// buckets. It does not bound what is lent: each buffer is bounded by its
// own limit (Paimon's pool instead preempts the largest other writer, a
// flush, when the task's pool is exhausted). Close unmaps the kept chunks;
// a chunk still lent is unmapped when it is returned, never while a
// buffer can read it. Safe for concurrent use.
type MemoryPool struct {
	mu       sync.Mutex
	capacity int64
	free     [chunkClasses][][]byte // kept chunks by class
	mapped   int64                  // bytes of chunks lent and kept
	lent     int                    // chunks lent
	maps     int                    // mappings made
	closed   bool
}

// NewMemoryPool returns a pool keeping at most capacity bytes of chunks.
func NewMemoryPool(capacity int64) *MemoryPool { return &MemoryPool{capacity: capacity} }

// minChunk is the smallest chunk (Paimon's page-size, 64 kb): a buffer's
// chunks double from it up to pageChunk, so a bucket holding a few records
// takes 64 KB for them, not a 2 MiB huge page.
const minChunk = 64 << 10

// chunkClass is the size class of a chunk of n bytes (minChunk << class),
// or -1 when n is not a class size.
func chunkClass(n int) int {
	for c, size := 0, minChunk; size <= pageChunk; c, size = c+1, size<<1 {
		if n == size {
			return c
		}
	}
	return -1
}

// chunkSize is the size of the chunk to lend for n bytes after a chunk of
// last bytes (0 for the first): double the last, at least n, and the
// smallest class that holds n, or n itself past pageChunk.
func chunkSize(last, n int) int {
	size := min(max(minChunk, 2*last), pageChunk)
	for size < n && size < pageChunk {
		size <<= 1
	}
	return max(size, n)
}

// get lends a chunk of n bytes: a kept one when n is a class size, a new
// mapping otherwise (a record larger than pageChunk gets its own).
func (p *MemoryPool) get(n int) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("mergetree: write buffer pages: memory pool closed")
	}
	if c := chunkClass(n); c >= 0 && len(p.free[c]) > 0 {
		free := p.free[c]
		b := free[len(free)-1]
		free[len(free)-1] = nil
		p.free[c] = free[:len(free)-1]
		p.lent++
		return b, nil
	}
	b, err := offHeapAlloc(n)
	if err != nil {
		return nil, fmt.Errorf("mergetree: write buffer pages: %w", err)
	}
	p.mapped += int64(cap(b))
	p.lent++
	p.maps++
	return b, nil
}

// put takes back chunks lent by get; the caller must not use them
// afterwards.
func (p *MemoryPool) put(chunks ...[]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range chunks {
		p.lent--
		if c := chunkClass(len(b)); c >= 0 && !p.closed && p.mapped <= p.capacity {
			if poisonReturned {
				for i := range b {
					b[i] = poisonByte
				}
			}
			p.free[c] = append(p.free[c], b)
			continue
		}
		p.mapped -= int64(cap(b))
		offHeapFree(b)
	}
}

// Close unmaps the kept chunks; chunks still lent are unmapped as they
// are returned, and nothing is lent afterwards.
func (p *MemoryPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c, free := range p.free {
		for _, b := range free {
			p.mapped -= int64(cap(b))
			offHeapFree(b)
		}
		p.free[c] = nil
	}
}

// MappedBytes is the memory the pool's chunks take, lent or kept.
func (p *MemoryPool) MappedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mapped
}

// chunkClasses counts the chunk sizes from minChunk to pageChunk.
const chunkClasses = 6

// poisonReturned makes put overwrite every chunk it keeps with poisonByte,
// so a test fails if anything still reads a returned chunk (a decoded
// value aliasing the pages, a buffer reading after it was flushed). Tests
// set it.
var poisonReturned = false

const poisonByte = 0xA5
