package table

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// postponeTable is a postpone bucket table ('bucket' = -2) partitioned by
// dt, primary key (id, dt).
func postponeTable(t *testing.T, opts map[string]string) *Table {
	t.Helper()
	o := map[string]string{"bucket": "-2"}
	for k, v := range opts {
		o[k] = v
	}
	tbl, err := Create(nil, t.TempDir(), pkSchema(), []string{"dt"}, o, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// postponeWrite writes rows with a TableWrite of the given parallelism
// and commits them as a batch job does.
func postponeWrite(t *testing.T, tbl *Table, parallelism int, rows ...sql.Row) {
	t.Helper()
	msgs := writeMessages(t, tbl, WriteOptions{TempDir: t.TempDir(), Parallelism: parallelism}, rows...)
	c := tbl.NewCommit(uuid.NewString()) // one user per batch job
	c.NoExpire = true                    // as Sink.Commit does for postpone bucket tables
	if err := c.Commit(snapshot.BatchCommitIdentifier, msgs, nil); err != nil {
		t.Fatal(err)
	}
}

// liveEntries returns the latest snapshot's live files.
func liveEntries(t *testing.T, tbl *Table) []manifest.ManifestEntry {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil || s == nil {
		t.Fatalf("latest snapshot: %v %v", s, err)
	}
	es, err := tbl.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// layout describes live files as "dt bucket/totalBuckets rows" lines.
func layout(t *testing.T, tbl *Table) string {
	t.Helper()
	rows := map[string]int64{}
	for _, e := range liveEntries(t, tbl) {
		pp, err := tbl.PartitionPath(e.Partition)
		if err != nil {
			t.Fatal(err)
		}
		rows[fmt.Sprintf("%s %d/%d", strings.TrimSuffix(pp, "/"), e.Bucket, e.TotalBuckets)] += e.File.RowCount
	}
	var out []string
	for k, n := range rows {
		out = append(out, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// A batch write of a postpone bucket table goes straight into real
// buckets, as Paimon 1.4's default 'postpone.batch-write-fixed-bucket'
// does (FlinkSinkBuilder.buildPostponeBucketSink,
// PostponeBatchWriteOperator): a partition without files gets
// min(parallelism, max-parallelism) buckets, one with files keeps its
// count (PostponeUtils.getKnownNumBuckets); rows land in the bucket a
// fixed-bucket table of that count puts them; the write is write-only (no
// compaction, no snapshot expiration: tableForFixBucketWrite,
// PrimaryKeyFileStoreTable.newExpireRunnable).
func TestPostponeBatchWriteFixedBuckets(t *testing.T) {
	tbl := postponeTable(t, map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1",
		"num-sorted-run.compaction-trigger": "2"})
	fixed, err := Create(nil, t.TempDir(), pkSchema(), []string{"dt"}, map[string]string{"bucket": "3"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var first []sql.Row
	for i := int64(1); i <= 30; i++ {
		first = append(first, row(sql.Insert, i, "a", int32(i), "x"))
	}
	postponeWrite(t, tbl, 3, first...)
	writeCommit(t, fixed, "u", 1, first...)
	if got, want := layout(t, tbl), layout(t, fixed); got != want {
		t.Fatalf("postpone batch write with parallelism 3:\n%s\nwant the layout of a 3-bucket table:\n%s", got, want)
	}
	// Partition a keeps its 3 buckets; b is new and gets min(1, 2048).
	postponeWrite(t, tbl, 1, row(sql.Insert, int64(1), "a", int32(100), "y"), row(sql.Insert, int64(2), "b", int32(2), "z"))
	postponeWrite(t, tbl, 1, row(sql.Delete, int64(3), "a", int32(3), "x"))
	for _, e := range liveEntries(t, tbl) {
		pp, _ := tbl.PartitionPath(e.Partition)
		want := int32(3)
		if pp == "dt=b/" {
			want = 1
		}
		if e.TotalBuckets != want || e.Bucket < 0 || e.Bucket >= e.TotalBuckets {
			t.Errorf("%s%s: bucket %d of %d, want one of %d buckets", pp, e.File.FileName, e.Bucket, e.TotalBuckets, want)
		}
		if e.File.Level != 0 {
			t.Errorf("%s: level %d: a postpone table's batch write is write-only (no compaction)", e.File.FileName, e.File.Level)
		}
		if ok, _ := tbl.FIO.Exists(fs.Join(tbl.Root, pp+fmt.Sprintf("bucket-%d", e.Bucket), e.File.FileName)); !ok {
			t.Errorf("%s not in %sbucket-%d", e.File.FileName, pp, e.Bucket)
		}
	}
	if ids, _ := tbl.Snapshots.ListIDs(); len(ids) != 3 {
		t.Errorf("snapshots %v: a postpone table's writes expire none", ids)
	}
	got := mustRead(t, tbl)
	if !strings.Contains(got, "+I[1, a, 100, y]") || strings.Contains(got, "+I[3, a,") || !strings.Contains(got, "+I[2, b, 2, z]") || strings.Count(got, "\n")+1 != 30 {
		t.Fatalf("read back:\n%s", got)
	}
}

// sinkRun writes batches of rows through a Sink of the given parallelism,
// each batch ending in a checkpoint whose committables are committed (a
// streaming job's checkpoints, or one batch job with batch). The rows go to
// the writer Sink.Channel picks.
func sinkRun(t *testing.T, s *Sink, parallelism int, batches ...[]sql.Row) {
	t.Helper()
	ctx := context.Background()
	var ws []connectors.SinkWriter
	for i := 0; i < parallelism; i++ {
		w, err := s.NewWriter(i, parallelism)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Open(ctx, nil); err != nil {
			t.Fatal(err)
		}
		defer w.Close(ctx)
		ws = append(ws, w)
	}
	for cp, rows := range batches {
		for _, r := range rows {
			c, err := s.Channel(r, parallelism)
			if err != nil {
				t.Fatal(err)
			}
			if err := ws[c].Write(ctx, []sql.Row{r}); err != nil {
				t.Fatal(err)
			}
		}
		var comms [][]byte
		for _, w := range ws {
			_, comm, err := w.Snapshot(ctx, int64(cp+1))
			if err != nil {
				t.Fatal(err)
			}
			comms = append(comms, comm)
		}
		if err := s.Commit(ctx, int64(cp+1), comms); err != nil {
			t.Fatal(err)
		}
	}
}

// A streaming write of a postpone bucket table goes into each partition's
// bucket-postpone directory as Paimon 1.4's PostponeBucketSink writes it
// (FlinkSinkBuilder.buildPostponeBucketSink, PostponeBucketFileStoreWrite,
// PostponeBucketWriter): Avro files (the table's 'file.format' is
// parquet) named data--u-<commit user>-s-<writer subtask>-w-<uuid>-<n>.avro,
// records in arrival order with sequence number -1, level 0, APPEND,
// bucket and _TOTAL_BUCKETS -2, 'metadata.stats-mode' = 'none' statistics
// (key stats all null, no value stats), min/max key the first/last key
// written; one file per writer, partition and checkpoint. Batch reads do
// not see them (DataTableBatchScan.onlyReadRealBuckets) until CALL
// sys.compact replays them into real buckets, after which the table holds
// what a fixed-bucket table given the same rows holds.
func TestPostponeStreamingWrite(t *testing.T) {
	tbl := postponeTable(t, map[string]string{"postpone.default-bucket-num": "2"})
	fixed, err := Create(nil, t.TempDir(), pkSchema(), []string{"dt"}, map[string]string{"bucket": "2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	first := []sql.Row{row(sql.Insert, int64(5), "a", int32(1), "x"), row(sql.Insert, int64(1), "a", int32(2), "x"),
		row(sql.Insert, int64(3), "b", int32(3), "x"), row(sql.Insert, int64(5), "a", int32(4), "y")}
	second := []sql.Row{row(sql.UpdateBefore, int64(1), "a", int32(2), "x"), row(sql.UpdateAfter, int64(1), "a", int32(20), "z"),
		row(sql.Delete, int64(3), "b", int32(3), "x"), row(sql.Insert, int64(7), "b", int32(7), "w")}
	s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sinkRun(t, s, 2, first, second)
	writeCommit(t, fixed, "u", 1, append(append([]sql.Row{}, first...), second...)...)

	es := liveEntries(t, tbl)
	if len(es) == 0 {
		t.Fatal("no files")
	}
	var rows int64
	for _, e := range es {
		f := e.File
		pp, _ := tbl.PartitionPath(e.Partition)
		if e.Bucket != -2 || e.TotalBuckets != -2 || f.Level != 0 || f.MinSequenceNumber != -1 || f.MaxSequenceNumber != -1 ||
			f.FileSource == nil || *f.FileSource != manifest.SourceAppend {
			t.Errorf("%s%s: bucket %d/%d level %d seq %d..%d", pp, f.FileName, e.Bucket, e.TotalBuckets, f.Level, f.MinSequenceNumber, f.MaxSequenceNumber)
		}
		if !strings.HasPrefix(f.FileName, "data--u-"+s.user+"-s-") || !strings.HasSuffix(f.FileName, ".avro") {
			t.Errorf("file name %s", f.FileName)
		}
		if f.ValueStatsCols == nil || len(f.ValueStatsCols) != 0 || len(f.KeyStats.NullCounts) != 1 || f.KeyStats.NullCounts[0] != nil {
			t.Errorf("%s: stats %+v %v, want stats-mode none", f.FileName, f.KeyStats, f.ValueStatsCols)
		}
		data, err := os.ReadFile(fs.Join(tbl.Root, pp+"bucket-postpone", f.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "zstandard") || !strings.Contains(string(data), `"name":"_SEQUENCE_NUMBER","type":"long"`) {
			t.Errorf("%s is not a zstandard Avro KeyValue file", f.FileName)
		}
		rows += f.RowCount
	}
	if rows != 8 {
		t.Errorf("%d rows in bucket-postpone files, want all 8 unmerged", rows)
	}
	if got := mustRead(t, tbl); got != "" {
		t.Fatalf("batch read before compaction:\n%s", got)
	}
	// A streaming reader of a table without changelog producer reads the
	// bucket-postpone files of each snapshot's delta, unmerged
	// (DataTableStreamScan keeps bucket -2 then; MergeFileSplitRead's
	// no-merge reader for streaming splits): every record, retractions
	// included.
	var streamed []string
	for id := int64(1); id <= 2; id++ {
		sn, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		splits, err := tbl.PlanDelta(sn, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range splits {
			if sp.Bucket != -2 {
				t.Errorf("snapshot %d: split of bucket %d", id, sp.Bucket)
			}
			it, err := tbl.ReadKV(sp)
			if err != nil {
				t.Fatal(err)
			}
			for r := it.Next(); r != nil; r = it.Next() {
				streamed = append(streamed, sql.FormatRow(sql.Row{Kind: r.Kind, Values: r.Value}, nil))
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	sort.Strings(streamed)
	if got := strings.Join(streamed, " "); got != "+I[1, a, 2, x] +I[3, b, 3, x] +I[5, a, 1, x] +I[5, a, 4, y] +I[7, b, 7, w] +U[1, a, 20, z] -D[3, b, 3, x] -U[1, a, 2, x]" {
		t.Errorf("streaming read before compaction: %s", got)
	}
	if _, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got, want := mustRead(t, tbl), mustRead(t, fixed); got != want {
		t.Fatalf("after compaction:\n%s\nwant (fixed buckets):\n%s", got, want)
	}
	if got, want := layout(t, tbl), layout(t, fixed); got != want {
		t.Errorf("layout after compaction:\n%s\nwant:\n%s", got, want)
	}
}

// A batch write with 'postpone.batch-write-fixed-bucket' = false goes to
// bucket-postpone too (PostponeBucketSink), committed once; rows of a
// table whose row type Paimon would write in its own 'file.format'
// (AvroSchemaConverter rejects TIMESTAMP(9)) are refused by name, as are
// options that change the files.
func TestPostponeFilesBatchAndRefusals(t *testing.T) {
	off := postponeTable(t, map[string]string{"postpone.batch-write-fixed-bucket": "false"})
	s, err := NewSink(off, SinkOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sinkRun(t, s, 1, []sql.Row{row(sql.Insert, int64(1), "a", int32(1), "x"), row(sql.Insert, int64(1), "a", int32(2), "y")})
	if got := layout(t, off); got != "dt=a -2/-2 2" {
		t.Fatalf("layout:\n%s", got)
	}
	if ids, _ := off.Snapshots.ListIDs(); len(ids) != 1 {
		t.Fatalf("snapshots %v", ids)
	}
	if _, err := Compact(off, CompactOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, off); got != "+I[1, a, 2, y]" {
		t.Fatalf("after compaction: %s", got)
	}
	// INSERT OVERWRITE through PostponeBucketSink: the new rows in
	// bucket-postpone, the partition's bucket and bucket-postpone files
	// gone (CommitScanner.readOverwriteChanges).
	commitPostponed(t, off, 7, "a", postponeFile(t, off, "a", 1, row(sql.Insert, int64(9), "a", int32(9), "old")))
	ow, err := NewSink(off, SinkOptions{TempDir: t.TempDir(), Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	sinkRun(t, ow, 1, []sql.Row{row(sql.Insert, int64(2), "a", int32(3), "new")})
	if got := layout(t, off); got != "dt=a -2/-2 1" {
		t.Fatalf("layout after INSERT OVERWRITE:\n%s", got)
	}
	if _, err := Compact(off, CompactOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, off); got != "+I[2, a, 3, new]" {
		t.Fatalf("after INSERT OVERWRITE and compaction: %s", got)
	}

	ts := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "t", Type: sql.Timestamp(9)}}, PrimaryKey: []string{"id"}}
	nano, err := Create(nil, t.TempDir(), ts, nil, map[string]string{"bucket": "-2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSink(nano, SinkOptions{Streaming: true}); !errors.Is(err, ErrPostponeBucket) || !strings.Contains(err.Error(), "TIMESTAMP type with precision: 9") {
		t.Fatalf("TIMESTAMP(9): %v", err)
	}
	if _, err := NewSink(nano, SinkOptions{}); err != nil {
		t.Fatalf("batch into fixed buckets: %v", err)
	}
	// data-file.prefix is honoured: PostponeBucketFileStoreWrite names the
	// files <data-file.prefix>-u-<commit user>-s-<write id>-w-.
	pre := postponeTable(t, map[string]string{"data-file.prefix": "d-"})
	ps, err := NewSink(pre, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sinkRun(t, ps, 1, []sql.Row{row(sql.Insert, int64(1), "a", int32(1), "x")})
	for _, e := range liveEntries(t, pre) {
		if !strings.HasPrefix(e.File.FileName, "d--u-"+ps.user+"-s-0-w-") {
			t.Errorf("postpone file %s: want prefix d--u-%s-s-0-w-", e.File.FileName, ps.user)
		}
	}
	for k, v := range map[string]string{"fields.v.stats-mode": "full", "file.compression": "lz4"} {
		tbl := postponeTable(t, map[string]string{k: v})
		if _, err := NewSink(tbl, SinkOptions{Streaming: true}); !errors.Is(err, ErrPostponeBucket) {
			t.Errorf("%s: %v", k, err)
		}
	}
	// Nothing in bucket-postpone: the compaction has nothing to do
	// (CompactAction.buildForPostponeBucketCompaction).
	tbl := postponeTable(t, nil)
	postponeWrite(t, tbl, 1, row(sql.Insert, int64(1), "a", int32(1), "x"))
	if ids, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()}); err != nil || len(ids) != 0 {
		t.Fatalf("compact: %v %v", ids, err)
	}
	for o, msg := range map[*CompactOptions]string{
		{Partition: func([]any) bool { return true }}: "Postpone bucket compaction currently does not support specifying partitions",
		{Streaming: true}: "Postpone bucket compaction currently only supports batch mode",
	} {
		_, err := Compact(tbl, *o)
		var se *sql.Error
		if !errors.As(err, &se) || se.Msg != msg {
			t.Errorf("compact: %v, want %q", err, msg)
		}
	}
}

// postponeFile writes a file into the partition's bucket-postpone
// directory as PostponeBucketWriter leaves one: records in arrival order
// (here ascending keys, a key may repeat), sequence number -1
// (KeyValue.UNKNOWN_SEQUENCE), level 0. Paimon writes them in Avro; the
// compaction reads any format by the file's extension, so Parquet does.
func postponeFile(t *testing.T, tbl *Table, dt string, created int64, recs ...sql.Row) manifest.DataFileMeta {
	t.Helper()
	dir := fs.Join(tbl.Root, "dt="+dt, "bucket-postpone")
	if err := tbl.FIO.MkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	name := format.NewFileNames("parquet").Data()
	out, err := tbl.FIO.Create(fs.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	wopts, err := tbl.writerOptions()
	if err != nil {
		t.Fatal(err)
	}
	w, err := format.NewKVWriter(out, tbl.KeyFields, tbl.Schema.Fields, wopts)
	if err != nil {
		t.Fatal(err)
	}
	w.AllowDuplicateKeys = true
	for _, r := range recs {
		if err := w.Write(&kv.KeyValue{Key: []any{r.Values[0]}, Seq: -1, Kind: r.Kind, Value: r.Values}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return res.DataFileMeta(name, tbl.Schema.ID, 0, manifest.SourceAppend, created)
}

// commitPostponed commits files of bucket -2 as a streaming
// PostponeBucketSink does (_TOTAL_BUCKETS -2).
func commitPostponed(t *testing.T, tbl *Table, id int64, dt string, files ...manifest.DataFileMeta) {
	t.Helper()
	_, part, err := tbl.Partition([]any{int64(0), dt, int32(0), ""})
	if err != nil {
		t.Fatal(err)
	}
	c := tbl.NewCommit("streaming")
	c.NoExpire = true
	if err := c.Commit(id, []CommitMessage{{Partition: part, Bucket: -2, TotalBuckets: -2, NewFiles: files}}, nil); err != nil {
		t.Fatal(err)
	}
}

// The compaction of a postpone bucket table (CALL sys.compact) replays
// each partition's bucket-postpone files in creation order, unmerged,
// into its real buckets (as many as the partition has, else
// 'postpone.default-bucket-num') and commits one COMPACT snapshot that
// deletes the postpone files and adds the written ones
// (CompactAction.buildForPostponeBucketCompaction,
// PostponeBucketCompactSplitSource, PostponeBucketCommittableRewriter).
// Until then batch reads do not see the postponed rows
// (DataTableBatchScan.onlyReadRealBuckets).
func TestPostponeCompactAssignsBuckets(t *testing.T) {
	tbl := postponeTable(t, map[string]string{"postpone.default-bucket-num": "3"})
	var rows []sql.Row
	for i := int64(1); i <= 8; i++ {
		rows = append(rows, row(sql.Insert, i, "a", int32(i), "batch"))
	}
	postponeWrite(t, tbl, 2, rows...)
	// Two streaming commits; the second's file was created first, so it
	// is replayed first whatever the manifests' order.
	late := postponeFile(t, tbl, "a", 2000, row(sql.UpdateAfter, int64(1), "a", int32(10), "late"), row(sql.Delete, int64(2), "a", int32(2), "batch"),
		row(sql.Insert, int64(9), "a", int32(9), "new"))
	commitPostponed(t, tbl, 1, "a", late)
	early := postponeFile(t, tbl, "a", 1000, row(sql.Insert, int64(1), "a", int32(5), "early"), row(sql.Insert, int64(9), "a", int32(90), "early"))
	b := postponeFile(t, tbl, "b", 1500, row(sql.Insert, int64(1), "b", int32(1), "x"), row(sql.Insert, int64(1), "b", int32(2), "y"),
		row(sql.Insert, int64(2), "b", int32(3), "z"), row(sql.Insert, int64(3), "b", int32(4), "w"), row(sql.Insert, int64(4), "b", int32(5), "v"))
	commitPostponed(t, tbl, 2, "a", early)
	commitPostponed(t, tbl, 3, "b", b)

	before := mustRead(t, tbl)
	if strings.Contains(before, "late") || strings.Contains(before, "early") || strings.Contains(before, ", b, ") || !strings.Contains(before, "+I[2, a, 2, batch]") {
		t.Fatalf("batch read before the compaction shows postponed rows:\n%s", before)
	}
	ids, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("compaction snapshots %v", ids)
	}
	s, _ := tbl.Snapshots.Read(ids[0])
	if s.CommitKind != snapshot.Compact {
		t.Errorf("compaction snapshot kind %s", s.CommitKind)
	}
	after := mustRead(t, tbl)
	want := []string{"+I[1, a, 10, late]", "+I[9, a, 9, new]", "+I[1, b, 2, y]", "+I[4, b, 5, v]", "+I[8, a, 8, batch]"}
	for _, w := range want {
		if !strings.Contains(after, w) {
			t.Errorf("after compaction: no %s in\n%s", w, after)
		}
	}
	if strings.Contains(after, "+I[2, a,") || strings.Count(after, "\n")+1 != 8+4 {
		t.Errorf("after compaction:\n%s", after)
	}
	for _, e := range liveEntries(t, tbl) {
		pp, _ := tbl.PartitionPath(e.Partition)
		want := map[string]int32{"dt=a/": 2, "dt=b/": 3}[pp]
		if e.Bucket < 0 || e.TotalBuckets != want || e.Bucket >= want {
			t.Errorf("%s%s: bucket %d of %d after compaction, want one of %d", pp, e.File.FileName, e.Bucket, e.TotalBuckets, want)
		}
	}
	// Nothing postponed any more.
	if ids, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()}); err != nil || len(ids) != 0 {
		t.Fatalf("second compaction: %v %v", ids, err)
	}
}

// INSERT OVERWRITE of a postpone bucket table replaces the bucket-postpone
// files too (PostponeFixedBucketSink commits through
// PostponeUtils.tableForCommit; CommitScanner.readOverwriteChanges keeps
// bucket -2 files only in tables of other bucket modes).
func TestPostponeOverwriteDropsPostponedFiles(t *testing.T) {
	tbl := postponeTable(t, nil)
	postponeWrite(t, tbl, 1, row(sql.Insert, int64(1), "a", int32(1), "old"))
	commitPostponed(t, tbl, 1, "a", postponeFile(t, tbl, "a", 1, row(sql.Insert, int64(2), "a", int32(2), "postponed")))
	s, err := NewSink(tbl, SinkOptions{Overwrite: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sw, err := s.NewWriter(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	defer sw.Close(ctx)
	if err := sw.Write(ctx, []sql.Row{row(sql.Insert, int64(3), "a", int32(3), "new")}); err != nil {
		t.Fatal(err)
	}
	_, comm, err := sw.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, 1, [][]byte{comm}); err != nil {
		t.Fatal(err)
	}
	if got := layout(t, tbl); got != "dt=a 0/1 1" {
		t.Fatalf("after INSERT OVERWRITE:\n%s", got)
	}
	if _, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, tbl); got != "+I[3, a, 3, new]" {
		t.Fatalf("read:\n%s", got)
	}
}

// TestPostponeCompactCrashEveryStep fails each FileIO operation of a
// postpone bucket compaction (reading the bucket-postpone files, writing
// the buckets, committing) in turn: the table then reads as before (the
// postponed rows invisible) or after, every snapshot is intact, and a
// second compaction ends in the after state with no bucket-postpone file
// live and no row twice.
func TestPostponeCompactCrashEveryStep(t *testing.T) {
	base := postponeTable(t, map[string]string{"postpone.default-bucket-num": "2"})
	postponeWrite(t, base, 1, row(sql.Insert, int64(1), "a", int32(1), "batch"), row(sql.Insert, int64(2), "a", int32(2), "batch"))
	commitPostponed(t, base, 1, "a", postponeFile(t, base, "a", 10, row(sql.UpdateAfter, int64(1), "a", int32(10), "upd"), row(sql.Insert, int64(3), "a", int32(3), "new")))
	commitPostponed(t, base, 2, "b", postponeFile(t, base, "b", 20, row(sql.Insert, int64(1), "b", int32(1), "b1"), row(sql.Insert, int64(2), "b", int32(2), "b2")))
	before := mustRead(t, base)

	clean := t.TempDir()
	if err := os.CopyFS(clean, os.DirFS(base.Root)); err != nil {
		t.Fatal(err)
	}
	counting := fs.NewInjecting(fs.NewLocal(), nil)
	ct, err := Open(counting, clean, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := Compact(ct, CompactOptions{TempDir: t.TempDir()}); err != nil || len(ids) != 1 {
		t.Fatalf("clean compaction: %v %v", ids, err)
	}
	after := mustRead(t, ct)
	if after == before || !strings.Contains(after, "+I[1, a, 10, upd]") || !strings.Contains(after, "+I[2, b, 2, b2]") {
		t.Fatalf("clean compaction:\n%s\nbefore:\n%s", after, before)
	}
	steps := 0
	for op := fs.OpOpen; op < fs.AnyOp; op++ {
		steps += counting.Count(op)
	}
	outcomes := map[string]int{}
	for n := 1; n <= steps; n++ {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(base.Root)); err != nil {
			t.Fatal(err)
		}
		inj := fs.NewInjecting(fs.NewLocal(), nil)
		ft, err := Open(inj, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		inj.SetInjector(failNthAny(n))
		_, cerr := Compact(ft, CompactOptions{TempDir: t.TempDir()})
		if cerr != nil && !errors.Is(cerr, fs.ErrInjected) {
			t.Fatalf("step %d: unexpected error %v", n, cerr)
		}
		lt, err := Open(fs.NewLocal(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkIntegrity(t, lt)
		switch got := mustRead(t, lt); got {
		case before:
			outcomes["before"]++
		case after:
			outcomes["after"]++
		default:
			t.Fatalf("step %d (%v): table reads neither before nor after:\n%s", n, cerr, got)
		}
		if _, err := Compact(lt, CompactOptions{TempDir: t.TempDir()}); err != nil {
			t.Fatalf("step %d: second compaction: %v", n, err)
		}
		if got := mustRead(t, lt); got != after {
			t.Fatalf("step %d: after the second compaction:\n%s\nwant:\n%s", n, got, after)
		}
		for _, e := range liveEntries(t, lt) {
			if e.Bucket < 0 {
				t.Fatalf("step %d: %s still live in bucket-postpone", n, e.File.FileName)
			}
		}
	}
	t.Logf("%d FileIO operations; outcomes %v", steps, outcomes)
	if outcomes["before"] == 0 || outcomes["after"] == 0 {
		t.Errorf("outcomes %v: want both", outcomes)
	}
}

// Two batch jobs that both start before a new partition has files may
// give it different bucket counts; the second commit fails instead of
// leaving a partition whose keys are hashed two ways
// (PostponeFixedBucketSink commits with appendCommitCheckConflict,
// ConflictDetection.checkBucketKeepSame).
func TestPostponeConcurrentBucketCounts(t *testing.T) {
	tbl := postponeTable(t, nil)
	var msgs [2][]CommitMessage
	for i, par := range []int{1, 2} {
		w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir(), Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for k := int64(1); k <= 6; k++ {
			if err := w.Write(row(sql.Insert, k, "new", int32(i), "x")); err != nil {
				t.Fatal(err)
			}
		}
		if msgs[i], err = w.PrepareCommit(true); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.NewCommit("one").Commit(snapshot.BatchCommitIdentifier, msgs[0], nil); err != nil {
		t.Fatal(err)
	}
	err := tbl.NewCommit("two").Commit(snapshot.BatchCommitIdentifier, msgs[1], nil)
	if !errors.Is(err, ErrCommitConflict) || !strings.Contains(err.Error(), "total buckets") {
		t.Fatalf("second job's commit: %v", err)
	}
	if got := layout(t, tbl); got != "dt=new 0/1 6" {
		t.Fatalf("layout:\n%s", got)
	}
}

// TestPostponeStreamingCrashEveryStep fails each FileIO operation of a
// streaming postpone bucket job's second checkpoint (creating and writing
// the bucket-postpone files, committing them) in turn, then recovers as
// Flink does: from the second checkpoint when its committable was taken
// (the committer commits it again, skipped if the commit user already
// committed that identifier), else from the first, the source replaying
// the rows. Every snapshot stays intact, the live bucket-postpone files
// hold each row exactly once, and the compaction gives the table a
// fixed-bucket table holds.
func TestPostponeStreamingCrashEveryStep(t *testing.T) {
	first := []sql.Row{row(sql.Insert, int64(1), "a", int32(1), "x"), row(sql.Insert, int64(2), "b", int32(2), "x")}
	second := []sql.Row{row(sql.UpdateAfter, int64(1), "a", int32(10), "y"), row(sql.Delete, int64(2), "b", int32(2), "x"),
		row(sql.Insert, int64(3), "c", int32(3), "z")}
	// Sink state names its table by its last two path elements: every
	// copy is at <dir>/db/t.
	tableDir := func() string { return fs.Join(t.TempDir(), "db", "t") }
	base, err := Create(nil, tableDir(), pkSchema(), []string{"dt"}, map[string]string{"bucket": "-2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSink(base, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := s.NewWriter(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, first); err != nil {
		t.Fatal(err)
	}
	state, comm, err := w.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, 1, [][]byte{comm}); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	fixed, err := Create(nil, t.TempDir(), pkSchema(), []string{"dt"}, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, fixed, "u", 1, append(append([]sql.Row{}, first...), second...)...)
	want := mustRead(t, fixed)

	// checkpoint 2 of the job restored from state; returns the
	// committable if the checkpoint was taken, and the commit's error.
	checkpoint2 := func(tbl *Table) (comm []byte, err error) {
		s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
		if err != nil {
			return nil, err
		}
		w, err := s.NewWriter(0, 1)
		if err != nil {
			return nil, err
		}
		defer w.Close(ctx)
		if err := w.Open(ctx, state); err != nil {
			return nil, err
		}
		if err := w.Write(ctx, second); err != nil {
			return nil, err
		}
		if _, comm, err = w.Snapshot(ctx, 2); err != nil {
			return nil, err
		}
		return comm, s.Commit(ctx, 2, [][]byte{comm})
	}
	counting := fs.NewInjecting(fs.NewLocal(), nil)
	clean := tableDir()
	if err := os.CopyFS(clean, os.DirFS(base.Root)); err != nil {
		t.Fatal(err)
	}
	ct, err := Open(counting, clean, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint2(ct); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for op := fs.OpOpen; op < fs.AnyOp; op++ {
		steps += counting.Count(op)
	}
	outcomes := map[string]int{}
	for n := 1; n <= steps; n++ {
		dir := tableDir()
		if err := os.CopyFS(dir, os.DirFS(base.Root)); err != nil {
			t.Fatal(err)
		}
		inj := fs.NewInjecting(fs.NewLocal(), nil)
		ft, err := Open(inj, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		inj.SetInjector(failNthAny(n))
		comm, cerr := checkpoint2(ft)
		if cerr != nil && !errors.Is(cerr, fs.ErrInjected) {
			t.Fatalf("step %d: unexpected error %v", n, cerr)
		}
		lt, err := Open(fs.NewLocal(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkIntegrity(t, lt)
		switch {
		case cerr == nil:
			outcomes["clean"]++
		case comm != nil:
			// The checkpoint was taken: the restored committer commits
			// its committable again.
			outcomes["recommit"]++
			s, err := NewSink(lt, SinkOptions{Streaming: true, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, 2, [][]byte{comm}); err != nil {
				t.Fatalf("step %d: recommit: %v", n, err)
			}
		default:
			outcomes["rewrite"]++
			if _, err := checkpoint2(lt); err != nil {
				t.Fatalf("step %d: rerun of checkpoint 2: %v", n, err)
			}
		}
		var rows int64
		for _, e := range liveEntries(t, lt) {
			rows += e.File.RowCount
		}
		if rows != int64(len(first)+len(second)) {
			t.Fatalf("step %d (%v): %d rows in live bucket-postpone files, want %d", n, cerr, rows, len(first)+len(second))
		}
		if _, err := Compact(lt, CompactOptions{TempDir: t.TempDir()}); err != nil {
			t.Fatalf("step %d: compaction: %v", n, err)
		}
		if got := mustRead(t, lt); got != want {
			t.Fatalf("step %d: after compaction:\n%s\nwant:\n%s", n, got, want)
		}
	}
	t.Logf("%d FileIO operations; outcomes %v", steps, outcomes)
	if outcomes["recommit"] == 0 || outcomes["rewrite"] == 0 {
		t.Errorf("outcomes %v: want both recoveries", outcomes)
	}
}

// Nested columns (ARRAY, MAP with string and with other keys, ROW within
// ROW) go into the bucket-postpone Avro files as AvroSchemaConverter and
// FieldWriterFactory write them (the schema checked against Paimon's
// naming here, the bytes by Avro Java in the compat test), and the
// compaction reads them back into the real buckets unchanged.
func TestPostponeNestedAvro(t *testing.T) {
	inner := sql.RowOf(sql.Field{Name: "z", Type: sql.String()})
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "arr", Type: sql.ArrayOf(sql.Int())}, {Name: "m", Type: sql.MapOf(sql.String().NotNull(), sql.BigInt())},
		{Name: "mi", Type: sql.MapOf(sql.Int().NotNull(), sql.String())},
		{Name: "r", Type: sql.RowOf(sql.Field{Name: "x", Type: sql.Int()}, sql.Field{Name: "y", Type: inner})}},
		PrimaryKey: []string{"id"}}
	tbl, err := Create(nil, t.TempDir(), s, nil, map[string]string{"bucket": "-2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := format.AvroSchemaOf(nil, tbl.Schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"name":"arr","type":["null",{"type":"array","items":["null","int"]}],"default":null}`,
		`{"name":"m","type":["null",{"type":"map","values":["null","long"]}],"default":null}`,
		`{"name":"mi","type":["null",{"type":"array","items":{"type":"record","name":"record_mi","fields":[{"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]},"logicalType":"map"}],"default":null}`,
		`{"name":"r","type":["null",{"type":"record","name":"record_r","fields":[{"name":"x","type":["null","int"],"default":null},{"name":"y","type":["null",{"type":"record","name":"record_r_y","fields":[{"name":"z","type":["null","string"],"default":null}]}],"default":null}]}],"default":null}`,
	} {
		if !strings.Contains(sch, want) {
			t.Errorf("Avro schema\n%s\nlacks\n%s", sch, want)
		}
	}
	sink, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rows := []sql.Row{
		row(sql.Insert, int64(1), []any{int32(1), nil, int32(3)}, &sql.Map{Keys: []any{"a", "b"}, Values: []any{int64(5), nil}},
			&sql.Map{Keys: []any{int32(7)}, Values: []any{"seven"}}, []any{int32(9), []any{"z"}}),
		row(sql.Insert, int64(2), []any{}, &sql.Map{}, &sql.Map{}, []any{nil, nil}),
		row(sql.Insert, int64(3), nil, nil, nil, nil),
	}
	sinkRun(t, sink, 1, rows)
	if got := layout(t, tbl); got != " -2/-2 3" {
		t.Fatalf("layout:\n%s", got)
	}
	if _, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	want := "+I[1, [1, null, 3], {a=5, b=null}, {7=seven}, +I[9, +I[z]]]\n+I[2, [], {}, {}, +I[null, null]]\n+I[3, null, null, null, null]"
	if got := mustRead(t, tbl); got != want {
		t.Errorf("after compaction:\n%s\nwant:\n%s", got, want)
	}
}
