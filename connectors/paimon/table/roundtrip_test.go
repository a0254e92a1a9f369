package table

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

func pkSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "dt", Type: sql.String()},
		{Name: "v", Type: sql.Int()}, {Name: "s", Type: sql.String()}}, PrimaryKey: []string{"id", "dt"}}
}

// writeCommit writes rows through a fresh TableWrite (restored from the
// latest snapshot) and commits them under identifier.
func writeCommit(t *testing.T, tbl *Table, user string, id int64, rows ...sql.Row) []CommitMessage {
	t.Helper()
	msgs := writeMessages(t, tbl, WriteOptions{TempDir: t.TempDir()}, rows...)
	if err := tbl.NewCommit(user).Commit(id, msgs, nil); err != nil {
		t.Fatal(err)
	}
	return msgs
}

// writeMessages writes rows with a new TableWrite and returns its commit
// messages (PrepareCommit as a batch job's end), uncommitted.
func writeMessages(t *testing.T, tbl *Table, o WriteOptions, rows ...sql.Row) []CommitMessage {
	t.Helper()
	w, err := tbl.NewWrite(o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func row(k sql.RowKind, vals ...any) sql.Row { return sql.Row{Kind: k, Values: vals} }

func mustRead(t *testing.T, tbl *Table) string {
	t.Helper()
	fresh, err := Open(tbl.FIO, tbl.Root, tbl.Options.Raw())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readAll(fresh, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(rows, "\n")
}

func TestRoundTripPartitionedPK(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Create(fs.NewLocal(), "file://"+dir, pkSchema(), []string{"dt"}, map[string]string{"bucket": "2", "connector": "paimon"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u1", 1,
		row(sql.Insert, int64(1001), "2026-01-01", int32(80), "CREATED"),
		row(sql.Insert, int64(1002), "2026-01-01", int32(10), "CREATED"),
		row(sql.Insert, int64(1003), "2026-01-02", int32(30), nil))
	writeCommit(t, tbl, "u1", 2,
		row(sql.UpdateBefore, int64(1001), "2026-01-01", int32(80), "CREATED"),
		row(sql.UpdateAfter, int64(1001), "2026-01-01", int32(100), "CREATED"),
		row(sql.Delete, int64(1002), "2026-01-01", int32(10), "CREATED"))
	got := mustRead(t, tbl)
	want := "+I[1001, 2026-01-01, 100, CREATED]\n+I[1003, 2026-01-02, 30, null]"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A replayed identifier is skipped.
	before, _, _ := tbl.Snapshots.LatestID()
	writeCommit(t, tbl, "u1", 2, row(sql.Insert, int64(5), "x", int32(5), "dup"))
	after, _, _ := tbl.Snapshots.LatestID()
	if before != after {
		t.Fatalf("replayed identifier created snapshot %d", after)
	}
	s, _ := tbl.Snapshots.Latest()
	if s.CommitKind != "APPEND" || *s.TotalRecordCount != 5 || *s.DeltaRecordCount != 2 {
		t.Fatalf("snapshot %+v", s)
	}
	// full compaction through the compaction entry point
	w, _ := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
	if err := w.Compact(true, nil); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := tbl.NewCommit("c").Commit(1, msgs, nil); err != nil {
		t.Fatal(err)
	}
	s, _ = tbl.Snapshots.Latest()
	if s.CommitKind != "COMPACT" {
		t.Fatalf("want COMPACT, got %s", s.CommitKind)
	}
	if got := mustRead(t, tbl); got != want {
		t.Fatalf("after compaction got\n%s", got)
	}
	if *s.TotalRecordCount != 2 {
		t.Fatalf("total after full compaction %d, want 2", *s.TotalRecordCount)
	}
}

func TestAppendTable(t *testing.T) {
	dir := t.TempDir()
	sch := sql.Schema{Columns: []sql.Column{{Name: "a", Type: sql.Int()}, {Name: "b", Type: sql.String()}}}
	tbl, err := Create(nil, dir, sch, nil, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "u", 1, row(sql.Insert, int32(1), "x"), row(sql.UpdateAfter, int32(2), "y"))
	writeCommit(t, tbl, "u", 2, row(sql.Insert, int32(1), "x"))
	if got, want := mustRead(t, tbl), "+I[1, x]\n+I[1, x]\n+I[2, y]"; got != want {
		t.Fatalf("got\n%s", got)
	}
	w, _ := tbl.NewWrite(WriteOptions{})
	defer w.Close()
	err = w.Write(row(sql.Delete, int32(1), "x"))
	want := "Append-only writer can only accept insert or update_after row kind, but current row kind is: DELETE. You can configure 'ignore-delete' to ignore retract records."
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v", err)
	}
}
