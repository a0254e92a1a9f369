package mergetree

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// poolSpec is the benchmark's row shape: k INT + 20 STRING.
func poolSpec(t *testing.T) *Spec {
	t.Helper()
	types := []sql.DataType{sql.Int().NotNull()}
	names := []string{"k"}
	for i := 1; i <= 20; i++ {
		types = append(types, sql.String())
		names = append(names, fmt.Sprintf("s%d", i))
	}
	spec, err := newSpec(names, types, []string{"k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// poolRow is row n of fill (about 500 BinaryRow bytes).
func poolRow(spec *Spec, fill, n int) *KV {
	v := make([]any, 21)
	v[0] = int32(n)
	for j := 1; j <= 20; j++ {
		v[j] = fmt.Sprintf("f%d-r%07d-%02d", fill, n, j)
	}
	return &KV{Key: spec.KeyOf(v), Seq: int64(n), Kind: sql.Insert, Value: v}
}

func putRows(t *testing.T, b *WriteBuffer, spec *Spec, fill, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := b.Put(poolRow(spec, fill, i)); err != nil {
			t.Fatal(err)
		}
	}
}

func keptBytes(p *MemoryPool) int64 {
	var n int64
	for _, free := range p.free {
		for _, c := range free {
			n += int64(cap(c))
		}
	}
	return n
}

func flushAll(t *testing.T, b *WriteBuffer) []*KV {
	t.Helper()
	var out []*KV
	if err := b.Flush(func(r *KV) error { out = append(out, r); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMemoryPoolReusesChunks: a flush returns the buffer's page chunks to
// the pool and the next fill takes the same chunks again instead of
// mapping new ones (Paimon's MemoryPoolFactory keeps its pages; mapping
// fresh ones made every checkpoint fault in and zero the whole buffer
// again). The pool is shared: a second writer's buffer fills from the
// chunks the first returned.
func TestMemoryPoolReusesChunks(t *testing.T) {
	spec := poolSpec(t)
	pool := NewMemoryPool(16 << 20)
	defer pool.Close()
	a := NewWriteBuffer(spec, 16<<20, nil, pool)
	putRows(t, a, spec, 0, 8000) // ~2.7 MiB
	maps, mapped := pool.maps, pool.MappedBytes()
	if maps < 2 || mapped < 4<<20 {
		t.Fatalf("first fill: %d mappings, %d bytes mapped", maps, mapped)
	}
	flushAll(t, a)
	if kept := keptBytes(pool); pool.lent != 0 || kept != mapped {
		t.Fatalf("after the flush: %d chunks lent, %d bytes kept, want 0 and %d", pool.lent, kept, mapped)
	}
	putRows(t, a, spec, 1, 8000)
	flushAll(t, a)
	b := NewWriteBuffer(spec, 16<<20, nil, pool)
	putRows(t, b, spec, 2, 8000)
	if pool.maps != maps || pool.MappedBytes() != mapped {
		t.Errorf("refills mapped %d new chunks (%d bytes mapped, was %d)", pool.maps-maps, pool.MappedBytes(), mapped)
	}
	b.Close()
	a.Close()
	if pool.lent != 0 {
		t.Errorf("%d chunks still lent after both buffers closed", pool.lent)
	}
}

// TestMemoryPoolCapacity: what the pool keeps between fills is bounded by
// its capacity however many buffers it served (a pool per bucket would
// multiply the memory by the number of buckets); a chunk returned past the
// capacity, and a record's own mapping larger than a chunk, are unmapped.
func TestMemoryPoolCapacity(t *testing.T) {
	spec := poolSpec(t)
	const capacity = 3 * pageChunk
	pool := NewMemoryPool(capacity)
	defer pool.Close()
	var bufs []*WriteBuffer
	for i := 0; i < 3; i++ {
		b := NewWriteBuffer(spec, 64<<20, nil, pool)
		putRows(t, b, spec, i, 20000) // ~6 MiB each (307 bytes packed, 32 of index)
		bufs = append(bufs, b)
	}
	big := poolRow(spec, 9, 1<<20)
	big.Value[1] = strings.Repeat("x", 3*pageChunk/2)
	if _, err := bufs[0].Put(big); err != nil {
		t.Fatal(err)
	}
	if m := pool.MappedBytes(); m < 3*capacity {
		t.Fatalf("three buffers of ~6 MiB and a big record: %d bytes mapped", m)
	}
	for _, b := range bufs {
		flushAll(t, b)
	}
	if m := pool.MappedBytes(); m > capacity {
		t.Errorf("the pool keeps %d bytes, capacity %d", m, capacity)
	}
	for _, free := range pool.free {
		for _, c := range free {
			if chunkClass(len(c)) < 0 {
				t.Errorf("the pool kept a %d-byte mapping", len(c))
			}
		}
	}
	if pool.lent != 0 {
		t.Errorf("%d chunks lent after every flush", pool.lent)
	}
}

// TestMemoryPoolClose: Close unmaps the kept chunks at once and a chunk a
// buffer still holds only when the buffer returns it, so the buffer reads
// its records intact after the pool closed; nothing is lent afterwards. A
// Writer's Close returns its buffer's pages (the buffer had no Close, so a
// writer closed with records buffered kept its mappings for good).
func TestMemoryPoolClose(t *testing.T) {
	spec := poolSpec(t)
	pool := NewMemoryPool(64 << 20)
	a := NewWriteBuffer(spec, 64<<20, nil, pool)
	putRows(t, a, spec, 0, 4000)
	flushAll(t, a) // chunks kept by the pool
	b := NewWriteBuffer(spec, 64<<20, nil, pool)
	putRows(t, b, spec, 1, 1000)
	held := b.MappedBytes()
	pool.Close()
	if m := pool.MappedBytes(); m != held {
		t.Fatalf("after Close %d bytes mapped, want the %d the buffer holds", m, held)
	}
	got := flushAll(t, b)
	if len(got) != 1000 || !reflect.DeepEqual(got[999].Value, poolRow(spec, 1, 999).Value) {
		t.Fatalf("records read after the pool closed: %d, last %v", len(got), got[len(got)-1].Value)
	}
	if m := pool.MappedBytes(); m != 0 {
		t.Errorf("%d bytes mapped once the buffer returned its chunks to the closed pool", m)
	}
	if _, err := b.Put(poolRow(spec, 2, 0)); err == nil || !strings.Contains(err.Error(), "memory pool closed") {
		t.Errorf("Put after the pool closed: %v", err)
	}

	wpool := NewMemoryPool(64 << 20)
	defer wpool.Close()
	w, err := NewWriter(spec, NewMemStore(spec.Key, 0), nil, WriterOptions{Pool: wpool})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := w.Write(sql.Insert, poolRow(spec, 0, i).Value); err != nil {
			t.Fatal(err)
		}
	}
	if wpool.lent == 0 {
		t.Fatal("the writer's buffer took no chunk")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if wpool.lent != 0 {
		t.Errorf("%d chunks still lent after the writer closed", wpool.lent)
	}
}

// TestWriteBufferNoUseAfterRelease: the records a flush hands over do not
// point into the pages, whose chunks the pool overwrites (poisonReturned)
// and lends to the next fill: values kept from one flush (a data file's
// min/max statistics, a changelog) are intact after the buffer refilled
// the same chunks with other rows.
func TestWriteBufferNoUseAfterRelease(t *testing.T) {
	poisonReturned = true
	defer func() { poisonReturned = false }()
	spec := poolSpec(t)
	pool := NewMemoryPool(64 << 20)
	defer pool.Close()
	b := NewWriteBuffer(spec, 64<<20, nil, pool)
	defer b.Close()
	putRows(t, b, spec, 0, 3000)
	first := flushAll(t, b)
	var raw []*KV
	putRows(t, b, spec, 1, 3000)
	if err := b.Flush(func(*KV) error { return nil }, func(r *KV) error { raw = append(raw, r); return nil }); err != nil {
		t.Fatal(err)
	}
	putRows(t, b, spec, 2, 3000)
	for i, r := range first {
		if want := poolRow(spec, 0, i); !reflect.DeepEqual(r.Value, want.Value) || !reflect.DeepEqual(r.Key, want.Key) {
			t.Fatalf("record %d of the first flush changed: %v, want %v", i, r.Value, want.Value)
		}
	}
	for i, r := range raw {
		if want := poolRow(spec, 1, i); !reflect.DeepEqual(r.Value, want.Value) {
			t.Fatalf("raw record %d of the second flush changed: %v, want %v", i, r.Value, want.Value)
		}
	}
}
