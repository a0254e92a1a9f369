package table

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
)

// SplitKind says how a split's files are read.
type SplitKind int

const (
	// SplitFull holds a bucket's live files of a snapshot: read with
	// merge-on-read, retracted keys dropped, every row +I.
	SplitFull SplitKind = iota
	// SplitDelta holds the files a snapshot added (its delta manifest
	// list): read merged by key but with RowKinds kept (producer none).
	SplitDelta
	// SplitChangelog holds a snapshot's changelog files: read raw, in file
	// order, RowKinds kept (producers input, lookup, full-compaction).
	SplitChangelog
)

func (k SplitKind) String() string {
	switch k {
	case SplitFull:
		return "full"
	case SplitDelta:
		return "delta"
	case SplitChangelog:
		return "changelog"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Split is the unit of reading: files of one (partition, bucket) of one
// snapshot. Splits are plain values (JSON-serializable) so a source can
// hand them to subtasks and checkpoint them.
type Split struct {
	SnapshotID   int64
	Kind         SplitKind
	Partition    []byte
	Bucket       int
	TotalBuckets int32
	Files        []manifest.DataFileMeta
	// DeletionFiles are the snapshot's deletion vectors by data file name
	// (deletion-vectors.enabled tables); a read drops the rows they mark.
	DeletionFiles map[string]DeletionFile `json:",omitempty"`
}

// RowCount sums the files' row counts.
func (s *Split) RowCount() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.RowCount
	}
	return n
}

// Filter prunes files at planning time. Zero value keeps everything.
type Filter struct {
	// Partition keeps partitions whose values (partition-key order, sql.Row
	// Go types) it accepts.
	Partition func(values []any) bool
	// KeyRange keeps files of primary-key tables whose trimmed-key range
	// [min, max] may hold wanted keys. Skipping by key is safe for
	// merge-on-read: every version of a key lies in files overlapping it.
	KeyRange func(min, max []any) bool
	// Bucket keeps buckets (a source subtask's share).
	Bucket func(bucket int) bool
}

// ErrSnapshotNotFound is wrapped when a requested snapshot, tag or time
// has no snapshot.
var ErrSnapshotNotFound = errors.New("snapshot not found")

// ResolveSnapshot picks the snapshot a batch read uses from the table's
// options: scan.snapshot-id, scan.tag-name, scan.timestamp-millis, else the
// latest. It returns (nil, nil) for a table without snapshots.
func (t *Table) ResolveSnapshot() (*snapshot.Snapshot, error) {
	if t.Options.Scan.SnapshotID != nil {
		id := *t.Options.Scan.SnapshotID
		s, err := t.Snapshots.Read(id)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				return nil, t.snapshotGone(id)
			}
			return nil, err
		}
		return s, nil
	}
	if v := t.Options.Scan.TagName; v != "" {
		tag, err := t.Snapshots.ReadTag(v)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				return nil, fmt.Errorf("%w: Tag '%s' doesn't exist.", ErrSnapshotNotFound, v)
			}
			return nil, err
		}
		s := tag.Snapshot
		return &s, nil
	}
	if ms := t.Options.Raw()["scan.timestamp-millis"]; strings.TrimSpace(ms) != "" {
		return t.Snapshots.EarlierOrEqualTime(*t.Options.Scan.TimestampMillis)
	}
	return t.Snapshots.Latest()
}

// snapshotGone is Paimon's message for a snapshot that does not exist
// (expired or never written), with the valid range.
func (t *Table) snapshotGone(id int64) error {
	earliest, ok1, _ := t.Snapshots.EarliestID()
	latest, ok2, _ := t.Snapshots.LatestID()
	if !ok1 || !ok2 {
		return fmt.Errorf("%w: the specified scan snapshotId %d is out of available snapshotId range: the table has no snapshot", ErrSnapshotNotFound, id)
	}
	return fmt.Errorf("%w: The specified scan snapshotId %d is out of available snapshotId range [%d, %d].", ErrSnapshotNotFound, id, earliest, latest)
}

// PlanFull lists the live files of snapshot s (base ++ delta folded),
// pruned by f, as one split per (partition, bucket), ordered by partition
// bytes then bucket.
func (t *Table) PlanFull(s *snapshot.Snapshot, f *Filter) ([]Split, error) {
	if s == nil {
		return nil, nil
	}
	es, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("plan snapshot %d of %s: %w", s.ID, t.Root, err)
	}
	splits, err := t.group(s.ID, SplitFull, es, f)
	if err != nil {
		return nil, err
	}
	return splits, t.attachDeletionFiles(s, splits)
}

// PlanDelta lists the files snapshot s added (ADD entries of its delta
// manifest list) as splits; for a COMPACT snapshot these are compaction
// outputs, which streaming readers with producer none skip.
func (t *Table) PlanDelta(s *snapshot.Snapshot, f *Filter) ([]Split, error) {
	es, err := t.Manifests.ReadEntries(s.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("plan delta of snapshot %d of %s: %w", s.ID, t.Root, err)
	}
	splits, err := t.group(s.ID, SplitDelta, addsOnly(es), f)
	if err != nil {
		return nil, err
	}
	return splits, t.attachDeletionFiles(s, splits)
}

// PlanChangelog lists snapshot s's changelog files as splits; none when
// the snapshot has no changelog manifest list.
func (t *Table) PlanChangelog(s *snapshot.Snapshot, f *Filter) ([]Split, error) {
	if s.ChangelogManifestList == nil || *s.ChangelogManifestList == "" {
		return nil, nil
	}
	es, err := t.Manifests.ReadEntries(*s.ChangelogManifestList)
	if err != nil {
		return nil, fmt.Errorf("plan changelog of snapshot %d of %s: %w", s.ID, t.Root, err)
	}
	return t.group(s.ID, SplitChangelog, addsOnly(es), f)
}

func addsOnly(es []manifest.ManifestEntry) []manifest.ManifestEntry {
	out := es[:0]
	for _, e := range es {
		if e.Kind == manifest.Add {
			out = append(out, e)
		}
	}
	return out
}

func (t *Table) group(id int64, kind SplitKind, es []manifest.ManifestEntry, f *Filter) ([]Split, error) {
	type key struct {
		part   string
		bucket int32
	}
	idx := map[key]int{}
	var out []Split
	partOK := map[string]bool{}
	realOnly := t.RealBucketsOnly(kind != SplitFull)
	for _, e := range es {
		if f != nil && f.Bucket != nil && !f.Bucket(int(e.Bucket)) {
			continue
		}
		if realOnly && e.Bucket < 0 {
			continue
		}
		if f != nil && f.Partition != nil && len(t.PartTypes) > 0 {
			ok, seen := partOK[string(e.Partition)]
			if !seen {
				vals, err := binrow.Deserialize(t.PartTypes, e.Partition)
				if err != nil {
					return nil, fmt.Errorf("partition of %s: %w", e.File.FileName, err)
				}
				ok = f.Partition(vals)
				partOK[string(e.Partition)] = ok
			}
			if !ok {
				continue
			}
		}
		if f != nil && f.KeyRange != nil && t.PrimaryKey() && kind == SplitFull {
			fm, err := t.fileMeta(e.File)
			if err == nil && !f.KeyRange(fm.MinKey, fm.MaxKey) {
				continue
			}
		}
		k := key{string(e.Partition), e.Bucket}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Split{SnapshotID: id, Kind: kind, Partition: e.Partition, Bucket: int(e.Bucket), TotalBuckets: e.TotalBuckets})
		}
		out[i].Files = append(out[i].Files, e.File)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if c := strings.Compare(string(out[i].Partition), string(out[j].Partition)); c != 0 {
			return c < 0
		}
		return out[i].Bucket < out[j].Bucket
	})
	return out, nil
}
