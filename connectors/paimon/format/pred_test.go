package format

import (
	"bytes"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"
)

// TestPredRowGroupSkipping checks the statistics test that lets the column
// path skip a row group (as Paimon's Parquet reader drops row groups by
// the pushed predicate, RowGroupFilter over the chunks' statistics)
// against the values themselves: over random range sets and random
// [min, max] bounds, mayHaveInt is true exactly when a value within the
// bounds passes hasInt, and mayHaveStr is true whenever a string within the
// bounds passes hasStr (never skips a row group that has a passing row).
func TestPredRowGroupSkipping(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	bound := func(v int64, s []byte) PredBound {
		if r.Intn(5) == 0 {
			return PredBound{Unbounded: true}
		}
		return PredBound{Int: v, Str: s, Closed: r.Intn(2) == 0}
	}
	words := []string{"", "a", "aa", "ab", "b", "ba", "bb", "c"}
	for n := 0; n < 5000; n++ {
		// Sorted disjoint ranges over 0..40 (and over words).
		var cuts []int
		for i, m := 0, 2*(1+r.Intn(3)); i < m; i++ {
			cuts = append(cuts, r.Intn(21))
		}
		sort.Ints(cuts)
		var p, ps Pred
		for i := 0; i+1 < len(cuts); i += 2 {
			// Even bounds: an open range between two has a value (odd).
			lo, hi := bound(2*int64(cuts[i]), nil), bound(2*int64(cuts[i+1]), nil)
			if i > 0 && lo.Unbounded {
				lo = PredBound{Int: 2 * int64(cuts[i]), Closed: false}
			}
			if i+2 < len(cuts) && hi.Unbounded {
				hi = PredBound{Int: 2 * int64(cuts[i+1]), Closed: false}
			}
			if !lo.Unbounded && !hi.Unbounded && lo.Int == hi.Int {
				lo.Closed, hi.Closed = true, true // a point, not an empty range
			}
			p.Ranges = append(p.Ranges, PredRange{Lo: lo, Hi: hi})
			wl, wh := words[cuts[i]%len(words)], words[cuts[i+1]%len(words)]
			if wl > wh {
				wl, wh = wh, wl
			}
			if i == 0 || len(ps.Ranges) == 0 || string(ps.Ranges[len(ps.Ranges)-1].Hi.Str) < wl {
				ps.Ranges = append(ps.Ranges, PredRange{Lo: PredBound{Str: []byte(wl), Closed: r.Intn(2) == 0},
					Hi: PredBound{Str: []byte(wh), Closed: r.Intn(2) == 0}})
			}
		}
		lo, hi := int64(r.Intn(44)-2), int64(r.Intn(44)-2)
		if lo > hi {
			lo, hi = hi, lo
		}
		some := false
		for x := lo; x <= hi; x++ {
			some = some || p.hasInt(x)
		}
		if got := p.mayHaveInt(lo, hi); got != some {
			t.Fatalf("ranges %+v, values in [%d, %d]: mayHaveInt %v, a value passes: %v", p.Ranges, lo, hi, got, some)
		}
		sl, sh := []byte(words[r.Intn(len(words))]), []byte(words[r.Intn(len(words))])
		if bytes.Compare(sl, sh) > 0 {
			sl, sh = sh, sl
		}
		for _, w := range words {
			x := []byte(w)
			if bytes.Compare(x, sl) >= 0 && bytes.Compare(x, sh) <= 0 && ps.hasStr(x) && !ps.mayHaveStr(sl, sh) {
				t.Fatalf("ranges %+v, values in [%q, %q]: %q passes but mayHaveStr is false", ps.Ranges, sl, sh, x)
			}
		}
	}
}

// TestKeep checks the row path's filter test: every conjunct must be
// TRUE, a null passes only IS NULL.
func TestKeep(t *testing.T) {
	gt5 := Pred{Field: 0, Ranges: []PredRange{{Lo: PredBound{Int: 5}, Hi: PredBound{Unbounded: true}}}}
	isNull := Pred{Field: 1, IsNull: true}
	eqA := Pred{Field: 1, Ranges: []PredRange{{Lo: PredBound{Str: []byte("a"), Closed: true}, Hi: PredBound{Str: []byte("a"), Closed: true}}}}
	for _, c := range []struct {
		filter []Pred
		vals   []any
		want   bool
	}{
		{nil, []any{nil, nil}, true},
		{[]Pred{gt5}, []any{int32(6), nil}, true},
		{[]Pred{gt5}, []any{int8(5), nil}, false},
		{[]Pred{gt5}, []any{nil, nil}, false},
		{[]Pred{gt5, isNull}, []any{int64(7), nil}, true},
		{[]Pred{gt5, isNull}, []any{int64(7), "a"}, false},
		{[]Pred{eqA}, []any{nil, "a"}, true},
		{[]Pred{eqA}, []any{nil, "ab"}, false},
	} {
		if got := Keep(c.filter, c.vals); got != c.want {
			t.Errorf("Keep(%+v, %v) = %v, want %v", c.filter, c.vals, got, c.want)
		}
	}
}

// TestFilteredRows: FilteredRows yields exactly the rows of Rows that
// pass the filter (format.Keep) and the deletion vector leaves, in order,
// over a file of several row groups (700 rows each, a_k = the row's
// position) with every encoding the page decoder reads and two it hands
// to parquet-go; a filter on a_k's range leaves the row groups outside it
// unread.
func TestFilteredRows(t *testing.T) {
	data, _ := writeDiff(t, 2500, &zstd.Codec{})
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	ints := func(f int, lo, hi int64) Pred {
		return Pred{Field: f, Ranges: []PredRange{{Lo: PredBound{Int: lo, Closed: true}, Hi: PredBound{Int: hi, Closed: true}}}}
	}
	str := func(f int, lo, hi string) Pred {
		return Pred{Field: f, Ranges: []PredRange{{Lo: PredBound{Str: []byte(lo)}, Hi: PredBound{Str: []byte(hi)}}}}
	}
	del := posSet{}
	for p := int64(0); p < 2500; p += 7 {
		del[p] = true
	}
	for _, c := range []struct {
		name    string
		filter  []Pred
		deleted DeletionVector
		skipped int
	}{
		{"a_k in [800, 900]", []Pred{ints(0, 800, 900)}, nil, 3},
		{"a_k in [800, 900], deleted", []Pred{ints(0, 800, 900)}, del, 3},
		{"a_k in [699, 700]", []Pred{ints(0, 699, 700)}, nil, 2},
		{"a_k < 0", []Pred{{Field: 0, Ranges: []PredRange{{Lo: PredBound{Unbounded: true}, Hi: PredBound{Int: 0}}}}}, nil, 4},
		{"b_i > 0 AND c_s in ('b', 'q')", []Pred{{Field: 1, Ranges: []PredRange{{Lo: PredBound{Int: 0}, Hi: PredBound{Unbounded: true}}}}, str(2, "b", "q")}, del, 0},
		{"d_d = 'cat-3'", []Pred{{Field: 3, Ranges: []PredRange{{Lo: PredBound{Str: []byte("cat-3"), Closed: true}, Hi: PredBound{Str: []byte("cat-3"), Closed: true}}}}}, nil, 0},
		{"f_t IS NULL AND g_x > 'm'", []Pred{{Field: 5, IsNull: true}, str(6, "m", "\xff")}, del, 0},
		{"h_l in [0, 2^62]", []Pred{ints(7, 0, 1<<62)}, del, 0},
		{"a_k in [0, 99] OR a_k in [2400, 2500]", []Pred{{Or: []Pred{ints(0, 0, 99), ints(0, 2400, 2500)}}}, del, 2},
		{"a_k in [0, 99] OR b_i > 0", []Pred{{Or: []Pred{ints(0, 0, 99), {Field: 1, Ranges: []PredRange{{Lo: PredBound{Int: 0}, Hi: PredBound{Unbounded: true}}}}}}}, nil, 0},
	} {
		p := Projection{FileFields: diffFields(), Fields: diffFields(), Deleted: c.deleted}
		all, err := f.Rows(p)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]any
		for r := all.Next(); r != nil; r = all.Next() {
			if Keep(c.filter, r) {
				want = append(want, r)
			}
		}
		if err := all.Error(); err != nil {
			t.Fatal(err)
		}
		it, ok, err := f.FilteredRows(p, c.filter)
		if err != nil || !ok {
			t.Fatalf("%s: FilteredRows %v, %v", c.name, ok, err)
		}
		var got [][]any
		for r := it.Next(); r != nil; r = it.Next() {
			got = append(got, r)
		}
		if err := it.Error(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d rows, want %d (the rows of Rows that pass)", c.name, len(got), len(want))
		}
		if it.rr.skipped != c.skipped {
			t.Errorf("%s: %d row groups skipped, want %d", c.name, it.rr.skipped, c.skipped)
		}
		if len(want) == 0 && c.skipped < 4 {
			t.Errorf("%s: no row passes", c.name)
		}
	}
}
