package state

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"github.com/sqlrun/sqlrun/sql"
)

// Table is keyed state: at most one value per key. Keys are the bytes
// KeyOf produces (held in a string so an in-memory backend can use them as
// map keys without copying).
//
// The interface is what a disk-backed store needs as well: every method
// can fail, values go through a Codec, and Range visits keys in byte order
// (a pebble iterator's order), so a pebble-backed Table can replace MemTable
// without changing an operator. Values returned by Get must be treated as
// read-only by callers unless they Put them back: the memory backend hands
// out the stored value itself.
type Table[V any] interface {
	Get(key string) (V, bool, error)
	Put(key string, v V) error
	Delete(key string) error
	// Len is the number of keys.
	Len() int
	// Range calls fn for every key in byte order; a non-nil error from fn
	// stops the iteration and is returned.
	Range(fn func(key string, v V) error) error
	Snapshotter
	// RestoreFiltered replaces the state with the keys of several
	// snapshots that keep accepts: restoring at a new parallelism, where
	// one subtask's keys come from many old subtasks.
	RestoreFiltered(blobs [][]byte, keep func(key string) bool) error
}

// Snapshotter is state that goes into a checkpoint.
type Snapshotter interface {
	// Snapshot serializes the whole state.
	Snapshot() ([]byte, error)
	// Restore replaces the state with a snapshot's.
	Restore(b []byte) error
}

// Codec encodes one kind of value for snapshots (and for a disk backend).
type Codec[V any] struct {
	Encode func(e *Encoder, v V) error
	Decode func(d *Decoder) (V, error)
}

// RowCodec stores a sql.Row.
var RowCodec = Codec[sql.Row]{
	Encode: func(e *Encoder, r sql.Row) error { return e.Row(r) },
	Decode: func(d *Decoder) (sql.Row, error) { return d.Row() },
}

// RowsCodec stores a list of rows.
var RowsCodec = Codec[[]sql.Row]{
	Encode: func(e *Encoder, rs []sql.Row) error {
		e.Uvarint(uint64(len(rs)))
		for _, r := range rs {
			if err := e.Row(r); err != nil {
				return err
			}
		}
		return nil
	},
	Decode: func(d *Decoder) ([]sql.Row, error) {
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, ErrCorrupt
		}
		rs := make([]sql.Row, n)
		for i := range rs {
			if rs[i], err = d.Row(); err != nil {
				return nil, err
			}
		}
		return rs, nil
	},
}

// MemTable is the in-memory Table (the hashmap backend): a Go map. With a
// TTL (NewTable on a Backend with TTL) it keeps each key's last write time
// beside it, and snapshots carry it (before each value).
type MemTable[V any] struct {
	m     map[string]V
	codec Codec[V]
	ttl   int64 // ms; 0: no TTL
	now   func() int64
	ts    map[string]int64
}

// NewMemTable makes an empty in-memory table.
func NewMemTable[V any](codec Codec[V]) *MemTable[V] {
	return &MemTable[V]{m: map[string]V{}, codec: codec}
}

// Get returns the value for key.
func (t *MemTable[V]) Get(key string) (V, bool, error) {
	v, ok := t.m[key]
	if ok && t.ttl > 0 && t.ts[key]+t.ttl <= t.now() {
		delete(t.m, key)
		delete(t.ts, key)
		var zero V
		return zero, false, nil
	}
	return v, ok, nil
}

// Put stores v under key.
func (t *MemTable[V]) Put(key string, v V) error {
	t.m[key] = v
	if t.ttl > 0 {
		t.ts[key] = t.now()
	}
	return nil
}

// Delete removes key.
func (t *MemTable[V]) Delete(key string) error {
	delete(t.m, key)
	if t.ttl > 0 {
		delete(t.ts, key)
	}
	return nil
}

// Len is the number of keys.
func (t *MemTable[V]) Len() int { return len(t.m) }

// Range visits keys in byte order, skipping expired ones.
func (t *MemTable[V]) Range(fn func(key string, v V) error) error {
	keys := make([]string, 0, len(t.m))
	var now int64
	if t.ttl > 0 {
		now = t.now()
	}
	for k := range t.m {
		if t.ttl > 0 && t.ts[k]+t.ttl <= now {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn(k, t.m[k]); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot writes count, then key/value pairs in key order, so equal
// states give equal bytes.
func (t *MemTable[V]) Snapshot() ([]byte, error) {
	var body Encoder
	n := 0
	err := t.Range(func(k string, v V) error {
		n++
		body.String(k)
		if t.ttl > 0 {
			body.Uvarint(uint64(t.ts[k]))
		}
		return t.codec.Encode(&body, v)
	})
	var e Encoder
	e.Uvarint(uint64(n))
	return append(e.Buf, body.Buf...), err
}

// Restore replaces the contents with a snapshot's.
func (t *MemTable[V]) Restore(b []byte) error {
	if bytes.HasPrefix(b, refMagic) {
		return errLSMCheckpoint
	}
	d := Decoder{Buf: b}
	n, err := d.Uvarint()
	if err != nil {
		return fmt.Errorf("restore keyed state: %w", err)
	}
	m := make(map[string]V, min(n, uint64(len(b))/2))
	var ts map[string]int64
	if t.ttl > 0 {
		ts = make(map[string]int64, len(m))
	}
	for i := uint64(0); i < n; i++ {
		k, err := d.String()
		if err != nil {
			return fmt.Errorf("restore keyed state: %w", err)
		}
		if t.ttl > 0 {
			u, err := d.Uvarint()
			if err != nil {
				return fmt.Errorf("restore keyed state: %w", err)
			}
			ts[k] = int64(u)
		}
		v, err := t.codec.Decode(&d)
		if err != nil {
			return fmt.Errorf("restore keyed state: %w", err)
		}
		m[k] = v
	}
	if !d.Done() {
		return fmt.Errorf("restore keyed state: %w: %d bytes after the last key", ErrCorrupt, len(b)-d.Off)
	}
	t.m, t.ts = m, ts
	return nil
}

// errLSMCheckpoint is restoring the hashmap backend from a checkpoint the
// LSM backend took (its files, not the entries): Flink, too, switches state
// backends only through a savepoint.
var errLSMCheckpoint = errors.New("restore keyed state: the checkpoint holds state of state.backend.type 'rocksdb'; " +
	"restore it with that backend, or switch backends through a savepoint")

// RestoreFiltered merges the keys keep accepts from several snapshots.
func (t *MemTable[V]) RestoreFiltered(blobs [][]byte, keep func(key string) bool) error {
	merged := map[string]V{}
	var ts map[string]int64
	if t.ttl > 0 {
		ts = map[string]int64{}
	}
	for i, b := range blobs {
		if len(b) == 0 {
			continue
		}
		part := &MemTable[V]{codec: t.codec, ttl: t.ttl, now: t.now}
		if err := part.Restore(b); err != nil {
			return fmt.Errorf("restore keyed state of old subtask %d: %w", i, err)
		}
		for k, v := range part.m {
			if keep(k) {
				merged[k] = v
				if ts != nil {
					ts[k] = part.ts[k]
				}
			}
		}
	}
	t.m, t.ts = merged, ts
	return nil
}

// SnapshotAll concatenates several states into one blob (an operator with
// more than one table). Every disk table writes its cached changes before
// the first one snapshots: the store's checkpoint, taken once for all its
// tables, must hold them all.
func SnapshotAll(parts ...Snapshotter) ([]byte, error) {
	for i, p := range parts {
		if f, ok := p.(interface{ flush() error }); ok {
			if err := f.flush(); err != nil {
				return nil, fmt.Errorf("snapshot state %d: %w", i, err)
			}
		}
	}
	var e Encoder
	e.Uvarint(uint64(len(parts)))
	for i, p := range parts {
		b, err := p.Snapshot()
		if err != nil {
			return nil, fmt.Errorf("snapshot state %d: %w", i, err)
		}
		e.Bytes(b)
	}
	return e.Buf, nil
}

// RestoreAll splits a SnapshotAll blob back into its parts.
func RestoreAll(b []byte, parts ...Snapshotter) error {
	d := Decoder{Buf: b}
	n, err := d.Uvarint()
	if err != nil {
		return fmt.Errorf("restore state: %w", err)
	}
	if int(n) != len(parts) {
		return fmt.Errorf("restore state: snapshot has %d parts, operator has %d", n, len(parts))
	}
	for i, p := range parts {
		blob, err := d.Bytes()
		if err != nil {
			return fmt.Errorf("restore state %d: %w", i, err)
		}
		if err := p.Restore(blob); err != nil {
			return fmt.Errorf("restore state %d: %w", i, err)
		}
	}
	return nil
}
