package mergetree

import (
	"fmt"
	"sync"
)

// MemoryPool lends the write buffers of one task's writers (every
// partition and bucket one TableWrite writes) their 2 MiB page chunks
// outside the Go heap and takes them back when a buffer is flushed,
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
	free     [][]byte
	mapped   int64 // bytes of chunks lent and kept
	lent     int   // chunks lent
	maps     int   // mappings made
	closed   bool
}

// NewMemoryPool returns a pool keeping at most capacity bytes of chunks.
func NewMemoryPool(capacity int64) *MemoryPool { return &MemoryPool{capacity: capacity} }

// get lends a chunk of n bytes: a kept one when n is the chunk size, a new
// mapping otherwise (a record larger than a chunk gets its own).
func (p *MemoryPool) get(n int) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("mergetree: write buffer pages: memory pool closed")
	}
	if n == pageChunk && len(p.free) > 0 {
		c := p.free[len(p.free)-1]
		p.free[len(p.free)-1] = nil
		p.free = p.free[:len(p.free)-1]
		p.lent++
		return c, nil
	}
	c, err := offHeapAlloc(n)
	if err != nil {
		return nil, fmt.Errorf("mergetree: write buffer pages: %w", err)
	}
	p.mapped += int64(cap(c))
	p.lent++
	p.maps++
	return c, nil
}

// put takes back chunks lent by get; the caller must not use them
// afterwards.
func (p *MemoryPool) put(chunks [][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range chunks {
		p.lent--
		if !p.closed && len(c) == pageChunk && p.mapped <= p.capacity {
			if poisonReturned {
				for i := range c {
					c[i] = poisonByte
				}
			}
			p.free = append(p.free, c)
			continue
		}
		p.mapped -= int64(cap(c))
		offHeapFree(c)
	}
}

// Close unmaps the kept chunks; chunks still lent are unmapped as they
// are returned, and nothing is lent afterwards.
func (p *MemoryPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.free {
		p.mapped -= int64(cap(c))
		offHeapFree(c)
	}
	p.free = nil
}

// MappedBytes is the memory the pool's chunks take, lent or kept.
func (p *MemoryPool) MappedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mapped
}

// poisonReturned makes put overwrite every chunk it keeps with poisonByte,
// so a test fails if anything still reads a returned chunk (a decoded
// value aliasing the pages, a buffer reading after it was flushed). Tests
// set it.
var poisonReturned = false

const poisonByte = 0xA5
