package table

import (
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
)

// deletionBuckets is FileDeletionBase's deletionBuckets: the partition
// and bucket of every data or changelog file a snapshot expiration or tag
// deletion deleted, keyed by serialized partition, for
// cleanEmptyDirectories.
type deletionBuckets map[string]map[int]bool

// record is FileDeletionBase.recordDeletionBuckets.
func (d deletionBuckets) record(e manifest.ManifestEntry) {
	p := string(e.Partition)
	if d[p] == nil {
		d[p] = map[int]bool{}
	}
	b := int(e.Bucket)
	if e.TotalBuckets == -1 && b < 0 {
		b = 0 // as entryPath places the file
	}
	d[p][b] = true
}

// cleanEmptyDirectories is FileDeletionBase.cleanEmptyDirectories, run
// when 'snapshot.clean-empty-directories' is true (Paimon's default is
// false, and so is sqlrun's): each recorded bucket directory is deleted if
// it is empty, then the deepest partition directory, and when that went,
// its ancestors from the deepest to the shallowest, each only if empty
// (FileIO.delete(path, false) fails on a non-empty directory, which Paimon
// ignores as sqlrun does).
func (t *Table) cleanEmptyDirectories(d deletionBuckets) {
	if !t.Options.SnapshotCleanEmptyDirs || len(d) == 0 {
		return
	}
	var upper []map[string]bool // by hierarchy level
	parts := make([]string, 0, len(d))
	for p := range d {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	for _, p := range parts {
		pp, err := t.PartitionPath([]byte(p))
		if err != nil {
			continue
		}
		buckets := make([]int, 0, len(d[p]))
		for b := range d[p] {
			buckets = append(buckets, b)
		}
		sort.Ints(buckets)
		for _, b := range buckets {
			t.tryDeleteEmptyDirectory(format.BucketDir(t.Root, pp, b))
		}
		if pp == "" {
			continue
		}
		levels := strings.Split(pp, "/")
		if !t.tryDeleteEmptyDirectory(fs.Join(t.Root, pp)) {
			continue
		}
		for h := 0; h < len(levels)-1; h++ {
			for len(upper) <= h {
				upper = append(upper, map[string]bool{})
			}
			upper[h][fs.Join(t.Root, strings.Join(levels[:h+1], "/"))] = true
		}
	}
	for h := len(upper) - 1; h >= 0; h-- {
		dirs := make([]string, 0, len(upper[h]))
		for dir := range upper[h] {
			dirs = append(dirs, dir)
		}
		sort.Strings(dirs)
		for _, dir := range dirs {
			t.tryDeleteEmptyDirectory(dir)
		}
	}
}

// tryDeleteEmptyDirectory deletes dir if it is empty and reports whether
// it did. The listing first keeps a file system whose Delete does not
// refuse a non-empty directory (the in-memory and copy-on-write ones)
// from dropping one.
func (t *Table) tryDeleteEmptyDirectory(dir string) bool {
	ents, err := t.FIO.List(dir)
	if err != nil || len(ents) > 0 {
		return false
	}
	return t.FIO.Delete(dir) == nil
}
