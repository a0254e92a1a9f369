package mergetree

import (
	"container/heap"
	"errors"
	"fmt"
	"unsafe"

	"github.com/sqlrun/sqlrun/connectors/paimon/internal/prefetch"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/internal/box"
)

// KV is the record every part of the merge tree passes around.
type KV = kv.KeyValue

// Iterator is a forward iterator over records, modelled on pebble's internal
// iterator contract:
//
//   - Next returns the next record, or nil when the iterator is exhausted or
//     has failed; after nil, Error tells which. Once Next has returned nil it
//     keeps returning nil.
//   - Records are never reused by the iterator, so a caller may keep them
//     after calling Next again; callers must not modify them.
//   - Errors accumulate: Error returns the first failure (also from Close).
//   - Close must be called exactly once, also after an error; it releases
//     underlying readers and returns the accumulated error.
//   - An Iterator is not safe for concurrent use.
//
// Sorted iterators (one file, one sorted run, a merge of runs) return records
// by key ascending and, within a key, oldest first (SeqOrder).
type Iterator interface {
	Next() *KV
	Error() error
	Close() error
}

// SliceIter iterates over records held in memory.
type SliceIter struct {
	recs []*KV
	pos  int
}

// NewSliceIter iterates recs in the given order (callers sort them).
func NewSliceIter(recs []*KV) *SliceIter { return &SliceIter{recs: recs} }

// Next implements Iterator.
func (it *SliceIter) Next() *KV {
	if it.pos >= len(it.recs) {
		return nil
	}
	r := it.recs[it.pos]
	it.prefetch()
	it.pos++
	return r
}

// The prefetch pipeline's distances, in records ahead of the one returned.
const (
	aheadRecord = 16 // the KV struct
	aheadSlices = 8  // its value and key slices
	aheadValues = 4  // what each value's interface points at (a string header, a boxed number)
	aheadBytes  = 2  // each string's bytes
)

// prefetch hints the memory of the records a few calls ahead into cache,
// one level of indirection per stage, each stage reading only what an
// earlier stage fetched. A sorted write buffer is visited in key order,
// which for random keys is random in memory: writing a record of 20
// strings waited on a miss for the record, its slices, every string
// header and every string's bytes, one after another (a buffer of
// ascending keys flushed twice as fast).
func (it *SliceIter) prefetch() {
	n := len(it.recs)
	if k := it.pos + aheadRecord; k < n {
		prefetch.Line(unsafe.Pointer(it.recs[k]))
	}
	if k := it.pos + aheadSlices; k < n {
		r := it.recs[k]
		prefetch.Range(unsafe.Pointer(unsafe.SliceData(r.Value)), len(r.Value)*int(unsafe.Sizeof(any(nil))))
		prefetch.Line(unsafe.Pointer(unsafe.SliceData(r.Key)))
	}
	if k := it.pos + aheadValues; k < n {
		for i := range it.recs[k].Value {
			prefetch.Line(box.Data(&it.recs[k].Value[i]))
		}
	}
	if k := it.pos + aheadBytes; k < n {
		for _, v := range it.recs[k].Value {
			if s, ok := v.(string); ok && len(s) > 0 {
				prefetch.Range(unsafe.Pointer(unsafe.StringData(s)), min(len(s), 256))
			}
		}
	}
}

// Error implements Iterator; a slice never fails.
func (it *SliceIter) Error() error { return nil }

// Close implements Iterator.
func (it *SliceIter) Close() error { it.recs = nil; return nil }

// concatIter reads a sorted run: its files do not overlap and are opened one
// after the other, so only one file is open at a time (Paimon's
// ConcatRecordReader).
type concatIter struct {
	files []*FileMeta
	open  func(*FileMeta) (Iterator, error)
	cur   Iterator
	err   error
}

func newConcatIter(files []*FileMeta, open func(*FileMeta) (Iterator, error)) Iterator {
	if len(files) == 1 {
		it, err := open(files[0])
		if err != nil {
			return &errIter{err: err}
		}
		return it
	}
	return &concatIter{files: files, open: open}
}

func (c *concatIter) Next() *KV {
	for c.err == nil {
		if c.cur == nil {
			if len(c.files) == 0 {
				return nil
			}
			c.cur, c.err = c.open(c.files[0])
			c.files = c.files[1:]
			if c.err != nil {
				c.cur = nil
				return nil
			}
		}
		if r := c.cur.Next(); r != nil {
			return r
		}
		c.err = c.cur.Close()
		c.cur = nil
	}
	return nil
}

func (c *concatIter) Error() error { return c.err }

func (c *concatIter) Close() error {
	if c.cur != nil {
		c.err = errors.Join(c.err, c.cur.Close())
		c.cur = nil
	}
	c.files = nil
	return c.err
}

// errIter is an iterator that failed before returning anything.
type errIter struct{ err error }

func (e *errIter) Next() *KV    { return nil }
func (e *errIter) Error() error { return e.err }
func (e *errIter) Close() error { return e.err }

// mergingIter merges sorted iterators into one sorted stream: by key, then
// SeqOrder (Paimon's SortMergeReaderWithMinHeap). Equal records (same key,
// same order) come out in input order.
type mergingIter struct {
	h   mergeHeap
	err error
}

type mergeItem struct {
	it  Iterator
	cur *KV
	idx int
}

type mergeHeap struct {
	items []*mergeItem
	key   *Comparator
	order SeqOrder
}

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if c := h.key.Compare(a.cur.Key, b.cur.Key); c != 0 {
		return c < 0
	}
	if c := h.order.Compare(a.cur, b.cur); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(*mergeItem)) }
func (h *mergeHeap) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}

// NewMergingIter merges iterators that are each sorted by key and SeqOrder.
// It takes ownership of them: Close closes all.
func NewMergingIter(its []Iterator, key *Comparator, order SeqOrder) Iterator {
	m := &mergingIter{h: mergeHeap{key: key, order: order, items: make([]*mergeItem, 0, len(its))}}
	var closed []*mergeItem
	for i, it := range its {
		item := &mergeItem{it: it, idx: i}
		if item.cur = item.it.Next(); item.cur != nil {
			m.h.items = append(m.h.items, item)
			continue
		}
		if err := item.it.Error(); err != nil && m.err == nil {
			m.err = err
		}
		closed = append(closed, item)
	}
	for _, item := range closed {
		if err := item.it.Close(); err != nil && m.err == nil {
			m.err = err
		}
	}
	heap.Init(&m.h)
	return m
}

func (m *mergingIter) Next() *KV {
	if m.err != nil || len(m.h.items) == 0 {
		return nil
	}
	top := m.h.items[0]
	r := top.cur
	if top.cur = top.it.Next(); top.cur != nil {
		heap.Fix(&m.h, 0)
		return r
	}
	if err := top.it.Error(); err != nil {
		m.err = err
		return nil
	}
	if err := top.it.Close(); err != nil {
		m.err = err
		return nil
	}
	heap.Pop(&m.h)
	return r
}

func (m *mergingIter) Error() error { return m.err }

func (m *mergingIter) Close() error {
	for _, item := range m.h.items {
		if err := item.it.Close(); err != nil && m.err == nil {
			m.err = err
		}
	}
	m.h.items = nil
	return m.err
}

// groupIter cuts a sorted stream into the versions of one key at a time.
type groupIter struct {
	src  Iterator
	key  *Comparator
	next *KV
	buf  []*KV
}

func newGroupIter(src Iterator, key *Comparator) *groupIter {
	return &groupIter{src: src, key: key, next: src.Next()}
}

// nextGroup returns the versions of the next key, oldest first, or nil at
// the end. The slice is reused by the following call.
func (g *groupIter) nextGroup() []*KV {
	if g.next == nil {
		return nil
	}
	g.buf = append(g.buf[:0], g.next)
	for {
		r := g.src.Next()
		if r == nil {
			g.next = nil
			return g.buf
		}
		if g.key.Compare(r.Key, g.buf[0].Key) != 0 {
			g.next = r
			return g.buf
		}
		g.buf = append(g.buf, r)
	}
}

// MergeIter is merge-on-read: it groups a sorted stream by key and returns
// one merged record per key, applying the merge function (through the
// reducer rule: a key with a single version is returned as is). With
// dropDelete, keys whose result is a retraction (-U/-D) are skipped, as
// Paimon's DropDeleteReader does for reads and full compactions.
type MergeIter struct {
	groups     *groupIter
	mf         MergeFunction
	dropDelete bool
	err        error
}

// NewMergeIter merges src (sorted by key and SeqOrder) with mf. It takes
// ownership of src.
func NewMergeIter(src Iterator, key *Comparator, mf MergeFunction, dropDelete bool) *MergeIter {
	return &MergeIter{groups: newGroupIter(src, key), mf: mf, dropDelete: dropDelete}
}

// Next implements Iterator.
func (m *MergeIter) Next() *KV {
	for m.err == nil {
		g := m.groups.nextGroup()
		if g == nil {
			m.err = m.groups.src.Error()
			return nil
		}
		r, err := reduce(m.mf, g)
		if err != nil {
			m.err = err
			return nil
		}
		if r == nil || (m.dropDelete && r.Kind.IsRetract()) {
			continue
		}
		return r
	}
	return nil
}

// Error implements Iterator.
func (m *MergeIter) Error() error { return m.err }

// Close implements Iterator.
func (m *MergeIter) Close() error {
	if err := m.groups.src.Close(); err != nil && m.err == nil {
		m.err = err
	}
	return m.err
}

// reduce applies Paimon's ReducerMergeFunctionWrapper: one version is
// returned unchanged, several go through the merge function.
//
// A value of the wrong Go type for its column makes an aggregate function
// panic; that is turned into an error here so it never escapes to users.
func reduce(mf MergeFunction, g []*KV) (r *KV, err error) {
	if len(g) == 1 {
		return g[0], nil
	}
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("mergetree: merging key %v: %v", g[0].Key, p)
		}
	}()
	mf.Reset()
	for _, r := range g {
		if err := mf.Add(r); err != nil {
			return nil, err
		}
	}
	return mf.Result()
}

// Collect drains an iterator into a slice and closes it.
func Collect(it Iterator) ([]*KV, error) {
	var out []*KV
	for r := it.Next(); r != nil; r = it.Next() {
		out = append(out, r)
	}
	err := it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return out, err
}
