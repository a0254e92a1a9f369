package coreoptions

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Options is a table's options, parsed once (Parse) into typed fields with
// Paimon 1.4.2's defaults and fallback keys. It is immutable after Parse
// and shared by every reader and writer of the table.
type Options struct {
	raw map[string]string

	// Layout and write path.
	Bucket     int    // bucket (-1: dynamic for primary-key tables, unaware for append)
	FileFormat string // file.format
	// DataFilePrefix and ChangelogFilePrefix are data-file.prefix ("data-")
	// and changelog-file.prefix ("changelog-"), the file name prefixes.
	DataFilePrefix, ChangelogFilePrefix string
	FileCompression                     string // file.compression ("" leaves the writer's default)
	ZstdLevel                           int    // file.compression.zstd-level (0: unset)
	// CompressionPerLevel is file.compression.per.level ('0:lz4,1:zstd'):
	// the compression of a primary-key table's data files by level.
	CompressionPerLevel  map[int]string
	StatsMode            string // metadata.stats-mode
	StringEncoding       string // sqlrun.parquet.string-encoding (sqlrun's own)
	WriteBufferSize      int64  // write-buffer-size
	WriteBufferSpillable bool   // write-buffer-spillable
	// WriteMaxWritersToSpill is write-max-writers-to-spill: a postpone
	// bucket write's writers buffer and spill their records once it has
	// this many.
	WriteMaxWritersToSpill int
	// WriteBufferSpillMaxDisk is write-buffer-spill.max-disk-size (0: no
	// limit, Paimon's MemorySize.MAX_VALUE).
	WriteBufferSpillMaxDisk int64
	SortSpillThreshold      int    // sort-spill-threshold (0: unset)
	SpillCompression        string // spill-compression: zstd or none
	SpillZstdLevel          int    // spill-compression.zstd-level
	WriteOnly               bool   // write-only
	IgnoreDelete            bool   // ignore-delete (fallbacks: first-row., deduplicate., partial-update.ignore-delete)
	IgnoreUpdateBefore      bool   // ignore-update-before
	CommitMaxRetries        int    // commit.max-retries
	DynamicPartitionOverwr  bool   // dynamic-partition-overwrite
	ManifestCompression     string // manifest.compression
	ManifestMergeMinCount   int    // manifest.merge-min-count
	ManifestTargetFileSize  int64  // manifest.target-file-size
	DeletionVectors         bool   // deletion-vectors.enabled
	DeletionVectorsBitmap64 bool   // deletion-vectors.bitmap64
	DynamicBucketTargetRows int64  // dynamic-bucket.target-row-num
	DynamicBucketMaxBuckets int    // dynamic-bucket.max-buckets
	// Postpone bucket mode (bucket = -2): postpone.batch-write-fixed-bucket,
	// postpone.batch-write-fixed-bucket.max-parallelism and
	// postpone.default-bucket-num.
	PostponeBatchFixedBucket bool
	PostponeBatchMaxPar      int
	PostponeDefaultBuckets   int
	// CrossPartitionIndexTTL is cross-partition-upsert.index-ttl (0: none).
	CrossPartitionIndexTTL time.Duration
	PartitionDefaultName   string // partition.default-name
	PartitionLegacyName    bool   // partition.legacy-name
	// RowTracking is row-tracking.enabled: append files get first row ids
	// at commit (RowTrackingCommitUtils) and the snapshot a nextRowId.
	RowTracking bool
	// DataEvolution is data-evolution.enabled: files sharing a row-id range
	// are read as one, each column from the newest file that wrote it
	// (DataEvolutionSplitRead).
	DataEvolution bool
	// BlobAsDescriptor is blob-as-descriptor: BLOB columns read as
	// serialized BlobDescriptor bytes (refused by the table's reader).
	BlobAsDescriptor bool
	// BlobDescriptorFields is blob-descriptor-field: BLOB columns kept as
	// descriptors inline in the data files (refused by the reader).
	BlobDescriptorFields []string
	// IndexInDataDir is index-file-in-data-file-dir: index files live in
	// their bucket's directory instead of <table>/index.
	IndexInDataDir    bool
	targetFileSize    int64 // target-file-size (see TargetFileSize)
	targetFileSizeSet bool

	// Snapshots and consumers.
	SnapshotNumRetainedMin int           // snapshot.num-retained.min
	SnapshotNumRetainedMax int           // snapshot.num-retained.max
	SnapshotTimeRetained   time.Duration // snapshot.time-retained
	SnapshotExpireLimit    int           // snapshot.expire.limit
	// SnapshotCleanEmptyDirs is snapshot.clean-empty-directories
	// (fallback snapshot.expire.clean-empty-directories).
	SnapshotCleanEmptyDirs bool
	OverwriteUpgrade       bool // overwrite-upgrade
	// ConsumerExpiration is consumer.expiration-time (0: unset, consumers
	// never expire).
	ConsumerExpiration time.Duration
	// PartitionExpiration are the partition.expiration-* and
	// partition.timestamp-* options (PartitionExpire).
	PartitionExpiration PartitionExpiration
	// RecordExpireTime is 'record-level.expire-time' (nil: unset) and
	// RecordTimeField 'record-level.time-field'.
	RecordExpireTime *time.Duration
	RecordTimeField  string
	// EndInputWatermark is 'end-input.watermark': the watermark a
	// commit records once the input has ended (nil: unset).
	EndInputWatermark *int64
	// TagAuto are the tag.* options of automatic tag creation.
	TagAuto TagAuto

	// Merge semantics (primary-key tables).
	MergeEngine       string   // merge-engine, lower case
	SequenceFields    []string // sequence.field, split at commas
	SequenceDesc      bool     // sequence.field.sort-order = descending
	ChangelogProducer string   // changelog-producer, lower case
	ForceLookup       bool     // force-lookup
	LookupWait        bool     // lookup-wait (fallback changelog-producer.lookup-wait)
	// CommitForceCompact is commit.force-compact: every commit waits for
	// the compaction its flush triggered (MergeTreeWriter.prepareCommit).
	CommitForceCompact bool
	RowDeduplicate     bool // changelog-producer.row-deduplicate
	// RowDeduplicateIgnoreFields is
	// changelog-producer.row-deduplicate-ignore-fields split at commas.
	RowDeduplicateIgnoreFields []string
	// ChangelogCompactionInterval is the deprecated
	// changelog-producer.compaction-interval (0: unset).
	ChangelogCompactionInterval time.Duration
	// FullCompactionDeltaCommits is full-compaction.delta-commits (-1: unset).
	FullCompactionDeltaCommits int
	CompactionTrigger          int // num-sorted-run.compaction-trigger
	StopTrigger                int // num-sorted-run.stop-trigger (0: compaction-trigger + 3)
	NumLevels                  int // num-levels (0: compaction-trigger + 1)
	MaxSizeAmplification       int // compaction.max-size-amplification-percent
	SizeRatio                  int // compaction.size-ratio
	LookupCompactGentle        bool
	LookupCompactMaxInterval   int   // lookup-compact.max-interval (0: 2 * compaction-trigger)
	LookupCacheMaxMemory       int64 // lookup.cache-max-memory-size
	LookupCacheMaxDisk         int64 // lookup.cache-max-disk-size (0: unbounded)
	AggregationRemoveOnDelete  bool  // aggregation.remove-record-on-delete
	PartialUpdateRemoveOnDel   bool  // partial-update.remove-record-on-delete
	// PartialUpdateRemoveOnSequenceGroup is
	// partial-update.remove-record-on-sequence-group split at commas.
	PartialUpdateRemoveOnSequenceGroup []string
	// DefaultAggregateFunction is fields.default-aggregate-function, lower case.
	DefaultAggregateFunction string
	// SequenceGroups are the fields.<seq fields>.sequence-group options, by
	// key order.
	SequenceGroups []SequenceGroup

	// Scan.
	Scan Scan
}

// TagAuto configures Paimon's TagAutoCreation and TagBatchCreation.
type TagAuto struct {
	Mode           string        // tag.automatic-creation: none, process-time, watermark, batch
	Period         string        // tag.creation-period: daily, hourly, two-hours
	PeriodDuration time.Duration // tag.creation-period-duration (0: unset)
	Delay          time.Duration // tag.creation-delay
	Formatter      string        // tag.period-formatter
	NumRetainedMax *int          // tag.num-retained-max
	Completion     bool          // tag.automatic-completion
	BatchName      string        // tag.batch.customized-name ("": batch-write-<date>)
	// ProcessTimeZone is sink.process-time-zone ("": the process's zone,
	// as Paimon takes the JVM's).
	ProcessTimeZone string
	// WatermarkTimeZone is sink.watermark-time-zone ('watermark' tags).
	WatermarkTimeZone string
	// WatermarkIdleTimeout is snapshot.watermark-idle-timeout (0: unset).
	WatermarkIdleTimeout time.Duration
}

// PartitionExpiration configures Paimon's PartitionExpire.
type PartitionExpiration struct {
	// Time is partition.expiration-time (0: unset, no expiration).
	Time time.Duration
	// CheckInterval is partition.expiration-check-interval (1 h).
	CheckInterval time.Duration
	// Strategy is partition.expiration-strategy: values-time or
	// update-time (other values fail when an expiration is created, as
	// PartitionExpireStrategy.createPartitionExpireStrategy does).
	Strategy string
	// MaxNum is partition.expiration-max-num (100); BatchSize is
	// partition.expiration-batch-size (default MaxNum).
	MaxNum, BatchSize int
	// Formatter and Pattern are partition.timestamp-formatter and
	// partition.timestamp-pattern; HasFormatter and HasPattern whether
	// they are set.
	Formatter, Pattern       string
	HasFormatter, HasPattern bool
	// EndInputCheck is end-input.check-partition-expire: a batch commit
	// (identifier Long.MAX_VALUE) checks whatever the interval.
	EndInputCheck bool
	// FormatStrict is partition.timestamp-format.strict: writes fail on a
	// partition whose values the formatter and pattern do not parse.
	FormatStrict bool
}

// SequenceGroup is one 'fields.<a,b>.sequence-group' = 'c,d' option.
type SequenceGroup struct {
	Key       string   // the option key, for messages
	SeqFields []string // a, b
	Fields    []string // c, d
}

// Scan are the read options.
type Scan struct {
	// Mode is the effective scan.mode (ResolveMode).
	Mode string
	// Bounded is scan.bounded = true.
	Bounded          bool
	SnapshotID       *int64 // scan.snapshot-id
	TimestampMillis  *int64 // scan.timestamp-millis, or scan.timestamp in local time
	TagName          string // scan.tag-name
	BoundedWatermark *int64 // scan.bounded.watermark
	// IncrementalBetween is incremental-between split at the comma.
	IncrementalBetween []string
	// IncrementalBetweenTimestamp is incremental-between-timestamp (epoch
	// millis, start exclusive).
	IncrementalBetweenTimestamp []int64
	// IncrementalScanMode is incremental-between-scan-mode, lower case.
	IncrementalScanMode    string
	DiscoveryInterval      time.Duration // continuous.discovery-interval
	ReadOverwrite          bool          // streaming-read-overwrite
	ConsumerID             string        // consumer-id
	ConsumerAtLeastOnce    bool          // consumer.mode = at-least-once
	ConsumerIgnoreProgress bool          // consumer.ignore-progress
}

// Raw returns the option map the value was parsed from (do not modify it).
func (o *Options) Raw() map[string]string { return o.raw }

// Has reports whether key is set.
func (o *Options) Has(key string) bool { _, ok := o.raw[key]; return ok }

// Field returns the per-field option fields.<field>.<name>.
func (o *Options) Field(field, name string) (string, bool) {
	v, ok := o.raw["fields."+field+"."+name]
	return v, ok
}

// FieldFlag reports whether fields.<field>.<name> is 'true'.
func (o *Options) FieldFlag(field, name string) bool {
	v, _ := o.Field(field, name)
	return strings.EqualFold(strings.TrimSpace(v), "true")
}

// AggregateFunction is fields.<field>.aggregate-function, else
// fields.default-aggregate-function, in lower case ("" when neither).
func (o *Options) AggregateFunction(field string) string {
	if v, _ := o.Field(field, "aggregate-function"); v != "" {
		return strings.ToLower(v)
	}
	return o.DefaultAggregateFunction
}

// TargetFileSize is CoreOptions.targetFileSize(hasPrimaryKey):
// target-file-size, else 128 mb for primary-key tables and 256 mb for
// append tables.
func (o *Options) TargetFileSize(primaryKey bool) int64 {
	switch {
	case o.targetFileSizeSet:
		return o.targetFileSize
	case primaryKey:
		return 128 << 20
	}
	return 256 << 20
}

// Parse parses raw into Options. A value that does not parse fails with
// Flink's message naming the option ("Could not parse value 'x' for key
// 'k'."); keys sqlrun does not read are kept in Raw and not checked here
// (the connector factory checks every known key while planning).
func Parse(raw map[string]string) (*Options, error) {
	raw = withFallbacks(raw)
	p := parser{raw: raw}
	o := &Options{raw: raw}

	o.Bucket = p.integer(OptBucket, -1)
	o.FileFormat = strings.ToLower(strings.TrimSpace(p.str(OptFileFormat, "")))
	if o.FileFormat == "" {
		o.FileFormat = "parquet"
	}
	o.FileCompression = p.str(OptFileCompression, "")
	o.CompressionPerLevel = p.levelMap("file.compression.per.level")
	o.DataFilePrefix = p.str("data-file.prefix", "data-")
	o.ChangelogFilePrefix = p.str("changelog-file.prefix", "changelog-")
	o.ZstdLevel = p.integer("file.compression.zstd-level", 0)
	o.StatsMode = p.str("metadata.stats-mode", "")
	o.StringEncoding = p.str(OptStringEncoding, "")
	o.WriteBufferSize = p.memory(OptWriteBufferSize, 256<<20)
	o.WriteBufferSpillable = p.boolean("write-buffer-spillable", true)
	o.WriteMaxWritersToSpill = p.integer("write-max-writers-to-spill", 10)
	o.WriteBufferSpillMaxDisk = p.memory("write-buffer-spill.max-disk-size", 0)
	o.SortSpillThreshold = p.integer("sort-spill-threshold", 0)
	switch o.SpillCompression = strings.ToLower(strings.TrimSpace(p.str("spill-compression", "zstd"))); o.SpillCompression {
	case "zstd", "none":
	default:
		// Paimon also takes lz4 and lzo; sqlrun's spill files are its own
		// and it refuses what it does not implement rather than guess.
		p.setErr(fmt.Errorf("spill-compression '%s' is not supported by sqlrun (zstd or none)", o.SpillCompression))
	}
	o.SpillZstdLevel = p.integer("spill-compression.zstd-level", 1)
	o.WriteOnly = p.boolean(OptWriteOnly, false)
	o.IgnoreDelete = p.boolean(OptIgnoreDelete, false, "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete")
	o.IgnoreUpdateBefore = p.boolean(OptIgnoreUpdateBefore, false)
	o.CommitMaxRetries = p.integer("commit.max-retries", 10)
	o.DynamicPartitionOverwr = p.boolean("dynamic-partition-overwrite", true)
	o.ManifestCompression = p.str("manifest.compression", "")
	o.ManifestMergeMinCount = p.integer("manifest.merge-min-count", 30)
	o.ManifestTargetFileSize = p.memory("manifest.target-file-size", 8<<20)
	o.DeletionVectors = p.boolean(OptDeletionVectors, false)
	o.DeletionVectorsBitmap64 = p.boolean(OptDeletionVectorsBitmap64, false)
	o.DynamicBucketTargetRows = p.long("dynamic-bucket.target-row-num", 2_000_000)
	o.DynamicBucketMaxBuckets = p.integer("dynamic-bucket.max-buckets", -1)
	o.PostponeBatchFixedBucket = p.boolean("postpone.batch-write-fixed-bucket", true)
	o.PostponeBatchMaxPar = p.integer("postpone.batch-write-fixed-bucket.max-parallelism", 2048)
	o.PostponeDefaultBuckets = p.integer("postpone.default-bucket-num", 1)
	p.integer("dynamic-bucket.initial-buckets", 1)      // checked only: one assigner
	p.integer("dynamic-bucket.assigner-parallelism", 1) // checked only: one assigner
	o.CrossPartitionIndexTTL = p.duration("cross-partition-upsert.index-ttl", 0)
	p.integer("cross-partition-upsert.bootstrap-parallelism", 10) // checked only: one reader
	o.PartitionDefaultName = p.str("partition.default-name", "")
	o.PartitionLegacyName = p.boolean("partition.legacy-name", true)
	o.RowTracking = p.boolean("row-tracking.enabled", false)
	o.DataEvolution = p.boolean("data-evolution.enabled", false)
	o.IndexInDataDir = p.boolean("index-file-in-data-file-dir", false)
	o.BlobAsDescriptor = p.boolean("blob-as-descriptor", false)
	o.BlobDescriptorFields = p.list("blob-descriptor-field")
	if _, ok := raw[OptTargetFileSize]; ok {
		o.targetFileSize, o.targetFileSizeSet = p.memory(OptTargetFileSize, 0), true
	}

	o.SnapshotNumRetainedMin = p.integer("snapshot.num-retained.min", 10)
	o.SnapshotNumRetainedMax = p.integer("snapshot.num-retained.max", math.MaxInt32)
	o.SnapshotTimeRetained = p.duration("snapshot.time-retained", time.Hour)
	o.SnapshotExpireLimit = p.integer("snapshot.expire.limit", 50)
	o.SnapshotCleanEmptyDirs = p.boolean("snapshot.clean-empty-directories", false, "snapshot.expire.clean-empty-directories")
	o.OverwriteUpgrade = p.boolean("overwrite-upgrade", true)
	o.ConsumerExpiration = p.duration(OptConsumerExpirationTime, 0)
	o.PartitionExpiration = p.partitionExpiration()
	o.TagAuto = p.tagAuto()
	o.EndInputWatermark = p.optLong("end-input.watermark")
	if _, ok := p.raw["record-level.expire-time"]; ok {
		d := p.duration("record-level.expire-time", 0)
		o.RecordExpireTime = &d
	}
	o.RecordTimeField = p.str("record-level.time-field", "")

	o.MergeEngine = strings.ToLower(p.str(OptMergeEngine, EngineDeduplicate))
	o.SequenceFields = p.list(OptSequenceField)
	switch v := strings.ToLower(p.str("sequence.field.sort-order", "ascending")); v {
	case "ascending":
	case "descending":
		o.SequenceDesc = true
	default:
		p.fail("sequence.field.sort-order")
	}
	o.ChangelogProducer = strings.ToLower(p.str(OptChangelogProducer, ProducerNone))
	o.ForceLookup = p.boolean("force-lookup", false)
	o.LookupWait = p.boolean("lookup-wait", true, "changelog-producer.lookup-wait")
	o.CommitForceCompact = p.boolean("commit.force-compact", false)
	o.RowDeduplicate = p.boolean(OptRowDeduplicate, false)
	o.RowDeduplicateIgnoreFields = p.list("changelog-producer.row-deduplicate-ignore-fields")
	o.ChangelogCompactionInterval = p.duration("changelog-producer.compaction-interval", 0)
	o.FullCompactionDeltaCommits = p.integer(OptFullCompactionDeltaCmts, -1)
	o.CompactionTrigger = p.integer("num-sorted-run.compaction-trigger", 5)
	o.StopTrigger = p.integer("num-sorted-run.stop-trigger", 0)
	o.NumLevels = p.integer("num-levels", 0)
	o.MaxSizeAmplification = p.integer("compaction.max-size-amplification-percent", 200)
	o.SizeRatio = p.integer("compaction.size-ratio", 1)
	o.LookupCompactGentle = strings.EqualFold(strings.TrimSpace(p.str("lookup-compact", "radical")), "gentle")
	o.LookupCompactMaxInterval = p.integer("lookup-compact.max-interval", 0)
	o.LookupCacheMaxMemory = p.memory("lookup.cache-max-memory-size", 256<<20)
	o.LookupCacheMaxDisk = p.memory("lookup.cache-max-disk-size", 0)
	o.AggregationRemoveOnDelete = p.boolean("aggregation.remove-record-on-delete", false)
	o.PartialUpdateRemoveOnDel = p.boolean("partial-update.remove-record-on-delete", false)
	o.PartialUpdateRemoveOnSequenceGroup = p.list("partial-update.remove-record-on-sequence-group")
	o.DefaultAggregateFunction = strings.ToLower(p.str("fields.default-aggregate-function", ""))
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !strings.HasPrefix(k, OptPartialUpdateAggPrefix) || !strings.HasSuffix(k, ".sequence-group") {
			continue
		}
		seq := strings.TrimSuffix(strings.TrimPrefix(k, OptPartialUpdateAggPrefix), ".sequence-group")
		o.SequenceGroups = append(o.SequenceGroups, SequenceGroup{Key: k, SeqFields: strings.Split(seq, ","), Fields: strings.Split(raw[k], ",")})
	}

	o.Scan = p.scan()
	if p.err != nil {
		return nil, p.err
	}
	return o, nil
}

// tagAuto reads the tag creation options; the others than the mode only
// when tags are created (Paimon reads them when it creates a commit's
// TagAutoCreation), so a table with a stray value stays readable.
func (p *parser) tagAuto() TagAuto {
	a := TagAuto{Mode: p.enum("tag.automatic-creation", "none", "none", "process-time", "watermark", "batch"),
		Period: "daily", Formatter: "with_dashes"}
	if a.Mode == "none" {
		return a
	}
	a.Period = p.enum("tag.creation-period", "daily", "daily", "hourly", "two-hours")
	a.PeriodDuration = p.duration("tag.creation-period-duration", 0)
	a.Delay = p.duration("tag.creation-delay", 0)
	a.Formatter = p.enum("tag.period-formatter", "with_dashes", "with_dashes", "without_dashes", "without_dashes_and_spaces")
	a.Completion = p.boolean("tag.automatic-completion", false)
	a.BatchName = p.str("tag.batch.customized-name", "")
	a.ProcessTimeZone = strings.TrimSpace(p.str("sink.process-time-zone", ""))
	a.WatermarkTimeZone = strings.TrimSpace(p.str("sink.watermark-time-zone", "UTC"))
	a.WatermarkIdleTimeout = p.duration("snapshot.watermark-idle-timeout", 0)
	if _, ok := p.raw["tag.num-retained-max"]; ok {
		n := p.integer("tag.num-retained-max", 0)
		a.NumRetainedMax = &n
	}
	return a
}

func (p *parser) partitionExpiration() PartitionExpiration {
	e := PartitionExpiration{
		Time:          p.duration("partition.expiration-time", 0),
		CheckInterval: p.duration("partition.expiration-check-interval", time.Hour),
		Strategy:      p.str("partition.expiration-strategy", "values-time"),
		MaxNum:        p.integer("partition.expiration-max-num", 100),
		EndInputCheck: p.boolean("end-input.check-partition-expire", false),
		FormatStrict:  p.boolean("partition.timestamp-format.strict", false),
	}
	e.BatchSize = p.integer("partition.expiration-batch-size", e.MaxNum)
	_, e.Formatter, e.HasFormatter = p.get("partition.timestamp-formatter")
	_, e.Pattern, e.HasPattern = p.get("partition.timestamp-pattern")
	return e
}

func (p *parser) scan() Scan {
	s := Scan{Mode: ResolveMode(p.raw), DiscoveryInterval: 10 * time.Second}
	s.Bounded = p.boolean(OptScanBounded, false)
	s.SnapshotID = p.optLong(OptScanSnapshotID)
	s.TimestampMillis = p.optLong(OptScanTimestampMillis)
	if v, ok := p.raw[OptScanTimestamp]; ok && s.TimestampMillis == nil {
		ms, err := parseLocalTimestamp(v)
		if err != nil {
			p.fail(OptScanTimestamp)
		}
		s.TimestampMillis = &ms
	}
	s.BoundedWatermark = p.optLong("scan.bounded.watermark")
	s.TagName = strings.TrimSpace(p.raw[OptScanTagName])
	if v, ok := p.raw[OptIncrementalBetween]; ok {
		parts := strings.Split(v, ",")
		if len(parts) != 2 {
			p.setErr(sql.Errorf(sql.IllegalArgumentException, "The incremental-between or incremental-between-timestamp must specific start(exclusive) and end timestamp or snapshot or tag, but is: %s", v))
		} else {
			s.IncrementalBetween = []string{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])}
		}
	}
	if v, ok := p.raw["incremental-between-timestamp"]; ok {
		parts := strings.Split(v, ",")
		if len(parts) != 2 {
			p.setErr(sql.Errorf(sql.IllegalArgumentException, "The incremental-between or incremental-between-timestamp must specific start(exclusive) and end timestamp or snapshot or tag, but is: %s", v))
		}
		for _, part := range parts {
			n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
			if err != nil {
				p.fail("incremental-between-timestamp")
			}
			s.IncrementalBetweenTimestamp = append(s.IncrementalBetweenTimestamp, n)
		}
	}
	s.IncrementalScanMode = strings.ToLower(strings.TrimSpace(p.str("incremental-between-scan-mode", "auto")))
	s.DiscoveryInterval = p.duration(OptDiscoveryInterval, 10*time.Second)
	s.ReadOverwrite = p.boolean(OptStreamingReadOverwrite, false)
	s.ConsumerID = p.raw[OptConsumerID]
	s.ConsumerIgnoreProgress = p.boolean(OptConsumerIgnoreProgress, false)
	switch strings.ToLower(strings.TrimSpace(p.raw[OptConsumerMode])) {
	case "", "exactly-once":
	case "at-least-once":
		s.ConsumerAtLeastOnce = true
	default:
		p.fail(OptConsumerMode)
	}
	return s
}

// ResolveMode is CoreOptions.startupMode(): 'default' becomes
// from-timestamp, from-snapshot, incremental or latest-full depending on
// which scan options are set; 'full' is latest-full. Any other value is
// returned as given (lower case), for the caller to refuse.
func ResolveMode(raw map[string]string) string {
	raw = withFallbacks(raw)
	m := strings.ToLower(strings.TrimSpace(raw[OptScanMode]))
	switch m {
	case "", ScanDefault:
	case ScanFull:
		return ScanLatestFull
	default:
		return m
	}
	has := func(k string) bool { _, ok := raw[k]; return ok }
	switch {
	case has(OptScanTimestampMillis) || has(OptScanTimestamp):
		return ScanFromTimestamp
	case has(OptScanSnapshotID) || has(OptScanTagName) || has(OptScanWatermark) || has(OptScanVersion):
		return ScanFromSnapshot
	case has("scan.file-creation-time-millis"):
		return ScanFromFileCreation
	case has("scan.creation-time-millis"):
		return ScanFromCreation
	case has(OptIncrementalBetween) || has("incremental-between-timestamp"):
		return ScanIncremental
	}
	return ScanLatestFull
}

// withFallbacks returns raw with each declared option that is unset but
// has a fallback key set (CoreOptions' withFallbackKeys: 'log.scan' for
// 'scan.mode', 'write.compaction-skip' for 'write-only', ...) set to the
// first such fallback's value, as Paimon's Options.get reads it. raw is
// not modified; nil gives an empty map.
func withFallbacks(raw map[string]string) map[string]string {
	out, cloned := raw, false
	for _, d := range tableOptions {
		if len(d.FallbackKeys) == 0 || d.Key == OptIgnoreDelete {
			continue // Parse reads ignore-delete's fallbacks itself, naming the key in its errors
		}
		if _, ok := raw[d.Key]; ok {
			continue
		}
		for _, fb := range d.FallbackKeys {
			if v, ok := raw[fb]; ok {
				if !cloned {
					out, cloned = maps.Clone(raw), true
				}
				out[d.Key] = v
				break
			}
		}
	}
	if out == nil {
		out = map[string]string{}
	}
	return out
}

// parseLocalTimestamp parses 'scan.timestamp' ("yyyy-MM-dd HH:mm:ss" and
// variants) in the local time zone, as Paimon's DateTimeUtils does.
func parseLocalTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("bad timestamp %q", s)
}

// parser reads typed values from raw, keeping the first error.
type parser struct {
	raw map[string]string
	err error
}

func (p *parser) setErr(err error) {
	if p.err == nil {
		p.err = err
	}
}

// fail records Flink's message for a value of key that does not parse.
func (p *parser) fail(key string) {
	p.setErr(sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key '%s'.", p.raw[key], key))
}

// get returns key's value, else the first fallback key's that is set.
func (p *parser) get(key string, fallback ...string) (string, string, bool) {
	if v, ok := p.raw[key]; ok {
		return key, v, true
	}
	for _, k := range fallback {
		if v, ok := p.raw[k]; ok {
			return k, v, true
		}
	}
	return key, "", false
}

// enum is key's value among values (Paimon's enum options match their
// values without case), def when unset.
func (p *parser) enum(key, def string, values ...string) string {
	v, ok := p.raw[key]
	if !ok {
		return def
	}
	for _, e := range values {
		if strings.EqualFold(e, strings.TrimSpace(v)) {
			return e
		}
	}
	p.fail(key)
	return def
}

func (p *parser) str(key, def string) string {
	if _, v, ok := p.get(key); ok {
		return v
	}
	return def
}

func (p *parser) list(key string) []string {
	v := strings.TrimSpace(p.raw[key])
	if v == "" {
		return nil
	}
	out := strings.Split(v, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// levelMap parses a Flink map option of levels ('0:lz4, 1:zstd'), as
// CoreOptions.fileCompressionPerLevel reads it (nil when unset or empty).
func (p *parser) levelMap(key string) map[int]string {
	v := strings.TrimSpace(p.raw[key])
	if v == "" {
		return nil
	}
	out := map[int]string{}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, ":")
		n, err := strconv.Atoi(strings.TrimSpace(k))
		if !ok || err != nil {
			p.fail(key)
			return nil
		}
		out[n] = strings.ToLower(strings.TrimSpace(val))
	}
	return out
}

func (p *parser) boolean(key string, def bool, fallback ...string) bool {
	k, v, ok := p.get(key, fallback...)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true
	case "false":
		return false
	}
	p.fail(k)
	return def
}

func (p *parser) integer(key string, def int) int {
	v, ok := p.raw[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		p.fail(key)
		return def
	}
	return int(n)
}

func (p *parser) long(key string, def int64) int64 {
	if n := p.optLong(key); n != nil {
		return *n
	}
	return def
}

func (p *parser) optLong(key string) *int64 {
	v, ok := p.raw[key]
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		p.fail(key)
		return nil
	}
	return &n
}

func (p *parser) memory(key string, def int64) int64 {
	v, ok := p.raw[key]
	if !ok {
		return def
	}
	n, err := connectors.ParseMemorySize(v)
	if err != nil {
		p.fail(key)
		return def
	}
	return n
}

func (p *parser) duration(key string, def time.Duration) time.Duration {
	v, ok := p.raw[key]
	if !ok {
		return def
	}
	d, err := connectors.ParseDuration(v)
	if err != nil {
		p.fail(key)
		return def
	}
	return d
}
