package table

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

var partExpireSchema = sql.Schema{Columns: []sql.Column{{Name: "dt", Type: sql.String()}, {Name: "v", Type: sql.Int()}}}

// local is a wall-clock time of the local zone (Java's LocalDateTime).
func local(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.Local)
}

// sinkCommit writes rows (dt values, v = index) through the sink's
// writer and commits them as checkpoint cp at now.
func sinkCommit(t *testing.T, s *Sink, cp int64, now time.Time, dts ...string) {
	t.Helper()
	ctx := context.Background()
	sw, err := s.NewWriter(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := sw.(*SinkWriter)
	if err := w.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var rows []sql.Row
	for i, dt := range dts {
		rows = append(rows, sql.Row{Kind: sql.Insert, Values: []any{dt, int32(i)}})
	}
	if err := w.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	_, comm, err := w.Snapshot(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now }
	if err := s.Commit(ctx, cp, [][]byte{comm}); err != nil {
		t.Fatal(err)
	}
}

// partitionsOf lists the partitions (dt values) with live files.
func partitionsOf(t *testing.T, tbl *Table) []string {
	t.Helper()
	rows, err := readAll(tbl, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		dt := strings.Trim(strings.SplitN(r, ",", 2)[0], "+I[")
		if !slices.Contains(out, dt) {
			out = append(out, dt)
		}
	}
	slices.Sort(out)
	return out
}

// latestDropped checks that the latest snapshot is the OVERWRITE a
// partition expiration commits (FileStoreCommitImpl.dropPartitions):
// same user and identifier as the sink's commit, DELETE entries for
// every file of the dropped partitions, nothing else. It returns the
// dropped partitions.
func latestDropped(t *testing.T, tbl *Table, before []manifest.ManifestEntry, user string, identifier int64) []string {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if s.CommitKind != snapshot.Overwrite || s.CommitUser != user || s.CommitIdentifier != identifier {
		t.Fatalf("snapshot %d: %s by %q #%d, want OVERWRITE by %q #%d", s.ID, s.CommitKind, s.CommitUser, s.CommitIdentifier, user, identifier)
	}
	delta, err := tbl.Manifests.ReadEntries(s.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	var dropped []string
	deleted := map[string]bool{}
	for _, e := range delta {
		if e.Kind != manifest.Delete {
			t.Fatalf("snapshot %d: %s entry for %s, want DELETE only", s.ID, e.Kind, e.File.FileName)
		}
		spec, _ := tbl.PartitionSpec(e.Partition)
		if !slices.Contains(dropped, spec["dt"]) {
			dropped = append(dropped, spec["dt"])
		}
		deleted[e.File.FileName] = true
	}
	for _, e := range before {
		spec, _ := tbl.PartitionSpec(e.Partition)
		if slices.Contains(dropped, spec["dt"]) && !deleted[e.File.FileName] {
			t.Fatalf("file %s of dropped partition %s not deleted", e.File.FileName, spec["dt"])
		}
	}
	slices.Sort(dropped)
	return dropped
}

func liveFiles(t *testing.T, tbl *Table) []manifest.ManifestEntry {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	live, err := tbl.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	return live
}

// TestPartitionExpireValuesTime: a streaming sink's commits drop the
// partitions whose values ('partition.timestamp-formatter' = 'yyyyMMdd')
// are older than 'partition.expiration-time', at most once per
// 'partition.expiration-check-interval' (PartitionExpire.expire: a check
// when now is after lastCheck + interval), in an OVERWRITE snapshot
// after the sink's APPEND; a partition whose value is no date stays
// (PartitionValuesTimeExpireStrategy logs and keeps it).
func TestPartitionExpireValuesTime(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(fs.NewLocal(), dir, partExpireSchema, []string{"dt"}, map[string]string{
		"partition.expiration-time": "2 d", "partition.expiration-check-interval": "1 h",
		"partition.timestamp-formatter": "yyyyMMdd"}, "", 0); err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(fs.NewLocal(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t0 := local(2024, 1, 4, 0, 0, 0)
	s.partExpire.lastCheck = wallClock(t0) // PartitionExpire.setLastCheck

	// 30 minutes after the last check: no check yet.
	sinkCommit(t, s, 1, t0.Add(30*time.Minute), "20240101", "20240102", "20240103", "other")
	if got, _, _ := tbl.Snapshots.LatestID(); got != 1 {
		t.Fatalf("latest snapshot %d, want 1 (no expiration before the interval)", got)
	}
	// An hour and a second after it: partitions before 2024-01-02
	// 01:00:01 expire.
	before := liveFiles(t, tbl)
	sinkCommit(t, s, 2, t0.Add(time.Hour+time.Second), "20240104")
	if got := latestDropped(t, tbl, before, s.user, 2); !slices.Equal(got, []string{"20240101", "20240102"}) {
		t.Fatalf("dropped %v, want [20240101 20240102]", got)
	}
	if got, _, _ := tbl.Snapshots.LatestID(); got != 3 {
		t.Fatalf("latest snapshot %d, want 3 (APPEND then OVERWRITE)", got)
	}
	if got := partitionsOf(t, tbl); !slices.Equal(got, []string{"20240103", "20240104", "other"}) {
		t.Fatalf("partitions read back %v", got)
	}
	// The next day but within the interval of the last check: nothing.
	sinkCommit(t, s, 3, t0.Add(90*time.Minute), "20240101")
	if got, _, _ := tbl.Snapshots.LatestID(); got != 4 {
		t.Fatalf("latest snapshot %d, want 4 (no check within the interval)", got)
	}
	// Checked again after the interval: the re-written old partition goes.
	before = liveFiles(t, tbl)
	sinkCommit(t, s, 4, t0.Add(2*time.Hour+2*time.Second), "20240105")
	if got := latestDropped(t, tbl, before, s.user, 4); !slices.Equal(got, []string{"20240101"}) {
		t.Fatalf("dropped %v, want [20240101]", got)
	}
	if got := partitionsOf(t, tbl); !slices.Equal(got, []string{"20240103", "20240104", "20240105", "other"}) {
		t.Fatalf("partitions read back %v", got)
	}
}

// TestPartitionExpireUpdateTime: 'update-time' compares the creation
// time of a partition's newest file (PartitionUpdateTimeExpireStrategy);
// 'partition.expiration-max-num' keeps the first partitions in value
// order and 'partition.expiration-batch-size' drops them one OVERWRITE
// snapshot per batch.
func TestPartitionExpireUpdateTime(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(fs.NewLocal(), dir, partExpireSchema, []string{"dt"}, map[string]string{
		"partition.expiration-time": "1 h", "partition.expiration-strategy": "update-time",
		"partition.expiration-max-num": "2", "partition.expiration-batch-size": "1"}, "", 0); err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(fs.NewLocal(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	created := map[string]time.Time{"c": local(2024, 1, 1, 9, 0, 0), "a": local(2024, 1, 1, 10, 0, 0),
		"b": local(2024, 1, 1, 10, 30, 0), "d": local(2024, 1, 1, 12, 0, 0)}
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []string{"a", "b", "c", "d"} {
		if err := w.Write(sql.Row{Kind: sql.Insert, Values: []any{dt, int32(1)}}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	for i := range msgs {
		spec, _ := tbl.PartitionSpec(msgs[i].Partition)
		for j := range msgs[i].NewFiles {
			ct := manifest.CreationTimeMillis(created[spec["dt"]])
			msgs[i].NewFiles[j].CreationTime = &ct
		}
	}
	c := tbl.NewCommit("u")
	if err := c.Commit(7, msgs, nil); err != nil {
		t.Fatal(err)
	}
	now := local(2024, 1, 1, 12, 30, 0) // a, b and c are older than 11:30
	pe, err := tbl.NewPartitionExpire(now, func(int64) int64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	// The first check comes a full interval after creation with a random
	// offset of 0.
	if _, checked, _ := pe.Expire(now.Add(time.Hour), 7, "u"); checked {
		t.Fatal("checked at lastCheck + interval, want only after it")
	}
	before := liveFiles(t, tbl)
	expired, checked, err := pe.Expire(now.Add(time.Hour+time.Millisecond), 7, "u")
	if err != nil || !checked {
		t.Fatal(checked, err)
	}
	// One hour later still: everything but d is over an hour old; max-num
	// 2 keeps a and b.
	if !slices.Equal(expired, []string{"dt=a", "dt=b"}) {
		t.Fatalf("expired %v", expired)
	}
	if got := latestDropped(t, tbl, before, "u", 7); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("last batch dropped %v, want [b]", got)
	}
	if got, _, _ := tbl.Snapshots.LatestID(); got != 3 {
		t.Fatalf("latest snapshot %d, want 3 (one OVERWRITE per batch)", got)
	}
	prev, _ := tbl.Snapshots.Read(2)
	if prev.CommitKind != snapshot.Overwrite {
		t.Fatalf("snapshot 2 is %s, want OVERWRITE", prev.CommitKind)
	}
	if got := partitionsOf(t, tbl); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("partitions read back %v", got)
	}
}

// TestPartitionExpireErrors: Paimon's messages for a bad strategy
// (PartitionExpireStrategy.createPartitionExpireStrategy) and a bad
// formatter pattern (DateTimeFormatter.ofPattern, thrown by the check).
func TestPartitionExpireErrors(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"partition.expiration-strategy": "foo"}, "Unknown partitionExpireStrategy: foo"},
		{map[string]string{"partition.timestamp-formatter": "yyyyMMdd bb"}, "Unknown pattern letter: b"},
		{map[string]string{"partition.timestamp-formatter": "yyyy-MM-ddd"}, "Too many pattern letters: d"},
		{map[string]string{"partition.timestamp-formatter": "yyyy'MM"}, "Pattern ends with an incomplete string literal: yyyy'MM"},
		{map[string]string{"partition.timestamp-formatter": "yyyy#MM"}, "Pattern includes reserved character: '#'"},
	} {
		dir := t.TempDir()
		opts := map[string]string{"partition.expiration-time": "1 d", "partition.expiration-check-interval": "0"}
		for k, v := range c.opts {
			opts[k] = v
		}
		tbl, err := Create(fs.NewLocal(), dir, partExpireSchema, []string{"dt"}, opts, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		_ = w.Write(sql.Row{Kind: sql.Insert, Values: []any{"20240101", int32(1)}})
		msgs, _ := w.PrepareCommit(true)
		_ = w.Close()
		if err := tbl.NewCommit("u").Commit(1, msgs, nil); err != nil {
			t.Fatal(err)
		}
		pe, err := tbl.NewPartitionExpire(time.Now(), nil)
		if err == nil {
			_, _, err = pe.Expire(time.Now(), 1, "u")
		}
		var se *sql.Error
		if err == nil || !errors.As(err, &se) || se.Msg != c.want {
			t.Errorf("%v: got %v, want %q", c.opts, err, c.want)
		}
	}
}

// TestPartitionTimeExtractor: PartitionTimeExtractorTest's cases — the
// default formats, patterns over several keys, Java's adjacent value
// parsing of 'yyyyMMdd' and fallbacks to a date at midnight.
func TestPartitionTimeExtractor(t *testing.T) {
	ts := func(y int, mo time.Month, d, h, mi, s int) time.Time {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		pattern, formatter string
		keys               []string
		values             []*string
		want               time.Time // zero: not parsed
	}{
		{"", "", []string{"dt"}, []*string{str("2023-01-01 20:00:00")}, ts(2023, 1, 1, 20, 0, 0)},
		{"", "", []string{"dt"}, []*string{str("2023-01-01")}, ts(2023, 1, 1, 0, 0, 0)},
		{"", "", []string{"dt"}, []*string{str("2023-1-2 3:4:5.25")}, ts(2023, 1, 2, 3, 4, 5).Add(250 * time.Millisecond)},
		{"", "", []string{"dt"}, []*string{str("2023-13-01")}, ts(2024, 1, 1, 0, 0, 0)}, // lenient
		{"", "", []string{"dt"}, []*string{str("20230101")}, time.Time{}},
		{"", "", []string{"dt"}, []*string{str("2023-01-01 10")}, time.Time{}},
		{"", "", []string{"dt"}, []*string{nil}, time.Time{}},
		{"$dt", "yyyyMMdd", []string{"dt"}, []*string{str("20230102")}, ts(2023, 1, 2, 0, 0, 0)},
		{"", "yyyyMMdd", []string{"dt"}, []*string{str("2023010")}, time.Time{}},
		{"$year-$month-$day $hour:00:00", "", []string{"year", "month", "day", "hour"},
			[]*string{str("2023"), str("01"), str("03"), str("12")}, ts(2023, 1, 3, 12, 0, 0)},
		{"$dt $hour", "yyyyMMdd HH", []string{"dt", "hour"}, []*string{str("20230104"), str("07")}, ts(2023, 1, 4, 7, 0, 0)},
		{"", "yyyyMMddHH", []string{"dt"}, []*string{str("2023010523")}, ts(2023, 1, 5, 23, 0, 0)},
		{"", "yyyy-MM-dd", []string{"dt"}, []*string{str("2023-02-30")}, ts(2023, 2, 28, 0, 0, 0)}, // SMART
		{"", "yyyy-MM-dd", []string{"dt"}, []*string{str("2023-13-01")}, time.Time{}},
		{"", "yyyy/M/d", []string{"dt"}, []*string{str("2023/1/9")}, ts(2023, 1, 9, 0, 0, 0)},
		{"", "'day 'yyyyMMdd", []string{"dt"}, []*string{str("day 20230106")}, ts(2023, 1, 6, 0, 0, 0)},
	} {
		x := timeExtractor{pattern: c.pattern, hasPattern: c.pattern != "", formatter: c.formatter, hasFormatter: c.formatter != ""}
		got, err := x.extract(c.keys, c.values)
		if c.want.IsZero() {
			if !errors.Is(err, errTimeParse) {
				t.Errorf("%+v: got %v %v, want a parse failure", c, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q %q %v: got %v %v, want %v", c.pattern, c.formatter, c.values, got, err, c.want)
		}
	}
}

// TestPartitionExpireConflict: a streaming writer whose partition was
// expired meanwhile fails its commit (its full compaction deletes files
// the OVERWRITE dropped) with Paimon's message naming the partition
// (ConflictDetection.checkConflictForPartitionExpire).
func TestPartitionExpireConflict(t *testing.T) {
	dir := t.TempDir()
	pk := sql.Schema{Columns: partExpireSchema.Columns, PrimaryKey: []string{"dt", "v"}}
	if _, err := Create(fs.NewLocal(), dir, pk, []string{"dt"}, map[string]string{"bucket": "1",
		"partition.expiration-time": "1 d", "partition.timestamp-formatter": "yyyyMMdd",
		"full-compaction.delta-commits": "1"}, "", 0); err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(fs.NewLocal(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	now := local(2024, 1, 4, 0, 0, 0)
	s.partExpire.lastCheck = wallClock(now)
	ctx := context.Background()
	sw, _ := s.NewWriter(0, 1)
	w := sw.(*SinkWriter)
	if err := w.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	commit := func(cp int64, v int32) error {
		if err := w.Write(ctx, []sql.Row{{Kind: sql.Insert, Values: []any{"20240101", v}}}); err != nil {
			t.Fatal(err)
		}
		_, comm, err := w.Snapshot(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		s.now = func() time.Time { return now }
		return s.Commit(ctx, cp, [][]byte{comm})
	}
	if err := commit(1, 1); err != nil {
		t.Fatal(err)
	}
	// Another job (the procedure) drops the partition.
	pe, _ := tbl.NewPartitionExpire(now, nil)
	pe.o.CheckInterval = 0
	if got, _, err := pe.Expire(now, snapshot.BatchCommitIdentifier, ""); err != nil || !slices.Equal(got, []string{"dt=20240101"}) {
		t.Fatal(got, err)
	}
	err = commit(2, 2)
	var se *sql.Error
	want := "You are writing data to expired partitions, and you can filter this data to avoid job failover. Otherwise, continuous expired records will cause the job to failover restart continuously. Expired partitions are: [20240101]"
	if !errors.As(err, &se) || se.Msg != want || !errors.Is(err, ErrCommitConflict) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
