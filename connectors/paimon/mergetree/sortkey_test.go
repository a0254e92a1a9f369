package mergetree

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/sql"
)

// sortKeyTypes are the types a key or sequence.field may have, with a
// generator of values from a small domain: equal values, equal 8-byte
// prefixes, NULLs, NaN and -0, strings with 0x00 bytes.
var sortKeyTypes = []struct {
	t   sql.DataType
	gen func(r *rand.Rand) any
}{
	{sql.Boolean(), func(r *rand.Rand) any { return r.Intn(2) == 0 }},
	{sql.TinyInt(), func(r *rand.Rand) any { return int8(r.Intn(7) - 3) }},
	{sql.SmallInt(), func(r *rand.Rand) any { return int16([]int{-32768, -1, 0, 1, 255, 256, 32767}[r.Intn(7)]) }},
	{sql.Int(), func(r *rand.Rand) any {
		return int32([]int64{math.MinInt32, -257, -1, 0, 1, 256, 65536, math.MaxInt32}[r.Intn(8)])
	}},
	{sql.Date(), func(r *rand.Rand) any { return int32(r.Intn(5) - 2) }},
	{sql.BigInt(), func(r *rand.Rand) any {
		return []int64{math.MinInt64, -1 << 40, -1, 0, 1, 1 << 40, math.MaxInt64}[r.Intn(7)]
	}},
	{sql.Float(), func(r *rand.Rand) any {
		return []float32{float32(math.NaN()), float32(math.Inf(-1)), -1.5, float32(math.Copysign(0, -1)), 0, 1e-30, 2, float32(math.Inf(1))}[r.Intn(8)]
	}},
	{sql.Double(), func(r *rand.Rand) any {
		return []float64{math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Inf(-1), -1e300, -5e-324, math.Copysign(0, -1), 0, 5e-324, 3, math.Inf(1)}[r.Intn(10)]
	}},
	{sql.Decimal(10, 2), func(r *rand.Rand) any { return decimal.New(int64(r.Intn(2001)-1000), -2) }},
	{sql.Decimal(30, 3), func(r *rand.Rand) any {
		u := new(big.Int).Lsh(big.NewInt(int64(r.Intn(5)-2)), uint(r.Intn(90)))
		return decimal.NewFromBigInt(u.Add(u, big.NewInt(int64(r.Intn(3)-1))), -3)
	}},
	{sql.Timestamp(3), func(r *rand.Rand) any { return sql.TimestampData{Millis: int64(r.Intn(5) - 2)} }},
	{sql.Timestamp(6), func(r *rand.Rand) any {
		return sql.TimestampData{Millis: int64(r.Intn(5) - 2), NanoOfMilli: int32(r.Intn(3) * 1000)}
	}},
	{sql.String(), func(r *rand.Rand) any {
		pre := []string{"", "a", "abcdefgh", "abcdefg", "\x00", "é"}[r.Intn(6)]
		suf := []string{"", "\x00", "\x00\x00", "\x01", "a", "ab", "\xff"}[r.Intn(7)]
		return pre + suf
	}},
	{sql.Bytes(), func(r *rand.Rand) any {
		b := make([]byte, r.Intn(11))
		for i := range b {
			b[i] = []byte{0, 1, 0x7f, 0x80, 0xff}[r.Intn(5)]
		}
		return b
	}},
}

// TestPackedSortMatchesDecoded is the metamorphic test of the write
// buffer's sort on keys read from the packed records (sortPacked): over
// random schemas (one to three key fields of every comparable type,
// nullable, sequence.field ascending or descending, the deduplicate,
// partial-update and aggregation engines) and random records, a flush
// gives the rows a sort of the decoded records with the comparators
// (Spec.Key, then SeqOrder: the order Paimon's SortBufferWriteBuffer
// sorts in) gives, raw and merged, with and without spilled runs; and
// the sort keys of any two records compare as the comparators compare
// the records.
func TestPackedSortMatchesDecoded(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		var names []string
		var types []sql.DataType
		var gens []func(r *rand.Rand) any
		var pk, seqFields []string
		add := func(role string, i int) string {
			st := sortKeyTypes[r.Intn(len(sortKeyTypes))]
			ty := st.t
			if r.Intn(3) == 0 {
				ty = ty.NotNull()
			}
			name := fmt.Sprintf("%s%d", role, i)
			names, types, gens = append(names, name), append(types, ty), append(gens, st.gen)
			return name
		}
		// The value field first, so key fields sit after a variable-length one.
		names, types = append(names, "v"), append(types, sql.BigInt())
		gens = append(gens, func(r *rand.Rand) any { return int64(r.Intn(10)) })
		for i := 0; i < 1+r.Intn(3); i++ {
			pk = append(pk, add("k", i))
		}
		opts := map[string]string{}
		if r.Intn(2) == 0 {
			for i := 0; i < 1+r.Intn(2); i++ {
				seqFields = append(seqFields, add("s", i))
			}
			opts["sequence.field"] = strings.Join(seqFields, ",")
			if r.Intn(2) == 0 {
				opts["sequence.field.sort-order"] = "descending"
			}
		}
		switch r.Intn(3) {
		case 1:
			opts["merge-engine"] = "partial-update"
		case 2:
			opts["merge-engine"] = "aggregation"
			opts["fields.v.aggregate-function"] = "sum"
		}
		spec, err := newSpec(names, types, pk, opts)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		n := 1 + r.Intn(300)
		seqs := r.Perm(n)
		if r.Intn(2) == 0 {
			slices.Sort(seqs) // the writer's increasing numbers
		}
		recs := make([]*KV, n)
		for i := range recs {
			v := make([]any, len(types))
			for j, g := range gens {
				if types[j].Nullable && r.Intn(6) == 0 {
					continue
				}
				v[j] = g(r)
			}
			kind := sql.Insert
			if opts["merge-engine"] == "" && r.Intn(5) == 0 {
				kind = sql.Delete
			}
			recs[i] = &KV{Key: spec.KeyOf(v), Seq: int64(seqs[i]), Kind: kind, Value: v}
		}
		desc := fmt.Sprintf("seed %d: %v key %v options %v", seed, types, pk, opts)

		checkSortKeys(t, desc, spec, recs, r)

		// The reference: the decoded records sorted with the comparators,
		// grouped by key and merged with the engine.
		want := slices.Clone(recs)
		slices.SortStableFunc(want, func(x, y *KV) int {
			if c := spec.Key.Compare(x.Key, y.Key); c != 0 {
				return c
			}
			return spec.Order.Compare(x, y)
		})
		var wantRaw, wantMerged []string
		groups := newGroupIter(NewSliceIter(want), spec.Key)
		mf := spec.NewEngineFunction()
		for g := groups.nextGroup(); g != nil; g = groups.nextGroup() {
			for _, x := range g {
				wantRaw = append(wantRaw, fmtKV(x))
			}
			m, err := reduce(mf, g)
			if err != nil {
				t.Fatalf("%s: reference merge: %v", desc, err)
			}
			if m != nil {
				wantMerged = append(wantMerged, fmtKV(m))
			}
		}

		for _, limit := range []int64{1 << 30, 600} {
			sp := &MemSpiller{}
			buf := NewWriteBuffer(spec, limit, sp, nil)
			for _, x := range recs {
				if _, err := buf.Put(x); err != nil {
					t.Fatalf("%s: put: %v", desc, err)
				}
			}
			var raw, merged []string
			err := buf.Flush(func(x *KV) error { merged = append(merged, fmtKV(x)); return nil },
				func(x *KV) error { raw = append(raw, fmtKV(x)); return nil })
			if err != nil {
				t.Fatalf("%s: flush: %v", desc, err)
			}
			if d := firstDiff(wantRaw, raw); d != "" {
				t.Fatalf("%s, limit %d (%d spills): raw records differ from the decoded sort's: %s", desc, limit, sp.Spilled, d)
			}
			if d := firstDiff(wantMerged, merged); d != "" {
				t.Fatalf("%s, limit %d (%d spills): merged records differ from the decoded sort's: %s", desc, limit, sp.Spilled, d)
			}
			buf.Close()
		}
	}
}

// checkSortKeys compares the sort keys of random pairs of records (and
// of each record with itself) with the comparators' verdict.
func checkSortKeys(t *testing.T, desc string, spec *Spec, recs []*KV, r *rand.Rand) {
	t.Helper()
	enc, err := newSortKeyEncoder(spec)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	keys := make([][]byte, len(recs))
	for i, x := range recs {
		p, err := binrow.AppendPacked(nil, spec.FieldTypes, x.Value)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if keys[i], err = enc.append(nil, p); err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
	}
	sign := func(c int) int { return max(-1, min(1, c)) }
	for k := 0; k < 4*len(recs); k++ {
		i, j := r.Intn(len(recs)), r.Intn(len(recs))
		x, y := recs[i], recs[j]
		want := spec.Key.Compare(x.Key, y.Key)
		if want == 0 && spec.Order.user != nil {
			want = spec.Order.user.Compare(x.Value, y.Value)
		}
		if got := bytes.Compare(keys[i], keys[j]); sign(got) != sign(want) {
			t.Fatalf("%s: %v vs %v: sort keys %x and %x compare %d, the comparators %d", desc, x.Value, y.Value, keys[i], keys[j], got, want)
		}
		if p, q := sortKeyPrefix(keys[i]), sortKeyPrefix(keys[j]); p != q && (p < q) != (want < 0) {
			t.Fatalf("%s: %v vs %v: prefixes %x and %x disagree with the comparators (%d)", desc, x.Value, y.Value, p, q, want)
		}
	}
}

func fmtKV(x *KV) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %d", x.Kind, x.Seq)
	for _, v := range x.Value {
		switch v := v.(type) {
		case decimal.Decimal:
			fmt.Fprintf(&b, " %s", v.StringFixed(v.Exponent()*-1))
		case []byte:
			fmt.Fprintf(&b, " 0x%x", v)
		case string:
			fmt.Fprintf(&b, " %q", v)
		default:
			fmt.Fprintf(&b, " %v", v)
		}
	}
	return b.String()
}

func firstDiff(want, got []string) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("record %d: want %s, got %s", i, want[i], got[i])
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d records, want %d", len(got), len(want))
	}
	return ""
}
