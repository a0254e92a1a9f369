package mergetree

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/prefetch"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// Spiller stores a sorted run of the write buffer outside memory when the
// buffer is full (Paimon's spillable sort buffer). The table layer backs it
// with local files; MemSpiller keeps runs in memory for tests.
type Spiller interface {
	// Spill stores the records sorted yields, in that order, until it
	// returns nil (then its Error tells whether it ended early).
	Spill(sorted Iterator) (SpilledRun, error)
}

// SpilledRun is one spilled sorted run.
type SpilledRun interface {
	// Open reads the run back in the order it was spilled.
	Open() (Iterator, error)
	// Discard releases the run once the buffer was flushed.
	Discard()
}

// MemSpiller keeps spilled runs in memory; it exercises the spill path in
// tests without touching disk.
type MemSpiller struct{ Spilled int }

// Spill implements Spiller.
func (m *MemSpiller) Spill(sorted Iterator) (SpilledRun, error) {
	m.Spilled++
	var run memRun
	for r := sorted.Next(); r != nil; r = sorted.Next() {
		run = append(run, r)
	}
	return run, sorted.Error()
}

type memRun []*KV

func (r memRun) Open() (Iterator, error) { return NewSliceIter(r), nil }
func (r memRun) Discard()                {}

// WriteBuffer is the in-memory buffer of one (partition, bucket) (Paimon's
// SortBufferWriteBuffer): records are kept serialized in pages outside the
// Go heap, in the packed form of Paimon's BinaryRow (binrow.AppendPacked:
// the values without the slots and padding, unpacked to the BinaryRow
// they stand for as they leave the buffer), with an index entry each (also
// outside the heap), until their bytes reach write-buffer-size; then
// they are either spilled as a sorted run (with a Spiller) or reported full
// so the writer flushes a level-0 file. Flush sorts by key then SeqOrder
// and merges each key's versions with the merge engine, so a flushed file
// has unique keys. What the buffer holds is its limit plus one page chunk
// (1 MiB) and a third of its index (32 bytes a record): a record is
// decoded again only when it is flushed or spilled. The page chunks come
// from a MemoryPool and go back to it at every flush and spill, for the
// next fill of this buffer or of another writer's of the same task.
type WriteBuffer struct {
	spec    *Spec
	limit   int64
	spill   Spiller
	ownPool bool
	pages   recordPages
	idx     entryIndex
	scratch []byte
	// unpacked holds records unpacked to BinaryRows as they leave the
	// buffer (row, unpack), and DecodePackedCompact's scratch.
	unpacked [1][]byte
	// generic is set once a record's key does not fit the integer-key
	// fast path (intKeys): the buffer then sorts with the comparators.
	generic bool
	// unordered is set once a record came with a sequence number not above
	// the one before: the index is then not in sequence order within a key
	// (see sort).
	unordered bool
	lastSeq   int64
	spilled   []SpilledRun
	// The sort on keys read from the packed records (sortPacked): its
	// encoder and scratch, kept for the next sort.
	keyEnc  *sortKeyEncoder
	keyBuf  []byte
	tieEnds []int
	ties    []tieEntry
}

// NewWriteBuffer creates a buffer bounded by limit bytes (serialized
// records and their index entries) taking its pages from pool; spill may
// be nil. With a nil pool the buffer has a pool of its own, of limit
// bytes, closed with the buffer.
func NewWriteBuffer(spec *Spec, limit int64, spill Spiller, pool *MemoryPool) *WriteBuffer {
	b := &WriteBuffer{spec: spec, limit: limit, spill: spill, generic: !intKeys(spec)}
	if pool == nil {
		pool, b.ownPool = NewMemoryPool(limit), true
	}
	b.pages.pool, b.idx.pool = pool, pool
	return b
}

// Close drops what the buffer holds (spilled runs too) and returns its
// pages to the pool (closing the pool if it is the buffer's own).
func (b *WriteBuffer) Close() {
	b.clear()
	if b.ownPool {
		b.pages.pool.Close()
	}
}

// intKeys reports whether the spec's records sort on one INT or BIGINT key
// field and their sequence number alone (no sequence.field): the common
// primary-key shape, whose sort compares plain integers in the index.
func intKeys(spec *Spec) bool {
	if spec.Order.user != nil || len(spec.Key.fields) != 1 || spec.Key.fields[0].desc || len(spec.KeyIndex) != 1 {
		return false
	}
	r := spec.FieldTypes[spec.KeyIndex[0]].Root
	return r == sql.TypeInt || r == sql.TypeBigInt
}

// Len counts buffered records (spilled ones included).
func (b *WriteBuffer) Len() int { return len(b.idx.ents) + len(b.spilled) }

// Empty reports whether nothing is buffered.
func (b *WriteBuffer) Empty() bool { return len(b.idx.ents) == 0 && len(b.spilled) == 0 }

// MemoryBytes is the size of the records held in memory and their index
// entries, what the limit bounds.
func (b *WriteBuffer) MemoryBytes() int64 { return b.pages.bytes + int64(len(b.idx.ents)*entrySize) }

// MappedBytes is the memory the buffer holds outside the Go heap: its
// pages and index, used or not.
func (b *WriteBuffer) MappedBytes() int64 { return b.pages.mapped() + b.idx.mapped() }

// Put adds a record; the buffer keeps a serialized copy, not r. full
// reports that the buffer reached its limit and could not spill: the
// caller must Flush before the next Put.
func (b *WriteBuffer) Put(r *KV) (full bool, err error) {
	b.scratch, err = binrow.AppendPacked(b.scratch[:0], b.spec.FieldTypes, r.Value)
	if err != nil {
		return false, fmt.Errorf("mergetree: write buffer: %w", err)
	}
	e := bufEntry{seq: r.Seq, size: uint32(len(b.scratch)), kind: int8(r.Kind)}
	if len(b.idx.ents) > 0 && r.Seq <= b.lastSeq {
		b.unordered = true
	}
	b.lastSeq = r.Seq
	if !b.generic {
		switch x := r.Value[b.spec.KeyIndex[0]].(type) {
		case int32:
			e.key = int64(x)
		case int64:
			e.key = x
		default:
			b.generic = true // a NULL key: keep the comparators' order
		}
	}
	if e.ref, err = b.pages.add(b.scratch); err != nil {
		return false, err
	}
	if err := b.idx.append(e, b.indexWant()); err != nil {
		return false, err
	}
	if b.MemoryBytes() < b.limit {
		return false, nil
	}
	if b.spill == nil {
		return true, nil
	}
	if err := b.sort(); err != nil {
		return true, err
	}
	var run SpilledRun
	if d, ok := b.spill.(*DiskSpiller); ok && !b.generic {
		run, err = d.spillBuffer(b)
	} else {
		it := b.memIter()
		run, err = b.spill.Spill(it)
		if err == nil {
			err = it.Error()
		}
	}
	if err != nil {
		return true, fmt.Errorf("mergetree: spilling write buffer: %w", err)
	}
	b.spilled = append(b.spilled, run)
	b.release()
	if max := b.spec.WriteBufferSpillMaxDisk; max > 0 {
		// write-buffer-spill.max-disk-size: the buffer is full once its
		// spilled runs take that much disk (BinaryExternalSortBuffer).
		var disk int64
		for _, r := range b.spilled {
			if s, ok := r.(interface{ Size() int64 }); ok {
				disk += s.Size()
			}
		}
		return disk >= max, nil
	}
	return false, nil
}

// indexWant is how many entries the index should make room for when it
// is full past its first pageChunk: as many as the buffer will hold at its
// limit with records of the size seen so far (at most 16 times what it
// holds), so a fill moves its index once or twice, not a dozen times with
// 1.5x growth, each move faulting in a fresh mapping and copying the
// index (a 1M-record fill touched three times its 32 MB of index).
func (b *WriteBuffer) indexWant() int {
	n := len(b.idx.ents)
	if n < cap(b.idx.ents) || len(b.idx.mem) < pageChunk {
		return 0
	}
	want := b.limit / (b.pages.bytes/int64(n) + int64(entrySize))
	return int(min(want+1, 16*int64(n)))
}

// unpack returns the BinaryRow of the packed record p, unpacked into
// b.unpacked[i].
func (b *WriteBuffer) unpack(i int, p []byte) ([]byte, error) {
	var err error
	b.unpacked[i], err = binrow.AppendUnpacked(b.unpacked[i][:0], b.spec.FieldTypes, p)
	if err != nil {
		return nil, fmt.Errorf("mergetree: write buffer: %w", err)
	}
	return b.unpacked[i], nil
}

func (b *WriteBuffer) release() {
	b.pages.release()
	b.idx.release()
	b.unordered = false
}

// radixSortByKey sorts ents by key, stably: a least-significant-digit
// radix sort over the bytes in which the keys differ (two or three passes
// for the INT keys of a buffer), through a scratch copy of the index. It
// costs a few passes over the index where a comparison sort of a million
// entries was a few percent of a primary-key write's CPU.
func (b *WriteBuffer) radixSortByKey(ents []bufEntry) error {
	if len(ents) < 2 {
		return nil
	}
	// The scratch copy of a large index is mapped from the pool like the
	// index (unmapped after the sort), not allocated on the
	// heap: a 1M-record buffer's 32 MB of scratch on the heap was zeroed
	// and faulted in 4 KB at a time at every flush, and grew the heap a
	// cold process starts with (issue 14).
	if n := len(ents) * entrySize; n >= pageChunk {
		mem, err := b.idx.pool.get((n + pageChunk - 1) &^ (pageChunk - 1))
		if err != nil {
			return fmt.Errorf("mergetree: write buffer sort: %w", err)
		}
		defer b.idx.pool.put(mem)
		radixSortByKey(ents, unsafe.Slice((*bufEntry)(unsafe.Pointer(unsafe.SliceData(mem))), len(ents)))
		return nil
	}
	radixSortByKey(ents, make([]bufEntry, len(ents)))
	return nil
}

// radixSortByKey is the radix sort of ents through tmp, a scratch index
// of the same length.
func radixSortByKey(ents, tmp []bufEntry) {
	if len(ents) < 2 {
		return
	}
	// Keys as unsigned with the sign bit flipped sort as the signed keys.
	const flip = 1 << 63
	first := uint64(ents[0].key) ^ flip
	var diff uint64
	for i := range ents {
		diff |= (uint64(ents[i].key) ^ flip) ^ first
	}
	if diff == 0 {
		return
	}
	src, dst := ents, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		var count [257]int
		for i := range src {
			count[int(byte((uint64(src[i].key)^flip)>>shift))+1]++
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for i := range src {
			d := byte((uint64(src[i].key) ^ flip) >> shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ents[0] {
		copy(ents, src)
	}
}

// sort orders the index by key, then SeqOrder: on the integer keys in
// the index for one INT or BIGINT key, otherwise on sort keys made from
// the packed records (sortPacked), neither unpacking nor decoding them.
func (b *WriteBuffer) sort() error {
	if !b.generic && !b.unordered {
		// The records came in sequence order (a writer's numbers
		// increase): a stable sort on the key alone gives (key, sequence
		// number) order.
		return b.radixSortByKey(b.idx.ents)
	}
	if !b.generic {
		slices.SortFunc(b.idx.ents, func(x, y bufEntry) int {
			if x.key != y.key {
				if x.key < y.key {
					return -1
				}
				return 1
			}
			return cmp.Compare(x.seq, y.seq)
		})
		return nil
	}
	return b.sortPacked()
}

// memIter reads the sorted in-memory records, decoding each as it goes.
func (b *WriteBuffer) memIter() *bufIter { return &bufIter{b: b} }

// bufIter iterates over the buffer's index in its current order.
type bufIter struct {
	b   *WriteBuffer
	pos int
	err error
}

// Next implements Iterator.
func (it *bufIter) Next() *KV {
	if it.err != nil || it.pos >= len(it.b.idx.ents) {
		return nil
	}
	ents := it.b.idx.ents
	e := ents[it.pos]
	if k := it.pos + bufAhead; k < len(ents) {
		// In key order the records are visited randomly in memory (random
		// keys): hint a record a few ahead into cache so its misses
		// overlap with decoding and writing this one (see SliceIter's
		// prefetch).
		f := ents[k]
		rec := it.b.pages.at(f.ref, int(f.size))
		prefetch.Range(unsafe.Pointer(unsafe.SliceData(rec)), len(rec))
	}
	it.pos++
	// The values and the key share one slice, and the values' strings and
	// numbers one allocation (DecodeCompact): each copied out of the
	// pages, which the pool lends to the next fill after the flush.
	spec := it.b.spec
	arity := len(spec.FieldTypes)
	vals := make([]any, arity+len(spec.KeyIndex))
	value, key := vals[:arity:arity], vals[arity:]
	var err error
	it.b.unpacked[0], err = binrow.DecodePackedCompact(value, spec.FieldTypes, it.b.pages.at(e.ref, int(e.size)), it.b.unpacked[0])
	if err != nil {
		it.err = fmt.Errorf("mergetree: write buffer: %w", err)
		return nil
	}
	for i, j := range spec.KeyIndex {
		key[i] = value[j]
	}
	return &KV{Key: key, Seq: e.seq, Kind: sql.RowKind(e.kind), Value: value, Level: -1}
}

// bufAhead is how many records ahead bufIter prefetches.
const bufAhead = 4

// Error implements Iterator.
func (it *bufIter) Error() error { return it.err }

// Close implements Iterator.
func (it *bufIter) Close() error { return nil }

// Flush hands every buffered record to raw (if not nil; the input
// changelog producer writes them to changelog files), in key and sequence
// order, and one merged record per key to merged. The buffer is empty
// afterwards, also when a callback fails.
func (b *WriteBuffer) Flush(merged, raw func(*KV) error) (err error) {
	defer b.clear()
	if err := b.sort(); err != nil {
		return err
	}
	its := []Iterator{b.memIter()}
	for _, s := range b.spilled {
		it, err := s.Open()
		if err != nil {
			for _, o := range its {
				o.Close()
			}
			return fmt.Errorf("mergetree: reading spilled run: %w", err)
		}
		its = append([]Iterator{it}, its...)
	}
	var src Iterator = its[0]
	if len(its) > 1 {
		src = NewMergingIter(its, b.spec.Key, b.spec.Order)
	}
	groups := newGroupIter(src, b.spec.Key)
	defer func() { err = errors.Join(err, src.Close()) }()
	mf := b.spec.NewEngineFunction()
	for g := groups.nextGroup(); g != nil; g = groups.nextGroup() {
		if raw != nil {
			for _, r := range g {
				if err := raw(r); err != nil {
					return err
				}
			}
		}
		r, err := reduce(mf, g)
		if err != nil {
			return fmt.Errorf("mergetree: merging write buffer: %w", err)
		}
		if r != nil {
			if err := merged(r); err != nil {
				return err
			}
		}
	}
	return src.Error()
}

// FlushTo is Flush into the file writer data. When data is a BinaryWriter
// and the buffer sorts on an integer key in memory (no raw callback, runs
// spilled by a DiskSpiller if any), a key with one version, which the
// merge function would return as is (reduce), goes to data serialized,
// read from the buffer's pages or a spilled run's block, packed as the
// pages hold it (to a PackedWriter; unpacked to its BinaryRow for any
// other BinaryWriter): it is neither decoded nor allocated. Keys with several versions are decoded and merged
// as Flush merges them. The spilled runs and the pages are merged on the
// index's integers and sequence numbers, the order Flush's merge of
// decoded records gives (key, then sequence number).
func (b *WriteBuffer) FlushTo(data FileWriter, raw func(*KV) error) (err error) {
	bw, ok := data.(BinaryWriter)
	pw, _ := data.(PackedWriter)
	if !ok || raw != nil || b.generic {
		return b.Flush(data.Write, raw)
	}
	for _, s := range b.spilled {
		if r, ok := s.(*diskRun); !ok || !r.packed {
			return b.Flush(data.Write, raw)
		}
	}
	defer b.clear()
	if err := b.sort(); err != nil {
		return err
	}
	m := binMerge{b: b}
	defer func() { err = errors.Join(err, m.close()) }()
	if err := m.open(); err != nil {
		return err
	}
	spec := b.spec
	keyInt32 := spec.FieldTypes[spec.KeyIndex[0]].Root == sql.TypeInt
	mf := spec.NewEngineFunction()
	var g []*KV
	var one KV
	for {
		r, ok := m.next()
		if !ok {
			return m.err
		}
		if top, ok := m.peek(); !ok || top.key != r.key {
			// The key (its slice and its boxed integer) in one
			// allocation: the file writer may keep it as the file's min
			// or max key.
			c := new(keyCell)
			if keyInt32 {
				c.i32 = int32(r.key)
				box.Set(&c.k[0], typInt32, unsafe.Pointer(&c.i32))
			} else {
				c.i64 = r.key
				box.Set(&c.k[0], typInt64, unsafe.Pointer(&c.i64))
			}
			one = KV{Key: c.k[:], Seq: r.seq, Kind: sql.RowKind(r.kind), Level: -1}
			if pw != nil {
				if err := pw.WritePacked(&one, r.value); err != nil {
					return err
				}
				continue
			}
			value, err := b.unpack(0, r.value)
			if err != nil {
				return err
			}
			if err := bw.WriteBinary(&one, value); err != nil {
				return err
			}
			continue
		}
		g = g[:0]
		for {
			kv, err := b.decode(r)
			if err != nil {
				return err
			}
			g = append(g, kv)
			if top, ok := m.peek(); !ok || top.key != r.key {
				break
			}
			if r, ok = m.next(); !ok {
				return m.err
			}
		}
		out, err := reduce(mf, g)
		if err != nil {
			return fmt.Errorf("mergetree: merging write buffer: %w", err)
		}
		if out != nil {
			if err := data.Write(out); err != nil {
				return err
			}
		}
	}
}

// decode makes a record of the merge a KV, its values copied out of the
// pages or the spilled block.
func (b *WriteBuffer) decode(r binRec) (*KV, error) {
	spec := b.spec
	arity := len(spec.FieldTypes)
	vals := make([]any, arity+len(spec.KeyIndex))
	value, key := vals[:arity:arity], vals[arity:]
	var err error
	b.unpacked[0], err = binrow.DecodePackedCompact(value, spec.FieldTypes, r.value, b.unpacked[0])
	if err != nil {
		return nil, fmt.Errorf("mergetree: write buffer: %w", err)
	}
	for i, j := range spec.KeyIndex {
		key[i] = value[j]
	}
	return &KV{Key: key, Seq: r.seq, Kind: sql.RowKind(r.kind), Value: value, Level: -1}, nil
}

// binRec is a record of the binary merge: its integer key, sequence
// number, kind and value row, packed (binrow.AppendPacked) in the pages
// or a spilled run's block.
type binRec struct {
	key, seq int64
	kind     int8
	value    []byte
}

// binMerge merges the buffer's sorted pages with its spilled runs on
// (key, sequence number) without decoding them. Source 0 is the pages,
// the others the runs, each read a block at a time: a record's value
// stays valid until its run has been advanced twice (diskRunIter keeps
// the previous block), and next advances it once; the pages' records stay
// where they are until the flush ends.
type binMerge struct {
	b    *WriteBuffer
	runs []*diskRunIter
	pos  int      // the pages' next index entry
	cur  []binRec // each source's current record
	heap []int    // sources with a current record, a min-heap on cur
	err  error
}

func (m *binMerge) open() error {
	m.cur = make([]binRec, 1+len(m.b.spilled))
	for _, s := range m.b.spilled {
		it, err := s.Open()
		if err != nil {
			return fmt.Errorf("mergetree: reading spilled run: %w", err)
		}
		m.runs = append(m.runs, it.(*diskRunIter))
	}
	for i := range m.cur {
		if m.advance(i) {
			m.heap = append(m.heap, i)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m.err
}

// advance reads source i's next record into cur[i]; false at its end or
// on an error (m.err).
func (m *binMerge) advance(i int) bool {
	if i == 0 {
		ents := m.b.idx.ents
		if m.pos >= len(ents) {
			return false
		}
		e := ents[m.pos]
		if k := m.pos + bufAhead; k < len(ents) {
			// In key order the records are visited randomly in memory
			// (random keys): hint a record a few ahead into cache (see
			// bufIter.Next).
			f := ents[k]
			rec := m.b.pages.at(f.ref, int(f.size))
			prefetch.Range(unsafe.Pointer(unsafe.SliceData(rec)), len(rec))
		}
		m.pos++
		m.cur[0] = binRec{key: e.key, seq: e.seq, kind: e.kind, value: m.b.pages.at(e.ref, int(e.size))}
		return true
	}
	it := m.runs[i-1]
	if it.err != nil {
		m.err = errors.Join(m.err, it.err)
		return false
	}
	if it.pos >= len(it.block) && !it.readBlock() {
		m.err = errors.Join(m.err, it.err)
		return false
	}
	seq, kind, key, value, err := it.splitPacked()
	if err != nil {
		m.err = errors.Join(m.err, fmt.Errorf("spilled run %s: %w", it.path, err))
		return false
	}
	m.cur[i] = binRec{key: key, seq: seq, kind: kind, value: value}
	return true
}

func (m *binMerge) less(i, j int) bool {
	x, y := &m.cur[m.heap[i]], &m.cur[m.heap[j]]
	if x.key != y.key {
		return x.key < y.key
	}
	return x.seq < y.seq
}

func (m *binMerge) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(m.heap) {
			return
		}
		if r := l + 1; r < len(m.heap) && m.less(r, l) {
			l = r
		}
		if !m.less(l, i) {
			return
		}
		m.heap[i], m.heap[l] = m.heap[l], m.heap[i]
		i = l
	}
}

// next returns the smallest current record and advances its source.
func (m *binMerge) next() (binRec, bool) {
	if m.err != nil || len(m.heap) == 0 {
		return binRec{}, false
	}
	src := m.heap[0]
	r := m.cur[src]
	if !m.advance(src) {
		if m.err != nil {
			return binRec{}, false
		}
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	m.down(0)
	return r, true
}

// peek returns the smallest current record without advancing.
func (m *binMerge) peek() (binRec, bool) {
	if len(m.heap) == 0 {
		return binRec{}, false
	}
	return m.cur[m.heap[0]], true
}

func (m *binMerge) close() error {
	var err error
	for _, it := range m.runs {
		err = errors.Join(err, it.Close())
	}
	return err
}

// keyCell holds a record's one-field integer key: the key slice's
// element points at i32 (INT) or i64 (BIGINT).
type keyCell struct {
	k   [1]any
	i32 int32
	i64 int64
}

var (
	typInt32 = box.TypeOf(int32(0))
	typInt64 = box.TypeOf(int64(0))
)

func (b *WriteBuffer) clear() {
	for _, s := range b.spilled {
		s.Discard()
	}
	b.spilled = nil
	b.release()
	b.generic = !intKeys(b.spec)
}
