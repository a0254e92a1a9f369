package table

import (
	"errors"
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
)

// DeleteTag is Paimon 1.4's TagManager.deleteTag with its TagDeletion: the
// tag file goes, and when the tagged snapshot has expired and no other tag
// names it, the data files, manifests and index files only that snapshot
// still used are deleted (doClean), so a tag that expires (by
// 'tag.num-retained-max', TagBatchCreation, CALL sys.delete_tag) leaves no
// orphans. A missing tag is no error (Paimon logs a warning).
func (t *Table) DeleteTag(name string) error {
	tag, err := t.Snapshots.ReadTag(name)
	if err != nil {
		if errors.Is(err, snapshot.ErrNotFound) {
			return nil
		}
		return err
	}
	return t.deleteTags(&tag.Snapshot, []string{name})
}

// deleteTags deletes the tags names, all of the snapshot tagged
// (TagManager.deleteAllTagsOfOneSnapshot when they are all its tags,
// deleteTag for one), and cleans up after the snapshot when it has expired
// and no other tag names it.
func (t *Table) deleteTags(tagged *snapshot.Snapshot, names []string) error {
	exists, err := t.Snapshots.Exists(tagged.ID)
	if err != nil {
		return err
	}
	var tags []snapshotTags
	if !exists {
		// Read every tag before deleting: the tags are their files.
		if tags, err = t.tagsBySnapshot(func(string) bool { return true }); err != nil {
			return err
		}
	}
	for _, n := range names {
		if err := t.Snapshots.DeleteTag(n); err != nil {
			return err
		}
	}
	if exists {
		return nil
	}
	for _, g := range tags {
		if g.id == tagged.ID && len(g.names) > len(names) {
			return nil // another tag still holds the snapshot
		}
	}
	if err := t.cleanTagged(tagged, tags); err != nil {
		return fmt.Errorf("paimon table %s: clean up after tag of snapshot %d: %w", t.Root, tagged.ID, err)
	}
	return nil
}

// cleanTagged is TagManager.doClean: the files of the expired snapshot
// tagged that neither its left neighbour tag nor the nearer of its right
// neighbour tag and the earliest snapshot uses are deleted: data files
// (TagDeletion.cleanUnusedDataFiles), then its data manifest lists and
// manifests and its index manifest and index files
// (cleanUnusedManifests; changelog stays with snapshot expiration). A
// file is added once and deleted once, so one the neighbours do not use
// no other retained snapshot or tag uses either. Deletions are quiet, as
// Paimon's deleteQuietly.
func (t *Table) cleanTagged(tagged *snapshot.Snapshot, tags []snapshotTags) error {
	var skipped []*snapshot.Snapshot
	idx := -1
	for i, g := range tags {
		if g.id == tagged.ID {
			idx = i
		}
	}
	readTag := func(g snapshotTags) (*snapshot.Snapshot, error) {
		tag, err := t.Snapshots.ReadTag(g.names[0])
		if err != nil {
			return nil, err
		}
		return &tag.Snapshot, nil
	}
	if idx > 0 {
		left, err := readTag(tags[idx-1])
		if err != nil && !errors.Is(err, snapshot.ErrNotFound) {
			return err
		}
		if left != nil {
			skipped = append(skipped, left)
		}
	}
	right, err := t.Snapshots.Earliest()
	if err != nil {
		return err
	}
	if idx >= 0 && idx+1 < len(tags) && (right == nil || tags[idx+1].id < right.ID) {
		rt, err := readTag(tags[idx+1])
		if err != nil && !errors.Is(err, snapshot.ErrNotFound) {
			return err
		}
		if rt != nil {
			right = rt
		}
	}
	if right != nil {
		skipped = append(skipped, right)
	}
	keepFiles := map[string]bool{}
	keepNames := map[string]bool{} // manifest lists, manifests, index manifests and files
	for _, s := range skipped {
		live, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
		if err != nil {
			return err
		}
		for _, e := range live {
			if e.Kind == manifest.Add {
				keepFiles[t.entryPath(e)] = true
			}
		}
		for _, l := range []string{s.BaseManifestList, s.DeltaManifestList} {
			keepNames[l] = true
			ms, err := t.Manifests.ReadManifestList(l)
			if err != nil {
				return err
			}
			for _, m := range ms {
				keepNames[m.FileName] = true
			}
		}
		if s.IndexManifest != nil && *s.IndexManifest != "" {
			keepNames[*s.IndexManifest] = true
			es, err := t.Manifests.ReadIndexManifest(*s.IndexManifest)
			if err != nil {
				return err
			}
			for _, e := range es {
				keepNames[e.FileName] = true
			}
		}
	}
	live, err := t.Manifests.LiveFiles(tagged.BaseManifestList, tagged.DeltaManifestList)
	if err != nil {
		return err
	}
	dirs := deletionBuckets{}
	for _, e := range live {
		p := t.entryPath(e)
		if e.Kind != manifest.Add || p == "" || keepFiles[p] {
			continue
		}
		_ = t.FIO.Delete(p)
		for _, x := range e.File.ExtraFiles {
			_ = t.FIO.Delete(fs.Join(fs.Dir(p), x))
		}
		dirs.record(e)
	}
	// TagManager.doClean: empty directories go right after the data files.
	t.cleanEmptyDirectories(dirs)
	mdir := manifest.Dir(t.Root)
	for _, l := range []string{tagged.BaseManifestList, tagged.DeltaManifestList} {
		ms, err := t.Manifests.ReadManifestList(l)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if !keepNames[m.FileName] {
				keepNames[m.FileName] = true
				_ = t.FIO.Delete(fs.Join(mdir, m.FileName))
			}
		}
		if !keepNames[l] {
			keepNames[l] = true
			_ = t.FIO.Delete(fs.Join(mdir, l))
		}
	}
	if tagged.IndexManifest != nil && *tagged.IndexManifest != "" {
		es, err := t.Manifests.ReadIndexManifest(*tagged.IndexManifest)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted with another snapshot
			}
			return err
		}
		for _, e := range es {
			if keepNames[e.FileName] {
				continue
			}
			p, err := t.indexFilePath(e)
			if err != nil {
				return err
			}
			_ = t.FIO.Delete(p)
		}
		if !keepNames[*tagged.IndexManifest] {
			_ = t.FIO.Delete(fs.Join(mdir, *tagged.IndexManifest))
		}
	}
	return nil
}
