// Package lsm is the disk state backend (state.backend.type = rocksdb): one
// pebble LSM per operator subtask, holding the subtask's keyed tables under
// one key prefix each.
//
// The working store is scratch: pebble's write-ahead log is off, because a
// job recovers from its last checkpoint, never from the working store. A
// checkpoint flushes the memtable and hard-links the store's immutable
// files into the checkpoint directory (pebble's Checkpoint): its cost is
// the memtable's size, not the state's, and files shared by successive
// checkpoints share their disk blocks (the filesystem counts the links, so
// deleting an old chk-N directory frees only what no newer one uses).
//
// The checkpoint is asynchronous, as Flink's RocksDB backend's snapshot
// is (RocksIncrementalSnapshotStrategy: a synchronous part at the barrier,
// the file upload in the background): at the barrier the subtask only
// seals the memtable (pebble's AsyncFlush) and goes on processing rows;
// the flush, the hard links and the manifest copy run on another
// goroutine. Writes made meanwhile go to an indexed batch that reads see
// through to the store and that is applied once the files are written, so
// the checkpoint holds exactly the state at the barrier.
package lsm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/sqlrun/sqlrun/exec/runtime/state"
)

// Sizes of the working store. The memtable bounds a checkpoint's flush
// (and so its pause); the block cache is shared by every store of the
// process. A Get of a key that is in the store reads its data block: from
// the cache, or from the file and decompressed (that was half the CPU of
// the updates of BenchmarkKeyedState at 5M keys with a 64 MiB cache).
const (
	memTableSize   = 16 << 20
	blockCacheSize = 256 << 20
	// pendingLimit bounds the writes a subtask buffers while a checkpoint's
	// files are written; past it the next write waits for them (the job
	// is back-pressured instead of growing).
	pendingLimit = 64 << 20
)

var (
	cacheOnce sync.Once
	cache     *pebble.Cache
)

func sharedCache() *pebble.Cache {
	cacheOnce.Do(func() { cache = pebble.NewCache(blockCacheSize) })
	return cache
}

// quiet is pebble's logger: informational messages are dropped; a fatal
// error panics (the task turns a panic into a failed job) instead of
// exiting the process.
type quiet struct{}

func (quiet) Infof(string, ...any)         {}
func (quiet) Errorf(string, ...any)        {}
func (quiet) Fatalf(f string, args ...any) { panic(fmt.Sprintf("state backend: "+f, args...)) }

// Store is one subtask's LSM. It is used by one goroutine (the subtask's).
type Store struct {
	dir string // the working store
	db  *pebble.DB
	// name identifies the store's files inside a checkpoint directory.
	name string
	// snapDir is where the snapshot being taken puts its files ("" for a
	// self-contained snapshot), snapDone whether they are there yet.
	snapDir  string
	snapDone bool
	// restoreDir resolves references of the checkpoint being restored,
	// restoredFrom is the checkpoint copy the working store holds.
	restoreDir   string
	cacheBytes   int64 // SetCacheBytes
	restoredFrom string
	// cp is the checkpoint whose files are being written in the
	// background, nil when none is.
	cp *asyncCheckpoint
}

// asyncCheckpoint is a checkpoint taken at a barrier whose files are still
// being written. Until then the store takes no writes: they go to batch.
type asyncCheckpoint struct {
	batch *pebble.Batch // indexed: reads see through it to the store
	done  chan struct{} // closed once the files are written (or failed)
	err   error         // set before done is closed
}

// beforeFiles, when set (tests), runs on the checkpoint's goroutine before
// it writes the files.
var beforeFiles func()

// Open makes an empty working store in dir (created with the first table,
// so an operator without keyed state costs nothing; removed by Close).
// name is unique among the job's subtasks (it names the store's directory
// in checkpoints).
func Open(dir, name string) (*Store, error) {
	s := &Store{dir: dir, name: name}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("state backend: clear %s: %w", dir, err)
	}
	return s, nil
}

func options() *pebble.Options {
	o := &pebble.Options{
		Cache:                       sharedCache(),
		MemTableSize:                memTableSize,
		MemTableStopWritesThreshold: 4,
		DisableWAL:                  true,
		Logger:                      quiet{},
	}
	// A bloom filter in every table file, L0 included (pebble's default
	// has none): most keys an operator looks up are new, and without a
	// filter each such Get seeks into a data block of every file whose
	// range holds the key.
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	return o
}

func (s *Store) open() error {
	db, err := pebble.Open(s.dir, options())
	if err != nil {
		return fmt.Errorf("state backend: open %s: %w", s.dir, err)
	}
	s.db = db
	return nil
}

// Close closes and deletes the working store.
func (s *Store) Close() error {
	var err error
	if s.cp != nil { // the checkpoint goroutine uses the store
		<-s.cp.done
		_ = s.cp.batch.Close()
		s.cp = nil
	}
	if s.db != nil {
		err = s.db.Close()
		s.db = nil
	}
	if rmErr := os.RemoveAll(s.dir); err == nil && rmErr != nil {
		err = rmErr
	}
	return err
}

// BeginSnapshot says where the files of the next snapshot go: under the
// checkpoint directory cpDir, or, with cpDir "", nowhere: the tables then
// snapshot their entries (a savepoint, self-contained and readable by
// either backend).
func (s *Store) BeginSnapshot(cpDir string) {
	s.snapDir, s.snapDone = cpDir, false
}

// SetRestoreDir is the directory of the checkpoint being restored.
func (s *Store) SetRestoreDir(dir string) { s.restoreDir = dir }

// SetCacheBytes is the byte budget of each table's write-back cache
// (sqlrun.state.cache-size; 0: state.DefaultCacheBytes).
func (s *Store) SetCacheBytes(n int64) { s.cacheBytes = n }

// CacheBytes implements state.CacheBudget.
func (s *Store) CacheBytes() int64 { return s.cacheBytes }

// DiskSize is the bytes of the working store's files.
func (s *Store) DiskSize() int64 {
	if s.db == nil {
		return 0
	}
	m := s.db.Metrics()
	return int64(m.DiskSpaceUsage())
}

// Table returns the table name.
func (s *Store) Table(name string) (state.KV, error) {
	if strings.ContainsRune(name, 0) || name == "" {
		return nil, fmt.Errorf("state backend: bad table name %q", name)
	}
	if s.db == nil {
		if err := s.open(); err != nil {
			return nil, err
		}
	}
	return &table{s: s, name: name, prefix: append([]byte(name), 0)}, nil
}

// checkpoint starts writing the store's files for the snapshot being
// taken, once: it seals the memtable and leaves the flush and the links to
// a goroutine (CheckpointDone waits for them).
func (s *Store) checkpoint() (rel string, err error) {
	rel = filepath.Join("lsm", s.name)
	if s.snapDone {
		return rel, nil
	}
	if err := s.settle(true); err != nil { // the previous checkpoint's
		return "", err
	}
	flushed, err := s.db.AsyncFlush()
	if err != nil {
		return "", fmt.Errorf("state backend: flush: %w", err)
	}
	dest := filepath.Join(s.snapDir, rel)
	a := &asyncCheckpoint{batch: s.db.NewIndexedBatch(), done: make(chan struct{})}
	db := s.db
	go func() {
		defer close(a.done)
		<-flushed
		if beforeFiles != nil {
			beforeFiles()
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			a.err = fmt.Errorf("state backend: %w", err)
			return
		}
		if err := db.Checkpoint(dest); err != nil {
			a.err = fmt.Errorf("state backend: checkpoint to %s: %w", dest, err)
		}
	}()
	s.cp = a
	s.snapDone = true
	return rel, nil
}

// CheckpointDone returns, when the snapshot just taken started writing the
// store's files, a function that waits until they are written and says
// whether that failed; it may be called from any goroutine (the subtask
// acknowledges the checkpoint once it returns). nil: nothing to wait for.
func (s *Store) CheckpointDone() func() error {
	if !s.snapDone || s.snapDir == "" || s.cp == nil {
		return nil
	}
	a := s.cp
	return func() error {
		<-a.done
		return a.err
	}
}

// settle applies the writes buffered during a checkpoint once its files
// are written; with wait it waits for them, else it returns at once when
// they are not written yet.
func (s *Store) settle(wait bool) error {
	a := s.cp
	if a == nil {
		return nil
	}
	if wait {
		<-a.done
	} else {
		select {
		case <-a.done:
		default:
			return nil
		}
	}
	s.cp = nil
	// The checkpoint's own failure fails it through CheckpointDone; the
	// working store goes on either way.
	err := a.batch.Commit(pebble.NoSync)
	_ = a.batch.Close()
	if err != nil {
		return fmt.Errorf("state backend: apply the writes made during a checkpoint: %w", err)
	}
	return nil
}

// reader is where reads go: the store, or the batch of writes made while
// a checkpoint's files are written (it reads through to the store).
func (s *Store) reader() (pebble.Reader, error) {
	if err := s.settle(false); err != nil {
		return nil, err
	}
	if s.cp != nil {
		return s.cp.batch, nil
	}
	return s.db, nil
}

// restore replaces the working store with a copy of the checkpoint's files
// at rel (once per checkpoint: the tables of one subtask share them). The
// immutable table files are hard-linked where the filesystem allows; the
// manifest and options, which pebble appends to, are copied.
func (s *Store) restore(rel string) error {
	src := filepath.Join(s.restoreDir, rel)
	if s.restoredFrom == src {
		return nil
	}
	if s.restoreDir == "" {
		return fmt.Errorf("state backend: no checkpoint directory to restore %s from", rel)
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("state backend: checkpoint files: %w", err)
	}
	if s.cp != nil { // replaced by the checkpoint's contents
		<-s.cp.done
		_ = s.cp.batch.Close()
		s.cp = nil
	}
	if s.db != nil {
		if err := s.db.Close(); err != nil {
			return fmt.Errorf("state backend: %w", err)
		}
		s.db = nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("state backend: %w", err)
	}
	if err := populate(src, s.dir); err != nil {
		return err
	}
	if err := s.open(); err != nil {
		return err
	}
	s.restoredFrom = src
	return nil
}

// populate fills dst (created) with the store files of the checkpoint copy
// src: the immutable table files hard-linked where the filesystem allows,
// the manifest and options, which pebble appends to, copied.
func populate(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("state backend: read checkpoint files: %w", err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("state backend: %w", err)
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if strings.HasSuffix(e.Name(), ".sst") || strings.HasSuffix(e.Name(), ".blob") {
			if os.Link(from, to) == nil {
				continue
			}
		}
		if err := copyFile(from, to); err != nil {
			return fmt.Errorf("state backend: restore %s: %w", e.Name(), err)
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// table is one named table: keys are prefix + the table's key.
type table struct {
	s      *Store
	name   string
	prefix []byte
	kbuf   []byte
	vbuf   []byte
	order  []int32
}

func (t *table) key(k string) []byte {
	t.kbuf = append(append(t.kbuf[:0], t.prefix...), k...)
	return t.kbuf
}

func (t *table) Get(key string) ([]byte, bool, error) {
	r, err := t.s.reader()
	if err != nil {
		return nil, false, err
	}
	v, c, err := r.Get(t.key(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state backend: get: %w", err)
	}
	t.vbuf = append(t.vbuf[:0], v...)
	_ = c.Close()
	return t.vbuf, true, nil
}

func (t *table) Write(keys []string, values [][]byte) error {
	if err := t.s.settle(false); err != nil {
		return err
	}
	if t.s.cp != nil && t.s.cp.batch.Len() >= pendingLimit {
		if err := t.s.settle(true); err != nil {
			return err
		}
	}
	var b *pebble.Batch
	if t.s.cp != nil {
		b = t.s.cp.batch // applied when the checkpoint's files are written
	} else {
		b = t.s.db.NewBatch()
		defer b.Close()
	}
	// In key order: the memtable's skiplist inserts them along one path
	// instead of from its top each time (stable: a later write of a key
	// stays later).
	t.order = t.order[:0]
	for i := range keys {
		t.order = append(t.order, int32(i))
	}
	slices.SortStableFunc(t.order, func(x, y int32) int { return strings.Compare(keys[x], keys[y]) })
	for _, i := range t.order {
		k := keys[i]
		var err error
		if values[i] == nil {
			err = b.Delete(t.key(k), nil)
		} else {
			err = b.Set(t.key(k), values[i], nil)
		}
		if err != nil {
			return fmt.Errorf("state backend: write: %w", err)
		}
	}
	if t.s.cp != nil {
		return nil
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("state backend: write: %w", err)
	}
	return nil
}

func (t *table) upper() []byte {
	u := append([]byte(nil), t.prefix...)
	u[len(u)-1]++ // name + 0x01: just past every key of the table
	return u
}

func scan(db pebble.Reader, prefix, upper []byte, fn func(key string, value []byte) error) error {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("state backend: scan: %w", err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return fmt.Errorf("state backend: scan: %w", err)
		}
		if err := fn(string(it.Key()[len(prefix):]), v); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("state backend: scan: %w", err)
	}
	return nil
}

func (t *table) Range(fn func(key string, value []byte) error) error {
	r, err := t.s.reader()
	if err != nil {
		return err
	}
	return scan(r, t.prefix, t.upper(), fn)
}

func (t *table) Clear() error {
	if err := t.s.settle(true); err != nil {
		return err
	}
	if err := t.s.db.DeleteRange(t.prefix, t.upper(), pebble.NoSync); err != nil {
		return fmt.Errorf("state backend: clear: %w", err)
	}
	return nil
}

// A reference is: the checkpoint-relative directory, the table name, the
// key count.
func (t *table) Checkpoint(count int) ([]byte, bool, error) {
	if t.s.snapDir == "" {
		return nil, false, nil
	}
	rel, err := t.s.checkpoint()
	if err != nil {
		return nil, false, err
	}
	var e state.Encoder
	e.String(filepath.ToSlash(rel))
	e.String(t.name)
	e.Uvarint(uint64(count))
	return e.Buf, true, nil
}

func parseRef(ref []byte) (rel, name string, count int, err error) {
	d := state.Decoder{Buf: ref}
	if rel, err = d.String(); err != nil {
		return
	}
	if name, err = d.String(); err != nil {
		return
	}
	n, err := d.Uvarint()
	if err != nil || !d.Done() || n > 1<<48 {
		return "", "", 0, state.ErrCorrupt
	}
	rel = filepath.FromSlash(rel)
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
		return "", "", 0, fmt.Errorf("%w: state reference leaves the checkpoint: %s", state.ErrCorrupt, rel)
	}
	return rel, name, int(n), nil
}

func (t *table) RestoreRef(ref []byte) (int, error) {
	rel, name, n, err := parseRef(ref)
	if err != nil {
		return 0, err
	}
	if name != t.name {
		return 0, fmt.Errorf("state backend: checkpoint holds table %s where %s was expected", name, t.name)
	}
	if err := t.s.restore(rel); err != nil {
		return 0, err
	}
	return n, nil
}

func (t *table) ScanRef(ref []byte, fn func(key string, value []byte) error) error {
	rel, name, _, err := parseRef(ref)
	if err != nil {
		return err
	}
	if t.s.restoreDir == "" {
		return fmt.Errorf("state backend: no checkpoint directory to read %s from", rel)
	}
	// Open a copy: pebble may write to a store even when reading it.
	tmp := t.s.dir + ".rescale"
	_ = os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	src := filepath.Join(t.s.restoreDir, rel)
	if err := populate(src, tmp); err != nil {
		return err
	}
	opts := options()
	opts.ReadOnly = true
	db, err := pebble.Open(tmp, opts)
	if err != nil {
		return fmt.Errorf("state backend: open checkpoint %s: %w", src, err)
	}
	defer db.Close()
	prefix := append([]byte(name), 0)
	upper := append([]byte(name), 1)
	if !bytes.Equal(prefix, t.prefix) {
		return fmt.Errorf("state backend: checkpoint holds table %s where %s was expected", name, t.name)
	}
	return scan(db, prefix, upper, fn)
}
