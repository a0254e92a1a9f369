package table

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// Dynamic bucket mode, as Paimon 1.4.2 does it: CoreOptions.BUCKET
// defaults to -1 (a primary-key table without 'bucket' is dynamic),
// KeyValueFileStore.bucketMode gives HASH_DYNAMIC, HashBucketAssigner and
// PartitionIndex route key hashes, DynamicBucketIndexMaintainer keeps one
// HASH index file per (partition, bucket), AbstractFileStoreWrite puts it
// in the APPEND part of the commit message and FileStoreCommitImpl writes
// the combined index manifest (IndexManifestFileHandler's BucketedCombiner)
// into the same snapshot as the data.

func TestCreateWithoutBucketIsDynamic(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), []string{"dt"}, map[string]string{"connector": "paimon", "changelog-producer": "input"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// Flink's Paimon catalog stores the options given, no 'bucket'.
	if _, ok := tbl.Schema.Options["bucket"]; ok || tbl.NumBuckets != -1 || !tbl.DynamicBucket() {
		t.Fatalf("options %v, buckets %d", tbl.Schema.Options, tbl.NumBuckets)
	}
	app, err := Create(nil, t.TempDir(), sql.Schema{Columns: pkSchema().Columns}, nil, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if app.NumBuckets != -1 || app.DynamicBucket() {
		t.Fatalf("append table: buckets %d dynamic %v", app.NumBuckets, app.DynamicBucket())
	}
}

// bucketsOf returns, per serialized partition, the bucket of every live
// key (id) read from the data files, failing if a key is in two buckets.
func bucketsOf(t *testing.T, tbl *Table) map[string]map[int64]int {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[int64]int{}
	for _, sp := range splits {
		it, err := tbl.ReadKV(sp)
		if err != nil {
			t.Fatal(err)
		}
		for kv := it.Next(); kv != nil; kv = it.Next() {
			id := kv.Value[0].(int64)
			m := out[string(sp.Partition)]
			if m == nil {
				m = map[int64]int{}
				out[string(sp.Partition)] = m
			}
			if b, ok := m[id]; ok && b != sp.Bucket {
				t.Fatalf("key %d in buckets %d and %d", id, b, sp.Bucket)
			}
			m[id] = sp.Bucket
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkHashIndex checks the latest snapshot's HASH index against its data:
// one index file per (partition, bucket) with data, holding the hash of
// every key in that bucket.
func checkHashIndex(t *testing.T, tbl *Table) map[string]map[int]int {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	es, err := tbl.indexEntries(s, index.TypeHash)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]map[int]map[int32]bool{}
	for _, e := range es {
		hs, err := tbl.readHashIndex(e)
		if err != nil {
			t.Fatal(err)
		}
		if files[string(e.Partition)] == nil {
			files[string(e.Partition)] = map[int]map[int32]bool{}
		}
		if files[string(e.Partition)][int(e.Bucket)] != nil {
			t.Fatalf("two hash index files for bucket %d", e.Bucket)
		}
		set := map[int32]bool{}
		for _, h := range hs {
			set[h] = true
		}
		files[string(e.Partition)][int(e.Bucket)] = set
		p, err := tbl.indexFilePath(e)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := tbl.FIO.Exists(p); err != nil || !st {
			t.Fatalf("index file %s missing", e.FileName)
		}
	}
	counts := map[string]map[int]int{}
	for part, keys := range bucketsOf(t, tbl) {
		counts[part] = map[int]int{}
		for id, b := range keys {
			counts[part][b]++
			h, _, err := tbl.keyHash([]any{id, nil, nil, nil}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !files[part][b][h] {
				t.Fatalf("key %d (hash %d) of bucket %d is not in the bucket's hash index", id, h, b)
			}
		}
	}
	return counts
}

func dynTable(t *testing.T, opts map[string]string) *Table {
	t.Helper()
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "dt", Type: sql.String().NotNull()},
		{Name: "v", Type: sql.Int()}, {Name: "s", Type: sql.String()}}, PrimaryKey: []string{"id", "dt"}}
	tbl, err := Create(nil, t.TempDir(), s, []string{"dt"}, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestDynamicBucketWriteAndIndex(t *testing.T) {
	tbl := dynTable(t, map[string]string{"dynamic-bucket.target-row-num": "10"})
	var rows []sql.Row
	for i := int64(0); i < 35; i++ {
		rows = append(rows, row(sql.Insert, i, "a", int32(i), "x"))
	}
	for i := int64(0); i < 12; i++ {
		rows = append(rows, row(sql.Insert, i, "b", int32(i), "y"))
	}
	msgs := writeCommit(t, tbl, "u", 1, rows...)
	for _, m := range msgs {
		if m.TotalBuckets != -1 || len(m.NewIndexFiles) != 1 {
			t.Fatalf("message of bucket %d: total %d, %d index files", m.Bucket, m.TotalBuckets, len(m.NewIndexFiles))
		}
	}
	// PartitionIndex: new keys fill bucket 0 to target-row-num, then 1, ...
	counts := checkHashIndex(t, tbl)
	pa, _ := binrow.Serialize([]sql.DataType{sql.String().NotNull()}, []any{"a"})
	pb, _ := binrow.Serialize([]sql.DataType{sql.String().NotNull()}, []any{"b"})
	if got := fmt.Sprint(counts[string(pa)], counts[string(pb)]); got != "map[0:10 1:10 2:10 3:5] map[0:10 1:2]" {
		t.Fatalf("bucket sizes %s", got)
	}
	s, _ := tbl.Snapshots.Latest()
	if s.IndexManifest == nil || s.CommitKind != "APPEND" {
		t.Fatalf("snapshot %+v", s)
	}
	es, err := tbl.Manifests.ReadEntries(s.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.TotalBuckets != -1 {
			t.Fatalf("_TOTAL_BUCKETS %d", e.TotalBuckets)
		}
	}

	// A new writer (another job) loads the index: updates stay in their
	// bucket, new keys first fill the non-full buckets (3 of a, 1 of b).
	var more []sql.Row
	for i := int64(30); i < 45; i++ {
		more = append(more, row(sql.Insert, i, "a", int32(-i), "z"))
	}
	more = append(more, row(sql.Delete, int64(3), "a", nil, nil), row(sql.Insert, int64(100), "b", int32(1), "n"))
	writeCommit(t, tbl, "u2", 1, more...)
	counts = checkHashIndex(t, tbl)
	if got := fmt.Sprint(counts[string(pa)], counts[string(pb)]); got != "map[0:9 1:10 2:10 3:10 4:5] map[0:10 1:3]" {
		t.Fatalf("bucket sizes after append %s", got)
	}
	got := mustRead(t, tbl)
	if n := strings.Count(got, "\n") + 1; n != 45-1+13 {
		t.Fatalf("%d rows:\n%s", n, got)
	}
	if !strings.Contains(got, "+I[34, a, -34, z]") || strings.Contains(got, "+I[3, a,") {
		t.Fatalf("rows:\n%s", got)
	}

	// Compaction keeps every key in its bucket and the index unchanged.
	before, _ := tbl.Snapshots.Latest()
	if _, err := Compact(tbl, CompactOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	after, _ := tbl.Snapshots.Latest()
	if after.ID == before.ID || *after.IndexManifest != *before.IndexManifest {
		t.Fatalf("compaction: snapshot %d → %d, index manifest %v → %v", before.ID, after.ID, *before.IndexManifest, *after.IndexManifest)
	}
	if mustRead(t, tbl) != got {
		t.Fatal("rows changed by compaction")
	}
}

func TestDynamicBucketOverwrite(t *testing.T) {
	tbl := dynTable(t, map[string]string{"dynamic-bucket.target-row-num": "4"})
	var rows []sql.Row
	for i := int64(0); i < 10; i++ {
		rows = append(rows, row(sql.Insert, i, "a", int32(i), "x"), row(sql.Insert, i, "b", int32(i), "x"))
	}
	writeCommit(t, tbl, "u", 1, rows...)
	sink, err := NewSink(tbl, SinkOptions{Overwrite: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := sink.NewWriter(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := w.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []sql.Row{row(sql.Insert, int64(7), "a", int32(70), "o"), row(sql.Insert, int64(8), "a", int32(80), "o")}); err != nil {
		t.Fatal(err)
	}
	_, comm, err := w.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Commit(ctx, 1, [][]byte{comm}); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	// Partition a is replaced: its old index files are gone, the new keys
	// start again at bucket 0 (SimpleHashBucketAssigner); b is untouched.
	counts := checkHashIndex(t, tbl)
	pa, _ := binrow.Serialize([]sql.DataType{sql.String().NotNull()}, []any{"a"})
	pb, _ := binrow.Serialize([]sql.DataType{sql.String().NotNull()}, []any{"b"})
	if got := fmt.Sprint(counts[string(pa)], counts[string(pb)]); got != "map[0:2] map[0:4 1:4 2:2]" {
		t.Fatalf("bucket sizes %s", got)
	}
	s, _ := tbl.Snapshots.Latest()
	es, _ := tbl.indexEntries(s, index.TypeHash)
	if len(es) != 4 {
		t.Fatalf("%d index entries", len(es))
	}
}

func TestDynamicBucketRefusals(t *testing.T) {
	// Postpone bucket mode: TestPostponeWriteRefusals.
	if _, err := Create(nil, t.TempDir(), pkSchema(), nil, map[string]string{"bucket": "0"}, "", 0); err == nil {
		t.Fatal("bucket 0 accepted")
	}
}

// TestDynamicBucketCommitIsAtomic: the index manifest is part of the
// snapshot that adds the data; a replayed commit adds neither again.
func TestDynamicBucketCommitIsAtomic(t *testing.T) {
	tbl := dynTable(t, nil)
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(row(sql.Insert, int64(1), "a", int32(1), "x")); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	c := tbl.NewCommit("u")
	for i := 0; i < 2; i++ {
		if err := c.Commit(7, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	ids, _ := tbl.Snapshots.ListIDs()
	if len(ids) != 1 {
		t.Fatalf("snapshots %v", ids)
	}
	s, _ := tbl.Snapshots.Read(ids[0])
	es, err := tbl.Manifests.ReadIndexManifest(*s.IndexManifest)
	if err != nil || len(es) != 1 || es[0].Kind != manifest.Add || es[0].RowCount != 1 {
		t.Fatalf("index manifest %v %v", es, err)
	}
	// A second commit of the same bucket replaces its index file.
	if err := w.Write(row(sql.Insert, int64(2), "a", int32(2), "x")); err != nil {
		t.Fatal(err)
	}
	msgs, err = w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(8, msgs, nil); err != nil {
		t.Fatal(err)
	}
	s, _ = tbl.Snapshots.Latest()
	es, _ = tbl.Manifests.ReadIndexManifest(*s.IndexManifest)
	if len(es) != 1 || es[0].RowCount != 2 {
		t.Fatalf("index manifest %v", es)
	}
	var names []string
	ents, _ := fs.NewLocal().List(fs.Join(tbl.Root, "index"))
	for _, e := range ents {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	if len(names) != 2 {
		t.Fatalf("index dir %v", names)
	}
}

// A postpone bucket table (bucket = -2) as Paimon 1.4 leaves it: files of
// new writes in bucket-postpone (bucket -2) until its compaction assigns
// them, files of earlier compactions in real buckets. Batch reads see
// only the real buckets (DataTableBatchScan.onlyReadRealBuckets), as do
// streaming reads with a changelog producer (DataTableStreamScan).
func TestPostponeBucketReadsRealBuckets(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "a", int32(1), "compacted"))
	// The second write's file goes to bucket-postpone, as PostponeBucketWriter's.
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(row(sql.Insert, int64(2), "a", int32(2), "postponed")); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := fs.NewLocal().MkdirAll(fs.Join(dir, "bucket-postpone")); err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		for _, f := range msgs[i].NewFiles {
			if err := fs.NewLocal().Rename(fs.Join(dir, "bucket-0", f.FileName), fs.Join(dir, "bucket-postpone", f.FileName)); err != nil {
				t.Fatal(err)
			}
		}
		msgs[i].Bucket, msgs[i].TotalBuckets = -2, -2
	}
	if err := tbl.NewCommit("u").Commit(2, msgs, nil); err != nil {
		t.Fatal(err)
	}
	next := *tbl.Schema
	next.Options = map[string]string{"bucket": "-2"}
	if _, err := schema.NewManager(fs.NewLocal(), dir).CommitNext(&next); err != nil {
		t.Fatal(err)
	}
	post, err := Open(nil, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, post); got != "+I[1, a, 1, compacted]" {
		t.Fatalf("batch read of a postpone table:\n%s", got)
	}
	if !post.RealBucketsOnly(false) || post.RealBucketsOnly(true) {
		t.Fatal("streaming reads of producer none read bucket-postpone files (DataTableStreamScan)")
	}
	s, _ := post.Snapshots.Latest()
	delta, err := post.PlanDelta(s, nil)
	if err != nil || len(delta) != 1 || delta[0].Bucket != -2 {
		t.Fatalf("streaming delta %v %v", delta, err)
	}
}

// Expiration deletes the index manifests and index files only expired
// snapshots name (SnapshotDeletion.cleanUnusedIndexManifests); those of
// the retained snapshots stay, so the table reads and a new writer loads
// the index.
func TestExpireDeletesUnusedIndexFiles(t *testing.T) {
	tbl := dynTable(t, map[string]string{"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "2"})
	for i := int64(1); i <= 6; i++ {
		writeCommit(t, tbl, "u", i, row(sql.Insert, i, "a", int32(i), "x"))
	}
	ids, _ := tbl.Snapshots.ListIDs()
	if len(ids) != 2 {
		t.Fatalf("snapshots %v", ids)
	}
	want := map[string]bool{}
	for _, id := range ids {
		s, _ := tbl.Snapshots.Read(id)
		want[*s.IndexManifest] = true
		es, err := tbl.Manifests.ReadIndexManifest(*s.IndexManifest)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			want[e.FileName] = true
		}
	}
	var got []string
	for _, d := range []string{"index", "manifest"} {
		ents, _ := fs.NewLocal().List(fs.Join(tbl.Root, d))
		for _, e := range ents {
			if strings.HasPrefix(e.Name, "index-") {
				got = append(got, e.Name)
				if !want[e.Name] {
					t.Errorf("%s/%s is named by no retained snapshot", d, e.Name)
				}
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("index files and manifests on disk %v, retained snapshots name %v", got, want)
	}
	writeCommit(t, tbl, "u", 7, row(sql.Insert, int64(1), "a", int32(100), "again"))
	checkHashIndex(t, tbl)
	if rows := mustRead(t, tbl); strings.Count(rows, "\n") != 5 || !strings.Contains(rows, "+I[1, a, 100, again]") {
		t.Fatalf("rows:\n%s", rows)
	}
}
