package table

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

func TestOverwrite(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), []string{"dt"}, map[string]string{"bucket": "2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "a", int32(1), "x"), row(sql.Insert, int64(2), "b", int32(2), "y"),
		row(sql.Insert, int64(3), "c", int32(3), "z"))
	job := 0
	overwrite := func(static map[string]string, rows ...sql.Row) {
		job++ // every batch job has its own commit user
		msgs := writeMessages(t, tbl, WriteOptions{}, rows...)
		if err := tbl.NewCommit(fmt.Sprint("job-", job)).Overwrite(snapshot.BatchCommitIdentifier, msgs, static); err != nil {
			t.Fatal(err)
		}
	}
	// dynamic partition overwrite: only partition a is replaced
	overwrite(nil, row(sql.Insert, int64(10), "a", int32(10), "new"))
	if got, want := mustRead(t, tbl), "+I[10, a, 10, new]\n+I[2, b, 2, y]\n+I[3, c, 3, z]"; got != want {
		t.Fatalf("got\n%s", got)
	}
	s, _ := tbl.Snapshots.Latest()
	if s.CommitKind != snapshot.Overwrite || *s.DeltaRecordCount != 0 {
		t.Fatalf("snapshot %s delta %d", s.CommitKind, *s.DeltaRecordCount)
	}
	// static partition, no rows: partition b is emptied
	overwrite(map[string]string{"dt": "b"})
	if got, want := mustRead(t, tbl), "+I[10, a, 10, new]\n+I[3, c, 3, z]"; got != want {
		t.Fatalf("got\n%s", got)
	}
	if _, err := NewSink(tbl, SinkOptions{Streaming: true, Overwrite: true}); err == nil ||
		err.Error() != "Paimon doesn't support streaming INSERT OVERWRITE." || !errors.Is(err, ErrStreamingOverwrite) {
		t.Fatalf("got %v", err)
	}
}

func TestExpireKeepsConsumersAndFiles(t *testing.T) {
	dir := t.TempDir()
	now := time.UnixMilli(1_000_000_000)
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1", "snapshot.num-retained.min": "2",
		"snapshot.num-retained.max": "5", "snapshot.time-retained": "10 s", "num-sorted-run.compaction-trigger": "2",
		"changelog-producer": "input"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	commitAt := func(id int64, at time.Time, rows ...sql.Row) {
		w, _ := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		defer w.Close()
		for _, r := range rows {
			w.Write(r)
		}
		msgs, err := w.PrepareCommit(true)
		if err != nil {
			t.Fatal(err)
		}
		c := tbl.NewCommit("u")
		c.Now = func() time.Time { return at }
		if err := c.Commit(id, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(1); i <= 4; i++ {
		commitAt(i, now.Add(time.Duration(i)*time.Second), row(sql.Insert, i%2, "d", int32(i), "v"))
	}
	ids, _ := tbl.Snapshots.ListIDs()
	// all within time-retained: nothing expired although > min
	if len(ids) < 4 {
		t.Fatalf("expired too early: %v", ids)
	}
	if err := tbl.Snapshots.WriteConsumer("c1", snapshot.Consumer{NextSnapshot: 3}); err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Hour)
	for i := int64(5); i <= 9; i++ {
		commitAt(i, later, row(sql.Insert, i%2, "d", int32(i), "v"))
	}
	ids, _ = tbl.Snapshots.ListIDs()
	if ids[0] != 3 {
		t.Fatalf("consumer at 3 must keep snapshot 3: %v", ids)
	}
	if e, _, _ := tbl.Snapshots.EarliestID(); e != 3 {
		t.Fatalf("EARLIEST %d", e)
	}
	checkIntegrity(t, tbl)
	tbl.Snapshots.WriteConsumer("c1", snapshot.Consumer{NextSnapshot: 100})
	n, err := tbl.ExpireSnapshots(later.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ids, _ = tbl.Snapshots.ListIDs()
	if len(ids) != 2 || n == 0 {
		t.Fatalf("after expiring %d: %v", n, ids)
	}
	checkIntegrity(t, tbl)
	if got := mustRead(t, tbl); got != "+I[0, d, 8, v]\n+I[1, d, 9, v]" {
		t.Fatalf("got\n%s", got)
	}
	// No orphan data or changelog files of expired snapshots remain:
	// every file in the bucket is live or a changelog of a retained one.
	s, _ := tbl.Snapshots.Latest()
	live, _ := tbl.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	keep := map[string]bool{}
	for _, e := range live {
		keep[e.File.FileName] = true
	}
	for _, id := range ids {
		s, _ := tbl.Snapshots.Read(id)
		if s.ChangelogManifestList != nil {
			es, _ := tbl.Manifests.ReadEntries(*s.ChangelogManifestList)
			for _, e := range es {
				keep[e.File.FileName] = true
			}
		}
	}
	files, _ := fs.NewLocal().List(dir + "/bucket-0")
	for _, f := range files {
		if !keep[f.Name] {
			t.Errorf("file %s of an expired snapshot was not deleted", f.Name)
		}
	}
}

func TestScanOptions(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		w, _ := tbl.NewWrite(WriteOptions{})
		w.Write(row(sql.Insert, int64(1), "d", int32(i), "v"))
		msgs, _ := w.PrepareCommit(true)
		w.Close()
		c := tbl.NewCommit("u")
		c.Now = func() time.Time { return time.UnixMilli(1000 * i) }
		if err := c.Commit(i, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	s2, _ := tbl.Snapshots.Read(2)
	if err := tbl.Snapshots.CreateTag("t2", &snapshot.Tag{Snapshot: *s2}); err != nil {
		t.Fatal(err)
	}
	for opts, want := range map[string]string{
		"scan.snapshot-id=1":         "+I[1, d, 1, v]",
		"scan.timestamp-millis=2500": "+I[1, d, 2, v]",
		"scan.tag-name=t2":           "+I[1, d, 2, v]",
		"":                           "+I[1, d, 3, v]",
	} {
		dyn := map[string]string{}
		if k, v, ok := strings.Cut(opts, "="); ok {
			dyn[k] = v
		}
		o, err := Open(nil, dir, dyn)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := readAll(o, nil, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rows, "\n"); got != want {
			t.Errorf("%s: got %s want %s", opts, got, want)
		}
	}
	o, _ := Open(nil, dir, map[string]string{"scan.tag-name": "nope"})
	if _, err := readAll(o, nil, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "Tag 'nope' doesn't exist.") {
		t.Fatalf("got %v", err)
	}
}

func TestFilters(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), []string{"dt"}, map[string]string{"bucket": "4"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var rows []sql.Row
	for i := int64(0); i < 40; i++ {
		rows = append(rows, row(sql.Insert, i, []string{"a", "b"}[i%2], int32(i), "v"))
	}
	writeCommit(t, tbl, "u", 1, rows...)
	got, err := readAll(tbl, &Filter{Partition: func(v []any) bool { return v[0] == "a" }}, ReadOptions{Projection: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 {
		t.Fatalf("partition filter kept %d rows", len(got))
	}
	s, _ := tbl.Snapshots.Latest()
	all, _ := tbl.PlanFull(s, nil)
	some, _ := tbl.PlanFull(s, &Filter{KeyRange: func(min, max []any) bool { return min[0].(int64) <= 3 && max[0].(int64) >= 3 }})
	if len(some) == 0 || len(some) >= len(all) {
		t.Fatalf("key filter: %d of %d splits", len(some), len(all))
	}
}

// TestConcurrentCompactionConflict: two jobs compact the same bucket; the
// second commit deletes files that are no longer live and is refused,
// leaving the table as the first commit left it.
func TestConcurrentCompactionConflict(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		writeCommit(t, tbl, "w", i, row(sql.Insert, i, "d", int32(i), "v"))
	}
	compact := func() []CommitMessage {
		w, _ := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		defer w.Close()
		if err := w.Compact(true, nil); err != nil {
			t.Fatal(err)
		}
		msgs, err := w.PrepareCommit(true)
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	a, b := compact(), compact()
	if err := tbl.NewCommit("a").Commit(1, a, nil); err != nil {
		t.Fatal(err)
	}
	want := mustRead(t, tbl)
	err = tbl.NewCommit("b").Commit(1, b, nil)
	if !errors.Is(err, ErrCommitConflict) {
		t.Fatalf("got %v", err)
	}
	if got := mustRead(t, tbl); got != want {
		t.Fatalf("got\n%s", got)
	}
	checkIntegrity(t, tbl)
}

// TestManifestMerge: with manifest.merge-min-count = 3 the base list is
// rewritten into one manifest once it has 3, dropping cancelled ADD/DELETE
// pairs, and reads are unchanged.
func TestManifestMerge(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1", "manifest.merge-min-count": "3",
		"num-sorted-run.compaction-trigger": "2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 12; i++ {
		writeCommit(t, tbl, "u", i, row(sql.Insert, i%4, "d", int32(i), "v"))
	}
	s, _ := tbl.Snapshots.Latest()
	base, err := tbl.Manifests.ReadManifestList(s.BaseManifestList)
	if err != nil {
		t.Fatal(err)
	}
	if len(base) >= 3 {
		t.Fatalf("base list has %d manifests", len(base))
	}
	var deletes int64
	for _, m := range base {
		deletes += m.NumDeletedFiles
	}
	if deletes != 0 {
		t.Fatalf("merged base keeps %d DELETE entries", deletes)
	}
	if got := mustRead(t, tbl); got != "+I[0, d, 12, v]\n+I[1, d, 9, v]\n+I[2, d, 10, v]\n+I[3, d, 11, v]" {
		t.Fatalf("got\n%s", got)
	}
	checkIntegrity(t, tbl)
}

// TestSpillAndLayout writes with a tiny spillable write buffer (sorted runs
// spilled to local Parquet files) and checks the written layout as Java
// would: each row sits in the bucket Murmur3 of its bucket key gives, in
// the directory of its partition, with _TOTAL_BUCKETS = bucket.
func TestSpillAndLayout(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), []string{"dt"}, map[string]string{"bucket": "3", "write-buffer-size": "2 kb",
		"write-buffer-spillable": "true"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var rows []sql.Row
	want := map[string]string{}
	for i := int64(0); i < 300; i++ {
		r := row(sql.Insert, i%97, []string{"a", "b/c"}[i%2], int32(i), fmt.Sprint("v", i))
		rows = append(rows, r)
		want[fmt.Sprint(r.Values[0], r.Values[1])] = sql.FormatRow(r, tmTypes[:0])
	}
	writeCommit(t, tbl, "u", 1, rows...)
	checkIntegrity(t, tbl)
	s, _ := tbl.Snapshots.Latest()
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sp := range splits {
		if sp.TotalBuckets != 3 {
			t.Fatalf("total buckets %d", sp.TotalBuckets)
		}
		r, err := tbl.NewSplitReader(sp, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			n++
			b, _, _ := tbl.Bucket(row.Values, nil)
			_, part, _ := tbl.Partition(row.Values)
			if b != sp.Bucket || string(part) != string(sp.Partition) {
				t.Fatalf("row %v in bucket %d, computed %d", row.Values, sp.Bucket, b)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n != len(want) {
		t.Fatalf("read %d rows, want %d", n, len(want))
	}
	ents, _ := fs.NewLocal().List(dir)
	var dirs []string
	for _, e := range ents {
		dirs = append(dirs, e.Name)
	}
	if got := strings.Join(dirs, " "); got != "dt=a dt=b%2Fc manifest schema snapshot" {
		t.Fatalf("table dir: %s", got)
	}
}

func TestConsumerExpiration(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1", "consumer.expiration-time": "1 h"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	tbl.Snapshots.WriteConsumer("old", snapshot.Consumer{NextSnapshot: 1})
	if err := tbl.expireConsumers(time.Now()); err != nil {
		t.Fatal(err)
	}
	if c, _ := tbl.Snapshots.Consumers(); len(c) != 1 {
		t.Fatalf("fresh consumer expired: %v", c)
	}
	if err := tbl.expireConsumers(time.Now().Add(2 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if c, _ := tbl.Snapshots.Consumers(); len(c) != 0 {
		t.Fatalf("stale consumer kept: %v", c)
	}
}

func TestIgnoreDeleteAndUpdateBefore(t *testing.T) {
	pk, err := Create(nil, t.TempDir(), pkSchema(), nil, map[string]string{"bucket": "1", "ignore-delete": "true"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, pk, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"), row(sql.Delete, int64(1), "d", int32(1), "a"),
		row(sql.UpdateBefore, int64(1), "d", int32(1), "a"))
	if got := mustRead(t, pk); got != "+I[1, d, 1, a]" {
		t.Fatalf("ignore-delete: %s", got)
	}
	sch := sql.Schema{Columns: []sql.Column{{Name: "a", Type: sql.Int()}}}
	app, err := Create(nil, t.TempDir(), sch, nil, map[string]string{"ignore-delete": "true"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, app, "u", 1, row(sql.Insert, int32(1)), row(sql.Delete, int32(1)), row(sql.UpdateBefore, int32(1)))
	if got := mustRead(t, app); got != "+I[1]" {
		t.Fatalf("append ignore-delete: %s", got)
	}
	app2, err := Create(nil, t.TempDir(), sch, nil, map[string]string{"ignore-update-before": "true"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, app2, "u", 1, row(sql.Insert, int32(1)), row(sql.UpdateBefore, int32(1)), row(sql.UpdateAfter, int32(2)))
	if got := mustRead(t, app2); got != "+I[1]\n+I[2]" {
		t.Fatalf("append ignore-update-before: %s", got)
	}
}
