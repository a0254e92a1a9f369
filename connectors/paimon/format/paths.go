package format

import (
	"strconv"
	"sync"

	"github.com/google/uuid"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
)

// FileNames hands out data and changelog file names for one (partition,
// bucket) writer: one UUID, one counter shared by data- and changelog-
// files (Java's DataFilePathFactory). Only uniqueness matters to readers.
// Safe for concurrent use.
type FileNames struct {
	mu   sync.Mutex
	uuid string
	n    int
	ext  string
	// DataPrefix and ChangelogPrefix are the options data-file.prefix and
	// changelog-file.prefix (defaults "data-" and "changelog-").
	DataPrefix, ChangelogPrefix string
}

// NewFileNames returns a generator for files of the given format extension
// ("parquet", or "zstd.parquet" when file.suffix.include.compression).
func NewFileNames(ext string) *FileNames {
	if ext == "" {
		ext = "parquet"
	}
	return &FileNames{uuid: uuid.NewString(), ext: ext, DataPrefix: "data-", ChangelogPrefix: "changelog-"}
}

func (f *FileNames) next(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := prefix + f.uuid + "-" + strconv.Itoa(f.n) + "." + f.ext
	f.n++
	return s
}

// Data returns the next data file name: data-<uuid>-<n>.<ext>.
func (f *FileNames) Data() string { return f.next(f.DataPrefix) }

// Changelog returns the next changelog file name.
func (f *FileNames) Changelog() string { return f.next(f.ChangelogPrefix) }

// BucketDir is the directory of a bucket's files: <table>/<partition
// path>bucket-<b> (partitionPath from binrow.PartitionPath, "" when
// unpartitioned; bucket -2 is Paimon's postpone bucket).
func BucketDir(tableRoot, partitionPath string, bucket int) string {
	b := "bucket-" + strconv.Itoa(bucket)
	if bucket == -2 {
		b = "bucket-postpone"
	}
	return fs.Join(tableRoot, partitionPath+b)
}
