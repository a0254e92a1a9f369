package format

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// pageIndexFile is a file sqlrun writes (with page indexes, one row group)
// of rows in pages of about 20,000 rows: k ascending, s random strings, n
// null in rows [30000, 75000) (a page of nulls only among them) and twice
// k elsewhere, t a TINYINT of few values.
func pageIndexFile(t *testing.T, rows int) ([]byte, []schema.Field) {
	t.Helper()
	fields := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}, {ID: 1, Name: "s", Type: sql.String()},
		{ID: 2, Name: "n", Type: sql.BigInt()}, {ID: 3, Name: "t", Type: sql.TinyInt()}}
	r := rand.New(rand.NewPCG(24, 9))
	var buf bytes.Buffer
	w, err := NewAppendWriter(&buf, fields, 0, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		var n any
		if i < 30_000 || i >= 75_000 {
			n = int64(i * 2)
		}
		var s any = fmt.Sprintf("%08x", r.Uint32())
		if i%97 == 0 {
			s = nil
		}
		if err := w.Write([]any{int32(i), s, n, int8(i % 7)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), fields
}

// aggregateOf opens data and runs Aggregate, with page indexes read or not;
// it returns the one partial and the pages left unread.
func aggregateOf(t *testing.T, data []byte, fields []schema.Field, calls []AggCall, filter []Pred, index bool) ([]any, int) {
	t.Helper()
	defer func(old bool) { usePageIndex = old }(usePageIndex)
	usePageIndex = index
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-p-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	parts, ok, err := f.Aggregate(Projection{FileFields: fields, Fields: fields}, calls, filter)
	if err != nil || !ok || len(parts) != 1 {
		t.Fatalf("Aggregate: %v, %v, %d partials", ok, err, len(parts))
	}
	return parts[0], f.pagesSkipped
}

// TestPageIndexSkipsPages: a filtered aggregate on the column path reads
// the ColumnIndex of the filter's column and leaves unread the pages whose
// bounds exclude it, the filter column's own among them: a key range
// within one of five pages reads one page of k (the old code read all
// five, as the filter's columns were always decoded, and left none
// unread); a range of n passes over its page of nulls only and the pages
// whose bounds miss it, IS NULL the pages without nulls, an OR the pages
// neither of its tests' pages can pass.
func TestPageIndexSkipsPages(t *testing.T) {
	data, fields := pageIndexFile(t, 100_000)
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-p-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	ci := f.columnIndex(0, 2)
	if ci == nil || !slices.Contains(ci.NullPages, true) || len(ci.NullPages) != 5 {
		t.Fatalf("n's column index: %+v, want 5 pages, one of nulls only", ci)
	}
	calls := []AggCall{{Kind: AggCountStar}, {Kind: AggMax, Arg: 0}, {Kind: AggMin, Arg: 0}}
	rng := func(f int, lo, hi int64) Pred {
		return Pred{Field: f, Ranges: []PredRange{{Lo: PredBound{Int: lo, Closed: true}, Hi: PredBound{Int: hi, Closed: true}}}}
	}
	for _, c := range []struct {
		name   string
		filter []Pred
		want   []any
	}{
		{"k in one page", []Pred{rng(0, 30_000, 30_010)}, []any{int64(11), int32(30_010), int32(30_000)}},
		{"n within the nulls", []Pred{rng(2, 60_000, 149_998)}, []any{int64(0), nil, nil}},
		{"n IS NULL", []Pred{{Field: 2, IsNull: true}}, []any{int64(45_000), int32(74_999), int32(30_000)}},
		{"k or n", []Pred{{Or: []Pred{rng(0, 5, 6), rng(2, 170_000, 170_002)}}}, []any{int64(4), int32(85_001), int32(5)}},
	} {
		got, skipped := aggregateOf(t, data, fields, calls, c.filter, true)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		without, none := aggregateOf(t, data, fields, calls, c.filter, false)
		if !reflect.DeepEqual(without, c.want) {
			t.Errorf("%s without page indexes: %v, want %v", c.name, without, c.want)
		}
		if skipped <= none {
			t.Errorf("%s: %d pages left unread, %d without page indexes", c.name, skipped, none)
		}
		if c.name == "k in one page" && (skipped != 4 || none != 0) {
			t.Errorf("%s: %d pages left unread, want 4 (0 without page indexes: %d)", c.name, skipped, none)
		}
	}
}

// TestPageIndexMetamorphic: with page indexes read, the column path's
// answers to random filters (ranges on every column, IS NULL, ORs across
// columns, contradictions) over pageIndexFile are those of the unfiltered
// rows (Rows) filtered by Keep and folded, and those without page indexes.
func TestPageIndexMetamorphic(t *testing.T) {
	data, fields := pageIndexFile(t, 100_000)
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-p-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	it, err := f.Rows(Projection{FileFields: fields, Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	var all [][]any
	for row := it.Next(); row != nil; row = it.Next() {
		all = append(all, row)
	}
	if err := it.Error(); err != nil || len(all) != 100_000 {
		t.Fatalf("%d rows, %v", len(all), err)
	}
	calls := []AggCall{{Kind: AggCountStar}}
	for i := range fields {
		calls = append(calls, AggCall{Kind: AggCount, Arg: i}, AggCall{Kind: AggMin, Arg: i}, AggCall{Kind: AggMax, Arg: i})
	}
	r := rand.New(rand.NewPCG(24, 10))
	test := func() Pred {
		fi := r.IntN(len(fields))
		if (fi == 1 || fi == 2) && r.IntN(4) == 0 { // s has a few nulls in every page
			return Pred{Field: fi, IsNull: true}
		}
		v := all[r.IntN(len(all))][fi]
		for v == nil {
			v = all[r.IntN(len(all))][fi]
		}
		b := PredBound{Closed: r.IntN(2) == 0}
		if s, ok := v.(string); ok {
			b.Str = []byte(s)
		} else {
			b.Int = toInt64(v)
		}
		rg := PredRange{Lo: b, Hi: PredBound{Unbounded: true}}
		switch r.IntN(3) {
		case 0:
			rg = PredRange{Lo: PredBound{Unbounded: true}, Hi: b}
		case 1: // a narrow range: a few pages or none
			hi := b
			if b.Str != nil {
				hi.Str = append(bytes.Clone(b.Str), 0xff)
			} else {
				hi.Int += int64(r.IntN(3000))
			}
			hi.Closed = true
			rg = PredRange{Lo: b, Hi: hi}
		}
		return Pred{Field: fi, Ranges: []PredRange{rg}}
	}
	skippedAny := 0
	for c := 0; c < 60; c++ {
		var filter []Pred
		for k := 1 + r.IntN(2); k > 0; k-- {
			if r.IntN(4) == 0 {
				filter = append(filter, Pred{Or: []Pred{test(), test()}})
				continue
			}
			filter = append(filter, test())
		}
		want := make([]any, len(calls))
		for i, call := range calls {
			if call.Kind == AggCountStar || call.Kind == AggCount {
				want[i] = int64(0)
			}
		}
		for _, row := range all {
			if !Keep(filter, row) {
				continue
			}
			for i, call := range calls {
				if call.Kind == AggCountStar {
					want[i] = want[i].(int64) + 1
					continue
				}
				v := row[call.Arg]
				switch {
				case v == nil:
				case call.Kind == AggCount:
					want[i] = want[i].(int64) + 1
				case want[i] == nil:
					want[i] = v
				default:
					var less bool
					if s, ok := v.(string); ok {
						less = s < want[i].(string)
					} else {
						less = toInt64(v) < toInt64(want[i])
					}
					if less == (call.Kind == AggMin) && v != want[i] {
						want[i] = v
					}
				}
			}
		}
		got, skipped := aggregateOf(t, data, fields, calls, filter, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d, filter %+v:\n got %v\nwant %v", c, filter, got, want)
		}
		without, _ := aggregateOf(t, data, fields, calls, filter, false)
		if !reflect.DeepEqual(without, want) {
			t.Fatalf("case %d without page indexes, filter %+v:\n got %v\nwant %v", c, filter, without, want)
		}
		skippedAny += skipped
	}
	if skippedAny == 0 {
		t.Fatal("no page was left unread")
	}
}

// TestNullPageTrustedByNullCount: a column index entry marked null_pages
// is taken for a page of nulls only when its null count is the page's
// rows: sqlrun's writers before issue 24 marked a page whose least value
// was the empty string so (TestPageIndexEmptyStringMin), and its files
// must still read every row.
func TestNullPageTrustedByNullCount(t *testing.T) {
	p := Pred{Field: 0, Ranges: []PredRange{{Lo: PredBound{Unbounded: true}, Hi: PredBound{Str: []byte("b")}}}}
	for _, c := range []struct {
		nulls []int64
		rows  int
		want  bool
	}{{[]int64{10}, 10, false}, {[]int64{3}, 10, true}, {[]int64{0}, 10, true}, {nil, 10, true}} {
		ci := &pformat.ColumnIndex{NullPages: []bool{true}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}, NullCounts: c.nulls}
		v := &vecCol{kind: bulkString, ci: ci, pageNo: 0, rows: c.rows}
		if got := p.pageMayPass(v); got != c.want {
			t.Errorf("null page, null counts %v of %d rows: may pass %v, want %v", c.nulls, c.rows, got, c.want)
		}
	}
}

// TestFilteredRowsPageIndex: FilteredRows (the row path of a filtered
// read) tests its filter leaves' pages by their column indexes before it
// decodes them, as the column path does: over pageIndexFile, a key range
// within one of five pages, projecting the key alone, leaves four of
// its five pages unread (the old code decoded every page of a filter
// leaf), and 40 random filters give the unfiltered rows that Keep keeps,
// with and without page indexes.
func TestFilteredRowsPageIndex(t *testing.T) {
	data, fields := pageIndexFile(t, 100_000)
	read := func(proj []schema.Field, filter []Pred, index bool) ([][]any, int) {
		t.Helper()
		defer func(old bool) { usePageIndex = old }(usePageIndex)
		usePageIndex = index
		f, err := Open(bytes.NewReader(data), int64(len(data)), "data-p-0.parquet")
		if err != nil {
			t.Fatal(err)
		}
		it, ok, err := f.FilteredRows(Projection{FileFields: fields, Fields: proj}, filter)
		if err != nil || !ok {
			t.Fatalf("FilteredRows: %v, %v", ok, err)
		}
		var out [][]any
		for row := it.Next(); row != nil; row = it.Next() {
			out = append(out, row)
		}
		if err := it.Error(); err != nil {
			t.Fatal(err)
		}
		return out, it.rr.pagesSkipped
	}
	key := []Pred{{Field: 0, Ranges: []PredRange{{Lo: PredBound{Int: 30_000, Closed: true}, Hi: PredBound{Int: 30_010, Closed: true}}}}}
	rows, skipped := read(fields[:1], key, true)
	_, none := read(fields[:1], key, false)
	if len(rows) != 11 || skipped != 4 || none != 0 {
		t.Errorf("key range: %d rows, %d pages unread (%d without page indexes), want 11, 4 (0)", len(rows), skipped, none)
	}
	all, _ := read(fields, nil, false)
	if len(all) != 100_000 {
		t.Fatalf("%d rows", len(all))
	}
	r := rand.New(rand.NewPCG(24, 11))
	for c := 0; c < 40; c++ {
		fi := r.IntN(len(fields))
		v := all[r.IntN(len(all))][fi]
		for v == nil {
			v = all[r.IntN(len(all))][fi]
		}
		lo, hi := PredBound{Closed: true}, PredBound{Closed: true}
		if s, ok := v.(string); ok {
			lo.Str, hi.Str = []byte(s), append([]byte(s), 0xff)
		} else {
			lo.Int, hi.Int = toInt64(v), toInt64(v)+int64(r.IntN(5000))
		}
		filter := []Pred{{Field: fi, Ranges: []PredRange{{Lo: lo, Hi: hi}}}}
		if r.IntN(3) == 0 {
			filter = append(filter, Pred{Field: 2, IsNull: r.IntN(2) == 0})
			if !filter[1].IsNull {
				filter[1].Ranges = []PredRange{{Lo: PredBound{Unbounded: true}, Hi: PredBound{Int: 100_000}}}
			}
		}
		var want [][]any
		for _, row := range all {
			if Keep(filter, row) {
				want = append(want, row)
			}
		}
		for _, index := range []bool{true, false} {
			got, _ := read(fields, filter, index)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d (page indexes %v), filter %+v: %d rows, want %d", c, index, filter, len(got), len(want))
			}
		}
	}
}
