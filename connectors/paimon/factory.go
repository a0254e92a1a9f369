// Package paimon is sqlrun's Paimon-compatible table store. This file and
// options.go are its planning half: the 'paimon' connector factory, which
// tells the planner what a Paimon table produces as a source and accepts as
// a sink (Paimon 1.4's BaseDataTableSource / FlinkTableSinkBase rules), and
// validates the scan options the way Paimon's SchemaValidation does. The
// readers and writers come from the table layer (paimon/stream for reads,
// paimon/table for writes and commits), opened on first use from the
// table's 'path' option.
package paimon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// Identifier is the 'connector' value of Paimon tables.
const Identifier = "paimon"

// ErrNoPath is returned when a table to be read or written has no 'path'
// option: a Paimon table outside a Paimon catalog must say where it lives,
// and a Paimon catalog sets it for its tables. Planning and EXPLAIN do not
// need it.
var ErrNoPath = errors.New("paimon table has no 'path' option")

// tableFS is the file system a table path lives on: the local one, or the
// object store its catalog's warehouse is on (fs.For); a test swaps it for
// a counting or failing one (fs.Injecting).
var tableFS = func(path string) fs.FileIO { return fs.For(path) }

// Factory is the Paimon table factory (Paimon's FlinkTableFactory).
type Factory struct{}

var (
	_ connectors.SourceFactory      = Factory{}
	_ connectors.SinkFactory        = Factory{}
	_ connectors.FlinkPortable      = Factory{}
	_ connectors.RowLevelFactory    = Factory{}
	_ connectors.SystemTableFactory = Factory{}
)

// SupportsRowLevelModification: Paimon's sinks take row-level DELETE and
// UPDATE (whether a table can is the sink's to say).
func (Factory) SupportsRowLevelModification() {}

func init() { connectors.Register(Factory{}) }

// Identifier is "paimon".
func (Factory) Identifier() string { return Identifier }

// Options are Paimon's table options. Paimon's Flink factory does not use
// FactoryUtil's validation, so unknown keys are accepted (and kept); see
// CheckOptions.
func (Factory) Options() []connectors.Option { return coreoptions.Known() }

// CheckOptions validates a Paimon table's options as Paimon does: known
// options must parse as their type (Paimon fails on first use otherwise)
// and the scan options must fit 'scan.mode' (SchemaValidation's
// validateStartupMode). Unknown keys are not an error: Paimon's
// FlinkTableFactory bypasses Flink's FactoryUtil validation and keeps them.
func CheckOptions(opts map[string]string) error {
	for _, o := range coreoptions.Known() {
		if o.Prefix {
			continue
		}
		if v, ok := opts[o.Key]; ok {
			if err := connectors.CheckValue(o, v); err != nil {
				return err
			}
		}
	}
	return validateStartupMode(opts)
}

func has(opts map[string]string, k string) bool { _, ok := opts[k]; return ok }

func illegalArg(format string, args ...any) error {
	return sql.Errorf(sql.IllegalArgumentException, format, args...)
}

// validateStartupMode is Paimon 1.4's SchemaValidation.validateStartupMode,
// with its messages.
func validateStartupMode(opts map[string]string) error {
	mode := coreoptions.ResolveMode(opts)
	notIn := func(key string) error {
		if has(opts, key) {
			return illegalArg("%s must be null when you use %s for %s", key, mode, coreoptions.OptScanMode)
		}
		return nil
	}
	mustIn := func(key string) error {
		if !has(opts, key) {
			return illegalArg("%s can not be null when you use %s for %s", key, mode, coreoptions.OptScanMode)
		}
		return nil
	}
	exactlyOne := func(keys ...string) error {
		n := 0
		for _, k := range keys {
			if has(opts, k) {
				n++
			}
		}
		if n != 1 {
			return illegalArg("must set only one key in [%s] when you use %s for %s", strings.Join(keys, ","), mode, coreoptions.OptScanMode)
		}
		return nil
	}
	conflicts := func(illegal []string, legal ...string) error {
		for _, k := range illegal {
			if has(opts, k) {
				return illegalArg("[%s] must be null when you set [%s]", k, strings.Join(legal, ","))
			}
		}
		return nil
	}
	var err error
	switch mode {
	case coreoptions.ScanFromTimestamp:
		if err = exactlyOne(coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp); err == nil {
			err = conflicts([]string{coreoptions.OptScanSnapshotID, coreoptions.OptScanTagName, coreoptions.OptIncrementalBetween}, coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp)
		}
	case coreoptions.ScanFromSnapshot:
		if err = exactlyOne(coreoptions.OptScanSnapshotID, coreoptions.OptScanTagName, coreoptions.OptScanWatermark); err == nil {
			err = conflicts([]string{coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp, coreoptions.OptIncrementalBetween}, coreoptions.OptScanSnapshotID, coreoptions.OptScanTagName, coreoptions.OptScanWatermark)
		}
	case coreoptions.ScanIncremental:
		if !has(opts, "incremental-between-timestamp") {
			err = mustIn(coreoptions.OptIncrementalBetween)
		}
		if err == nil {
			err = conflicts([]string{coreoptions.OptScanSnapshotID, coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp, coreoptions.OptScanTagName}, coreoptions.OptIncrementalBetween)
		}
	case coreoptions.ScanFromSnapshotFull:
		if err = mustIn(coreoptions.OptScanSnapshotID); err == nil {
			err = conflicts([]string{coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp, coreoptions.OptScanTagName, coreoptions.OptIncrementalBetween}, coreoptions.OptScanSnapshotID)
		}
	default:
		for _, k := range []string{coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp, coreoptions.OptScanSnapshotID, coreoptions.OptScanTagName, coreoptions.OptIncrementalBetween} {
			if err = notIn(k); err != nil {
				break
			}
		}
	}
	return err
}

// tableConfig is what both halves read from a table reference.
type tableConfig struct {
	id        connectors.ObjectIdentifier
	schema    sql.Schema
	partition []string
	opts      connectors.Options
	raw       map[string]string
	streaming bool
	// stored is the table's latest schema, read once while planning (nil
	// when the reference has no path, or no readable table is there yet).
	stored *schema.TableSchema
	// comment is the declaration's table COMMENT, stored in the schema
	// of a table 'auto-create' creates.
	comment string
}

func newConfig(ctx *connectors.Context) (*tableConfig, error) {
	stored, _ := ctx.Stored.(*schema.TableSchema) // a Paimon catalog read it
	if stored == nil {
		stored = readStored(ctx.Options)
	}
	opts := withStoredOptions(ctx.Options, stored)
	if err := checkDeclaredSchema(ctx, stored); err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", ctx.Table, err)
	}
	if err := CheckOptions(opts); err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", ctx.Table, err)
	}
	return &tableConfig{id: ctx.Table, schema: ctx.Schema, partition: ctx.PartitionKeys, opts: connectors.NewOptions(coreoptions.Known(), opts),
		raw: opts, streaming: ctx.Streaming, stored: stored, comment: ctx.Comment}, nil
}

// withStoredOptions returns the options a Paimon table really has: those
// stored in its latest schema file, overridden by the declaration's WITH
// options and hints. Paimon's FlinkTableFactory reads a 'path' table the
// same way (the table's options copied with the dynamic ones), so a table
// created with 'changelog-producer' = 'input' keeps that producer — and
// its changelog mode in the plan — when declared by path without it. A
// table that does not exist yet has no stored options.
func withStoredOptions(decl map[string]string, ts *schema.TableSchema) map[string]string {
	if ts == nil || len(ts.Options) == 0 {
		return decl
	}
	merged := make(map[string]string, len(ts.Options)+len(decl))
	for k, v := range ts.Options {
		merged[k] = v
	}
	for k, v := range decl {
		merged[k] = v
	}
	return merged
}

// readStored reads the latest schema of the table at the reference's
// 'path' (unless its Paimon catalog handed it over), once per reference: the stored options, the declared-schema
// check and the reader or writer all use it. A missing or unreadable
// table gives nil: opening it reports it with Paimon's message and the
// file at fault.
func readStored(decl map[string]string) *schema.TableSchema {
	path := strings.TrimPrefix(strings.TrimSpace(decl["path"]), "file://")
	if path == "" {
		return nil
	}
	ts, err := schema.NewManager(tableFS(path), path).Latest()
	if err != nil {
		return nil
	}
	return ts
}

// checkDeclaredSchema compares a 'path' table's declaration with the
// table stored there, as Paimon's AbstractFlinkTableFactory does before it
// reads or writes one: the same field names and types in the same order
// (comments aside), the same partition keys and primary keys, else the
// statement fails with Paimon's message while planning — not at the first
// write, with the job already running. A table not created yet passes.
func checkDeclaredSchema(ctx *connectors.Context, ts *schema.TableSchema) error {
	if _, _, sys := SystemTable(ctx.Table.Name); ts == nil || sys {
		return nil // a system table (t$snapshots) has a schema of its own
	}
	store := make([]sql.Field, len(ts.Fields))
	for i, f := range ts.Fields {
		store[i] = sql.Field{Name: f.Name, Type: f.Type}
	}
	pk := map[string]bool{}
	for _, k := range ctx.Schema.PrimaryKey {
		pk[k] = true
	}
	declared := make([]sql.Field, len(ctx.Schema.Columns))
	for i, c := range ctx.Schema.Columns {
		t := c.Type
		if pk[c.Name] {
			t = t.NotNull() // Flink makes primary key columns NOT NULL
		}
		declared[i] = sql.Field{Name: c.Name, Type: t}
	}
	if !sameFields(store, declared) {
		return sql.Errorf(sql.IllegalArgumentException, "Flink schema and store schema are not the same, store schema is %s, Flink schema is %s",
			sql.RowOf(store...), sql.RowOf(declared...).NotNull())
	}
	if !slices.Equal(ts.PartitionKeys, ctx.PartitionKeys) {
		return sql.Errorf(sql.IllegalArgumentException, "Flink partitionKeys and store partitionKeys are not the same, store partitionKeys is %s, Flink partitionKeys is %s",
			javaList(ts.PartitionKeys), javaList(ctx.PartitionKeys))
	}
	if !slices.Equal(ts.PrimaryKeys, ctx.Schema.PrimaryKey) {
		return sql.Errorf(sql.IllegalArgumentException, "Flink primaryKeys and store primaryKeys are not the same, store primaryKeys is %s, Flink primaryKeys is %s",
			javaList(ts.PrimaryKeys), javaList(ctx.Schema.PrimaryKey))
	}
	return nil
}

// sameFields compares names and types, ignoring comments at any depth.
func sameFields(a, b []sql.Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || withoutComments(a[i].Type).String() != withoutComments(b[i].Type).String() {
			return false
		}
	}
	return true
}

func withoutComments(t sql.DataType) sql.DataType {
	if len(t.Fields) > 0 {
		fs := make([]sql.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = sql.Field{Name: f.Name, Type: withoutComments(f.Type)}
		}
		t.Fields = fs
	}
	if t.Elem != nil {
		e := withoutComments(*t.Elem)
		t.Elem = &e
	}
	if t.Value != nil {
		v := withoutComments(*t.Value)
		t.Value = &v
	}
	return t
}

// javaList prints a list as Java's List.toString does: [a, b].
func javaList(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }

func (c *tableConfig) producer() string {
	return strings.ToLower(strings.TrimSpace(c.opts.Get(coreoptions.OptChangelogProducer)))
}

func (c *tableConfig) mergeEngine() string {
	return strings.ToLower(strings.TrimSpace(c.opts.Get(coreoptions.OptMergeEngine)))
}

// CreateSource describes a Paimon table as a scan source.
func (f Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	cfg, err := newConfig(ctx)
	if err != nil {
		return nil, err
	}
	// An option that makes Paimon read other rows than sqlrun would is
	// refused while planning (a table's write-side options do not stop a
	// read).
	if err := coreoptions.CheckRead(ctx.Table.String(), cfg.raw); err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", ctx.Table, err)
	}
	if _, sys, ok := SystemTable(ctx.Table.Name); ok {
		return &SystemSource{cfg: cfg, sys: sys}, nil
	}
	s := &Source{cfg: cfg}
	// AbstractFlinkTableFactory: unbounded iff streaming runtime mode and
	// not 'scan.bounded' = true.
	s.bounded = !ctx.Streaming || cfg.opts.Bool(coreoptions.OptScanBounded)
	if !s.bounded {
		if err := s.validateStreaming(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Source is a Paimon table read (BaseDataTableSource's planning facts).
type Source struct {
	cfg     *tableConfig
	bounded bool
	// projection is the pushed-down field list (nil: all fields).
	projection []int
	// agg is the local aggregate the readers compute (LocalAggregate).
	agg []format.AggCall
	// filter are the conjuncts rows pass to be aggregated (with agg).
	filter []format.Pred

	once    sync.Once
	rt      *stream.Source
	openErr error
}

var (
	_ connectors.TableSource                = (*Source)(nil)
	_ connectors.SupportsProjectionPushDown = (*Source)(nil)
	_ connectors.FilterDigestSource         = (*Source)(nil)
	_ connectors.SupportsParallelism        = (*Source)(nil)
	_ connectors.SupportsLocalAggregate     = (*Source)(nil)
	_ connectors.SupportsLocalFilter        = (*Source)(nil)
	_ connectors.WatermarkPushDownSource    = (*Source)(nil)
	_ connectors.SplitSource                = (*Source)(nil)
	_ connectors.WatermarkStrategySource    = (*Source)(nil)
	_ connectors.NewSourceAPISource         = (*Source)(nil)
)

// NewSourceAPI: Paimon's table source is a DataStreamScanProvider over
// env.fromSource of its FLIP-27 FileStoreSource (FlinkSourceBuilder).
func (*Source) NewSourceAPI() bool { return true }

// ReadsSplits is true: Paimon's source is a FLIP-27 source whose reader
// reads DataSplits one after another (stream.Reader.SplitEvents), so a
// pushed-down watermark is generated per split.
func (s *Source) ReadsSplits() bool { return true }

// WatermarkPushDown is true: Paimon's BaseDataTableSource implements
// SupportsWatermarkPushDown, so a WATERMARK FOR clause goes into the scan
// (watermark=[...]). Its system tables' SystemTableSource does not.
func (s *Source) WatermarkPushDown() bool { return true }

// WatermarkEmit follows 'scan.watermark.emit.strategy': with Paimon's
// default 'on-event', BaseDataTableSource wraps the strategy in an
// OnEventWatermarkStrategy, so the FLIP-27 source emits the watermark
// after every row that advances it (SourceOutputWithWatermarks emits the
// row first); with 'on-periodic' it is emitted periodically. Either way
// it is generated per split and combined over the splits the reader was
// handed and has not finished (ReadsSplits).
func (s *Source) WatermarkEmit() connectors.WatermarkEmit {
	if strings.EqualFold(strings.TrimSpace(s.cfg.opts.Get("scan.watermark.emit.strategy")), "on-periodic") {
		return connectors.WatermarkPeriodic
	}
	return connectors.WatermarkAfterRow
}

// WatermarkIdleTimeout is 'scan.watermark.idle-timeout': Paimon's
// BaseDataTableSource wraps the pushed strategy, outside its emit
// strategy, in WatermarkStrategy.withIdleness, which refuses a timeout
// that is not positive.
func (s *Source) WatermarkIdleTimeout() (time.Duration, error) {
	v := strings.TrimSpace(s.cfg.opts.Get("scan.watermark.idle-timeout"))
	if v == "" {
		return 0, nil
	}
	d, err := connectors.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("Could not parse value '%s' for key 'scan.watermark.idle-timeout'.", v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("option 'scan.watermark.idle-timeout': idleTimeout must be greater than zero")
	}
	return d, nil
}

// WatermarkAlignmentGroup is 'scan.watermark.alignment.group', with which
// BaseDataTableSource adds watermark alignment to the strategy.
func (s *Source) WatermarkAlignmentGroup() string {
	return strings.TrimSpace(s.cfg.opts.Get("scan.watermark.alignment.group"))
}

// ApplyProjection records the fields the query reads; Paimon reads only
// those columns from its data files.
func (s *Source) ApplyProjection(fields []int) { s.projection = append([]int(nil), fields...) }

// AcceptsFilters is true: Paimon takes every filter for file and
// partition pruning (the scan prints filter=[...]), but the planner keeps
// the condition in the Calc, because pruning is not exact row filtering.
func (s *Source) AcceptsFilters() bool { return true }

// Projection is the pushed-down field list, nil for all fields.
func (s *Source) Projection() []int { return s.projection }

func (s *Source) validateStreaming() error {
	cfg := s.cfg
	if coreoptions.ResolveMode(cfg.raw) == coreoptions.ScanIncremental {
		return sql.Errorf(sql.IllegalArgumentException, "Cannot read incremental in streaming mode.")
	}
	if cfg.schema.HasPrimaryKey() && cfg.producer() == coreoptions.ProducerNone {
		var what string
		switch cfg.mergeEngine() {
		case coreoptions.EnginePartialUpdate:
			what = "Partial update"
		case coreoptions.EngineAggregation:
			what = "Pre-aggregate"
		case coreoptions.EngineFirstRow:
			what = "First row"
		}
		if what != "" {
			return sql.Errorf(sql.ValidationException,
				"%s streaming reading is not supported. You can use 'lookup' or 'full-compaction' changelog producer to support streaming reading. ('input' changelog producer is also supported, but only returns input records.)", what)
		}
	}
	if cfg.opts.Has(coreoptions.OptConsumerID) {
		// The id names a file under <table>/consumer/: one path element.
		if err := fs.CheckName(fs.KindConsumer, cfg.opts.Get(coreoptions.OptConsumerID)); err != nil {
			return err
		}
	}
	if cfg.opts.Has(coreoptions.OptConsumerID) && !cfg.opts.Has(coreoptions.OptConsumerExpirationTime) {
		return sql.Errorf(sql.IllegalArgumentException,
			"You need to configure 'consumer.expiration-time' (ALTER TABLE) and restart your write job for it to take effect, when you need consumer-id feature. This is to prevent consumers from leaving too many snapshots that could pose a risk to the file system.")
	}
	return nil
}

// ChangelogMode is BaseDataTableSource.getChangelogMode; the first rule
// that matches wins:
//  1. bounded, no primary key, or merge-engine first-row: insert-only;
//  2. 'scan.remove-normalize': all kinds (Flink then adds no normalize);
//  3. changelog-producer other than none: all kinds (the stored changelog);
//  4. otherwise upsert [I, UA, D], for which Flink adds ChangelogNormalize.
func (s *Source) ChangelogMode() sql.ChangelogMode {
	cfg := s.cfg
	switch {
	case s.bounded || !cfg.schema.HasPrimaryKey() || cfg.mergeEngine() == coreoptions.EngineFirstRow:
		return sql.InsertOnly
	case cfg.opts.Bool(coreoptions.OptScanRemoveNormalize):
		return sql.All
	case cfg.producer() != coreoptions.ProducerNone:
		return sql.All
	}
	return sql.Upsert
}

// LocalAggregate returns the source whose readers compute calls over the
// rows they read that pass filter (connectors.SupportsLocalAggregate): a
// batch read only. Files read raw whose columns the column path takes are
// aggregated from their pages without rows (format.File.Aggregate), the
// filter tested per batch of rows and row groups skipped by their
// statistics; every other row is tested and becomes a partial of its own
// (table.ReadOptions.Aggregate).
func (s *Source) LocalAggregate(calls []connectors.LocalAggCall, filter []connectors.LocalPredicate) (connectors.TableSource, bool) {
	if s.cfg.streaming || !s.bounded {
		return nil, false
	}
	agg := make([]format.AggCall, len(calls))
	for i, c := range calls {
		agg[i].Arg, agg[i].Concat = c.Arg, c.Concat
		switch c.Kind {
		case connectors.LocalCountStar:
			agg[i].Kind = format.AggCountStar
		case connectors.LocalCount:
			agg[i].Kind = format.AggCount
		case connectors.LocalMin:
			agg[i].Kind = format.AggMin
		case connectors.LocalMax:
			agg[i].Kind = format.AggMax
		case connectors.LocalSum:
			agg[i].Kind = format.AggSum
		case connectors.LocalSumBigInt:
			agg[i].Kind = format.AggSumBigInt
		case connectors.LocalGroupKey:
			agg[i].Kind = format.AggKey
		default:
			return nil, false
		}
		if c.Concat != nil && c.Kind != connectors.LocalCount && c.Kind != connectors.LocalMin && c.Kind != connectors.LocalMax {
			return nil, false
		}
	}
	preds, ok := localPreds(filter)
	if !ok {
		return nil, false
	}
	return &Source{cfg: s.cfg, bounded: s.bounded, projection: s.projection, agg: agg, filter: preds}, true
}

// LocalFilter returns the source whose readers yield only the rows that
// pass filter (connectors.SupportsLocalFilter): a batch read only. Files
// read raw are skipped by their statistics (whole files by the manifest's,
// row groups by Parquet's) and tested a batch of rows at a time before
// the rows leave the reader; every other row is tested after the merge
// (table.ReadOptions.Filter).
func (s *Source) LocalFilter(filter []connectors.LocalPredicate) (connectors.TableSource, bool) {
	if s.cfg.streaming || !s.bounded || s.agg != nil {
		return nil, false
	}
	preds, ok := localPreds(filter)
	if !ok {
		return nil, false
	}
	return &Source{cfg: s.cfg, bounded: s.bounded, projection: s.projection, filter: preds}, true
}

// localPreds are the conjuncts of filter as the column path tests them.
func localPreds(filter []connectors.LocalPredicate) ([]format.Pred, bool) {
	preds := make([]format.Pred, len(filter))
	for i, f := range filter {
		preds[i] = format.Pred{Field: f.Field, IsNull: f.IsNull}
		for _, r := range f.Ranges {
			lo, ok1 := predBound(r.Lo)
			hi, ok2 := predBound(r.Hi)
			if !ok1 || !ok2 {
				return nil, false
			}
			preds[i].Ranges = append(preds[i].Ranges, format.PredRange{Lo: lo, Hi: hi})
		}
		if f.Or != nil {
			or, ok := localPreds(f.Or)
			if !ok {
				return nil, false
			}
			preds[i].Or = or
		}
	}
	return preds, true
}

// predBound is a LocalBound as the column path tests it.
func predBound(b connectors.LocalBound) (format.PredBound, bool) {
	out := format.PredBound{Unbounded: b.Unbounded, Closed: b.Closed}
	if b.Unbounded {
		return out, true
	}
	switch v := b.Value.(type) {
	case int64:
		out.Int = v
	case string:
		out.Str = []byte(v)
	default:
		return out, false
	}
	return out, true
}

// Bounded reports a batch read or 'scan.bounded' = true.
func (s *Source) Bounded() bool { return s.bounded }

// Parallelism is 'scan.parallelism', 0 when unset.
func (s *Source) Parallelism() int { return s.cfg.opts.Int(coreoptions.OptScanParallelism) }

// StartupMode is the effective scan mode.
func (s *Source) StartupMode() string { return coreoptions.ResolveMode(s.cfg.raw) }

// Options are the table's options with hints applied.
func (s *Source) Options() connectors.Options { return s.cfg.opts }

// NewReader opens the table on first use (schema, snapshots) and returns
// subtask's reader of the Paimon stream/batch scan.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	s.once.Do(func() {
		path, err := s.cfg.path()
		if err != nil {
			s.openErr = err
			return
		}
		t, err := s.cfg.openForRead(path)
		if err != nil {
			s.openErr = err
			return
		}
		s.rt, s.openErr = stream.NewSourceTable(t, s.cfg.streaming, s.projection)
		if s.openErr == nil {
			s.rt.Aggregate = s.agg
			s.rt.Filter = s.filter
		}
	})
	if s.openErr != nil {
		return nil, fmt.Errorf("read paimon table %s: %w", s.cfg.id, s.openErr)
	}
	return s.rt.NewReader(subtask, parallelism)
}

// CreateSink describes a Paimon table as a sink.
func (f Factory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	cfg, err := newConfig(ctx)
	if err != nil {
		return nil, err
	}
	if _, sys, ok := SystemTable(ctx.Table.Name); ok {
		// Paimon's system tables are ReadonlyTables.
		return nil, sql.Errorf(sql.UnsupportedOperation, "Readonly Table %s does not support write: $%s is a Paimon system table.", ctx.Table.Name, sys)
	}
	// An option that makes Paimon write, commit or create what sqlrun
	// would not is refused while planning, before the job starts.
	if err := coreoptions.CheckWrite(ctx.Table.String(), cfg.raw); err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", ctx.Table, err)
	}
	return &Sink{cfg: cfg}, nil
}

// Sink is a Paimon table write (FlinkTableSinkBase's planning facts).
type Sink struct {
	cfg *tableConfig
	// overwrite and static are INSERT OVERWRITE and its static partition.
	overwrite bool
	static    map[string]string
	// rowKind, when set, is the kind every written row gets: Delete for a
	// row-level DELETE, UpdateAfter for UPDATE.
	rowKind *sql.RowKind

	once    sync.Once
	rt      *table.Sink
	openErr error
}

var (
	_ connectors.TableSink           = (*Sink)(nil)
	_ connectors.Committer           = (*Sink)(nil)
	_ connectors.SupportsParallelism = (*Sink)(nil)
	_ connectors.OverwritableSink    = (*Sink)(nil)
	_ connectors.RowLevelDeleter     = (*Sink)(nil)
	_ connectors.RowLevelUpdater     = (*Sink)(nil)
	_ connectors.BucketRouter        = (*Sink)(nil)
	_ connectors.MaterializerRefuser = (*Sink)(nil)
)

// RefuseMaterializer: Paimon's FlinkSink refuses a materializer in front
// of it: the table's merge engine reconciles the changes itself.
func (s *Sink) RefuseMaterializer() error {
	return sql.Errorf(sql.IllegalArgumentException,
		"Sink materializer must not be used with Paimon sink. Please set 'table.exec.sink.upsert-materialize' to 'NONE' in Flink's config.")
}

// ChangelogMode is FlinkTableSinkBase.getChangelogMode: tables that need
// the -U image (no primary key, producer input, aggregation, partial-update
// with aggregate functions) take what the query produces; the rest upsert
// and take it without UPDATE_BEFORE.
func (s *Sink) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	cfg := s.cfg
	if !cfg.schema.HasPrimaryKey() || cfg.producer() == coreoptions.ProducerInput || cfg.mergeEngine() == coreoptions.EngineAggregation ||
		(cfg.mergeEngine() == coreoptions.EnginePartialUpdate && s.hasAggFunctions()) {
		return requested, nil
	}
	return requested.Without(sql.UpdateBefore), nil
}

func (s *Sink) hasAggFunctions() bool {
	for k := range s.cfg.raw {
		if strings.HasPrefix(k, coreoptions.OptPartialUpdateAggPrefix) && strings.HasSuffix(k, ".aggregate-function") ||
			k == "fields.default-aggregate-function" {
			return true
		}
	}
	return false
}

// ApplyOverwrite makes the sink replace the static partition (or the
// whole table) in one snapshot; Paimon refuses it in streaming mode.
func (s *Sink) ApplyOverwrite(staticPartition map[string]string) error {
	if s.cfg.streaming {
		return sql.Errorf(sql.UnsupportedOperation, "Paimon doesn't support streaming INSERT OVERWRITE.")
	}
	s.overwrite, s.static = true, staticPartition
	return nil
}

// Parallelism is 'sink.parallelism' (0: the input's parallelism). With
// more than one writer the planner routes rows by Channel, so two writers
// never share a bucket (both would compact it).
//
// A table with cross-partition upserts (KEY_DYNAMIC) gets one writer
// whatever 'sink.parallelism' says: it holds the key index (Paimon runs
// its GlobalIndexAssigner tasks in front of parallel writers instead).
func (s *Sink) Parallelism() int {
	if s.cfg.keyDynamic() {
		return 1
	}
	return s.cfg.opts.Int(coreoptions.OptSinkParallelism)
}

// keyDynamic reports Paimon's KEY_DYNAMIC bucket mode for the table as
// stored (or, before it exists, as declared): a primary key without every
// partition field and 'bucket' = -1.
func (c *tableConfig) keyDynamic() bool {
	pk, part, bucket := c.schema.PrimaryKey, c.partition, c.raw[coreoptions.OptBucket]
	if c.stored != nil {
		pk, part, bucket = c.stored.PrimaryKeys, c.stored.PartitionKeys, c.stored.Options[coreoptions.OptBucket]
	}
	if len(pk) == 0 || len(part) == 0 || (strings.TrimSpace(bucket) != "" && strings.TrimSpace(bucket) != "-1") {
		return false
	}
	for _, p := range part {
		if !slices.Contains(pk, p) {
			return true
		}
	}
	return false
}

// Channel is the writer subtask owning r's bucket: Paimon's channel
// computer (partition hash plus bucket, modulo parallelism).
func (s *Sink) Channel(r sql.Row, parallelism int) (int, error) {
	rt, err := s.runtime()
	if err != nil {
		return 0, err
	}
	return rt.Channel(r, parallelism)
}

// Options are the table's options with hints applied.
func (s *Sink) Options() connectors.Options { return s.cfg.opts }

// NewWriter opens the table on first use and returns subtask's writer.
func (s *Sink) NewWriter(subtask, parallelism int) (connectors.SinkWriter, error) {
	rt, err := s.runtime()
	if err != nil {
		return nil, err
	}
	w, err := rt.NewWriter(subtask, parallelism)
	if err != nil || s.rowKind == nil {
		return w, err
	}
	return &kindWriter{SinkWriter: w, kind: *s.rowKind}, nil
}

// kindWriter writes every row with one RowKind (row-level DELETE/UPDATE).
type kindWriter struct {
	connectors.SinkWriter
	kind sql.RowKind
}

func (k *kindWriter) Write(ctx context.Context, rows []sql.Row) error {
	for i := range rows {
		rows[i].Kind = k.kind
	}
	return k.SinkWriter.Write(ctx, rows)
}

// Paimon's class names, as its row-level messages print them.
const (
	appendTableClass = "org.apache.paimon.table.AppendOnlyFileStoreTable"
)

// batchEngines are the merge engines that take batch DELETE and UPDATE
// (MergeEngine.supportBatchDelete / supportBatchUpdate).
var batchEngines = []string{coreoptions.EngineDeduplicate, coreoptions.EnginePartialUpdate}

func (s *Sink) engine() string {
	e := s.cfg.mergeEngine()
	if e == "" {
		e = coreoptions.EngineDeduplicate
	}
	return e
}

func batchEngine(e string) bool {
	for _, b := range batchEngines {
		if b == e {
			return true
		}
	}
	return false
}

// ApplyRowLevelDelete makes the sink write every row it receives as a
// delete (Paimon's FlinkTableSink.applyRowLevelDelete, DELETED_ROWS):
// primary-key tables with a merge engine that supports batch delete.
func (s *Sink) ApplyRowLevelDelete() error {
	if !s.cfg.schema.HasPrimaryKey() {
		return sql.Errorf(sql.UnsupportedOperation, "table '%s' can not support delete, because there is no primary key.", appendTableClass)
	}
	if e := s.engine(); !batchEngine(e) {
		return sql.Errorf(sql.UnsupportedOperation, "Merge engine %s can not support batch delete. Support batch delete merge engines are: [%s].",
			e, strings.Join(batchEngines, ", "))
	}
	k := sql.Delete
	s.rowKind = &k
	return nil
}

// ApplyRowLevelUpdate makes the sink write the new values of the updated
// rows as +U (FlinkTableSink.applyRowLevelUpdate, UPDATED_ROWS): primary-key
// tables, no primary-key column among the SET targets, a merge engine
// that supports batch update.
func (s *Sink) ApplyRowLevelUpdate(columns []string) error {
	if !s.cfg.schema.HasPrimaryKey() {
		return sql.Errorf(sql.UnsupportedOperation, "%s can not support update, because there is no primary key.", appendTableClass)
	}
	pk := s.cfg.schema.PrimaryKey
	for _, c := range columns {
		for _, k := range pk {
			if c == k {
				return sql.Errorf(sql.UnsupportedOperation, "Updates to primary keys are not supported, primaryKeys ([%s]), updatedColumns ([%s])",
					strings.Join(pk, ", "), strings.Join(columns, ", "))
			}
		}
	}
	if e := s.engine(); !batchEngine(e) {
		return sql.Errorf(sql.UnsupportedOperation, "Merge engine %s can not support batch update. Support batch update merge engines are: [%s].",
			e, strings.Join(batchEngines, ", "))
	}
	k := sql.UpdateAfter
	s.rowKind = &k
	return nil
}

// Commit commits the writers' committables of checkpoint N as one Paimon
// snapshot (idempotent per checkpoint, see table.Sink).
func (s *Sink) Commit(ctx context.Context, checkpointID int64, committables [][]byte) error {
	rt, err := s.runtime()
	if err != nil {
		return err
	}
	return rt.Commit(ctx, checkpointID, committables)
}

func (s *Sink) runtime() (*table.Sink, error) {
	s.once.Do(func() {
		path, err := s.cfg.path()
		if err != nil {
			s.openErr = err
			return
		}
		t, err := table.OpenForSQL(tableFS(path), path, s.cfg.stored, s.cfg.schema, s.cfg.partition, s.cfg.comment, s.cfg.raw, s.cfg.opts.Bool("auto-create"))
		if err != nil {
			s.openErr = err
			return
		}
		s.rt, s.openErr = table.NewSink(t, table.SinkOptions{Streaming: s.cfg.streaming,
			Overwrite: s.overwrite, OverwritePartition: s.static})
	})
	if s.openErr != nil {
		return nil, fmt.Errorf("write paimon table %s: %w", s.cfg.id, s.openErr)
	}
	return s.rt, nil
}

// openForRead opens the table at path for a read, with the schema read
// while planning (so a statement reads it once). A table that was not there
// then is created from its declaration when 'auto-create' is true, as
// Paimon's FlinkTableFactory does; otherwise opening reports it missing.
func (c *tableConfig) openForRead(path string) (*table.Table, error) {
	if c.stored == nil && c.opts.Bool("auto-create") {
		return table.OpenForSQL(tableFS(path), path, nil, c.schema, c.partition, c.comment, c.raw, true)
	}
	return table.OpenSchema(tableFS(path), path, c.stored, c.dynamic())
}

// path is the table's directory, from the 'path' option (a file: URI or a
// local path).
func (c *tableConfig) path() (string, error) {
	p := strings.TrimSpace(c.raw["path"])
	if p == "" {
		return "", ErrNoPath
	}
	return strings.TrimPrefix(p, "file://"), nil
}

// dynamic are the options that override the stored schema options: the
// table options and hints, without the connector's own keys.
func (c *tableConfig) dynamic() map[string]string { return dynamicOf(c.raw) }

// FlinkConnector is Paimon's Flink connector for Flink 1.20 (Paimon 1.4),
// which keeps options it does not know as table options.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{Jars: []string{"org.apache.paimon:paimon-flink-1.20:1.4.0"}}
}
