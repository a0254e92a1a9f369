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
	ScanFromSnapshot     = "from-snapshot"
	ScanFromSnapshotFull = "from-snapshot-full"
	ScanIncremental      = "incremental"
)

func opt(key, def string, typ connectors.OptionType, desc string) connectors.Option {
	return connectors.Option{Key: key, Default: def, Type: typ, Description: desc}
}

func enum(key, def string, values []string, desc string) connectors.Option {
	return connectors.Option{Key: key, Default: def, Type: connectors.Enum, Enum: values, Description: desc}
}

func prefix(key, desc string) connectors.Option {
	return connectors.Option{Key: key, Type: connectors.String, Prefix: true, Description: desc}
}

// tableOptions are the Paimon table options sqlrun knows, with Paimon
// 1.4.2's names and defaults (CoreOptions, FlinkConnectorOptions). Paimon
// accepts any other key too (it keeps unknown options in the schema), so this
// list drives typed access, value checks and documentation, not rejection.
var tableOptions = []connectors.Option{
	// Layout and write path.
	opt(OptBucket, "-1", connectors.Int, "Bucket number for file store; -1 is dynamic bucket mode, -2 postpone."),
	opt(OptBucketKey, "", connectors.String, "Specify the paimon distribution policy. Data is assigned to each bucket according to the hash value of bucket-key."),
	opt("path", "", connectors.String, "The file path of this table in the filesystem."),
	enum(OptFileFormat, "parquet", []string{"orc", "parquet", "avro", "csv", "json"}, "Specify the message format of data files."),
	opt(OptFileCompression, "zstd", connectors.String, "Default file compression."),
	opt("file.compression.zstd-level", "1", connectors.Int, "Default file compression zstd level."),
	opt("file.block-size", "", connectors.MemorySize, "File block size of format."),
	enum("manifest.format", "avro", []string{"avro", "parquet", "orc"}, "Specify the message format of manifest files."),
	opt("manifest.compression", "zstd", connectors.String, "Default file compression for manifest."),
	opt("manifest.target-file-size", "8 mb", connectors.MemorySize, "Suggested file size of a manifest file."),
	opt("manifest.merge-min-count", "30", connectors.Int, "To avoid frequent manifest merges, this parameter specifies the minimum number of ManifestFileMeta to merge."),
	opt("manifest.full-compaction-threshold-size", "16 mb", connectors.MemorySize, "The size threshold for triggering full compaction of manifest."),
	opt(OptTargetFileSize, "", connectors.MemorySize, "Target size of a file: 128 mb for primary key tables, 256 mb for append tables."),
	opt(OptWriteBufferSize, "256 mb", connectors.MemorySize, "Amount of data to build up in memory before converting to a sorted on-disk file."),
	opt("write-buffer-spillable", "true", connectors.Bool, "Whether the write buffer can be spillable."),
	opt("write-buffer-spill.max-disk-size", "", connectors.MemorySize, "The max disk to use for write buffer spill. This only work when the write buffer spill is enabled"),
	opt("spill-compression", "zstd", connectors.String, "Compression for spill (sqlrun: zstd or none)."),
	opt("spill-compression.zstd-level", "1", connectors.Int, "Default spill compression zstd level."),
	opt("page-size", "64 kb", connectors.MemorySize, "Memory page size."),
	opt("sort-spill-threshold", "", connectors.Int, "If the maximum number of sort readers exceeds this value, a spill will be attempted."),
	opt("local-sort.max-num-file-handles", "128", connectors.Int, "The maximal fan-in for external merge sort."),
	opt(OptWriteOnly, "false", connectors.Bool, "If set to true, compactions and snapshot expiration will be skipped."),
	opt(OptSinkParallelism, "", connectors.Int, "Defines a custom parallelism for the sink."),
	opt("sink.use-managed-memory-allocator", "false", connectors.Bool, "If true, flink sink will use managed memory for merge tree."),
	opt(OptIgnoreDelete, "false", connectors.Bool, "Whether to ignore delete records."),
	opt(OptIgnoreUpdateBefore, "false", connectors.Bool, "Whether to ignore update-before records."),
	opt("commit.max-retries", "10", connectors.Int, "Maximum number of retries when commit failed."),
	opt("commit.force-compact", "false", connectors.Bool, "Whether to force a compaction before commit."),
	opt("dynamic-bucket.target-row-num", "2000000", connectors.Long, "If the bucket is -1, for primary key table, is dynamic bucket mode, this option controls the target row number for one bucket."),
	opt("dynamic-bucket.initial-buckets", "", connectors.Int, "Initial buckets for a partition in assigner operator for dynamic bucket mode (sqlrun runs one assigner, so it has no effect)."),
	opt("dynamic-bucket.max-buckets", "-1", connectors.Int, "Max buckets for a partition in dynamic bucket mode, It should either be equal to -1 (unlimited), or it must be greater than 0 (fixed upper bound)."),
	opt("postpone.batch-write-fixed-bucket", "true", connectors.Bool, "Whether to write the data into fixed bucket for batch writing a postpone bucket table."),
	opt("postpone.batch-write-fixed-bucket.max-parallelism", "2048", connectors.Int, "The number of partitions for global index."),
	opt("postpone.default-bucket-num", "1", connectors.Int, "Bucket number for the partitions compacted for the first time in postpone bucket tables."),
	opt("dynamic-bucket.assigner-parallelism", "", connectors.Int, "Parallelism of assigner operator for dynamic bucket mode (sqlrun runs one assigner)."),
	opt("cross-partition-upsert.index-ttl", "", connectors.Duration, "The TTL in rocksdb index for cross partition upsert (primary keys not contain all partition fields), this can avoid maintaining too many indexes and lead to worse and worse performance, but please note that this may also cause data duplication. (sqlrun keeps the index in memory: an entry older than the TTL is gone at its next read.)"),
	opt("cross-partition-upsert.bootstrap-parallelism", "10", connectors.Int, "The parallelism for bootstrap in a single task for cross partition upsert (sqlrun reads the table's keys one split at a time)."),
	opt(OptDeletionVectors, "false", connectors.Bool, "Whether to enable deletion vectors mode."),
	opt("row-tracking.enabled", "false", connectors.Bool, "Whether enable unique row id for append table."),
	opt("data-evolution.enabled", "false", connectors.Bool, "Whether enable data evolution for row tracking table."),
	opt("index-file-in-data-file-dir", "false", connectors.Bool, "Whether index file in data file directory."),
	opt("scan.fallback-branch", "", connectors.String, "When a batch job queries from a table, if a partition does not exist in the current branch, the reader will try to get this partition from this fallback branch (sqlrun refuses such a batch read when the branch exists)."),
	opt("scan.primary-branch", "", connectors.String, "When a batch job queries from a table, if a partition exists in the primary branch, the reader will read this partition from the primary branch (sqlrun refuses such a batch read when the branch exists)."),
	opt("chain-table.enabled", "false", connectors.Bool, "Specify chain table enable (sqlrun refuses batch reads of chain tables)."),
	opt("blob-as-descriptor", "false", connectors.Bool, "Read BLOB columns as serialized BlobDescriptor bytes instead of their data (sqlrun reads BLOB columns as their bytes and refuses 'true')."),
	opt("blob-descriptor-field", "", connectors.String, "Comma-separated BLOB field names stored as serialized BlobDescriptor bytes inline in normal data files (sqlrun refuses to read such fields)."),
	opt("blob-field", "", connectors.String, "Specifies column names that should be stored as blob type (sqlrun refuses it in CREATE TABLE: it does not write BLOB columns)."),
	opt(OptDeletionVectorsBitmap64, "false", connectors.Bool, "Enable 64 bit bitmap implementation. Note that only 64 bit bitmap implementation is compatible with Iceberg."),
	opt("data-file.thin-mode", "false", connectors.Bool, "Enable data file thin mode to avoid duplicate columns storage."),
	opt("metadata.stats-mode", "truncate(16)", connectors.String, "The mode of metadata stats collection."),
	opt("metadata.stats-dense-store", "true", connectors.Bool, "Whether to store statistic densely in metadata."),

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
	opt("changelog.num-retained.min", "", connectors.Int, "The minimum number of completed changelog to retain."),
	opt("changelog.num-retained.max", "", connectors.Int, "The maximum number of completed changelog to retain."),
	opt("changelog.time-retained", "", connectors.Duration, "The maximum time of completed changelog to retain."),

	// Compaction.
	opt("num-sorted-run.compaction-trigger", "5", connectors.Int, "The sorted run number to trigger compaction."),
	opt("num-sorted-run.stop-trigger", "", connectors.Int, "The number of sorted runs that trigger the stopping of writes; default compaction-trigger + 3."),
	opt("num-levels", "", connectors.Int, "Total level number; default compaction-trigger + 1."),
	opt("compaction.max-size-amplification-percent", "200", connectors.Int, "The size amplification is defined as the amount (in percentage) of additional storage needed to store a single byte of data in the merge tree."),
	opt("compaction.size-ratio", "1", connectors.Int, "Percentage flexibility while comparing sorted run size."),
	opt("compaction.min.file-num", "5", connectors.Int, "For file set [f_0,...,f_N], the minimum file number to trigger a compaction for append table."),
	opt("compaction.optimization-interval", "", connectors.Duration, "How often to perform an optimization compaction."),
	opt("compaction.total-size-threshold", "", connectors.MemorySize, "When total size is smaller than this threshold, force a full compaction."),
	opt("compaction.force-up-level-0", "false", connectors.Bool, "If set to true, compaction strategy will always include all level-0 files in candidates."),

	// Lookup.
	opt("lookup.cache-max-memory-size", "256 mb", connectors.MemorySize, "Max memory size for lookup cache."),
	opt("lookup.cache-max-disk-size", "", connectors.MemorySize, "Max disk size for lookup cache."),
	opt("lookup.cache-file-retention", "1 h", connectors.Duration, "The cached files retention time for lookup."),
	opt("lookup.hash-load-factor", "0.75", connectors.Double, "The index load factor for lookup."),
	enum("lookup.local-file-type", "sort", []string{"sort", "hash"}, "The local file type for lookup."),
	enum("lookup.cache", "auto", []string{"auto", "full", "memory"}, "The cache mode of lookup join."),
	opt("lookup.async", "false", connectors.Bool, "Whether to enable async lookup join."),
	opt("lookup.async-thread-number", "16", connectors.Int, "The thread number for lookup async."),
	opt("lookup.refresh.async", "false", connectors.Bool, "Whether to refresh lookup table in an async thread."),

	// Scan.
	enum(OptScanMode, ScanDefault, []string{ScanDefault, ScanLatestFull, ScanFull, ScanLatest, ScanCompactedFull, ScanFromTimestamp, ScanFromFileCreation, ScanFromSnapshot, ScanFromSnapshotFull, ScanIncremental}, "Specify the scanning behavior of the source."),
	opt(OptScanSnapshotID, "", connectors.Long, "Optional snapshot id used in case of \"from-snapshot\" or \"from-snapshot-full\" scan mode."),
	opt(OptScanTimestampMillis, "", connectors.Long, "Optional timestamp used in case of \"from-timestamp\" scan mode."),
	opt(OptScanTimestamp, "", connectors.String, "Optional timestamp used in case of \"from-timestamp\" scan mode, in 'yyyy-MM-dd HH:mm:ss' form."),
	opt(OptScanTagName, "", connectors.String, "Optional tag name used in case of \"from-snapshot\" scan mode."),
	opt(OptScanWatermark, "", connectors.Long, "Optional watermark used in case of \"from-snapshot\" scan mode."),
	opt(OptScanVersion, "", connectors.String, "Specify the time travel version string."),
	opt("scan.file-creation-time-millis", "", connectors.Long, "Used with from-file-creation-time scan mode."),
	opt(OptScanBounded, "", connectors.Bool, "Bounded mode for Paimon consumer; by default it is bounded in batch mode and unbounded in streaming mode."),
	opt(OptScanRemoveNormalize, "false", connectors.Bool, "Whether to force the removal of the normalize node when streaming read."),
	opt(OptScanParallelism, "", connectors.Int, "Define a custom parallelism for the scan source."),
	opt("auto-create", "false", connectors.Bool, "Whether to create underlying storage when reading and writing the table."),
	opt("scan.infer-parallelism", "true", connectors.Bool, "If it is false, parallelism of source are set by global parallelism."),
	opt("scan.infer-parallelism.max", "1024", connectors.Int, "If scan.infer-parallelism is true, limit the parallelism of source through this option."),
	opt("scan.split-enumerator.batch-size", "10", connectors.Int, "How many splits should assign to subtask per batch."),
	opt("scan.max-splits-per-task", "10", connectors.Int, "Max split size should be cached for one task while scanning."),
	opt("scan.plan-sort-partition", "false", connectors.Bool, "Whether to sort plan files by partition fields."),
	opt("scan.push-down", "true", connectors.Bool, "If true, flink will push down projection, filters, limit to the source."),
	opt(OptIncrementalBetween, "", connectors.String, "Read incremental changes between start snapshot (exclusive) and end snapshot."),
	enum("incremental-between-scan-mode", "auto", []string{"auto", "delta", "changelog", "diff"}, "Scan kind when reading incremental changes between snapshots."),
	opt("incremental-between-timestamp", "", connectors.String, "Read incremental changes between start timestamp (exclusive) and end timestamp."),
	opt(OptDiscoveryInterval, "10 s", connectors.Duration, "The discovery interval of continuous reading."),
	opt(OptStreamingReadOverwrite, "false", connectors.Bool, "Whether to read the changes from overwrite in streaming mode."),
	opt("streaming-read-mode", "", connectors.String, "The mode of streaming read that specifies to read the data of table file or log."),
	opt("source.checkpoint-align.enabled", "false", connectors.Bool, "Whether to align the flink checkpoint with the snapshot of the paimon table."),

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
	opt("snapshot.expire.execution-mode", "sync", connectors.String, "Specifies the execution mode of expire."),
	opt("snapshot.clean-empty-directories", "false", connectors.Bool, "Whether to try to clean empty directories when expiring snapshots."),
	opt("snapshot.watermark-idle-timeout", "", connectors.Duration, "Idle timeout for the watermark of snapshots."),
	enum("tag.automatic-creation", "none", []string{"none", "process-time", "watermark", "batch"}, "Whether to create tag automatically."),
	opt("tag.creation-period", "daily", connectors.String, "What frequency is used to generate tags."),
	opt("tag.num-retained-max", "", connectors.Int, "The maximum number of tags to retain."),

	// Partitions.
	opt("partition.default-name", "__DEFAULT_PARTITION__", connectors.String, "The default partition name in case the dynamic partition column value is null/empty string."),
	opt("partition.legacy-name", "true", connectors.Bool, "The legacy partition name is using `toString` fpr all types."),
	opt("partition.expiration-time", "", connectors.Duration, "The expiration interval of a partition."),
	opt("partition.expiration-check-interval", "1 h", connectors.Duration, "The check interval of partition expiration."),
	opt("partition.timestamp-formatter", "", connectors.String, "The formatter to format timestamp from string."),
	opt("partition.timestamp-pattern", "", connectors.String, "The pattern to get a timestamp from partitions."),
	opt("partition.mark-done-action", "success-file", connectors.String, "Action to mark a partition done."),
}

// Known returns the Paimon table options sqlrun knows, with Paimon's names
// and defaults.
func Known() []connectors.Option {
	return append([]connectors.Option(nil), tableOptions...)
}
