package state

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// mapStore is a Store of in-memory KVs that counts reads.
type mapStore struct {
	budget int64
	gets   int
	tables map[string]*mapKV
}

func (s *mapStore) CacheBytes() int64 { return s.budget }
func (s *mapStore) Table(name string) (KV, error) {
	if s.tables == nil {
		s.tables = map[string]*mapKV{}
	}
	kv := &mapKV{s: s, m: map[string][]byte{}}
	s.tables[name] = kv
	return kv, nil
}

type mapKV struct {
	s *mapStore
	m map[string][]byte
}

func (k *mapKV) Get(key string) ([]byte, bool, error) {
	k.s.gets++
	v, ok := k.m[key]
	return v, ok, nil
}
func (k *mapKV) Write(keys []string, values [][]byte) error {
	for i, key := range keys {
		if values[i] == nil {
			delete(k.m, key)
		} else {
			k.m[key] = append([]byte(nil), values[i]...)
		}
	}
	return nil
}
func (k *mapKV) Range(func(string, []byte) error) error           { return nil }
func (k *mapKV) Clear() error                                     { clear(k.m); return nil }
func (k *mapKV) Checkpoint(int) ([]byte, bool, error)             { return nil, false, nil }
func (k *mapKV) RestoreRef([]byte) (int, error)                   { return 0, nil }
func (k *mapKV) ScanRef([]byte, func(string, []byte) error) error { return nil }

// cachedBytes is what the cached entries take as encoded now (the key,
// the value's encoding, entryOverhead).
func cachedBytes(kt *kvTable[sql.Row]) int64 {
	var n int64
	var e Encoder
	for _, c := range kt.ring {
		e.Buf = e.Buf[:0]
		if c.present {
			_ = kt.encode(&e, c.v, c.ts)
		}
		n += int64(len(c.key) + len(e.Buf) + entryOverhead)
	}
	return n
}

// TestCacheBoundedByBytes: a disk table's write-back cache holds what its
// byte budget (sqlrun.state.cache-size) allows, however large the values:
// 1 KB rows in a 64 KB budget keep at most the budget plus the entry being
// used cached (an entry count of 16384 held 16 MB of them), small rows
// many more, and every answer is the one a map gives across evictions and
// write-backs.
func TestCacheBoundedByBytes(t *testing.T) {
	const budget = 64 << 10
	for _, size := range []int{1000, 10} {
		st := &mapStore{budget: budget}
		tab, err := NewTable(&Backend{Store: st}, "rows", RowCodec)
		if err != nil {
			t.Fatal(err)
		}
		kt := tab.(*kvTable[sql.Row])
		want := map[string]string{}
		r := rand.New(rand.NewSource(int64(size)))
		maxEntries := 0
		for i := range 20000 {
			k := fmt.Sprintf("k%05d", r.Intn(5000))
			if r.Intn(3) == 0 {
				got, ok, err := tab.Get(k)
				if w, wok := want[k]; err != nil || ok != wok || (ok && got.Values[0] != w) {
					t.Fatalf("row %d: Get(%s) = %v %v %v, want %q %v", i, k, got, ok, err, w, wok)
				}
			} else {
				v := fmt.Sprintf("%d-%s", i, strings.Repeat("x", size))
				if err := tab.Put(k, sql.NewRow(v)); err != nil {
					t.Fatal(err)
				}
				want[k] = v
			}
			// An entry's count is exact once written back; in between a
			// changed one counts its earlier size, which the write-backs
			// (every budget/2 bytes of entries as large as the last
			// ones, once one has measured them) keep to half the budget.
			if real := cachedBytes(kt); kt.avg > 0 && real > budget*3/2+int64(size+200) {
				t.Fatalf("row %d: %d bytes cached (%d entries), budget %d", i, real, len(kt.ring), budget)
			}
			maxEntries = max(maxEntries, len(kt.ring))
		}
		if err := kt.flush(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tab.Get("absent"); err != nil { // an insert: evicts
			t.Fatal(err)
		}
		if kt.bytes != cachedBytes(kt) || kt.bytes > budget+int64(size+200) {
			t.Fatalf("values of %d bytes: %d bytes cached (counted %d) after the write-back, budget %d", size, cachedBytes(kt), kt.bytes, budget)
		}
		t.Logf("values of %d bytes: up to %d entries cached", size, maxEntries)
		if size == 10 && maxEntries < 400 {
			t.Fatalf("small values: only %d entries cached in %d bytes", maxEntries, budget)
		}
	}
}
