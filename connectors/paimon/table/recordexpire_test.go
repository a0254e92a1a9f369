package table

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// TestRecordLevelExpire follows Paimon 1.4's RecordLevelExpire: records
// whose 'record-level.time-field' is older than 'record-level.expire-time'
// are dropped when compaction reads them (a null time is kept; BIGINT
// from 1,000,000,000,000 on counts as milliseconds), not before; a full
// compaction with only the max level left rewrites the files whose least
// time (from their value statistics) has expired
// (CompactStrategy.pickFullCompaction), and leaves the others.
func TestRecordLevelExpire(t *testing.T) {
	for _, c := range []struct {
		typ sql.DataType
		val func(tm time.Time) any
	}{
		{sql.Timestamp(3), func(tm time.Time) any { return sql.TimestampFromTime(tm) }},
		{sql.BigInt(), func(tm time.Time) any { return tm.UnixMilli() }},
		{sql.BigInt(), func(tm time.Time) any { return tm.Unix() }},
		{sql.Int(), func(tm time.Time) any { return int32(tm.Unix()) }},
	} {
		name := c.typ.String()
		s := sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int()}, {Name: "ts", Type: c.typ}}, PrimaryKey: []string{"k"}}
		tbl, err := Create(nil, t.TempDir(), s, nil, map[string]string{"bucket": "1",
			"record-level.expire-time": "1 h", "record-level.time-field": "ts"}, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		at := func(hm string) time.Time {
			tm, err := time.Parse("2006-01-02 15:04", "2026-12-01 "+hm)
			if err != nil {
				t.Fatal(err)
			}
			return tm
		}
		now := at("12:00")
		writeCommit(t, tbl, "u", 1, row(sql.Insert, int32(1), c.val(at("10:59"))), row(sql.Insert, int32(2), c.val(at("11:30"))),
			row(sql.Insert, int32(3), nil))
		writeCommit(t, tbl, "u", 2, row(sql.Insert, int32(4), c.val(at("11:00"))))
		compact := func() {
			t.Helper()
			tbl.Spec.Expire.Now = func() time.Time { return now }
			if _, err := Compact(tbl, CompactOptions{Full: true, TempDir: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
		}
		k := func() string {
			var ks []string
			for _, l := range strings.Split(mustRead(t, tbl), "\n") {
				ks = append(ks, strings.SplitN(strings.TrimPrefix(l, "+I["), ",", 2)[0])
			}
			return strings.Join(ks, " ")
		}
		if got := k(); got != "1 2 3 4" {
			t.Fatalf("%s: before compaction: keys %s", name, got)
		}
		compact() // 10:59 is older than 12:00 less an hour, 11:00 is not
		if got := k(); got != "2 3 4" {
			t.Fatalf("%s: after compaction at 12:00: keys %s", name, got)
		}
		compact() // nothing expired: the max level stays
		if ids, _ := tbl.Snapshots.ListIDs(); len(ids) != 3 {
			t.Fatalf("%s: a full compaction with nothing expired made snapshots %v", name, ids)
		}
		now = at("12:31")
		compact()
		if got := k(); got != "3" {
			t.Fatalf("%s: after compaction at 12:31: keys %s", name, got)
		}
	}
}

// TestRecordLevelExpireChecks: Paimon's writer needs the time field
// (RecordLevelExpire.create); an append table ignores the option, as
// Paimon's does; sqlrun refuses first-row and deletion-vector tables.
func TestRecordLevelExpireChecks(t *testing.T) {
	s := sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int()}, {Name: "ts", Type: sql.BigInt()}}, PrimaryKey: []string{"k"}}
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"record-level.expire-time": "1 d"}, "You should set time field for record-level expire."},
		{map[string]string{"record-level.expire-time": "1 d", "record-level.time-field": "ts", "merge-engine": "first-row", "changelog-producer": "lookup"}, "'merge-engine' = 'first-row'"},
		{map[string]string{"record-level.expire-time": "1 d", "record-level.time-field": "ts", "deletion-vectors.enabled": "true"}, "'deletion-vectors.enabled' = 'true'"},
	} {
		c.opts["bucket"] = "1"
		tbl, err := Create(nil, t.TempDir(), s, nil, c.opts, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		if root := sql.RootCause(err); root == nil || !strings.Contains(root.Msg, c.want) {
			t.Errorf("%v: got %v, want %q", c.opts, err, c.want)
		}
	}
	appendOnly := sql.Schema{Columns: s.Columns}
	tbl, err := Create(nil, t.TempDir(), appendOnly, nil, map[string]string{"record-level.expire-time": "1 d"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int32(1), int64(1)))
}

// TestRecordLevelExpireLookupChangelog: with 'changelog-producer' =
// 'lookup', Paimon 1.4 reads the data files for its lookups through the
// same RecordLevelExpire filter as the compaction
// (MergeTreeCompactManagerFactory.createRewriter: the lookup reader
// factory is the wrapped one), so a key whose old value has expired
// comes back as an insert (+I), not an update (-U/+U), and the expired
// record is gone; a key whose old value has not expired is an update.
// sqlrun refused the combination before.
func TestRecordLevelExpireLookupChangelog(t *testing.T) {
	s := sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int()}, {Name: "ts", Type: sql.BigInt()}}, PrimaryKey: []string{"k"}}
	tbl, err := Create(nil, t.TempDir(), s, nil, map[string]string{"bucket": "1", "changelog-producer": "lookup",
		"record-level.expire-time": "1 h", "record-level.time-field": "ts"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	at := func(hm string) int64 {
		tm, err := time.Parse("2006-01-02 15:04", "2026-12-01 "+hm)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	now := at("10:30")
	tbl.Spec.Expire.Now = func() time.Time { return time.Unix(now, 0) }
	// Filler keys (a null time never expires) make the first commit's
	// file large enough that the second commit's compaction takes only
	// level 0 (UniversalCompaction's size ratio, ForceUpLevel0Compaction)
	// and looks the old values up.
	first := []sql.Row{row(sql.Insert, int32(1), at("10:00")), row(sql.Insert, int32(2), at("10:10"))}
	for k := int32(100); k < 600; k++ {
		first = append(first, row(sql.Insert, k, nil))
	}
	writeCommit(t, tbl, "u", 1, first...)
	if got, want := changelogOf(t, tbl, []int64{1, 2}), fmt.Sprintf("+I[1, %d] +I[2, %d] +I[100, null]", at("10:00"), at("10:10")); !strings.HasPrefix(got, want) {
		t.Fatalf("changelog of the first commit: %s, want %s...", got, want)
	}
	now = at("11:05") // 10:00 has expired, 10:10 has not
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int32(1), at("11:00")), row(sql.Insert, int32(2), at("11:01")))
	want := fmt.Sprintf("+I[1, %d] -U[2, %d] +U[2, %d]", at("11:00"), at("10:10"), at("11:01"))
	if got := changelogOf(t, tbl, []int64{3, 4}); got != want {
		t.Errorf("changelog of the second commit: %s, want %s", got, want)
	}
	rows := strings.Split(mustRead(t, tbl), "\n")
	for _, want := range []string{fmt.Sprintf("+I[1, %d]", at("11:00")), fmt.Sprintf("+I[2, %d]", at("11:01"))} {
		if !slices.Contains(rows, want) {
			t.Errorf("read: no %s", want)
		}
	}
	if len(rows) != 502 {
		t.Errorf("read %d rows, want 502", len(rows))
	}
}
