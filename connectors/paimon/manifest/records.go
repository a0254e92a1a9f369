package manifest

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// statsSchema is SimpleStats as a nested record named after its parent.
func statsSchema(name string) string {
	return `{"type":"record","name":"` + name + `","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},` +
		`{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}`
}

// ManifestListSchema is the Avro schema Paimon 1.4 writes for manifest
// lists (record names and field order as Java's AvroSchemaConverter).
var ManifestListSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
	`{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},` +
	`{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},` +
	`{"name":"_PARTITION_STATS","type":` + statsSchema("record__PARTITION_STATS") + `},{"name":"_SCHEMA_ID","type":"long"},` +
	`{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},` +
	`{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},` +
	`{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}`

// ManifestSchema is the Avro schema Paimon 1.4 writes for manifests
// (DataFileMeta fields 0–19).
var ManifestSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
	`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
	`{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[` +
	`{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
	`{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},` +
	`{"name":"_KEY_STATS","type":` + statsSchema("record__FILE__KEY_STATS") + `},` +
	`{"name":"_VALUE_STATS","type":` + statsSchema("record__FILE__VALUE_STATS") + `},` +
	`{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},` +
	`{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},` +
	`{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},` +
	`{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},` +
	`{"name":"_FILE_SOURCE","type":["null","int"],"default":null},` +
	`{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},` +
	`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},` +
	`{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}`

func (e *enc) stats(s SimpleStats) {
	e.bytes(orEmpty(s.MinValues))
	e.bytes(orEmpty(s.MaxValues))
	e.some()
	if len(s.NullCounts) > 0 {
		e.long(int64(len(s.NullCounts)))
		for _, n := range s.NullCounts {
			e.optLong(n)
		}
	}
	e.long(0)
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return emptyRow()
	}
	return b
}

func (e *enc) manifestFileMeta(m *ManifestFileMeta) {
	e.int(Version)
	e.str(m.FileName)
	e.long(m.FileSize)
	e.long(m.NumAddedFiles)
	e.long(m.NumDeletedFiles)
	e.stats(m.PartitionStats)
	e.long(m.SchemaID)
	e.optInt(m.MinBucket)
	e.optInt(m.MaxBucket)
	e.optInt(m.MinLevel)
	e.optInt(m.MaxLevel)
	e.optLong(m.MinRowID)
	e.optLong(m.MaxRowID)
}

func (e *enc) optStrArray(s []string) {
	if s == nil {
		e.null()
		return
	}
	e.some()
	e.strArray(s)
}

func (e *enc) manifestEntry(m *ManifestEntry) {
	e.int(Version)
	e.int(int(m.Kind))
	e.bytes(orEmpty(m.Partition))
	e.int(int(m.Bucket))
	e.int(int(m.TotalBuckets))
	f := &m.File
	e.str(f.FileName)
	e.long(f.FileSize)
	e.long(f.RowCount)
	e.bytes(orEmpty(f.MinKey))
	e.bytes(orEmpty(f.MaxKey))
	e.stats(f.KeyStats)
	e.stats(f.ValueStats)
	e.long(f.MinSequenceNumber)
	e.long(f.MaxSequenceNumber)
	e.long(f.SchemaID)
	e.int(int(f.Level))
	e.strArray(f.ExtraFiles)
	e.optLong(f.CreationTime)
	e.optLong(f.DeleteRowCount)
	if f.EmbeddedIndex == nil {
		e.null()
	} else {
		e.some()
		e.bytes(f.EmbeddedIndex)
	}
	if f.FileSource == nil {
		e.null()
	} else {
		e.some()
		e.int(int(*f.FileSource))
	}
	e.optStrArray(f.ValueStatsCols)
	e.optStr(f.ExternalPath)
	e.optLong(f.FirstRowID)
	e.optStrArray(f.WriteCols)
}

// record is a decoded generic Avro record, read by field name. A missing
// field reads as null/zero, which is how Java reads older or newer files.
type record map[string]any

// unwrap strips hamba/avro's union wrapper ({"array": v} or {"<full
// record name>": v}) from non-trivial ["null", T] branches.
func unwrap(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, x := range m {
			if k == "array" || k == "map" || (len(k) > 0 && k[0] != '_' && k != "f0") {
				return x
			}
		}
	}
	return v
}

type fieldErr struct{ name, want string }

func (e fieldErr) Error() string { return fmt.Sprintf("field %s: expected %s", e.name, e.want) }

func (r record) int64(name string) (int64, error) {
	switch x := unwrap(r[name]).(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	}
	return 0, fieldErr{name, "long"}
}

func (r record) int32(name string) (int32, error) {
	v, err := r.int64(name)
	return int32(v), err
}

func (r record) optInt64(name string) *int64 {
	switch x := unwrap(r[name]).(type) {
	case int64:
		return &x
	case int:
		v := int64(x)
		return &v
	case int32:
		v := int64(x)
		return &v
	case time.Time:
		v := x.UnixMilli()
		return &v
	}
	return nil
}

func (r record) optInt32(name string) *int32 {
	if p := r.optInt64(name); p != nil {
		v := int32(*p)
		return &v
	}
	return nil
}

// str reads a string field; a writer schema that declared it nullable
// (a union) or as bytes holding UTF-8 is read too (older layouts).
func (r record) str(name string) (string, error) {
	switch x := unwrap(r[name]).(type) {
	case string:
		return x, nil
	case []byte:
		if utf8.Valid(x) {
			return string(x), nil
		}
	}
	if _, ok := r[name]; !ok {
		return "", fieldErr{name, "string (the field is missing from the writer's schema)"}
	}
	return "", fieldErr{name, fmt.Sprintf("string, the writer's schema has %T", r[name])}
}

func (r record) optStr(name string) *string {
	if s, ok := unwrap(r[name]).(string); ok {
		return &s
	}
	return nil
}

func (r record) bytes(name string) ([]byte, error) {
	if b, ok := unwrap(r[name]).([]byte); ok {
		return b, nil
	}
	return nil, fieldErr{name, "bytes"}
}

func (r record) strArray(name string) []string {
	arr, ok := unwrap(r[name]).([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (r record) rec(name string) (record, error) {
	if m, ok := unwrap(r[name]).(map[string]any); ok {
		return record(m), nil
	}
	return nil, fieldErr{name, "record"}
}

func (r record) stats(name string) (SimpleStats, error) {
	s, err := r.rec(name)
	if err != nil {
		return SimpleStats{}, err
	}
	var out SimpleStats
	if out.MinValues, err = s.bytes("_MIN_VALUES"); err != nil {
		return out, fmt.Errorf("%s: %w", name, err)
	}
	if out.MaxValues, err = s.bytes("_MAX_VALUES"); err != nil {
		return out, fmt.Errorf("%s: %w", name, err)
	}
	if arr, ok := unwrap(s["_NULL_COUNTS"]).([]any); ok {
		out.NullCounts = make([]*int64, len(arr))
		for i, x := range arr {
			switch v := x.(type) {
			case int64:
				out.NullCounts[i] = &v
			case int:
				n := int64(v)
				out.NullCounts[i] = &n
			}
		}
	}
	return out, nil
}

func decodeManifestFileMeta(r record) (m ManifestFileMeta, err error) {
	if m.FileName, err = r.str("_FILE_NAME"); err != nil {
		return
	}
	if m.FileSize, err = r.int64("_FILE_SIZE"); err != nil {
		return
	}
	if m.NumAddedFiles, err = r.int64("_NUM_ADDED_FILES"); err != nil {
		return
	}
	if m.NumDeletedFiles, err = r.int64("_NUM_DELETED_FILES"); err != nil {
		return
	}
	if m.PartitionStats, err = r.stats("_PARTITION_STATS"); err != nil {
		return
	}
	if m.SchemaID, err = r.int64("_SCHEMA_ID"); err != nil {
		return
	}
	m.MinBucket, m.MaxBucket = r.optInt32("_MIN_BUCKET"), r.optInt32("_MAX_BUCKET")
	m.MinLevel, m.MaxLevel = r.optInt32("_MIN_LEVEL"), r.optInt32("_MAX_LEVEL")
	m.MinRowID, m.MaxRowID = r.optInt64("_MIN_ROW_ID"), r.optInt64("_MAX_ROW_ID")
	return m, nil
}

func decodeManifestEntry(r record) (m ManifestEntry, err error) {
	var k int32
	if k, err = r.int32("_KIND"); err != nil {
		return
	}
	if k != 0 && k != 1 {
		return m, fmt.Errorf("field _KIND: unknown kind %d", k)
	}
	m.Kind = FileKind(k)
	if m.Partition, err = r.bytes("_PARTITION"); err != nil {
		return
	}
	if m.Bucket, err = r.int32("_BUCKET"); err != nil {
		return
	}
	if m.TotalBuckets, err = r.int32("_TOTAL_BUCKETS"); err != nil {
		return
	}
	f, err := r.rec("_FILE")
	if err != nil {
		return
	}
	m.File, err = decodeDataFileMeta(f)
	return m, err
}

func decodeDataFileMeta(r record) (f DataFileMeta, err error) {
	if f.FileName, err = r.str("_FILE_NAME"); err != nil {
		return
	}
	if f.FileSize, err = r.int64("_FILE_SIZE"); err != nil {
		return
	}
	if f.RowCount, err = r.int64("_ROW_COUNT"); err != nil {
		return
	}
	if f.MinKey, err = r.bytes("_MIN_KEY"); err != nil {
		return
	}
	if f.MaxKey, err = r.bytes("_MAX_KEY"); err != nil {
		return
	}
	if f.KeyStats, err = r.stats("_KEY_STATS"); err != nil {
		return
	}
	if f.ValueStats, err = r.stats("_VALUE_STATS"); err != nil {
		return
	}
	if f.MinSequenceNumber, err = r.int64("_MIN_SEQUENCE_NUMBER"); err != nil {
		return
	}
	if f.MaxSequenceNumber, err = r.int64("_MAX_SEQUENCE_NUMBER"); err != nil {
		return
	}
	if f.SchemaID, err = r.int64("_SCHEMA_ID"); err != nil {
		return
	}
	if f.Level, err = r.int32("_LEVEL"); err != nil {
		return
	}
	f.ExtraFiles = r.strArray("_EXTRA_FILES")
	if f.ExtraFiles == nil {
		f.ExtraFiles = []string{}
	}
	f.CreationTime = r.optInt64("_CREATION_TIME")
	f.DeleteRowCount = r.optInt64("_DELETE_ROW_COUNT")
	if b, ok := unwrap(r["_EMBEDDED_FILE_INDEX"]).([]byte); ok {
		f.EmbeddedIndex = b
	}
	if p := r.optInt32("_FILE_SOURCE"); p != nil {
		s := FileSource(*p)
		f.FileSource = &s
	}
	f.ValueStatsCols = r.strArray("_VALUE_STATS_COLS")
	f.ExternalPath = r.optStr("_EXTERNAL_PATH")
	f.FirstRowID = r.optInt64("_FIRST_ROW_ID")
	f.WriteCols = r.strArray("_WRITE_COLS")
	return f, nil
}

func decodeIndexEntry(r record) (m IndexManifestEntry, err error) {
	var k int32
	if k, err = r.int32("_KIND"); err != nil {
		return
	}
	m.Kind = FileKind(k)
	if m.Partition, err = r.bytes("_PARTITION"); err != nil {
		return
	}
	if m.Bucket, err = r.int32("_BUCKET"); err != nil {
		return
	}
	if m.IndexType, err = r.str("_INDEX_TYPE"); err != nil {
		return
	}
	if m.FileName, err = r.str("_FILE_NAME"); err != nil {
		return
	}
	if m.FileSize, err = r.int64("_FILE_SIZE"); err != nil {
		return
	}
	if m.RowCount, err = r.int64("_ROW_COUNT"); err != nil {
		return
	}
	if arr, ok := unwrap(r["_DELETIONS_VECTORS_RANGES"]).([]any); ok {
		for _, x := range arr {
			rm, ok := unwrap(x).(map[string]any)
			if !ok {
				continue
			}
			rr := record(rm)
			var d DVRange
			d.DataFile, _ = rr.str("f0")
			d.Offset, _ = rr.int32("f1")
			d.Length, _ = rr.int32("f2")
			d.Cardinality = rr.optInt64("_CARDINALITY")
			m.DVRanges = append(m.DVRanges, d)
		}
	}
	m.ExternalPath = r.optStr("_EXTERNAL_PATH")
	m.HasGlobalIndex = unwrap(r["_GLOBAL_INDEX"]) != nil
	return m, nil
}
