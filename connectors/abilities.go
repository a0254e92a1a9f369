package connectors

import (
	"context"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// This file declares the abilities a planner or runtime asks of a
// connector beyond the TableSource/TableSink/Factory contracts: each is
// found by a type assertion on the source, sink or factory, as Flink's
// planner checks a DynamicTableSource for its Supports* interfaces. They
// are declared here, once, and each connector lists the ones it implements
// in a `var _ Interface = (*T)(nil)` block (go-mysql-server's memory
// tables do the same), so a renamed method fails to compile instead of
// silently dropping the ability.

// ProjectionPushDownToggle is implemented by sources whose projection
// push-down can be switched off, such as the values connector's
// 'enable-projection-push-down' option.
type ProjectionPushDownToggle interface {
	ProjectionPushDownEnabled() bool
}

// FilterPushDownSource is implemented by sources that take part in
// Flink's filter push-down (SupportsFilterPushDown) but accept no filter,
// as Flink's values test source without 'filterable-fields' does: the scan
// below a filter prints filter=[] and the Calc keeps the condition.
type FilterPushDownSource interface {
	FilterPushDown() bool
}

// LimitPushDownSource is implemented by sources that take part in Flink's
// limit push-down (SupportsLimitPushDown): the planner puts offset + fetch
// of a LIMIT without ORDER BY right above the scan into the scan's digest,
// limit=[n]. The Limit stays above it and the source still produces all
// its rows (SupportsLimitPushDown lets a source produce more than the
// limit): the scans of one statement may share a source object (a WITH
// query read twice), so no limit is set on it.
type LimitPushDownSource interface {
	LimitPushDown() bool
}

// FilterDigestSource is implemented by sources that accept every filter
// for their own pruning but still let the Calc evaluate it, as Paimon's
// streaming source does: the scan prints filter=[...] and the Calc keeps
// its condition.
type FilterDigestSource interface {
	AcceptsFilters() bool
}

// MetadataReader is implemented by sources that can read metadata
// (Flink's SupportsReadingMetadata): a projected scan prints metadata=[]
// after project=[...], as Flink's ReadingMetadataSpec does.
type MetadataReader interface {
	ReadsMetadata() bool
}

// NewSourceAPISource is implemented by sources whose Flink counterpart
// reads through the FLIP-27 Source API (a SourceProvider, or a
// DataStreamScanProvider over env.fromSource), as the filesystem, Paimon
// and mysql-cdc connectors do. Flink's batch planner chains such a source
// into a MultipleInput operator (MultipleInputNodeCreationProcessor's
// isChainableSource), so EXPLAIN keeps a join over it fused: the
// execution plan's MultipleInput differs, the rows do not.
type NewSourceAPISource interface {
	NewSourceAPI() bool
}

// OverwritableSink is implemented by sinks that support INSERT OVERWRITE
// (Flink's SupportsOverwrite): ApplyOverwrite switches the sink to
// overwriting the static partition given (all of it when empty), or fails
// as the connector does (Paimon refuses it in streaming mode).
type OverwritableSink interface {
	ApplyOverwrite(staticPartition map[string]string) error
}

// RowLevelFactory is implemented by factories whose sinks may take
// row-level DELETE and UPDATE (of the built-in ones, Paimon's): Flink asks
// the sink before it plans the scan, so a connector without it fails
// first. Whether a given table can is the sink's to say
// (RowLevelDeleter, RowLevelUpdater).
type RowLevelFactory interface {
	SinkFactory
	SupportsRowLevelModification()
}

// RowLevelDeleter is implemented by sinks that take Flink's row-level
// DELETE (SupportsRowLevelDelete in DELETED_ROWS mode, as Paimon's
// primary-key tables do): the planner feeds them the rows matching the
// WHERE clause and they write each as a delete. ApplyRowLevelDelete fails
// with the connector's message when the table cannot delete rows.
type RowLevelDeleter interface {
	ApplyRowLevelDelete() error
}

// RowLevelUpdater is implemented by sinks that take Flink's row-level
// UPDATE (SupportsRowLevelUpdate in UPDATED_ROWS mode): they receive the
// new values of the matching rows. columns are the SET targets.
type RowLevelUpdater interface {
	ApplyRowLevelUpdate(columns []string) error
}

// BucketRouter is implemented by sinks whose rows must reach the writer
// subtask that owns their bucket (Paimon: one merge tree and one
// compaction per bucket, so two writers of one bucket would corrupt it).
// Channel is the subtask of parallelism writers that owns r's bucket
// (Paimon's FlinkSinkBuilder partitions by its bucket ChannelComputer).
type BucketRouter interface {
	Channel(r sql.Row, parallelism int) (int, error)
}

// LookupSource is implemented by sources a lookup join can read by key
// (Flink's LookupTableSource): the dimension table of
// `JOIN dim FOR SYSTEM_TIME AS OF o.proc_time ON o.k = dim.id`. The
// planner refuses FOR SYSTEM_TIME AS OF a processing-time attribute on any
// other source, as Flink does.
type LookupSource interface {
	// NewLookuper opens a lookup by the table's physical fields keys (their
	// indexes in the table's physical columns), for one subtask of the
	// join. The caller closes it.
	NewLookuper(ctx context.Context, keys []int) (Lookuper, error)
}

// Lookuper finds the rows of a lookup source whose key fields equal key
// (the values in NewLookuper's order, never NULL: a NULL key matches
// nothing and is not asked). Rows hold the table's physical columns in
// schema order; the caller does not modify them. Lookup is called from the
// join's goroutine only, one key at a time (Flink's synchronous
// LookupFunction).
type Lookuper interface {
	Lookup(ctx context.Context, key []any) ([][]any, error)
	Close() error
}

// MaterializerRefuser is implemented by sinks that reconcile changes
// themselves and refuse a SinkUpsertMaterializer in front of them;
// RefuseMaterializer returns the error the job fails with (Paimon's
// FlinkSink: its merge engine does the materializer's work).
type MaterializerRefuser interface {
	RefuseMaterializer() error
}

// SystemTableFactory is implemented by factories whose tables have system
// tables, read under the base table's name with a suffix (Paimon's
// orders$snapshots). A catalog that stores such tables resolves them
// itself; this is how a table declared by 'path' in any catalog gets its.
type SystemTableFactory interface {
	Factory
	// SplitSystemTable splits a name into its base table and a known
	// system table; ok is false for other names.
	SplitSystemTable(name string) (base, sys string, ok bool)
	// SystemTableSchema is the schema of system table sys of the base
	// table declared with options (its 'path' says where it lives).
	SystemTableSchema(sys string, options map[string]string) (sql.Schema, error)
}

// Metric is one value a source reader or sink writer reports about itself
// (flushes, retries, latencies), beyond the runtime's own records and
// back-pressure counters. The runtime sums a vertex's subtasks (samples
// with the same Name and Labels), exports the sums in Prometheus' text
// format with the operator's labels, and shows the ones with a Short name
// in the job's status line.
type Metric struct {
	// Name is the Prometheus metric name; counters end in _total.
	Name string
	Help string
	// Labels are the sample's own labels, e.g. {"trigger", "interval"}.
	Labels [][2]string
	// Value is a counter's or gauge's value.
	Value float64
	// Bounds, when set, make the metric a histogram: Buckets[i] counts the
	// observations ≤ Bounds[i] (cumulative, as Prometheus' buckets are),
	// Count and Sum are over all observations.
	Bounds  []float64
	Buckets []uint64
	Count   uint64
	Sum     float64
	// Short, when set, names the metric in the status line: a counter
	// shows its value summed over labels, a histogram its mean.
	Short string
}

// ReportsMetrics is implemented by readers and writers with metrics of
// their own (the JDBC sink's flushes). Metrics is called from other
// goroutines than the one running the reader or writer, so it must only
// read what is safe to read concurrently (atomics, a locked copy).
type ReportsMetrics interface {
	Metrics() []Metric
}

// FlinkConnector is what a table of this connector needs on Apache Flink
// 1.20 (`sqlrun check --target flink-1.20`).
type FlinkConnector struct {
	// Jars are the Maven artifacts (group:artifact:version) to put in
	// Flink's lib/; none for connectors in Flink's distribution.
	Jars []string
	// RejectsUnknownOptions is true when Flink's factory fails on options
	// it does not declare (FactoryUtil's "Unsupported options found"), as
	// most do; Paimon keeps unknown keys as table options.
	RejectsUnknownOptions bool
	// Missing, when set, says why Flink has no such connector.
	Missing string
}

// FlinkPortable is implemented by factories: the connector's counterpart
// on Apache Flink 1.20.
type FlinkPortable interface {
	FlinkConnector() FlinkConnector
}

// MetadataKey is one metadata key a source can read and its type, an
// entry of Flink's SupportsReadingMetadata.listReadableMetadata.
type MetadataKey struct {
	Key  string
	Type sql.DataType
}

// MetadataSource is implemented by sources that read metadata columns
// (Flink's SupportsReadingMetadata). ReadableMetadata lists the keys in
// the connector's order (the order Flink's map iterates); after
// ApplyReadableMetadata the source produces its physical columns followed
// by the values of keys, in that order, before any projection (whose
// indexes then count the metadata fields after the physical ones).
type MetadataSource interface {
	ReadableMetadata() []MetadataKey
	ApplyReadableMetadata(keys []string)
	// SourceClass is the Java class Flink's messages name for the source.
	SourceClass() string
}

// MetadataSink is implemented by sinks that write metadata columns
// (Flink's SupportsWritingMetadata). WritableMetadata lists the keys in
// the connector's order (the order Flink's map iterates); after
// ApplyWritableMetadata the sink consumes its physical columns followed by
// the values of keys, in that order (Flink's consumed data type).
type MetadataSink interface {
	WritableMetadata() []MetadataKey
	ApplyWritableMetadata(keys []string)
	// SinkClass is the Java class Flink's messages name for the sink.
	SinkClass() string
}

// Orphan policies of OrphanCleanup (the sqlrun-only option
// 'sink.orphans-on-full-start').
const (
	OrphansKeep   = "keep"   // Flink's behaviour: never look
	OrphansReport = "report" // list them before the job starts
	OrphansDelete = "delete" // delete them before the job starts
)

// OrphanCleanup is implemented by keyed sinks that can be asked to deal
// with orphan rows when a job starts with a full read of its sources (seed
// 003's limit of a stateless `latest-full` re-sync: a row the target has
// and the source no longer has is never mentioned, so it stays).
// OrphansOnFullStart is one of OrphansKeep, OrphansReport, OrphansDelete.
type OrphanCleanup interface {
	OrphansOnFullStart() string
}

// PinnedStart is what FullStartPinner.PinFullStart answers.
type PinnedStart struct {
	// Resumes is set, saying from what, when the read continues saved
	// progress instead of starting with a full read (a Paimon consumer):
	// there is nothing to reconcile.
	Resumes string
	// Stream are OPTIONS that make the job's read start with a full read
	// of exactly the state a batch read with Batch reads; At names that
	// state in messages ("snapshot 7"). Empty is set when the table has
	// no state yet: a full read is empty, and Stream may be nil.
	Stream, Batch map[string]string
	At            string
	Empty         bool
}

// FullStartPinner is implemented by sources whose unbounded read begins
// with a full read of the table's current state (Paimon's latest-full).
// PinFullStart fixes that state, so that the keys a job will produce can
// be read in batch mode first; it fails, naming the scan mode, when the
// read does not start with a full read.
type FullStartPinner interface {
	PinFullStart() (PinnedStart, error)
}

// WatermarkPushDownSource is implemented by sources that generate the
// watermark of a table's WATERMARK FOR clause themselves (Flink's
// SupportsWatermarkPushDown): the planner's
// PushWatermarkIntoTableSourceScan rules then push the WatermarkAssigner
// into the scan, which prints watermark=[...]. WatermarkPushDown reports
// whether this table's source does (the values connector only with
// 'enable-watermark-push-down'); WatermarkEmit how its generator emits
// the watermark.
type WatermarkPushDownSource interface {
	WatermarkPushDown() bool
	WatermarkEmit() WatermarkEmit
}

// WatermarkEmit is when a source that generates its watermark emits it.
type WatermarkEmit uint8

const (
	// WatermarkPeriodic emits it as a WatermarkAssigner does right after
	// the reader: periodically (pipeline.auto-watermark-interval), at once
	// when it moved more than the interval, idle per
	// table.exec.source.idle-timeout.
	WatermarkPeriodic WatermarkEmit = iota
	// WatermarkBeforeRow computes each row's watermark and emits it, when
	// it advances, before the row, whatever the interval; never idle
	// (Flink's values test source, FromElementSourceFunctionWithWatermark).
	WatermarkBeforeRow
	// WatermarkAfterRow emits it, when it advances, right after each row
	// (a FLIP-27 source with an on-event emit strategy, such as Paimon's
	// default 'scan.watermark.emit.strategy'); never idle per
	// table.exec.source.idle-timeout (Paimon's OnEventWatermarkStrategy
	// calls the periodic emit of the planner's WatermarksWithIdleness
	// only right after a row, when it is not idle), only per the source's
	// own timeout (WatermarkStrategySource).
	WatermarkAfterRow
)

// WatermarkStrategySource is implemented by sources that wrap the
// watermark strategy pushed into them with options of their own, as
// Paimon's BaseDataTableSource does outside its emit strategy.
// WatermarkIdleTimeout is the idle timeout of the WatermarksWithIdleness
// it adds around each split's generator (Paimon's
// 'scan.watermark.idle-timeout'; 0: none), an error naming the option
// when it is not a positive duration. WatermarkAlignmentGroup is the
// watermark alignment group it sets ("" when none): sqlrun does not align
// watermarks, so a job that sets one is refused.
type WatermarkStrategySource interface {
	WatermarkIdleTimeout() (time.Duration, error)
	WatermarkAlignmentGroup() string
}

// SplitSource is implemented by sources whose readers read splits one
// after another and report them (SplitReader), as a FLIP-27 source's
// SourceReaderBase does; a watermark pushed into such a source is then
// generated per split, as Flink's SourceOperator does
// (ProgressiveTimestampsAndWatermarks: one generator per split output,
// combined by a WatermarkOutputMultiplexer as the minimum over the splits
// handed to the reader and not finished).
type SplitSource interface {
	ReadsSplits() bool
}

// SplitEventKind is what a SplitEvent reports.
type SplitEventKind uint8

const (
	// SplitAdded: the split was handed to the reader (SourceOperator's
	// AddSplitEvent creates its output then, so it holds the reader's
	// watermark back at Long.MIN_VALUE until it is read).
	SplitAdded SplitEventKind = iota
	// SplitRead: the rows from At on are the split's, until the next
	// SplitRead.
	SplitRead
	// SplitFinished: the split was read to its end (SourceReaderBase
	// releases its output, releaseOutputForSplit).
	SplitFinished
)

// SplitEvent is one event of a SplitReader's splits, placed before row At
// of the batch Next returned (At may equal the batch's length).
type SplitEvent struct {
	At    int
	Kind  SplitEventKind
	Split string
}

// SplitReader is implemented by the readers of a SplitSource.
// SplitEvents returns, and forgets, the events of the rows the last Next
// returned, in order; events may come with no rows. After Open with a
// restored state, the first events add again the splits the reader holds
// and has not finished (Flink's SourceOperator restores its reader's
// splits, not their watermarks).
type SplitReader interface {
	SplitEvents() []SplitEvent
}
