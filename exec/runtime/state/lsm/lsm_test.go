package lsm

import (
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

func open(t *testing.T, dir, name string) *Store {
	t.Helper()
	s, err := Open(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// written waits for the files of the checkpoint just taken.
func written(t *testing.T, s *Store) {
	t.Helper()
	if w := s.CheckpointDone(); w != nil {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
}

func dump(t *testing.T, tab state.Table[sql.Row]) []string {
	t.Helper()
	var out []string
	if err := tab.Range(func(k string, v sql.Row) error {
		out = append(out, k+"="+sql.FormatRow(v, nil))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckpointRestore: a table on the LSM, checkpointed into a directory
// (files, not entries), changed afterwards, restored in a new store: the
// restored state is the checkpoint's, with its key count; the working
// store's later writes do not leak into the checkpoint.
func TestCheckpointRestore(t *testing.T) {
	root := t.TempDir()
	s := open(t, filepath.Join(root, "work1"), "op-0")
	tab, err := state.NewTable(&state.Backend{Store: s}, "rows", state.RowCodec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10000 { // more than the cache: some go to the store before the snapshot
		if err := tab.Put(fmt.Sprintf("k%05d", i), sql.NewRow(int64(i), "v")); err != nil {
			t.Fatal(err)
		}
	}
	_ = tab.Delete("k00003")
	cpDir := filepath.Join(root, "chk-1")
	s.BeginSnapshot(cpDir)
	blob, err := tab.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(blob) > 64 {
		t.Fatalf("checkpoint blob holds entries (%d bytes), want a reference", len(blob))
	}
	_ = tab.Put("k00003", sql.NewRow(int64(-1), "after"))
	_ = tab.Delete("k00004")
	written(t, s)

	s2 := open(t, filepath.Join(root, "work2"), "op-0")
	s2.SetRestoreDir(cpDir)
	back, _ := state.NewTable(&state.Backend{Store: s2}, "rows", state.RowCodec)
	if err := back.Restore(blob); err != nil {
		t.Fatal(err)
	}
	if back.Len() != 9999 {
		t.Fatalf("Len = %d, want 9999", back.Len())
	}
	if _, ok, _ := back.Get("k00003"); ok {
		t.Fatal("k00003 deleted before the checkpoint is back")
	}
	if v, ok, _ := back.Get("k00004"); !ok || v.Values[0] != int64(4) {
		t.Fatalf("k00004 = %v %v", v, ok)
	}
	// A savepoint (no checkpoint directory) holds the entries, in the
	// hashmap backend's format: it restores there too.
	s.BeginSnapshot("")
	full, err := tab.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := state.NewTable[sql.Row](nil, "rows", state.RowCodec)
	if err := mem.Restore(full); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, mem), dump(t, tab); !reflect.DeepEqual(got, want) || len(got) != 9999 {
		t.Fatalf("savepoint into hashmap: %d keys, want %d", len(got), len(want))
	}
	// The hashmap backend refuses the LSM's checkpoint rather than
	// restoring nothing.
	if err := mem.Restore(blob); err == nil {
		t.Fatal("hashmap restored an LSM checkpoint reference")
	}
	// Rescaling reads a reference's entries.
	s3 := open(t, filepath.Join(root, "work3"), "op-0")
	s3.SetRestoreDir(cpDir)
	half, _ := state.NewTable(&state.Backend{Store: s3}, "rows", state.RowCodec)
	if err := half.RestoreFiltered([][]byte{blob, nil}, func(k string) bool { return k < "k00010" }); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, half); len(got) != 9 || half.Len() != 9 {
		t.Fatalf("rescaled: %v (Len %d)", got, half.Len())
	}
}

// TestTTL: table.exec.state.ttl on both backends, Flink's semantics
// (StateTtlConfig OnCreateAndWrite + NeverReturnExpired, as
// org.apache.flink.table.runtime.util.StateConfigUtil.createTtlConfig
// builds it): a key not written for the TTL is gone, reads do not extend
// it, and a checkpoint carries the write times.
func TestTTL(t *testing.T) {
	for _, backend := range []string{"hashmap", "rocksdb"} {
		t.Run(backend, func(t *testing.T) {
			now := int64(1000)
			b := &state.Backend{TTL: 10 * time.Millisecond, Now: func() int64 { return now }}
			root := t.TempDir()
			if backend == "rocksdb" {
				b.Store = open(t, filepath.Join(root, "w"), "op")
			}
			tab, _ := state.NewTable(b, "rows", state.RowCodec)
			_ = tab.Put("a", sql.NewRow(int64(1)))
			now = 1005
			_ = tab.Put("b", sql.NewRow(int64(2)))
			now = 1009
			if _, ok, _ := tab.Get("a"); !ok {
				t.Fatal("a expired early")
			}
			now = 1010 // a was written at 1000: expired, although read at 1009
			if _, ok, _ := tab.Get("a"); ok {
				t.Fatal("a returned after its TTL")
			}
			blob, err := tab.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			back, _ := state.NewTable(b, "rows", state.RowCodec)
			if backend == "rocksdb" {
				s2 := open(t, filepath.Join(root, "w2"), "op")
				back, _ = state.NewTable(&state.Backend{Store: s2, TTL: b.TTL, Now: b.Now}, "rows", state.RowCodec)
			}
			if err := back.Restore(blob); err != nil {
				t.Fatal(err)
			}
			if got := dump(t, back); !reflect.DeepEqual(got, []string{"b=+I[2]"}) {
				t.Fatalf("restored %v", got)
			}
			now = 1015
			if got := dump(t, back); len(got) != 0 {
				t.Fatalf("after b's TTL: %v", got)
			}
		})
	}
}

// TestGetOfAbsentKeySkipsDataBlocks: the store's files carry bloom
// filters, so the Get of a key that is not there (most keys an operator
// looks up are new) is answered by the filter, not by reading a data
// block (pebble's default has no filter: every such Get read one).
func TestGetOfAbsentKeySkipsDataBlocks(t *testing.T) {
	root := t.TempDir()
	s := open(t, filepath.Join(root, "work"), "op-0")
	kv, err := s.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var vals [][]byte
	for i := range 10000 {
		keys = append(keys, fmt.Sprintf("k%05d", i))
		vals = append(vals, []byte("v"))
	}
	if err := kv.Write(keys, vals); err != nil {
		t.Fatal(err)
	}
	s.BeginSnapshot(filepath.Join(root, "chk-1")) // flushes the memtable into a file
	if _, _, err := kv.Checkpoint(len(keys)); err != nil {
		t.Fatal(err)
	}
	written(t, s)
	for i := range 1000 { // inside the file's key range, absent
		if _, ok, err := kv.Get(fmt.Sprintf("k%05d+", i)); ok || err != nil {
			t.Fatalf("absent key found: %v %v", ok, err)
		}
	}
	if v, ok, err := kv.Get("k00042"); !ok || err != nil || string(v) != "v" {
		t.Fatalf("Get(k00042) = %q %v %v", v, ok, err)
	}
	if f := s.db.Metrics().Filter; f.Hits < 900 {
		t.Fatalf("bloom filter answered %d of 1000 absent keys (misses %d), want ≥ 900", f.Hits, f.Misses)
	}
}

// TestWriteLaterWinsInBatch: Write applies its batch in key order; a key
// written twice in one batch keeps its later value.
func TestWriteLaterWinsInBatch(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "work"), "op-0")
	kv, err := s.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.Write([]string{"b", "a", "b", "c", "a"}, [][]byte{[]byte("1"), []byte("2"), []byte("3"), []byte("4"), nil}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"a": "", "b": "3", "c": "4"} {
		v, ok, err := kv.Get(k)
		if err != nil || ok != (want != "") || string(v) != want {
			t.Fatalf("Get(%s) = %q %v %v, want %q", k, v, ok, err, want)
		}
	}
}

// TestCheckpointDoesNotStopWrites: a checkpoint's files are written in the
// background (Flink's RocksDB backend snapshots asynchronously too). While
// they are being written — the goroutine is held here — the table takes
// reads and writes, which see each other; the checkpoint, once written,
// holds exactly the state at the barrier, and the working store keeps the
// later writes.
func TestCheckpointDoesNotStopWrites(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	beforeFiles = func() { close(held); <-release }
	t.Cleanup(func() { beforeFiles = nil })

	root := t.TempDir()
	s := open(t, filepath.Join(root, "work1"), "op-0")
	tab, err := state.NewTable(&state.Backend{Store: s}, "rows", state.RowCodec)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000 // more than the cache: most are in the store at the barrier
	for i := range n {
		if err := tab.Put(fmt.Sprintf("k%05d", i), sql.NewRow(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	cpDir := filepath.Join(root, "chk-1")
	s.BeginSnapshot(cpDir)
	blob, err := tab.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wait := s.CheckpointDone()
	if wait == nil {
		t.Fatal("the checkpoint's files were written before Snapshot returned")
	}
	<-held // the memtable is flushed; the links are not made yet
	// After the barrier: every key updated, half of them deleted, new keys
	// (more than the cache holds, so they reach the store's batch).
	for i := range n {
		k := fmt.Sprintf("k%05d", i)
		if i%2 == 0 {
			err = tab.Delete(k)
		} else {
			err = tab.Put(k, sql.NewRow(int64(-i)))
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Put(fmt.Sprintf("n%05d", i), sql.NewRow(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if v, ok, err := tab.Get("k00001"); err != nil || !ok || v.Values[0] != int64(-1) {
		t.Fatalf("Get(k00001) during the checkpoint = %v %v %v", v, ok, err)
	}
	if got := dump(t, tab); len(got) != n+n/2 {
		t.Fatalf("during the checkpoint the table holds %d keys, want %d", len(got), n+n/2)
	}
	select {
	case <-s.cp.done:
		t.Fatal("the checkpoint finished while its goroutine was held")
	default:
	}
	// A memtable that fills up meanwhile is flushed into a file the
	// checkpoint would link: none of the writes above may be in it.
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := wait(); err != nil {
		t.Fatal(err)
	}

	s2 := open(t, filepath.Join(root, "work2"), "op-0")
	s2.SetRestoreDir(cpDir)
	back, _ := state.NewTable(&state.Backend{Store: s2}, "rows", state.RowCodec)
	if err := back.Restore(blob); err != nil {
		t.Fatal(err)
	}
	got := dump(t, back)
	if len(got) != n || back.Len() != n {
		t.Fatalf("restored %d keys (Len %d), want the %d at the barrier", len(got), back.Len(), n)
	}
	for i, l := range got {
		if want := fmt.Sprintf("k%05d=+I[%d]", i, i); l != want {
			t.Fatalf("restored %s, want %s", l, want)
		}
	}
	// The working store applied the writes made meanwhile.
	if err := tab.Put("x", sql.NewRow(int64(0))); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, tab); len(got) != n+n/2+1 || s.cp != nil {
		t.Fatalf("after the checkpoint the table holds %d keys, want %d", len(got), n+n/2+1)
	}
	if v, ok, _ := tab.Get("k00003"); !ok || v.Values[0] != int64(-3) {
		t.Fatalf("Get(k00003) after the checkpoint = %v %v", v, ok)
	}
}

// TestHotKeysStayCached: the write-back cache keeps a key that is used
// often across its write-backs, so a skewed workload reads its hot keys
// from the store once (it emptied at every write-back of 4096 entries, and
// the hot key was read back after each).
func TestHotKeysStayCached(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "work"), "op-0")
	cs := &countingStore{Store: s, byKey: map[string]int{}}
	tab, err := state.NewTable(&state.Backend{Store: cs}, "rows", state.RowCodec)
	if err != nil {
		t.Fatal(err)
	}
	bump := func(k string) {
		v, ok, err := tab.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(1)
		if ok {
			n += v.Values[0].(int64)
		}
		if err := tab.Put(k, sql.NewRow(n)); err != nil {
			t.Fatal(err)
		}
	}
	const cold = 100_000 // each used once: far more than the cache holds
	for i := range cold {
		bump(fmt.Sprintf("c%06d", i))
		if i%10 == 0 {
			bump("hot")
		}
	}
	if v, ok, _ := tab.Get("hot"); !ok || v.Values[0] != int64(cold/10) {
		t.Fatalf("hot = %v %v, want %d", v, ok, cold/10)
	}
	if n := cs.byKey["hot"]; n != 1 {
		t.Fatalf("the hot key was read from the store %d times, want once", n)
	}
	if cs.gets > cold+1 {
		t.Fatalf("%d store reads for %d keys", cs.gets, cold+1)
	}
}

// TestCacheAgreesWithMemTable: random puts, deletes and gets over skewed
// keys, with checkpoints in between, on the LSM (through its cache) and on
// the hashmap backend give the same answers, the same contents and the
// same restored state.
func TestCacheAgreesWithMemTable(t *testing.T) {
	root := t.TempDir()
	s := open(t, filepath.Join(root, "work"), "op-0")
	tab, err := state.NewTable(&state.Backend{Store: s}, "rows", state.RowCodec)
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := state.NewTable[sql.Row](nil, "rows", state.RowCodec)
	rng := rand.New(rand.NewSource(24))
	z := rand.NewZipf(rng, 1.2, 1, 60_000)
	var blob []byte
	cpDir := ""
	for i := range 200_000 {
		k := fmt.Sprintf("k%05d", z.Uint64())
		switch r := rng.Intn(10); {
		case r < 5:
			v := sql.NewRow(int64(i))
			if err := errors.Join(tab.Put(k, v), mem.Put(k, v)); err != nil {
				t.Fatal(err)
			}
		case r < 7:
			if err := errors.Join(tab.Delete(k), mem.Delete(k)); err != nil {
				t.Fatal(err)
			}
		default:
			a, aok, aerr := tab.Get(k)
			b, bok, berr := mem.Get(k)
			if aerr != nil || berr != nil || aok != bok || (aok && a.Values[0] != b.Values[0]) {
				t.Fatalf("row %d: Get(%s) = %v %v %v on the LSM, %v %v %v in memory", i, k, a, aok, aerr, b, bok, berr)
			}
		}
		if i%50_000 == 49_999 {
			cpDir = filepath.Join(root, fmt.Sprintf("chk-%d", i))
			s.BeginSnapshot(cpDir)
			if blob, err = tab.Snapshot(); err != nil {
				t.Fatal(err)
			}
			written(t, s)
			if tab.Len() != mem.Len() {
				t.Fatalf("row %d: Len %d on the LSM, %d in memory", i, tab.Len(), mem.Len())
			}
		}
	}
	if got, want := dump(t, tab), dump(t, mem); !reflect.DeepEqual(got, want) {
		t.Fatalf("contents differ: %d keys on the LSM, %d in memory", len(got), len(want))
	}
	s2 := open(t, filepath.Join(root, "work2"), "op-0")
	s2.SetRestoreDir(cpDir)
	back, _ := state.NewTable(&state.Backend{Store: s2}, "rows", state.RowCodec)
	if err := back.Restore(blob); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, back), dump(t, mem); !reflect.DeepEqual(got, want) || back.Len() != len(want) {
		t.Fatalf("restored %d keys (Len %d), want %d", len(got), back.Len(), len(want))
	}
}
