package manifest

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/google/uuid"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/datum"
	"github.com/sqlrun/sqlrun/sql"
)

// ErrDuplicateAdd is wrapped when folding sees a file added twice: the
// table's metadata is inconsistent (or a commit was replayed).
var ErrDuplicateAdd = errors.New("file added twice")

// Names hands out manifest and manifest-list file names for one committer:
// one random UUID, separate counters (manifest-<uuid>-<n>,
// manifest-list-<uuid>-<n>), as Java's FileStorePathFactory. Safe for
// concurrent use.
type Names struct {
	mu              sync.Mutex
	uuid            string
	manifest, lists int
	index           int
}

// NewNames returns a generator with a fresh UUID.
func NewNames() *Names { return &Names{uuid: uuid.NewString()} }

// Manifest returns the next manifest file name.
func (n *Names) Manifest() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := "manifest-" + n.uuid + "-" + strconv.Itoa(n.manifest)
	n.manifest++
	return s
}

// ManifestList returns the next manifest list file name.
func (n *Names) ManifestList() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := "manifest-list-" + n.uuid + "-" + strconv.Itoa(n.lists)
	n.lists++
	return s
}

// IndexManifest returns the next index manifest file name.
func (n *Names) IndexManifest() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := "index-manifest-" + n.uuid + "-" + strconv.Itoa(n.index)
	n.index++
	return s
}

// Dir is <table>/manifest.
func Dir(tableRoot string) string { return fs.Join(tableRoot, "manifest") }

// EncodeManifestList returns the Avro file of a manifest list.
func EncodeManifestList(metas []ManifestFileMeta, codec string) ([]byte, error) {
	w := newOCFWriter(ManifestListSchema, codec)
	for i := range metas {
		w.block.manifestFileMeta(&metas[i])
		w.endRecord()
	}
	return w.finish()
}

// EncodeManifest returns the Avro file of a manifest.
func EncodeManifest(entries []ManifestEntry, codec string) ([]byte, error) {
	w := newOCFWriter(ManifestSchema, codec)
	for i := range entries {
		w.block.manifestEntry(&entries[i])
		w.endRecord()
	}
	return w.finish()
}

// DecodeManifestList parses a manifest list file.
func DecodeManifestList(data []byte) ([]ManifestFileMeta, error) {
	recs, err := readOCF(data)
	if err != nil {
		return nil, err
	}
	out := make([]ManifestFileMeta, len(recs))
	for i, r := range recs {
		if out[i], err = decodeManifestFileMeta(r); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
	}
	return out, nil
}

// DecodeManifest parses a manifest file.
func DecodeManifest(data []byte) ([]ManifestEntry, error) {
	recs, err := readOCF(data)
	if err != nil {
		return nil, err
	}
	out := make([]ManifestEntry, len(recs))
	for i, r := range recs {
		if out[i], err = decodeManifestEntry(r); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
	}
	return out, nil
}

// DecodeIndexManifest parses an index manifest file.
func DecodeIndexManifest(data []byte) ([]IndexManifestEntry, error) {
	recs, err := readOCF(data)
	if err != nil {
		return nil, err
	}
	out := make([]IndexManifestEntry, len(recs))
	for i, r := range recs {
		if out[i], err = decodeIndexEntry(r); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
	}
	return out, nil
}

// Store reads and writes the manifest directory of one table.
type Store struct {
	FIO  fs.FileIO
	Root string // table root
	// Codec is the Avro codec name for writing (CodecZstd by default).
	Codec string
}

func (s *Store) codec() string {
	if s.Codec == "" {
		return CodecZstd
	}
	return s.Codec
}

func (s *Store) path(name string) string { return fs.Join(Dir(s.Root), name) }

func (s *Store) write(name string, data []byte) (int64, error) {
	w, err := s.FIO.Create(s.path(name))
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", name, err)
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return 0, fmt.Errorf("write %s: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("write %s: %w", name, err)
	}
	return int64(len(data)), nil
}

// WriteManifestList writes a manifest list and returns its exact size.
func (s *Store) WriteManifestList(name string, metas []ManifestFileMeta) (int64, error) {
	b, err := EncodeManifestList(metas, s.codec())
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", name, err)
	}
	return s.write(name, b)
}

// WriteManifest writes a manifest of entries and returns its meta (for the
// manifest list), with partition stats computed over partitionTypes.
func (s *Store) WriteManifest(name string, entries []ManifestEntry, partitionTypes []sql.DataType) (ManifestFileMeta, error) {
	b, err := EncodeManifest(entries, s.codec())
	if err != nil {
		return ManifestFileMeta{}, fmt.Errorf("encode %s: %w", name, err)
	}
	meta, err := NewManifestFileMeta(name, int64(len(b)), entries, partitionTypes)
	if err != nil {
		return meta, err
	}
	if _, err := s.write(name, b); err != nil {
		return meta, err
	}
	return meta, nil
}

func (s *Store) read(name string) ([]byte, error) {
	b, err := s.FIO.ReadFile(s.path(name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// ReadManifestList reads a manifest list by file name.
func (s *Store) ReadManifestList(name string) ([]ManifestFileMeta, error) {
	b, err := s.read(name)
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifestList(b)
	if err != nil {
		return nil, fmt.Errorf("manifest list %s: %w", name, err)
	}
	return m, nil
}

// ReadManifest reads a manifest by file name.
func (s *Store) ReadManifest(name string) ([]ManifestEntry, error) {
	b, err := s.read(name)
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", name, err)
	}
	return m, nil
}

// ReadIndexManifest reads an index manifest by file name.
func (s *Store) ReadIndexManifest(name string) ([]IndexManifestEntry, error) {
	b, err := s.read(name)
	if err != nil {
		return nil, err
	}
	m, err := DecodeIndexManifest(b)
	if err != nil {
		return nil, fmt.Errorf("index manifest %s: %w", name, err)
	}
	return m, nil
}

// ReadEntries reads every entry of the manifests of the given lists, in
// list order, each manifest in order (base list first, then delta).
func (s *Store) ReadEntries(lists ...string) ([]ManifestEntry, error) {
	var out []ManifestEntry
	for _, l := range lists {
		if l == "" {
			continue
		}
		metas, err := s.ReadManifestList(l)
		if err != nil {
			return nil, err
		}
		for _, m := range metas {
			es, err := s.ReadManifest(m.FileName)
			if err != nil {
				return nil, err
			}
			out = append(out, es...)
		}
	}
	return out, nil
}

// LiveFiles reads a snapshot's base and delta lists and folds them: the
// survivors are the snapshot's data files.
func (s *Store) LiveFiles(baseList, deltaList string) ([]ManifestEntry, error) {
	es, err := s.ReadEntries(baseList, deltaList)
	if err != nil {
		return nil, err
	}
	return Fold(es)
}

// Fold merges entries by Identifier in order: an ADD inserts (a second ADD
// of a live file is ErrDuplicateAdd), a DELETE removes the earlier ADD, or
// is kept as a tombstone when there is none (a DELETE of a file added in a
// manifest not in this list, as in merged manifests). Result order is first
// appearance order. Callers wanting live files only use the ADD survivors;
// FoldEntries keeps tombstones for manifest merging.
func Fold(entries []ManifestEntry) ([]ManifestEntry, error) {
	all, err := FoldEntries(entries)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, e := range all {
		if e.Kind == Add {
			out = append(out, e)
		}
	}
	return out, nil
}

// FoldEntries is Fold keeping DELETE tombstones.
func FoldEntries(entries []ManifestEntry) ([]ManifestEntry, error) {
	type slot struct {
		e     ManifestEntry
		alive bool
	}
	idx := map[string]int{}
	var slots []slot
	for _, e := range entries {
		id := e.Identifier()
		i, seen := idx[id]
		switch e.Kind {
		case Add:
			if seen && slots[i].alive && slots[i].e.Kind == Add {
				return nil, fmt.Errorf("%w: %s (bucket %d, level %d)", ErrDuplicateAdd, e.File.FileName, e.Bucket, e.File.Level)
			}
			idx[id] = len(slots)
			slots = append(slots, slot{e, true})
		case Delete:
			if seen && slots[i].alive && slots[i].e.Kind == Add {
				slots[i].alive = false
				delete(idx, id)
				continue
			}
			idx[id] = len(slots)
			slots = append(slots, slot{e, true})
		default:
			return nil, fmt.Errorf("unknown entry kind %d for %s", e.Kind, e.File.FileName)
		}
	}
	out := make([]ManifestEntry, 0, len(slots))
	for _, s := range slots {
		if s.alive {
			out = append(out, s.e)
		}
	}
	return out, nil
}

// NewManifestFileMeta summarises a manifest's entries for its manifest list
// record: added/deleted counts, partition stats over partitionTypes, max
// schema id, bucket and level ranges. Row-id ranges stay null (no row
// tracking).
func NewManifestFileMeta(name string, size int64, entries []ManifestEntry, partitionTypes []sql.DataType) (ManifestFileMeta, error) {
	m := ManifestFileMeta{FileName: name, FileSize: size}
	c := NewStatsCollector(partitionTypes)
	for i, e := range entries {
		if e.Kind == Add {
			m.NumAddedFiles++
		} else {
			m.NumDeletedFiles++
		}
		if e.File.SchemaID > m.SchemaID {
			m.SchemaID = e.File.SchemaID
		}
		b, l := e.Bucket, e.File.Level
		if i == 0 {
			m.MinBucket, m.MaxBucket, m.MinLevel, m.MaxLevel = &b, &b, &l, &l
		} else {
			if b < *m.MinBucket {
				m.MinBucket = &b
			}
			if b > *m.MaxBucket {
				m.MaxBucket = &b
			}
			if l < *m.MinLevel {
				m.MinLevel = &l
			}
			if l > *m.MaxLevel {
				m.MaxLevel = &l
			}
		}
		vals, err := binrow.Deserialize(partitionTypes, orEmpty(e.Partition))
		if err != nil {
			return m, fmt.Errorf("manifest %s: partition of %s: %w", name, e.File.FileName, err)
		}
		c.Add(vals)
	}
	st, err := c.Stats()
	if err != nil {
		return m, fmt.Errorf("manifest %s: partition stats: %w", name, err)
	}
	m.PartitionStats = st
	return m, nil
}

// StatsCollector accumulates SimpleStats (exact min/max and null counts)
// over rows of the given types. Fields whose type has no order (nested
// types) get null min/max.
type StatsCollector struct {
	types    []sql.DataType
	min, max []any
	nulls    []int64
}

// NewStatsCollector starts empty stats over types.
func NewStatsCollector(types []sql.DataType) *StatsCollector {
	return &StatsCollector{types: types, min: make([]any, len(types)), max: make([]any, len(types)), nulls: make([]int64, len(types))}
}

// Add folds one row in.
func (c *StatsCollector) Add(row []any) {
	for i, v := range row {
		if i >= len(c.types) {
			break
		}
		if v == nil {
			c.nulls[i]++
			continue
		}
		if !datum.Comparable(c.types[i]) {
			continue
		}
		if c.min[i] == nil || datum.Compare(v, c.min[i]) < 0 {
			c.min[i] = v
		}
		if c.max[i] == nil || datum.Compare(v, c.max[i]) > 0 {
			c.max[i] = v
		}
	}
}

// AddValue folds in value v of field i: Add for one field, for writers
// that see a row a column at a time.
func (c *StatsCollector) AddValue(i int, v any) {
	if v == nil {
		c.nulls[i]++
		return
	}
	if !datum.Comparable(c.types[i]) {
		return
	}
	if c.min[i] == nil || datum.Compare(v, c.min[i]) < 0 {
		c.min[i] = v
	}
	if c.max[i] == nil || datum.Compare(v, c.max[i]) > 0 {
		c.max[i] = v
	}
}

// AddString is AddValue for a CHAR/VARCHAR field, without the generic
// comparison (the data file writer's hot path).
func (c *StatsCollector) AddString(i int, s string) { addOrdered(c, i, s) }

// AddInt32 is AddValue for an INT, DATE or TIME field.
func (c *StatsCollector) AddInt32(i int, x int32) { addOrdered(c, i, x) }

// AddInt64 is AddValue for a BIGINT field.
func (c *StatsCollector) AddInt64(i int, x int64) { addOrdered(c, i, x) }

func addOrdered[T cmp.Ordered](c *StatsCollector, i int, x T) {
	if m, ok := c.min[i].(T); !ok || x < m {
		c.min[i] = x
	}
	if m, ok := c.max[i].(T); !ok || x > m {
		c.max[i] = x
	}
}

// SetNullCount sets field i's null count, for a writer that counts nulls
// itself (exactly, where a row written half way and taken back would
// leave AddValue's count too high).
func (c *StatsCollector) SetNullCount(i int, n int64) { c.nulls[i] = n }

// Min returns the current minimum values (nil where unknown).
func (c *StatsCollector) Min() []any { return c.min }

// Max returns the current maximum values.
func (c *StatsCollector) Max() []any { return c.max }

// Stats serializes the collected stats. Min/max rows use nullable versions
// of the types (Java's stats rows are all nullable).
func (c *StatsCollector) Stats() (SimpleStats, error) {
	nt := make([]sql.DataType, len(c.types))
	for i, t := range c.types {
		nt[i] = t.WithNullable(true)
		if !datum.Comparable(t) {
			c.min[i], c.max[i] = nil, nil
		}
	}
	minB, err := binrow.Serialize(nt, c.min)
	if err != nil {
		return SimpleStats{}, err
	}
	maxB, err := binrow.Serialize(nt, c.max)
	if err != nil {
		return SimpleStats{}, err
	}
	nc := make([]*int64, len(c.nulls))
	for i := range c.nulls {
		n := c.nulls[i]
		nc[i] = &n
	}
	return SimpleStats{MinValues: minB, MaxValues: maxB, NullCounts: nc}, nil
}

// SortEntries orders entries by partition bytes, bucket, level and file
// name: a stable order for tests and debug output.
func SortEntries(es []ManifestEntry) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if c := string(a.Partition); c != string(b.Partition) {
			return c < string(b.Partition)
		}
		if a.Bucket != b.Bucket {
			return a.Bucket < b.Bucket
		}
		if a.File.Level != b.File.Level {
			return a.File.Level < b.File.Level
		}
		return a.File.FileName < b.File.FileName
	})
}

// IndexManifestSchema is Paimon 1.x's IndexManifestEntry Avro schema
// (IndexManifestEntrySerializer, version 1).
var IndexManifestSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
	`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
	`{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},` +
	`{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
	`{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[` +
	`{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},` +
	`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}]}`

// EncodeIndexManifest returns the Avro file of an index manifest.
func EncodeIndexManifest(entries []IndexManifestEntry, codec string) ([]byte, error) {
	w := newOCFWriter(IndexManifestSchema, codec)
	for i := range entries {
		m := &entries[i]
		e := &w.block
		e.int(1) // _VERSION
		e.int(int(m.Kind))
		e.bytes(orEmpty(m.Partition))
		e.int(int(m.Bucket))
		e.str(m.IndexType)
		e.str(m.FileName)
		e.long(m.FileSize)
		e.long(m.RowCount)
		if m.DVRanges == nil {
			e.null()
		} else {
			e.some()
			if len(m.DVRanges) > 0 {
				e.long(int64(len(m.DVRanges)))
				for _, r := range m.DVRanges {
					e.some()
					e.str(r.DataFile)
					e.int(int(r.Offset))
					e.int(int(r.Length))
					e.optLong(r.Cardinality)
				}
			}
			e.long(0)
		}
		e.optStr(m.ExternalPath)
		w.endRecord()
	}
	return w.finish()
}

// WriteIndexManifest writes an index manifest file.
func (s *Store) WriteIndexManifest(name string, entries []IndexManifestEntry) error {
	b, err := EncodeIndexManifest(entries, s.codec())
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	_, err = s.write(name, b)
	return err
}
