package systable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream/streamtest"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// TestGolden builds the seed's orders table (producer input: S1 inserts
// 1001 at 80.00, S2 updates it to 100.00 with a -D/+I changelog, S3
// compacts) and prints every system table:
//
//	query <name> [stream]   read <name> to the end (or until it waits)
//	  key=value             a table option hint per line (OPTIONS(...))
func TestGolden(t *testing.T) {
	old := time.Local
	time.Local = time.UTC // commit_time is local wall-clock time
	defer func() { time.Local = old }()

	w := streamtest.NewOrders(t, map[string]string{"changelog-producer": "input"})
	d := streamtest.Dec
	w.Commit(snapshot.Append, []streamtest.FileSpec{
		{Recs: []streamtest.Rec{streamtest.Ins(int32(1001), d("80.00"), "CREATED")}},
		{Changelog: true, Recs: []streamtest.Rec{streamtest.Ins(int32(1001), d("80.00"), "CREATED")}}})
	w.Commit(snapshot.Append, []streamtest.FileSpec{
		{Recs: []streamtest.Rec{streamtest.Ins(int32(1001), d("100.00"), "CREATED")}},
		{Changelog: true, Recs: []streamtest.Rec{streamtest.Del(int32(1001), d("80.00"), "CREATED"),
			streamtest.Ins(int32(1001), d("100.00"), "CREATED")}}})
	w.CompactAll([]streamtest.Rec{streamtest.Ins(int32(1001), d("100.00"), "CREATED")}, nil)
	if err := w.SM.WriteConsumer("job1", snapshot.Consumer{NextSnapshot: 3}); err != nil {
		t.Fatal(err)
	}

	datadriven.RunTest(t, "testdata/orders", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "query" {
			return "unknown command\n"
		}
		name := td.CmdArgs[0].Key
		streaming := len(td.CmdArgs) > 1 && td.CmdArgs[1].Key == "stream"
		var hints map[string]string // one 'key=value' hint per input line
		for _, l := range strings.Split(td.Input, "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
				if hints == nil {
					hints = map[string]string{}
				}
				hints[k] = v
			}
		}
		tab, ok, err := Lookup(w.FIO, w.Root, name, hints, streaming, nil)
		if !ok {
			return "no such system table\n"
		}
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		var cols []string
		for _, c := range tab.Schema.Columns {
			cols = append(cols, c.Name+" "+c.Type.String())
		}
		fmt.Fprintf(&b, "schema: %s (bounded=%v)\n", strings.Join(cols, ", "), tab.Bounded)
		r, err := tab.NewReader(0, 1)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		defer r.Close()
		if err := r.Open(context.Background(), nil); err != nil {
			return "error: " + err.Error() + "\n"
		}
		out := strings.ReplaceAll(readAll(t, r, tab.Schema.Types()), w.Root, "<table>")
		out = uuidRE.ReplaceAllString(out, "<uuid>")
		out = sizeRE.ReplaceAllString(out, "$1, <size>") // Avro+zstd of random names
		out = fileSizeRE.ReplaceAllString(out, "$1, <size>")
		return b.String() + out
	})
}

// uuidRE matches the random UUIDs of manifest and data file names.
var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// fileSizeRE masks file_size_in_bytes of $files: Parquet sizes depend on
// the writer library version, not on what this package does.
var fileSizeRE = regexp.MustCompile(`(\.parquet, parquet, \d+, \d+, \d+), \d+`)

var sizeRE = regexp.MustCompile(`(manifest-<uuid>-\d+), \d+`)

func readAll(t *testing.T, r interface {
	Next(context.Context) ([]sql.Row, error)
}, types []sql.DataType) string {
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		rows, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return b.String()
		}
		if err != nil {
			return b.String() + "error: " + err.Error() + "\n"
		}
		if rows == nil {
			return b.String() + "(waiting)\n"
		}
		for _, row := range rows {
			b.WriteString(sql.FormatRow(row, types) + "\n")
		}
	}
	return b.String()
}

func TestSplitAndNames(t *testing.T) {
	for _, c := range []struct{ in, base, sys string }{{"orders$snapshots", "orders", "snapshots"}, {"orders$AUDIT_LOG", "orders", "audit_log"}, {"orders", "orders", ""}, {"$x", "$x", ""}} {
		b, s, _ := Split(c.in)
		if b != c.base || s != c.sys {
			t.Errorf("Split(%q) = %q, %q", c.in, b, s)
		}
	}
	for _, n := range Names() {
		if _, ok := FixedSchema(n); !ok && n != AuditLog && n != RO {
			t.Errorf("no schema for %s", n)
		}
	}
}

// TestPartitionedGolden: a partitioned table written by the table layer;
// partitions print as Paimon casts a partition row to STRING ("{v}") and
// file paths carry the partition directory.
func TestPartitionedGolden(t *testing.T) {
	root := t.TempDir() + "/default.db/orders"
	tt, err := table.Create(nil, root, sql.Schema{Columns: []sql.Column{{Name: "order_id", Type: sql.Int().NotNull()},
		{Name: "dt", Type: sql.String().NotNull()}}, PrimaryKey: []string{"order_id", "dt"}}, []string{"dt"},
		map[string]string{"bucket": "1"}, "", 1_700_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := tt.NewWrite(table.WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	for _, r := range [][]any{{int32(1), "2024-01-01"}, {int32(2), "2024-01-02"}} {
		if err := tw.Write(sql.Row{Kind: sql.Insert, Values: r}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := tw.PrepareCommit(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := tt.NewCommit("u").Commit(1, msgs, nil); err != nil {
		t.Fatal(err)
	}
	datadriven.RunTest(t, "testdata/partitioned", func(t *testing.T, td *datadriven.TestData) string {
		var proj []int
		for _, a := range td.CmdArgs[1:] {
			for _, v := range strings.Split(a.Key, ",") {
				var n int
				fmt.Sscan(v, &n)
				proj = append(proj, n)
			}
		}
		tab, ok, err := Lookup(nil, root, td.CmdArgs[0].Key, nil, false, proj)
		if !ok || err != nil {
			return fmt.Sprintf("ok=%v err=%v\n", ok, err)
		}
		r, _ := tab.NewReader(0, 1)
		if err := r.Open(context.Background(), nil); err != nil {
			return "error: " + err.Error() + "\n"
		}
		out := strings.ReplaceAll(readAll(t, r, tab.Schema.Types()), root, "<table>")
		return sizeRE.ReplaceAllString(uuidRE.ReplaceAllString(out, "<uuid>"), "$1, <size>")
	})
}
