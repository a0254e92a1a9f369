package table

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

// TestAppendToJavaDeletionVectorTable appends to the table Paimon Java
// wrote with deletion-vectors.enabled (pk_dv_golden_java21: rows 1..6 in
// files at levels 1 and 2, no deletion vector yet): an update, a delete
// and a new key, committed twice by two writers. The older versions in
// Java's files are marked in a DELETION_VECTORS index file of the COMPACT
// snapshot (LookupChangelogMergeFunctionWrapper → BucketedDvMaintainer,
// DeletionVectorsIndexFile), the second writer restores and extends it,
// Java's own index entries (2.x global indexes) stay in the index
// manifest, and the table reads as Paimon's deletion-vector readers read
// it: level 0 skipped, files raw minus marked rows.
func TestAppendToJavaDeletionVectorTable(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join(fixtures.PaimonDir(t), "pk_dv_golden_java21", "*.db", "*"))
	if len(src) != 1 {
		t.Fatalf("fixture: %v", src)
	}
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	// The table's num-sorted-run.compaction-trigger of 2 would compact
	// every commit fully (three sorted runs), rewriting Java's files
	// instead of marking them: a dynamic option raises it, keeping the
	// three levels.
	tbl, err := Open(fs.NewLocal(), dir, map[string]string{"num-sorted-run.compaction-trigger": "5", "num-levels": "3"})
	if err != nil {
		t.Fatal(err)
	}
	s0, _ := tbl.Snapshots.Latest()
	javaIndex, err := tbl.Manifests.ReadIndexManifest(*s0.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	r := func(k sql.RowKind, id int32, name, cat string) sql.Row { return row(k, id, name, cat) }
	writeCommit(t, tbl, "sqlrun", 1, r(sql.Insert, 2, "name-2b", "even"), r(sql.Delete, 4, "name-4", "even"), r(sql.Insert, 7, "name-7", "odd"))
	want := strings.Join([]string{"+I[1, name-1, odd]", "+I[2, name-2b, even]", "+I[3, name-3, odd]", "+I[5, name-5, odd]",
		"+I[6, name-6, even]", "+I[7, name-7, odd]"}, "\n")
	if got := mustRead(t, tbl); got != want {
		t.Fatalf("after the first append:\n%s\nwant\n%s", got, want)
	}
	checkDeletionVectors(t, tbl)
	s1, _ := tbl.Snapshots.Latest()
	dvs, err := tbl.indexEntries(s1, manifest.IndexDeletionVectors)
	if err != nil || len(dvs) != 1 || s1.CommitKind != "COMPACT" {
		t.Fatalf("snapshot %d (%s): deletion vector index files %v, %v", s1.ID, s1.CommitKind, dvs, err)
	}
	javaFiles := map[string]bool{}
	es, _ := tbl.Manifests.LiveFiles(s0.BaseManifestList, s0.DeltaManifestList)
	for _, e := range es {
		javaFiles[e.File.FileName] = true
	}
	marked := 0
	for _, rg := range dvs[0].DVRanges {
		if javaFiles[rg.DataFile] {
			marked += int(*rg.Cardinality)
		}
	}
	if marked != 2 {
		t.Fatalf("rows of Java's files marked deleted: %d, want 2 (ids 2 and 4): %+v", marked, dvs[0].DVRanges)
	}
	all, _ := tbl.Manifests.ReadIndexManifest(*s1.IndexManifest)
	if len(all) != len(javaIndex)+1 {
		t.Fatalf("index manifest: %d entries, Java's %d plus one deletion vector file expected", len(all), len(javaIndex))
	}

	// A second writer restores the vectors and adds to them.
	writeCommit(t, tbl, "sqlrun", 2, r(sql.Insert, 1, "name-1b", "odd"), r(sql.Insert, 2, "name-2c", "even"))
	want = strings.Replace(strings.Replace(want, "name-1,", "name-1b,", 1), "name-2b", "name-2c", 1)
	if got := mustRead(t, tbl); got != want {
		t.Fatalf("after the second append:\n%s\nwant\n%s", got, want)
	}
	checkDeletionVectors(t, tbl)
}
