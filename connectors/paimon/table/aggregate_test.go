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
	tbl, split := threeFileBucket(t)
	calls := []format.AggCall{{Kind: format.AggCountStar}, {Kind: format.AggCount, Arg: 1}, {Kind: format.AggMax, Arg: 1},
		{Kind: format.AggSum, Arg: 1}, {Kind: format.AggMin, Arg: 2}, {Kind: format.AggMax, Arg: 0}}
	proj := []int{0, 2, 3}
	read := func(o ReadOptions) [][]any { return readSplit(t, tbl, split, o) }
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

// TestFilteredReadSkipsFiles: a filtered read leaves unread the files
// its filter excludes by their manifest value statistics (fileMayPass,
// as Paimon's scan drops files by a pushed predicate), counted by
// FilesSkipped, and its answer is the filter applied to every row. The
// bucket is TestAggregateReadsColumns's: files of keys 0..999 and
// 2000..2999 read raw, 1000..1999 merged with an update and a delete
// (never skipped: a merged file's statistics include rows the merge
// replaces).
func TestFilteredReadSkipsFiles(t *testing.T) {
	tbl, split := threeFileBucket(t)
	proj := []int{0, 2, 3}
	calls := []format.AggCall{{Kind: format.AggCountStar}, {Kind: format.AggSumBigInt, Arg: 1}, {Kind: format.AggMax, Arg: 2}}
	read := func(o ReadOptions) [][]any { return readSplit(t, tbl, split, o) }
	// merge sums the COUNT(*) and SUM partials and keeps the MAX.
	merge := func(parts [][]any) string {
		var n, sum int64
		var mx any
		for _, p := range parts {
			n += p[0].(int64)
			if p[1] != nil {
				sum += p[1].(int64)
			}
			if p[2] != nil && (mx == nil || less(mx, p[2])) {
				mx = p[2]
			}
		}
		return fmt.Sprint(n, sum, mx)
	}
	rows := read(ReadOptions{Projection: proj})
	ints := func(lo, hi int64) format.PredRange {
		return format.PredRange{Lo: format.PredBound{Int: lo, Closed: true}, Hi: format.PredBound{Int: hi, Closed: true}}
	}
	for _, c := range []struct {
		name    string
		filter  []format.Pred
		skipped int64
	}{
		{"k >= 2500", []format.Pred{{Field: 0, Ranges: []format.PredRange{{Lo: format.PredBound{Int: 2500, Closed: true}, Hi: format.PredBound{Unbounded: true}}}}}, 1},
		{"k BETWEEN 10 AND 20", []format.Pred{{Field: 0, Ranges: []format.PredRange{ints(10, 20)}}}, 1},
		{"k = 999 OR k = 2000 (SEARCH)", []format.Pred{{Field: 0, Ranges: []format.PredRange{ints(999, 999), ints(2000, 2000)}}}, 0},
		{"k < 0", []format.Pred{{Field: 0, Ranges: []format.PredRange{{Lo: format.PredBound{Unbounded: true}, Hi: format.PredBound{Int: 0}}}}}, 2},
		{"v > 6", []format.Pred{{Field: 1, Ranges: []format.PredRange{{Lo: format.PredBound{Int: 6}, Hi: format.PredBound{Unbounded: true}}}}}, 2},
		{"v >= 6", []format.Pred{{Field: 1, Ranges: []format.PredRange{{Lo: format.PredBound{Int: 6, Closed: true}, Hi: format.PredBound{Unbounded: true}}}}}, 0},
		{"s = 'zz'", []format.Pred{{Field: 2, Ranges: []format.PredRange{{Lo: format.PredBound{Str: []byte("zz"), Closed: true}, Hi: format.PredBound{Str: []byte("zz"), Closed: true}}}}}, 2},
		{"s IS NULL", []format.Pred{{Field: 2, IsNull: true}}, 0},
		{"k < 0 AND s IS NULL", []format.Pred{{Field: 2, IsNull: true}, {Field: 0, Ranges: []format.PredRange{{Lo: format.PredBound{Unbounded: true}, Hi: format.PredBound{Int: 0}}}}}, 2},
		{"k < 0 OR v > 6", []format.Pred{{Or: []format.Pred{{Field: 0, Ranges: []format.PredRange{{Lo: format.PredBound{Unbounded: true}, Hi: format.PredBound{Int: 0}}}},
			{Field: 1, Ranges: []format.PredRange{{Lo: format.PredBound{Int: 6}, Hi: format.PredBound{Unbounded: true}}}}}}}, 2},
		{"k < 0 OR s IS NULL", []format.Pred{{Or: []format.Pred{{Field: 0, Ranges: []format.PredRange{{Lo: format.PredBound{Unbounded: true}, Hi: format.PredBound{Int: 0}}}},
			{Field: 2, IsNull: true}}}}, 0},
		{"k BETWEEN 10 AND 20 OR v > 6", []format.Pred{{Or: []format.Pred{{Field: 0, Ranges: []format.PredRange{ints(10, 20)}},
			{Field: 1, Ranges: []format.PredRange{{Lo: format.PredBound{Int: 6}, Hi: format.PredBound{Unbounded: true}}}}}}}, 1},
	} {
		var kept [][]any
		for _, r := range rows {
			if format.Keep(c.filter, r) {
				kept = append(kept, format.Partial(calls, r))
			}
		}
		want := merge(kept)
		before := FilesSkipped()
		got := merge(read(ReadOptions{Projection: proj, Aggregate: calls, Filter: c.filter}))
		if skipped := FilesSkipped() - before; skipped != c.skipped {
			t.Errorf("%s: %d files skipped, want %d", c.name, skipped, c.skipped)
		}
		if got != want {
			t.Errorf("%s: %s, the rows that pass give %s", c.name, got, want)
		}
	}
}

// threeFileBucket is the bucket TestAggregateReadsColumns and
// TestFilteredReadSkipsFiles read: three files of new keys (0..999,
// 1000..1999, 2000..2999; every fifth value NULL), then an update of key
// 1500 and a delete of key 1501 that overlap the second; its one split.
func threeFileBucket(t *testing.T) (*Table, Split) {
	t.Helper()
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
	return tbl, splits[0]
}

// readSplit reads a split's rows, all inserts in a batch read.
func readSplit(t *testing.T, tbl *Table, split Split, o ReadOptions) [][]any {
	t.Helper()
	r, err := tbl.NewSplitReader(split, o)
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
