package format

import (
	"bytes"
	"math/rand"
	"sort"
	"testing"
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
