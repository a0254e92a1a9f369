package lsm

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

// BenchmarkKeyedState is the state access of GroupAggregate and
// ChangelogNormalize on the rocksdb backend (bench/scale's input, issue
// 24): per row a Get of the key then a Put of a 3-column row; the first
// 5/6 of the rows are new keys, the rest update every fifth key seen
// before; a checkpoint every 200k rows. Run it with a fixed count
// (-benchtime 1000000x) so both sides of scripts/abbench.sh do the same
// work.
func BenchmarkKeyedState(b *testing.B) {
	root := b.TempDir()
	s, err := Open(filepath.Join(root, "work"), "op-0")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tab, err := state.NewTable(&state.Backend{Store: s}, "agg", state.RowCodec)
	if err != nil {
		b.Fatal(err)
	}
	keys := b.N - b.N/6
	var e state.Encoder
	cpu0 := procstat.CPU()
	b.ResetTimer()
	for p := range b.N {
		k := p
		if p >= keys {
			k = (p - keys) * 5
		}
		e.Buf = e.Buf[:0]
		if err := e.Key(int64(k)); err != nil {
			b.Fatal(err)
		}
		key := string(e.Buf)
		v, ok, err := tab.Get(key)
		if err != nil {
			b.Fatal(err)
		}
		a := int64(p%1000 + 1)
		if ok {
			v = sql.NewRow(v.Values[0].(int64)+a, v.Values[1].(int64)+1, max(v.Values[2].(int64), a))
		} else {
			v = sql.NewRow(a, int64(1), a)
		}
		if err := tab.Put(key, v); err != nil {
			b.Fatal(err)
		}
		if p%200_000 == 199_999 {
			cp := filepath.Join(root, fmt.Sprintf("chk-%d", p/200_000))
			s.BeginSnapshot(cp)
			if _, err := tab.Snapshot(); err != nil {
				b.Fatal(err)
			}
			if w := s.CheckpointDone(); w != nil {
				if err := w(); err != nil {
					b.Fatal(err)
				}
			}
			if p >= 400_000 {
				_ = os.RemoveAll(filepath.Join(root, fmt.Sprintf("chk-%d", p/200_000-1)))
			}
		}
	}
	b.StopTimer()
	if tab.Len() != keys {
		b.Fatalf("%d keys, want %d", tab.Len(), keys)
	}
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
}

// countingStore counts the reads that reach the store (the write-back
// cache's misses).
type countingStore struct {
	*Store
	gets  int
	byKey map[string]int // when not nil, the reads of each key
}

func (c *countingStore) Table(name string) (state.KV, error) {
	kv, err := c.Store.Table(name)
	return &countingKV{KV: kv, c: c}, err
}

type countingKV struct {
	state.KV
	c *countingStore
}

func (k *countingKV) Get(key string) ([]byte, bool, error) {
	k.c.gets++
	if k.c.byKey != nil {
		k.c.byKey[key]++
	}
	return k.KV.Get(key)
}

// BenchmarkKeyedStateZipf is BenchmarkKeyedState's Get and Put per row over
// Zipf-skewed keys (s = 1.1 over 4M keys, a fixed seed: a few keys take
// most rows, as hot products or users do), a checkpoint every 200k rows.
// It reports rows/cpu-s and store-gets/row, the reads that missed the
// write-back cache and went to the LSM.
func BenchmarkKeyedStateZipf(b *testing.B) {
	root := b.TempDir()
	s, err := Open(filepath.Join(root, "work"), "op-0")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cs := &countingStore{Store: s}
	tab, err := state.NewTable(&state.Backend{Store: cs}, "agg", state.RowCodec)
	if err != nil {
		b.Fatal(err)
	}
	z := rand.NewZipf(rand.New(rand.NewSource(24)), 1.1, 1, 1<<22-1)
	var e state.Encoder
	cpu0 := procstat.CPU()
	b.ResetTimer()
	for p := range b.N {
		e.Buf = e.Buf[:0]
		if err := e.Key(int64(z.Uint64())); err != nil {
			b.Fatal(err)
		}
		key := string(e.Buf)
		v, ok, err := tab.Get(key)
		if err != nil {
			b.Fatal(err)
		}
		a := int64(p%1000 + 1)
		if ok {
			v = sql.NewRow(v.Values[0].(int64)+a, v.Values[1].(int64)+1, max(v.Values[2].(int64), a))
		} else {
			v = sql.NewRow(a, int64(1), a)
		}
		if err := tab.Put(key, v); err != nil {
			b.Fatal(err)
		}
		if p%200_000 == 199_999 {
			cp := filepath.Join(root, fmt.Sprintf("chk-%d", p/200_000))
			s.BeginSnapshot(cp)
			if _, err := tab.Snapshot(); err != nil {
				b.Fatal(err)
			}
			if w := s.CheckpointDone(); w != nil {
				if err := w(); err != nil {
					b.Fatal(err)
				}
			}
			if p >= 400_000 {
				_ = os.RemoveAll(filepath.Join(root, fmt.Sprintf("chk-%d", p/200_000-1)))
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/(procstat.CPU()-cpu0).Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(cs.gets)/float64(b.N), "store-gets/row")
}
