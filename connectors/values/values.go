// Package values is the 'values' connector of Flink's planner tests
// (TestValuesTableFactory), made usable from SQL: since 'data-id' refers
// to Java-side registered data, sqlrun adds the 'rows' option holding the
// rows inline, each with a leading RowKind:
//
//	'rows' = '[["+I", 1001, "80.00", "CREATED"], ["-U", 1001, "80.00", "CREATED"]]'
//
// or as CSV lines ("+I,1001,80.00,CREATED"). The sink keeps what it
// receives in memory, per table, for tests (Results).
package values

import (
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/parser"
)

func init() { connectors.Register(Factory{}) }

// Factory creates values sources and sinks.
type Factory struct{}

var (
	_ connectors.SourceFactory              = Factory{}
	_ connectors.FlinkPortable              = Factory{}
	_ connectors.SinkFactory                = Factory{}
	_ connectors.TableSource                = (*Source)(nil)
	_ connectors.SupportsProjectionPushDown = (*Source)(nil)
	_ connectors.ProjectionPushDownToggle   = (*Source)(nil)
	_ connectors.FilterPushDownSource       = (*Source)(nil)
	_ connectors.LimitPushDownSource        = (*Source)(nil)
	_ connectors.LimitPushDownSource        = (*ScanOnlySource)(nil)
	_ connectors.MetadataReader             = (*Source)(nil)
	_ connectors.MetadataSource             = (*Source)(nil)
	_ connectors.TableSink                  = (*Sink)(nil)
	_ connectors.MetadataSink               = (*Sink)(nil)
	_ connectors.LookupSource               = (*Source)(nil)
	_ connectors.TableSource                = (*ScanOnlySource)(nil)
	_ connectors.SupportsProjectionPushDown = (*ScanOnlySource)(nil)
	_ connectors.ProjectionPushDownToggle   = (*ScanOnlySource)(nil)
	_ connectors.FilterPushDownSource       = (*ScanOnlySource)(nil)
	_ connectors.MetadataReader             = (*ScanOnlySource)(nil)
	_ connectors.MetadataSource             = (*ScanOnlySource)(nil)
	_ connectors.WatermarkPushDownSource    = (*Source)(nil)
	_ connectors.WatermarkPushDownSource    = (*ScanOnlySource)(nil)
)

// Identifier is "values".
func (Factory) Identifier() string { return "values" }

// Options are TestValuesTableFactory's options (most accepted for
// compatibility and without effect), plus 'rows'.
func (Factory) Options() []connectors.Option {
	s := func(k, def string, t connectors.OptionType, desc string) connectors.Option {
		return connectors.Option{Key: k, Default: def, Type: t, Description: desc}
	}
	return []connectors.Option{
		s("rows", "", connectors.String, "sqlrun: the rows, as a JSON array of arrays or CSV lines, each with a leading +I/-U/+U/-D."),
		s("data-id", "", connectors.String, "Java-only registered data; accepted, ignored."),
		s("changelog-mode", "I", connectors.String, "The kinds the source produces, e.g. I,UA,D."),
		s("bounded", "false", connectors.Bool, "Whether the source ends after its rows."),
		s("runtime-source", "SourceFunction", connectors.String, "Accepted, no effect."),
		s("table-source-class", "DEFAULT", connectors.String, "Accepted, no effect."),
		s("failing-source", "false", connectors.Bool, "Accepted, no effect."),
		s("disable-lookup", "false", connectors.Bool, "Whether the table refuses lookup joins (FOR SYSTEM_TIME AS OF)."),
		s("async", "false", connectors.Bool, "Accepted, no effect."),
		s("lookup-function-class", "", connectors.String, "Accepted, no effect."),
		s("sink-insert-only", "true", connectors.Bool, "Whether the sink accepts only inserts."),
		s("sink-changelog-mode-enforced", "", connectors.String, "The kinds the sink accepts, overriding sink-insert-only."),
		s("sink-expected-messages-num", "-1", connectors.Int, "Accepted, no effect."),
		s("sink.parallelism", "", connectors.Int, "Parallelism of the sink."),
		s("enable-projection-push-down", "true", connectors.Bool, "Whether the source prunes columns."),
		s("nested-projection-supported", "false", connectors.Bool, "Accepted, no effect."),
		s("filterable-fields", "", connectors.String, "Accepted, no effect."),
		s("enable-watermark-push-down", "false", connectors.Bool, "With 'disable-lookup' (and projection push-down on), whether the source generates the watermark itself (SupportsWatermarkPushDown): the scan prints watermark=[...], and each row's watermark is emitted before the row."),
		s("readable-metadata", "", connectors.Map, "The metadata keys the source reads and their types, as 'key:type,...' (e.g. 'originTime:BIGINT'), ordered alphabetically by key; each row of 'rows' carries their values after the physical columns, in that order."),
		s("writable-metadata", "", connectors.Map, "The metadata keys the sink writes and their types, as 'key:type,...' (e.g. 'ts:TIMESTAMP(3)'), ordered alphabetically by key; each row the sink keeps carries the values of the keys the table's persisted METADATA columns name after the physical columns, in that order."),
		s("source.sleep-after-elements", "0", connectors.Int, "Accepted, no effect."),
		s("source.sleep-time", "0", connectors.Duration, "Accepted, no effect."),
		s("partition-list", "", connectors.String, "Accepted, no effect."),
		s("register-internal-data", "false", connectors.Bool, "Accepted, no effect."),
	}
}

// CreateSource parses the rows against the schema.
func (f Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	o := connectors.NewOptions(f.Options(), ctx.Options)
	mode, err := sql.ParseChangelogMode(o.Get("changelog-mode"))
	if err != nil {
		return nil, sql.Errorf(sql.ValidationException, "Invalid 'changelog-mode' of table %s: %w", ctx.Table, err)
	}
	meta, err := metadataMap("readable-metadata", o.Get("readable-metadata"))
	if err != nil {
		return nil, err
	}
	rows, err := ParseRows(o.Get("rows"), ctx.Schema, meta)
	if err != nil {
		return nil, sql.Errorf(sql.ValidationException, "Invalid 'rows' of table %s: %w", ctx.Table, err)
	}
	for _, r := range rows {
		if !mode.Contains(r.Kind) {
			return nil, sql.Errorf(sql.ValidationException,
				"Table %s has a %s row but its changelog-mode is [%s].", ctx.Table, r.Kind, mode)
		}
	}
	src := &Source{rows: rows, mode: mode, bounded: o.Bool("bounded"),
		projectable: o.Bool("enable-projection-push-down"), nPhys: len(ctx.Schema.Columns), meta: meta}
	// The Java class Flink 1.20's TestValuesTableFactory.createDynamicTableSource
	// picks for these options, which its metadata messages name.
	const factory = "org.apache.flink.table.planner.factories.TestValuesTableFactory$"
	switch {
	case !src.projectable:
		src.class = factory + "TestValuesScanTableSourceWithoutProjectionPushDown"
	case o.Bool("disable-lookup") && o.Bool("enable-watermark-push-down"):
		src.class = factory + "TestValuesScanTableSourceWithWatermarkPushDown"
	case o.Bool("disable-lookup"):
		src.class = factory + "TestValuesScanTableSource"
	default:
		src.class = factory + "TestValuesScanLookupTableSource"
	}
	if o.Bool("disable-lookup") {
		return &ScanOnlySource{src}, nil
	}
	return src, nil
}

// metadataMap reads 'readable-metadata' or 'writable-metadata' (the
// option key) as TestValuesTableFactory's convertToMetadataMap does: a
// map of key to type, keys sorted alphabetically (the order of
// listReadableMetadata / listWritableMetadata, hence of the metadata
// fields the scan produces and of their values in each row, and of the
// metadata values after the physical ones in each row the sink consumes).
func metadataMap(option, v string) ([]connectors.MetadataKey, error) {
	entries, err := connectors.ParseMap(v)
	if err != nil {
		return nil, sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key '%s'.", v, option)
	}
	out := make([]connectors.MetadataKey, 0, len(entries))
	for _, e := range entries {
		t, err := parser.ParseDataType(e.Value)
		if err != nil {
			return nil, sql.Errorf(sql.ValidationException, "Invalid type '%s' of metadata key '%s' in '%s': %w", e.Value, e.Key, option, err)
		}
		// Flink reads the type with LogicalTypeParser, not the SQL
		// parser: a VARCHAR or VARBINARY without a length is
		// VarCharType() / VarBinaryType(), of length 1.
		if w := strings.Fields(strings.ToUpper(e.Value)); len(w) > 0 && (w[0] == "VARCHAR" || w[0] == "VARBINARY") &&
			t.Length == sql.MaxLength {
			t.Length = 1
		}
		out = append(out, connectors.MetadataKey{Key: e.Key, Type: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// ScanOnlySource is a values table with 'disable-lookup': Flink's values
// source without LookupTableSource, so a lookup join refuses it.
type ScanOnlySource struct{ s *Source }

func (s *ScanOnlySource) ChangelogMode() sql.ChangelogMode { return s.s.ChangelogMode() }
func (s *ScanOnlySource) Bounded() bool                    { return s.s.Bounded() }
func (s *ScanOnlySource) ProjectionPushDownEnabled() bool  { return s.s.ProjectionPushDownEnabled() }
func (s *ScanOnlySource) FilterPushDown() bool             { return true }
func (s *ScanOnlySource) ReadsMetadata() bool              { return true }
func (s *ScanOnlySource) ReadableMetadata() []connectors.MetadataKey {
	return s.s.ReadableMetadata()
}
func (s *ScanOnlySource) ApplyReadableMetadata(keys []string)     { s.s.ApplyReadableMetadata(keys) }
func (s *ScanOnlySource) SourceClass() string                     { return s.s.SourceClass() }
func (s *ScanOnlySource) WatermarkPushDown() bool                 { return s.s.WatermarkPushDown() }
func (s *ScanOnlySource) WatermarkEmit() connectors.WatermarkEmit { return s.s.WatermarkEmit() }
func (s *ScanOnlySource) ApplyProjection(fields []int)            { s.s.ApplyProjection(fields) }
func (s *ScanOnlySource) LimitPushDown() bool                     { return true }
func (s *ScanOnlySource) Parallelism() int                        { return s.s.Parallelism() }
func (s *ScanOnlySource) NewReader(subtask, p int) (connectors.SourceReader, error) {
	return s.s.NewReader(subtask, p)
}

// NewLookuper indexes the table's rows by keys: Flink's values source is
// a LookupTableSource (unless 'disable-lookup' is set), and the lookup
// sees the table's rows after its changelog is applied.
func (s *Source) NewLookuper(_ context.Context, keys []int) (connectors.Lookuper, error) {
	var live [][]any
	for _, r := range s.rows {
		switch r.Kind {
		case sql.Insert, sql.UpdateAfter:
			live = append(live, r.Values[:s.nPhys:s.nPhys])
		default:
			gone, _ := lookupKey(r.Values[:s.nPhys], nil)
			for i, v := range live {
				if k, _ := lookupKey(v, nil); k == gone {
					live = append(live[:i], live[i+1:]...)
					break
				}
			}
		}
	}
	idx := map[string][][]any{}
	for _, v := range live {
		k, ok := lookupKey(v, keys)
		if ok {
			idx[k] = append(idx[k], v)
		}
	}
	return &lookuper{idx: idx}, nil
}

type lookuper struct{ idx map[string][][]any }

func (l *lookuper) Lookup(_ context.Context, key []any) ([][]any, error) {
	k, _ := lookupKey(key, nil)
	return l.idx[k], nil
}

func (l *lookuper) Close() error { return nil }

// lookupKey is the map key of the fields (all of row, NULLs included,
// when fields is nil); ok is false when a key field is NULL.
func lookupKey(row []any, fields []int) (string, bool) {
	var b strings.Builder
	n := len(fields)
	if fields == nil {
		n = len(row)
	}
	for i := 0; i < n; i++ {
		v := row[i]
		if fields != nil {
			v = row[fields[i]]
		}
		if v == nil {
			if fields != nil {
				return "", false
			}
			b.WriteString("\x01")
			continue
		}
		fmt.Fprintf(&b, "%T:%v\x00", v, v)
	}
	return b.String(), true
}

// ParseRows reads the 'rows' option: a JSON array of arrays or CSV lines,
// each starting with the RowKind, then the values of the schema's columns,
// then those of the readable metadata keys meta (in their order), as the
// rows of Flink's values source carry them ("The metadata is part of the
// data when enabled", TestValuesTableFactory's 'readable-metadata').
func ParseRows(text string, schema sql.Schema, meta []connectors.MetadataKey) ([]sql.Row, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	cols := schema.Columns
	if len(meta) > 0 {
		cols = append([]sql.Column(nil), cols...)
		for _, m := range meta {
			cols = append(cols, sql.Column{Name: "metadata key " + m.Key, Type: m.Type})
		}
	}
	n := len(cols)
	shape := fmt.Sprintf("the table has %d columns", len(schema.Columns))
	if len(meta) > 0 {
		shape += fmt.Sprintf(" and %d readable metadata keys", len(meta))
	}
	var out []sql.Row
	if strings.HasPrefix(text, "[") {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var arr [][]any
		if err := dec.Decode(&arr); err != nil {
			return nil, fmt.Errorf("not a JSON array of arrays: %w", err)
		}
		for i, a := range arr {
			if len(a) != n+1 {
				return nil, fmt.Errorf("row %d has %d values, %s (plus the kind)", i+1, len(a)-1, shape)
			}
			ks, _ := a[0].(string)
			kind, err := sql.ParseRowKind(ks)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", i+1, err)
			}
			vals := make([]any, n)
			for j, c := range cols {
				if vals[j], err = connectors.ValueFromJSON(a[j+1], c.Type); err != nil {
					return nil, fmt.Errorf("row %d, column %s: %w", i+1, c.Name, err)
				}
			}
			out = append(out, sql.Row{Kind: kind, Values: vals})
		}
		return out, nil
	}
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	for i := 1; ; i++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != n+1 {
			return nil, fmt.Errorf("line %d has %d values, %s (plus the kind)", i, len(rec)-1, shape)
		}
		kind, err := sql.ParseRowKind(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i, err)
		}
		vals := make([]any, n)
		for j, c := range cols {
			s := rec[j+1]
			if s == "null" || (s == "" && !c.Type.IsString()) {
				continue
			}
			if vals[j], err = connectors.ParseText(s, c.Type); err != nil {
				return nil, fmt.Errorf("line %d, column %s: %w", i, c.Name, err)
			}
		}
		out = append(out, sql.Row{Kind: kind, Values: vals})
	}
	return out, nil
}

// Source emits its rows once, from subtask 0.
type Source struct {
	rows        []sql.Row // the physical values, then every readable metadata key's
	mode        sql.ChangelogMode
	bounded     bool
	projectable bool
	proj        []int
	nPhys       int
	meta        []connectors.MetadataKey // 'readable-metadata', sorted by key
	applied     []int                    // the metadata read: indexes into meta
	class       string
}

// ReadableMetadata is 'readable-metadata', sorted by key
// (listReadableMetadata).
func (s *Source) ReadableMetadata() []connectors.MetadataKey { return s.meta }

// ApplyReadableMetadata selects the metadata the scan produces after the
// physical columns, as TestValuesScanTableSource.applyReadableMetadata
// keeps the keys' positions in the readable map.
func (s *Source) ApplyReadableMetadata(keys []string) {
	s.applied = s.applied[:0]
	for _, k := range keys {
		for i, m := range s.meta {
			if m.Key == k {
				s.applied = append(s.applied, i)
			}
		}
	}
}

// SourceClass is the TestValuesTableFactory source class Flink 1.20
// creates for the table's options.
func (s *Source) SourceClass() string { return s.class }

// WatermarkPushDown is 'enable-watermark-push-down' where Flink's
// TestValuesTableFactory then creates a
// TestValuesScanTableSourceWithWatermarkPushDown (with 'disable-lookup',
// projection push-down on; a lookup source ignores the option).
func (s *Source) WatermarkPushDown() bool {
	return strings.HasSuffix(s.class, "TestValuesScanTableSourceWithWatermarkPushDown")
}

// WatermarkEmit is WatermarkBeforeRow: that source's
// FromElementSourceFunctionWithWatermark calls the generator's onEvent and
// onPeriodicEmit for every row before it collects the row.
func (s *Source) WatermarkEmit() connectors.WatermarkEmit { return connectors.WatermarkBeforeRow }

// ChangelogMode is the 'changelog-mode' option.
func (s *Source) ChangelogMode() sql.ChangelogMode { return s.mode }

// Bounded is the 'bounded' option.
func (s *Source) Bounded() bool { return s.bounded }

// ProjectionPushDownEnabled is 'enable-projection-push-down': with
// 'false' the scan reads every column and a Calc projects, as Flink's
// TestValuesTableFactory does.
func (s *Source) ProjectionPushDownEnabled() bool { return s.projectable }

// FilterPushDown: Flink's values source takes part in filter push-down and,
// without 'filterable-fields', accepts no filter (the scan prints filter=[]).
func (s *Source) FilterPushDown() bool { return true }

// ReadsMetadata: Flink's values source supports reading metadata, so a
// projected scan prints metadata=[].
func (s *Source) ReadsMetadata() bool { return true }

// Parallelism is 1: Flink's values source runs as one task whatever
// 'parallelism.default' says (TestValuesTableFactory's 'runtime-source'
// defaults to SourceFunction, a FromElementsFunction, which is not a
// ParallelSourceFunction, so StreamExecutionEnvironment.addSource gives it
// parallelism 1), and its WatermarkAssigner runs at its input's
// parallelism. With more reader subtasks, the empty ones held the
// watermark back until they ended, so whether a late row was dropped
// depended on when they ended.
func (s *Source) Parallelism() int { return 1 }

// ApplyProjection prunes columns.
func (s *Source) ApplyProjection(fields []int) { s.proj = append([]int(nil), fields...) }

// LimitPushDown: Flink's values source supports limit push-down
// (TestValuesScanTableSourceWithoutProjectionPushDown implements
// SupportsLimitPushDown); the scan prints limit=[n] and the Limit above
// it cuts the rows.
func (s *Source) LimitPushDown() bool { return true }

// NewReader returns the reader; subtasks other than 0 read nothing.
func (s *Source) NewReader(subtask, _ int) (connectors.SourceReader, error) {
	var rows []sql.Row
	if subtask == 0 {
		rows = s.rows
		if s.proj != nil || len(s.meta) > 0 {
			// What the scan produces: the physical values, then the
			// applied metadata's, then the projection over those.
			all := rows
			rows = make([]sql.Row, len(all))
			for i, r := range all {
				produced := append(r.Values[:s.nPhys:s.nPhys], make([]any, len(s.applied))...)
				for j, m := range s.applied {
					produced[s.nPhys+j] = r.Values[s.nPhys+m]
				}
				vals := produced
				if s.proj != nil {
					vals = make([]any, len(s.proj))
					for j, k := range s.proj {
						vals[j] = produced[k]
					}
				}
				rows[i] = sql.Row{Kind: r.Kind, Values: vals}
			}
		}
	}
	return &reader{rows: rows, bounded: s.bounded}, nil
}

type reader struct {
	rows    []sql.Row
	bounded bool
	pos     int
}

func (r *reader) Open(_ context.Context, st []byte) error {
	if len(st) > 0 {
		n, k := binary.Uvarint(st)
		if k <= 0 || n > uint64(len(r.rows)) {
			return fmt.Errorf("values source: corrupt restored position")
		}
		r.pos = int(n)
	}
	return nil
}

func (r *reader) Next(ctx context.Context) ([]sql.Row, error) {
	if r.pos >= len(r.rows) {
		if r.bounded {
			return nil, io.EOF
		}
		select { // an unbounded values source idles after its rows
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
		return nil, nil
	}
	end := min(r.pos+1024, len(r.rows))
	out := append([]sql.Row(nil), r.rows[r.pos:end]...)
	r.pos = end
	return out, nil
}

func (r *reader) Snapshot(int64) ([]byte, error) {
	return binary.AppendUvarint(nil, uint64(r.pos)), nil
}

func (r *reader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

func (r *reader) Close() error { return nil }

var (
	resultsMu sync.Mutex
	results   = map[string][]sql.Row{}
)

// Results returns, as +I[...] strings, the rows written so far to the
// values sink of table (its full name, e.g.
// default_catalog.default_database.t).
func Results(table string, types []sql.DataType) []string {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	var out []string
	for _, r := range results[table] {
		out = append(out, sql.FormatRow(r, types))
	}
	return out
}

// ClearResults forgets every table's results.
func ClearResults() {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	results = map[string][]sql.Row{}
}

// CreateSink builds a sink collecting rows in memory.
func (f Factory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	o := connectors.NewOptions(f.Options(), ctx.Options)
	meta, err := metadataMap("writable-metadata", o.Get("writable-metadata"))
	if err != nil {
		return nil, err
	}
	s := &Sink{table: ctx.Table.String(), insertOnly: o.Bool("sink-insert-only"), parallelism: o.Int("sink.parallelism"),
		hasKey: ctx.Schema.HasPrimaryKey(), meta: meta}
	if v := o.Get("sink-changelog-mode-enforced"); v != "" {
		m, err := sql.ParseChangelogMode(v)
		if err != nil {
			return nil, sql.Errorf(sql.ValidationException, "Invalid 'sink-changelog-mode-enforced': %w", err)
		}
		s.enforced = &m
	}
	return s, nil
}

// Sink keeps written rows in memory.
type Sink struct {
	table       string
	insertOnly  bool
	enforced    *sql.ChangelogMode
	parallelism int
	hasKey      bool
	meta        []connectors.MetadataKey // 'writable-metadata', sorted by key
	applied     []string                 // the keys written, in meta's order
}

// WritableMetadata is 'writable-metadata', sorted by key
// (TestValuesTableSink.listWritableMetadata).
func (s *Sink) WritableMetadata() []connectors.MetadataKey { return s.meta }

// ApplyWritableMetadata records the keys written: each row the sink
// receives carries their values after the physical columns, and the sink
// keeps the row whole (TestValuesTableSink converts the consumed type,
// metadata included, to the rows it collects).
func (s *Sink) ApplyWritableMetadata(keys []string) { s.applied = append([]string(nil), keys...) }

// SinkClass is the class Flink 1.20's TestValuesTableFactory creates for
// a values sink ('table-sink-class' DEFAULT).
func (s *Sink) SinkClass() string {
	return "org.apache.flink.table.planner.factories.TestValuesTableFactory$TestValuesTableSink"
}

// ChangelogMode is TestValuesTableSink's: the enforced mode, else
// insert-only when sink-insert-only, else upsert (no -U) with a primary
// key, else whatever is requested.
func (s *Sink) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	switch {
	case s.enforced != nil:
		return *s.enforced, nil
	case s.insertOnly:
		return sql.InsertOnly, nil
	case s.hasKey:
		return requested.Without(sql.UpdateBefore), nil
	}
	return requested, nil
}

// Parallelism is sink.parallelism.
func (s *Sink) Parallelism() int { return s.parallelism }

// NewWriter returns a writer appending to the table's results.
func (s *Sink) NewWriter(int, int) (connectors.SinkWriter, error) {
	return &writer{table: s.table}, nil
}

type writer struct{ table string }

func (w *writer) Open(context.Context, []byte) error { return nil }
func (w *writer) Write(_ context.Context, rows []sql.Row) error {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	results[w.table] = append(results[w.table], rows...)
	return nil
}
func (w *writer) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (w *writer) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (w *writer) Close(context.Context) error                             { return nil }

// FlinkConnector: Flink's 'values' connector is a test connector
// (TestValuesTableFactory in flink-table-planner's test jar), whose rows
// come from Java (data-id), not from the 'rows' option.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{Missing: "Flink's 'values' connector is TestValuesTableFactory from flink-table-planner's " +
		"test jar, not in Flink's distribution, and its rows come from Java ('data-id'), not from 'rows'; " +
		"use a 'filesystem' table (format 'csv' or 'json') or 'datagen' instead"}
}
