// Package table is the Paimon table layer: it opens and creates tables,
// routes rows to per-(partition, bucket) writers backed by Parquet files,
// commits snapshots atomically (paimon-format.md §10), plans and reads
// splits of a snapshot (full, delta, changelog), expires snapshots and
// provides the runtime half of the SQL sink.
//
// The leaves do the byte-level work: fs (FileIO), binrow (BinaryRow,
// bucket hashing, partition paths), schema, snapshot, manifest (Avro),
// format (Parquet data files) and mergetree (the LSM of one bucket). This
// package wires them together in the way Paimon's FileStoreTable,
// TableWriteImpl, FileStoreCommitImpl and the split readers do.
package table

import (
	"strings"
	"time"

	"errors"
	"fmt"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"sync"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// ErrTableNotExist is wrapped when a path holds no table (no schema file).
var ErrTableNotExist = errors.New("paimon table does not exist")

// ErrCrossPartitionOverwrite is wrapped when INSERT OVERWRITE writes a
// table with cross-partition upserts.
var ErrCrossPartitionOverwrite = errors.New("INSERT OVERWRITE of a table with cross-partition upserts (a primary key without every partition field in dynamic bucket mode, Paimon's KEY_DYNAMIC bucket mode) is not supported by sqlrun")

// Table is one opened Paimon table at a fixed schema (the latest when
// opened). It is safe for concurrent use; writers, commits and scans
// created from it share its managers.
type Table struct {
	FIO  fs.FileIO
	Root string
	// Schema is the latest schema; rows are read and written in its
	// column order.
	Schema *schema.TableSchema
	// Options are the schema options overlaid with dynamic options (the
	// SQL table's WITH options, hints), parsed once when the table is
	// opened; Paimon's defaults apply to unset keys.
	Options *coreoptions.Options

	Snapshots *snapshot.Manager
	Schemas   *schema.Manager
	Manifests *manifest.Store

	// Spec is the merge tree spec of a primary-key table (nil for append
	// tables).
	Spec *mergetree.Spec

	// PartNames/PartTypes are the partition keys; partIdx their positions.
	PartNames []string
	PartTypes []sql.DataType
	partIdx   []int
	// KeyFields are the trimmed primary-key fields (primary key minus
	// partition keys), the _KEY_ columns of data files.
	KeyFields []schema.Field
	keyIdx    []int
	keyTypes  []sql.DataType
	// NumBuckets is option bucket (-1: dynamic for PK, unaware for append).
	NumBuckets  int
	bucketIdx   []int
	bucketTypes []sql.DataType

	schemaMu sync.Mutex
	schemas  map[int64]*schema.TableSchema
}

// PrimaryKey reports whether the table has a primary key.
func (t *Table) PrimaryKey() bool { return len(t.Schema.PrimaryKeys) > 0 }

// Open opens the table at path (plain or file:///) with dynamic options
// overlaid on the schema's options. A path without schema files gives an
// error wrapping ErrTableNotExist.
func Open(fio fs.FileIO, path string, dynamic map[string]string) (*Table, error) {
	if fio == nil {
		fio = fs.NewLocal()
	}
	sm := schema.NewManager(fio, path)
	s, err := sm.Latest()
	if err != nil {
		return nil, fmt.Errorf("open paimon table %s: %w", path, err)
	}
	if s == nil {
		return nil, fmt.Errorf("open paimon table %s: %w", path, ErrTableNotExist)
	}
	return newTable(fio, path, s, dynamic)
}

// OpenSchema is Open with the latest schema already read (s, by the
// planner); a nil s reads it.
func OpenSchema(fio fs.FileIO, path string, s *schema.TableSchema, dynamic map[string]string) (*Table, error) {
	if s == nil {
		return Open(fio, path, dynamic)
	}
	if fio == nil {
		fio = fs.NewLocal()
	}
	return newTable(fio, path, s, dynamic)
}

func newTable(fio fs.FileIO, path string, s *schema.TableSchema, dynamic map[string]string) (*Table, error) {
	opts := map[string]string{}
	for k, v := range s.Options {
		opts[k] = v
	}
	for k, v := range dynamic {
		switch k {
		case "connector", "path":
			continue
		case "bucket", "bucket-key", "primary-key", "partition", "merge-engine", "sequence.field":
			// Layout options are fixed by the schema: a SQL declaration or
			// hint must not reroute rows or change how files merge.
			continue
		}
		opts[k] = v
	}
	o, err := coreoptions.Parse(opts)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", path, err)
	}
	t := &Table{FIO: fio, Root: path, Schema: s, Options: o,
		Snapshots: snapshot.NewManager(fio, path), Schemas: schema.NewManager(fio, path),
		Manifests: &manifest.Store{FIO: fio, Root: path, Codec: manifestCodec(o.ManifestCompression)},
		schemas:   map[int64]*schema.TableSchema{s.ID: s}}
	for _, p := range s.PartitionKeys {
		i := s.FieldIndex(p)
		if i < 0 {
			return nil, fmt.Errorf("paimon table %s: partition key %q is not a column", path, p)
		}
		t.partIdx = append(t.partIdx, i)
		t.PartNames = append(t.PartNames, p)
		t.PartTypes = append(t.PartTypes, s.Fields[i].Type)
	}
	t.NumBuckets = o.Bucket
	for _, k := range s.BucketKeys() {
		i := s.FieldIndex(k)
		if i < 0 {
			return nil, fmt.Errorf("paimon table %s: bucket key %q is not a column", path, k)
		}
		t.bucketIdx = append(t.bucketIdx, i)
		t.bucketTypes = append(t.bucketTypes, s.Fields[i].Type)
	}
	if t.PrimaryKey() {
		trimmed := s.TrimmedPrimaryKeys()
		kf, err := s.Project(trimmed)
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: %w", path, err)
		}
		t.KeyFields = kf
		for _, f := range kf {
			t.keyIdx = append(t.keyIdx, s.FieldIndex(f.Name))
			t.keyTypes = append(t.keyTypes, f.Type)
		}
		spec, err := mergetree.NewSpec(s.Names(), s.Types(), trimmed, o)
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: %w", path, err)
		}
		t.Spec = spec
		spec.Expire = t.recordExpire()
	}
	return t, nil
}

func manifestCodec(c string) string {
	if c != "" {
		if codec, err := manifest.AvroCodec(c); err == nil {
			return codec
		}
	}
	return ""
}

// Create writes schema-0 of a new table at path from SQL columns, primary
// key, partition keys and options, and opens it. Only the options given are
// stored, as Flink's Paimon catalog stores them: without 'bucket' a
// primary-key table is in dynamic bucket mode (bucket = -1, Paimon's
// default) and an append table bucket-unaware. Options 'connector' and
// 'path' are not stored (FlinkCatalog.buildPaimonSchema removes
// 'connector'; a catalog table has no 'path').
func Create(fio fs.FileIO, path string, s sql.Schema, partitionKeys []string, options map[string]string, comment string, nowMillis int64) (*Table, error) {
	return create(fio, path, s, partitionKeys, options, comment, nowMillis, false)
}

// createMapping is Create for a table declared with 'connector' = 'paimon',
// 'path' and 'auto-create' = 'true' outside a Paimon catalog: Paimon
// 1.4's FlinkTableFactory.createTableIfNeeded hands the declaration to
// FlinkCatalog.fromCatalogTable and SchemaManager.createTable directly,
// without buildPaimonSchema, so every declared option is stored,
// 'connector' and 'path' (as written) included, and the declared COMMENT
// (Schema.Builder.comment(catalogTable.getComment())).
func createMapping(fio fs.FileIO, path string, s sql.Schema, partitionKeys []string, comment string, options map[string]string, nowMillis int64) (*Table, error) {
	return create(fio, path, s, partitionKeys, options, comment, nowMillis, true)
}

func create(fio fs.FileIO, path string, s sql.Schema, partitionKeys []string, options map[string]string, comment string, nowMillis int64, mapping bool) (*Table, error) {
	if fio == nil {
		fio = fs.NewLocal()
	}
	opts := map[string]string{}
	for k, v := range options {
		switch k {
		case "connector", "path":
			if !mapping {
				continue
			}
		case "type", "warehouse":
			continue
		}
		opts[k] = v
	}
	if v, ok := options["type"]; ok && !strings.EqualFold(strings.TrimSpace(v), "table") {
		// Paimon's TableType: a format, object or materialized table is
		// not a data table, and sqlrun would create a data table.
		return nil, &sql.Error{Class: sql.UnsupportedOperation, Err: coreoptions.ErrUnsupportedOption,
			Msg: fmt.Sprintf("create paimon table %s: Paimon table option 'type' = '%s' is not supported by sqlrun yet: sqlrun creates Paimon data tables ('type' = 'table') only", path, v)}
	}
	if v := strings.TrimSpace(opts["blob-field"]); v != "" {
		// Paimon's Flink catalog makes these BYTES columns BLOBs, which
		// sqlrun could then not write: refused rather than created as BYTES.
		return nil, fmt.Errorf("create paimon table %s: %w: 'blob-field' = '%s' (Paimon stores BLOB values in .blob files, which sqlrun reads but does not write)", path, ErrBlobWrite, v)
	}
	if len(s.PrimaryKey) > 0 {
		part := map[string]bool{}
		for _, p := range partitionKeys {
			part[p] = true
		}
		trimmed := 0
		for _, k := range s.PrimaryKey {
			if !part[k] {
				trimmed++
			}
		}
		if trimmed == 0 {
			return nil, fmt.Errorf("create paimon table %s: Primary key constraint %v should not be same with partition fields %v, this will result in only one record in a partition",
				path, s.PrimaryKey, partitionKeys)
		}
	}
	ts, err := schema.New(s.Columns, partitionKeys, s.PrimaryKey, opts, comment, nowMillis)
	if err != nil {
		return nil, fmt.Errorf("create paimon table %s: %w", path, err)
	}
	if _, err := newTable(fio, path, ts, nil); err != nil { // validate options before writing
		return nil, err
	}
	sm := schema.NewManager(fio, path)
	if err := sm.Commit(ts); err != nil {
		return nil, fmt.Errorf("create paimon table %s: %w", path, err)
	}
	return Open(fio, path, nil)
}

// DynamicBucket reports Paimon's dynamic bucket mode: a primary-key table
// with bucket = -1 (HASH_DYNAMIC, or KEY_DYNAMIC for cross-partition
// upserts), whose keys are routed by the hash index.
func (t *Table) DynamicBucket() bool { return t.PrimaryKey() && t.NumBuckets == -1 }

// CrossPartitionUpdate is TableSchema.crossPartitionUpdate: a primary key
// that does not include every partition field.
func (t *Table) CrossPartitionUpdate() bool {
	if !t.PrimaryKey() || len(t.PartNames) == 0 {
		return false
	}
	pk := map[string]bool{}
	for _, k := range t.Schema.PrimaryKeys {
		pk[k] = true
	}
	for _, p := range t.PartNames {
		if !pk[p] {
			return true
		}
	}
	return false
}

// checkWritable refuses writes sqlrun cannot do as Paimon would (options
// it does not honour on write, coreoptions.CheckWrite; tables with BLOB
// columns) and bucket numbers Paimon refuses (0, below -2).
func (t *Table) checkWritable() error {
	if err := coreoptions.CheckWrite(t.Root, t.Options.Raw()); err != nil {
		return fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	for _, f := range t.Schema.Fields {
		if f.Blob {
			return fmt.Errorf("paimon table %s: %w: column %s is a BLOB; Paimon writes BLOB values to .blob files of their own (BlobFileFormat), which sqlrun reads but does not write", t.Root, ErrBlobWrite, f.Name)
		}
	}
	if !t.PrimaryKey() {
		if t.NumBuckets == 0 {
			return fmt.Errorf("paimon table %s: The number of buckets needs to be greater than 0.", t.Root)
		}
		return nil
	}
	if t.NumBuckets < -2 || t.NumBuckets == 0 {
		return fmt.Errorf("paimon table %s: The number of buckets needs to be greater than 0.", t.Root)
	}
	if err := t.checkRecordExpire(); err != nil {
		return fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	return nil
}

// ErrBlobWrite is wrapped when a table with a BLOB column is written.
var ErrBlobWrite = errors.New("tables with BLOB columns are not supported for writing")

// ErrPostponeBucket is wrapped when a postpone-bucket table (bucket = -2)
// is written or compacted in a way sqlrun does not implement (see
// postpone.go).
var ErrPostponeBucket = errors.New("postpone bucket mode write not supported")

// SchemaByID returns the schema a data file was written with (cached).
func (t *Table) SchemaByID(id int64) (*schema.TableSchema, error) {
	t.schemaMu.Lock()
	defer t.schemaMu.Unlock()
	if s, ok := t.schemas[id]; ok {
		return s, nil
	}
	s, err := t.Schemas.Read(id)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: schema %d: %w", t.Root, id, err)
	}
	t.schemas[id] = s
	return s, nil
}

// Partition extracts the partition values of a row and serializes them as
// the _PARTITION BinaryRow.
func (t *Table) Partition(row []any) ([]any, []byte, error) {
	if len(t.partIdx) == 0 {
		return nil, emptyPartition, nil
	}
	vals := make([]any, len(t.partIdx))
	for i, p := range t.partIdx {
		vals[i] = row[p]
	}
	b, err := binrow.Serialize(t.PartTypes, vals)
	if err != nil {
		return nil, nil, fmt.Errorf("partition of row: %w", err)
	}
	return vals, b, nil
}

// emptyPartition is the _PARTITION of unpartitioned tables (an empty
// BinaryRow); shared, never modified.
var emptyPartition = binrow.EmptyRow()

// Bucket computes the bucket of a row: Murmur3 over the bucket-key
// BinaryRow modulo the bucket count; 0 for bucket-unaware tables.
func (t *Table) Bucket(row []any, scratch []byte) (int, []byte, error) {
	return t.bucketOf(row, t.NumBuckets, scratch)
}

// bucketOf is Bucket with n buckets.
func (t *Table) bucketOf(row []any, n int, scratch []byte) (int, []byte, error) {
	if n <= 1 { // one bucket (or none): nothing to hash
		return 0, scratch, nil
	}
	var arr [8]any
	vals := arr[:0]
	if len(t.bucketIdx) > len(arr) {
		vals = make([]any, 0, len(t.bucketIdx))
	}
	for _, p := range t.bucketIdx {
		vals = append(vals, row[p])
	}
	b, err := binrow.AppendEncode(scratch[:0], t.bucketTypes, vals)
	if err != nil {
		return 0, scratch, fmt.Errorf("bucket key of row: %w", err)
	}
	return binrow.Bucket(b, n), b, nil
}

// PartitionPath is the directory of a serialized partition ("" when
// unpartitioned, else "k=v/.../").
func (t *Table) PartitionPath(part []byte) (string, error) {
	if len(t.PartNames) == 0 {
		return "", nil
	}
	return binrow.PartitionPathOf(t.PartNames, t.PartTypes, part, t.Options.PartitionDefaultName, t.Options.PartitionLegacyName)
}

// PartitionValues decodes a serialized partition row.
func (t *Table) PartitionValues(part []byte) ([]any, error) {
	if len(t.PartTypes) == 0 {
		return nil, nil
	}
	return binrow.Deserialize(t.PartTypes, part)
}

// FilePath is where a manifest entry's data file lives.
func (t *Table) FilePath(e *manifest.ManifestEntry) (string, error) {
	if e.File.ExternalPath != nil && *e.File.ExternalPath != "" {
		return *e.File.ExternalPath, nil
	}
	pp, err := t.PartitionPath(e.Partition)
	if err != nil {
		return "", err
	}
	return fs.Join(format.BucketDir(t.Root, pp, int(e.Bucket)), e.File.FileName), nil
}

// TotalBuckets is _TOTAL_BUCKETS of the table's manifest entries.
func (t *Table) TotalBuckets() int32 { return int32(t.NumBuckets) }

// OpenForSQL opens the table behind a SQL table declared with
// 'connector' = 'paimon' and 'path' (Flink's default catalog): the table
// at path with the SQL options (all of the declaration's: 'connector' and
// 'path' are no dynamic options) as dynamic options. A missing table is
// created from the declaration (its COMMENT too) when create is true
// (Paimon's 'auto-create', createMapping), else it fails with Paimon's message. stored
// is the table's latest schema when the caller has read it (nil: read it).
func OpenForSQL(fio fs.FileIO, path string, stored *schema.TableSchema, s sql.Schema, partitionKeys []string, comment string, options map[string]string, create bool) (*Table, error) {
	t, err := OpenSchema(fio, path, stored, options)
	if err == nil || !errors.Is(err, ErrTableNotExist) {
		return t, err
	}
	if !create {
		return nil, fmt.Errorf("%w: Schema file not found in location %s. Please create table first.", ErrTableNotExist, path)
	}
	if _, err := createMapping(fio, path, s, partitionKeys, comment, options, time.Now().UnixMilli()); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return Open(fio, path, options)
}
