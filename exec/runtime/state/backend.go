package state

import (
	"bytes"
	"fmt"
	"time"
)

// Backend is where one operator subtask keeps its keyed tables: Flink's
// state.backend.type. A nil *Backend, or one without a Store, keeps them in
// Go maps (hashmap); with a Store (the LSM in state/lsm, `rocksdb`) values
// are encoded with their Codec and live on disk, with a bounded cache of
// decoded values in front.
type Backend struct {
	// Store is the disk store; nil keeps tables in memory.
	Store Store
	// TTL is table.exec.state.ttl: a key not written for TTL is expired and
	// never returned (Flink's StateTtlConfig with OnCreateAndWrite and
	// NeverReturnExpired). 0 keeps state forever.
	TTL time.Duration
	// Now is processing time in milliseconds; nil is the wall clock.
	Now func() int64
}

// Store is a disk store holding several named byte-level tables.
type Store interface {
	Table(name string) (KV, error)
}

// KV is one table of a Store: byte keys and values, iterated in key order.
type KV interface {
	// Get returns key's value; the bytes are valid until the next call.
	Get(key string) ([]byte, bool, error)
	// Write applies puts (values[i] != nil) and deletes (values[i] == nil).
	Write(keys []string, values [][]byte) error
	// Range visits every key in byte order; the bytes are valid during fn.
	Range(fn func(key string, value []byte) error) error
	// Clear deletes every key.
	Clear() error
	// Checkpoint makes the table part of the store's checkpoint for the
	// snapshot being taken and returns a reference to it (count is kept in
	// the reference), or ok=false when this snapshot must hold the
	// table's contents (a savepoint).
	Checkpoint(count int) (ref []byte, ok bool, err error)
	// RestoreRef replaces the table with the one a reference names and
	// returns its count.
	RestoreRef(ref []byte) (int, error)
	// ScanRef visits the entries of the table a reference names.
	ScanRef(ref []byte, fn func(key string, value []byte) error) error
}

// refMagic starts a snapshot that refers to a Store's checkpoint instead
// of holding the entries. A full snapshot starts with its entry count, and
// a count of 0 is the whole snapshot, so these bytes cannot start one.
var refMagic = []byte("\x00LSM")

func (b *Backend) ttlMillis() int64 {
	if b == nil {
		return 0
	}
	return b.TTL.Milliseconds()
}

func (b *Backend) clock() func() int64 {
	if b != nil && b.Now != nil {
		return b.Now
	}
	return func() int64 { return time.Now().UnixMilli() }
}

// NewTable makes the table name (unique within the operator) on backend b.
func NewTable[V any](b *Backend, name string, codec Codec[V]) (Table[V], error) {
	if b == nil || b.Store == nil {
		t := NewMemTable(codec)
		if ttl := b.ttlMillis(); ttl > 0 {
			t.ttl, t.now, t.ts = ttl, b.clock(), map[string]int64{}
		}
		return t, nil
	}
	kv, err := b.Store.Table(name)
	if err != nil {
		return nil, fmt.Errorf("open state table %s: %w", name, err)
	}
	budget := int64(DefaultCacheBytes)
	if cb, ok := b.Store.(CacheBudget); ok && cb.CacheBytes() > 0 {
		budget = cb.CacheBytes()
	}
	return &kvTable[V]{kv: kv, codec: codec, ttl: b.ttlMillis(), now: b.clock(), cache: map[string]*cached[V]{}, budget: budget}, nil
}

// CacheBudget is implemented by stores that say how many bytes each of
// their tables' write-back caches may hold ('state.backend.rocksdb.
// value-cache.size'); 0, or a store without it, is DefaultCacheBytes.
type CacheBudget interface {
	CacheBytes() int64
}

// DefaultCacheBytes is a disk table's write-back cache budget by default.
const DefaultCacheBytes = 4 << 20

// A disk table keeps decoded values in front of the store up to its byte
// budget (kvTable.budget), evicting by recency and use (GCLOCK), and
// writes its changed values back once dirtyLimit of them are waiting (one
// sorted batch). The cached values stay after a write-back: hot keys of a
// skewed workload are not read back from the store. An entry counts its
// key, its value's encoded bytes (as last read or written back) and
// entryOverhead, so that the budget bounds the cache however large the
// values are (an entry count does not: 16384 rows of 1 KB are 16 MB).
const (
	dirtyLimit = 4096
	// entryOverhead is an entry's bytes besides its key and value: the
	// cached struct, its map slot and ring slot, the decoded value's
	// headers.
	entryOverhead = 96
	// maxUses caps an entry's use count: the clock hand takes one per pass,
	// so a key used often survives up to maxUses passes without a use.
	maxUses = 3
)

// kvTable is a Table over a KV: values encoded with the codec (prefixed by
// their last write time when a TTL is set), a write-back cache of decoded
// values in front so a Get then Put of one key costs one store read.
type kvTable[V any] struct {
	kv    KV
	codec Codec[V]
	ttl   int64
	now   func() int64
	n     int
	cache map[string]*cached[V]
	// ring holds the cached entries in clock order; hand is the next one
	// the clock looks at.
	ring  []*cached[V]
	hand  int
	dirty []*cached[V] // changed since their last write-back
	enc   Encoder
	// bytes is what the cached entries count (cached.size), budget
	// what they may; avg is the mean size of the entries last written
	// back (0 before the first write-back).
	bytes, budget, avg int64
}

type cached[V any] struct {
	key     string
	v       V
	ts      int64
	present bool
	dirty   bool
	uses    uint8
	size    int64 // bytes counted against the budget
}

func (t *kvTable[V]) decode(b []byte) (V, int64, error) {
	var zero V
	d := Decoder{Buf: b}
	var ts int64
	if t.ttl > 0 {
		u, err := d.Uvarint()
		if err != nil {
			return zero, 0, err
		}
		ts = int64(u)
	}
	v, err := t.codec.Decode(&d)
	if err == nil && !d.Done() {
		err = ErrCorrupt
	}
	return v, ts, err
}

func (t *kvTable[V]) encode(e *Encoder, v V, ts int64) error {
	if t.ttl > 0 {
		e.Uvarint(uint64(ts))
	}
	return t.codec.Encode(e, v)
}

func (t *kvTable[V]) expired(ts int64) bool { return t.ttl > 0 && ts+t.ttl <= t.now() }

// load finds key in the cache or the store.
func (t *kvTable[V]) load(key string) (*cached[V], error) {
	if c := t.cache[key]; c != nil {
		c.uses = min(c.uses+1, maxUses)
		return c, nil
	}
	c := &cached[V]{key: key}
	b, ok, err := t.kv.Get(key)
	if err != nil {
		return nil, err
	}
	c.size = int64(len(key) + len(b) + entryOverhead)
	if ok {
		if c.v, c.ts, err = t.decode(b); err != nil {
			return nil, fmt.Errorf("state value of key %q: %w", key, err)
		}
		c.present = true
	}
	t.insert(c)
	return c, nil
}

// insert caches c, then evicts while the cache is over its budget: the
// clean entries the clock hand finds unused since its last pass, never c
// (the caller's). When every other entry is dirty they are written back
// first, so the loop ends.
func (t *kvTable[V]) insert(c *cached[V]) {
	t.cache[c.key] = c
	t.ring = append(t.ring, c)
	t.bytes += c.size
	t.evict(c)
}

// evict drops clean unused entries other than keep until the cache fits
// its budget or keep is the only entry.
func (t *kvTable[V]) evict(keep *cached[V]) {
	for passes := 0; t.bytes > t.budget && len(t.ring) > 1; {
		if t.hand >= len(t.ring) {
			t.hand = 0
			if passes++; passes > maxUses+1 && len(t.dirty) > 0 {
				// Only dirty (or kept) entries are left to evict.
				_ = t.flush() // a failed write-back keeps them dirty: stop
				if len(t.dirty) > 0 {
					return
				}
				passes = 0
			}
		}
		v := t.ring[t.hand]
		if v == keep || v.dirty || v.uses > 0 {
			if v.uses > 0 {
				v.uses--
			}
			t.hand++
			continue
		}
		delete(t.cache, v.key)
		t.bytes -= v.size
		last := len(t.ring) - 1
		t.ring[t.hand] = t.ring[last]
		t.ring[last] = nil
		t.ring = t.ring[:last]
	}
}

// changed marks c dirty and writes the dirty entries back once there are
// dirtyCap of them, then evicts (keeping c) what their sizes as written
// put over the budget.
func (t *kvTable[V]) changed(c *cached[V]) error {
	if c.dirty {
		return nil
	}
	c.dirty = true
	t.dirty = append(t.dirty, c)
	if len(t.dirty) >= t.dirtyCap() {
		if err := t.flush(); err != nil {
			return err
		}
		t.evict(c)
	}
	return nil
}

// dirtyCap is how many changed entries wait for a write-back: dirtyLimit,
// or fewer when entries as large as the last written back would fill half
// the budget (a changed entry counts its earlier size until it is written
// back, so this bounds what the count misses).
func (t *kvTable[V]) dirtyCap() int {
	if t.avg <= 0 {
		return dirtyLimit
	}
	return int(min(dirtyLimit, max(16, t.budget/2/t.avg)))
}

// reset empties the cache (the store's contents are replaced).
func (t *kvTable[V]) reset() {
	clear(t.cache)
	clear(t.ring)
	t.ring, t.hand, t.bytes = t.ring[:0], 0, 0
	clear(t.dirty)
	t.dirty = t.dirty[:0]
}

func (t *kvTable[V]) Get(key string) (V, bool, error) {
	var zero V
	c, err := t.load(key)
	if err != nil || !c.present {
		return zero, false, err
	}
	if t.expired(c.ts) {
		var zero V
		c.v, c.present = zero, false
		t.n--
		return zero, false, t.changed(c)
	}
	return c.v, true, nil
}

func (t *kvTable[V]) Put(key string, v V) error {
	c, err := t.load(key)
	if err != nil {
		return err
	}
	if !c.present {
		t.n++
	}
	c.v, c.ts, c.present = v, t.now(), true
	return t.changed(c)
}

func (t *kvTable[V]) Delete(key string) error {
	c, err := t.load(key)
	if err != nil {
		return err
	}
	if c.present {
		t.n--
	}
	var zero V
	c.v, c.present = zero, false
	return t.changed(c)
}

func (t *kvTable[V]) Len() int { return t.n }

// flush writes the dirty entries back; they stay cached, clean.
func (t *kvTable[V]) flush() error {
	if len(t.dirty) == 0 {
		return nil
	}
	keys := make([]string, 0, len(t.dirty))
	vals := make([][]byte, 0, len(t.dirty))
	t.enc.Buf = t.enc.Buf[:0]
	ends := make([]int, 0, len(t.dirty))
	for _, c := range t.dirty {
		keys = append(keys, c.key)
		if !c.present {
			ends = append(ends, -1)
			continue
		}
		at := len(t.enc.Buf)
		if err := t.encode(&t.enc, c.v, c.ts); err != nil {
			return fmt.Errorf("state value of key %q: %w", c.key, err)
		}
		ends = append(ends, len(t.enc.Buf))
		// The entry's size as written back.
		size := int64(len(c.key) + len(t.enc.Buf) - at + entryOverhead)
		t.bytes += size - c.size
		c.size = size
	}
	start := 0
	for _, end := range ends {
		if end < 0 {
			vals = append(vals, nil)
			continue
		}
		vals = append(vals, t.enc.Buf[start:end:end])
		start = end
	}
	if err := t.kv.Write(keys, vals); err != nil {
		return err
	}
	var sum int64
	for _, c := range t.dirty {
		sum += c.size
	}
	t.avg = sum / int64(len(t.dirty))
	for _, c := range t.dirty {
		c.dirty = false
	}
	clear(t.dirty)
	t.dirty = t.dirty[:0]
	return nil
}

func (t *kvTable[V]) Range(fn func(key string, v V) error) error {
	if err := t.flush(); err != nil {
		return err
	}
	return t.kv.Range(func(k string, b []byte) error {
		v, ts, err := t.decode(b)
		if err != nil {
			return fmt.Errorf("state value of key %q: %w", k, err)
		}
		if t.expired(ts) {
			return nil
		}
		return fn(k, v)
	})
}

func (t *kvTable[V]) Snapshot() ([]byte, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	ref, ok, err := t.kv.Checkpoint(t.n)
	if err != nil {
		return nil, err
	}
	if ok {
		return append(append([]byte(nil), refMagic...), ref...), nil
	}
	// A full snapshot, in MemTable's format (so either backend restores it).
	var body Encoder
	n := 0
	err = t.kv.Range(func(k string, b []byte) error {
		if t.ttl > 0 {
			d := Decoder{Buf: b}
			ts, err := d.Uvarint()
			if err != nil {
				return err
			}
			if t.expired(int64(ts)) {
				return nil
			}
		}
		n++
		body.String(k)
		body.Buf = append(body.Buf, b...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var e Encoder
	e.Uvarint(uint64(n))
	return append(e.Buf, body.Buf...), nil
}

// entries decodes a full snapshot, handing fn each key and encoded value.
func (t *kvTable[V]) entries(b []byte, fn func(key string, value []byte) error) error {
	d := Decoder{Buf: b}
	n, err := d.Uvarint()
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		k, err := d.String()
		if err != nil {
			return err
		}
		start := d.Off
		if _, _, err := t.decodeAt(&d); err != nil {
			return err
		}
		if err := fn(k, d.Buf[start:d.Off]); err != nil {
			return err
		}
	}
	return nil
}

func (t *kvTable[V]) decodeAt(d *Decoder) (V, int64, error) {
	var zero V
	var ts int64
	if t.ttl > 0 {
		u, err := d.Uvarint()
		if err != nil {
			return zero, 0, err
		}
		ts = int64(u)
	}
	v, err := t.codec.Decode(d)
	return v, ts, err
}

// load writes entries in batches.
type loader struct {
	kv   KV
	keys []string
	vals [][]byte
	size int
}

func (l *loader) add(k string, v []byte) error {
	l.keys = append(l.keys, k)
	l.vals = append(l.vals, bytes.Clone(v))
	l.size += len(k) + len(v)
	if l.size >= 4<<20 {
		return l.done()
	}
	return nil
}

func (l *loader) done() error {
	if len(l.keys) == 0 {
		return nil
	}
	err := l.kv.Write(l.keys, l.vals)
	l.keys, l.vals, l.size = l.keys[:0], l.vals[:0], 0
	return err
}

func (t *kvTable[V]) Restore(b []byte) error {
	t.reset()
	if bytes.HasPrefix(b, refMagic) {
		n, err := t.kv.RestoreRef(b[len(refMagic):])
		if err != nil {
			return fmt.Errorf("restore keyed state: %w", err)
		}
		t.n = n
		return nil
	}
	if err := t.kv.Clear(); err != nil {
		return err
	}
	t.n = 0
	l := &loader{kv: t.kv}
	err := t.entries(b, func(k string, v []byte) error { t.n++; return l.add(k, v) })
	if err == nil {
		err = l.done()
	}
	if err != nil {
		return fmt.Errorf("restore keyed state: %w", err)
	}
	return nil
}

func (t *kvTable[V]) RestoreFiltered(blobs [][]byte, keep func(key string) bool) error {
	t.reset()
	if err := t.kv.Clear(); err != nil {
		return err
	}
	t.n = 0
	l := &loader{kv: t.kv}
	add := func(k string, v []byte) error {
		if !keep(k) {
			return nil
		}
		t.n++
		return l.add(k, v)
	}
	for i, b := range blobs {
		var err error
		switch {
		case len(b) == 0:
			continue
		case bytes.HasPrefix(b, refMagic):
			err = t.kv.ScanRef(b[len(refMagic):], add)
		default:
			err = t.entries(b, add)
		}
		if err != nil {
			return fmt.Errorf("restore keyed state of old subtask %d: %w", i, err)
		}
	}
	return l.done()
}
