package table

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// filesBeyondRefs lists the data, changelog, manifest and index files
// under the table's directory that no retained snapshot or tag uses
// (orphans), and fails when one they use is missing.
func filesBeyondRefs(t *testing.T, tbl *Table) []string {
	t.Helper()
	used := map[string]bool{}
	var all []*snapshot.Snapshot
	ids, err := tbl.Snapshots.ListIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		all = append(all, mustSnapshot(t, tbl, id))
	}
	names, err := tbl.Snapshots.TagNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		tag, err := tbl.Snapshots.ReadTag(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, &tag.Snapshot)
	}
	mdir := manifest.Dir(tbl.Root)
	for _, s := range all {
		lists := []string{s.BaseManifestList, s.DeltaManifestList}
		if s.ChangelogManifestList != nil {
			lists = append(lists, *s.ChangelogManifestList)
			cl, err := tbl.Manifests.ReadEntries(*s.ChangelogManifestList)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range cl {
				used[tbl.entryPath(e)] = true
			}
		}
		for _, l := range lists {
			used[filepath.Join(mdir, l)] = true
			ms, err := tbl.Manifests.ReadManifestList(l)
			if err != nil {
				t.Fatalf("snapshot %d: %v", s.ID, err)
			}
			for _, m := range ms {
				used[filepath.Join(mdir, m.FileName)] = true
			}
		}
		live, err := tbl.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
		if err != nil {
			t.Fatalf("snapshot %d: %v", s.ID, err)
		}
		for _, e := range live {
			if e.Kind == manifest.Add {
				used[tbl.entryPath(e)] = true
			}
		}
		if s.IndexManifest != nil && *s.IndexManifest != "" {
			used[filepath.Join(mdir, *s.IndexManifest)] = true
			es, err := tbl.Manifests.ReadIndexManifest(*s.IndexManifest)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				p, err := tbl.indexFilePath(e)
				if err != nil {
					t.Fatal(err)
				}
				used[p] = true
			}
		}
	}
	var orphans []string
	err = filepath.WalkDir(tbl.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tbl.Root, p)
		top := strings.Split(rel, string(filepath.Separator))[0]
		if top == "snapshot" || top == "schema" || top == "tag" || top == "consumer" {
			return nil
		}
		if !used[p] {
			orphans = append(orphans, rel)
		}
		delete(used, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range used {
		t.Errorf("a retained snapshot or tag uses %s, which is gone", p)
	}
	slices.Sort(orphans)
	return orphans
}

// TestDeleteTagCleansExpiredSnapshot: deleting the tag of an expired
// snapshot deletes the files only it still used and none another snapshot
// or tag uses (TagManager.deleteTag with TagDeletion), for a plain and a
// deletion-vector primary-key table and for a tag sharing its snapshot
// with another (whose deletion deletes nothing).
func TestDeleteTagCleansExpiredSnapshot(t *testing.T) {
	for _, opts := range []map[string]string{
		{"bucket": "1"},
		{"bucket": "1", "deletion-vectors.enabled": "true", "changelog-producer": "lookup"},
	} {
		tbl, err := Create(nil, t.TempDir(), pkSchema(), nil, opts, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		name := opts["deletion-vectors.enabled"]
		writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"), row(sql.Insert, int64(2), "d", int32(1), "a"))
		if err := tbl.CreateTag(mustSnapshot(t, tbl, 1), "t1"); err != nil {
			t.Fatal(err)
		}
		if err := tbl.CreateTag(mustSnapshot(t, tbl, 1), "t1b"); err != nil {
			t.Fatal(err)
		}
		for i := int64(2); i <= 4; i++ {
			writeCommit(t, tbl, "u", i, row(sql.Insert, int64(1), "d", int32(i), "b"))
		}
		if _, err := Compact(tbl, CompactOptions{Full: true, TempDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		// Expire all but the latest snapshot; the tags keep snapshot 1's
		// files.
		tbl, err = Open(nil, tbl.Root, map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.ExpireSnapshots(time.Now()); err != nil {
			t.Fatal(err)
		}
		if ok, _ := tbl.Snapshots.Exists(1); ok {
			t.Fatalf("%s: snapshot 1 did not expire", name)
		}
		if o := filesBeyondRefs(t, tbl); len(o) != 0 {
			t.Fatalf("%s: orphans before the tag is deleted: %v", name, o)
		}
		if err := tbl.DeleteTag("t1b"); err != nil {
			t.Fatal(err)
		}
		if o := filesBeyondRefs(t, tbl); len(o) != 0 {
			t.Fatalf("%s: deleting one of two tags of a snapshot deleted files: orphans %v", name, o)
		}
		if err := tbl.DeleteTag("t1"); err != nil {
			t.Fatal(err)
		}
		if o := filesBeyondRefs(t, tbl); len(o) != 0 {
			t.Errorf("%s: the deleted tag left orphans %v", name, o)
		}
		if got := mustRead(t, tbl); got != "+I[1, d, 4, b]\n+I[2, d, 1, a]" {
			t.Errorf("%s: read after the tag's deletion:\n%s", name, got)
		}
		if err := tbl.DeleteTag("t1"); err != nil {
			t.Errorf("%s: deleting a missing tag: %v", name, err)
		}
	}
}

// TestAutoTagExpiryCleans: the auto tags 'tag.num-retained-max' deletes
// (TagAutoCreation) take the files only their expired snapshots used with
// them, and only those.
func TestAutoTagExpiryCleans(t *testing.T) {
	tbl := tagTable(t, map[string]string{"tag.automatic-creation": "process-time", "sink.process-time-zone": "UTC",
		"tag.num-retained-max": "1", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1",
		"num-sorted-run.compaction-trigger": "2"})
	for day := 1; day <= 5; day++ {
		commitAt(t, tbl, nil, "2026-12-0"+string(rune('0'+day))+" 10:00", int32(day))
		if o := filesBeyondRefs(t, tbl); len(o) != 0 {
			t.Fatalf("day %d: orphans %v", day, o)
		}
	}
	if tags := tagsOf(t, tbl); len(tags) != 1 {
		t.Fatalf("tags %v", tags)
	}
}
