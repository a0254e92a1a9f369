package table

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
)

// bucketStore is the mergetree.RunStore of one (partition, bucket): data
// and changelog files in the bucket directory, read and written with the
// format package. It remembers the manifest record (DataFileMeta) of every
// file it knows, restored or written, because FileMeta carries only what
// the merge tree needs and the commit needs the rest (stats, schema id).
type bucketStore struct {
	t        *Table
	dir      string
	part     []byte
	bucket   int
	names    *format.FileNames
	wopts    format.WriterOptions
	woptsErr error
	target   int64

	mu    sync.Mutex
	metas map[string]manifest.DataFileMeta
	// dfs are the deletion vectors applied when reading (nil: none).
	dfs map[string]DeletionFile
}

func (t *Table) newBucketStore(part []byte, bucket int) (*bucketStore, error) {
	pp, err := t.PartitionPath(part)
	if err != nil {
		return nil, err
	}
	s := &bucketStore{t: t, dir: format.BucketDir(t.Root, pp, bucket), part: part, bucket: bucket,
		names: format.NewFileNames(t.fileFormat()), metas: map[string]manifest.DataFileMeta{}}
	// data-file.prefix and changelog-file.prefix (DataFilePathFactory).
	s.names.DataPrefix, s.names.ChangelogPrefix = t.Options.DataFilePrefix, t.Options.ChangelogFilePrefix
	// A table whose data files are ORC or Avro is read here too; its
	// writes fail on the options (newWrite checks them first, and the
	// writers again).
	s.wopts, s.woptsErr = t.writerOptions()
	s.target = t.Options.TargetFileSize(t.PrimaryKey())
	return s, nil
}

func (t *Table) fileFormat() string { return t.Options.FileFormat }

// orcInstantLTZ is 'orc.timestamp-ltz.legacy.type' = 'false' (Paimon's
// OrcOptions; the default, true, stores TIMESTAMP_LTZ values shifted by
// the writer's zone).
func (t *Table) orcInstantLTZ() bool {
	return strings.EqualFold(t.Options.Raw()["orc.timestamp-ltz.legacy.type"], "false")
}

func (t *Table) writerOptions() (format.WriterOptions, error) {
	o := format.WriterOptions{Compression: t.Options.FileCompression, StringEncoding: t.Options.StringEncoding, ZstdLevel: t.Options.ZstdLevel}
	if f := t.fileFormat(); f != "parquet" {
		return o, fmt.Errorf("paimon table %s: 'file.format' = %q: sqlrun writes parquet data files only", t.Root, f)
	}
	// sqlrun writes Avro manifests; Java reads a table's manifests in its
	// 'manifest.format', so a table asking for another is not written.
	if f, ok := t.Options.Raw()["manifest.format"]; ok && !strings.EqualFold(f, "avro") {
		return o, fmt.Errorf("paimon table %s: 'manifest.format' = %q: sqlrun writes avro manifests only", t.Root, f)
	}
	// metadata.stats-mode, and fields.<name>.stats-mode over it for one
	// column (StatsCollectorFactories.createStatsFactories).
	mode, n := "truncate", 16
	if m := t.Options.StatsMode; m != "" {
		var err error
		if mode, n, err = format.ParseStatsMode(m); err != nil {
			return o, fmt.Errorf("paimon table %s: 'metadata.stats-mode': %w", t.Root, err)
		}
	}
	switch mode {
	case "none":
		o.NoValueStats = true
	case "full":
		o.StatsTruncate = -1
	case "truncate":
		o.StatsTruncate = n
	}
	for k, v := range t.Options.Raw() {
		if name, ok := strings.CutPrefix(k, coreoptions.OptPartialUpdateAggPrefix); ok && strings.HasSuffix(name, ".stats-mode") {
			if o.FieldStatsModes == nil {
				o.FieldStatsModes = map[string]string{}
			}
			o.FieldStatsModes[strings.TrimSuffix(name, ".stats-mode")] = v
		}
	}
	if mode == "counts" || o.NoValueStats && o.FieldStatsModes != nil {
		// The writer's per-column path: every other column gets the
		// table's mode.
		if o.FieldStatsModes == nil {
			o.FieldStatsModes = map[string]string{}
		}
		for _, f := range t.Schema.Fields {
			if _, ok := o.FieldStatsModes[f.Name]; !ok {
				o.FieldStatsModes[f.Name] = mode
			}
		}
		o.NoValueStats = false
	}
	return o, nil
}

// remember records a file's manifest record (restored or written).
func (s *bucketStore) remember(m manifest.DataFileMeta) {
	s.mu.Lock()
	s.metas[m.FileName] = m
	s.mu.Unlock()
}

// meta returns the manifest record of a file at the level f has now
// (upgrades move files between levels without rewriting them).
func (s *bucketStore) meta(f *mergetree.FileMeta) (manifest.DataFileMeta, error) {
	s.mu.Lock()
	m, ok := s.metas[f.Name]
	s.mu.Unlock()
	if !ok {
		return m, fmt.Errorf("paimon: unknown data file %s in %s", f.Name, s.dir)
	}
	m.Level = int32(f.Level)
	return m, nil
}

func (s *bucketStore) metasOf(fs []*mergetree.FileMeta) ([]manifest.DataFileMeta, error) {
	out := make([]manifest.DataFileMeta, 0, len(fs))
	for _, f := range fs {
		m, err := s.meta(f)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Open implements mergetree.RunStore.
func (s *bucketStore) Open(f *mergetree.FileMeta) (mergetree.Iterator, error) {
	m, err := s.meta(f)
	if err != nil {
		return nil, err
	}
	deleted, err := s.t.deletionVector(s.dfs, m.FileName)
	if err != nil {
		return nil, err
	}
	it, err := s.t.openKV(s.dir, m, f.Level, deleted)
	if err != nil {
		return nil, err
	}
	// Compaction and lookup read several files at once: hold little per
	// column (KVIterator.Lean).
	it.it.Lean()
	return it, nil
}

// deleteFile removes a file that compaction made obsolete before it was
// committed (WriterOptions.DeleteFile).
func (s *bucketStore) deleteFile(f *mergetree.FileMeta) {
	_ = s.t.FIO.Delete(fs.Join(s.dir, f.Name))
	s.mu.Lock()
	delete(s.metas, f.Name)
	s.mu.Unlock()
}

// kvIter adapts format.KVIterator (and its file) to mergetree.Iterator.
type kvIter struct {
	it  *format.KVIterator
	f   fs.File
	err error
}

func (k *kvIter) Next() *kv.KeyValue {
	if k.err != nil {
		return nil
	}
	r := k.it.Next()
	if r == nil {
		k.err = k.it.Error()
	}
	return r
}

func (k *kvIter) Error() error { return k.err }

func (k *kvIter) Close() error {
	k.it.Close()
	if err := k.f.Close(); err != nil && k.err == nil {
		k.err = err
	}
	return k.err
}

// openKV opens a primary-key data or changelog file and reads its
// KeyValues mapped to the table's current schema (by field id).
func (t *Table) openKV(dir string, m manifest.DataFileMeta, level int, deleted format.DeletionVector) (*kvIter, error) {
	fileSchema, err := t.SchemaByID(m.SchemaID)
	if err != nil {
		return nil, err
	}
	fileKeys, err := fileSchema.Project(fileSchema.TrimmedPrimaryKeys())
	if err != nil {
		return nil, err
	}
	f, pf, err := t.openFile(dir, m)
	if err != nil {
		return nil, err
	}
	proj := format.Projection{FileFields: fileSchema.Fields, Fields: t.Schema.Fields, ORCInstantLTZ: t.orcInstantLTZ()}
	if deleted != nil {
		proj.Deleted = deleted
	}
	it, err := pf.KeyValues(fileKeys, t.KeyFields, proj, level)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", m.FileName, err)
	}
	return &kvIter{it: it, f: f}, nil
}

func (t *Table) openFile(dir string, m manifest.DataFileMeta) (fs.File, *format.File, error) {
	if err := format.CheckReadable(m.FileName); err != nil {
		return nil, nil, err
	}
	p := fs.Join(dir, m.FileName)
	if m.ExternalPath != nil && *m.ExternalPath != "" {
		p = *m.ExternalPath
	}
	f, err := t.FIO.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("open data file: %w", err)
	}
	pf, err := format.Open(f, f.Size(), m.FileName)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, pf, nil
}

// NewWriter implements mergetree.RunStore: a rolling Parquet writer.
func (s *bucketStore) NewWriter(level int, kind mergetree.FileKind) (mergetree.FileWriter, error) {
	return &rollingKV{s: s, level: level, kind: kind}, nil
}

// rollingKV writes KeyValues into files of about target-file-size.
type rollingKV struct {
	s     *bucketStore
	level int
	kind  mergetree.FileKind

	name        string
	out         io.WriteCloser
	w           *format.KVWriter
	first, last []any
	written     []*mergetree.FileMeta
	all         []string
}

func (r *rollingKV) open() error {
	if r.kind == mergetree.ChangelogFile {
		r.name = r.s.names.Changelog()
	} else {
		r.name = r.s.names.Data()
	}
	if r.s.woptsErr != nil {
		return r.s.woptsErr
	}
	out, err := r.s.t.FIO.Create(fs.Join(r.s.dir, r.name))
	if err != nil {
		return fmt.Errorf("create %s: %w", r.name, err)
	}
	r.all = append(r.all, r.name)
	wopts := r.s.wopts
	// file.compression.per.level, for changelog files too
	// (KeyValueFileWriterFactory's key2Compress: 'changelog-file.compression'
	// first, which CheckWrite allows only equal to 'file.compression').
	if c, ok := r.s.t.Options.CompressionPerLevel[r.level]; ok && !(r.kind == mergetree.ChangelogFile && r.s.t.Options.Has("changelog-file.compression")) {
		wopts.Compression = c
	}
	w, err := format.NewKVWriter(out, r.s.t.KeyFields, r.s.t.Schema.Fields, wopts)
	if err != nil {
		out.Close()
		return err
	}
	w.AllowDuplicateKeys = r.kind == mergetree.ChangelogFile
	r.out, r.w, r.first = out, w, nil
	return nil
}

func (r *rollingKV) Write(kv *mergetree.KV) error { return r.write(kv, nil, false) }

// WriteBinary implements mergetree.BinaryWriter: a write buffer's record
// written from its serialized value row (format.KVWriter.WriteBinary).
func (r *rollingKV) WriteBinary(kv *mergetree.KV, value []byte) error {
	return r.write(kv, value, false)
}

// WritePacked implements mergetree.PackedWriter: a write buffer's record
// written from its packed value row (format.KVWriter.WritePacked).
func (r *rollingKV) WritePacked(kv *mergetree.KV, packed []byte) error {
	return r.write(kv, packed, true)
}

// write writes kv, its value row serialized in value when that is not nil
// (packed when packed is set).
func (r *rollingKV) write(kv *mergetree.KV, value []byte, packed bool) error {
	if r.w == nil {
		if err := r.open(); err != nil {
			return err
		}
	}
	var err error
	if value != nil && packed {
		err = r.w.WritePacked(kv, value)
	} else if value != nil {
		err = r.w.WriteBinary(kv, value)
	} else {
		err = r.w.Write(kv)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", r.name, err)
	}
	if r.first == nil {
		r.first = kv.Key
	}
	r.last = kv.Key
	if r.w.BytesWritten() >= r.s.target {
		return r.closeFile()
	}
	return nil
}

func (r *rollingKV) closeFile() error {
	w, out := r.w, r.out
	r.w, r.out = nil, nil
	res, err := w.Close()
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("finish %s: %w", r.name, err)
	}
	src := manifest.SourceAppend
	if r.kind == mergetree.CompactFile {
		src = manifest.SourceCompact
	}
	created := localMillis()
	m := res.DataFileMeta(r.name, r.s.t.Schema.ID, int32(r.level), src, created)
	r.s.remember(m)
	minTime, err := r.s.t.recordMinTime(m)
	if err != nil {
		return fmt.Errorf("finish %s: %w", r.name, err)
	}
	r.written = append(r.written, &mergetree.FileMeta{Name: r.name, Level: r.level, MinKey: r.first, MaxKey: r.last,
		Size: res.FileSize, MinSeq: res.MinSeq, MaxSeq: res.MaxSeq, RowCount: res.RowCount,
		DeleteRowCount: res.DeleteRowCount, CreationMillis: created, MinTime: minTime})
	return nil
}

func (r *rollingKV) Finish() ([]*mergetree.FileMeta, error) {
	if r.w != nil {
		if err := r.closeFile(); err != nil {
			r.Abort()
			return nil, err
		}
	}
	return r.written, nil
}

func (r *rollingKV) Abort() {
	if r.w != nil {
		r.w.Close()
		r.out.Close()
		r.w, r.out = nil, nil
	}
	for _, n := range r.all {
		_ = r.s.t.FIO.Delete(fs.Join(r.s.dir, n))
		r.s.mu.Lock()
		delete(r.s.metas, n)
		r.s.mu.Unlock()
	}
	r.written = nil
}

// fileMeta converts a manifest record to what the merge tree needs.
func (t *Table) fileMeta(m manifest.DataFileMeta) (*mergetree.FileMeta, error) {
	kt := t.Spec.KeyTypes
	minKey, err := binrow.Deserialize(kt, m.MinKey)
	if err != nil {
		return nil, fmt.Errorf("min key of %s: %w", m.FileName, err)
	}
	maxKey, err := binrow.Deserialize(kt, m.MaxKey)
	if err != nil {
		return nil, fmt.Errorf("max key of %s: %w", m.FileName, err)
	}
	del := int64(-1)
	if m.DeleteRowCount != nil {
		del = *m.DeleteRowCount
	}
	var created int64
	if m.CreationTime != nil {
		created = *m.CreationTime
	}
	minTime, err := t.recordMinTime(m)
	if err != nil {
		return nil, err
	}
	return &mergetree.FileMeta{Name: m.FileName, Level: int(m.Level), MinKey: minKey, MaxKey: maxKey, Size: m.FileSize,
		MinSeq: m.MinSequenceNumber, MaxSeq: m.MaxSequenceNumber, RowCount: m.RowCount, DeleteRowCount: del,
		CreationMillis: created, MinTime: minTime}, nil
}

// schemaField shortens projections in the readers.
type schemaField = schema.Field

// localMillis is Java's LocalDateTime.now() stored as if it were UTC, the
// creation time Paimon records in DataFileMeta.
func localMillis() int64 {
	now := time.Now()
	_, off := now.Zone()
	return now.UnixMilli() + int64(off)*1000
}
