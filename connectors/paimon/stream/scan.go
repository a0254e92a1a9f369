package stream

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
)

// StartPlan is what the starting scanner decided (Paimon's
// StartingScanner.Result plus the follow-up's first snapshot).
type StartPlan struct {
	// NoSnapshot: the table has no snapshot to start from yet; a streaming
	// reader retries at the next discovery, a batch reader reads nothing.
	NoSnapshot bool
	// Full is the snapshot whose merged rows are read first (0: none).
	Full int64
	// FullTag names the tag Full comes from: the tag file keeps the
	// snapshot's manifest lists even after the snapshot expired.
	FullTag string
	// Next is the first snapshot the follow-up scanner reads (streaming).
	Next int64
	// IncrementalFrom/To bound a batch incremental read (From exclusive).
	IncrementalFrom, IncrementalTo int64
}

// Start is AbstractDataTableScan.createStartingScanner followed by the
// starting scan, for one configuration (flink-semantics.md §4):
//
//	mode               batch                   streaming
//	latest-full        latest snapshot         latest snapshot, then follow
//	latest             latest snapshot         only snapshots after latest
//	compacted-full     latest COMPACT          latest COMPACT, then follow
//	from-timestamp     snapshot at that time   changes after the time
//	from-snapshot      snapshot/tag N          changes from N (tag: its rows, then follow)
//	from-snapshot-full snapshot N              snapshot N, then follow
//	incremental        (s, e] deltas           (rejected)
func Start(t *table.Table, c *Config) (*StartPlan, error) {
	sm := t.Snapshots
	latest, hasLatest, err := sm.LatestID()
	if err != nil {
		return nil, err
	}
	earliest, _, err := sm.EarliestID()
	if err != nil {
		return nil, err
	}
	full := func(id int64) *StartPlan { return &StartPlan{Full: id, Next: id + 1} }
	switch c.Mode {
	case coreoptions.ScanLatestFull:
		if !hasLatest {
			return &StartPlan{NoSnapshot: true}, nil
		}
		return full(latest), nil
	case coreoptions.ScanLatest:
		if !c.Streaming {
			if !hasLatest {
				return &StartPlan{NoSnapshot: true}, nil
			}
			return full(latest), nil
		}
		if !hasLatest {
			return &StartPlan{Next: 1}, nil
		}
		return &StartPlan{Next: latest + 1}, nil
	case coreoptions.ScanCompactedFull:
		if !hasLatest {
			return &StartPlan{NoSnapshot: true}, nil
		}
		for id := latest; id >= earliest; id-- {
			s, err := sm.Read(id)
			if errors.Is(err, snapshot.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if s.CommitKind == snapshot.Compact {
				return full(id), nil
			}
		}
		return &StartPlan{NoSnapshot: true}, nil
	case coreoptions.ScanFromTimestamp:
		ts := *c.TimestampMillis
		if !hasLatest {
			return &StartPlan{NoSnapshot: true}, nil
		}
		if !c.Streaming {
			s, err := sm.EarlierOrEqualTime(ts)
			if err != nil {
				return nil, err
			}
			if s == nil {
				return &StartPlan{NoSnapshot: true}, nil
			}
			return full(s.ID), nil
		}
		// ContinuousFromTimestampStartingScanner: start after the last
		// snapshot committed strictly before the timestamp.
		s, err := sm.EarlierOrEqualTime(ts - 1)
		if err != nil {
			return nil, err
		}
		if s == nil {
			return &StartPlan{Next: earliest}, nil
		}
		return &StartPlan{Next: s.ID + 1}, nil
	case coreoptions.ScanFromSnapshot, coreoptions.ScanFromSnapshotFull:
		if c.TagName != "" {
			tag, err := sm.ReadTag(c.TagName)
			if err != nil {
				if errors.Is(err, snapshot.ErrNotFound) {
					return nil, illegal("Tag '%s' doesn't exist.", c.TagName)
				}
				return nil, err
			}
			p := full(tag.ID)
			p.FullTag = c.TagName
			return p, nil
		}
		id := *c.SnapshotID
		if !c.Streaming {
			if !hasLatest || id < earliest || id > latest {
				if !hasLatest {
					return &StartPlan{NoSnapshot: true}, nil
				}
				return nil, illegal("The specified scan snapshotId %d is out of available snapshotId range [%d, %d].", id, earliest, latest)
			}
			return full(id), nil
		}
		if hasLatest && id < earliest {
			id = earliest
		}
		if c.Mode == coreoptions.ScanFromSnapshotFull {
			if !hasLatest || id > latest {
				return &StartPlan{NoSnapshot: true}, nil
			}
			return full(id), nil
		}
		return &StartPlan{Next: id}, nil
	case coreoptions.ScanIncremental:
		if c.IncrementalBetween == nil { // incremental-between-timestamp
			at := func(ms int64) (int64, error) {
				s, err := sm.EarlierOrEqualTime(ms)
				if err != nil || s == nil {
					return earliest - 1, err
				}
				return s.ID, nil
			}
			from, err := at(c.IncrementalBetweenTimestamp[0])
			if err != nil {
				return nil, err
			}
			to, err := at(c.IncrementalBetweenTimestamp[1])
			if err != nil {
				return nil, err
			}
			if from > to {
				return nil, illegal("Starting snapshotId %d must less than ending snapshotId %d.", from, to)
			}
			return &StartPlan{IncrementalFrom: from, IncrementalTo: to}, nil
		}
		from, err := resolveBound(t, c.IncrementalBetween[0])
		if err != nil {
			return nil, err
		}
		to, err := resolveBound(t, c.IncrementalBetween[1])
		if err != nil {
			return nil, err
		}
		if from > to {
			return nil, illegal("Starting snapshotId %d must less than ending snapshotId %d.", from, to)
		}
		return &StartPlan{IncrementalFrom: from, IncrementalTo: to}, nil
	}
	return nil, fmt.Errorf("scan mode %s is not supported", c.Mode)
}

// resolveBound is a snapshot id or a tag name of 'incremental-between'.
func resolveBound(t *table.Table, s string) (int64, error) {
	if id, err := strconv.ParseInt(s, 10, 64); err == nil {
		return id, nil
	}
	tag, err := t.Snapshots.ReadTag(s)
	if err != nil {
		return 0, fmt.Errorf("incremental-between %q: %w", s, err)
	}
	return tag.ID, nil
}

// FullEntries are the live files of snapshot id (or of tag, when set) a
// full phase reads. In a
// streaming read of a table with a changelog producer only files whose
// changes have already been published as changelog are read: lookup skips
// level 0, full-compaction reads only the top level (Paimon's
// withLevelFilter in the streaming full phase).
func FullEntries(t *table.Table, id int64, tag string, streaming bool) ([]table.Split, error) {
	var s *snapshot.Snapshot
	if tag != "" {
		tg, err := t.Snapshots.ReadTag(tag)
		if err != nil {
			return nil, err
		}
		s = &tg.Snapshot
	} else {
		var err error
		if s, err = t.Snapshots.Read(id); err != nil {
			return nil, err
		}
	}
	live, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", id, err)
	}
	var keep func(*manifest.ManifestEntry) bool
	above0 := func(e *manifest.ManifestEntry) bool { return e.File.Level > 0 }
	switch {
	case !t.PrimaryKey():
	case streaming && t.Options.ChangelogProducer == "lookup":
		// DataTableStreamScan.tryFirstPlan (Paimon 1.3+, apache/paimon#5866):
		// only the lookup producer's level 0 is left out, since its
		// compaction will produce the changelog for it. Deletion-vector and
		// first-row tables are read whole, level 0 merged in (Paimon 1.0-1.2
		// filtered them on needLookup() and re-read level 0 in the next
		// plan, sqlrun only filtered: their uncompacted rows were lost).
		keep = above0
	case streaming && t.Options.ChangelogProducer == "full-compaction":
		top := int32(t.Spec.NumLevels - 1)
		keep = func(e *manifest.ManifestEntry) bool { return e.File.Level == top }
	case !streaming && t.BatchSkipLevel0():
		// DataTableBatchScan: deletion vectors and first-row.
		keep = above0
	}
	return withDeletionFiles(t, s, groupSplits(live, keep, t.RealBucketsOnly(streaming)))
}

// FollowUp is the follow-up scanner's decision for one snapshot: the
// splits it contributes and how they are read (SplitDelta: the added files
// merged by key with RowKinds kept; SplitChangelog: raw), or read=false
// when the snapshot is skipped.
func FollowUp(t *table.Table, c *Config, s *snapshot.Snapshot) (splits []table.Split, kind table.SplitKind, read bool, err error) {
	list, kind, ok := followList(t, c.ReadOverwrite, s)
	if !ok {
		return nil, kind, false, nil
	}
	es, err := t.Manifests.ReadEntries(list)
	if err != nil {
		return nil, kind, false, fmt.Errorf("snapshot %d: %w", s.ID, err)
	}
	splits, err = groupSplits(es, nil, t.RealBucketsOnly(true)), nil
	if kind != table.SplitChangelog {
		if splits, err = withDeletionFiles(t, s, splits); err != nil {
			return nil, kind, false, fmt.Errorf("snapshot %d: %w", s.ID, err)
		}
	}
	return splits, kind, true, nil
}

// followList names the manifest list a snapshot contributes to a
// follow-up read, or false when the snapshot is skipped:
//   - OVERWRITE: skipped unless streaming-read-overwrite (then its delta);
//   - append tables and producer none: the delta of APPEND snapshots;
//   - other producers: the changelog list, when the snapshot has one.
func followList(t *table.Table, readOverwrite bool, s *snapshot.Snapshot) (string, table.SplitKind, bool) {
	if s.CommitKind == snapshot.Overwrite {
		return s.DeltaManifestList, table.SplitDelta, readOverwrite
	}
	if !t.PrimaryKey() || t.Options.ChangelogProducer == "none" {
		return s.DeltaManifestList, table.SplitDelta, s.CommitKind == snapshot.Append
	}
	if s.ChangelogManifestList == nil || *s.ChangelogManifestList == "" {
		return "", table.SplitChangelog, false
	}
	return *s.ChangelogManifestList, table.SplitChangelog, true
}

// IncrementalSplits are the files of a batch incremental read of (from,
// to]: the deltas (or, for 'changelog' scan mode or 'auto' with a
// changelog producer, the changelogs) of every snapshot in range, grouped
// per (partition, bucket) in commit order. They are read raw, one file
// after another, never merged per key: Paimon's
// IncrementalDeltaStartingScanner plans streaming splits, so an $audit_log
// read sees every change (an insert and a later delete both).
func IncrementalSplits(t *table.Table, c *Config, from, to int64) (splits []table.Split, err error) {
	useChangelog := c.IncrementalScanMode == "changelog" ||
		(c.IncrementalScanMode == "auto" && t.PrimaryKey() && t.Options.ChangelogProducer != "none")
	var all []manifest.ManifestEntry
	for id := from + 1; id <= to; id++ {
		s, err := t.Snapshots.Read(id)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				return nil, ExpiredError(id)
			}
			return nil, err
		}
		list := s.DeltaManifestList
		if useChangelog {
			// IncrementalStartingScanner: changelog mode ignores OVERWRITE
			// snapshots (and reads COMPACT ones: lookup and
			// full-compaction publish their changelog there).
			if s.ChangelogManifestList == nil || s.CommitKind == snapshot.Overwrite {
				continue
			}
			list = *s.ChangelogManifestList
		} else if s.CommitKind != snapshot.Append {
			continue
		}
		es, err := t.Manifests.ReadEntries(list)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", id, err)
		}
		all = append(all, es...)
	}
	return groupSplits(all, nil, t.RealBucketsOnly(false)), nil
}
