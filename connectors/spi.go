// Package connectors is sqlrun's connector SPI: a registry of factories by
// their 'connector' identifier, the options each declares, option
// validation with Flink's wording, and the interfaces a table source or sink
// implements for the planner (its changelog mode, boundedness) and for the
// runtime (readers and writers per subtask, checkpoint hooks).
//
// The planning half mirrors Flink's DynamicTableSource/DynamicTableSink; the
// runtime half mirrors Flink's SourceReader/SinkWriter/Committer, reduced to
// what a single process needs. Connector packages register their factories
// in init(); connectors/all imports every built-in one.
package connectors

import (
	"context"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// ObjectIdentifier is a fully qualified table name.
type ObjectIdentifier struct {
	Catalog, Database, Name string
}

// String prints catalog.database.name, as Flink's asSummaryString does.
func (o ObjectIdentifier) String() string { return o.Catalog + "." + o.Database + "." + o.Name }

// Context is what a factory gets to create a source or sink for one table
// reference in one query.
type Context struct {
	Table         ObjectIdentifier
	Schema        sql.Schema
	PartitionKeys []string
	// Options are the table's options with any OPTIONS hint merged over them.
	Options map[string]string
	// Config is the session configuration (SET keys), e.g.
	// execution.runtime-mode, parallelism.default.
	Config map[string]string
	// Streaming is true in streaming runtime mode.
	Streaming bool
	// CheckpointInterval is execution.checkpointing.interval, read typed
	// by the planner from the session's option spec (config); 0 when
	// checkpointing is off.
	CheckpointInterval time.Duration
	// Temporary is true for CREATE TEMPORARY TABLE tables.
	Temporary bool
	// Comment is the table's declared COMMENT (CatalogBaseTable.getComment),
	// "" when it has none.
	Comment string
	// Stored is what the table's catalog read to describe it
	// (catalog.Table.Stored: a Paimon catalog's table schema), or nil; a
	// connector that recognises it need not read the table's metadata
	// again.
	Stored any
}

// Factory creates sources and/or sinks for one connector identifier.
type Factory interface {
	// Identifier is the value of the 'connector' option, e.g. "jdbc".
	Identifier() string
	// Options declares every option the connector understands ('connector'
	// itself excluded); validation rejects the rest.
	Options() []Option
}

// SourceFactory is a Factory that can read tables.
type SourceFactory interface {
	Factory
	CreateSource(ctx *Context) (TableSource, error)
}

// SinkFactory is a Factory that can write tables.
type SinkFactory interface {
	Factory
	CreateSink(ctx *Context) (TableSink, error)
}

// TableSource describes a source to the planner and creates its readers.
type TableSource interface {
	// ChangelogMode is the set of RowKinds the source produces.
	ChangelogMode() sql.ChangelogMode
	// Bounded reports whether the source ends by itself.
	Bounded() bool
	// NewReader creates the reader for one subtask of parallelism readers.
	NewReader(subtask, parallelism int) (SourceReader, error)
}

// SupportsParallelism is implemented by sources that pick their own
// parallelism (e.g. 'scan.parallelism'); 0 means the session default.
type SupportsParallelism interface {
	Parallelism() int
}

// SupportsProjectionPushDown lets the planner prune columns at the source.
// After ApplyProjection the source produces rows with only those fields,
// in the given order.
type SupportsProjectionPushDown interface {
	ApplyProjection(fields []int)
}

// SupportsLocalAggregate is implemented by bounded sources that can take a
// batch aggregate's local phase (Flink's LocalHashAggregate, which runs
// chained to the source): the planner-visible plan is unchanged, but the
// runtime reads the source's partial aggregates instead of its rows and
// merges them. LocalAggregate returns a source (a copy; the receiver is not
// changed) whose readers yield rows of one partial value per call, or false
// when the source cannot: in each row COUNT(*) and COUNT(x) are a BIGINT
// count, MIN, MAX and SUM the extreme or sum over the rows the partial
// covers (null when none), typed as the argument, a LocalGroupKey the key
// value the partial covers. Without a key every reader yields at least one
// row (the partial of no rows), so that merging COUNT by SUM is defined
// over an empty input. The partials cover only the rows that pass every
// conjunct of filter (the WHERE between the scan and the aggregate; none:
// every row). Only insert-only batch reads qualify.
type SupportsLocalAggregate interface {
	LocalAggregate(calls []LocalAggCall, filter []LocalPredicate) (TableSource, bool)
}

// SupportsLocalFilter is implemented by bounded sources that can apply a
// batch query's WHERE themselves (the Calc between the scan and the rest
// of the plan, when every conjunct is a LocalPredicate): LocalFilter
// returns a source (a copy) whose readers yield exactly the rows that pass
// every conjunct of filter, or false when the source cannot. The planner
// keeps the Calc for its projection; the condition is not evaluated
// again. Only insert-only batch reads qualify.
type SupportsLocalFilter interface {
	LocalFilter(filter []LocalPredicate) (TableSource, bool)
}

// LocalPredicate is one conjunct of a local aggregate's filter over field
// Field of the source's produced row (an integer, DATE, TIME or VARCHAR
// column): IS NULL when IsNull, else TRUE when the value lies in one of
// Ranges (sorted, disjoint, as a SEARCH's Sarg), never for a null value.
// With Or it is instead TRUE when any of those (each with no Or of its
// own, on any fields) is: an OR across columns.
type LocalPredicate struct {
	Field  int
	IsNull bool
	Ranges []LocalRange
	Or     []LocalPredicate
}

// LocalRange is one range of a LocalPredicate.
type LocalRange struct{ Lo, Hi LocalBound }

// LocalBound is one end of a LocalRange: unbounded, or Value (int64 for
// integer columns, string for VARCHAR) included when Closed.
type LocalBound struct {
	Value     any
	Unbounded bool
	Closed    bool
}

// LocalAggKind is the function of a LocalAggCall.
type LocalAggKind uint8

// The functions a local aggregate pushed into a source computes.
const (
	LocalCountStar LocalAggKind = iota
	LocalCount
	LocalMin
	LocalMax
	LocalSum // integer arguments only
	// LocalGroupKey is a grouping key: the partial row carries field Arg's
	// value, and the other calls are computed per distinct combination
	// of the keys' values. With a key, no partial of no rows is yielded.
	LocalGroupKey
	// LocalSumBigInt is LocalSum typed BIGINT for any integer argument:
	// an integer AVG's partial sum (Flink's Partial_AVG keeps its sum in
	// a long), beside a LocalCount of the same argument.
	LocalSumBigInt
)

// LocalAggCall is one aggregate over field Arg of the source's produced row.
// With Concat (LocalCount, LocalMin and LocalMax only) its argument is
// instead CONCAT of those fields (VARCHAR columns): their values joined,
// NULL when any is NULL, and Arg is unused.
type LocalAggCall struct {
	Kind   LocalAggKind
	Arg    int
	Concat []int
}

// SupportsExplainDigest adds digests to the TableSourceScan line of
// EXPLAIN, e.g. "project=[id, amount]" or "filter=[>(id, 10)]".
type SupportsExplainDigest interface {
	ExplainDigests() []string
}

// TableSink describes a sink to the planner and creates its writers.
type TableSink interface {
	// ChangelogMode returns the kinds the sink accepts given the kinds the
	// query produces, as Flink's DynamicTableSink.getChangelogMode does. An
	// error rejects the query (e.g. JDBC without a primary key fed updates).
	ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error)
	// Parallelism is 'sink.parallelism', or 0 when not set.
	Parallelism() int
	// NewWriter creates the writer for one subtask.
	NewWriter(subtask, parallelism int) (SinkWriter, error)
}

// Committer is implemented by transactional sinks (Paimon). After checkpoint
// N completes, the runtime calls Commit once with the committables every
// writer returned from Snapshot(N). Commit must be idempotent per
// checkpointID: after recovery the runtime replays the committables stored
// in the restored checkpoint.
type Committer interface {
	Commit(ctx context.Context, checkpointID int64, committables [][]byte) error
}

// SourceReader reads one subtask's share of a source. The runtime calls it
// from a single goroutine; between calls it handles checkpoints, so Next
// must return promptly (within ~50 ms) when no data is available.
type SourceReader interface {
	// Open prepares the reader; state is what Snapshot returned in the
	// checkpoint being restored, or nil for a fresh start.
	Open(ctx context.Context, state []byte) error
	// Next returns the next batch. (nil, nil) means nothing right now;
	// io.EOF means a bounded input is exhausted.
	Next(ctx context.Context) ([]sql.Row, error)
	// Snapshot returns the reader's position as of the rows returned so far.
	Snapshot(checkpointID int64) ([]byte, error)
	// NotifyCheckpointComplete tells the reader checkpoint N is durable
	// (Paimon saves consumer-id progress here).
	NotifyCheckpointComplete(ctx context.Context, checkpointID int64) error
	Close() error
}

// SinkWriter writes one subtask's share of a sink.
type SinkWriter interface {
	// Open prepares the writer; state is its last Snapshot state or nil.
	Open(ctx context.Context, state []byte) error
	// Write applies a batch of rows (any RowKind the sink accepted).
	Write(ctx context.Context, rows []sql.Row) error
	// Snapshot is called when checkpoint barrier N arrives: flush buffers
	// (JDBC) or finish files (Paimon). It returns state to store and, for
	// Committer sinks, a committable to pass to Commit once N completes.
	Snapshot(ctx context.Context, checkpointID int64) (state, committable []byte, err error)
	// NotifyCheckpointComplete tells the writer checkpoint N is durable.
	NotifyCheckpointComplete(ctx context.Context, checkpointID int64) error
	// Close flushes what remains (end of input or graceful stop) and
	// releases resources. A graceful stop takes a final checkpoint first.
	Close(ctx context.Context) error
}

// WatermarkWriter is implemented by sink writers that record the job's
// event time (Paimon's committer writes the watermark it has seen into each
// snapshot, CommitterOperator.processWatermark). The runtime calls
// SinkWatermark when the writer's input watermark (the minimum over its
// input channels, as Flink's StatusWatermarkValve gives the sink operator;
// Long.MAX_VALUE at the end of a bounded input) advances or its watermark
// status changes (idle: every input channel is idle).
type WatermarkWriter interface {
	SinkWatermark(wm int64, idle bool) error
}

// BackgroundFailer is implemented by writers that also write from a
// goroutine of their own (the JDBC sink's sink.buffer-flush.interval
// timer). Failed delivers the error of a background write that failed for
// good (after its retries); the runtime fails the job with it at once, as
// it fails it for an error from Write, instead of leaving it to the next
// row or checkpoint — which a quiet stream without checkpointing may never
// bring.
type BackgroundFailer interface {
	Failed() <-chan error
}
