// Package config is the session's option spec: every SET key sqlrun reads,
// declared once with Flink's name, type and default. The session checks SET
// values against Options; the planner, the compiler and the runtime read
// their keys from the session's configuration map by these names.
package config

import "github.com/sqlrun/sqlrun/connectors"

// The keys, with Flink's names.
const (
	KeyRuntimeMode          = "execution.runtime-mode"
	KeyParallelism          = "parallelism.default"
	KeyCheckpointInterval   = "execution.checkpointing.interval"
	KeyNumRetained          = "execution.checkpointing.num-retained"
	KeyCheckpointDir        = "state.checkpoints.dir"
	KeySavepointDir         = "state.savepoints.dir"
	KeySavepointPath        = "execution.savepoint.path"
	KeyIgnoreUnclaimed      = "execution.savepoint.ignore-unclaimed-state"
	KeyDMLSync              = "table.dml-sync"
	KeyResultMode           = "sql-client.execution.result-mode"
	KeyPrintTimeCost        = "sql-client.display.print-time-cost"
	KeyMaxColumnWidth       = "table.display.max-column-width"
	KeyUpsertMaterialize    = "table.exec.sink.upsert-materialize"
	KeyCDCDuplicate         = "table.exec.source.cdc-events-duplicate"
	KeyPredicatePushdown    = "table.optimizer.source.predicate-pushdown-enabled"
	KeyNotNullEnforcer      = "table.exec.sink.not-null-enforcer"
	KeyPipelineName         = "pipeline.name"
	KeyRestartStrategy      = "restart-strategy.type"
	KeyRestartStrategyOld   = "restart-strategy"
	KeyRestartAttempts      = "restart-strategy.fixed-delay.attempts"
	KeyRestartDelay         = "restart-strategy.fixed-delay.delay"
	KeyPromPort             = "metrics.reporter.prom.port"
	KeyLocalTimeZone        = "table.local-time-zone"
	KeyMaxRowsTableMode     = "sql-client.execution.max-table-result.rows"
	KeyExecutionCheckpointM = "execution.checkpointing.mode"
	KeyStateTTL             = "table.exec.state.ttl"
	KeyStateBackend         = "state.backend.type"
	KeyStateBackendOld      = "state.backend"
	KeyStateLocalDir        = "state.backend.rocksdb.localdir"
	KeyProcessMemory        = "taskmanager.memory.process.size"
	KeyCheckpointTimeout    = "execution.checkpointing.timeout"
	KeyWatermarkInterval    = "pipeline.auto-watermark-interval"
	KeyIdleTimeout          = "table.exec.source.idle-timeout"
	KeyAggPhaseStrategy     = "table.optimizer.agg-phase-strategy"
	KeyNonDeterministicUpd  = "table.optimizer.non-deterministic-update.strategy"
	KeyDisabledOperators    = "table.exec.disabled-operators"
	KeyBroadcastThreshold   = "table.optimizer.join.broadcast-threshold"
	KeyJoinReorder          = "table.optimizer.join-reorder-enabled"
	KeyMultipleInput        = "table.optimizer.multiple-input-enabled"
	KeyDistinctAggSplit     = "table.optimizer.distinct-agg.split.enabled"
	KeyDistinctAggBuckets   = "table.optimizer.distinct-agg.split.bucket-num"
	KeyIncrementalAgg       = "table.optimizer.incremental-agg-enabled"
	KeyReuseSubPlan         = "table.optimizer.reuse-sub-plan-enabled"
	KeyReuseSource          = "table.optimizer.reuse-source-enabled"
	KeyMiniBatchEnabled     = "table.exec.mini-batch.enabled"
	KeyMiniBatchLatency     = "table.exec.mini-batch.allow-latency"
	KeyMiniBatchSize        = "table.exec.mini-batch.size"
	// WindowEmitStrategy's experimental options (legacy group windows).
	KeyEmitEarlyFireEnabled = "table.exec.emit.early-fire.enabled"
	KeyEmitEarlyFireDelay   = "table.exec.emit.early-fire.delay"
	KeyEmitLateFireEnabled  = "table.exec.emit.late-fire.enabled"
	KeyEmitLateFireDelay    = "table.exec.emit.late-fire.delay"
	KeyEmitAllowLateness    = "table.exec.emit.allow-lateness"
)

// KeyStateCacheSize is sqlrun's own (Flink's RocksDB backend keeps no
// decoded values in front of RocksDB): the byte budget of each keyed
// state table's write-back cache on the rocksdb backend.
const KeyStateCacheSize = "sqlrun.state.cache-size"

// Options are the keys sqlrun knows, with Flink's names, types and
// defaults. SET accepts any key, as Flink does (connectors and the
// runtime may read keys not listed here), but a known key's value must
// parse as its type. They also feed the shell's tab completion.
var Options = []connectors.Option{
	{Key: KeyRuntimeMode, Type: connectors.Enum, Default: "streaming", Enum: []string{"streaming", "batch", "automatic"},
		Description: "Runtime execution mode of DataStream programs."},
	{Key: KeyParallelism, Type: connectors.Int, Default: "1", Description: "Default parallelism of operators."},
	{Key: KeyCheckpointInterval, Type: connectors.Duration,
		Description: "Interval between checkpoints; checkpointing is off when unset."},
	{Key: KeyExecutionCheckpointM, Type: connectors.Enum, Default: "EXACTLY_ONCE", Enum: []string{"EXACTLY_ONCE", "AT_LEAST_ONCE"},
		Description: "Checkpointing mode (sqlrun always aligns barriers)."},
	{Key: KeyCheckpointTimeout, Type: connectors.Duration, Default: "10 min",
		Description: "The maximum time that a checkpoint may take before being discarded (the job then fails: sqlrun tolerates no failed checkpoint)."},
	{Key: KeyNumRetained, Type: connectors.Int, Default: "1", Description: "Number of completed checkpoints to retain."},
	{Key: KeyCheckpointDir, Type: connectors.String,
		Description: "Directory for checkpoints; default $XDG_DATA_HOME/sqlrun/checkpoints or ~/.local/share/sqlrun/checkpoints."},
	{Key: KeySavepointDir, Type: connectors.String, Description: "Default directory for savepoints."},
	{Key: KeySavepointPath, Type: connectors.String, Description: "Checkpoint or savepoint the next job restores from."},
	{Key: KeyIgnoreUnclaimed, Type: connectors.Bool, Default: "false",
		Description: "Allow restoring a savepoint with state no operator claims."},
	{Key: KeyDMLSync, Type: connectors.Bool, Default: "false", Description: "Wait for INSERT jobs to finish."},
	{Key: KeyResultMode, Type: connectors.Enum, Default: "table", Enum: []string{"table", "changelog", "tableau"},
		Description: "How the shell shows query results."},
	{Key: KeyPrintTimeCost, Type: connectors.Bool, Default: "true", Description: "Print the query time in tableau mode."},
	{Key: KeyMaxColumnWidth, Type: connectors.Int, Default: "30",
		Description: "Maximum width of a column in tableau results; longer values are cut with '...'."},
	{Key: KeyMaxRowsTableMode, Type: connectors.Int, Default: "1000000",
		Description: "Rows the table result mode keeps."},
	{Key: KeyUpsertMaterialize, Type: connectors.Enum, Default: "AUTO", Enum: []string{"NONE", "AUTO", "FORCE"},
		Description: "Add a SinkUpsertMaterializer in front of upsert sinks."},
	{Key: KeyCDCDuplicate, Type: connectors.Bool, Default: "false",
		Description: "CDC sources may produce duplicate events (adds ChangelogNormalize)."},
	{Key: KeyPredicatePushdown, Type: connectors.Bool, Default: "true",
		Description: "When it is true, the optimizer will push down predicates into the FilterableTableSource. Default value is true."},
	{Key: KeyStateTTL, Type: connectors.Duration, Default: "0 ms",
		Description: "Keyed state not written for this long expires and is never read again (0: kept forever); when set, ChangelogNormalize also forwards duplicates, as Flink does."},
	{Key: KeyStateBackend, Type: connectors.Enum, Default: "hashmap", Enum: []string{"hashmap", "rocksdb"}, FallbackKeys: []string{KeyStateBackendOld},
		Description: "Where keyed state lives: hashmap (Go maps in memory) or rocksdb (sqlrun's own LSM on disk, pebble; checkpoints hard-link its files)."},
	{Key: KeyStateLocalDir, Type: connectors.String,
		Description: "Working directory of the rocksdb state backend; default a directory beside the job's checkpoints."},
	{Key: KeyStateCacheSize, Type: connectors.MemorySize, Default: "4 mb",
		Description: "sqlrun only: bytes of decoded values each keyed state table of the rocksdb backend keeps in front of its LSM (a write-back cache; an entry counts its key, its encoded value and 96 bytes)."},
	{Key: KeyProcessMemory, Type: connectors.MemorySize,
		Description: "Memory the sqlrun process aims to stay under (a soft Go memory limit, e.g. 4g); default 3/4 of the machine's memory."},
	{Key: KeyNotNullEnforcer, Type: connectors.Enum, Default: "ERROR", Enum: []string{"ERROR", "DROP"},
		Description: "What to do with a NULL for a NOT NULL sink column."},
	{Key: KeyPipelineName, Type: connectors.String, Description: "Name of the next job (also its checkpoint directory)."},
	{Key: KeyRestartStrategy, Type: connectors.String, FallbackKeys: []string{KeyRestartStrategyOld},
		Description: "none or fixed-delay."},
	{Key: KeyRestartStrategyOld, Type: connectors.String, Description: "Deprecated name of restart-strategy.type."},
	{Key: KeyRestartAttempts, Type: connectors.Int, Default: "1", Description: "Restarts before a job fails."},
	{Key: KeyRestartDelay, Type: connectors.Duration, Default: "1 s", Description: "Delay between restarts."},
	{Key: KeyPromPort, Type: connectors.String, Description: "Port (or range) of the Prometheus metrics endpoint."},
	{Key: KeyWatermarkInterval, Type: connectors.Duration, Default: "200 ms",
		Description: "How often a WatermarkAssigner emits its watermark (0: every time it advances)."},
	{Key: KeyIdleTimeout, Type: connectors.Duration, Default: "0 ms",
		Description: "A source subtask that sees no row for this long is marked idle, so it does not hold back the watermark downstream (0: never)."},
	{Key: KeyEmitEarlyFireEnabled, Type: connectors.Bool, Default: "false",
		Description: "Specifies whether to enable early-fire emit.Early-fire is an emit strategy before watermark advanced to end of window (legacy group windows only)."},
	{Key: KeyEmitEarlyFireDelay, Type: connectors.Duration,
		Description: "The early firing delay in milli second, early fire is the emit strategy before watermark advanced to end of window. < 0 is illegal configuration. 0 means no delay (fire on every element). > 0 means the fire interval. "},
	{Key: KeyEmitLateFireEnabled, Type: connectors.Bool, Default: "false",
		Description: "Specifies whether to enable late-fire emit. Late-fire is an emit strategy after watermark advanced to end of window (legacy group windows only)."},
	{Key: KeyEmitLateFireDelay, Type: connectors.Duration,
		Description: "The late firing delay in milli second, late fire is the emit strategy after watermark advanced to end of window. < 0 is illegal configuration. 0 means no delay (fire on every element). > 0 means the fire interval."},
	{Key: KeyEmitAllowLateness, Type: connectors.Duration,
		Description: "Sets the time by which elements are allowed to be late. Elements that arrive behind the watermark by more than the specified time will be dropped. Note: use the value if it is set, else use 'minIdleStateRetentionTime' in table config.< 0 is illegal configuration. 0 means disable allow lateness. > 0 means allow-lateness."},
	{Key: KeyAggPhaseStrategy, Type: connectors.Enum, Default: "AUTO", Enum: []string{"AUTO", "ONE_PHASE", "TWO_PHASE"},
		Description: "Whether the planner splits aggregates into a local and a global phase (EXPLAIN of window aggregates, and of group aggregates with mini-batch; sqlrun runs them as one operator)."},
	{Key: KeyNonDeterministicUpd, Type: connectors.Enum, Default: "IGNORE", Enum: []string{"TRY_RESOLVE", "IGNORE"},
		Description: "When it is `TRY_RESOLVE`, the optimizer tries to resolve the correctness issue caused by 'Non-Deterministic Updates' (NDU) in a changelog pipeline. Changelog may contain kinds of message types: Insert (I), Delete (D), Update_Before (UB), Update_After (UA). There's no NDU problem in an insert only changelog pipeline. For updates, there are three main NDU problems: 1. Non-deterministic functions, include scalar, table, aggregate functions, both builtin and custom ones. 2. LookupJoin on an evolving source 3. Cdc-source carries metadata fields which are system columns, not belongs to the entity data itself. By default it is IGNORE. (sqlrun does not run the analysis: with `TRY_RESOLVE` it refuses a plan that calls a non-deterministic function over an updating input.)"},
	{Key: KeyDisabledOperators, Type: connectors.String,
		Description: "Mainly for testing. A comma-separated list of operator names, each name represents a kind of disabled operator. Operators that can be disabled include \"NestedLoopJoin\", \"ShuffleHashJoin\", \"BroadcastHashJoin\", \"SortMergeJoin\", \"HashAgg\", \"SortAgg\". By default no operator is disabled (sqlrun reads the join names)."},
	{Key: KeyBroadcastThreshold, Type: connectors.Long, Default: "1048576",
		Description: "Configures the maximum size in bytes for a table that will be broadcast to all worker nodes when performing a join. By setting this value to -1 to disable broadcasting."},
	{Key: KeyJoinReorder, Type: connectors.Bool, Default: "false",
		Description: "Enables join reorder in optimizer. Default is disabled (sqlrun keeps the written join order either way)."},
	{Key: KeyMultipleInput, Type: connectors.Bool, Default: "true",
		Description: "When it is true, the optimizer will merge the operators with pipelined shuffling into a multiple input operator to reduce shuffling and improve performance. Default value is true. (sqlrun prints the batch MultipleInput in EXPLAIN's Optimized Execution Plan where Flink's MultipleInputNodeCreationProcessor makes one, and runs its members as the separate operators they are: same rows.)"},
	{Key: KeyDistinctAggSplit, Type: connectors.Bool, Default: "false",
		Description: "Tells the optimizer whether to split distinct aggregation (e.g. COUNT(DISTINCT col), SUM(DISTINCT col)) into two levels. The first aggregation is shuffled by an additional key which is calculated using the hashcode of distinct_key and number of buckets. This optimization is very useful when there is data skew in distinct aggregation and gives the ability to scale-up the job. Default is false. (sqlrun splits regular GROUP BY aggregates and event-time TUMBLE/HOP/CUMULATE window aggregates.)"},
	{Key: KeyDistinctAggBuckets, Type: connectors.Int, Default: "1024",
		Description: "Configure the number of buckets when splitting distinct aggregation. The number is used in the first level aggregation to calculate a bucket key 'hash_code(distinct_key) % BUCKET_NUM' which is used as an additional group key after splitting."},
	{Key: KeyIncrementalAgg, Type: connectors.Bool, Default: "true",
		Description: "When both local aggregation and distinct aggregation splitting are enabled, a distinct aggregation will be optimized into four aggregations, i.e., local-agg1, global-agg1, local-agg2, and global-agg2. We can combine global-agg1 and local-agg2 into a single operator (we call it incremental agg because it receives incremental accumulators and outputs incremental results). In this way, we can reduce some state overhead and resources. Default is enabled. (sqlrun plans the IncrementalGroupAggregate and runs the final phase as one aggregate over the partial one: same rows.)"},
	{Key: KeyReuseSubPlan, Type: connectors.Bool, Default: "true",
		Description: "When it is true, the optimizer will try to find out duplicated sub-plans and reuse them. (sqlrun reuses inside a streaming statement with one sink: identical sub-plans print as Reused(reference_id=[n]) and run once, feeding every consumer; a statement set's and a batch plan's run once per consumer.)"},
	{Key: KeyReuseSource, Type: connectors.Bool, Default: "true",
		Description: "When it is true, the optimizer will try to find out duplicated table sources and reuse them. This works only when table.optimizer.reuse-sub-plan-enabled is true. (sqlrun merges the scans of one table that differ only in their projected fields into one scan of their union, as Flink's ScanReuser does; in a streaming statement with one sink that scan reads the table once for all of them.)"},
	{Key: KeyMiniBatchEnabled, Type: connectors.Bool, Default: "false",
		Description: "Specifies whether to enable MiniBatch optimization: MiniBatchAssigner above the sources and, with table.optimizer.agg-phase-strategy other than ONE_PHASE, LocalGroupAggregate / GlobalGroupAggregate and miniBatch=[true] joins in EXPLAIN (sqlrun runs each row as it arrives: same rows)."},
	{Key: KeyMiniBatchLatency, Type: connectors.Duration, Default: "0 ms",
		Description: "The maximum latency can be used for MiniBatch to buffer input records (the MiniBatchAssigner's interval). If table.exec.mini-batch.enabled is set true, its value must be greater than zero."},
	{Key: KeyMiniBatchSize, Type: connectors.Long, Default: "-1",
		Description: "The maximum number of input records can be buffered for MiniBatch. If table.exec.mini-batch.enabled is set true, its value must be positive."},
	{Key: KeyLocalTimeZone, Type: connectors.String, Default: "default", Description: "Session time zone, in which TIMESTAMP_LTZ values are shown, cast and windowed: a TZDB ID such as 'Asia/Shanghai', 'UTC' or 'GMT+08:00'; 'default' is the machine's zone."},
}
