// Package systable implements Paimon's system tables over a table
// directory: t$snapshots, t$schemas, t$options, t$files, t$manifests,
// t$consumers (metadata, read once, bounded), and t$audit_log and t$ro
// (data reads through connectors/paimon/stream). Columns, types and value
// formats follow Paimon 1.4's SnapshotsTable, SchemasTable, OptionsTable,
// FilesTable, ManifestsTable, ConsumersTable, AuditLogTable and
// ReadOptimizedTable, so queries written for Flink + Paimon (the seed's
// SELECT ... FROM orders$snapshots ORDER BY snapshot_id DESC) run as is.
package systable

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// Splitter separates a table name from its system table, as in
// orders$snapshots (Paimon's SYSTEM_TABLE_SPLITTER).
const Splitter = "$"

// System table names.
const (
	Snapshots = "snapshots"
	Schemas   = "schemas"
	Options   = "options"
	Files     = "files"
	Manifests = "manifests"
	Consumers = "consumers"
	AuditLog  = "audit_log"
	RO        = "ro"
)

// Names lists the supported system tables.
func Names() []string {
	return []string{Snapshots, Schemas, Options, Files, Manifests, Consumers, AuditLog, RO}
}

// Split splits "orders$snapshots" into ("orders", "snapshots"); ok is false
// for a name without a system table part.
func Split(name string) (base, sys string, ok bool) {
	i := strings.LastIndex(name, Splitter)
	if i <= 0 || i == len(name)-1 {
		return name, "", false
	}
	return name[:i], strings.ToLower(name[i+1:]), true
}

// Table is one resolved system table.
type Table struct {
	Name   string
	Schema sql.Schema
	// Bounded is false only for a streaming $audit_log.
	Bounded bool
	// NewReader creates the reader of one subtask. Metadata tables are read
	// by subtask 0; the others end at once.
	NewReader func(subtask, parallelism int) (connectors.SourceReader, error)
	// Source is the data source behind $audit_log and $ro (nil otherwise).
	Source *stream.Source
}

// Lookup resolves system table name (without the table name and '$') of
// the Paimon table at tablePath. opts are the base table's options with
// hints; streaming is the runtime mode. ok is false for an unknown name.
func Lookup(fio fs.FileIO, tablePath, name string, opts map[string]string, streaming bool, projection []int) (*Table, bool, error) {
	if fio == nil {
		fio = fs.NewLocal()
	}
	name = strings.ToLower(name)
	switch name {
	case AuditLog, RO:
		src, err := stream.NewSourceFS(fio, tablePath, opts, streaming && name == AuditLog, projection)
		if err != nil {
			return nil, true, err
		}
		src.Audit = name == AuditLog
		src.ReadOptimized = name == RO
		return &Table{Name: name, Schema: src.Schema(), Bounded: src.Bounded(), NewReader: src.NewReader, Source: src}, true, nil
	}
	sch, ok := FixedSchema(name)
	if !ok {
		return nil, false, nil
	}
	t, err := table.Open(fio, tablePath, opts)
	if err != nil {
		return nil, true, err
	}
	rows := map[string]func(*table.Table) ([][]any, error){
		Snapshots: snapshotRows, Schemas: schemaRows, Options: optionRows,
		Files: fileRows, Manifests: manifestRows, Consumers: consumerRows,
	}[name]
	out := sch
	if projection != nil {
		out = sql.Schema{}
		for _, p := range projection {
			if p < 0 || p >= len(sch.Columns) {
				return nil, true, fmt.Errorf("%s%s%s: projected field %d out of range", fs.Base(tablePath), Splitter, name, p)
			}
			out.Columns = append(out.Columns, sch.Columns[p])
		}
	}
	return &Table{Name: name, Schema: out, Bounded: true, NewReader: func(subtask, parallelism int) (connectors.SourceReader, error) {
		return &metaReader{t: t, rows: rows, first: subtask == 0, proj: projection, name: name}, nil
	}}, true, nil
}

// FixedSchema is the schema of a metadata system table (those whose
// columns do not depend on the base table).
func FixedSchema(name string) (sql.Schema, bool) {
	str, bigint := sql.String(), sql.BigInt()
	nn := func(t sql.DataType) sql.DataType { return t.NotNull() }
	cols := func(pk string, cs ...sql.Column) sql.Schema { return sql.Schema{Columns: cs, PrimaryKey: []string{pk}} }
	c := func(n string, t sql.DataType) sql.Column { return sql.Column{Name: n, Type: t} }
	switch strings.ToLower(name) {
	case Snapshots:
		return cols("snapshot_id", c("snapshot_id", nn(bigint)), c("schema_id", nn(bigint)), c("commit_user", nn(str)),
			c("commit_identifier", nn(bigint)), c("commit_kind", nn(str)), c("commit_time", nn(sql.Timestamp(3))),
			c("base_manifest_list", nn(str)), c("delta_manifest_list", nn(str)), c("changelog_manifest_list", str),
			c("total_record_count", bigint), c("delta_record_count", bigint), c("changelog_record_count", bigint),
			c("watermark", bigint)), true
	case Schemas:
		return cols("schema_id", c("schema_id", nn(bigint)), c("fields", nn(str)), c("partition_keys", nn(str)),
			c("primary_keys", nn(str)), c("options", nn(str)), c("comment", str), c("update_time", nn(sql.Timestamp(3)))), true
	case Options:
		return cols("key", c("key", nn(str)), c("value", nn(str))), true
	case Files:
		return cols("file_path", c("partition", str), c("bucket", nn(sql.Int())), c("file_path", nn(str)), c("file_format", nn(str)),
			c("schema_id", nn(bigint)), c("level", nn(sql.Int())), c("record_count", nn(bigint)), c("file_size_in_bytes", nn(bigint)),
			c("min_key", str), c("max_key", str), c("null_value_counts", nn(str)), c("min_value_stats", nn(str)),
			c("max_value_stats", nn(str)), c("min_sequence_number", bigint), c("max_sequence_number", bigint),
			c("creation_time", sql.Timestamp(3)), c("deleteRowCount", bigint), c("file_source", str),
			c("first_row_id", bigint), c("write_cols", sql.ArrayOf(str))), true
	case Manifests:
		return cols("file_name", c("file_name", nn(str)), c("file_size", nn(bigint)), c("num_added_files", nn(bigint)),
			c("num_deleted_files", nn(bigint)), c("schema_id", nn(bigint)), c("min_partition_stats", str),
			c("max_partition_stats", str), c("min_row_id", bigint), c("max_row_id", bigint)), true
	case Consumers:
		return cols("consumer_id", c("consumer_id", nn(str)), c("next_snapshot_id", nn(bigint))), true
	}
	return sql.Schema{}, false
}

// metaReader reads a metadata table once: all rows in the first Next of
// subtask 0, then io.EOF.
type metaReader struct {
	t     *table.Table
	rows  func(*table.Table) ([][]any, error)
	name  string
	first bool
	proj  []int
	done  bool
}

func (m *metaReader) Open(ctx context.Context, state []byte) error {
	m.done = len(state) > 0 && string(state) == "done"
	return nil
}

func (m *metaReader) Next(ctx context.Context) ([]sql.Row, error) {
	if m.done || !m.first {
		return nil, io.EOF
	}
	vals, err := m.rows(m.t)
	if err != nil {
		return nil, fmt.Errorf("read %s%s%s: %w", fs.Base(m.t.Root), Splitter, m.name, err)
	}
	m.done = true
	out := make([]sql.Row, len(vals))
	for i, v := range vals {
		if m.proj != nil {
			p := make([]any, len(m.proj))
			for j, k := range m.proj {
				p[j] = v[k]
			}
			v = p
		}
		out[i] = sql.Row{Kind: sql.Insert, Values: v}
	}
	if len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

func (m *metaReader) Snapshot(int64) ([]byte, error) {
	if m.done {
		return []byte("done"), nil
	}
	return nil, nil
}

func (m *metaReader) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (m *metaReader) Close() error                                          { return nil }

// localTimestamp is Paimon's Timestamp.fromLocalDateTime(LocalDateTime
// .ofInstant(epochMillis, systemDefault)): the local wall clock of the
// instant, as a zone-less TIMESTAMP.
func localTimestamp(ms int64) sql.TimestampData {
	_, off := time.UnixMilli(ms).In(time.Local).Zone()
	return sql.TimestampData{Millis: ms + int64(off)*1000}
}

// flatJSON renders v compactly (Paimon's JsonSerdeUtil.toFlatJson).
func flatJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
