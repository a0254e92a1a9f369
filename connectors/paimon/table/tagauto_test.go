package table

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// tagTable creates a one-bucket table (k INT primary key, v STRING) with
// the options given; its commits do not compact, so commit n makes
// snapshot n.
func tagTable(t *testing.T, opts map[string]string) *Table {
	t.Helper()
	s := sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int()}, {Name: "v", Type: sql.String()}}, PrimaryKey: []string{"k"}}
	o := map[string]string{"bucket": "1", "num-sorted-run.compaction-trigger": "100"}
	for k, v := range opts {
		o[k] = v
	}
	tbl, err := Create(fs.NewLocal(), t.TempDir(), s, nil, o, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// commitAt writes one row and commits it at the given time with a new
// commit of user (the commit's tag state starts from the table's tags,
// as a restarted job's does) or with c when set.
func commitAt(t *testing.T, tbl *Table, c *Commit, at string, k int32) *Commit {
	t.Helper()
	now, err := time.Parse("2006-01-02 15:04", at)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(sql.Row{Kind: sql.Insert, Values: []any{k, "x"}}); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		c = tbl.NewCommit("u")
	}
	c.Now = func() time.Time { return now }
	if err := c.Commit(int64(k), msgs, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// tagsOf lists the tags as name→snapshot id.
func tagsOf(t *testing.T, tbl *Table) map[string]int64 {
	t.Helper()
	names, err := tbl.Snapshots.TagNames()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, n := range names {
		tag, err := tbl.Snapshots.ReadTag(n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = tag.ID
	}
	return out
}

func sameTags(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: tags %v, want %v", what, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: tags %v, want %v", what, got, want)
		}
	}
}

// TestTagAutoCreationProcessTime follows TagAutoCreation in 'process-time'
// mode (Paimon 1.4's TagAutoCreationTest does the same walk): the first
// snapshot gets the tag of the period before its commit time
// (normalizeToPreviousTag), later ones a tag once their time is past the
// end of the next tag's period; a tag file is the snapshot's JSON; a new
// job starts from the last auto tag; 'tag.num-retained-max' deletes the
// oldest auto tags and leaves the others alone. Before, such writes were
// refused.
func TestTagAutoCreationProcessTime(t *testing.T) {
	tbl := tagTable(t, map[string]string{"tag.automatic-creation": "process-time", "sink.process-time-zone": "UTC",
		"tag.num-retained-max": "3"})
	c := commitAt(t, tbl, nil, "2026-12-01 10:00", 1) // snapshot 1
	sameTags(t, "first commit", tagsOf(t, tbl), map[string]int64{"2026-11-30": 1})
	commitAt(t, tbl, c, "2026-12-01 23:59", 2) // 2: the period of 2026-12-01 has not ended
	commitAt(t, tbl, c, "2026-12-02 00:00", 3) // 3: it has
	sameTags(t, "after midnight", tagsOf(t, tbl), map[string]int64{"2026-11-30": 1, "2026-12-01": 3})

	// The tag file is snapshot-3's JSON (TagManager.createOrReplaceTag
	// without a retention time).
	snap, err := os.ReadFile(filepath.Join(tbl.Root, "snapshot", "snapshot-3"))
	if err != nil {
		t.Fatal(err)
	}
	tag, err := os.ReadFile(filepath.Join(tbl.Root, "tag", "tag-2026-12-01"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snap, tag) {
		t.Fatalf("tag file differs from the snapshot's JSON:\n%s\n%s", tag, snap)
	}

	// A manual tag is no auto tag: retention leaves it alone.
	if err := tbl.CreateTag(mustSnapshot(t, tbl, 2), "manual"); err != nil {
		t.Fatal(err)
	}
	// A new job (a new commit) starts after the last auto tag: 2026-12-02's
	// tag comes with the first snapshot after 2026-12-03 00:00, named by
	// that snapshot's period (no completion: 2026-12-03, 04 are skipped).
	c2 := commitAt(t, tbl, nil, "2026-12-02 12:00", 4)
	commitAt(t, tbl, c2, "2026-12-05 08:00", 5)
	sameTags(t, "skipped days", tagsOf(t, tbl), map[string]int64{"2026-11-30": 1, "2026-12-01": 3, "2026-12-04": 5, "manual": 2})
	commitAt(t, tbl, c2, "2026-12-06 08:00", 6)
	sameTags(t, "retained 3", tagsOf(t, tbl), map[string]int64{"2026-12-01": 3, "2026-12-04": 5, "2026-12-05": 6, "manual": 2})

	// validateNoAutoTag: an auto tag's name on a snapshot that has one.
	err = tbl.CreateTag(mustSnapshot(t, tbl, 6), "2026-12-24")
	if err == nil || !strings.Contains(err.Error(), "Snapshot 6 is already auto-tagged with [2026-12-05].") {
		t.Fatalf("second auto tag on snapshot 6: %v", err)
	}
}

func mustSnapshot(t *testing.T, tbl *Table, id int64) *snapshot.Snapshot {
	t.Helper()
	s, err := tbl.Snapshots.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTagAutoCreationCompletionAndDelay: 'tag.automatic-completion' names
// the tags of skipped periods one by one (each commit creates the next
// missing one), and 'tag.creation-delay' holds a tag back until the delay
// after its period's end.
func TestTagAutoCreationCompletionAndDelay(t *testing.T) {
	tbl := tagTable(t, map[string]string{"tag.automatic-creation": "process-time", "sink.process-time-zone": "UTC",
		"tag.creation-period": "hourly", "tag.automatic-completion": "true", "tag.creation-delay": "10 min"})
	c := commitAt(t, tbl, nil, "2026-12-01 10:30", 1)
	sameTags(t, "first", tagsOf(t, tbl), map[string]int64{"2026-12-01 09": 1})
	commitAt(t, tbl, c, "2026-12-01 11:05", 2) // within the delay
	sameTags(t, "delay", tagsOf(t, tbl), map[string]int64{"2026-12-01 09": 1})
	commitAt(t, tbl, c, "2026-12-01 14:20", 3)
	commitAt(t, tbl, c, "2026-12-01 14:25", 4)
	sameTags(t, "completion", tagsOf(t, tbl), map[string]int64{"2026-12-01 09": 1, "2026-12-01 10": 3, "2026-12-01 11": 4})

	// The delay must be shorter than the period (validateDelay).
	bad := tagTable(t, map[string]string{"tag.automatic-creation": "process-time", "tag.creation-period": "hourly", "tag.creation-delay": "1 h"})
	if _, err := bad.newTagAutoCreation(); err == nil {
		t.Fatal("a delay of one period was accepted")
	}
}

// TestTagPeriodNames: the names of TagPeriodHandler's formatters, and
// which names are auto tags (STRICT fixed-width parsing).
func TestTagPeriodNames(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 47, 0, 0, time.UTC)
	for _, c := range []struct {
		period, formatter string
		duration          time.Duration
		want              string
	}{
		{"daily", "with_dashes", 0, "2026-11-30"},
		{"daily", "without_dashes", 0, "20261130"},
		{"daily", "without_dashes_and_spaces", 0, "20261130"},
		{"hourly", "with_dashes", 0, "2026-12-01 08"},
		{"hourly", "without_dashes", 0, "20261201 08"},
		{"hourly", "without_dashes_and_spaces", 0, "2026120108"},
		{"two-hours", "without_dashes", 0, "2026-12-01 06"},
		{"daily", "with_dashes", 30 * time.Minute, "202612010900"},
	} {
		h := newTagPeriod(c.period, c.duration, c.formatter)
		got := h.timeToTag(h.normalizeToPreviousTag(at))
		if got != c.want || !h.isAutoTag(got) {
			t.Errorf("%s %s %s: tag %q (auto %v), want %q", c.period, c.formatter, c.duration, got, h.isAutoTag(got), c.want)
		}
	}
	hourly := newTagPeriod("hourly", 0, "with_dashes")
	for _, n := range []string{"2026-12-01 8", "2026-12-01", "2026-02-30 10", "manual", "2026-12-01 24"} {
		if hourly.isAutoTag(n) {
			t.Errorf("%q is an auto tag of the hourly period", n)
		}
	}
	// DailyTagPeriodHandler parses the part before a space.
	if !newTagPeriod("daily", 0, "with_dashes").isAutoTag("2026-12-01 extra") {
		t.Error("a daily tag with a suffix after a space is not an auto tag")
	}
}

// TestSinkForcesSnapshotForDueTag: a streaming checkpoint without rows
// commits an empty snapshot when a tag is due
// (TableCommitImpl.forceCreatingSnapshot), so the tag holds what its
// period committed; when no tag is due it commits nothing.
func TestSinkForcesSnapshotForDueTag(t *testing.T) {
	tbl := tagTable(t, map[string]string{"tag.automatic-creation": "process-time", "sink.process-time-zone": "UTC"})
	commitAt(t, tbl, nil, "2026-12-01 10:00", 1) // tags 2026-11-30 on snapshot 1
	s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	if err := s.Commit(context.Background(), 7, nil); err != nil {
		t.Fatal(err)
	}
	if latest, _, _ := tbl.Snapshots.LatestID(); latest != 1 {
		t.Fatalf("an idle checkpoint with no tag due made snapshot %d", latest)
	}
	now = time.Date(2026, 12, 2, 0, 1, 0, 0, time.UTC)
	if err := s.Commit(context.Background(), 8, nil); err != nil {
		t.Fatal(err)
	}
	sameTags(t, "idle checkpoint after midnight", tagsOf(t, tbl), map[string]int64{"2026-11-30": 1, "2026-12-01": 2})
}

// TestBatchTag: 'tag.automatic-creation' = 'batch' tags the latest
// snapshot when a batch job's commit is done (TagBatchCreation):
// batch-write-<date> replacing a tag of that name, or
// 'tag.batch.customized-name'; 'tag.num-retained-max' counts all tags.
// Streaming jobs create none.
func TestBatchTag(t *testing.T) {
	tbl := tagTable(t, map[string]string{"tag.automatic-creation": "batch", "sink.process-time-zone": "UTC", "tag.num-retained-max": "2"})
	commitAt(t, tbl, nil, "2026-12-01 10:00", 1)
	if tags := tagsOf(t, tbl); len(tags) != 0 {
		t.Fatalf("a plain commit created tags %v", tags)
	}
	batch := func(streaming bool) {
		s, err := NewSink(tbl, SinkOptions{Streaming: streaming, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(context.Background(), 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	batch(true)
	if tags := tagsOf(t, tbl); len(tags) != 0 {
		t.Fatalf("a streaming job created tags %v", tags)
	}
	batch(false)
	sameTags(t, "batch", tagsOf(t, tbl), map[string]int64{"batch-write-2026-12-01": 1})
	commitAt(t, tbl, nil, "2026-12-01 11:00", 2)
	batch(false) // replaces the tag of the same day
	sameTags(t, "replaced", tagsOf(t, tbl), map[string]int64{"batch-write-2026-12-01": 2})
	if err := tbl.CreateTag(mustSnapshot(t, tbl, 1), "manual"); err != nil {
		t.Fatal(err)
	}
	commitAt(t, tbl, nil, "2026-12-02 11:00", 3)
	batch(false)
	sameTags(t, "retained 2", tagsOf(t, tbl), map[string]int64{"batch-write-2026-12-01": 2, "batch-write-2026-12-02": 3})

	named := tagTable(t, map[string]string{"tag.automatic-creation": "batch", "tag.batch.customized-name": "nightly"})
	commitAt(t, named, nil, "2026-12-01 10:00", 1)
	s, err := NewSink(named, SinkOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if tags := tagsOf(t, named); !slices.Equal(sortedKeys(tags), []string{"nightly"}) {
		t.Fatalf("customized name: tags %v", tags)
	}
}

func sortedKeys(m map[string]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestWatermarkTags: with 'tag.automatic-creation' = 'watermark' the
// sink records the committer's watermark in each snapshot — the least of
// its writers' (CommitterOperator.currentWatermark behind Flink's
// StatusWatermarkValve: Long.MIN_VALUE while a writer has none, an idle
// writer not counted, Long.MAX_VALUE never taken), kept at least the
// latest snapshot's (FileStoreCommitImpl) — and TagAutoCreation's
// WatermarkExtractor tags by it in 'sink.watermark-time-zone'; a snapshot
// without a watermark (Long.MIN_VALUE) gets no tag. A batch job records
// Long.MIN_VALUE, or 'end-input.watermark'.
func TestWatermarkTags(t *testing.T) {
	tbl := tagTable(t, map[string]string{"tag.automatic-creation": "watermark", "tag.creation-period": "hourly",
		"sink.watermark-time-zone": "Asia/Shanghai"})
	ctx := context.Background()
	s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var ws []*SinkWriter
	for i := range 2 {
		w, err := s.NewWriter(i, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Open(ctx, nil); err != nil {
			t.Fatal(err)
		}
		defer w.Close(ctx)
		ws = append(ws, w.(*SinkWriter))
	}
	ms := func(at string) int64 {
		tm, err := time.Parse("2006-01-02 15:04", at)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMilli()
	}
	// checkpoint writes row k through writer 0 and commits both writers'
	// committables after giving them these watermarks (nil: none).
	checkpoint := func(cp int64, k int32, marks ...func(w *SinkWriter)) *snapshot.Snapshot {
		t.Helper()
		if err := ws[0].Write(ctx, []sql.Row{{Kind: sql.Insert, Values: []any{k, "x"}}}); err != nil {
			t.Fatal(err)
		}
		for i, m := range marks {
			if m != nil {
				m(ws[i])
			}
		}
		var comms [][]byte
		for _, w := range ws {
			_, c, err := w.Snapshot(ctx, cp)
			if err != nil {
				t.Fatal(err)
			}
			comms = append(comms, c)
		}
		if err := s.Commit(ctx, cp, comms); err != nil {
			t.Fatal(err)
		}
		latest, err := tbl.Snapshots.Latest()
		if err != nil {
			t.Fatal(err)
		}
		return latest
	}
	mark := func(wm int64, idle bool) func(w *SinkWriter) {
		return func(w *SinkWriter) {
			if err := w.SinkWatermark(wm, idle); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantWM := func(s *snapshot.Snapshot, want int64) {
		t.Helper()
		if s.Watermark == nil || *s.Watermark != want {
			t.Fatalf("snapshot %d: watermark %v, want %d", s.ID, s.Watermark, want)
		}
	}
	// Writer 1 has no watermark yet: the commit records Long.MIN_VALUE,
	// in the snapshot file as Paimon writes it, and creates no tag.
	s1 := checkpoint(1, 1, mark(ms("2026-12-01 02:10"), false))
	wantWM(s1, math.MinInt64)
	raw, err := os.ReadFile(filepath.Join(tbl.Root, "snapshot", "snapshot-1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"watermark" : -9223372036854775808,`)) {
		t.Fatalf("snapshot-1 has no Long.MIN_VALUE watermark:\n%s", raw)
	}
	sameTags(t, "no watermark", tagsOf(t, tbl), nil)
	// The least of the two: 02:10 UTC is 10:10 in Shanghai; the first tag
	// is the period before.
	s2 := checkpoint(2, 2, nil, mark(ms("2026-12-01 03:30"), false))
	wantWM(s2, ms("2026-12-01 02:10"))
	sameTags(t, "first", tagsOf(t, tbl), map[string]int64{"2026-12-01 09": 2})
	// Writer 0 idle: writer 1's 03:30 (11:30 local) is past the end of
	// the next tag's period (10:00-11:00).
	s3 := checkpoint(3, 3, mark(ms("2026-12-01 02:20"), true))
	wantWM(s3, ms("2026-12-01 03:30"))
	sameTags(t, "idle writer", tagsOf(t, tbl), map[string]int64{"2026-12-01 09": 2, "2026-12-01 10": 3})
	// Both active again, writer 0 behind: the snapshot keeps the latest
	// watermark; Long.MAX_VALUE (end of input) is not taken.
	s4 := checkpoint(4, 4, mark(math.MaxInt64, false), mark(ms("2026-12-01 05:00"), false))
	wantWM(s4, ms("2026-12-01 03:30"))
	sameTags(t, "behind", tagsOf(t, tbl), map[string]int64{"2026-12-01 09": 2, "2026-12-01 10": 3})
	// A committable of an older checkpoint carries no watermark: it
	// counts as Long.MIN_VALUE.
	var old watermarks
	old.add(nil, false)
	old.add(s4.Watermark, false)
	if got := old.committer(); got != math.MinInt64 {
		t.Fatalf("a committable without a watermark: committer watermark %d", got)
	}

	batch := tagTable(t, map[string]string{"tag.automatic-creation": "watermark"})
	commitAt(t, batch, nil, "2026-12-01 10:00", 1)
	for _, c := range []struct {
		opts map[string]string
		want int64
	}{{nil, math.MinInt64}, {map[string]string{"end-input.watermark": "1796126400000"}, 1796126400000}} {
		bt := batch
		if c.opts != nil {
			if bt, err = Open(nil, batch.Root, c.opts); err != nil {
				t.Fatal(err)
			}
		}
		bs, err := NewSink(bt, SinkOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		w, err := bs.NewWriter(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Open(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, []sql.Row{{Kind: sql.Insert, Values: []any{int32(9), "x"}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.(*SinkWriter).SinkWatermark(ms("2026-12-01 05:00"), false); err != nil {
			t.Fatal(err)
		}
		_, comm, err := w.Snapshot(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := bs.Commit(ctx, 1, [][]byte{comm}); err != nil {
			t.Fatal(err)
		}
		w.Close(ctx)
		latest, err := batch.Snapshots.Latest()
		if err != nil {
			t.Fatal(err)
		}
		wantWM(latest, c.want)
	}
	// 2026-12-01 22:00 UTC: the tag of the day before.
	sameTags(t, "end-input.watermark", tagsOf(t, batch), map[string]int64{"2026-11-30": 3})
}

// TestWatermarkIdleForcesSnapshot: by watermark, an idle checkpoint
// commits an empty snapshot only with 'snapshot.watermark-idle-timeout',
// once the latest snapshot's watermark is that long past
// (TagAutoCreation.forceCreatingSnapshot).
func TestWatermarkIdleForcesSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		timeout string
		want    int64 // latest snapshot after the idle checkpoints
	}{{"", 1}, {"1 h", 2}} {
		opts := map[string]string{"tag.automatic-creation": "watermark"}
		if c.timeout != "" {
			opts["snapshot.watermark-idle-timeout"] = c.timeout
		}
		tbl := tagTable(t, opts)
		wm := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		c1 := tbl.NewCommit("u")
		c1.Force = true
		if err := c1.Commit(1, nil, snapshot.Int64(wm.UnixMilli())); err != nil {
			t.Fatal(err)
		}
		if latest, _, _ := tbl.Snapshots.LatestID(); latest != 1 {
			t.Fatalf("setup: latest snapshot %d", latest)
		}
		s, err := NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		now := wm.Add(30 * time.Minute)
		s.now = func() time.Time { return now }
		if err := s.Commit(ctx, 7, nil); err != nil {
			t.Fatal(err)
		}
		now = wm.Add(61 * time.Minute)
		if err := s.Commit(ctx, 8, nil); err != nil {
			t.Fatal(err)
		}
		if latest, _, _ := tbl.Snapshots.LatestID(); latest != c.want {
			t.Errorf("idle timeout %q: latest snapshot %d, want %d", c.timeout, latest, c.want)
		}
	}
}
