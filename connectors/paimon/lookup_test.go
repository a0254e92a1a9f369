package paimon

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// commitRows writes rows into the table at path as one commit.
func commitRows(t *testing.T, path string, id int64, rows ...sql.Row) {
	t.Helper()
	tb, err := table.Open(fs.NewLocal(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tb.NewWrite(table.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tb.NewCommit("lookup-test").Commit(id, msgs, nil); err != nil {
		t.Fatal(err)
	}
}

func lookupValues(t *testing.T, l connectors.Lookuper, key ...any) string {
	t.Helper()
	rows, err := l.Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, sql.FormatRow(sql.Row{Kind: sql.Insert, Values: r}, []sql.DataType{sql.BigInt(), sql.String()}))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestLookupSeesNewSnapshots is Paimon's FileStoreLookupFunction: the
// lookup reads the table's latest snapshot (merged: an update replaces the
// key's row, a delete removes it) and, once 'continuous.discovery-interval'
// has passed, the rows committed after the join started; by primary key
// and, as Paimon's secondary index, by another field. The clock is the
// test's.
func TestLookupSeesNewSnapshots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "customers")
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}},
		PrimaryKey: []string{"id"}}
	if _, err := table.Create(fs.NewLocal(), path, s, nil, map[string]string{"bucket": "2"}, "", time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	commitRows(t, path, 1, sql.NewRow(int64(7), "Ann"), sql.NewRow(int64(9), "Bob"))
	ctx := ctxFor(true, true, map[string]string{"connector": "paimon", "path": path,
		"continuous.discovery-interval": "5 s"})
	src, err := Factory{}.CreateSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ls, ok := src.(connectors.LookupSource)
	if !ok {
		t.Fatal("the paimon source is not a LookupSource")
	}
	byID, err := ls.NewLookuper(context.Background(), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	byName, err := ls.NewLookuper(context.Background(), []int{1})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	for _, l := range []connectors.Lookuper{byID, byName} {
		l.(*Lookuper).Now = func() time.Time { return now }
	}
	if got := lookupValues(t, byID, int64(7)); got != "+I[7, Ann]" {
		t.Fatalf("lookup 7 = %q", got)
	}
	if got := lookupValues(t, byName, "Bob"); got != "+I[9, Bob]" {
		t.Fatalf("lookup Bob = %q", got)
	}
	// Committed after the join started: an update, a delete, a new key.
	commitRows(t, path, 2, sql.Row{Kind: sql.UpdateAfter, Values: []any{int64(7), "Anna"}},
		sql.Row{Kind: sql.Delete, Values: []any{int64(9), "Bob"}}, sql.NewRow(int64(11), "Bob"))
	if got := lookupValues(t, byID, int64(11)); got != "" {
		t.Fatalf("lookup 11 before the discovery interval = %q, want the old snapshot's (none)", got)
	}
	now = now.Add(5 * time.Second)
	if got := lookupValues(t, byID, int64(7)); got != "+I[7, Anna]" {
		t.Fatalf("lookup 7 after the commit = %q", got)
	}
	if got := lookupValues(t, byID, int64(9)); got != "" {
		t.Fatalf("lookup 9 after its delete = %q", got)
	}
	if got := lookupValues(t, byID, int64(11)); got != "+I[11, Bob]" {
		t.Fatalf("lookup 11 after the commit = %q", got)
	}
	if got := lookupValues(t, byName, "Bob"); got != "+I[11, Bob]" {
		t.Fatalf("lookup Bob after the commit = %q", got)
	}
	// No new snapshot: the index is not rebuilt.
	l := byID.(*Lookuper)
	loads := l.Loads
	now = now.Add(time.Minute)
	lookupValues(t, byID, int64(7))
	if l.Loads != loads {
		t.Fatalf("the index was rebuilt without a new snapshot (%d loads, want %d)", l.Loads, loads)
	}
	for _, l := range []connectors.Lookuper{byID, byName} {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
