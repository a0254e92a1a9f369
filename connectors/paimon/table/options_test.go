package table

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

// A table whose options ask for what sqlrun does not do on write
// ('compaction.force-up-level-0' = 'true': Paimon's compaction then always
// picks every level-0 file, which sqlrun's does not) is refused for writing, compaction and the sink,
// naming the option, and read as usual: the option only matters to a
// writer.
func TestWriteRefusedOptionStillReads(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
	const k, v = "compaction.force-up-level-0", "true"
	forced, err := Open(nil, dir, map[string]string{k: v})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, coreoptions.ErrUnsupportedOption) || !strings.Contains(err.Error(), "'"+k+"' = '"+v+"'") {
			t.Errorf("%s with '%s' = '%s': got %v, want a refusal naming the option", what, k, v, err)
		}
	}
	_, err = forced.NewWrite(WriteOptions{TempDir: t.TempDir()})
	refused("NewWrite", err)
	_, err = NewSink(forced, SinkOptions{TempDir: t.TempDir()})
	refused("NewSink", err)
	_, err = Compact(forced, CompactOptions{Full: true, TempDir: t.TempDir()})
	refused("Compact", err)
	if got := mustRead(t, forced); got != "+I[1, d, 1, a]" {
		t.Errorf("read with '%s' = '%s': %q", k, v, got)
	}
	none, err := Open(nil, dir, map[string]string{k: "false"})
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, none, "u", 2, row(sql.Insert, int64(2), "d", int32(2), "b"))
}

// TestCommitForceCompact: with 'commit.force-compact' = 'true' a
// streaming writer's every commit carries the compaction its flush
// triggered, as MergeTreeWriter.prepareCommit waits for it
// (commitForceCompact sets waitCompaction) in every open writer
// (AbstractFileStoreWrite.prepareCommit). The compaction is the normal
// pick of flushWriteBuffer's triggerCompaction(false), not a full one: with
// 'num-sorted-run.compaction-trigger' = '2' the first commit's single
// sorted run stays on level 0 (UniversalCompaction picks nothing below
// the trigger) and the second commit compacts both runs (an APPEND then a
// COMPACT snapshot). A lookup table picks with ForceUpLevel0Compaction, so
// with 'lookup-wait' = 'false' (the commit would not wait otherwise) every
// commit leaves no level-0 file. A writer with no new rows still waits and
// commits nothing. (sqlrun refused the option on write before.)
func TestCommitForceCompact(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   map[string]string
		level0 []int // level-0 files after each commit
	}{
		{"universal", map[string]string{"num-sorted-run.compaction-trigger": "2"}, []int{1, 0}},
		{"lookup", map[string]string{"changelog-producer": "lookup", "lookup-wait": "false"}, []int{0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := map[string]string{"bucket": "1", "commit.force-compact": "true"}
			for k, v := range c.opts {
				opts[k] = v
			}
			tbl, err := Create(fs.NewLocal(), t.TempDir(), pkSchema(), nil, opts, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var want []string
			for i, wantL0 := range c.level0 {
				id := int64(i + 1)
				if err := w.Write(row(sql.Insert, id, "d", int32(id), "x")); err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprintf("+I[%d, d, %d, x]", id, id))
				msgs, err := w.PrepareCommit(false)
				if err != nil {
					t.Fatal(err)
				}
				if err := tbl.NewCommit("u").Commit(id, msgs, nil); err != nil {
					t.Fatal(err)
				}
				s, err := tbl.Snapshots.Latest()
				if err != nil {
					t.Fatal(err)
				}
				got := 0
				for _, e := range liveFiles(t, tbl) {
					if e.File.Level == 0 {
						got++
					}
				}
				wantKind := "COMPACT"
				if wantL0 > 0 {
					wantKind = "APPEND"
				}
				if got != wantL0 || string(s.CommitKind) != wantKind {
					t.Fatalf("after commit %d: %d level-0 files, latest snapshot %d %s; want %d level-0 files, a %s snapshot last",
						id, got, s.ID, s.CommitKind, wantL0, wantKind)
				}
			}
			if got := mustRead(t, tbl); got != strings.Join(want, "\n") {
				t.Fatalf("read:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
			}
			msgs, err := w.PrepareCommit(false)
			if err != nil || len(msgs) != 0 {
				t.Fatalf("a commit without new rows: %v %v, want nothing to commit", msgs, err)
			}
		})
	}
}

// data-file.prefix and changelog-file.prefix name the files every writer
// writes (DataFilePathFactory: <prefix><uuid>-<n>.<format>).
func TestFilePrefixes(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1", "changelog-producer": "input",
		"data-file.prefix": "d1-", "changelog-file.prefix": "c1-"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
	names, err := filepath.Glob(filepath.Join(dir, "bucket-0", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var data, changelog int
	for _, n := range names {
		switch base := filepath.Base(n); {
		case strings.HasPrefix(base, "d1-") && strings.HasSuffix(base, ".parquet"):
			data++
		case strings.HasPrefix(base, "c1-") && strings.HasSuffix(base, ".parquet"):
			changelog++
		default:
			t.Errorf("file %s has neither prefix", base)
		}
	}
	if data != 1 || changelog != 1 {
		t.Fatalf("%d data and %d changelog files: %v", data, changelog, names)
	}
	if got := mustRead(t, tbl); got != "+I[1, d, 1, a]" {
		t.Fatalf("read back: %q", got)
	}
}

// snapshot.expire.limit bounds how many snapshots one expiration deletes
// (ExpireSnapshotsImpl: maxExclusive = min(maxExclusive, earliest +
// maxDeletes)).
func TestSnapshotExpireLimit(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1", "snapshot.num-retained.min": "1",
		"snapshot.time-retained": "1 ms", "snapshot.expire.limit": "2"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 5; i++ {
		msgs := writeMessages(t, tbl, WriteOptions{TempDir: t.TempDir()}, row(sql.Insert, i, "d", int32(i), "a"))
		c := tbl.NewCommit("u")
		c.NoExpire = true
		if err := c.Commit(i, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	before, err := tbl.Snapshots.ListIDs()
	if err != nil || len(before) < 5 {
		t.Fatalf("snapshots %v, %v", before, err)
	}
	later := time.Now().Add(time.Hour)
	for left := len(before) - 1; left > 0; left -= 2 { // all but the latest expire, 2 at a time
		n, err := tbl.ExpireSnapshots(later)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(left, 2); n != want {
			t.Fatalf("expired %d snapshots, want %d (of %v)", n, want, before)
		}
	}
	if e, _, _ := tbl.Snapshots.EarliestID(); e != before[len(before)-1] {
		t.Fatalf("earliest snapshot %d, want %d", e, before[len(before)-1])
	}
}

// A Paimon table of another type (a format table, say) is not created as
// a data table.
func TestCreateRefusesOtherTableTypes(t *testing.T) {
	dir := t.TempDir()
	_, err := Create(nil, dir, pkSchema(), nil, map[string]string{"type": "format-table"}, "", 0)
	if !errors.Is(err, coreoptions.ErrUnsupportedOption) || !strings.Contains(err.Error(), "'type' = 'format-table'") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "schema")); !os.IsNotExist(err) {
		t.Fatalf("schema directory written: %v", err)
	}
	if _, err := Create(nil, t.TempDir(), pkSchema(), nil, map[string]string{"type": "table"}, "", 0); err != nil {
		t.Fatal(err)
	}
}

// metadata.stats-mode 'counts' and fields.<name>.stats-mode reach the data
// files' value statistics (StatsCollectorFactories: a column's own mode
// over the table's): 'counts' keeps null counts without min and max, a
// column with 'none' is left out of _VALUE_STATS_COLS.
func TestStatsModes(t *testing.T) {
	for _, c := range []struct {
		opts     map[string]string
		cols     []string // want ValueStatsCols (nil: all)
		minNulls bool     // min values all null
	}{
		{map[string]string{}, nil, false},
		{map[string]string{"metadata.stats-mode": "counts"}, nil, true},
		{map[string]string{"fields.s.stats-mode": "none"}, []string{"id", "dt", "v"}, false},
		{map[string]string{"metadata.stats-mode": "none", "fields.v.stats-mode": "full"}, []string{"v"}, false},
	} {
		opts := map[string]string{"bucket": "1"}
		for k, v := range c.opts {
			opts[k] = v
		}
		tbl, err := Create(nil, t.TempDir(), pkSchema(), nil, opts, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
		es := liveEntries(t, tbl)
		if len(es) != 1 {
			t.Fatalf("%v: %d files", c.opts, len(es))
		}
		f := es[0].File
		if !slices.Equal(f.ValueStatsCols, c.cols) || (f.ValueStatsCols == nil) != (c.cols == nil) {
			t.Errorf("%v: _VALUE_STATS_COLS %v, want %v", c.opts, f.ValueStatsCols, c.cols)
		}
		n := len(c.cols)
		types := tbl.Schema.Types()
		if c.cols != nil {
			types = nil
			for _, name := range c.cols {
				types = append(types, tbl.Schema.Fields[tbl.Schema.FieldIndex(name)].Type)
			}
		} else {
			n = len(types)
		}
		mins, err := binrow.Deserialize(types, f.ValueStats.MinValues)
		if err != nil {
			t.Fatal(err)
		}
		allNull := true
		for _, m := range mins {
			allNull = allNull && m == nil
		}
		if allNull != c.minNulls || len(f.ValueStats.NullCounts) != n {
			t.Errorf("%v: min values all null %v (want %v), %d null counts (want %d)", c.opts, allNull, c.minNulls, len(f.ValueStats.NullCounts), n)
		}
	}
}

// INSERT OVERWRITE of a primary-key table commits its files at the top
// level when they do not overlap ('overwrite-upgrade', default true:
// FileStoreCommitImpl.tryUpgrade), at level 0 with it false.
func TestOverwriteUpgrade(t *testing.T) {
	for _, c := range []struct {
		opts  map[string]string
		level int32
	}{
		{map[string]string{"bucket": "1"}, 5}, // num-levels: compaction-trigger (5) + 1
		{map[string]string{"bucket": "1", "num-levels": "3"}, 2},
		{map[string]string{"bucket": "1", "overwrite-upgrade": "false"}, 0},
	} {
		tbl, err := Create(nil, t.TempDir(), pkSchema(), nil, c.opts, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
		msgs := writeMessages(t, tbl, WriteOptions{TempDir: t.TempDir(), IgnorePrevious: true},
			row(sql.Insert, int64(2), "d", int32(2), "b"), row(sql.Insert, int64(3), "d", int32(3), "c"))
		if err := tbl.NewCommit("u").Overwrite(2, msgs, nil); err != nil {
			t.Fatal(err)
		}
		es := liveEntries(t, tbl)
		if len(es) != 1 || es[0].File.Level != c.level {
			t.Fatalf("%v: live files %d, level %d, want one at level %d", c.opts, len(es), es[0].File.Level, c.level)
		}
		if got := mustRead(t, tbl); got != "+I[2, d, 2, b]\n+I[3, d, 3, c]" {
			t.Fatalf("%v: read %q", c.opts, got)
		}
	}
}

// file.compression.per.level picks a data file's codec by its level
// (KeyValueFileWriterFactory's key2Compress): level-0 files of a flush in
// snappy, the full compaction's top-level file in 'file.compression'.
func TestCompressionPerLevel(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(nil, dir, pkSchema(), nil, map[string]string{"bucket": "1", "file.compression.per.level": "0:snappy"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	codec := func(name string) pformat.CompressionCodec {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "bucket-0", name))
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return pf.Metadata().RowGroups[0].Columns[0].MetaData.Codec
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int64(1), "d", int32(1), "a"))
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int64(1), "d", int32(2), "b"))
	es := liveEntries(t, tbl)
	for _, e := range es {
		if e.File.Level != 0 || codec(e.File.FileName) != pformat.Snappy {
			t.Fatalf("level-0 file %s: level %d, codec %v", e.File.FileName, e.File.Level, codec(e.File.FileName))
		}
	}
	if len(es) != 2 {
		t.Fatalf("%d files, want 2 overlapping ones", len(es))
	}
	if _, err := Compact(tbl, CompactOptions{Full: true, TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	es = liveEntries(t, tbl)
	if len(es) != 1 || es[0].File.Level == 0 || codec(es[0].File.FileName) != pformat.Zstd {
		t.Fatalf("compacted file: level %d, codec %v", es[0].File.Level, codec(es[0].File.FileName))
	}
	if _, err := Create(nil, t.TempDir(), pkSchema(), nil, map[string]string{"file.compression.per.level": "zero:snappy"}, "", 0); err == nil ||
		!strings.Contains(err.Error(), "Could not parse value 'zero:snappy' for key 'file.compression.per.level'.") {
		t.Fatalf("bad map: %v", err)
	}
}

// commit.user-prefix prefixes the commit user of the snapshots a sink and
// a compaction commit (CoreOptions.createCommitUser: <prefix>_<uuid>).
func TestCommitUserPrefix(t *testing.T) {
	tbl, err := Create(nil, t.TempDir(), pkSchema(), nil, map[string]string{"bucket": "1", "commit.user-prefix": "etl"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSink(tbl, SinkOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sinkRun(t, s, 1, []sql.Row{row(sql.Insert, int64(1), "d", int32(1), "a")}, []sql.Row{row(sql.Insert, int64(1), "d", int32(2), "b")})
	if _, err := Compact(tbl, CompactOptions{Full: true, TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	ids, err := tbl.Snapshots.ListIDs()
	if err != nil || len(ids) < 2 {
		t.Fatalf("snapshots %v %v", ids, err)
	}
	for _, id := range ids {
		sn, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sn.CommitUser, "etl_") || len(sn.CommitUser) != len("etl_")+36 {
			t.Errorf("snapshot %d: commit user %q, want etl_<uuid>", id, sn.CommitUser)
		}
	}
}
