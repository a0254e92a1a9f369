package table

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// expire runs snapshot expiration after a commit; a failure does not fail
// the commit (the next commit retries, and leftovers are only orphans).
func (c *Commit) expire() {
	// A 'write-only' table's commits expire nothing: Paimon's
	// AbstractFileStoreTable.newCommit gives them no expire runnable; a
	// dedicated compaction (CompactAction, which copies the table with
	// 'write-only' = false) expires them.
	if c.NoExpire || (c.t.Options.WriteOnly && !c.Dedicated) {
		return
	}
	_, _ = c.t.ExpireSnapshots(c.Now())
}

// ExpireSnapshots deletes snapshots that are no longer retained (Paimon's
// ExpireSnapshotsImpl): at least snapshot.num-retained.min (10) are kept,
// at most snapshot.num-retained.max, and of those in between the ones newer
// than snapshot.time-retained (1 h), and at most snapshot.expire.limit
// (50) at a time; never a snapshot a consumer
// (consumer/consumer-*, nextSnapshot) still needs. It returns how many
// snapshots were expired.
//
// Crash safety: everything to delete is listed first, then the snapshot
// files are deleted (oldest first) and EARLIEST written, and only then the
// data, changelog, index and manifest files. A crash leaves at worst orphan
// files, never a snapshot whose files are gone.
func (t *Table) ExpireSnapshots(now time.Time) (int, error) {
	minRetain, maxRetain := t.Options.SnapshotNumRetainedMin, t.Options.SnapshotNumRetainedMax
	retained := t.Options.SnapshotTimeRetained
	latest, ok, err := t.Snapshots.LatestID()
	if err != nil || !ok {
		return 0, err
	}
	earliest, ok, err := t.Snapshots.EarliestID()
	if err != nil || !ok {
		return 0, err
	}
	if maxRetain < minRetain { // ExpireSnapshotsImpl's check (dynamic options of the procedure)
		return 0, sql.Errorf(sql.IllegalArgumentException, "retainMax (%d) must not be less than retainMin (%d).", maxRetain, minRetain)
	}
	if minRetain < 1 {
		minRetain = 1
	}
	lo := max(latest-int64(maxRetain)+1, earliest)
	maxExclusive := latest - int64(minRetain) + 1
	if err := t.expireConsumers(now); err != nil {
		return 0, err
	}
	cons, err := t.Snapshots.Consumers()
	if err != nil {
		return 0, err
	}
	for _, c := range cons {
		maxExclusive = min(maxExclusive, c.NextSnapshot)
	}
	// snapshot.expire.limit: at most this many snapshots expire at a time
	// (ExpireSnapshotsImpl's maxDeletes).
	maxExclusive = min(maxExclusive, earliest+int64(t.Options.SnapshotExpireLimit))
	maxExclusive = min(maxExclusive, latest)
	end := maxExclusive
	olderThan := now.Add(-retained).UnixMilli()
	for id := lo; id < maxExclusive; id++ {
		s, err := t.Snapshots.Read(id)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				continue
			}
			return 0, err
		}
		if olderThan <= s.TimeMillis {
			end = id
			break
		}
	}
	if end <= earliest {
		return 0, nil
	}
	return t.expireUntil(earliest, end)
}

// expireUntil expires snapshots [earliest, end).
func (t *Table) expireUntil(earliest, end int64) (int, error) {
	keep, err := t.Snapshots.Read(end)
	if err != nil {
		return 0, fmt.Errorf("expire: retained snapshot %d: %w", end, err)
	}
	// Files and manifests the first retained snapshot and tags use.
	keepFiles := map[string]bool{}
	keepManifests := map[string]bool{}
	// Index manifests and the index files they name (HASH, deletion
	// vectors) of the retained snapshot and tags (SnapshotDeletion's
	// cleanUnusedIndexManifests): an index file is added once and dropped
	// for good, so one the first retained snapshot does not name is needed
	// by no later snapshot either.
	keepIndex := map[string]bool{}
	protectIndex := func(s *snapshot.Snapshot) error {
		if s.IndexManifest == nil || *s.IndexManifest == "" {
			return nil
		}
		keepManifests[*s.IndexManifest] = true
		es, err := t.Manifests.ReadIndexManifest(*s.IndexManifest)
		if err != nil {
			return err
		}
		for _, e := range es {
			p, err := t.indexFilePath(e)
			if err != nil {
				return err
			}
			keepIndex[p] = true
		}
		return nil
	}
	protect := func(s *snapshot.Snapshot) error {
		if err := protectIndex(s); err != nil {
			return err
		}
		for _, l := range []string{s.BaseManifestList, s.DeltaManifestList} {
			keepManifests[l] = true
			ms, err := t.Manifests.ReadManifestList(l)
			if err != nil {
				return err
			}
			for _, m := range ms {
				keepManifests[m.FileName] = true
			}
		}
		if s.ChangelogManifestList != nil {
			keepManifests[*s.ChangelogManifestList] = true
		}
		live, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
		if err != nil {
			return err
		}
		for _, e := range live {
			keepFiles[t.entryPath(e)] = true
		}
		return nil
	}
	if err := protect(keep); err != nil {
		return 0, fmt.Errorf("expire: %w", err)
	}
	tags, err := t.Snapshots.TagNames()
	if err != nil {
		return 0, err
	}
	for _, n := range tags {
		tag, err := t.Snapshots.ReadTag(n)
		if err != nil {
			return 0, err
		}
		if err := protect(&tag.Snapshot); err != nil {
			return 0, fmt.Errorf("expire: tag %s: %w", n, err)
		}
	}
	var dataFiles, manifests []string
	seenManifest := map[string]bool{}
	addManifest := func(n string) {
		if n != "" && !keepManifests[n] && !seenManifest[n] {
			seenManifest[n] = true
			manifests = append(manifests, n)
		}
	}
	var ids []int64
	seenIndex := map[string]bool{}
	dirs := deletionBuckets{}
	for id := earliest; id <= end; id++ {
		s, err := t.Snapshots.Read(id)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				continue
			}
			return 0, err
		}
		if id > earliest {
			// Files this snapshot deleted were needed only by older ones.
			es, err := t.Manifests.ReadEntries(s.DeltaManifestList)
			if err != nil {
				return 0, err
			}
			for _, e := range es {
				if p := t.entryPath(e); e.Kind == manifest.Delete && !keepFiles[p] {
					dataFiles = append(dataFiles, p)
					dirs.record(e)
				}
			}
		}
		if id == end {
			break
		}
		ids = append(ids, id)
		if s.IndexManifest != nil && *s.IndexManifest != "" && !keepManifests[*s.IndexManifest] && !seenManifest[*s.IndexManifest] {
			es, err := t.Manifests.ReadIndexManifest(*s.IndexManifest)
			if err != nil {
				return 0, err
			}
			for _, e := range es {
				p, err := t.indexFilePath(e)
				if err != nil {
					return 0, err
				}
				if !keepIndex[p] && !seenIndex[p] {
					seenIndex[p] = true
					dataFiles = append(dataFiles, p)
				}
			}
			addManifest(*s.IndexManifest)
		}
		if s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
			es, err := t.Manifests.ReadEntries(*s.ChangelogManifestList)
			if err != nil {
				return 0, err
			}
			for _, e := range es {
				dataFiles = append(dataFiles, t.entryPath(e))
				dirs.record(e)
			}
			ms, err := t.Manifests.ReadManifestList(*s.ChangelogManifestList)
			if err != nil {
				return 0, err
			}
			for _, m := range ms {
				addManifest(m.FileName)
			}
			addManifest(*s.ChangelogManifestList)
		}
		for _, l := range []string{s.BaseManifestList, s.DeltaManifestList} {
			ms, err := t.Manifests.ReadManifestList(l)
			if err != nil {
				return 0, err
			}
			for _, m := range ms {
				addManifest(m.FileName)
			}
			addManifest(l)
		}
	}
	for _, id := range ids {
		if err := t.Snapshots.Delete(id); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("expire snapshot %d: %w", id, err)
		}
	}
	if err := t.Snapshots.CommitEarliestHint(end); err != nil {
		return len(ids), fmt.Errorf("expire: EARLIEST hint: %w", err)
	}
	for _, p := range dataFiles {
		if p == "" {
			continue
		}
		_ = t.FIO.Delete(p)
	}
	for _, m := range manifests {
		_ = t.FIO.Delete(fs.Join(manifest.Dir(t.Root), m))
	}
	t.cleanEmptyDirectories(dirs) // ExpireSnapshotsImpl.expireUntil
	return len(ids), nil
}

// entryPath is the path of a manifest entry's file.
func (t *Table) entryPath(e manifest.ManifestEntry) string {
	if e.File.ExternalPath != nil && *e.File.ExternalPath != "" {
		return *e.File.ExternalPath
	}
	pp, err := t.PartitionPath(e.Partition)
	if err != nil {
		return ""
	}
	b := int(e.Bucket)
	if e.TotalBuckets == -1 && b < 0 {
		b = 0
	}
	return fs.Join(format.BucketDir(t.Root, pp, b), e.File.FileName)
}

// expireConsumers deletes consumer files not updated within
// consumer.expiration-time (when set), so an abandoned streaming job stops
// pinning snapshots (Paimon's ConsumerManager.expire).
func (t *Table) expireConsumers(now time.Time) error {
	d := t.Options.ConsumerExpiration
	if d == 0 {
		return nil
	}
	ents, err := t.FIO.List(fs.Join(t.Root, "consumer"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir && strings.HasPrefix(e.Name, "consumer-") && e.ModTime.Before(now.Add(-d)) {
			_ = t.FIO.Delete(e.Path)
		}
	}
	return nil
}
