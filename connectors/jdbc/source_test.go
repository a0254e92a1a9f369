package jdbc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	"github.com/sqlrun/sqlrun/sql"
)

// allTypes is a table with every type the MySQL dialect supports.
func allTypes() sql.Schema {
	return sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "b", Type: sql.Boolean()},
		{Name: "ti", Type: sql.TinyInt()},
		{Name: "si", Type: sql.SmallInt()},
		{Name: "i", Type: sql.Int()},
		{Name: "f", Type: sql.Float()},
		{Name: "d", Type: sql.Double()},
		{Name: "dec", Type: sql.Decimal(12, 3)},
		{Name: "c", Type: sql.Char(3)},
		{Name: "vc", Type: sql.VarChar(20)},
		{Name: "s", Type: sql.String()},
		{Name: "by", Type: sql.Bytes()},
		{Name: "dt", Type: sql.Date()},
		{Name: "tm", Type: sql.Time(3)},
		{Name: "ts", Type: sql.Timestamp(6)},
		{Name: "ts0", Type: sql.Timestamp(0)},
	}, PrimaryKey: []string{"id"}}
}

// TestRoundTripAndPartitionedScan writes every supported type through the
// sink and reads it back through a scan split over three subtasks: the
// values come back as the same Go types and print the same.
func TestRoundTripAndPartitionedScan(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	schema := allTypes()
	var cols []string
	for _, c := range schema.Columns {
		ct, err := (dialect.MySQL{}).ColumnType(c.Type)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, "`"+c.Name+"` "+ct)
	}
	s.Exec(t, "CREATE TABLE `"+db+"`.all_types ("+strings.Join(cols, ", ")+", PRIMARY KEY (id))")
	opts := tableOptions(s, db, OptTableName, "all_types")
	w := openWriter(t, newSink(t, schema, opts), nil)
	var want []string
	for id := int64(1); id <= 300; id++ {
		vals := []any{id, id%2 == 0, int8(id % 100), int16(-id), int32(id * 1000), float32(id) / 4, float64(id) / 3,
			dec(fmt.Sprintf("%d.125", id)), "ab", fmt.Sprintf("v'%d\\", id), "naïve ✓ " + fmt.Sprint(id), []byte{0, byte(id), 0xff},
			int32(19000 + id), int32(id*1000 + 7), sql.TimestampData{Millis: 1704189600000 + id*1001, NanoOfMilli: 123000}, sql.TimestampData{Millis: 1704189600000 + id*1000}}
		if id%50 == 0 {
			for i := 1; i < len(vals); i++ {
				vals[i] = nil
			}
		}
		r := sql.Row{Kind: sql.Insert, Values: vals}
		write(t, w, r)
		want = append(want, sql.FormatRow(r, schema.Types()))
	}
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	opts[OptScanPartitionColumn], opts[OptScanPartitionNum] = "id", "4"
	opts[OptScanPartitionLower], opts[OptScanPartitionUpper] = "1", "300"
	opts[OptScanFetchSize] = "7"
	ts, err := Factory{}.CreateSource(ctxFor(schema, opts))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for sub := 0; sub < 3; sub++ {
		r, err := ts.NewReader(sub, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Open(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		for {
			rows, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) > 7 {
				t.Fatalf("batch of %d rows above scan.fetch-size 7", len(rows))
			}
			for _, row := range rows {
				got = append(got, sql.FormatRow(row, schema.Types()))
			}
		}
		r.Close()
	}
	sort.Strings(got)
	sort.Strings(want)
	eq(t, "row count", len(got), len(want))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestScanProjectionAndRestore: a projected scan reads only the asked
// columns, and a reader restored from its snapshot skips finished splits.
func TestScanProjectionAndRestore(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	s.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (1, 1.50, 'A'), (2, 2.50, 'B'), (3, NULL, 'C'), (4, 4.00, NULL)")
	opts := tableOptions(s, db, OptScanPartitionColumn, "id", OptScanPartitionNum, "2",
		OptScanPartitionLower, "1", OptScanPartitionUpper, "4")
	ts, err := Factory{}.CreateSource(ctxFor(ordersSchema(true), opts))
	if err != nil {
		t.Fatal(err)
	}
	src := ts.(*Source)
	src.ApplyProjection([]int{2, 0})
	read := func(state []byte) (string, []byte) {
		r, _ := src.NewReader(0, 1)
		if err := r.Open(context.Background(), state); err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		rows, err := r.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		snap, _ := r.Snapshot(1)
		var b strings.Builder
		for _, row := range rows {
			b.WriteString(sql.FormatRow(row, []sql.DataType{sql.String(), sql.BigInt()}) + " ")
		}
		return b.String(), snap
	}
	first, state := read(nil)
	eq(t, "first split", first, "+I[A, 1] +I[B, 2] ")
	second, _ := read(state)
	eq(t, "after restore", second, "+I[C, 3] +I[null, 4] ")
}
