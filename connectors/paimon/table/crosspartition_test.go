package table

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/sql"
)

// Cross-partition upserts as Paimon 1.4.2 does them (KEY_DYNAMIC bucket
// mode): TableSchema.crossPartitionUpdate (a primary key without every
// partition field) with bucket = -1 makes KeyValueFileStore.bucketMode
// KEY_DYNAMIC; FlinkSinkBuilder builds GlobalDynamicBucketSink, whose
// IndexBootstrap reads every key of the latest snapshot and whose
// GlobalIndexAssigner routes each row: a key living in another partition
// goes through ExistingProcessor.create's processor for the merge engine
// (DeleteExistingProcessor, UseOldExistingProcessor,
// SkipNewExistingProcessor); new keys get a bucket from
// crosspartition.BucketAssigner. No HASH index files (KeyValueFileStore
// keeps DynamicBucketIndexMaintainer for HASH_DYNAMIC).

func crossSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "dt", Type: sql.String()},
		{Name: "v", Type: sql.Int()}, {Name: "s", Type: sql.String()}}, PrimaryKey: []string{"id"}}
}

var crossTypes = []sql.DataType{sql.BigInt().NotNull(), sql.String(), sql.Int(), sql.String()}

func crossTable(t *testing.T, opts map[string]string) *Table {
	t.Helper()
	tbl, err := Create(nil, t.TempDir(), crossSchema(), []string{"dt"}, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !tbl.KeyDynamic() {
		t.Fatalf("not KEY_DYNAMIC: %v", tbl.Schema.Options)
	}
	return tbl
}

// crossChangelog prints the changelog files of snapshot id, row kinds kept.
func crossChangelog(t *testing.T, tbl *Table, id int64) string {
	t.Helper()
	s, err := tbl.Snapshots.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	splits, err := tbl.PlanChangelog(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range splits {
		r, err := tbl.NewSplitReader(sp, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			out = append(out, sql.FormatRow(row, crossTypes))
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(out, "\n")
}

// TestCrossPartitionUpsert: key 1001 moves from dt='a' to dt='b' in a
// later job (the index bootstrapped from the table), as each merge engine's
// ExistingProcessor handles it.
func TestCrossPartitionUpsert(t *testing.T) {
	for _, tc := range []struct {
		opts       map[string]string
		rows, logs string
	}{
		// DeleteExistingProcessor: a DELETE with the new row's values and
		// the old partition goes to the old bucket, then the row to its new
		// partition.
		{map[string]string{"changelog-producer": "input"},
			"+I[1001, b, 3, z]\n+I[1002, a, 2, y]",
			"-D[1001, a, 3, z]\n+I[1001, b, 3, z]"},
		{map[string]string{"changelog-producer": "lookup"},
			"+I[1001, b, 3, z]\n+I[1002, a, 2, y]",
			"-D[1001, a, 1, x]\n+I[1001, b, 3, z]"},
		{map[string]string{"deletion-vectors.enabled": "true", "changelog-producer": "input"},
			"+I[1001, b, 3, z]\n+I[1002, a, 2, y]",
			"-D[1001, a, 3, z]\n+I[1001, b, 3, z]"},
		// UseOldExistingProcessor: the row is written into the old
		// partition and merges there.
		{map[string]string{"merge-engine": "partial-update", "changelog-producer": "input"},
			"+I[1001, a, 3, x]\n+I[1002, a, 2, y]",
			"+I[1001, a, 3, null]"},
		{map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum", "changelog-producer": "lookup"},
			"+I[1001, a, 4, x]\n+I[1002, a, 2, y]",
			"-U[1001, a, 1, x]\n+U[1001, a, 4, x]"},
		// SkipNewExistingProcessor: the first row stays.
		{map[string]string{"merge-engine": "first-row", "changelog-producer": "lookup"},
			"+I[1001, a, 1, x]\n+I[1002, a, 2, y]",
			""},
	} {
		t.Run(fmt.Sprint(tc.opts), func(t *testing.T) {
			tbl := crossTable(t, tc.opts)
			writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1001), "a", int32(1), "x"), row(sql.Insert, int64(1002), "a", int32(2), "y"))
			first, _, _ := tbl.Snapshots.LatestID()
			second := row(sql.Insert, int64(1001), "b", int32(3), "z")
			if tc.opts["merge-engine"] != "" && tc.opts["merge-engine"] != "first-row" {
				second.Values[3] = nil
			}
			writeCommit(t, tbl, "u", 2, second)
			if got := mustRead(t, tbl); got != tc.rows {
				t.Errorf("rows:\n%s\nwant\n%s", got, tc.rows)
			}
			latest, _, _ := tbl.Snapshots.LatestID()
			var logs []string
			for id := first + 1; id <= latest; id++ {
				if l := crossChangelog(t, tbl, id); l != "" {
					logs = append(logs, l)
				}
			}
			if got := strings.Join(logs, "\n"); got != tc.logs {
				t.Errorf("changelog:\n%s\nwant\n%s", got, tc.logs)
			}
			noHashIndex(t, tbl)
		})
	}
}

// noHashIndex: KEY_DYNAMIC writes no HASH index files.
func noHashIndex(t *testing.T, tbl *Table) {
	t.Helper()
	s, _ := tbl.Snapshots.Latest()
	es, err := tbl.indexEntries(s, index.TypeHash)
	if err != nil || len(es) != 0 {
		t.Fatalf("hash index entries %v (%v)", es, err)
	}
}

// TestCrossPartitionMovesInOneWrite: a key moving several times between
// checkpoints of one writer ends up once, in its last partition; a delete
// for a key in another partition deletes it there and, as in Paimon,
// indexes the key in the delete's partition.
func TestCrossPartitionMovesInOneWrite(t *testing.T) {
	tbl := crossTable(t, map[string]string{"changelog-producer": "input"})
	writeCommit(t, tbl, "u", 1,
		row(sql.Insert, int64(1), "a", int32(1), "x"),
		row(sql.UpdateAfter, int64(1), "b", int32(2), "x"),
		row(sql.UpdateAfter, int64(1), "c", int32(3), "x"),
		row(sql.Insert, int64(2), "a", int32(1), "y"),
		row(sql.Delete, int64(2), "b", int32(1), "y"),
	)
	if got, want := mustRead(t, tbl), "+I[1, c, 3, x]"; got != want {
		t.Fatalf("rows:\n%s\nwant\n%s", got, want)
	}
	if got, want := crossChangelog(t, tbl, 1), "+I[1, a, 1, x]\n-D[1, a, 2, x]\n+I[2, a, 1, y]\n-D[2, a, 1, y]\n+U[1, b, 2, x]\n-D[1, b, 3, x]\n-D[2, b, 1, y]\n+U[1, c, 3, x]"; got != want {
		t.Fatalf("changelog:\n%s\nwant\n%s", got, want)
	}
	// The next job's bootstrap finds no row of key 2: it is new.
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int64(2), "c", int32(5), "y"))
	if got, want := crossChangelog(t, tbl, 2), "+I[2, c, 5, y]"; got != want {
		t.Fatalf("changelog:\n%s\nwant\n%s", got, want)
	}
}

// TestCrossPartitionBuckets: crosspartition.BucketAssigner fills the
// lowest bucket below dynamic-bucket.target-row-num, else opens the lowest
// unused one; a key moving out frees its place (decrement).
func TestCrossPartitionBuckets(t *testing.T) {
	tbl := crossTable(t, map[string]string{"dynamic-bucket.target-row-num": "2"})
	var rows []sql.Row
	for id := int64(1); id <= 5; id++ {
		rows = append(rows, row(sql.Insert, id, "a", int32(0), ""))
	}
	writeCommit(t, tbl, "u", 1, rows...)
	// Key 1 moves to b (bucket 0 of a has room again): key 6 joins
	// bucket 0, key 7 the first bucket below the target, 2.
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int64(1), "b", int32(0), ""), row(sql.Insert, int64(6), "a", int32(0), ""),
		row(sql.Insert, int64(7), "a", int32(0), ""))
	got := bucketsOf(t, tbl)
	_, pa, _ := tbl.Partition([]any{nil, "a", nil, nil})
	_, pb, _ := tbl.Partition([]any{nil, "b", nil, nil})
	if s := fmt.Sprint(got[string(pa)], got[string(pb)]); s != "map[2:0 3:1 4:1 5:2 6:0 7:2] map[1:0]" {
		t.Fatalf("buckets %s", s)
	}
	noHashIndex(t, tbl)
}

// TestCrossPartitionIndexTTL: cross-partition-upsert.index-ttl drops what
// the bootstrap reads from buckets without a file created within the TTL
// (IndexBootstrap.filterSplit) and index entries older than it: the key is
// new again and lands in two partitions, the duplication Paimon's option
// description warns of.
func TestCrossPartitionIndexTTL(t *testing.T) {
	tbl := crossTable(t, map[string]string{"cross-partition-upsert.index-ttl": "1 h"})
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "a", int32(1), "x"))
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if err := w.Write(row(sql.Insert, int64(1), "b", int32(2), "x")); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.NewCommit("u").Commit(2, msgs, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := mustRead(t, tbl), "+I[1, a, 1, x]\n+I[1, b, 2, x]"; got != want {
		t.Fatalf("rows:\n%s\nwant\n%s", got, want)
	}
	// A bootstrap within the TTL now reads key 1 twice: it fails as
	// Paimon's bulk load does.
	if w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	} else if err := w.Write(row(sql.Insert, int64(9), "a", int32(1), "x")); !errors.Is(err, index.ErrDuplicateKey) {
		t.Fatalf("got %v", err)
	}
	// Within the TTL a key moves.
	tbl = crossTable(t, map[string]string{"cross-partition-upsert.index-ttl": "1 h"})
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(9), "a", int32(1), "x"))
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int64(9), "b", int32(1), "x"))
	if got, want := mustRead(t, tbl), "+I[9, b, 1, x]"; got != want {
		t.Fatalf("rows:\n%s\nwant\n%s", got, want)
	}
}

// TestCrossPartitionTwoWriters: two writers that bootstrapped before
// either committed both place key 1; the next bootstrap finds it twice
// and fails with Paimon's bulk-load message.
func TestCrossPartitionTwoWriters(t *testing.T) {
	tbl := crossTable(t, nil)
	var ws []*TableWrite
	for _, dt := range []string{"a", "b"} {
		w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Write(row(sql.Insert, int64(1), dt, int32(1), "x")); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	for i, w := range ws {
		msgs, err := w.PrepareCommit(true)
		if err != nil {
			t.Fatal(err)
		}
		if err := tbl.NewCommit(fmt.Sprint("u", i)).Commit(1, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Write(row(sql.Insert, int64(2), "a", int32(1), "x"))
	if !errors.Is(err, index.ErrDuplicateKey) || !strings.Contains(err.Error(), "it only supports single write") {
		t.Fatalf("got %v", err)
	}
}

// TestCrossPartitionKeyFixedBucket: with a fixed bucket count the same
// primary key is HASH_FIXED: no global index, a key is unique per
// partition only (Paimon 1.4 creates and writes such tables).
func TestCrossPartitionKeyFixedBucket(t *testing.T) {
	tbl, err := Create(nil, t.TempDir(), crossSchema(), []string{"dt"}, map[string]string{"bucket": "2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.KeyDynamic() {
		t.Fatal("fixed bucket table is KEY_DYNAMIC")
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "a", int32(1), "x"))
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int64(1), "b", int32(2), "x"))
	if got, want := mustRead(t, tbl), "+I[1, a, 1, x]\n+I[1, b, 2, x]"; got != want {
		t.Fatalf("rows:\n%s\nwant\n%s", got, want)
	}
}

// TestCrossPartitionRefusals: INSERT OVERWRITE and more than one writer.
func TestCrossPartitionRefusals(t *testing.T) {
	tbl := crossTable(t, nil)
	if _, err := tbl.NewWrite(WriteOptions{IgnorePrevious: true}); !errors.Is(err, ErrCrossPartitionOverwrite) {
		t.Fatalf("got %v", err)
	}
	if _, err := NewSink(tbl, SinkOptions{Overwrite: true}); !errors.Is(err, ErrCrossPartitionOverwrite) {
		t.Fatalf("got %v", err)
	}
	s, err := NewSink(tbl, SinkOptions{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewWriter(0, 2); err == nil || !strings.Contains(err.Error(), "one writer") {
		t.Fatalf("got %v", err)
	}
	if _, err := s.Channel(row(sql.Insert, int64(1), "a", int32(1), "x"), 2); err == nil {
		t.Fatal("channel of 2 writers")
	}
}
