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
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
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
	_ connectors.MetadataReader             = (*Source)(nil)
	_ connectors.TableSink                  = (*Sink)(nil)
	_ connectors.LookupSource               = (*Source)(nil)
	_ connectors.TableSource                = (*ScanOnlySource)(nil)
	_ connectors.SupportsProjectionPushDown = (*ScanOnlySource)(nil)
	_ connectors.ProjectionPushDownToggle   = (*ScanOnlySource)(nil)
	_ connectors.FilterPushDownSource       = (*ScanOnlySource)(nil)
	_ connectors.MetadataReader             = (*ScanOnlySource)(nil)
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
		s("enable-watermark-push-down", "false", connectors.Bool, "Accepted, no effect."),
		s("readable-metadata", "", connectors.String, "Accepted, no effect."),
		s("writable-metadata", "", connectors.String, "Accepted, no effect."),
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
	rows, err := ParseRows(o.Get("rows"), ctx.Schema)
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
		projectable: o.Bool("enable-projection-push-down")}
	if o.Bool("disable-lookup") {
		return &ScanOnlySource{src}, nil
	}
	return src, nil
}

// ScanOnlySource is a values table with 'disable-lookup': Flink's values
// source without LookupTableSource, so a lookup join refuses it.
type ScanOnlySource struct{ s *Source }

func (s *ScanOnlySource) ChangelogMode() sql.ChangelogMode { return s.s.ChangelogMode() }
func (s *ScanOnlySource) Bounded() bool                    { return s.s.Bounded() }
func (s *ScanOnlySource) ProjectionPushDownEnabled() bool  { return s.s.ProjectionPushDownEnabled() }
func (s *ScanOnlySource) FilterPushDown() bool             { return true }
func (s *ScanOnlySource) ReadsMetadata() bool              { return true }
func (s *ScanOnlySource) ApplyProjection(fields []int)     { s.s.ApplyProjection(fields) }
func (s *ScanOnlySource) Parallelism() int                 { return s.s.Parallelism() }
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
			live = append(live, r.Values)
		default:
			gone, _ := lookupKey(r.Values, nil)
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
// each starting with the RowKind.
func ParseRows(text string, schema sql.Schema) ([]sql.Row, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	n := len(schema.Columns)
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
				return nil, fmt.Errorf("row %d has %d values, the table has %d columns (plus the kind)", i+1, len(a)-1, n)
			}
			ks, _ := a[0].(string)
			kind, err := sql.ParseRowKind(ks)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", i+1, err)
			}
			vals := make([]any, n)
			for j, c := range schema.Columns {
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
			return nil, fmt.Errorf("line %d has %d values, the table has %d columns (plus the kind)", i, len(rec)-1, n)
		}
		kind, err := sql.ParseRowKind(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i, err)
		}
		vals := make([]any, n)
		for j, c := range schema.Columns {
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
	rows        []sql.Row
	mode        sql.ChangelogMode
	bounded     bool
	projectable bool
	proj        []int
}

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

// NewReader returns the reader; subtasks other than 0 read nothing.
func (s *Source) NewReader(subtask, _ int) (connectors.SourceReader, error) {
	var rows []sql.Row
	if subtask == 0 {
		rows = s.rows
		if s.proj != nil {
			rows = make([]sql.Row, len(s.rows))
			for i, r := range s.rows {
				vals := make([]any, len(s.proj))
				for j, k := range s.proj {
					vals[j] = r.Values[k]
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
	s := &Sink{table: ctx.Table.String(), insertOnly: o.Bool("sink-insert-only"), parallelism: o.Int("sink.parallelism"),
		hasKey: ctx.Schema.HasPrimaryKey()}
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
