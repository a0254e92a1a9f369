package table

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
)

// ErrCommitConflict is wrapped when a commit deletes a file that is no
// longer live (another writer compacted or overwrote it): the commit is
// abandoned and its writers must be restored from the latest snapshot.
var ErrCommitConflict = errors.New("paimon commit conflict")

// ErrCommitRetries is wrapped when commit.max-retries attempts all lost the
// race for the next snapshot id.
var ErrCommitRetries = errors.New("paimon commit gave up after retries")

// Commit is the table's FileStoreCommit for one commit user: it writes
// manifests and manifest lists and creates snapshot-N atomically
// (paimon-format.md §10). One commit of commit messages yields an APPEND
// snapshot (new files, input changelog) and then a COMPACT snapshot
// (compaction before/after, compaction changelog), both with the same
// commitUser and commitIdentifier.
type Commit struct {
	t    *Table
	User string
	// Now is the clock for timeMillis (tests replace it).
	Now func() time.Time
	// NoExpire turns off snapshot expiration after each commit.
	NoExpire bool
	// Dedicated marks a dedicated compaction's commit, which expires
	// snapshots even on a 'write-only' table (Compact).
	Dedicated bool
	names     *manifest.Names
	// LastSnapshots lists the snapshot ids the last call created.
	LastSnapshots []int64
	// AbandonedCompaction reports that the last Commit re-committed an
	// identifier whose compaction conflicted and gave the compaction up.
	AbandonedCompaction bool
	// Replayed reports that the last Commit or Overwrite skipped an
	// identifier this user had committed already.
	Replayed bool
	// PartitionExpire, when set, explains a conflict over files of
	// partitions it expired (ConflictDetection.checkConflictForPartitionExpire).
	PartitionExpire *PartitionExpire
	// Force commits an APPEND snapshot even without changes
	// (TableCommitImpl.forceCreatingSnapshot: a tag is due).
	Force bool
	// Watermark is the watermark an Overwrite records (Commit takes its
	// own), nil for none.
	Watermark *int64
	// tagAuto creates tags after each commit ('tag.automatic-creation'
	// process-time); a sink hands its own on, so that its state carries
	// from commit to commit as in Paimon's TagAutoManager.
	tagAuto *tagAutoCreation
}

// NewCommitUser is CoreOptions.createCommitUser: a random UUID, after
// 'commit.user-prefix' and an underscore when that is set.
func (t *Table) NewCommitUser() string {
	if p, ok := t.Options.Raw()["commit.user-prefix"]; ok {
		return p + "_" + uuid.NewString()
	}
	return uuid.NewString()
}

// NewCommit creates a committer for commitUser (a UUID per job).
func (t *Table) NewCommit(user string) *Commit {
	return &Commit{t: t, User: user, Now: time.Now, names: manifest.NewNames()}
}

// LatestCommitted returns the identifier of the newest snapshot committed
// by this commit user, searching back from the latest snapshot (Paimon's
// filterCommitted). ok is false when the user never committed.
func (c *Commit) LatestCommitted() (id int64, ok bool, err error) {
	s, err := c.latestOwn()
	if err != nil || s == nil {
		return 0, false, err
	}
	return s.CommitIdentifier, true, nil
}

// latestOwn is the newest snapshot committed by this user, or nil.
func (c *Commit) latestOwn() (*snapshot.Snapshot, error) {
	latest, has, err := c.t.Snapshots.LatestID()
	if err != nil || !has {
		return nil, err
	}
	earliest, has, err := c.t.Snapshots.EarliestID()
	if err != nil || !has {
		return nil, err
	}
	for i := latest; i >= earliest; i-- {
		s, err := c.t.Snapshots.Read(i)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				continue // expired meanwhile
			}
			return nil, err
		}
		if s.CommitUser == c.User {
			return s, nil
		}
	}
	return nil, nil
}

// Committed reports whether identifier was already committed by this user
// (an identifier ≤ the user's newest committed one): replayed commits after
// recovery are skipped, which makes the sink exactly-once.
func (c *Commit) Committed(identifier int64) (bool, error) {
	last, ok, err := c.LatestCommitted()
	if err != nil {
		return false, err
	}
	return ok && identifier <= last, nil
}

type pendingCommit struct {
	kind      snapshot.CommitKind
	entries   []manifest.ManifestEntry
	changelog []manifest.ManifestEntry
	// index are index file changes (ADD/DELETE) combined into the
	// snapshot's index manifest.
	index []manifest.IndexManifestEntry
	// overwrite, when set, selects the partitions whose live files the
	// OVERWRITE snapshot deletes.
	overwrite func(part []byte) (bool, error)
	watermark *int64
}

// Commit commits messages under identifier: skipped entirely when the
// identifier was already committed by this user; otherwise an APPEND
// snapshot (if there are new files or changelog) and a COMPACT snapshot (if
// there are compaction changes).
func (c *Commit) Commit(identifier int64, msgs []CommitMessage, watermark *int64) error {
	c.LastSnapshots, c.AbandonedCompaction, c.Replayed = nil, false, false
	last, err := c.latestOwn()
	if err != nil {
		return fmt.Errorf("paimon commit %d of %s: %w", identifier, c.t.Root, err)
	}
	// A replayed identifier is skipped. When only its APPEND snapshot
	// landed (a crash between the two snapshots), the COMPACT part is
	// still committed, so the compaction changelog is not lost.
	appendDone := false
	if last != nil && identifier <= last.CommitIdentifier {
		if identifier < last.CommitIdentifier || last.CommitKind != snapshot.Append {
			c.Replayed = true
			return nil
		}
		appendDone = true
	}
	app := pendingCommit{kind: snapshot.Append, watermark: watermark}
	cmp := pendingCommit{kind: snapshot.Compact, watermark: watermark}
	for _, m := range msgs {
		app.entries = appendEntries(app.entries, manifest.Add, m, m.NewFiles)
		app.changelog = appendEntries(app.changelog, manifest.Add, m, m.NewChangelog)
		app.index = append(app.index, m.NewIndexFiles...)
		cmp.entries = appendEntries(cmp.entries, manifest.Delete, m, m.CompactBefore)
		cmp.entries = appendEntries(cmp.entries, manifest.Add, m, m.CompactAfter)
		cmp.changelog = appendEntries(cmp.changelog, manifest.Add, m, m.CompactChangelog)
		cmp.index = append(cmp.index, m.CompactIndexFiles...)
	}
	if (len(app.entries)+len(app.changelog)+len(app.index) > 0 || c.Force && len(cmp.entries)+len(cmp.changelog)+len(cmp.index) == 0) && !appendDone {
		if err := c.tryCommit(identifier, &app); err != nil {
			return err
		}
	}
	if len(cmp.entries)+len(cmp.changelog)+len(cmp.index) > 0 {
		if err := c.tryCommit(identifier, &cmp); err != nil {
			if !appendDone || !errors.Is(err, ErrCommitConflict) {
				return err
			}
			// A re-commit whose APPEND snapshot landed and whose
			// compaction conflicts (another writer compacted the same
			// files): the compaction is given up, as Paimon's
			// filterCommitted skips a committable once its identifier is
			// committed. The appended data is in the table; the
			// compaction's files are orphans; restored writers start from
			// the latest snapshot, and level-0 files get their changelog
			// when compacted again.
			c.AbandonedCompaction = true
		}
	}
	if err := c.autoTag(); err != nil {
		return fmt.Errorf("paimon commit %d of %s: %w", identifier, c.t.Root, err)
	}
	c.expire()
	return nil
}

// autoTag runs the table's automatic tag creation after a commit, before
// any expiration (TableCommitImpl.maintain).
func (c *Commit) autoTag() error {
	if c.tagAuto == nil {
		a, err := c.t.newTagAutoCreation()
		if err != nil || a == nil {
			return err
		}
		c.tagAuto = a
	}
	return c.tagAuto.run()
}

// Overwrite commits msgs as an OVERWRITE snapshot (INSERT OVERWRITE): the
// live files of the overwritten partitions are deleted and the new files
// added. static is the PARTITION clause (column → value text); without it
// a partitioned table overwrites the partitions the new files belong to
// (dynamic-partition-overwrite, Paimon's default) or, with
// dynamic-partition-overwrite = false, the whole table.
func (c *Commit) Overwrite(identifier int64, msgs []CommitMessage, static map[string]string) error {
	c.LastSnapshots, c.Replayed = nil, false
	done, err := c.Committed(identifier)
	if err != nil {
		return fmt.Errorf("paimon overwrite %d of %s: %w", identifier, c.t.Root, err)
	}
	if done {
		c.Replayed = true
		return nil
	}
	p := pendingCommit{kind: snapshot.Overwrite, watermark: c.Watermark}
	// The writers' compactions follow as a COMPACT snapshot, without their
	// changelog (FileStoreCommitImpl.overwritePartition's withCompact):
	// a deletion-vector table's rows are only visible once compacted out
	// of level 0.
	cmp := pendingCommit{kind: snapshot.Compact, watermark: c.Watermark}
	touched := map[string]bool{}
	for _, m := range msgs {
		p.entries = appendEntries(p.entries, manifest.Add, m, m.NewFiles)
		p.index = append(p.index, m.NewIndexFiles...)
		cmp.entries = appendEntries(cmp.entries, manifest.Delete, m, m.CompactBefore)
		cmp.entries = appendEntries(cmp.entries, manifest.Add, m, m.CompactAfter)
		cmp.index = append(cmp.index, m.CompactIndexFiles...)
		touched[string(m.Partition)] = true
	}
	switch {
	case len(static) > 0:
		for k := range static {
			found := false
			for _, n := range c.t.PartNames {
				found = found || n == k
			}
			if !found {
				return fmt.Errorf("paimon overwrite of %s: %s is not a partition key (partition keys: %v)", c.t.Root, k, c.t.PartNames)
			}
		}
		p.overwrite = func(part []byte) (bool, error) {
			vals, err := binrow.Deserialize(c.t.PartTypes, part)
			if err != nil {
				return false, err
			}
			for i, n := range c.t.PartNames {
				want, ok := static[n]
				if !ok {
					continue
				}
				got, err := binrow.PartitionValueString(c.t.PartTypes[i], vals[i], true)
				if err != nil {
					return false, err
				}
				if vals[i] == nil || got != want {
					return false, nil
				}
			}
			return true, nil
		}
	case len(c.t.PartNames) > 0 && c.t.Options.DynamicPartitionOverwr:
		p.overwrite = func(part []byte) (bool, error) { return touched[string(part)], nil }
	default:
		p.overwrite = func([]byte) (bool, error) { return true, nil }
	}
	if len(cmp.entries)+len(cmp.index) == 0 {
		if p.entries, err = c.t.overwriteUpgrade(p.entries); err != nil {
			return fmt.Errorf("paimon overwrite %d of %s: %w", identifier, c.t.Root, err)
		}
	}
	if err := c.tryCommit(identifier, &p); err != nil {
		return err
	}
	if len(cmp.entries)+len(cmp.index) > 0 {
		if err := c.tryCommit(identifier, &cmp); err != nil {
			return err
		}
	}
	if err := c.autoTag(); err != nil {
		return fmt.Errorf("paimon overwrite %d of %s: %w", identifier, c.t.Root, err)
	}
	c.expire()
	return nil
}

// overwriteUpgrade is FileStoreCommitImpl.tryUpgrade ('overwrite-upgrade',
// default true): the level-0 files an INSERT OVERWRITE of a primary-key
// table writes go to the top level (num-levels - 1) of their bucket when
// the files of the bucket do not overlap in key range, as Paimon commits
// them, so that later compactions and the lookup changelog see them as
// Paimon's would. Nothing is upgraded when a file is above level 0 or in
// a bucket < 0, and a bucket whose files overlap keeps them at level 0.
func (t *Table) overwriteUpgrade(entries []manifest.ManifestEntry) ([]manifest.ManifestEntry, error) {
	if !t.PrimaryKey() || !t.Options.OverwriteUpgrade {
		return entries, nil
	}
	for _, e := range entries {
		if e.File.Level > 0 || e.Bucket < 0 {
			return entries, nil
		}
	}
	type bk struct {
		part   string
		bucket int32
	}
	type keyed struct {
		i        int
		min, max []any
	}
	buckets := map[bk][]keyed{}
	for i, e := range entries {
		fm, err := t.fileMeta(e.File)
		if err != nil {
			return nil, err
		}
		k := bk{string(e.Partition), e.Bucket}
		buckets[k] = append(buckets[k], keyed{i, fm.MinKey, fm.MaxKey})
	}
	out := slices.Clone(entries)
	top := int32(t.Spec.NumLevels - 1)
	for _, fs := range buckets {
		sort.SliceStable(fs, func(i, j int) bool { return t.Spec.Key.Compare(fs[i].min, fs[j].min) < 0 })
		overlap := false
		for i := 1; i < len(fs); i++ {
			overlap = overlap || t.Spec.Key.Compare(fs[i-1].max, fs[i].min) >= 0
		}
		if overlap {
			continue
		}
		for _, f := range fs {
			out[f.i].File.Level = top
		}
	}
	return out, nil
}

func appendEntries(dst []manifest.ManifestEntry, kind manifest.FileKind, m CommitMessage, files []manifest.DataFileMeta) []manifest.ManifestEntry {
	for _, f := range files {
		dst = append(dst, manifest.ManifestEntry{Kind: kind, Partition: m.Partition, Bucket: int32(m.Bucket), TotalBuckets: m.TotalBuckets, File: f})
	}
	return dst
}

func (c *Commit) maxRetries() int {
	n := c.t.Options.CommitMaxRetries
	if n < 0 {
		return 10
	}
	return n
}

// tryCommit runs commit attempts until one creates the next snapshot, the
// commit turns out to have landed already, a conflict is found or the
// retries are used up. Files an unsuccessful attempt wrote are deleted.
func (c *Commit) tryCommit(identifier int64, p *pendingCommit) error {
	var startID int64
	if id, ok, err := c.t.Snapshots.LatestID(); err != nil {
		return fmt.Errorf("paimon commit %d of %s: %w", identifier, c.t.Root, err)
	} else if ok {
		startID = id
	}
	retries := c.maxRetries()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			// An earlier attempt may have created the snapshot even though
			// it reported an error (e.g. the link succeeded, the sync
			// failed): then it is done.
			if landed, err := c.landed(startID, identifier, p.kind); err != nil {
				return err
			} else if landed {
				return nil
			}
		}
		newID, written, err := c.attempt(identifier, p)
		if err == nil {
			c.LastSnapshots = append(c.LastSnapshots, newID)
			_ = c.t.Snapshots.CommitLatestHint(newID) // best effort: LatestID corrects a stale hint
			return nil
		}
		// Only files of an attempt whose snapshot certainly does not exist
		// may be deleted.
		if newID > 0 {
			s, rerr := c.t.Snapshots.Read(newID)
			if rerr == nil && s.CommitUser == c.User && s.CommitIdentifier == identifier && s.CommitKind == p.kind {
				c.LastSnapshots = append(c.LastSnapshots, newID)
				_ = c.t.Snapshots.CommitLatestHint(newID)
				return nil
			}
			if rerr == nil || errors.Is(rerr, snapshot.ErrNotFound) {
				c.cleanup(written)
			}
		} else {
			c.cleanup(written)
		}
		if errors.Is(err, ErrCommitConflict) {
			return err
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("paimon commit %d (%s) of %s: %w", identifier, p.kind, c.t.Root, err)
		}
		if attempt >= retries {
			return fmt.Errorf("%w: commit %d (%s) of %s lost the race for a snapshot id %d times", ErrCommitRetries, identifier, p.kind, c.t.Root, attempt+1)
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
}

// landed reports whether a snapshot after startID was committed by this
// user with this identifier and kind.
func (c *Commit) landed(startID, identifier int64, kind snapshot.CommitKind) (bool, error) {
	latest, ok, err := c.t.Snapshots.LatestID()
	if err != nil || !ok {
		return false, err
	}
	for id := latest; id > startID; id-- {
		s, err := c.t.Snapshots.Read(id)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				continue
			}
			return false, err
		}
		if s.CommitUser == c.User && s.CommitIdentifier == identifier && s.CommitKind == kind {
			c.LastSnapshots = append(c.LastSnapshots, id)
			return true, nil
		}
	}
	return false, nil
}

func (c *Commit) cleanup(names []string) {
	for _, n := range names {
		_ = c.t.FIO.Delete(fs.Join(manifest.Dir(c.t.Root), n))
	}
}

// attempt is one try: it returns the snapshot id it tried to create (0 if
// it failed before) and the manifest files it wrote.
func (c *Commit) attempt(identifier int64, p *pendingCommit) (newID int64, written []string, err error) {
	latest, err := c.t.Snapshots.Latest()
	if err != nil {
		return 0, nil, err
	}
	st := c.t.Manifests
	var baseMetas []manifest.ManifestFileMeta
	var prevTotal int64
	var watermark *int64
	var indexManifest *string
	nextRowID := int64(0)
	newID = 1
	if latest != nil {
		newID = latest.ID + 1
		prevTotal = snapshot.Get(latest.TotalRecordCount)
		watermark = latest.Watermark
		indexManifest = latest.IndexManifest
		if latest.NextRowID != nil {
			nextRowID = *latest.NextRowID
		}
		for _, l := range []string{latest.BaseManifestList, latest.DeltaManifestList} {
			ms, err := st.ReadManifestList(l)
			if err != nil {
				return 0, nil, err
			}
			baseMetas = append(baseMetas, ms...)
		}
	}
	if p.watermark != nil && (watermark == nil || *p.watermark > *watermark) {
		watermark = p.watermark
	}
	entries := p.entries
	indexChanges := p.index
	// A postpone bucket table's batch write checks its appends too: two
	// jobs may give a new partition different bucket counts
	// (PostponeFixedBucketSink's appendCommitCheckConflict).
	needCheck := p.kind != snapshot.Append || p.overwrite != nil || c.t.PostponeBucket()
	for _, e := range entries {
		needCheck = needCheck || e.Kind == manifest.Delete
	}
	if needCheck && latest != nil {
		live, err := st.LiveFiles(latest.BaseManifestList, latest.DeltaManifestList)
		if err != nil {
			return 0, nil, err
		}
		if p.overwrite != nil {
			var dels []manifest.ManifestEntry
			for _, e := range live {
				if e.Bucket < 0 && !c.t.PostponeBucket() {
					// bucket = -2 files are only overwritten in postpone
					// bucket tables (CommitScanner.readOverwriteChanges).
					continue
				}
				ok, err := p.overwrite(e.Partition)
				if err != nil {
					return 0, nil, fmt.Errorf("overwrite partition filter: %w", err)
				}
				if ok {
					d := e
					d.Kind = manifest.Delete
					dels = append(dels, d)
				}
			}
			entries = append(dels, entries...)
			// The overwritten partitions' index files go too
			// (CommitScanner.readOverwriteChanges).
			idx, err := c.overwriteIndexDeletes(latest, p.overwrite)
			if err != nil {
				return 0, nil, err
			}
			indexChanges = append(idx, indexChanges...)
		}
		if err := checkConflicts(live, entries, p.kind == snapshot.Overwrite); err != nil {
			if perr := c.PartitionExpire.expiredConflict(live, entries, c.Now()); perr != nil {
				return 0, nil, perr
			}
			return 0, nil, err
		}
		if err := c.t.checkLevels(live, entries); err != nil {
			return 0, nil, err
		}
	} else if needCheck {
		for _, e := range entries {
			if e.Kind == manifest.Delete {
				return 0, nil, fmt.Errorf("%w: file %s to delete is not in the table (no snapshot)", ErrCommitConflict, e.File.FileName)
			}
		}
	}

	if err := c.checkFilesExist(entries, p.changelog, indexChanges); err != nil {
		return 0, nil, err
	}
	if c.t.Options.RowTracking {
		entries, nextRowID = assignRowTracking(newID, nextRowID, entries)
	}

	// Base list: the previous snapshot's manifests, merged when there are
	// many small ones.
	baseMetas, merged, err := c.mergeManifests(baseMetas)
	written = append(written, merged...)
	if err != nil {
		return 0, written, err
	}
	baseName := c.names.ManifestList()
	written = append(written, baseName)
	baseSize, err := st.WriteManifestList(baseName, baseMetas)
	if err != nil {
		return 0, written, err
	}
	var deltaMetas []manifest.ManifestFileMeta
	var delta int64
	if len(entries) > 0 {
		name := c.names.Manifest()
		written = append(written, name)
		m, err := st.WriteManifest(name, entries, c.t.PartTypes)
		if err != nil {
			return 0, written, err
		}
		deltaMetas = append(deltaMetas, m)
		for _, e := range entries {
			if e.Kind == manifest.Add {
				delta += e.File.RowCount
			} else {
				delta -= e.File.RowCount
			}
		}
	}
	deltaName := c.names.ManifestList()
	written = append(written, deltaName)
	deltaSize, err := st.WriteManifestList(deltaName, deltaMetas)
	if err != nil {
		return 0, written, err
	}
	if len(indexChanges) > 0 {
		// IndexManifestFile.writeIndexFiles: a new index manifest when the
		// index changes, else the previous one stays.
		var prev []manifest.IndexManifestEntry
		if indexManifest != nil && *indexManifest != "" {
			if prev, err = st.ReadIndexManifest(*indexManifest); err != nil {
				return 0, written, err
			}
		}
		name := c.names.IndexManifest()
		written = append(written, name)
		if err := st.WriteIndexManifest(name, combineIndex(prev, indexChanges)); err != nil {
			return 0, written, err
		}
		indexManifest = &name
	}
	s := &snapshot.Snapshot{ID: newID, SchemaID: c.t.Schema.ID, BaseManifestList: baseName, BaseManifestListSize: &baseSize,
		DeltaManifestList: deltaName, DeltaManifestListSize: &deltaSize, IndexManifest: indexManifest,
		CommitUser: c.User, CommitIdentifier: identifier, CommitKind: p.kind, TimeMillis: c.Now().UnixMilli(),
		TotalRecordCount: snapshot.Int64(prevTotal + delta), DeltaRecordCount: snapshot.Int64(delta),
		Watermark: watermark, NextRowID: &nextRowID}
	if len(p.changelog) > 0 {
		name := c.names.Manifest()
		written = append(written, name)
		m, err := st.WriteManifest(name, p.changelog, c.t.PartTypes)
		if err != nil {
			return 0, written, err
		}
		listName := c.names.ManifestList()
		written = append(written, listName)
		size, err := st.WriteManifestList(listName, []manifest.ManifestFileMeta{m})
		if err != nil {
			return 0, written, err
		}
		var n int64
		for _, e := range p.changelog {
			n += e.File.RowCount
		}
		s.ChangelogManifestList, s.ChangelogManifestListSize, s.ChangelogRecordCount = &listName, &size, &n
	}
	if err := c.t.Snapshots.Commit(s); err != nil {
		return newID, written, err
	}
	return newID, written, nil
}

// overwriteIndexDeletes are DELETE entries for the index files of the
// partitions an OVERWRITE replaces.
func (c *Commit) overwriteIndexDeletes(latest *snapshot.Snapshot, overwrite func([]byte) (bool, error)) ([]manifest.IndexManifestEntry, error) {
	if latest == nil || latest.IndexManifest == nil || *latest.IndexManifest == "" {
		return nil, nil
	}
	es, err := c.t.Manifests.ReadIndexManifest(*latest.IndexManifest)
	if err != nil {
		return nil, err
	}
	var out []manifest.IndexManifestEntry
	for _, e := range es {
		ok, err := overwrite(e.Partition)
		if err != nil {
			return nil, fmt.Errorf("overwrite partition filter: %w", err)
		}
		if ok {
			e.Kind = manifest.Delete
			out = append(out, e)
		}
	}
	return out, nil
}

// ErrMissingFile is wrapped when a commit would name a data or changelog
// file that does not exist (e.g. removed by an orphan-file cleanup after a
// checkpoint recorded it): no snapshot is written.
var ErrMissingFile = errors.New("paimon commit names a missing file")

// checkFilesExist verifies that every file the commit adds exists, so a
// snapshot never names a missing file (every later read would fail). The
// message is Paimon's (TableCommitImpl.checkFilesExistence, which checks
// re-committed checkpoints; sqlrun checks every commit).
func (c *Commit) checkFilesExist(entries, changelog []manifest.ManifestEntry, idx []manifest.IndexManifestEntry) error {
	var missing []string
	for _, e := range idx {
		if e.Kind != manifest.Add {
			continue
		}
		p, err := c.t.indexFilePath(e)
		if err != nil {
			return err
		}
		ok, err := c.t.FIO.Exists(p)
		if err != nil {
			return fmt.Errorf("paimon commit: check %s: %w", p, err)
		}
		if !ok {
			missing = append(missing, p)
		}
	}
	for _, es := range [][]manifest.ManifestEntry{entries, changelog} {
		for _, e := range es {
			if e.Kind != manifest.Add {
				continue
			}
			p := c.t.entryPath(e)
			ok, err := c.t.FIO.Exists(p)
			if err != nil {
				return fmt.Errorf("paimon commit: check %s: %w", p, err)
			}
			if !ok {
				missing = append(missing, p)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: Cannot recover from this checkpoint because some files in the snapshot that need to be resubmitted have been deleted:\n    %s\n"+
			"    The most likely reason is because you are recovering from a very old savepoint that contains some uncommitted files that have already been deleted. No snapshot was written.",
			ErrMissingFile, strings.Join(missing, ","))
	}
	return nil
}

// checkConflicts fails when a DELETE targets a file that is not live, or,
// unless the commit overwrites, an added file's _TOTAL_BUCKETS differs
// from the live files of its partition; entries without a bucket count
// (_TOTAL_BUCKETS <= 0: dynamic and postpone buckets) are not compared
// (ConflictDetection.checkBucketKeepSame).
func checkConflicts(live, entries []manifest.ManifestEntry, overwrite bool) error {
	ids := make(map[string]bool, len(live))
	total := map[string]int32{}
	for i := range live {
		ids[live[i].Identifier()] = true
		if live[i].TotalBuckets > 0 {
			total[string(live[i].Partition)] = live[i].TotalBuckets
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Kind == manifest.Delete && !ids[e.Identifier()] {
			return fmt.Errorf("%w: file %s (bucket %d, level %d) to delete is no longer live; another job may have compacted or overwritten it. Restart the job to restore writers from the latest snapshot.",
				ErrCommitConflict, e.File.FileName, e.Bucket, e.File.Level)
		}
		if tb, ok := total[string(e.Partition)]; ok && !overwrite && e.Kind == manifest.Add && e.TotalBuckets > 0 && tb != e.TotalBuckets {
			return fmt.Errorf("%w: total buckets of a partition changed from %d to %d", ErrCommitConflict, tb, e.TotalBuckets)
		}
	}
	return nil
}

// mergeManifests rewrites the base manifests into as few as needed when
// there are at least manifest.merge-min-count of them (Paimon's minor
// merge), folding ADD/DELETE pairs away. It returns the new metas and the
// manifest files it wrote.
func (c *Commit) mergeManifests(metas []manifest.ManifestFileMeta) ([]manifest.ManifestFileMeta, []string, error) {
	minCount := c.t.Options.ManifestMergeMinCount
	if minCount < 1 {
		minCount = 30
	}
	if len(metas) < minCount {
		return metas, nil, nil
	}
	var all []manifest.ManifestEntry
	for _, m := range metas {
		es, err := c.t.Manifests.ReadManifest(m.FileName)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, es...)
	}
	live, err := manifest.Fold(all)
	if err != nil {
		return nil, nil, fmt.Errorf("merge manifests: %w", err)
	}
	target := c.t.Options.ManifestTargetFileSize
	if target <= 0 {
		target = 8 << 20
	}
	// About 200 bytes per compressed entry is conservative for sizing.
	per := int(target / 200)
	var out []manifest.ManifestFileMeta
	var written []string
	for len(live) > 0 {
		n := min(per, len(live))
		name := c.names.Manifest()
		written = append(written, name)
		m, err := c.t.Manifests.WriteManifest(name, live[:n], c.t.PartTypes)
		if err != nil {
			return nil, written, err
		}
		out = append(out, m)
		live = live[n:]
	}
	return out, written, nil
}

// PartitionSpec renders partition values as Paimon's spec map (for
// messages and the static OVERWRITE filter).
func (t *Table) PartitionSpec(part []byte) (map[string]string, error) {
	vals, err := binrow.Deserialize(t.PartTypes, part)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, n := range t.PartNames {
		s, err := binrow.PartitionValueString(t.PartTypes[i], vals[i], true)
		if err != nil {
			return nil, err
		}
		out[n] = s
	}
	return out, nil
}

// checkLevels folds the live files of the buckets entries touch with the
// entries and fails if two files of one level ≥ 1 overlap in key range:
// each such level must stay one sorted run (Java refuses such tables).
func (t *Table) checkLevels(live, entries []manifest.ManifestEntry) error {
	if !t.PrimaryKey() {
		return nil
	}
	type bk struct {
		part   string
		bucket int32
	}
	touched := map[bk]bool{}
	for _, e := range entries {
		touched[bk{string(e.Partition), e.Bucket}] = true
	}
	var all []manifest.ManifestEntry
	for _, e := range live {
		if touched[bk{string(e.Partition), e.Bucket}] {
			all = append(all, e)
		}
	}
	folded, err := manifest.Fold(append(all, entries...))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCommitConflict, err)
	}
	type lk struct {
		b     bk
		level int32
	}
	runs := map[lk][]*mergetree.FileMeta{}
	for _, e := range folded {
		if e.File.Level == 0 {
			continue
		}
		fm, err := t.fileMeta(e.File)
		if err != nil {
			return err
		}
		k := lk{bk{string(e.Partition), e.Bucket}, e.File.Level}
		runs[k] = append(runs[k], fm)
	}
	for k, fs := range runs {
		sort.Slice(fs, func(i, j int) bool { return t.Spec.Key.Compare(fs[i].MinKey, fs[j].MinKey) < 0 })
		for i := 1; i < len(fs); i++ {
			if t.Spec.Key.Compare(fs[i-1].MaxKey, fs[i].MinKey) >= 0 {
				return fmt.Errorf("%w: files %s and %s overlap in key range at level %d of bucket %d",
					ErrCommitConflict, fs[i-1].Name, fs[i].Name, k.level, k.b.bucket)
			}
		}
	}
	return nil
}

// assignRowTracking is RowTrackingCommitUtils.assignRowTracking (Paimon
// 1.4) for a 'row-tracking.enabled' table: every added file whose sequence
// numbers start at 0 gets the new snapshot's id as its min and max
// sequence number (a row's _SEQUENCE_NUMBER is the snapshot that wrote
// it), and every file an append wrote gets the next first row id of the
// table (its rows' _ROW_ID), in commit order. It returns new entries (an
// attempt that conflicts is retried from the originals) and the snapshot's
// nextRowId.
func assignRowTracking(snapshotID, nextRowID int64, entries []manifest.ManifestEntry) ([]manifest.ManifestEntry, int64) {
	out := make([]manifest.ManifestEntry, len(entries))
	for i, e := range entries {
		out[i] = e
		if e.Kind != manifest.Add {
			continue
		}
		f := e.File
		if f.MinSequenceNumber == 0 {
			f.MinSequenceNumber, f.MaxSequenceNumber = snapshotID, snapshotID
		}
		if f.FileSource != nil && *f.FileSource == manifest.SourceAppend && f.FirstRowID == nil && !slices.Contains(f.WriteCols, "_ROW_ID") {
			id := nextRowID
			f.FirstRowID = &id
			nextRowID += f.RowCount
		}
		out[i].File = f
	}
	return out, nextRowID
}
