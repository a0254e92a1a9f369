package filesystem

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

var orders = sql.Schema{Columns: []sql.Column{
	{Name: "id", Type: sql.Int()}, {Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "status", Type: sql.String()}}}

func readAll(t *testing.T, src connectors.TableSource, state []byte, limit int) ([]sql.Row, []byte, error) {
	t.Helper()
	r, err := src.NewReader(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(context.Background(), state); err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var rows []sql.Row
	for limit < 0 || len(rows) < limit {
		b, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rows, nil, err
		}
		rows = append(rows, b...)
	}
	st, _ := r.Snapshot(1)
	return rows, st, nil
}

// TestRead: `read format=... [opts...]` with the file content as input
// prints the rows the source produces (or its error).
func TestRead(t *testing.T) {
	datadriven.RunTest(t, "testdata/read", func(t *testing.T, td *datadriven.TestData) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "data"), []byte(td.Input), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := map[string]string{"path": dir}
		for _, a := range td.CmdArgs {
			opts[a.Key] = strings.Join(a.Vals, ",")
		}
		src, err := Factory{}.CreateSource(&connectors.Context{Schema: orders, Options: opts})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		rows, _, err := readAll(t, src, nil, -1)
		var b strings.Builder
		fmtRows(&b, rows)
		b.WriteString("mode: " + src.ChangelogMode().String() + "\n")
		if err != nil {
			b.WriteString("error: " + strings.ReplaceAll(err.Error(), dir, "<dir>") + "\n")
		}
		return b.String()
	})
}

func fmtRows(b *strings.Builder, rows []sql.Row) {
	for _, r := range rows {
		b.WriteString(sql.FormatRow(r, orders.Types()))
		b.WriteByte('\n')
	}
}

func row(kind sql.RowKind, id int32, amount, status string) sql.Row {
	return sql.Row{Kind: kind, Values: []any{id, decimal.RequireFromString(amount), status}}
}

func visible(t *testing.T, dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// TestSinkCommitsOnCheckpoint: part files appear only when their
// checkpoint completes; what they hold reads back unchanged (debezium-json
// round trip, -U/+U written as d/c).
func TestSinkCommitsOnCheckpoint(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	opts := map[string]string{"path": dir, "format": "debezium-json"}
	sink, err := Factory{}.CreateSink(&connectors.Context{Schema: orders, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := sink.NewWriter(0, 1)
	if err := w.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	in := []sql.Row{row(sql.Insert, 1001, "80.00", "CREATED"), row(sql.UpdateBefore, 1001, "80.00", "CREATED"),
		row(sql.UpdateAfter, 1001, "100.00", "CREATED")}
	if err := w.Write(ctx, in); err != nil {
		t.Fatal(err)
	}
	st, _, err := w.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v := visible(t, dir); len(v) != 0 {
		t.Fatalf("visible before the checkpoint completed: %v", v)
	}
	// Rows after checkpoint 1, then a crash (no Close, no notify).
	if err := w.Write(ctx, []sql.Row{row(sql.Delete, 1001, "100.00", "CREATED")}); err != nil {
		t.Fatal(err)
	}
	// Restore from checkpoint 1: its file is committed, the later
	// in-progress file is discarded (its rows will be replayed).
	w2, _ := sink.NewWriter(0, 1)
	if err := w2.Open(ctx, st); err != nil {
		t.Fatal(err)
	}
	if v := visible(t, dir); len(v) != 1 || !strings.HasPrefix(v[0], "part-") {
		t.Fatalf("after restore: %v", v)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, ".part-*"))
	if len(hidden) != 0 {
		t.Fatalf("stale in-progress files: %v", hidden)
	}
	// Replay and finish normally.
	if err := w2.Write(ctx, []sql.Row{row(sql.Delete, 1001, "100.00", "CREATED")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w2.Snapshot(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := w2.NotifyCheckpointComplete(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	src, _ := Factory{}.CreateSource(&connectors.Context{Schema: orders, Options: opts})
	rows, _, err := readAll(t, src, nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmtRows(&b, rows)
	want := "+I[1001, 80.00, CREATED]\n-D[1001, 80.00, CREATED]\n+I[1001, 100.00, CREATED]\n-D[1001, 100.00, CREATED]\n"
	if b.String() != want {
		t.Fatalf("read back:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestSourceRestoresPosition(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 3000; i++ {
		lines = append(lines, `{"id":`+itoa(i)+`,"amount":1.5,"status":"x"}`)
	}
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(strings.Join(lines[:1500], "\n")), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(strings.Join(lines[1500:], "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "_SUCCESS"), []byte("not data"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("not data"), 0o644)
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: orders, Options: map[string]string{"path": dir, "format": "json"}})
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := readAll(t, src, nil, -1)
	if err != nil || len(all) != 3000 {
		t.Fatalf("%d rows, %v", len(all), err)
	}
	first, st, _ := readAll(t, src, nil, 2000)
	rest, _, err := readAll(t, src, st, -1)
	if err != nil || len(first)+len(rest) != 3000 || rest[0].Values[0] != all[len(first)].Values[0] {
		t.Fatalf("restore: %d + %d rows (%v)", len(first), len(rest), err)
	}
}

func itoa(i int) string { return decimal.NewFromInt(int64(i)).String() }

func TestCSVSinkRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	opts := map[string]string{"path": dir, "format": "csv", "csv.null-literal": "N/A"}
	sink, err := Factory{}.CreateSink(&connectors.Context{Schema: orders, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := sink.ChangelogMode(sql.All); m != sql.InsertOnly {
		t.Fatalf("csv sink mode %s", m)
	}
	w, _ := sink.NewWriter(0, 1)
	_ = w.Open(ctx, nil)
	in := []sql.Row{row(sql.Insert, 1, "1.50", `say "hi", ok`), {Kind: sql.Insert, Values: []any{int32(2), nil, nil}}}
	if err := w.Write(ctx, in); err != nil {
		t.Fatal(err)
	}
	_, _, _ = w.Snapshot(ctx, 7)
	_ = w.NotifyCheckpointComplete(ctx, 7)
	_ = w.Close(ctx)
	src, _ := Factory{}.CreateSource(&connectors.Context{Schema: orders, Options: opts})
	rows, _, err := readAll(t, src, nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmtRows(&b, rows)
	if want := "+I[1, 1.50, say \"hi\", ok]\n+I[2, null, null]\n"; b.String() != want {
		t.Fatalf("got %q", b.String())
	}
}

func TestTextForms(t *testing.T) {
	ts := sql.TimestampData{Millis: 1704189600500}
	for _, c := range []struct {
		v    any
		t    sql.DataType
		want string
	}{
		{ts, sql.Timestamp(3), "2024-01-02 10:00:00.5"},
		{sql.TimestampData{Millis: 1704189600000}, sql.Timestamp(3), "2024-01-02 10:00:00"},
		{ts, sql.TimestampLTZ(3), "2024-01-02 10:00:00.5Z"},
		{int32(19724), sql.Date(), "2024-01-02"},
		{int32(36000500), sql.Time(0), "10:00:00"},
		{decimal.RequireFromString("80"), sql.Decimal(10, 2), "80.00"},
		{[]byte("hi"), sql.Bytes(), "aGk="},
		{2.5, sql.Double(), "2.5"},
	} {
		got := connectors.FormatText(c.v, c.t)
		if got != c.want {
			t.Errorf("connectors.FormatText(%v, %s) = %q, want %q", c.v, c.t, got, c.want)
			continue
		}
		back, err := connectors.ParseText(got, c.t)
		if err != nil {
			t.Errorf("connectors.ParseText(%q, %s): %v", got, c.t, err)
			continue
		}
		if c.t.Root != sql.TypeTime && connectors.FormatText(back, c.t) != got {
			t.Errorf("round trip of %q gave %v", got, back)
		}
	}
	var b []byte
	b = connectors.AppendJSONObject(b, []any{int32(1), nil, []any{"a", int64(2)}, &sql.Map{Keys: []any{"k"}, Values: []any{int32(3)}}},
		[]sql.Column{{Name: "i", Type: sql.Int()}, {Name: "n", Type: sql.String()},
			{Name: "r", Type: sql.RowOf(sql.Field{Name: "s", Type: sql.String()}, sql.Field{Name: "l", Type: sql.BigInt()})},
			{Name: "m", Type: sql.MapOf(sql.String(), sql.Int())}})
	if want := `{"i":1,"n":null,"r":{"s":"a","l":2},"m":{"k":3}}`; string(b) != want {
		t.Fatalf("json %s, want %s", b, want)
	}
}

func TestMonitorInterval(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("1,1,a\n2,2,b\n"), 0o644)
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: orders,
		Options: map[string]string{"path": dir, "format": "csv", "source.monitor-interval": "10ms"}})
	if err != nil {
		t.Fatal(err)
	}
	if src.Bounded() {
		t.Fatal("a monitored source is unbounded")
	}
	ctx := context.Background()
	r, _ := src.NewReader(0, 1)
	if err := r.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	next := func() []sql.Row {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			rows, err := r.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) > 0 {
				return rows
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatal("no rows")
		return nil
	}
	if rows := next(); len(rows) != 2 {
		t.Fatalf("first file: %d rows", len(rows))
	}
	if rows, err := r.Next(ctx); err != nil || len(rows) != 0 {
		t.Fatalf("idle: %v %v", rows, err)
	}
	st, _ := r.Snapshot(1)
	os.WriteFile(filepath.Join(dir, "b.csv"), []byte("3,3,c\n"), 0o644)
	if rows := next(); len(rows) != 1 || rows[0].Values[0] != int32(3) {
		t.Fatalf("new file: %v", rows)
	}
	// Restored from before b.csv was read: b.csv is read, a.csv is not.
	r2, _ := src.NewReader(0, 1)
	if err := r2.Open(ctx, st); err != nil {
		t.Fatal(err)
	}
	r = r2
	if rows := next(); len(rows) != 1 || rows[0].Values[0] != int32(3) {
		t.Fatalf("after restore: %v", rows)
	}
}
