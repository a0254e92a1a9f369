package table

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestAppendToJavaDeletionVectors09 appends to a deletion-vector table
// Paimon Java wrote with vectors already in place (testdata pk_09_dv:
// Paimon 0.9 layout, bucket 2 with bucket-key f2, partition f1; at
// snapshot 8 its file of f1=10/bucket-1 has position 4 marked in a
// DELETION_VECTORS file whose ranges have no _CARDINALITY, f1=10/bucket-0
// has the one-byte file of a bucket without vectors, f1=20 none). The
// table sets 'commit.force-compact' = 'true', which sqlrun honours: the
// commit waits for the lookup compaction (as 'lookup-wait' makes it
// anyway).
//
// What Paimon 1.4 commits is checked file by file: an APPEND snapshot
// that keeps the index manifest, then a COMPACT snapshot whose index
// manifest replaces the DELETION_VECTORS file of each bucket the lookup
// compaction changed (BucketedDvMaintainer restored from the bucket's
// file, written whole by DeletionVectorsIndexFile; IndexManifestFileHandler
// combines by partition and bucket) and keeps the untouched bucket's file
// of Java's as it is; Java's mark survives next to sqlrun's; every range
// records its cardinality; the table reads as Paimon's deletion-vector
// readers read it. A second writer's compaction rewrites a bucket whole:
// its vectors give way to the empty file Java writes for such a bucket.
func TestAppendToJavaDeletionVectors09(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "paimon", "java", "pk_09_dv", "*.db", "*"))
	if len(src) != 1 {
		t.Fatalf("fixture: %v", src)
	}
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(fs.NewLocal(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s8, err := tbl.Snapshots.Latest()
	if err != nil || s8.ID != 8 {
		t.Fatalf("fixture's latest snapshot: %v %v", s8, err)
	}
	javaIndex, err := tbl.Manifests.ReadIndexManifest(*s8.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	javaFiles := map[string]bool{}
	for _, e := range javaIndex {
		javaFiles[e.FileName] = true
	}
	const (
		p10b0 = "data-2b672a79-68bb-447c-8f8d-b4764e29b391-1.parquet" // Alice, Two roads, Whether
		p10b1 = "data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet" // Alex, Bob, David, Emily; position 4 marked
		p20b0 = "data-cf4e088c-c6e7-4812-bb97-196f6aff271c-0.parquet" // Lucy, Paul
	)
	// vectors reads the latest snapshot's DELETION_VECTORS entries: per
	// data file the marked positions among 0..4, and the entries.
	vectors := func() (map[string]string, []manifest.IndexManifestEntry) {
		t.Helper()
		s, err := tbl.Snapshots.Latest()
		if err != nil {
			t.Fatal(err)
		}
		es, err := tbl.indexEntries(s, manifest.IndexDeletionVectors)
		if err != nil {
			t.Fatal(err)
		}
		vecs, err := tbl.readDeletionVectors(es)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for f, b := range vecs {
			var pos []string
			for p := int64(0); p < 5; p++ {
				if b.IsDeleted(p) {
					pos = append(pos, fmt.Sprint(p))
				}
			}
			if int64(len(pos)) != b.Cardinality() {
				t.Fatalf("vector of %s: cardinality %d, positions %v", f, b.Cardinality(), pos)
			}
			out[f] = strings.Join(pos, ",")
		}
		return out, es
	}
	if got, _ := vectors(); fmt.Sprint(got) != fmt.Sprintf("map[%s:4]", p10b1) {
		t.Fatalf("Java's deletion vectors: %v", got)
	}

	r := func(name string, f1, f2 int32, f3 float64) sql.Row { return row(sql.Insert, name, f1, f2, f3) }
	writeCommit(t, tbl, "sqlrun", 1, r("Alice", 10, 1, 99.0), r("Bob", 10, 0, 55.5), r("Zoe", 10, 1, 1.0), r("Lucy", 20, 1, 15.5))
	want := []string{"+I[Alex, 10, 0, 16.1]", "+I[Alice, 10, 1, 99.0]", "+I[Bob, 10, 0, 55.5]", "+I[David, 10, 0, 17.1]",
		"+I[Emily, 10, 0, 13.1]", "+I[Lucy, 20, 1, 15.5]", "+I[Paul, 20, 1, 18.1]",
		"+I[Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference., 10, 1, 11.0]",
		"+I[Whether I shall turn out to be the hero of my own life., 10, 1, 19.1]", "+I[Zoe, 10, 1, 1.0]"}
	if got := mustRead(t, tbl); got != strings.Join(want, "\n") {
		t.Fatalf("after the append:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	checkDeletionVectors(t, tbl)
	s9, err := tbl.Snapshots.Read(9)
	if err != nil {
		t.Fatal(err)
	}
	s10, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if s9.CommitKind != "APPEND" || s10.ID != 10 || s10.CommitKind != "COMPACT" || *s9.IndexManifest != *s8.IndexManifest {
		t.Fatalf("snapshots 9 %s (index manifest %s, Java's %s), %d %s: want an APPEND keeping Java's index manifest, then COMPACT",
			s9.CommitKind, *s9.IndexManifest, *s8.IndexManifest, s10.ID, s10.CommitKind)
	}
	got, es := vectors()
	// Each key's older version marked in Java's file of its bucket (its
	// position found by lookup), Java's mark of position 4 kept.
	if len(got) != 3 || got[p10b1] == "" || !strings.HasSuffix(got[p10b1], ",4") || strings.Count(got[p10b1], ",") != 1 ||
		strings.Contains(got[p10b0], ",") || got[p10b0] == "" || strings.Contains(got[p20b0], ",") || got[p20b0] == "" {
		t.Fatalf("deletion vectors after the append: %v (want Java's 4 and Bob's position in %s, one position in %s and in %s)", got, p10b1, p10b0, p20b0)
	}
	buckets := map[string]string{}
	for _, e := range es {
		if javaFiles[e.FileName] {
			t.Errorf("bucket %d of %x keeps Java's deletion vector file %s though its vectors changed", e.Bucket, e.Partition, e.FileName)
		}
		for _, rg := range e.DVRanges {
			if rg.Cardinality == nil || *rg.Cardinality != int64(strings.Count(got[rg.DataFile], ",")+1) {
				t.Errorf("range of %s: _CARDINALITY %v, vector %s", rg.DataFile, rg.Cardinality, got[rg.DataFile])
			}
			buckets[rg.DataFile] = e.FileName
		}
	}
	if len(es) != 3 || len(buckets) != 3 || buckets[p10b0] == buckets[p10b1] {
		t.Fatalf("DELETION_VECTORS entries %+v: want one file per bucket", es)
	}
	// No other index entry appeared or vanished (pk_09 has only
	// DELETION_VECTORS entries).
	all, err := tbl.Manifests.ReadIndexManifest(*s10.IndexManifest)
	if err != nil || len(all) != 3 {
		t.Fatalf("index manifest of snapshot 10: %d entries, %v", len(all), err)
	}

	// A second writer updates Alex in f1=10/bucket-1. Its lookup
	// compaction takes in all the bucket's files there (the size ratio of
	// these small files reaches Java's, as ForceUpLevel0Compaction's
	// pickForSizeRatio would), so Java's file and its vector are gone: the
	// bucket's vectors are replaced by the one-byte file of a bucket
	// without vectors, byte for byte what Java's snapshot 8 has for
	// f1=10/bucket-0, and the other buckets keep sqlrun's files.
	writeCommit(t, tbl, "sqlrun", 2, r("Alex", 10, 0, 0.5))
	want[0] = "+I[Alex, 10, 0, 0.5]"
	if got := mustRead(t, tbl); got != strings.Join(want, "\n") {
		t.Fatalf("after the second append:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	checkDeletionVectors(t, tbl)
	got2, es2 := vectors()
	if len(got2) != 2 || got2[p10b0] != got[p10b0] || got2[p20b0] != got[p20b0] {
		t.Fatalf("deletion vectors after the second append: %v, before %v (want %s's gone with its file)", got2, got, p10b1)
	}
	var javaEmpty []byte
	for _, e := range javaIndex {
		if len(e.DVRanges) == 0 {
			p, err := tbl.indexFilePath(e)
			if err != nil {
				t.Fatal(err)
			}
			if javaEmpty, err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	empty := 0
	for _, e := range es2 {
		if len(e.DVRanges) == 0 {
			empty++
			p, err := tbl.indexFilePath(e)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil || e.Bucket != 1 || e.FileName == buckets[p10b1] || e.FileSize != int64(len(b)) || len(javaEmpty) != 1 || !bytes.Equal(b, javaEmpty) {
				t.Errorf("bucket %d's empty deletion vector file %s (%d bytes, % x; Java's % x; _FILE_SIZE %d): %v", e.Bucket, e.FileName, len(b), b, javaEmpty, e.FileSize, err)
			}
			continue
		}
		for _, rg := range e.DVRanges {
			if e.FileName != buckets[rg.DataFile] {
				t.Errorf("vector of %s moved from %s to %s though its bucket was not written", rg.DataFile, buckets[rg.DataFile], e.FileName)
			}
		}
	}
	if len(es2) != 3 || empty != 1 {
		t.Fatalf("DELETION_VECTORS entries after the second append %+v: want three, one of them empty", es2)
	}
}

// TestAppendToCppIndexInDataDeletionVectors appends to the paimon-cpp
// fixture pk_dv_index_in_data (written by Paimon Java: bucket 2 with
// bucket-key f2, partition f1, deletion vectors, 'index-file-in-data-file-dir'
// = true, 'commit.force-compact' = 'true'), as it is: no dynamic option
// turns 'commit.force-compact' off. A streaming writer with 'lookup-wait' =
// 'false' (the commit would not wait for the lookup compaction otherwise)
// still commits the compaction with the data, since MergeTreeWriter
// .prepareCommit waits for it under commitForceCompact: an APPEND then a
// COMPACT snapshot, no level-0 file left, the new DELETION_VECTORS files in
// the bucket directories (IndexInDataFileDirPathFactory) and none under
// index/, and the table reads as Paimon's deletion-vector readers read it.
func TestAppendToCppIndexInDataDeletionVectors(t *testing.T) {
	src := filepath.Join("..", "..", "..", "testdata", "paimon", "java", "pk_dv_index_in_data", "pk_dv_index_in_data_no_external.db", "pk_dv_index_in_data_no_external")
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(fs.NewLocal(), dir, map[string]string{"lookup-wait": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if !tbl.Options.CommitForceCompact {
		t.Fatal("the fixture does not set 'commit.force-compact' = 'true'")
	}
	s4, err := tbl.Snapshots.Latest()
	if err != nil || s4.ID != 4 {
		t.Fatalf("fixture's latest snapshot: %v %v", s4, err)
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := func(k sql.RowKind, name string, f1, f2 int32, f3 float64) sql.Row { return row(k, name, f1, f2, f3) }
	for _, x := range []sql.Row{r(sql.Insert, "Alice", 10, 1, 99.0), r(sql.Delete, "Bob", 10, 0, 12.1), r(sql.Insert, "Zoe", 20, 0, 1.0)} {
		if err := w.Write(x); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := w.PrepareCommit(false)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.NewCommit("sqlrun").Commit(1, msgs, nil); err != nil {
		t.Fatal(err)
	}
	s5, err := tbl.Snapshots.Read(5)
	if err != nil {
		t.Fatal(err)
	}
	s6, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if s5.CommitKind != "APPEND" || s6.ID != 6 || s6.CommitKind != "COMPACT" {
		t.Fatalf("snapshots 5 %s, %d %s: want an APPEND, then a COMPACT", s5.CommitKind, s6.ID, s6.CommitKind)
	}
	for _, e := range liveFiles(t, tbl) {
		if e.File.Level == 0 {
			t.Errorf("level-0 file %s left after the commit", e.File.FileName)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index")); !os.IsNotExist(err) {
		t.Errorf("an index directory was written (%v): 'index-file-in-data-file-dir' keeps index files in the buckets", err)
	}
	es, err := tbl.indexEntries(s6, manifest.IndexDeletionVectors)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		pp, err := tbl.PartitionPath(e.Partition)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, pp, fmt.Sprintf("bucket-%d", e.Bucket), e.FileName)); err != nil {
			t.Errorf("deletion vectors of %s bucket %d: %v", pp, e.Bucket, err)
		}
	}
	want := []string{"+I[Alex, 10, 0, 16.1]", "+I[Alice, 10, 1, 99.0]", "+I[David, 10, 0, 17.1]", "+I[Emily, 10, 0, 13.1]",
		"+I[Lucy, 20, 1, 14.1]", "+I[Paul, 20, 1, 18.1]",
		"+I[Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference., 10, 1, 11.0]",
		"+I[Zoe, 20, 0, 1.0]"}
	got := strings.Split(mustRead(t, tbl), "\n")
	slices.Sort(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the append:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkDeletionVectors(t, tbl)
}
