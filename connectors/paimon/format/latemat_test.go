package format

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
)

// TestFilteredLateMaterialization: FilteredRows tests the filter's columns
// first and boxes the other columns only for the rows that pass, leaving
// pages none of whose rows pass unread (issue 24). Over writeDiff's file
// (four row groups of 2 KiB pages: nulls, dictionaries, PLAIN, DELTA_LENGTH
// and, through parquet-go, DELTA_BYTE_ARRAY and DELTA_BINARY_PACKED
// columns), 20 random filters (ranges, IS NULL, ORs across columns) on
// random projections (reordered, a column twice) must give exactly the
// rows of Rows that Keep keeps, with the page decoder on and off, lean or
// not, with and without a deletion vector; and a selective range on the
// sorted key must leave the other columns' pages unread.
func TestFilteredLateMaterialization(t *testing.T) {
	const n = 2500
	data, _ := writeDiff(t, n, &zstd.Codec{})
	fields := diffFields()
	r := rand.New(rand.NewPCG(24, 1))
	del := posSet{}
	for p := int64(0); p < n; p += 5 {
		del[p] = true
	}
	// A value of field f of the file, to build ranges around.
	sample := readAll(t, data, fields, true)
	randPred := func(proj []schema.Field, f int) Pred {
		if r.IntN(8) == 0 {
			return Pred{Field: f, IsNull: true}
		}
		col := -1
		for i, ff := range fields {
			if ff.ID == proj[f].ID {
				col = i
			}
		}
		var lo, hi PredBound
		pick := func() any { return sample[r.IntN(len(sample))][col] }
		a, b := pick(), pick()
		for a == nil || b == nil {
			a, b = pick(), pick()
		}
		switch x := a.(type) {
		case string:
			y := b.(string)
			if y < x {
				x, y = y, x
			}
			lo, hi = PredBound{Str: []byte(x), Closed: r.IntN(2) == 0}, PredBound{Str: []byte(y), Closed: r.IntN(2) == 0}
		default:
			xi, yi := toInt64(x), toInt64(b)
			if yi < xi {
				xi, yi = yi, xi
			}
			lo, hi = PredBound{Int: xi, Closed: r.IntN(2) == 0}, PredBound{Int: yi, Closed: r.IntN(2) == 0}
		}
		switch r.IntN(4) {
		case 0:
			lo = PredBound{Unbounded: true}
		case 1:
			hi = PredBound{Unbounded: true}
		}
		return Pred{Field: f, Ranges: []PredRange{{Lo: lo, Hi: hi}}}
	}
	some := 0 // cases whose filter keeps some rows and drops others
	for c := 0; c < 20; c++ {
		proj := append([]schema.Field(nil), fields...)
		r.Shuffle(len(proj), func(i, j int) { proj[i], proj[j] = proj[j], proj[i] })
		proj = proj[:3+r.IntN(len(proj)-2)]
		if r.IntN(3) == 0 {
			proj = append(proj, proj[r.IntN(len(proj))])
		}
		var filter []Pred
		for k := 1 + r.IntN(3); k > 0; k-- {
			fi := r.IntN(len(proj))
			if r.IntN(4) == 0 {
				filter = append(filter, Pred{Or: []Pred{randPred(proj, fi), randPred(proj, r.IntN(len(proj)))}})
				continue
			}
			filter = append(filter, randPred(proj, fi))
		}
		for _, deleted := range []DeletionVector{nil, del} {
			want := kept(t, data, proj, filter, deleted)
			for _, decoder := range []bool{true, false} {
				for _, lean := range []bool{false, true} {
					name := fmt.Sprintf("case %d (decoder %v, lean %v, deleted %v)", c, decoder, lean, deleted != nil)
					got, _ := filtered(t, data, proj, filter, deleted, decoder, lean)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: %d rows, want %d (the rows of Rows that pass %+v)", name, len(got), len(want), filter)
					}
				}
			}
			if len(want) > 0 && len(want) < n*4/5 {
				some++
			}
		}
	}
	if some < 12 {
		t.Errorf("only %d of 40 reads keep some rows and drop others", some)
	}
	// A key range: the other columns' pages outside it are not read.
	proj := []schema.Field{fields[2], fields[0], fields[8], fields[3]}
	filter := []Pred{{Field: 1, Ranges: []PredRange{{Lo: PredBound{Int: 1000, Closed: true}, Hi: PredBound{Int: 1100, Closed: true}}}}}
	want := kept(t, data, proj, filter, del)
	got, skipped := filtered(t, data, proj, filter, del, true, false)
	if !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Fatalf("key range: %d rows, want %d", len(got), len(want))
	}
	if skipped == 0 {
		t.Errorf("key range: no page left unread")
	}
}

// kept reads data's rows through Rows and keeps those Keep keeps.
func kept(t *testing.T, data []byte, proj []schema.Field, filter []Pred, deleted DeletionVector) (want [][]any) {
	t.Helper()
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.Rows(Projection{FileFields: diffFields(), Fields: proj, Deleted: deleted})
	if err != nil {
		t.Fatal(err)
	}
	for row := all.Next(); row != nil; row = all.Next() {
		if Keep(filter, row) {
			want = append(want, row)
		}
	}
	if err := all.Error(); err != nil {
		t.Fatal(err)
	}
	return want
}

// filtered reads data's rows through FilteredRows, and how many pages it
// left unread.
func filtered(t *testing.T, data []byte, proj []schema.Field, filter []Pred, deleted DeletionVector, decoder, lean bool) (got [][]any, skipped int) {
	t.Helper()
	defer func(old bool) { usePageDecoder = old }(usePageDecoder)
	usePageDecoder = decoder
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	it, ok, err := f.FilteredRows(Projection{FileFields: diffFields(), Fields: proj, Deleted: deleted}, filter)
	if err != nil || !ok {
		t.Fatalf("FilteredRows %v, %v", ok, err)
	}
	it.rr.lean = lean
	for row := it.Next(); row != nil; row = it.Next() {
		got = append(got, row)
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	return got, it.rr.pagesSkipped
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	panic(fmt.Sprintf("not an integer: %T", v))
}

// TestFilterRangeMatchesPred: filterRange (the column path's test of one
// range, bounds decided once) marks exactly the rows Pred.passes fails,
// for every integer kind and strings, open, closed and unbounded ends,
// bounds at the int64 extremes, nulls and rows already marked.
func TestFilterRangeMatchesPred(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 2))
	ints := []int64{math.MinInt64, math.MinInt64 + 1, -129, -128, -1, 0, 1, 127, 128, math.MaxInt32, math.MaxInt64 - 1, math.MaxInt64}
	strs := []string{"", "0", "7", "8", "80", "9", "a", "ab", "b", "\xff"}
	bound := func(str bool) PredBound {
		if r.IntN(5) == 0 {
			return PredBound{Unbounded: true}
		}
		if str {
			return PredBound{Str: []byte(strs[r.IntN(len(strs))]), Closed: r.IntN(2) == 0}
		}
		return PredBound{Int: ints[r.IntN(len(ints))], Closed: r.IntN(2) == 0}
	}
	for c := 0; c < 3000; c++ {
		kind := []bulkKind{bulkInt8, bulkInt32, bulkInt64, bulkString}[r.IntN(4)]
		v := &vecCol{kind: kind, src: &pageData{}}
		const rows = 40
		for i := 0; i < rows; i++ {
			x := ints[r.IntN(len(ints))]
			v.src.i32 = append(v.src.i32, int32(x))
			v.src.i64 = append(v.src.i64, x)
			v.src.offs = append(v.src.offs, uint32(len(v.src.data)))
			v.src.data = append(v.src.data, strs[r.IntN(len(strs))]...)
		}
		v.src.offs = append(v.src.offs, uint32(len(v.src.data)))
		gid := make([]int32, rows)
		for j := range gid {
			v.at = append(v.at, int32(r.IntN(rows)))
			switch r.IntN(6) {
			case 0:
				v.at[j] = -1
			case 1:
				gid[j] = -1
			}
		}
		p := Pred{Ranges: []PredRange{{Lo: bound(kind == bulkString), Hi: bound(kind == bulkString)}}}
		want := append([]int32(nil), gid...)
		for j, k := range v.at {
			if want[j] >= 0 && !p.passes(v, k) {
				want[j] = -1
			}
		}
		filterRange(&p.Ranges[0], v, gid)
		if !reflect.DeepEqual(gid, want) {
			t.Fatalf("kind %d, range %+v: %v, want %v", kind, p.Ranges[0], gid, want)
		}
	}
}

// TestAggregateMatchesRows: the column path (File.Aggregate: PLAIN string
// pages read in place, the filter's one-range tests, the other columns'
// pages decoded only where a row passes) gives, for a key range and
// random filters, the COUNT(*), COUNT, MIN and MAX of every column the
// page decoder reads that the rows of Rows that Keep keeps give, and
// leaves pages outside the key range unread.
func TestAggregateMatchesRows(t *testing.T) {
	const n = 2500
	data, _ := writeDiff(t, n, &zstd.Codec{})
	var proj []schema.Field
	for _, f := range diffFields() {
		if f.Name != "g_x" && f.Name != "h_l" { // parquet-go's encodings: the row path
			proj = append(proj, f)
		}
	}
	calls := []AggCall{{Kind: AggCountStar}}
	for i := range proj {
		calls = append(calls, AggCall{Kind: AggCount, Arg: i}, AggCall{Kind: AggMin, Arg: i}, AggCall{Kind: AggMax, Arg: i})
	}
	r := rand.New(rand.NewPCG(24, 3))
	sample := kept(t, data, proj, nil, nil)
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 40; c++ {
		var filter []Pred
		for k := r.IntN(3); k > 0; k-- {
			fi := r.IntN(len(proj))
			v := sample[r.IntN(len(sample))][fi]
			var b PredBound
			switch x := v.(type) {
			case nil:
				filter = append(filter, Pred{Field: fi, IsNull: true})
				continue
			case string:
				b = PredBound{Str: []byte(x), Closed: r.IntN(2) == 0}
			default:
				b = PredBound{Int: toInt64(x), Closed: r.IntN(2) == 0}
			}
			rg := PredRange{Lo: b, Hi: PredBound{Unbounded: true}}
			if r.IntN(2) == 0 {
				rg = PredRange{Lo: PredBound{Unbounded: true}, Hi: b}
			}
			filter = append(filter, Pred{Field: fi, Ranges: []PredRange{rg}})
		}
		if c == 0 { // a key range: the other columns' pages outside it are not read
			filter = []Pred{{Field: 0, Ranges: []PredRange{{Lo: PredBound{Int: 1000, Closed: true}, Hi: PredBound{Int: 1100}}}}}
		}
		rows := kept(t, data, proj, filter, nil)
		want := make([]any, len(calls))
		for i, call := range calls {
			switch call.Kind {
			case AggCountStar:
				want[i] = int64(len(rows))
				continue
			case AggCount:
				want[i] = int64(0)
			}
			for _, row := range rows {
				v := row[call.Arg]
				if v == nil {
					continue
				}
				switch {
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
		parts, ok, err := f.Aggregate(Projection{FileFields: diffFields(), Fields: proj}, calls, filter)
		if err != nil || !ok || len(parts) != 1 {
			t.Fatalf("case %d: Aggregate %v, %v, %d partials", c, ok, err, len(parts))
		}
		if !reflect.DeepEqual(parts[0], want) {
			t.Fatalf("case %d, filter %+v:\n got %v\nwant %v", c, filter, parts[0], want)
		}
		if c == 0 && f.pagesSkipped == 0 {
			t.Errorf("key range: no page left unread")
		}
	}
}
