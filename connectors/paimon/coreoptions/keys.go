// Package coreoptions is Paimon's CoreOptions for sqlrun: the option keys
// sqlrun knows with Paimon 1.4's names and defaults (keys.go), and Options,
// the typed value parsed once per table from its option map (the schema's
// options overlaid with the SQL table's WITH options and hints). The table
// layer parses it when it opens a table and hands it to the merge tree and
// the stream reader, so no layer reads the raw map again.
package coreoptions

import (
	"github.com/sqlrun/sqlrun/connectors"
)

// Option keys sqlrun reads itself. They are Paimon 1.4's CoreOptions and
// FlinkConnectorOptions names, so a table created by Paimon's Java client
// behaves the same here.
const (
	OptBucket                  = "bucket"
	OptBucketKey               = "bucket-key"
	OptChangelogProducer       = "changelog-producer"
	OptMergeEngine             = "merge-engine"
	OptSequenceField           = "sequence.field"
	OptScanMode                = "scan.mode"
	OptScanSnapshotID          = "scan.snapshot-id"
	OptScanTimestampMillis     = "scan.timestamp-millis"
	OptScanTimestamp           = "scan.timestamp"
	OptScanTagName             = "scan.tag-name"
	OptScanWatermark           = "scan.watermark"
	OptScanVersion             = "scan.version"
	OptScanBounded             = "scan.bounded"
	OptScanRemoveNormalize     = "scan.remove-normalize"
	OptConsumerID              = "consumer-id"
	OptConsumerExpirationTime  = "consumer.expiration-time"
	OptConsumerMode            = "consumer.mode"
	OptConsumerIgnoreProgress  = "consumer.ignore-progress"
	OptDiscoveryInterval       = "continuous.discovery-interval"
	OptStreamingReadOverwrite  = "streaming-read-overwrite"
	OptIncrementalBetween      = "incremental-between"
	OptWriteOnly               = "write-only"
	OptSinkParallelism         = "sink.parallelism"
	OptScanParallelism         = "scan.parallelism"
	OptIgnoreDelete            = "ignore-delete"
	OptIgnoreUpdateBefore      = "ignore-update-before"
	OptRowDeduplicate          = "changelog-producer.row-deduplicate"
	OptPartialUpdateAggPrefix  = "fields."
	OptFileFormat              = "file.format"
	OptFileCompression         = "file.compression"
	OptWriteBufferSize         = "write-buffer-size"
	OptTargetFileSize          = "target-file-size"
	OptFullCompactionDeltaCmts = "full-compaction.delta-commits"
	OptDeletionVectors         = "deletion-vectors.enabled"
	OptDeletionVectorsBitmap64 = "deletion-vectors.bitmap64"
	// OptStringEncoding is sqlrun's own option selecting the Parquet
	// encoding of string columns (see format.WriterOptions.StringEncoding).
	OptStringEncoding = "sqlrun.parquet.string-encoding"
)

// Changelog producers (CoreOptions.ChangelogProducer).
const (
	ProducerNone           = "none"
	ProducerInput          = "input"
	ProducerLookup         = "lookup"
	ProducerFullCompaction = "full-compaction"
)

// Merge engines (CoreOptions.MergeEngine).
const (
	EngineDeduplicate   = "deduplicate"
	EnginePartialUpdate = "partial-update"
	EngineAggregation   = "aggregation"
	EngineFirstRow      = "first-row"
)

// Startup modes (CoreOptions.StartupMode), as 'scan.mode' spells them.
const (
	ScanDefault          = "default"
	ScanLatestFull       = "latest-full"
	ScanFull             = "full" // deprecated alias of latest-full
	ScanLatest           = "latest"
	ScanCompactedFull    = "compacted-full"
	ScanFromTimestamp    = "from-timestamp"
	ScanFromFileCreation = "from-file-creation-time"
	ScanFromCreation     = "from-creation-timestamp"
	ScanFromSnapshot     = "from-snapshot"
	ScanFromSnapshotFull = "from-snapshot-full"
	ScanIncremental      = "incremental"
)

func opt(key, def string, typ connectors.OptionType, desc string) Decl {
	return Decl{Option: connectors.Option{Key: key, Default: def, Type: typ, Description: desc}}
}

func enum(key, def string, values []string, desc string) Decl {
	return Decl{Option: connectors.Option{Key: key, Default: def, Type: connectors.Enum, Enum: values, Description: desc}}
}

func prefix(key, desc string) Decl {
	return Decl{Option: connectors.Option{Key: key, Type: connectors.String, Prefix: true, Description: desc}}
}

// tableOptions are the Paimon table options sqlrun declares: every key of
// Paimon 1.4.1's CoreOptions and FlinkConnectorOptions (the test pins the
// list: testdata/paimon-1.4.1-keys.txt) with Paimon's names and defaults
// and what sqlrun does with it (Support). Paimon accepts any other key too
// (it keeps unknown options in the schema), so this list drives typed
// access, value checks, refusals and documentation, not rejection of
// unknown keys.
var tableOptions = []Decl{
	// Layout and write path.
	opt(OptBucket, "-1", connectors.Int, "Bucket number for file store; -1 is dynamic bucket mode, -2 postpone."),
	opt(OptBucketKey, "", connectors.String, "Specify the paimon distribution policy. Data is assigned to each bucket according to the hash value of bucket-key."),
	opt("path", "", connectors.String, "The file path of this table in the filesystem."),
	enum(OptFileFormat, "parquet", []string{"orc", "parquet", "avro", "csv", "json"}, "Specify the message format of data files."),
	opt(OptFileCompression, "zstd", connectors.String, "Default file compression."),
	opt("file.compression.zstd-level", "1", connectors.Int, "Default file compression zstd level."),
	opt("file.block-size", "", connectors.MemorySize, "File block size of format.").noEffect("the row-group size of Paimon's Parquet writer; sqlrun's writer chooses its own row groups, and the rows and per-file statistics are the same."),
	enum("manifest.format", "avro", []string{"avro", "parquet", "orc"}, "Specify the message format of manifest files."),
	opt("manifest.compression", "zstd", connectors.String, "Default file compression for manifest."),
	opt("manifest.target-file-size", "8 mb", connectors.MemorySize, "Suggested file size of a manifest file."),
	opt("manifest.merge-min-count", "30", connectors.Int, "To avoid frequent manifest merges, this parameter specifies the minimum number of ManifestFileMeta to merge."),
	opt("manifest.full-compaction-threshold-size", "16 mb", connectors.MemorySize, "The size threshold for triggering full compaction of manifest.").noEffect("manifest layout: sqlrun merges manifests by 'manifest.merge-min-count' and 'manifest.target-file-size', and readers see the same entries."),
	opt(OptTargetFileSize, "", connectors.MemorySize, "Target size of a file: 128 mb for primary key tables, 256 mb for append tables."),
	opt(OptWriteBufferSize, "256 mb", connectors.MemorySize, "Amount of data to build up in memory before converting to a sorted on-disk file."),
	opt("write-buffer-spillable", "true", connectors.Bool, "Whether the write buffer can be spillable."),
	opt("write-buffer-spill.max-disk-size", "", connectors.MemorySize, "The max disk to use for write buffer spill. This only work when the write buffer spill is enabled"),
	opt("spill-compression", "zstd", connectors.String, "Compression for spill (sqlrun: zstd or none)."),
	opt("spill-compression.zstd-level", "1", connectors.Int, "Default spill compression zstd level."),
	opt("page-size", "64 kb", connectors.MemorySize, "Memory page size.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("sort-spill-threshold", "", connectors.Int, "If the maximum number of sort readers exceeds this value, a spill will be attempted."),
	opt("local-sort.max-num-file-handles", "128", connectors.Int, "The maximal fan-in for external merge sort.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt(OptWriteOnly, "false", connectors.Bool, "If set to true, compactions and snapshot expiration will be skipped.").fallback("write.compaction-skip"),
	opt(OptSinkParallelism, "", connectors.Int, "Defines a custom parallelism for the sink."),
	opt("sink.use-managed-memory-allocator", "false", connectors.Bool, "If true, flink sink will use managed memory for merge tree.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt(OptIgnoreDelete, "false", connectors.Bool, "Whether to ignore delete records.").fallback("first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"),
	opt(OptIgnoreUpdateBefore, "false", connectors.Bool, "Whether to ignore update-before records."),
	opt("commit.max-retries", "10", connectors.Int, "Maximum number of retries when commit failed."),
	opt("commit.force-compact", "false", connectors.Bool, "Whether to force a compaction before commit."),
	opt("dynamic-bucket.target-row-num", "2000000", connectors.Long, "If the bucket is -1, for primary key table, is dynamic bucket mode, this option controls the target row number for one bucket."),
	opt("dynamic-bucket.initial-buckets", "", connectors.Int, "Initial buckets for a partition in assigner operator for dynamic bucket mode.").noEffect("sqlrun runs one bucket assigner, which assigns as Paimon's single assigner does."),
	opt("dynamic-bucket.max-buckets", "-1", connectors.Int, "Max buckets for a partition in dynamic bucket mode, It should either be equal to -1 (unlimited), or it must be greater than 0 (fixed upper bound)."),
	opt("postpone.batch-write-fixed-bucket", "true", connectors.Bool, "Whether to write the data into fixed bucket for batch writing a postpone bucket table."),
	opt("postpone.batch-write-fixed-bucket.max-parallelism", "2048", connectors.Int, "The number of partitions for global index."),
	opt("postpone.default-bucket-num", "1", connectors.Int, "Bucket number for the partitions compacted for the first time in postpone bucket tables."),
	opt("dynamic-bucket.assigner-parallelism", "", connectors.Int, "Parallelism of assigner operator for dynamic bucket mode.").noEffect("sqlrun runs one bucket assigner, which assigns as Paimon's single assigner does."),
	opt("cross-partition-upsert.index-ttl", "", connectors.Duration, "The TTL in rocksdb index for cross partition upsert (primary keys not contain all partition fields), this can avoid maintaining too many indexes and lead to worse and worse performance, but please note that this may also cause data duplication. (sqlrun keeps the index in memory: an entry older than the TTL is gone at its next read.)"),
	opt("cross-partition-upsert.bootstrap-parallelism", "10", connectors.Int, "The parallelism for bootstrap in a single task for cross partition upsert.").noEffect("sqlrun reads the table's keys one split at a time; the index is the same."),
	opt(OptDeletionVectors, "false", connectors.Bool, "Whether to enable deletion vectors mode."),
	opt("row-tracking.enabled", "false", connectors.Bool, "Whether enable unique row id for append table."),
	opt("data-evolution.enabled", "false", connectors.Bool, "Whether enable data evolution for row tracking table."),
	opt("index-file-in-data-file-dir", "false", connectors.Bool, "Whether index file in data file directory."),
	opt("scan.fallback-branch", "", connectors.String, "When a batch job queries from a table, if a partition does not exist in the current branch, the reader will try to get this partition from this fallback branch (sqlrun refuses such a batch read when the branch exists)."),
	opt("scan.primary-branch", "", connectors.String, "When a batch job queries from a table, if a partition exists in the primary branch, the reader will read this partition from the primary branch (sqlrun refuses such a batch read when the branch exists)."),
	opt("chain-table.enabled", "false", connectors.Bool, "Specify chain table enable (sqlrun refuses batch reads of chain tables)."),
	opt("blob-as-descriptor", "false", connectors.Bool, "Read BLOB columns as serialized BlobDescriptor bytes instead of their data (sqlrun reads BLOB columns as their bytes and refuses 'true')."),
	opt("blob-descriptor-field", "", connectors.String, "Comma-separated BLOB field names stored as serialized BlobDescriptor bytes inline in normal data files (sqlrun refuses to read such fields).").fallback("blob.stored-descriptor-fields"),
	opt("blob-field", "", connectors.String, "Specifies column names that should be stored as blob type (sqlrun refuses it in CREATE TABLE: it does not write BLOB columns)."),
	opt(OptDeletionVectorsBitmap64, "false", connectors.Bool, "Enable 64 bit bitmap implementation. Note that only 64 bit bitmap implementation is compatible with Iceberg."),
	opt("data-file.thin-mode", "false", connectors.Bool, "Enable data file thin mode to avoid duplicate columns storage."),
	opt("metadata.stats-mode", "truncate(16)", connectors.String, "The mode of metadata stats collection."),
	opt("metadata.stats-dense-store", "true", connectors.Bool, "Whether to store statistic densely in metadata.").refuseWrite("Paimon then writes the statistics of every column, null ones too (sparse); sqlrun writes them densely (_VALUE_STATS_COLS).", "true"),

	// Merge semantics.
	enum(OptMergeEngine, EngineDeduplicate, []string{EngineDeduplicate, EnginePartialUpdate, EngineAggregation, EngineFirstRow}, "Specify the merge engine for table with primary key."),
	opt(OptSequenceField, "", connectors.String, "The field that generates the sequence number for primary key table."),
	enum("sequence.field.sort-order", "ascending", []string{"ascending", "descending"}, "Specify the order of sequence.field."),
	opt("partial-update.remove-record-on-delete", "false", connectors.Bool, "Whether to remove the whole row in partial-update engine when -D records are received."),
	opt("ignore-retract", "false", connectors.Bool, "Whether to ignore retract messages (aggregation engine)."),
	prefix(OptPartialUpdateAggPrefix, "Per-field options: fields.<f>.aggregate-function, fields.<f>.ignore-retract, fields.<f>.sequence-group, fields.default-aggregate-function."),
	prefix("orc.", "ORC format options, passed by Paimon to its ORC writer (orc.stripe.size, orc.timestamp-ltz.legacy.type, ...); sqlrun reads ORC data files and writes Parquet, so they are kept and have no effect on writes."),
	prefix("s3.", "S3 file system of a catalog whose 'warehouse' is s3://bucket/path, set in CREATE CATALOG ... WITH: s3.endpoint (host[:port] or http(s) URL), s3.access-key, s3.secret-key, s3.path.style.access, s3.region, s3.connection.ssl.enabled (Paimon's S3 FileIO; keys are shown as ******)."),

	// Changelog producers.
	enum(OptChangelogProducer, ProducerNone, []string{ProducerNone, ProducerInput, ProducerFullCompaction, ProducerLookup}, "Whether to double write to a changelog file."),
	opt(OptRowDeduplicate, "false", connectors.Bool, "Whether to generate -U, +U changelog for the same record."),
	opt("changelog-producer.row-deduplicate-ignore-fields", "", connectors.String, "Fields that are ignored for comparison while generating -U, +U changelog for the same record."),
	opt("changelog-producer.lookup-wait", "true", connectors.Bool, "Deprecated: use lookup-wait."),
	opt("lookup-wait", "true", connectors.Bool, "When need to lookup, commit will wait for compaction by lookup."),
	opt(OptFullCompactionDeltaCmts, "", connectors.Int, "Full compaction will be constantly triggered after delta commits."),
	opt("changelog.num-retained.min", "", connectors.Int, "The minimum number of completed changelog to retain.").refuseWrite("Paimon keeps changelog files longer than their snapshots (a decoupled changelog lifecycle: changelog/ files at snapshot expiration); sqlrun expires changelog with its snapshots.").when(decoupled),
	opt("changelog.num-retained.max", "", connectors.Int, "The maximum number of completed changelog to retain.").refuseWrite("Paimon keeps changelog files longer than their snapshots (a decoupled changelog lifecycle: changelog/ files at snapshot expiration); sqlrun expires changelog with its snapshots.").when(decoupled),
	opt("changelog.time-retained", "", connectors.Duration, "The maximum time of completed changelog to retain.").refuseWrite("Paimon keeps changelog files longer than their snapshots (a decoupled changelog lifecycle: changelog/ files at snapshot expiration); sqlrun expires changelog with its snapshots.").when(decoupled),

	// Compaction.
	opt("num-sorted-run.compaction-trigger", "5", connectors.Int, "The sorted run number to trigger compaction."),
	opt("num-sorted-run.stop-trigger", "", connectors.Int, "The number of sorted runs that trigger the stopping of writes; default compaction-trigger + 3."),
	opt("num-levels", "", connectors.Int, "Total level number; default compaction-trigger + 1."),
	opt("compaction.max-size-amplification-percent", "200", connectors.Int, "The size amplification is defined as the amount (in percentage) of additional storage needed to store a single byte of data in the merge tree."),
	opt("compaction.size-ratio", "1", connectors.Int, "Percentage flexibility while comparing sorted run size."),
	opt("compaction.min.file-num", "5", connectors.Int, "For file set [f_0,...,f_N], the minimum file number to trigger a compaction for append table.").noEffect("append-table compaction, which sqlrun does not run (docs/differences.md)."),
	opt("compaction.optimization-interval", "", connectors.Duration, "How often to perform an optimization compaction.").refuseWrite("Paimon runs a full compaction at this interval; sqlrun does not.", ""),
	opt("compaction.total-size-threshold", "", connectors.MemorySize, "When total size is smaller than this threshold, force a full compaction.").refuseWrite("Paimon runs a full compaction while the table is smaller than this; sqlrun does not.", ""),
	opt("compaction.force-up-level-0", "false", connectors.Bool, "If set to true, compaction strategy will always include all level-0 files in candidates.").refuseWrite("Paimon's compaction then always picks every level-0 file; sqlrun's picks them as the universal compaction strategy does without it.", "false"),

	// Lookup.
	opt("lookup.cache-max-memory-size", "256 mb", connectors.MemorySize, "Max memory size for lookup cache."),
	opt("lookup.cache-max-disk-size", "", connectors.MemorySize, "Max disk size for lookup cache."),
	opt("lookup.cache-file-retention", "1 h", connectors.Duration, "The cached files retention time for lookup.").noEffect("tuning of the local lookup files of Paimon's lookup join and lookup compaction; lookups return the same rows."),
	opt("lookup.hash-load-factor", "0.75", connectors.Double, "The index load factor for lookup.").noEffect("tuning of the local lookup files of Paimon's lookup join and lookup compaction; lookups return the same rows."),
	enum("lookup.local-file-type", "sort", []string{"sort", "hash"}, "The local file type for lookup."),
	enum("lookup.cache", "auto", []string{"auto", "full", "memory"}, "The cache mode of lookup join.").noEffect("the cache of Paimon's lookup join; it joins the same rows (sqlrun's lookup join keeps the table in memory, refreshed at 'continuous.discovery-interval')."),
	opt("lookup.async", "false", connectors.Bool, "Whether to enable async lookup join.").noEffect("whether Paimon's lookup join calls asynchronously; the joined rows are the same."),
	opt("lookup.async-thread-number", "16", connectors.Int, "The thread number for lookup async.").noEffect("whether Paimon's lookup join calls asynchronously; the joined rows are the same."),
	opt("lookup.refresh.async", "false", connectors.Bool, "Whether to refresh lookup table in an async thread.").noEffect("whether Paimon's lookup join refreshes in a thread of its own; it refreshes from the same snapshots."),

	// Scan.
	enum(OptScanMode, ScanDefault, []string{ScanDefault, ScanLatestFull, ScanFull, ScanLatest, ScanCompactedFull, ScanFromTimestamp, ScanFromCreation, ScanFromFileCreation, ScanFromSnapshot, ScanFromSnapshotFull, ScanIncremental}, "Specify the scanning behavior of the source.").fallback("log.scan"),
	opt(OptScanSnapshotID, "", connectors.Long, "Optional snapshot id used in case of \"from-snapshot\" or \"from-snapshot-full\" scan mode."),
	opt(OptScanTimestampMillis, "", connectors.Long, "Optional timestamp used in case of \"from-timestamp\" scan mode.").fallback("log.scan.timestamp-millis"),
	opt(OptScanTimestamp, "", connectors.String, "Optional timestamp used in case of \"from-timestamp\" scan mode, in 'yyyy-MM-dd HH:mm:ss' form."),
	opt(OptScanTagName, "", connectors.String, "Optional tag name used in case of \"from-snapshot\" scan mode."),
	opt(OptScanWatermark, "", connectors.Long, "Optional watermark used in case of \"from-snapshot\" scan mode."),
	opt(OptScanVersion, "", connectors.String, "Specify the time travel version string."),
	opt("scan.file-creation-time-millis", "", connectors.Long, "Used with from-file-creation-time scan mode.").refuseRead("Paimon then reads only the data files created after this time (scan mode from-file-creation-time); sqlrun does not filter files by creation time."),
	opt(OptScanBounded, "", connectors.Bool, "Bounded mode for Paimon consumer; by default it is bounded in batch mode and unbounded in streaming mode."),
	opt(OptScanRemoveNormalize, "false", connectors.Bool, "Whether to force the removal of the normalize node when streaming read.").fallback("log.scan.remove-normalize"),
	opt(OptScanParallelism, "", connectors.Int, "Define a custom parallelism for the scan source."),
	opt("auto-create", "false", connectors.Bool, "Whether to create underlying storage when reading and writing the table."),
	opt("scan.infer-parallelism", "true", connectors.Bool, "If it is false, parallelism of source are set by global parallelism.").noEffect("a parallelism of a Flink job; sqlrun runs it in one process."),
	opt("scan.infer-parallelism.max", "1024", connectors.Int, "If scan.infer-parallelism is true, limit the parallelism of source through this option.").noEffect("a parallelism of a Flink job; sqlrun runs it in one process."),
	opt("scan.split-enumerator.batch-size", "10", connectors.Int, "How many splits should assign to subtask per batch."),
	opt("scan.max-splits-per-task", "10", connectors.Int, "Max split size should be cached for one task while scanning.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("scan.plan-sort-partition", "false", connectors.Bool, "Whether to sort plan files by partition fields.").noEffect("the order of a scan's splits: a query's result has no order unless it says ORDER BY."),
	opt("scan.push-down", "true", connectors.Bool, "If true, flink will push down projection, filters, limit to the source.").noEffect("whether Flink pushes projections, filters and limits into the source; the rows are the same."),
	opt(OptIncrementalBetween, "", connectors.String, "Read incremental changes between start snapshot (exclusive) and end snapshot."),
	enum("incremental-between-scan-mode", "auto", []string{"auto", "delta", "changelog", "diff"}, "Scan kind when reading incremental changes between snapshots."),
	opt("incremental-between-timestamp", "", connectors.String, "Read incremental changes between start timestamp (exclusive) and end timestamp."),
	opt(OptDiscoveryInterval, "10 s", connectors.Duration, "The discovery interval of continuous reading."),
	opt(OptStreamingReadOverwrite, "false", connectors.Bool, "Whether to read the changes from overwrite in streaming mode."),
	opt("streaming-read-mode", "", connectors.String, "The mode of streaming read that specifies to read the data of table file or log.").refuseRead("Paimon then reads the table's log system (Kafka); sqlrun reads the table's files.", "", "file"),
	opt("source.checkpoint-align.enabled", "false", connectors.Bool, "Whether to align the flink checkpoint with the snapshot of the paimon table.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),

	// Consumers.
	opt(OptConsumerID, "", connectors.String, "Consumer id for recording the offset of consumption in the storage."),
	opt(OptConsumerExpirationTime, "", connectors.Duration, "The expiration interval of consumer files."),
	enum(OptConsumerMode, "exactly-once", []string{"exactly-once", "at-least-once"}, "Specify the consumer consistency mode for table."),
	opt(OptConsumerIgnoreProgress, "false", connectors.Bool, "Whether to ignore consumer progress for the newly started job."),

	// Snapshots and tags.
	opt("snapshot.num-retained.min", "10", connectors.Int, "The minimum number of completed snapshots to retain."),
	opt("snapshot.num-retained.max", "2147483647", connectors.Int, "The maximum number of completed snapshots to retain."),
	opt("snapshot.time-retained", "1 h", connectors.Duration, "The maximum time of completed snapshots to retain."),
	opt("snapshot.expire.limit", "50", connectors.Int, "The maximum number of snapshots allowed to expire at a time."),
	opt("snapshot.expire.execution-mode", "sync", connectors.String, "Specifies the execution mode of expire.").noEffect("sqlrun expires snapshots synchronously after a commit; 'async' only changes when the same snapshots expire."),
	opt("snapshot.clean-empty-directories", "false", connectors.Bool, "Whether to try to clean empty directories when expiring snapshots.").fallback("snapshot.expire.clean-empty-directories"),
	opt("snapshot.watermark-idle-timeout", "", connectors.Duration, "Idle timeout for the watermark of snapshots."),
	enum("tag.automatic-creation", "none", []string{"none", "process-time", "watermark", "batch"}, "Whether to create tag automatically."),
	enum("tag.creation-period", "daily", []string{"daily", "hourly", "two-hours"}, "What frequency is used to generate tags."),
	opt("tag.num-retained-max", "", connectors.Int, "The maximum number of tags to retain."),

	// Partitions.
	opt("partition.default-name", "__DEFAULT_PARTITION__", connectors.String, "The default partition name in case the dynamic partition column value is null/empty string."),
	opt("partition.legacy-name", "true", connectors.Bool, "The legacy partition name is using `toString` fpr all types."),
	opt("partition.expiration-time", "", connectors.Duration, "The expiration interval of a partition. A partition will be expired if it's lifetime is over this value. Partition time is extracted from the partition value."),
	opt("partition.expiration-check-interval", "1 h", connectors.Duration, "The check interval of partition expiration."),
	opt("partition.timestamp-formatter", "", connectors.String, "The formatter to format timestamp from string. It can be used with 'partition.timestamp-pattern' to create a formatter using the specified value. Default formatter is 'yyyy-MM-dd HH:mm:ss' and 'yyyy-MM-dd'. sqlrun parses the pattern letters y u M d D H m s S and literals and refuses the others."),
	opt("partition.timestamp-pattern", "", connectors.String, "You can specify a pattern to get a timestamp from partitions. The formatter pattern is defined by 'partition.timestamp-formatter'. By default, read from the first field; if the timestamp in the partition is a single field called 'dt', you can use '$dt'; if it is spread over year, month, day and hour, you can use '$year-$month-$day $hour:00:00'."),
	opt("partition.mark-done-action", "success-file", connectors.String, "Action to mark a partition done.").noEffect("only when partitions are marked done ('partition.idle-time-to-done', 'partition.end-input-to-done'), which sqlrun refuses on write."),

	// The other keys of Paimon 1.4.1's CoreOptions and FlinkConnectorOptions,
	// in their declaration order, with what sqlrun does with them.
	// CREATE TABLE refuses a type other than 'table' (table.Create): Paimon
	// would create a format, object or materialized table.
	opt("type", "table", connectors.String, "Type of the table (sqlrun creates tables of type 'table' only: CREATE TABLE with another type fails)."),
	opt("bucket-append-ordered", "true", connectors.Bool, "Whether to ignore the order of the buckets when reading data from an append-only table.").noEffect("it only lets Paimon drop the per-bucket order of an append table's read; sqlrun reads each bucket's files in order, one of the orders Paimon allows."),
	opt("bucket-function.type", "default", connectors.String, "The bucket function for paimon bucket.").refuseWrite("Paimon assigns rows to buckets with another function (mod, hive); sqlrun hashes bucket keys with the default function.", "default"),
	opt("data-file.external-paths", "", connectors.String, "The external paths where the data of this table will be written, multiple elements separated by commas.").noEffect("only with 'data-file.external-paths.strategy', which sqlrun refuses on write."),
	opt("data-file.external-paths.strategy", "none", connectors.String, "The strategy of selecting an external path when writing data.").refuseWrite("Paimon writes data files under external paths; sqlrun writes them in the table's directory.", "none"),
	opt("data-file.external-paths.specific-fs", "", connectors.String, "The specific file system of the external path when is set to , should be the prefix scheme of the external path, now supported are s3 and oss.").noEffect("only with 'data-file.external-paths.strategy', which sqlrun refuses on write."),
	opt("data-file.external-paths.weights", "", connectors.String, "The weights for external paths when is set to . Format: 'weight1,weight2,...' with weights corresponding to paths in by order. Example: '10,5,15' means first path has weight 10, second 5, third 15. Weights must be positive integers.").noEffect("only with 'data-file.external-paths.strategy', which sqlrun refuses on write."),
	opt("compaction.force-rewrite-all-files", "false", connectors.Bool, "Whether to force pick all files for a full compaction. Usually seen in a compaction task to external paths.").refuseWrite("Paimon's full compaction then rewrites every file; sqlrun's keeps the files it need not rewrite.", "false"),
	opt("branch", "main", connectors.String, "Specify branch name.").refuseAlways("Paimon then reads and writes that branch of the table; sqlrun reads and writes the main branch only.", "main"),
	opt("scan.fallback-snapshot-branch", "", connectors.String, "When a batch job queries from a chain table, if a partition does not exist in the main branch, the reader will try to get this partition from chain snapshot branch.").noEffect("only for chain tables ('chain-table.enabled'), whose batch reads sqlrun refuses."),
	opt("scan.fallback-delta-branch", "", connectors.String, "When a batch job queries from a chain table, if a partition does not exist in either main or snapshot branch, the reader will try to get this partition from chain snapshot and delta branch together.").noEffect("only for chain tables ('chain-table.enabled'), whose batch reads sqlrun refuses."),
	opt("chain-table.chain-partition-keys", "", connectors.String, "Partition keys that participate in chain logic. Must be a contiguous suffix of the table's partition keys. Comma-separated. If not set, all partition keys participate in chain.").noEffect("only for chain tables ('chain-table.enabled'), whose batch reads sqlrun refuses."),
	opt("file.compression.per.level", "", connectors.String, "Define different compression policies for different level, you can add the conf like this: 'file.compression.per.level' = '0:lz4,1:zstd'."),
	opt("file.format.per.level", "", connectors.String, "Define different file format for different level, you can add the conf like this: 'file.format.per.level' = '0:avro,3:parquet', if the file format for level is not provided, the default format which set by `` will be used.").refuseWrite("Paimon writes the files of those levels in another format; sqlrun writes Parquet on every level.", ""),
	opt("data-file.prefix", "data-", connectors.String, "Specify the file name prefix of data files."),
	opt("data-file.path-directory", "", connectors.String, "Specify the path directory of data files.").refuseWrite("Paimon writes data files under this directory of the table; sqlrun writes them in the bucket directories.", ""),
	opt("changelog-file.prefix", "changelog-", connectors.String, "Specify the file name prefix of changelog files."),
	opt("changelog-file.format", "", connectors.String, "Specify the message format of changelog files, currently parquet, avro and orc are supported.").refuseWrite("Paimon writes changelog files in this format; sqlrun writes them in Parquet.", "", "parquet"),
	opt("changelog-file.compression", "", connectors.String, "Changelog file compression.").refuseWrite("Paimon compresses changelog files with this codec; sqlrun compresses them with 'file.compression'.").when(sameAs("file.compression", "zstd")),
	opt("changelog-file.stats-mode", "", connectors.String, "Changelog file metadata stats collection. none, counts, truncate(16), full is available.").refuseWrite("Paimon collects the statistics of changelog files in this mode; sqlrun collects them in 'metadata.stats-mode'.").when(sameAs("metadata.stats-mode", "truncate(16)")),
	opt("file.suffix.include.compression", "false", connectors.Bool, "Whether to add file compression type in the file name of data file and changelog file.").refuseWrite("Paimon names data and changelog files <name>.<compression>.<format>; sqlrun names them <name>.<format>.", "false"),
	opt("file-index.in-manifest-threshold", "500 B", connectors.MemorySize, "The threshold to store file index bytes in manifest.").noEffect("only for file indexes ('file-index.*'), which sqlrun does not write."),
	opt("file-index.read.enabled", "true", connectors.Bool, "Whether enabled read file index.").noEffect("sqlrun reads no file indexes: it reads the data files, which give the same rows."),
	opt("variant.shreddingSchema", "", connectors.String, "The Variant shredding schema for writing.").refuseWrite("Paimon shreds VARIANT columns into typed columns; sqlrun does not.", "").fallback("parquet.variant.shreddingSchema"),
	opt("variant.inferShreddingSchema", "false", connectors.Bool, "Whether to automatically infer the shredding schema when writing Variant columns.").refuseWrite("Paimon shreds VARIANT columns by an inferred schema; sqlrun does not.", "false"),
	opt("variant.shredding.maxSchemaWidth", "300", connectors.Int, "Maximum number of shredded fields allowed in an inferred schema.").noEffect("only with 'variant.inferShreddingSchema', which sqlrun refuses on write."),
	opt("variant.shredding.maxSchemaDepth", "50", connectors.Int, "Maximum traversal depth in Variant values during schema inference.").noEffect("only with 'variant.inferShreddingSchema', which sqlrun refuses on write."),
	opt("variant.shredding.minFieldCardinalityRatio", "0.1", connectors.Double, "Minimum fraction of rows that must contain a field for it to be shredded. Fields below this threshold will remain in the un-shredded Variant binary.").noEffect("only with 'variant.inferShreddingSchema', which sqlrun refuses on write."),
	opt("variant.shredding.maxInferBufferRow", "4096", connectors.Int, "Maximum number of rows to buffer for schema inference.").noEffect("only with 'variant.inferShreddingSchema', which sqlrun refuses on write."),
	opt("upsert-key", "", connectors.String, "Define upsert key to do MERGE INTO when executing INSERT INTO, cannot be defined with primary key.").refuseWrite("Paimon turns INSERT INTO a table without primary key into a MERGE INTO on this key; sqlrun appends the rows.", ""),
	opt("sort-engine", "loser-tree", connectors.String, "Specify the sort engine for table with primary key.").noEffect("the algorithm of the merge sort; the merged rows are the same."),
	opt("sort-spill-buffer-size", "64 mb", connectors.MemorySize, "Amount of data to spill records to disk in spilled sort.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("source.split.target-size", "128 mb", connectors.MemorySize, "Target size of a source split when scanning a bucket.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("source.split.open-file-cost", "4 mb", connectors.MemorySize, "Open file cost of a source file. It is used to avoid reading too many files with a source split, which can be very slow.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("write-buffer-for-append", "false", connectors.Bool, "This option only works for append-only table. Whether the write use write buffer to avoid out-of-memory error.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("write-max-writers-to-spill", "10", connectors.Int, "When in batch append inserting, if the writer number is greater than this option, we open the buffer cache and spill function to avoid out-of-memory."),
	opt("cache-page-size", "64 kb", connectors.MemorySize, "Memory page size for caching.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("blob.target-file-size", "", connectors.MemorySize, "Target size of a blob file. Default is value of TARGET_FILE_SIZE.").noEffect("only for BLOB columns, which sqlrun does not write."),
	opt("blob.split-by-file-size", "", connectors.Bool, "Whether to consider blob file size as a factor when performing scan splitting.").noEffect("split planning of tables with BLOB columns; the rows read are the same."),
	opt("commit.timeout", "", connectors.Duration, "Timeout duration of retry when commit failed.").noEffect("timing of the retries of a commit that lost a race for its snapshot id."),
	opt("commit.min-retry-wait", "10 ms", connectors.Duration, "Min retry wait time when commit failed.").noEffect("timing of the retries of a commit that lost a race for its snapshot id."),
	opt("commit.max-retry-wait", "10 s", connectors.Duration, "Max retry wait time when commit failed.").noEffect("timing of the retries of a commit that lost a race for its snapshot id."),
	opt("compaction.offpeak.start.hour", "-1", connectors.Int, "The start of off-peak hours, expressed as an integer between 0 and 23, inclusive Set to -1 to disable off-peak").refuseWrite("Paimon compacts more aggressively in off-peak hours; sqlrun does not.", "-1"),
	opt("compaction.offpeak.end.hour", "-1", connectors.Int, "The end of off-peak hours, expressed as an integer between 0 and 23, exclusive. Set to -1 to disable off-peak.").refuseWrite("Paimon compacts more aggressively in off-peak hours; sqlrun does not.", "-1"),
	opt("compaction.offpeak-ratio", "0", connectors.Int, "Allows you to set a different (by default, more aggressive) percentage ratio for determining whether larger sorted run's size are included in compactions during off-peak hours. Works in the same way as compaction.size-ratio. Only applies if offpeak.start.hour and offpeak.end.hour are also enabled. For instance, if your cluster experiences low pressure between 2 AM and 6 PM , you can configure `compaction.offpeak.start.hour=2` and `compaction.offpeak.end.hour=18` to define this period as off-peak hours. During these hours, you can increase the off-peak compaction ratio (e.g. `compaction.offpeak-ratio=20`) to enable more aggressive data compaction").noEffect("only in off-peak hours ('compaction.offpeak.start.hour'), which sqlrun refuses on write."),
	opt("compaction.incremental-size-threshold", "", connectors.MemorySize, "When incremental size is bigger than this threshold, force a full compaction.").refuseWrite("Paimon runs a full compaction when the new data is larger than this; sqlrun does not.", ""),
	opt("compaction.file-num-limit", "100000", connectors.Int, "To avoid OOM caused by scanning compaction files, you can use this option to limit the for unaware-bucket append table compaction.").noEffect("append-table compaction, which sqlrun does not run (docs/differences.md)."),
	opt("compaction.delete-ratio-threshold", "0.2", connectors.Double, "Ratio of the deleted rows in a data file to be forced compacted for append-only table.").noEffect("append-table compaction, which sqlrun does not run (docs/differences.md)."),
	opt("table-read.sequence-number.enabled", "false", connectors.Bool, "Whether to include the _SEQUENCE_NUMBER field when reading the audit_log or binlog system tables. This is only valid for primary key tables.").refuseRead("Paimon adds a _SEQUENCE_NUMBER column to the audit_log and binlog system tables; sqlrun does not.", "false"),
	opt("key-value.sequence_number.enabled", "false", connectors.Bool, "Whether to include the _SEQUENCE_NUMBER field when reading key-value data. This is an internal option used by AuditLogTable and BinlogTable when table.read_sequence_number_enabled is set to true.").refuseRead("Paimon adds a _SEQUENCE_NUMBER column to the rows it reads; sqlrun does not.", "false"),
	opt("aggregation.remove-record-on-delete", "false", connectors.Bool, "Whether to remove the whole row in aggregation engine when -D records are received."),
	opt("partial-update.remove-record-on-sequence-group", "", connectors.String, "When -D records of the given sequence groups are received, remove the whole row."),
	opt("rowkind.field", "", connectors.String, "The field that generates the row kind for primary key table, the row kind determines which data is '+I', '-U', '+U' or '-D'.").refuseWrite("Paimon takes each row's kind (+I, -U, +U, -D) from this field; sqlrun writes the row kinds of its input.", ""),
	opt("scan.creation-time-millis", "", connectors.Long, "Optional timestamp used in case of \"from-creation-timestamp\" scan mode.").refuseRead("Paimon then starts reading at this creation time (scan mode from-creation-timestamp); sqlrun does not."),
	opt("scan.bounded.watermark", "", connectors.Long, "End condition \"watermark\" for bounded streaming mode. Stream reading will end when a larger watermark snapshot is encountered."),
	opt("scan.manifest.parallelism", "", connectors.Int, "The parallelism of scanning manifest files, default value is the size of cpu processor. Note: Scale-up this parameter will increase memory usage while scanning manifest files. We can consider downsize it when we encounter an out of memory exception while scanning").noEffect("a parallelism of a Flink job; sqlrun runs it in one process."),
	opt("streaming.read.snapshot.delay", "", connectors.Duration, "The delay duration of stream read when scan incremental snapshots.").refuseRead("Paimon's streaming read then waits this long before reading a new snapshot; sqlrun reads it when it finds it.", ""),
	opt("scan.ignore-corrupt-files", "false", connectors.Bool, "Ignore corrupt files while scanning.").refuseRead("Paimon then skips corrupt files while reading; sqlrun fails the read.", "false"),
	opt("scan.ignore-lost-files", "false", connectors.Bool, "Ignore lost files while scanning.").refuseRead("Paimon then skips lost files while reading; sqlrun fails the read.", "false"),
	opt("streaming-read-append-overwrite", "false", connectors.Bool, "Whether to read the delta from append table's overwrite commit in streaming mode.").refuseRead("Paimon's streaming read of an append table then reads the rows of INSERT OVERWRITE commits; sqlrun does not.", "false"),
	opt("dynamic-partition-overwrite", "true", connectors.Bool, "Whether only overwrite dynamic partition when overwriting a partitioned table with dynamic partition columns. Works only when the table has partition keys."),
	opt("partition.expiration-strategy", "values-time", connectors.String, "The strategy determines how to extract the partition time and compare it with the current time.\"values-time\": This strategy compares the time extracted from the partition value with the current time.\"update-time\": This strategy compares the last update time of the partition with the current time."),
	opt("partition.expiration-max-num", "100", connectors.Int, "The default deleted num of partition expiration."),
	opt("partition.expiration-batch-size", "", connectors.Int, "The batch size of partition expiration. By default, all partitions to be expired will be expired together, which may cause a risk of out-of-memory. Use this parameter to divide partition expiration process and mitigate memory pressure."),
	opt("partition.timestamp-format.strict", "false", connectors.Bool, "When enabled, if a partition value does not match the 'partition.timestamp-formatter' or 'partition.timestamp-pattern' configuration, an error will be thrown during writing. This helps prevent dirty partition directories caused by incorrectly specified partition fields."),
	opt("partition.end-input-to-done", "false", connectors.Bool, "Whether mark the done status to indicate that the data is ready when end input.").refuseWrite("Paimon marks the partitions written done (a _SUCCESS file, by 'partition.mark-done-action') when the input ends; sqlrun does not.", "false"),
	opt("primary-key", "", connectors.String, "Define primary key by table options, cannot define primary key on DDL and table options at the same time."),
	opt("partition", "", connectors.String, "Define partition by table options, cannot define partition on DDL and table options at the same time."),
	opt("lookup.cache-spill-compression", "zstd", connectors.String, "Spill compression for lookup cache, currently zstd, none, lz4 and lzo are supported.").noEffect("tuning of the local lookup files of Paimon's lookup join and lookup compaction; lookups return the same rows."),
	opt("lookup.cache.high-priority-pool-ratio", "0.25", connectors.Double, "The fraction of cache memory that is reserved for high-priority data like index, filter.").noEffect("tuning of the local lookup files of Paimon's lookup join and lookup compaction; lookups return the same rows."),
	opt("lookup.cache.bloom.filter.enabled", "true", connectors.Bool, "Whether to enable the bloom filter for lookup cache.").noEffect("tuning of the local lookup files of Paimon's lookup join and lookup compaction; lookups return the same rows."),
	opt("lookup.cache.bloom.filter.fpp", "0.05", connectors.Double, "Define the default false positive probability for lookup cache bloom filters.").noEffect("tuning of the local lookup files of Paimon's lookup join and lookup compaction; lookups return the same rows."),
	opt("lookup.remote-file.enabled", "false", connectors.Bool, "Whether to enable the remote file for lookup.").refuseWrite("Paimon's compaction then writes remote lookup files next to the data files; sqlrun does not.", "false"),
	opt("lookup.remote-file.level-threshold", "-2147483648", connectors.Int, "Level threshold of lookup to generate remote lookup files. Level files below this threshold will not generate remote lookup files.").noEffect("only with 'lookup.remote-file.enabled', which sqlrun refuses on write."),
	opt("read.batch-size", "1024", connectors.Int, "Read batch size for any file format if it supports.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("write.batch-size", "1024", connectors.Int, "Write batch size for any file format if it supports.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows.").fallback("orc.write.batch-size"),
	opt("write.batch-memory", "128 mb", connectors.MemorySize, "Write batch memory for any file format if it supports.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("stream-scan-mode", "none", connectors.String, "Only used to force TableScan to construct suitable 'StartingUpScanner' and 'FollowUpScanner' dedicated internal streaming scan.").refuseRead("an internal option of Paimon's system tables that changes what a streaming scan reads; sqlrun's system tables do not read it.", "none"),
	opt("batch-scan-mode", "none", connectors.String, "Only used to force TableScan to construct suitable 'StartingUpScanner' and 'FollowUpScanner' dedicated internal streaming scan.").refuseRead("an internal option of Paimon's system tables that changes what a batch scan reads; sqlrun's system tables do not read it.", "none"),
	opt("consumer.changelog-only", "false", connectors.Bool, "If true, consumer will only affect changelog expiration and will not prevent snapshot from being expired.").noEffect("only with a decoupled changelog lifecycle ('changelog.num-retained.*', 'changelog.time-retained'), which sqlrun refuses on write."),
	opt("incremental-to-auto-tag", "", connectors.String, "Used to specify the end tag (inclusive), and Paimon will find an earlier tag and return changes between them. If the tag doesn't exist or the earlier tag doesn't exist, return empty. This option requires 'tag.creation-period' and 'tag.period-formatter' configured.").refuseRead("Paimon then reads the changes between this tag and the tag before it; sqlrun does not.", ""),
	opt("incremental-between-tag-to-snapshot", "false", connectors.Bool, "Whether to read incremental changes between the snapshot corresponding to the tag.").refuseRead("Paimon then reads the incremental changes between the snapshots of the tags; sqlrun does not.", "false"),
	opt("end-input.check-partition-expire", "false", connectors.Bool, "Optional endInput check partition expire used in case of batch mode or bounded stream."),
	opt("metadata.stats-mode.per.level", "", connectors.String, "Define different 'metadata.stats-mode' for different level, you can add the conf like this: 'metadata.stats-mode.per.level' = '0:none', if the metadata.stats-mode for level is not provided, the default mode which set by `` will be used.").refuseWrite("Paimon collects the statistics of the files of those levels in other modes; sqlrun uses 'metadata.stats-mode' on every level.", ""),
	opt("metadata.stats-keep-first-n-columns", "-1", connectors.Int, "Define how many columns' stats are kept in metadata file from front to end. Default value '-1' means ignoring this config.").refuseWrite("Paimon keeps the statistics of the first N columns only; sqlrun keeps those of every column.", "-1"),
	opt("commit.callbacks", "", connectors.String, "A list of commit callback classes to be called after a successful commit. Class names are connected with comma (example: com.test.CallbackA,com.sample.CallbackB).").refuseWrite("Java classes Paimon calls after each commit; sqlrun calls none.", ""),
	opt("commit.callback.#.param", "", connectors.String, "Parameter string for the constructor of class #. Callback class should parse the parameter by itself.").noEffect("only with 'commit.callbacks', which sqlrun refuses on write."),
	opt("tag.callbacks", "", connectors.String, "A list of commit callback classes to be called after a successful tag. Class names are connected with comma (example: com.test.CallbackA,com.sample.CallbackB).").refuseWrite("Java classes Paimon calls after a tag is created; sqlrun calls none.", ""),
	opt("tag.callback.#.param", "", connectors.String, "Parameter string for the constructor of class #. Callback class should parse the parameter by itself.").noEffect("only with 'tag.callbacks', which sqlrun refuses on write."),
	opt("partition.mark-done-action.custom.class", "", connectors.String, "The partition mark done class for implement PartitionMarkDoneAction interface. Only work in custom mark-done-action.").noEffect("only when partitions are marked done ('partition.idle-time-to-done', 'partition.end-input-to-done'), which sqlrun refuses on write."),
	opt("partition.mark-done-action.http.url", "", connectors.String, "Mark done action will reports the partition to the remote http server, this can only be used by http-report partition mark done action.").noEffect("only when partitions are marked done ('partition.idle-time-to-done', 'partition.end-input-to-done'), which sqlrun refuses on write."),
	opt("partition.mark-done-action.http.params", "", connectors.String, "Http client request parameters will be written to the request body, this can only be used by http-report partition mark done action.").noEffect("only when partitions are marked done ('partition.idle-time-to-done', 'partition.end-input-to-done'), which sqlrun refuses on write."),
	opt("partition.sink-strategy", "none", connectors.String, "This is only for partitioned append table or postpone pk table, and the purpose is to reduce small files and improve write performance. Through this repartitioning strategy to reduce the number of partitions written by each task to as few as possible.none: Rebalanced or Forward partitioning, this is the default behavior, this strategy is suitable for the number of partitions you write in a batch is much smaller than write parallelism.hash: Hash the partitions value, this strategy is suitable for the number of partitions you write in a batch is greater equals than write parallelism.").noEffect("a shuffle of Paimon's Flink sink by partition (fewer small files); sqlrun's writer gets the same rows."),
	opt("metastore.partitioned-table", "false", connectors.Bool, "Whether to create this table as a partitioned table in metastore. For example, if you want to list all partitions of a Paimon table in Hive, you need to create this table as a partitioned table in Hive metastore. This config option does not affect the default filesystem metastore.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("metastore.tag-to-partition", "", connectors.String, "Whether to create this table as a partitioned table for mapping non-partitioned table tags in metastore. This allows the Hive engine to view this table in a partitioned table view and use partitioning field to read specific partitions (specific tags).").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("metastore.tag-to-partition.preview", "none", connectors.String, "Whether to preview tag of generated snapshots in metastore. This allows the Hive engine to query specific tag before creation.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("tag.create-success-file", "false", connectors.Bool, "Whether to create tag success file for new created tags.").refuseWrite("Paimon writes a _SUCCESS file for each tag it creates; sqlrun does not.", "false"),
	opt("tag.creation-delay", "0 ms", connectors.Duration, "How long is the delay after the period ends before creating a tag. This can allow some late data to enter the Tag."),
	enum("tag.period-formatter", "with_dashes", []string{"with_dashes", "without_dashes", "without_dashes_and_spaces"}, "The date format for tag periods."),
	opt("tag.creation-period-duration", "", connectors.Duration, "The period duration for tag auto create periods.If user set it, tag.creation-period would be invalid."),
	opt("tag.default-time-retained", "", connectors.Duration, "The default maximum time retained for newly created tags. It affects both auto-created tags and manually created (by procedure) tags.").refuseWrite("Paimon gives the tags it creates (CALL sys.create_tag too) this retention and expires them at commit; sqlrun does not.", ""),
	opt("tag.time-expire-enabled", "true", connectors.Bool, "Whether to enable tag expiration by retained time.").noEffect("sqlrun does not expire tags by their retention time either way (docs/differences.md)."),
	opt("tag.automatic-completion", "false", connectors.Bool, "Whether to automatically complete missing tags."),
	opt("tag.batch.customized-name", "", connectors.String, "Use customized name when creating tags in Batch mode."),
	// CoreOptions declares it intType, but the only reader, Paimon's
	// RowDataParquetBuilder, takes it as parquet-java's boolean
	// (Configuration.getBoolean: 'true' or 'false' in any case, anything
	// else the default): a table created with 'false' is Paimon's usual
	// spelling, so the value is not parsed as an INT.
	opt("parquet.enable.dictionary", "", connectors.String, "Turn off the dictionary encoding for all fields in parquet.").noEffect("the encoding of Parquet pages; readers see the same values (sqlrun writes dictionary pages with a PLAIN fallback, as parquet-java does by default). Paimon declares the option INT but its Parquet writer reads it as a boolean ('false' turns dictionaries off), so any value is accepted."),
	opt("sink.watermark-time-zone", "UTC", connectors.String, "The time zone to parse the long watermark value to TIMESTAMP value. The default value is 'UTC', which means the watermark is defined on TIMESTAMP column or not defined. If the watermark is defined on TIMESTAMP_LTZ column, the time zone of watermark is user configured time zone, the value should be the user configured local time zone. The option value is either a full name such as 'America/Los_Angeles', or a custom timezone id such as 'GMT-08:00'."),
	opt("sink.process-time-zone", "", connectors.String, "The time zone to parse the long process time to TIMESTAMP value. The default value is JVM's default time zone. If you want to specify a time zone, you should either set a full name such as 'America/Los_Angeles' or a custom zone id such as 'GMT-08:00'. This option currently is used for extract tag name."),
	opt("local-merge-buffer-size", "", connectors.MemorySize, "Local merge will buffer and merge input records before they're shuffled by bucket and written into sink. The buffer will be flushed when it is full. Mainly to resolve data skew on primary keys. We recommend starting with 64 mb when trying out this feature.").refuseWrite("Paimon's sink then merges rows of the same key before writing, which changes the changelog files and sequence numbers it writes; sqlrun does not.", ""),
	opt("zorder.var-length-contribution", "8", connectors.Int, "The bytes of types (CHAR, VARCHAR, BINARY, VARBINARY) devote to the zorder sort.").noEffect("sort compaction (z-order, hilbert), a Flink job sqlrun does not run."),
	opt("file-reader-async-threshold", "10 mb", connectors.MemorySize, "The threshold for read file async.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("commit.force-create-snapshot", "false", connectors.Bool, "In streaming job, whether to force creating snapshot when there is no data in this write-commit phase.").refuseWrite("Paimon then commits a snapshot even when a checkpoint wrote nothing; sqlrun commits none.", "false"),
	opt("deletion-vectors.modifiable", "false", connectors.Bool, "Whether to enable modifying deletion vectors mode.").refuseWrite("Paimon then lets DELETE and UPDATE change deletion vectors of an append table; sqlrun does not.", "false"),
	opt("deletion-vector.index-file.target-size", "2 mb", connectors.MemorySize, "The target size of deletion vector index file.").noEffect("the size of the deletion-vector index files; readers see the same deletion vectors."),
	opt("delete.force-produce-changelog", "false", connectors.Bool, "Force produce changelog in delete sql, or you can use 'streaming-read-overwrite' to read changelog from overwrite commit.").refuseWrite("Paimon then writes changelog for the rows a DELETE removes; sqlrun does not.", "false"),
	opt("sort-compaction.range-strategy", "size", connectors.String, "The range strategy of sort compaction, the default value is quantity. If the data size allocated for the sorting task is uneven,which may lead to performance bottlenecks, the config can be set to size.").noEffect("sort compaction (z-order, hilbert), a Flink job sqlrun does not run."),
	opt("sort-compaction.local-sample.magnification", "1000", connectors.Int, "The magnification of local sample for sort-compaction.The size of local sample is sink parallelism * magnification.").noEffect("sort compaction (z-order, hilbert), a Flink job sqlrun does not run."),
	opt("record-level.expire-time", "", connectors.Duration, "Record level expire time for primary key table, expiration happens in compaction, there is no strong guarantee to expire records in time. You must specific 'record-level.time-field' too."),
	opt("record-level.time-field", "", connectors.String, "Time field for record level expire. It supports the following types: `timestamps in seconds with INT`,`timestamps in seconds with BIGINT`, `timestamps in milliseconds with BIGINT` or `timestamp`."),
	opt("fields.default-aggregate-function", "", connectors.String, "Default aggregate function of all fields for partial-update and aggregate merge function."),
	opt("commit.user-prefix", "", connectors.String, "Specifies the commit user prefix."),
	opt("force-lookup", "false", connectors.Bool, "Whether to force the use of lookup for compaction."),
	opt("lookup-compact", "radical", connectors.String, "Lookup compact mode used for lookup compaction."),
	opt("lookup-compact.max-interval", "", connectors.Int, "The max interval for a gentle mode lookup compaction to be triggered. For every interval, a forced lookup compaction will be performed to flush L0 files to higher level. This option is only valid when lookup-compact mode is gentle."),
	opt("file-operation.thread-num", "", connectors.Int, "The maximum number of concurrent file operations. By default is the number of processors available to the Java virtual machine.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows.").fallback("delete-file.thread-num"),
	opt("async-file-write", "true", connectors.Bool, "Whether to enable asynchronous IO writing when writing files.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("manifest.delete-file-drop-stats", "false", connectors.Bool, "For DELETE manifest entry in manifest file, drop stats to reduce memory and storage. Default value is false only for compatibility of old reader.").refuseWrite("Paimon then writes DELETE manifest entries without statistics; sqlrun writes them.", "false"),
	opt("partition.idle-time-to-report-statistic", "0 ms", connectors.Duration, "Set a time duration when a partition has no new data after this time duration, start to report the partition statistics to hms.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("query-auth.enabled", "false", connectors.Bool, "Enable query auth to give Catalog the opportunity to perform column level and row level permission validation on queries.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.definition-query", "", connectors.String, "The definition query text of materialized table, text is expanded in contrast to the original SQL.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.interval-freshness", "", connectors.String, "the freshness interval of materialized table which is used to determine the physical refresh mode.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.interval-freshness.time-unit", "", connectors.String, "The time unit of freshness interval.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.logical-refresh-mode", "", connectors.String, "the logical refresh mode of materialized table.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.refresh-mode", "", connectors.String, "the physical refresh mode of materialized table.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.refresh-status", "", connectors.String, "the refresh status of materialized table.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.refresh-handler-description", "", connectors.String, "The summary description of materialized table's refresh handler").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("materialized-table.refresh-handler-bytes", "", connectors.String, "The serialized refresh handler of materialized table.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("alter-column-null-to-not-null.disabled", "true", connectors.Bool, "If true, it disables altering column type from null to not null. Default is true. Users can disable this option to explicitly convert null column type to not null."),
	opt("disable-explicit-type-casting", "false", connectors.Bool, "If true, it disables explicit type casting. For ex: it disables converting LONG type to INT type. Users can enable this option to disable explicit type casting"),
	opt("add-column-before-partition", "false", connectors.Bool, "If true, when adding a new column without specifying a position, the column will be placed before the first partition column instead of at the end of the schema. This only takes effect for partitioned tables."),
	opt("commit.strict-mode.last-safe-snapshot", "", connectors.Long, "If set, committer will check if there are other commit user's snapshot starting from the snapshot after this one. If found a COMPACT / OVERWRITE snapshot, or found a APPEND snapshot which committed files to fixed bucket, commit will be aborted.If the value of this option is -1, committer will not check for its first commit.").refuseWrite("Paimon's commit then fails when another user committed a COMPACT or OVERWRITE snapshot since this one; sqlrun does not check.", ""),
	opt("clustering.columns", "", connectors.String, "Specifies the column name(s) used for comparison during range partitioning, in the format 'columnName1,columnName2'. If not set or set to an empty string, it indicates that the range partitioning feature is not enabled. This option will be effective only for append table without primary keys and batch execution mode.").refuseWrite("Paimon sorts (clusters) the rows by these columns before writing them, or in incremental clustering; sqlrun does not.", "").fallback("sink.clustering.by-columns"),
	opt("clustering.strategy", "auto", connectors.String, "Specifies the comparison algorithm used for range partitioning, including 'zorder', 'hilbert', and 'order', corresponding to the z-order curve algorithm, hilbert curve algorithm, and basic type comparison algorithm, respectively. When not configured, it will automatically determine the algorithm based on the number of columns in 'clustering.by-columns'. 'order' is used for 1 column, 'zorder' for less than 5 columns, and 'hilbert' for 5 or more columns.").noEffect("only with 'clustering.columns', which sqlrun refuses on write.").fallback("sink.clustering.strategy"),
	opt("clustering.incremental", "false", connectors.Bool, "Whether enable incremental clustering.").refuseWrite("Paimon then clusters the table incrementally at compaction; sqlrun does not.", "false"),
	opt("clustering.history-partition.limit", "5", connectors.Int, "The limit of history partition number for automatically performing full clustering.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("clustering.history-partition.idle-to-full-sort", "", connectors.Duration, "The duration after which a partition without new updates is considered a historical partition. Historical partitions will be automatically fully clustered during the cluster operation.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("clustering.incremental.optimize-write", "false", connectors.Bool, "Whether enable perform clustering before write phase when incremental clustering is enabled.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("clustering.incremental.mode", "global-sort", connectors.String, "The sort mode for incremental clustering compaction. 'global-sort' (default) performs a global range shuffle so output files are globally ordered. 'local-sort' skips the global shuffle and only sorts rows within each compaction task, producing files that are internally ordered. 'local-sort' is cheaper and sufficient for Parquet lookup optimizations.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("snapshot.ignore-empty-commit", "", connectors.Bool, "Whether ignore empty commit.").noEffect("read by Paimon's Java batch-write API and its combined compaction job, neither of which sqlrun runs; Flink's sink, which sqlrun's follows, decides empty commits itself."),
	opt("global-index.external-path", "", connectors.String, "Global index root directory, if not set, the global index files will be stored under the <table-root-directory>/index.").noEffect("global indexes, which sqlrun neither builds nor reads: its scans read the data files."),
	opt("global-index.column-update-action", "throw-error", connectors.String, "Defines the action to take when an update modifies columns that are covered by a global index.").noEffect("global indexes, which sqlrun neither builds nor reads."),
	opt("lookup.merge-buffer-size", "8 mb", connectors.MemorySize, "Buffer memory size for one key merging in lookup.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("lookup.merge-records-threshold", "1024", connectors.Int, "Threshold for merging records to binary buffer in lookup.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("format-table.implementation", "paimon", connectors.String, "Format table uses paimon or engine.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("format-table.partition-path-only-value", "false", connectors.Bool, "Format table file path only contain partition value.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("format-table.file.compression", "", connectors.String, "Format table file compression.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("format-table.commit-hive-sync-url", "", connectors.String, "Format table commit hive sync uri.").noEffect("metadata for a catalog or engine sqlrun does not run (Hive metastore, materialized and format tables, REST catalog)."),
	opt("blob-external-storage-path", "", connectors.String, "The external storage path where raw BLOB data from fields configured by 'blob-external-storage-field' is written at write time. Orphan file cleanup is not applied to this path.").noEffect("only for BLOB columns, which sqlrun does not write."),
	opt("blob-external-storage-field", "", connectors.String, "Comma-separated BLOB field names (must be a subset of '') whose raw data will be written to external storage at write time. The external storage path is configured via ''. Orphan file cleanup is not applied to that path.").noEffect("only for BLOB columns, which sqlrun does not write."),
	opt("commit.discard-duplicate-files", "false", connectors.Bool, "Whether discard duplicate files in commit.").noEffect("sqlrun's commits never repeat a file: a replayed commit is skipped by its identifier."),
	opt("global-index.row-count-per-shard", "100000", connectors.Long, "Row count per shard for global index.").noEffect("global indexes, which sqlrun neither builds nor reads."),
	opt("global-index.build.max-shard", "32", connectors.Int, "The preferred max number of shards for building global index. If the number of shards calculated by 'global-index.row-count-per-shard' exceeds this value, max-shard will be automatically increased to accommodate the data volume while keeping 'global-index.row-count-per-shard' unchanged.").noEffect("global indexes, which sqlrun neither builds nor reads."),
	opt("global-index.build.max-parallelism", "4096", connectors.Int, "The max parallelism of Flink/Spark for building global index.").noEffect("global indexes, which sqlrun neither builds nor reads."),
	opt("global-index.enabled", "true", connectors.Bool, "Whether to enable global index for scan.").noEffect("global indexes, which sqlrun neither builds nor reads: its scans read the data files, which give the same rows."),
	opt("global-index.thread-num", "", connectors.Int, "The maximum number of concurrent scanner for global index.By default is the number of processors available to the Java virtual machine.").noEffect("global indexes, which sqlrun neither builds nor reads."),
	opt("overwrite-upgrade", "true", connectors.Bool, "Whether to try upgrading the data files after overwriting a primary key table."),
	opt("visibility-callback.enabled", "false", connectors.Bool, "Whether to enable the visibility wait callback that waits for compaction to complete after commit. This is useful for primary key tables with deletion vectors or postpone bucket mode to ensure data visibility, only used for batch mode or bounded stream.").refuseWrite("Paimon's commit then waits for compaction to complete before it returns; sqlrun does not.", "false"),
	opt("visibility-callback.timeout", "30 min", connectors.Duration, "The maximum time to wait for compaction to complete when visibility callback is enabled. If the timeout is reached, an exception will be thrown.").noEffect("only with 'visibility-callback.enabled', which sqlrun refuses on write."),
	opt("visibility-callback.check-interval", "10 s", connectors.Duration, "The interval for checking visibility when visibility-callback enabled.").noEffect("only with 'visibility-callback.enabled', which sqlrun refuses on write."),
	opt("vector.file.format", "", connectors.String, "Specify the vector store file format.").noEffect("only for vector columns ('vector-field'), which sqlrun refuses on write."),
	opt("vector-field", "", connectors.String, "Specifies column names that should be stored as vector type. This is used when you want to treat a ARRAY column as a VECTOR.").refuseWrite("Paimon stores these ARRAY columns as vectors in files of their own; sqlrun does not.", ""),
	opt("vector.target-file-size", "", connectors.MemorySize, "Target size of a vector-store file. Default is 10 * TARGET_FILE_SIZE.").noEffect("only for vector columns ('vector-field'), which sqlrun refuses on write."),
	opt("pk-clustering-override", "false", connectors.Bool, "Enables clustering by non-primary key fields. When set to true, the physical sort order of data files is determined by the configured 'clustering.columns' instead of the primary key, optimizing query performance for non-PK columns.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("unaware-bucket.compaction.parallelism", "", connectors.Int, "Defines a custom parallelism for the unaware-bucket table compaction job. By default, if this option is not defined, the planner will derive the parallelism for each statement individually by also considering the global configuration.").noEffect("a parallelism of a Flink job; sqlrun runs it in one process."),
	opt("changelog-producer.compaction-interval", "0 s", connectors.Duration, "When is set to , full compaction will be constantly triggered after this interval."),
	opt("scan.watermark.emit.strategy", "on-event", connectors.String, "Emit strategy for watermark generation."),
	opt("scan.watermark.alignment.group", "", connectors.String, "A group of sources to align watermarks."),
	opt("scan.watermark.idle-timeout", "", connectors.Duration, "If no records flow in a partition of a stream for that amount of time, then that partition is considered \"idle\" and will not hold back the progress of watermarks in downstream operators.").noEffect("Flink marks each split idle that reads no row for that long (WatermarksWithIdleness around each split's generator), so it stops holding the watermark back; sqlrun marks a subtask idle only per table.exec.source.idle-timeout, so its watermark can stay behind Flink's (windows fire later, fewer rows are late; docs/differences.md)."),
	opt("scan.watermark.alignment.max-drift", "", connectors.Duration, "Maximal drift to align watermarks, before we pause consuming from the source/task/partition."),
	opt("scan.watermark.alignment.update-interval", "1 s", connectors.Duration, "How often tasks should notify coordinator about the current watermark and how often the coordinator should announce the maximal aligned watermark."),
	opt("scan.max-snapshot.count", "-1", connectors.Int, "The max snapshot count to scan per checkpoint. Not limited when it's negative.").noEffect("how many snapshots Paimon's streaming source reads per checkpoint; the rows read are the same."),
	opt("scan.split-enumerator.mode", "fair", connectors.String, "The mode used by StaticFileStoreSplitEnumerator to assign splits.").noEffect("which reader is handed which split of a bounded read ('fair' spreads them by size and hands each reader its smallest first, 'preemptive' hands the next to whichever reader asks); sqlrun hands each bucket to one subtask by its hash, in plan order, so with a watermark pushed into the scan and more than one split per reader, which rows are late can differ (docs/differences.md)."),
	opt("read.shuffle-bucket-with-partition", "true", connectors.Bool, "Whether shuffle by partition and bucket when read.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same.").fallback("streaming-read.shuffle-bucket-with-partition"),
	opt("sink.managed.writer-buffer-memory", "256 mb", connectors.MemorySize, "Weight of writer buffer in managed memory, Flink will compute the memory size for writer according to the weight, the actual memory used depends on the running environment.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("sink.cross-partition.managed-memory", "256 mb", connectors.MemorySize, "Weight of managed memory for RocksDB in cross-partition update, Flink will compute the memory size according to the weight, the actual memory used depends on the running environment.").noEffect("memory, buffering or I/O tuning of Paimon's Java reader or writer; sqlrun's own buffers decide it and the table holds the same rows."),
	opt("source.checkpoint-align.timeout", "30 s", connectors.Duration, "If the new snapshot has not been generated when the checkpoint starts to trigger, the enumerator will block the checkpoint and wait for the new snapshot. Set the maximum waiting time to avoid infinite waiting, if timeout, the checkpoint will fail. Note that it should be set smaller than the checkpoint timeout.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("lookup.bootstrap-parallelism", "4", connectors.Int, "The parallelism for bootstrap in a single task for lookup join.").noEffect("a parallelism of a Flink job; sqlrun runs it in one process."),
	opt("scan.partitions", "", connectors.String, "Specify the partitions to scan. Partitions should be given in the form of key1=value1,key2=value2. Partition keys not specified will be filled with the value of . Multiple partitions should be separated by semicolon (;). This option can support normal source tables and lookup join tables. There are two special values max_pt() and max_two_pt() are also supported to specify the (two) partition(s) with the largest partition value. For lookup source, the max partition(s) will be periodically refreshed; for normal source, the max partition(s) will be determined before job running without refreshing even for streaming jobs.").refuseRead("Paimon then reads (and joins with) only these partitions, max_pt() the latest; sqlrun reads every partition.", "").fallback("lookup.dynamic-partition"),
	opt("lookup.dynamic-partition.refresh-interval", "1 h", connectors.Duration, "Specific dynamic partition refresh interval for lookup, scan all partitions and obtain corresponding partition.").noEffect("only with 'scan.partitions', which sqlrun refuses on read."),
	opt("lookup.dynamic-partition.refresh.async", "false", connectors.Bool, "Whether to refresh dynamic partition lookup table asynchronously. This option only works for full cache dimension table. When enabled, partition changes will be loaded in a background thread while the old partition data continues serving queries. When disabled (default), partition refresh is synchronous and blocks queries until the new partition data is fully loaded.").noEffect("only with 'scan.partitions', which sqlrun refuses on read."),
	opt("lookup.refresh.async.pending-snapshot-count", "5", connectors.Int, "If the pending snapshot count exceeds the threshold, lookup operator will refresh the table in sync.").noEffect("how Paimon's lookup join refreshes; it refreshes to the same snapshots."),
	opt("lookup.refresh.time-periods-blacklist", "", connectors.String, "The blacklist contains several time periods. During these time periods, the lookup table's cache refreshing is forbidden. Blacklist format is start1->end1,start2->end2,... , and the time format is yyyy-MM-dd HH:mm. Only used when lookup table is FULL cache mode.").refuseRead("Paimon's lookup join does not refresh in these periods, so it joins older rows; sqlrun refreshes at every 'continuous.discovery-interval'.", ""),
	opt("lookup.refresh.full-load-threshold", "", connectors.Int, "If the pending snapshot count exceeds this threshold, lookup table will discard incremental updates and refresh the entire table from the latest snapshot. This can improve performance when there are many snapshots pending. Set to a reasonable value (e.g., 10) to enable this optimization. Default is Integer.MAX_VALUE (disabled).").noEffect("how Paimon's lookup join refreshes; it refreshes to the same snapshots."),
	opt("sink.savepoint.auto-tag", "false", connectors.Bool, "If true, a tag will be automatically created for the snapshot created by flink savepoint.").noEffect("tags at Flink savepoints; sqlrun takes no savepoints."),
	opt("sink.writer-cpu", "1.0", connectors.Double, "Sink writer cpu to control cpu cores of writer.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.writer-memory", "", connectors.MemorySize, "Sink writer memory to control heap memory of writer.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.committer-cpu", "1.0", connectors.Double, "Sink committer cpu to control cpu cores of global committer.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.committer-memory", "", connectors.MemorySize, "Sink committer memory to control heap memory of global committer.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.committer-operator-chaining", "true", connectors.Bool, "Allow sink committer and writer operator to be chained together").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("partition.mark-done-action.mode", "process-time", connectors.String, "How to trigger partition mark done action.").noEffect("only when partitions are marked done ('partition.idle-time-to-done', 'partition.end-input-to-done'), which sqlrun refuses on write."),
	opt("partition.idle-time-to-done", "", connectors.Duration, "Set a time duration when a partition has no new data after this time duration, mark the done status to indicate that the data is ready.").refuseWrite("Paimon's sink marks a partition done (a _SUCCESS file, by 'partition.mark-done-action') after this idle time; sqlrun does not.", ""),
	opt("partition.time-interval", "", connectors.Duration, "You can specify time interval for partition, for example, daily partition is '1 d', hourly partition is '1 h'.").noEffect("only with partition mark-done, which sqlrun refuses on write."),
	opt("partition.mark-done.recover-from-state", "true", connectors.Bool, "Whether trigger partition mark done when recover from state.").noEffect("only when partitions are marked done ('partition.idle-time-to-done', 'partition.end-input-to-done'), which sqlrun refuses on write."),
	opt("sink.clustering.sort-in-cluster", "true", connectors.Bool, "Indicates whether to further sort data belonged to each sink task after range partitioning.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("sink.clustering.sample-factor", "100", connectors.Int, "Specifies the sample factor. Let S represent the total number of samples, F represent the sample factor, and P represent the sink parallelism, then S=F×P. The minimum allowed sample factor is 20.").noEffect("only with 'clustering.columns', which sqlrun refuses on write."),
	opt("end-input.watermark", "", connectors.Long, "Optional endInput watermark used in case of batch mode or bounded stream."),
	opt("precommit-compact", "false", connectors.Bool, "If true, it will add a compact coordinator and worker operator after the writer operator,in order to compact several changelog files (for primary key tables) or newly created data files (for unaware bucket tables) from the same partition into large ones, which can decrease the number of small files.").refuseWrite("Paimon's sink then merges small files (or changelog files) before commit; sqlrun commits them as written.", "false").fallback("changelog.precommit-compact"),
	opt("changelog.precommit-compact.thread-num", "", connectors.Int, "Maximum number of threads to copy bytes from small changelog files. By default is the number of processors available to the Java virtual machine.").noEffect("only with 'precommit-compact', which sqlrun refuses on write."),
	opt("changelog.precommit-compact.buffer-size", "128 mb", connectors.MemorySize, "The buffer size for copying bytes from small changelog files. The default value is 128 MB.").noEffect("only with 'precommit-compact', which sqlrun refuses on write."),
	opt("source.operator-uid.suffix", "", connectors.String, "Set the uid suffix for the source operators. After setting, the uid format is ${UID_PREFIX}_${TABLE_NAME}_${USER_UID_SUFFIX}. If the uid suffix is not set, flink will automatically generate the operator uid, which may be incompatible when the topology changes.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.operator-uid.suffix", "", connectors.String, "Set the uid suffix for the writer, dynamic bucket assigner and committer operators. The uid format is ${UID_PREFIX}_${TABLE_NAME}_${USER_UID_SUFFIX}. If the uid suffix is not set, flink will automatically generate the operator uid, which may be incompatible when the topology changes.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("scan.dedicated-split-generation", "false", connectors.Bool, "If true, the split generation process would be performed during runtime on a Flink task, instead of on the JobManager during initialization phase.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("commit.custom-listeners", "", connectors.String, "Commit listener will be called after a successful commit. This option list custom commit listener identifiers separated by comma.").refuseWrite("commit listeners Paimon's Flink committer calls; sqlrun calls none.", ""),
	opt("sink.writer-coordinator.enabled", "false", connectors.Bool, "Enable sink writer coordinator to plan data files in Job Manager.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.writer-coordinator.cache-memory", "2048 mb", connectors.MemorySize, "Controls the cache memory of writer coordinator to cache manifest files in Job Manager.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("sink.writer-coordinator.page-size", "32 kb", connectors.MemorySize, "Controls the page size for one RPC request of writer coordinator.").noEffect("Flink runtime tuning (operator resources, chaining, uids, split assignment, checkpoint alignment); sqlrun runs the job in one process and the rows are the same."),
	opt("filesystem.job-level-settings.enabled", "true", connectors.Bool, "Enable pass job level filesystem settings to table file IO.").noEffect("Flink job settings handed to the table's file system; sqlrun's file system takes its settings from the catalog."),
	opt("sink.writer-refresh-detectors", "", connectors.String, "The option groups which are expected to be refreshed when streaming writing, multiple option group separated by commas. Now only 'external-paths' is supported.").noEffect("only with 'data-file.external-paths.strategy', which sqlrun refuses on write."),
}

// Known returns the Paimon table options sqlrun knows, with Paimon's names
// and defaults.
func Known() []connectors.Option {
	out := make([]connectors.Option, len(tableOptions))
	for i, d := range tableOptions {
		out[i] = d.Option
		out[i].Description = d.describe()
	}
	return out
}
