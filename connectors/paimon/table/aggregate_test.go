package table

import (
	"fmt"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/sql"
)

// TestAggregateReadsColumns: with ReadOptions.Aggregate a split reader
// yields one partial aggregate per file it reads raw (computed from the
// file's pages, format.File.Aggregate) and one per row of the sections it
// merges; merged, the partials are the aggregates of the rows the reader
// yields without it. The bucket has three files of new keys; an update
// and a delete overlap the second, which is merged with them, the other
// two are read raw.
func TestAggregateReadsColumns(t *testing.T) {
	tbl, err := Create(nil, t.TempDir(), tmSchema(), nil, map[string]string{"bucket": "1", "write-only": "true",
		"num-sorted-run.stop-trigger": "100"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	id := int64(0)
	for f := int32(0); f < 3; f++ {
		var rows []sql.Row
		for k := f * 1000; k < (f+1)*1000; k++ {
			var v, s any = int64(k % 7), fmt.Sprint("s", k)
			if k%5 == 0 {
				v, s = nil, nil
			}
			rows = append(rows, row(sql.Insert, k, "a", v, s))
		}
		id++
		writeCommit(t, tbl, "u", id, rows...)
	}
	id++
	writeCommit(t, tbl, "u", id, row(sql.Insert, int32(1500), "a", int64(100), "zz"))
	id++
	writeCommit(t, tbl, "u", id, row(sql.Delete, int32(1501), "a", nil, nil))
	s, err := tbl.ResolveSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil || len(splits) != 1 {
		t.Fatalf("splits %d: %v", len(splits), err)
	}
	calls := []format.AggCall{{Kind: format.AggCountStar}, {Kind: format.AggCount, Arg: 1}, {Kind: format.AggMax, Arg: 1},
		{Kind: format.AggSum, Arg: 1}, {Kind: format.AggMin, Arg: 2}, {Kind: format.AggMax, Arg: 0}}
	proj := []int{0, 2, 3}
	read := func(o ReadOptions) [][]any {
		t.Helper()
		r, err := tbl.NewSplitReader(splits[0], o)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]any
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			if row.Kind != sql.Insert {
				t.Fatalf("row %v", row)
			}
			out = append(out, row.Values)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	merge := func(parts [][]any) string {
		acc := make([]any, len(calls))
		for _, p := range parts {
			for i, c := range calls {
				switch v := p[i]; {
				case v == nil:
				case acc[i] == nil:
					acc[i] = v
				case c.Kind == format.AggCountStar || c.Kind == format.AggCount || c.Kind == format.AggSum:
					acc[i] = acc[i].(int64) + v.(int64)
				case c.Kind == format.AggMax && less(acc[i], v), c.Kind == format.AggMin && less(v, acc[i]):
					acc[i] = v
				}
			}
		}
		return fmt.Sprint(acc)
	}
	rows := read(ReadOptions{Projection: proj})
	var perRow [][]any
	for _, r := range rows {
		perRow = append(perRow, format.Partial(calls, r))
	}
	want := merge(perRow)
	if want != "[2999 2400 100 7291 s1 2999]" {
		t.Fatalf("aggregates of the rows: %s", want)
	}
	parts := read(ReadOptions{Projection: proj, Aggregate: calls})
	// Two raw files, one partial each; the merged section's rows (keys
	// 1000..1999 but the deleted one) one partial each.
	if len(parts) != 2+999 {
		t.Fatalf("%d partials, want %d (2 raw files, 999 merged rows)", len(parts), 2+999)
	}
	if got := merge(parts); got != want {
		t.Fatalf("merged partials %s, aggregates of the rows %s", got, want)
	}
	useColumnPath = false
	defer func() { useColumnPath = true }()
	parts = read(ReadOptions{Projection: proj, Aggregate: calls})
	if len(parts) != len(rows) {
		t.Fatalf("without the column path: %d partials for %d rows", len(parts), len(rows))
	}
	if got := merge(parts); got != want {
		t.Fatalf("merged partials of rows %s, aggregates of the rows %s", got, want)
	}
}

// less orders two values of one type (int32, int64 or string).
func less(a, b any) bool {
	switch x := a.(type) {
	case int32:
		return x < b.(int32)
	case int64:
		return x < b.(int64)
	}
	return a.(string) < b.(string)
}
