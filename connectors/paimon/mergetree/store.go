package mergetree

import (
	"fmt"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// FileKind says what a writer produces.
type FileKind int

const (
	// FlushFile is a level-0 data file from a write-buffer flush (Paimon
	// FileSource APPEND).
	FlushFile FileKind = iota
	// CompactFile is a data file written by compaction (FileSource COMPACT).
	CompactFile
	// ChangelogFile is a changelog file (input, lookup or full-compaction
	// producer); its records may repeat keys.
	ChangelogFile
)

// RunStore reads and writes the files of one bucket. The table layer backs
// it with Parquet data files; MemStore backs it with memory for tests. It
// must be safe for concurrent use: compaction reads and writes while the
// writer flushes.
type RunStore interface {
	// Open reads a data file's records sorted by key, each with Level set to
	// f.Level.
	Open(f *FileMeta) (Iterator, error)
	// NewWriter starts a rolling writer: records arrive sorted by key (data
	// files: one record per key), and it rolls to a new file at
	// target-file-size. Level is the files' level.
	NewWriter(level int, kind FileKind) (FileWriter, error)
}

// FileWriter writes records into one or more files.
type FileWriter interface {
	Write(r *KV) error
	// Finish closes the writer and describes the files written (none when
	// nothing was written).
	Finish() ([]*FileMeta, error)
	// Abort closes the writer and deletes its files; it is called instead
	// of Finish after a failure.
	Abort()
}

// BinaryWriter is a FileWriter that also takes a record whose value row is
// still serialized (Paimon's BinaryRow of the spec's FieldTypes), as the
// write buffer holds it: a flush then hands its records over without
// decoding them (Paimon's writers take BinaryRows too).
type BinaryWriter interface {
	FileWriter
	// WriteBinary writes r (Key, Seq and Kind; r.Value is nil) with the
	// value row value. Neither r nor value may be kept after the call
	// (r.Key may: it is the record's own).
	WriteBinary(r *KV, value []byte) error
}

// PackedWriter is a BinaryWriter that also takes the value row in the
// packed form the write buffer keeps it in (binrow.AppendPacked), so a
// flush need not unpack it to a BinaryRow first.
type PackedWriter interface {
	BinaryWriter
	// WritePacked is WriteBinary with the value row packed.
	WritePacked(r *KV, packed []byte) error
}

// EstimateSize approximates the bytes a record holds in memory; the write
// buffer uses it against write-buffer-size and MemStore as file size.
func EstimateSize(r *KV) int64 {
	n := int64(48)
	for _, v := range r.Key {
		n += valueSize(v)
	}
	for _, v := range r.Value {
		n += valueSize(v)
	}
	return n
}

func valueSize(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 16
	case string:
		return 16 + int64(len(x))
	case []byte:
		return 24 + int64(len(x))
	case decimal.Decimal:
		return 40
	case sql.TimestampData:
		return 28
	case []any:
		n := int64(24)
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	}
	return 16
}

// MemStore is an in-memory RunStore for tests and benchmarks. File sizes are
// EstimateSize sums, and files roll at TargetFileSize (0: never).
type MemStore struct {
	Key            *Comparator
	TargetFileSize int64

	mu    sync.Mutex
	next  int
	files map[string][]*KV
	// Fail, when set, is called before each operation ("open <file>",
	// "write <file>", "finish <file>") and its error returned: fault
	// injection for tests.
	Fail func(op string) error
}

// NewMemStore creates an empty store.
func NewMemStore(key *Comparator, targetFileSize int64) *MemStore {
	return &MemStore{Key: key, TargetFileSize: targetFileSize, files: map[string][]*KV{}}
}

// Open implements RunStore.
func (s *MemStore) Open(f *FileMeta) (Iterator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		if err := s.Fail("open " + f.Name); err != nil {
			return nil, err
		}
	}
	recs, ok := s.files[f.Name]
	if !ok {
		return nil, fmt.Errorf("mergetree: memstore: file %s not found", f.Name)
	}
	out := make([]*KV, len(recs))
	for i, r := range recs {
		c := *r
		c.Level = f.Level
		out[i] = &c
	}
	return NewSliceIter(out), nil
}

// Records returns a file's records (for tests).
func (s *MemStore) Records(name string) []*KV {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[name]
}

// Delete removes files no longer referenced.
func (s *MemStore) Delete(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		delete(s.files, n)
	}
}

// FileCount reports how many files the store holds.
func (s *MemStore) FileCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}

// NewWriter implements RunStore.
func (s *MemStore) NewWriter(level int, kind FileKind) (FileWriter, error) {
	return &memWriter{s: s, level: level, kind: kind}, nil
}

type memWriter struct {
	s     *MemStore
	level int
	kind  FileKind
	cur   []*KV
	size  int64
	done  []*FileMeta
	err   error
}

func (w *memWriter) Write(r *KV) error {
	if w.err != nil {
		return w.err
	}
	if w.s.Fail != nil {
		if err := w.s.Fail("write"); err != nil {
			w.err = err
			return err
		}
	}
	c := *r
	c.Level = 0
	w.cur = append(w.cur, &c)
	w.size += EstimateSize(r)
	if w.s.TargetFileSize > 0 && w.size >= w.s.TargetFileSize {
		w.roll()
	}
	return nil
}

func (w *memWriter) roll() {
	if len(w.cur) == 0 {
		return
	}
	w.s.mu.Lock()
	w.s.next++
	prefix := "data"
	if w.kind == ChangelogFile {
		prefix = "changelog"
	}
	n := w.s.next
	name := fmt.Sprintf("%s-%d", prefix, n)
	w.s.files[name] = w.cur
	w.s.mu.Unlock()
	f := &FileMeta{Name: name, Level: w.level, MinKey: w.cur[0].Key, MaxKey: w.cur[len(w.cur)-1].Key,
		Size: w.size, MinSeq: w.cur[0].Seq, MaxSeq: w.cur[0].Seq, RowCount: int64(len(w.cur)), CreationMillis: int64(n)}
	for _, r := range w.cur {
		f.MinSeq = min(f.MinSeq, r.Seq)
		f.MaxSeq = max(f.MaxSeq, r.Seq)
		if r.Kind.IsRetract() {
			f.DeleteRowCount++
		}
	}
	w.done = append(w.done, f)
	w.cur, w.size = nil, 0
}

func (w *memWriter) Finish() ([]*FileMeta, error) {
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	if w.s.Fail != nil {
		if err := w.s.Fail("finish"); err != nil {
			w.Abort()
			return nil, err
		}
	}
	w.roll()
	return w.done, nil
}

func (w *memWriter) Abort() {
	for _, f := range w.done {
		w.s.Delete(f.Name)
	}
	w.done, w.cur = nil, nil
}
