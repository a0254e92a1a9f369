// Package manifest reads and writes Paimon's Avro metadata files: manifest
// lists (ManifestFileMeta records), manifests (ManifestEntry records with
// their DataFileMeta) and index manifests (paimon-format.md §4, §6), and
// folds a snapshot's entries into its live data files.
//
// Records are written in the Paimon 1.4 shape (manifest entry _FILE fields
// 0–19, manifest list with _MIN_ROW_ID/_MAX_ROW_ID) with Java's record names
// and ["null", T] unions; they are read by field name from the writer's
// schema, so files of 1.0–2.x (18-, 19- and 20-field DataFileMeta) all read.
// Every writer returns the exact size of what it wrote, because snapshots
// and manifest lists record sizes and Java trusts them.
package manifest

import (
	"fmt"
	"strings"
	"time"
)

// Version is the _VERSION written in manifest and manifest-list records.
const Version = 2

// IndexVersion is the _VERSION of index manifest records.
const IndexVersion = 1

// FileKind says whether an entry adds or deletes a file.
type FileKind int8

// The entry kinds.
const (
	Add    FileKind = 0
	Delete FileKind = 1
)

func (k FileKind) String() string {
	switch k {
	case Add:
		return "ADD"
	case Delete:
		return "DELETE"
	}
	return fmt.Sprintf("KIND(%d)", int8(k))
}

// FileSource says where a data file came from.
type FileSource int32

// The file sources.
const (
	// SourceAppend marks files of a buffer flush (and changelog files).
	SourceAppend FileSource = 0
	// SourceCompact marks compaction output.
	SourceCompact FileSource = 1
)

// SimpleStats are min/max/null-count statistics over some fields: min and
// max are serialized BinaryRows (binrow.Serialize) with one nullable field
// per covered column; NullCounts has one entry per column (nil = unknown).
// A nil NullCounts slice reads from a null union and is written as [].
type SimpleStats struct {
	MinValues  []byte
	MaxValues  []byte
	NullCounts []*int64
}

// EmptyStats is Java's SimpleStats.EMPTY_STATS: two empty rows and [].
func EmptyStats() SimpleStats {
	return SimpleStats{MinValues: emptyRow(), MaxValues: emptyRow(), NullCounts: []*int64{}}
}

func emptyRow() []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} }

// DataFileMeta describes one data or changelog file (the _FILE record).
//
// INVARIANT: for primary-key files MinKey/MaxKey are the first and last key
// of the file, keys are sorted and unique within the file, and
// DeleteRowCount counts the -U/-D rows exactly (or is nil = unknown).
type DataFileMeta struct {
	FileName string
	// FileSize is the exact byte size (Java passes it to the Parquet reader).
	FileSize int64
	RowCount int64
	// MinKey and MaxKey are serialized BinaryRows of the trimmed primary
	// key (the empty row for append files).
	MinKey, MaxKey    []byte
	KeyStats          SimpleStats
	ValueStats        SimpleStats
	MinSequenceNumber int64
	MaxSequenceNumber int64
	SchemaID          int64
	Level             int32
	ExtraFiles        []string
	// CreationTime is epoch milliseconds of the writer's local wall clock
	// (Java's LocalDateTime.now() stored as if UTC); nil if unknown.
	CreationTime   *int64
	DeleteRowCount *int64
	EmbeddedIndex  []byte
	FileSource     *FileSource
	// ValueStatsCols: nil = stats cover all fields of the file's schema; a
	// non-nil (possibly empty) slice names the covered columns. An empty
	// slice with empty ValueStats means "no value stats".
	ValueStatsCols []string
	ExternalPath   *string
	FirstRowID     *int64
	// WriteCols (data evolution) is nil unless set.
	WriteCols []string
}

// ManifestEntry is one ADD or DELETE of a file in a (partition, bucket).
type ManifestEntry struct {
	Kind FileKind
	// Partition is the serialized BinaryRow of the partition values.
	Partition    []byte
	Bucket       int32
	TotalBuckets int32
	File         DataFileMeta
}

// Identifier is what folds ADD and DELETE entries of the same file: partition
// bytes, bucket, level, file name, extra files, embedded index and external
// path (Java's FileEntry.Identifier).
func (e *ManifestEntry) Identifier() string {
	var b strings.Builder
	b.Write(e.Partition)
	ext := ""
	if e.File.ExternalPath != nil {
		ext = *e.File.ExternalPath
	}
	fmt.Fprintf(&b, "\x00%d\x00%d\x00%s\x00%q\x00%x\x00%s", e.Bucket, e.File.Level, e.File.FileName,
		e.File.ExtraFiles, e.File.EmbeddedIndex, ext)
	return b.String()
}

// ManifestFileMeta describes one manifest file inside a manifest list.
type ManifestFileMeta struct {
	FileName        string
	FileSize        int64
	NumAddedFiles   int64
	NumDeletedFiles int64
	// PartitionStats covers all partition fields of the entries.
	PartitionStats SimpleStats
	// SchemaID is the max schema id of the entries.
	SchemaID             int64
	MinBucket, MaxBucket *int32
	MinLevel, MaxLevel   *int32
	MinRowID, MaxRowID   *int64
}

// IndexManifestEntry is one index file (dynamic-bucket hash index, deletion
// vectors, 2.x global indexes) of an index manifest.
type IndexManifestEntry struct {
	Kind         FileKind
	Partition    []byte
	Bucket       int32
	IndexType    string
	FileName     string
	FileSize     int64
	RowCount     int64
	DVRanges     []DVRange
	ExternalPath *string
	// HasGlobalIndex marks 2.x global index entries (_GLOBAL_INDEX set).
	HasGlobalIndex bool
}

// DVRange locates one data file's deletion vector inside a DV index file.
type DVRange struct {
	DataFile    string
	Offset      int32
	Length      int32
	Cardinality *int64
}

// Index types of IndexManifestEntry.
const (
	IndexHash            = "HASH"
	IndexDeletionVectors = "DELETION_VECTORS"
)

// CreationTimeMillis is the _CREATION_TIME Java writes for a file created at
// t: LocalDateTime.now() (the local wall clock) stored as if it were UTC.
func CreationTimeMillis(t time.Time) int64 {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC).UnixMilli()
}
