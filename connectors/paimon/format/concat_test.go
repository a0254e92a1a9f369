package format

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestAggregateConcatMatchesRows: COUNT, MIN and MAX of CONCAT of string
// columns (AggCall.Concat) on the column path give what the rows of Rows
// that Keep keeps give, the concatenation built by strings.Join and
// compared as Go strings, NULL when any piece is NULL (Flink's CONCAT).
// Over writeDiff's file (DELTA_LENGTH, dictionary and PLAIN string pages,
// nulls, empty strings, strings that are each other's prefixes), 40
// random lists of pieces (a column twice among them) under random
// filters, global and grouped by the dictionary column. Aggregate
// refused a Concat call before (ok false).
func TestAggregateConcatMatchesRows(t *testing.T) {
	const n = 2500
	data, _ := writeDiff(t, n, &zstd.Codec{})
	var proj []schema.Field
	var strs []int // the string fields of proj the column path reads
	for _, f := range diffFields() {
		if f.Name == "g_x" || f.Name == "h_l" { // parquet-go's encodings: the row path
			continue
		}
		if f.Type.Root == sql.TypeVarChar {
			strs = append(strs, len(proj))
		}
		proj = append(proj, f)
	}
	key := -1
	for i, f := range proj {
		if f.Name == "d_d" {
			key = i
		}
	}
	if len(strs) < 3 || key < 0 {
		t.Fatalf("string fields %v, key %d", strs, key)
	}
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 5))
	sample := kept(t, data, proj, nil, nil)
	join := func(pieces []int, row []any) any {
		var ss []string
		for _, p := range pieces {
			s, ok := row[p].(string)
			if !ok {
				return nil
			}
			ss = append(ss, s)
		}
		return strings.Join(ss, "")
	}
	for c := 0; c < 40; c++ {
		var filter []Pred
		if c%2 == 1 {
			fi := strs[r.IntN(len(strs))]
			s, _ := sample[r.IntN(len(sample))][fi].(string)
			filter = []Pred{{Field: fi, Ranges: []PredRange{{Lo: PredBound{Str: []byte(s), Closed: true}, Hi: PredBound{Unbounded: true}}}}}
		}
		var calls []AggCall
		grouped := c%4 >= 2
		if grouped {
			calls = append(calls, AggCall{Kind: AggKey, Arg: key})
		}
		for k := 0; k < 3; k++ {
			var pieces []int
			for p := 1 + r.IntN(3); p > 0; p-- {
				pieces = append(pieces, strs[r.IntN(len(strs))])
			}
			for _, kind := range []AggKind{AggCount, AggMin, AggMax} {
				calls = append(calls, AggCall{Kind: kind, Concat: pieces})
			}
		}
		// The answer from rows, by group (the key's value, "" for all).
		want := map[string][]any{}
		for _, row := range kept(t, data, proj, filter, nil) {
			g := ""
			if grouped {
				g = fmt.Sprint(row[key])
			}
			acc, ok := want[g]
			if !ok {
				acc = make([]any, len(calls))
				want[g] = acc
			}
			for i, call := range calls {
				if call.Kind == AggKey {
					acc[i] = row[key]
					continue
				}
				v := join(call.Concat, row)
				switch {
				case call.Kind == AggCount:
					if acc[i] == nil {
						acc[i] = int64(0)
					}
					if v != nil {
						acc[i] = acc[i].(int64) + 1
					}
				case v == nil:
				case acc[i] == nil,
					call.Kind == AggMin && v.(string) < acc[i].(string),
					call.Kind == AggMax && v.(string) > acc[i].(string):
					acc[i] = v
				}
			}
		}
		if !grouped && len(want) == 0 {
			want[""] = []any{int64(0), nil, nil, int64(0), nil, nil, int64(0), nil, nil}
		}
		parts, ok, err := f.Aggregate(Projection{FileFields: diffFields(), Fields: proj}, calls, filter)
		if err != nil || !ok {
			t.Fatalf("case %d: Aggregate %v, %v", c, ok, err)
		}
		got := map[string][]any{}
		for _, p := range parts {
			g := ""
			if grouped {
				g = fmt.Sprint(p[0])
			}
			got[g] = p
		}
		if !reflect.DeepEqual(got, want) {
			var keys []string
			for k := range want {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			t.Fatalf("case %d, calls %+v, filter %+v:\n got %v\nwant %v (groups %v)", c, calls, filter, got, want, keys)
		}
		// The row path's partial of one row (Partial) is the same join.
		for _, row := range sample[:50] {
			p := Partial(calls, row)
			for i, call := range calls {
				v := join(call.Concat, row)
				switch {
				case call.Kind == AggKey:
				case call.Kind == AggCount && (p[i] == int64(1)) != (v != nil):
					t.Fatalf("Partial COUNT of %v: %v", call.Concat, p[i])
				case call.Kind != AggCount && p[i] != v:
					t.Fatalf("Partial %v of %v: %v, want %v", call.Kind, call.Concat, p[i], v)
				}
			}
		}
	}
}

// TestCompareConcat: compareConcat of pieces against a best value is
// bytes.Compare of their concatenation, over pieces and values that are
// each other's prefixes.
func TestCompareConcat(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 6))
	word := func() []byte {
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = "ab"[r.IntN(2)]
		}
		return b
	}
	for c := 0; c < 20000; c++ {
		var vs []*vecCol
		var whole []byte
		for p := 1 + r.IntN(3); p > 0; p-- {
			w := word()
			whole = append(whole, w...)
			vs = append(vs, &vecCol{kind: bulkString, src: &pageData{data: w, offs: []uint32{0, uint32(len(w))}}, at: []int32{0}})
		}
		best := word()
		if r.IntN(3) == 0 {
			// A prefix of the concatenation, or it and more.
			best = append(bytes.Clone(whole), word()...)
			best = best[:r.IntN(len(best)+1)]
		}
		if got, want := compareConcat(vs, 0, best), bytes.Compare(whole, best); got != want {
			t.Fatalf("pieces of %q against %q: %d, want %d", whole, best, got, want)
		}
	}
}
