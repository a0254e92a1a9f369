package mergetree

import (
	"errors"
	"fmt"
	"slices"
)

// Spiller stores a sorted run of the write buffer outside memory when the
// buffer is full (Paimon's spillable sort buffer). The table layer backs it
// with local files; MemSpiller keeps runs in memory for tests.
type Spiller interface {
	Spill(sorted []*KV) (SpilledRun, error)
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
func (m *MemSpiller) Spill(sorted []*KV) (SpilledRun, error) {
	m.Spilled++
	return memRun(slices.Clone(sorted)), nil
}

type memRun []*KV

func (r memRun) Open() (Iterator, error) { return NewSliceIter(r), nil }
func (r memRun) Discard()                {}

// WriteBuffer is the in-memory buffer of one (partition, bucket): records
// are kept until the buffer reaches write-buffer-size, then either spilled
// as a sorted run (with a Spiller) or reported full so the writer flushes a
// level-0 file. Flush sorts by key then SeqOrder and merges each key's
// versions with the merge engine, so a flushed file has unique keys.
type WriteBuffer struct {
	spec    *Spec
	limit   int64
	spill   Spiller
	recs    []*KV
	bytes   int64
	spilled []SpilledRun
}

// NewWriteBuffer creates a buffer bounded by limit bytes (EstimateSize);
// spill may be nil.
func NewWriteBuffer(spec *Spec, limit int64, spill Spiller) *WriteBuffer {
	return &WriteBuffer{spec: spec, limit: limit, spill: spill}
}

// Len counts buffered records (spilled ones included).
func (b *WriteBuffer) Len() int { return len(b.recs) + len(b.spilled) }

// Empty reports whether nothing is buffered.
func (b *WriteBuffer) Empty() bool { return len(b.recs) == 0 && len(b.spilled) == 0 }

// MemoryBytes is the estimated size of the records held in memory.
func (b *WriteBuffer) MemoryBytes() int64 { return b.bytes }

// Put adds a record. full reports that the buffer reached its limit and
// could not spill: the caller must Flush before the next Put.
func (b *WriteBuffer) Put(r *KV) (full bool, err error) {
	b.recs = append(b.recs, r)
	b.bytes += EstimateSize(r)
	if b.bytes < b.limit {
		return false, nil
	}
	if b.spill == nil {
		return true, nil
	}
	b.sort()
	run, err := b.spill.Spill(b.recs)
	if err != nil {
		return true, fmt.Errorf("mergetree: spilling write buffer: %w", err)
	}
	b.spilled = append(b.spilled, run)
	b.recs, b.bytes = b.recs[:0:0], 0
	return false, nil
}

func (b *WriteBuffer) sort() {
	if b.sortIntKeys() {
		return
	}
	slices.SortFunc(b.recs, func(x, y *KV) int {
		if c := b.spec.Key.Compare(x.Key, y.Key); c != 0 {
			return c
		}
		return b.spec.Order.Compare(x, y)
	})
}

// Flush hands every buffered record to raw (if not nil; the input
// changelog producer writes them to changelog files), in key and sequence
// order, and one merged record per key to merged. The buffer is empty
// afterwards, also when a callback fails.
func (b *WriteBuffer) Flush(merged, raw func(*KV) error) (err error) {
	defer b.clear()
	b.sort()
	its := []Iterator{NewSliceIter(b.recs)}
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

func (b *WriteBuffer) clear() {
	for _, s := range b.spilled {
		s.Discard()
	}
	b.spilled = nil
	clear(b.recs)
	b.recs, b.bytes = b.recs[:0], 0
}

// intSortEntry is one record of the integer-key fast path: key and sequence
// number copied next to the record pointer, so the sort compares plain
// integers in a contiguous slice instead of chasing two pointers and two
// interface values per comparison.
type intSortEntry struct {
	key, seq int64
	r        *KV
}

// sortIntKeys sorts the buffer when the key is one INT or BIGINT field and
// versions are ordered by sequence number alone (no sequence.field) — the
// common primary-key shape. It yields the order of the generic comparator
// (key, then sequence number) and reports false, leaving the buffer
// untouched, when the fast path does not apply (other key types, a NULL or
// unexpected key value).
func (b *WriteBuffer) sortIntKeys() bool {
	if b.spec.Order.user != nil || len(b.spec.Key.fields) != 1 || len(b.recs) < 2 {
		return false
	}
	f := b.spec.Key.fields[0]
	ents := make([]intSortEntry, len(b.recs))
	for i, r := range b.recs {
		if f.idx >= len(r.Key) {
			return false
		}
		var k int64
		switch x := r.Key[f.idx].(type) {
		case int32:
			k = int64(x)
		case int64:
			k = x
		default:
			return false
		}
		if f.desc {
			// desc is only set for sequence fields; keep the generic path
			// honest should that change.
			return false
		}
		ents[i] = intSortEntry{key: k, seq: r.Seq, r: r}
	}
	slices.SortFunc(ents, func(x, y intSortEntry) int {
		if x.key != y.key {
			if x.key < y.key {
				return -1
			}
			return 1
		}
		if x.seq < y.seq {
			return -1
		}
		if x.seq > y.seq {
			return 1
		}
		return 0
	})
	for i := range ents {
		b.recs[i] = ents[i].r
	}
	return true
}
