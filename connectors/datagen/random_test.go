package datagen

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// generate reads rows of a datagen table over cols with opts (number-of-rows
// and an unlimited rate added), from one subtask.
func generate(t *testing.T, cols []sql.Column, opts map[string]string, rows int) []sql.Row {
	t.Helper()
	all := map[string]string{"number-of-rows": strconv.Itoa(rows), "rows-per-second": "0"}
	for k, v := range opts {
		all[k] = v
	}
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: sql.Schema{Columns: cols}, Options: all})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := readAll(t, src.(*Source), 0, 1, nil, -1)
	if len(out) != rows {
		t.Fatalf("got %d rows, want %d", len(out), rows)
	}
	return out
}

func column(rows []sql.Row, i int) []any {
	out := make([]any, len(rows))
	for k, r := range rows {
		out[k] = r.Values[i]
	}
	return out
}

func distinct(vals []any) int {
	seen := map[any]bool{}
	for _, v := range vals {
		if d, ok := v.(decimal.Decimal); ok {
			v = d.String()
		}
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		seen[v] = true
	}
	return len(seen)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int8:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	case decimal.Decimal:
		f, _ := x.Float64()
		return f
	}
	panic("not a number")
}

const sampleRows = 4000

// expectedDistinct is the expected number of distinct values among draws
// uniform draws from n values: n * (1 - (1 - 1/n)^draws).
func expectedDistinct(n float64, draws int) float64 {
	return n * -math.Expm1(float64(draws)*math.Log1p(-1/n))
}

// TestRandomDefaults is the bug report's table with Flink's default
// options: every column must vary, across rows and within strings.
func TestRandomDefaults(t *testing.T) {
	cols := []sql.Column{{Name: "id", Type: sql.Int()}, {Name: "s", Type: sql.String()},
		{Name: "n", Type: sql.BigInt()}, {Name: "i", Type: sql.Int()}, {Name: "d", Type: sql.Double()},
		{Name: "f", Type: sql.Float()}, {Name: "t", Type: sql.TinyInt()}, {Name: "sm", Type: sql.SmallInt()},
		{Name: "dec", Type: sql.Decimal(10, 2)}, {Name: "b", Type: sql.Boolean()}, {Name: "c", Type: sql.Char(5)},
		{Name: "vc", Type: sql.VarChar(10)}, {Name: "by", Type: sql.Bytes()}, {Name: "bin", Type: sql.Binary(4)},
		{Name: "wide", Type: sql.Decimal(38, 10)}}
	rows := generate(t, cols, nil, sampleRows)
	t.Run("integers", func(t *testing.T) {
		// Integers: uniform over the type's whole range, both signs, as many
		// distinct as uniform draws give; each sixteenth of the range gets
		// about 1/16 of them.
		for _, c := range []struct {
			i        int
			min, max float64
		}{{0, math.MinInt32, math.MaxInt32}, {2, math.MinInt64, math.MaxInt64}, {3, math.MinInt32, math.MaxInt32},
			{7, math.MinInt16, math.MaxInt16}} {
			vals := column(rows, c.i)
			if d, want := distinct(vals), expectedDistinct(c.max-c.min+1, sampleRows); float64(d) < 0.98*want {
				t.Errorf("%s: %d distinct of %d, want about %.0f", cols[c.i].Name, d, sampleRows, want)
			}
			checkUniform(t, cols[c.i].Name, vals, c.min, c.max, 16)
		}
		// TINYINT: all 256 values show up in 4000 draws.
		if d := distinct(column(rows, 6)); d != 256 {
			t.Errorf("TINYINT: %d distinct values, want all 256", d)
		}
		checkUniform(t, "t", column(rows, 6), math.MinInt8, math.MaxInt8, 8)
	})
	t.Run("floats", func(t *testing.T) {
		// DOUBLE and FLOAT: Flink's defaults are MIN_VALUE (the smallest
		// positive value) to MAX_VALUE: finite, positive, distinct, uniform.
		for _, c := range []struct {
			i   int
			max float64
		}{{4, math.MaxFloat64}, {5, math.MaxFloat32}} {
			vals := column(rows, c.i)
			for _, v := range vals {
				if f := toFloat(v); math.IsInf(f, 0) || math.IsNaN(f) || f <= 0 || f > c.max {
					t.Fatalf("%s: %v outside (0, %g]", cols[c.i].Name, v, c.max)
				}
			}
			if d := distinct(vals); d < sampleRows*99/100 {
				t.Errorf("%s: %d distinct of %d", cols[c.i].Name, d, sampleRows)
			}
			checkUniform(t, cols[c.i].Name, vals, 0, c.max, 10)
		}
	})
	t.Run("decimals", func(t *testing.T) {
		// DECIMAL(10, 2): Flink clamps MIN_VALUE..MAX_VALUE to the type:
		// (0, 99999999.99], scale 2.
		largest := decimal.RequireFromString("99999999.99")
		for _, v := range column(rows, 8) {
			d := v.(decimal.Decimal)
			if d.Exponent() != -2 || !d.IsPositive() || d.GreaterThan(largest) {
				t.Fatalf("DECIMAL(10, 2) value %s (exponent %d)", d, d.Exponent())
			}
		}
		if d := distinct(column(rows, 8)); d < sampleRows*99/100 {
			t.Errorf("DECIMAL: %d distinct of %d", d, sampleRows)
		}
		checkUniform(t, "dec", column(rows, 8), 0, 99999999.99, 10)
		// DECIMAL(38, 10) goes beyond 64-bit unscaled values.
		wideMax := decimal.RequireFromString("9999999999999999999999999999.9999999999")
		for _, v := range column(rows, 14) {
			d := v.(decimal.Decimal)
			if d.Exponent() != -10 || !d.IsPositive() || d.GreaterThan(wideMax) {
				t.Fatalf("DECIMAL(38, 10) value %s (exponent %d)", d, d.Exponent())
			}
		}
		if d := distinct(column(rows, 14)); d != sampleRows {
			t.Errorf("DECIMAL(38, 10): %d distinct of %d", d, sampleRows)
		}
		checkUniform(t, "wide", column(rows, 14), 0, 1e28, 10)
	})
	t.Run("booleans", func(t *testing.T) {
		// BOOLEAN: about half true.
		trues := 0
		for _, v := range column(rows, 9) {
			if v.(bool) {
				trues++
			}
		}
		if trues < sampleRows*45/100 || trues > sampleRows*55/100 {
			t.Errorf("BOOLEAN: %d true of %d", trues, sampleRows)
		}
	})
	t.Run("strings", func(t *testing.T) {
		// Strings: lowercase hex (Flink's nextHexString) of the default length
		// (100 for STRING, the declared length otherwise), all distinct, and
		// every position takes all 16 digits about equally often.
		for _, c := range []struct{ i, length int }{{1, 100}, {10, 5}, {11, 10}} {
			var strs []string
			for _, v := range column(rows, c.i) {
				strs = append(strs, v.(string))
			}
			checkPositions(t, cols[c.i].Name, strs, c.length, hexDigits)
		}
		for _, c := range []struct{ i, length int }{{12, 100}, {13, 4}} {
			var strs []string
			for _, v := range column(rows, c.i) {
				strs = append(strs, string(v.([]byte)))
			}
			checkPositions(t, cols[c.i].Name, strs, c.length, "")
		}
	})
}

// checkUniform asserts that vals fall into each of n equal buckets of
// [min, max] with about the expected frequency (within 30%: with 4000
// values and at most 16 buckets that is over 4 standard deviations).
func checkUniform(t *testing.T, name string, vals []any, min, max float64, n int) {
	t.Helper()
	counts := make([]int, n)
	for _, v := range vals {
		f := toFloat(v)
		b := int((f/2 - min/2) / (max/2 - min/2) * float64(n)) // halves: no overflow
		counts[max0(min1(b, n-1))]++
	}
	want := float64(len(vals)) / float64(n)
	for b, c := range counts {
		if math.Abs(float64(c)-want) > 0.3*want {
			t.Errorf("%s: bucket %d of %d has %d values, want about %.0f (%v)", name, b, n, c, want, counts)
			return
		}
	}
}

func max0(b int) int { return max(b, 0) }

func min1(b, hi int) int { return min(b, hi) }

// checkPositions asserts that the strings are distinct and of the given
// length and that every position varies: with an alphabet, each position
// shows every letter of it within 40% of its expected frequency; without,
// each byte position shows at least 200 of the 256 byte values.
func checkPositions(t *testing.T, name string, strs []string, length int, alphabet string) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range strs {
		if len(s) != length {
			t.Fatalf("%s: %q has length %d, want %d", name, s, len(s), length)
		}
		if alphabet != "" && strings.Trim(s, alphabet) != "" {
			t.Fatalf("%s: %q has characters outside %q", name, s, alphabet)
		}
		seen[s] = true
	}
	size := 256.0
	if alphabet != "" {
		size = float64(len(alphabet))
	}
	if want := expectedDistinct(math.Pow(size, float64(length)), len(strs)); float64(len(seen)) < 0.98*want {
		t.Errorf("%s: %d distinct of %d, want about %.0f", name, len(seen), len(strs), want)
	}
	for p := 0; p < length; p++ {
		counts := map[byte]int{}
		for _, s := range strs {
			counts[s[p]]++
		}
		if alphabet == "" {
			if len(counts) < 200 {
				t.Fatalf("%s: position %d takes only %d byte values", name, p, len(counts))
			}
			continue
		}
		want := float64(len(strs)) / float64(len(alphabet))
		for _, a := range []byte(alphabet) {
			if c := float64(counts[a]); math.Abs(c-want) > 0.4*want {
				t.Fatalf("%s: position %d has %q %v times, want about %.0f", name, p, a, c, want)
			}
		}
	}
}

// TestRandomBounds checks custom min/max: every value within bounds, the
// ends reached where the range is small, both signs where it crosses zero,
// and min = max a constant.
func TestRandomBounds(t *testing.T) {
	for _, c := range []struct {
		typ      sql.DataType
		min, max string
		// wantAll: the range is small enough that every value must appear
		// (the count of values), 0 when not checked.
		wantAll int
	}{
		{sql.TinyInt(), "-128", "127", 256},
		{sql.TinyInt(), "-3", "3", 7},
		{sql.SmallInt(), "-1000", "1000", 0},
		{sql.Int(), "-5", "5", 11},
		{sql.Int(), "1", "6", 6},
		{sql.Int(), "-2147483648", "2147483647", 0},
		{sql.Int(), "2147483640", "2147483647", 8},
		{sql.BigInt(), "-9223372036854775808", "9223372036854775807", 0},
		{sql.BigInt(), "9223372036854775800", "9223372036854775807", 8},
		{sql.BigInt(), "-9223372036854775808", "-9223372036854775801", 8},
		{sql.BigInt(), "-4611686018427387904", "9223372036854775807", 0}, // span > 2^63
		{sql.BigInt(), "-1", "1", 3},
		{sql.BigInt(), "42", "42", 1},
		{sql.Int(), "-7", "-7", 1},
		{sql.Double(), "-1.7976931348623157e308", "1.7976931348623157e308", 0},
		{sql.Double(), "-1", "1", 0},
		{sql.Double(), "2.5", "2.5", 1},
		{sql.Double(), "1e308", "1.7976931348623157e308", 0},
		{sql.Float(), "-3.4028235e38", "3.4028235e38", 0},
		{sql.Float(), "-0.5", "0.25", 0},
		{sql.Decimal(5, 2), "-1.5", "1.5", 301},
		{sql.Decimal(5, 2), "-1e9", "1e9", 0}, // clamped to ±999.99
		{sql.Decimal(10, 0), "0.5", "3.5", 3}, // 1, 2, 3
		{sql.Decimal(10, 4), "7", "7", 1},
		{sql.Decimal(38, 2), "-1e30", "1e30", 0},
	} {
		name := c.typ.String() + "[" + c.min + "," + c.max + "]"
		rows := generate(t, []sql.Column{{Name: "x", Type: c.typ}},
			map[string]string{"fields.x.min": c.min, "fields.x.max": c.max}, 3000)
		vals := column(rows, 0)
		lo, hi := parseBound(c.typ, c.min), parseBound(c.typ, c.max)
		if c.typ.Root == sql.TypeDecimal {
			largest := math.Pow10(c.typ.Precision-c.typ.Scale) - math.Pow10(-c.typ.Scale)
			lo, hi = math.Max(lo, -largest), math.Min(hi, largest)
		}
		neg, pos := false, false
		for _, v := range vals {
			f := toFloat(v)
			if math.IsInf(f, 0) || math.IsNaN(f) || f < lo || f > hi || !inBoundsExact(v, c.min, c.max) {
				t.Fatalf("%s: %v (%T) out of bounds", name, v, v)
			}
			if d, ok := v.(decimal.Decimal); ok && d.Exponent() != -int32(c.typ.Scale) {
				t.Fatalf("%s: %v has exponent %d", name, d, d.Exponent())
			}
			neg, pos = neg || f < 0, pos || f > 0
		}
		d := distinct(vals)
		switch {
		case c.wantAll > 0 && d != c.wantAll:
			t.Errorf("%s: %d distinct values, want all %d", name, d, c.wantAll)
		case c.wantAll == 0 && c.typ.Root <= sql.TypeBigInt && float64(d) < 0.98*expectedDistinct(hi-lo+1, 3000):
			t.Errorf("%s: only %d distinct of 3000", name, d)
		case c.wantAll == 0 && c.typ.Root == sql.TypeDecimal &&
			float64(d) < 0.98*expectedDistinct((hi-lo)*math.Pow10(c.typ.Scale)+1, 3000):
			t.Errorf("%s: only %d distinct of 3000", name, d)
		case c.wantAll == 0 && (c.typ.Root == sql.TypeFloat || c.typ.Root == sql.TypeDouble) && d < 2990:
			t.Errorf("%s: only %d distinct of 3000", name, d)
		}
		if lo < 0 && hi > 0 && (!neg || !pos) {
			t.Errorf("%s: crossing zero, negative %v positive %v", name, neg, pos)
		}
		if c.wantAll == 0 && hi > lo {
			checkUniform(t, name, vals, lo, hi, 10)
		}
	}
}

func parseBound(t sql.DataType, s string) float64 {
	d := decimal.RequireFromString(s)
	f, _ := d.Float64()
	if t.Root == sql.TypeFloat {
		f = float64(float32(f))
	}
	return f
}

// inBoundsExact compares integers and decimals without float rounding.
func inBoundsExact(v any, min, max string) bool {
	var d decimal.Decimal
	switch x := v.(type) {
	case int8:
		d = decimal.NewFromInt(int64(x))
	case int16:
		d = decimal.NewFromInt(int64(x))
	case int32:
		d = decimal.NewFromInt(int64(x))
	case int64:
		d = decimal.NewFromInt(x)
	case decimal.Decimal:
		d = x
	default:
		return true
	}
	return !d.LessThan(decimal.RequireFromString(min)) && !d.GreaterThan(decimal.RequireFromString(max))
}

// TestNullRate checks that null-rate makes about that share NULL for each
// type that has the option, and leaves the other values random.
func TestNullRate(t *testing.T) {
	cols := []sql.Column{{Name: "i", Type: sql.Int()}, {Name: "s", Type: sql.String()},
		{Name: "d", Type: sql.Decimal(10, 2)}, {Name: "ts", Type: sql.Timestamp(3)}, {Name: "b", Type: sql.Boolean()},
		{Name: "a", Type: sql.ArrayOf(sql.Int())}, {Name: "f", Type: sql.Double()}, {Name: "c", Type: sql.Char(3)},
		{Name: "all", Type: sql.BigInt()}, {Name: "none", Type: sql.BigInt()}}
	opts := map[string]string{"fields.all.null-rate": "1", "fields.none.null-rate": "0"}
	for _, c := range cols[:8] {
		opts["fields."+c.Name+".null-rate"] = "0.2"
	}
	const n = 5000
	rows := generate(t, cols, opts, n)
	for i, c := range cols {
		nulls := 0
		for _, r := range rows {
			if r.Values[i] == nil {
				nulls++
			}
		}
		lo, hi := n*17/100, n*23/100
		switch c.Name {
		case "all":
			lo, hi = n, n
		case "none":
			lo, hi = 0, 0
		}
		if nulls < lo || nulls > hi {
			t.Errorf("%s: %d NULLs of %d, want %d..%d", c.Name, nulls, n, lo, hi)
		}
	}
	// The NULL decision is independent of the value: the non-NULL INTs
	// still spread over the whole range.
	var ints []any
	for _, r := range rows {
		if r.Values[0] != nil {
			ints = append(ints, r.Values[0])
		}
	}
	checkUniform(t, "i", ints, math.MinInt32, math.MaxInt32, 10)
	// Independent columns: the NULLs of i and s do not coincide.
	both := 0
	for _, r := range rows {
		if r.Values[0] == nil && r.Values[1] == nil {
			both++
		}
	}
	if both > n*6/100 { // 0.2 * 0.2 = 4% when independent
		t.Errorf("i and s are NULL together in %d of %d rows", both, n)
	}
}

// TestVarLen checks var-len: lengths uniform over [1, length), as Flink's
// ThreadLocalRandom.nextInt(1, length).
func TestVarLen(t *testing.T) {
	cols := []sql.Column{{Name: "s", Type: sql.String()}, {Name: "b", Type: sql.VarBinary(20)},
		{Name: "one", Type: sql.VarChar(1)}}
	rows := generate(t, cols, map[string]string{"fields.s.length": "10", "fields.s.var-len": "true",
		"fields.b.var-len": "TRUE", "fields.one.var-len": "true"}, 3000)
	lens := map[string]map[int]int{"s": {}, "b": {}, "one": {}}
	for _, r := range rows {
		lens["s"][len(r.Values[0].(string))]++
		lens["b"][len(r.Values[1].([]byte))]++
		lens["one"][len(r.Values[2].(string))]++
	}
	for name, max := range map[string]int{"s": 9, "b": 19} {
		for l := 1; l <= max; l++ {
			if c := lens[name][l]; c < 3000/max/2 {
				t.Errorf("%s: length %d appears %d times (%v)", name, l, c, lens[name])
			}
		}
		if len(lens[name]) != max {
			t.Errorf("%s: lengths %v, want 1..%d", name, lens[name], max)
		}
	}
	if len(lens["one"]) != 1 || lens["one"][1] != 3000 {
		t.Errorf("VARCHAR(1) var-len: lengths %v", lens["one"])
	}
}

// TestTimeColumns: DATE, TIME and TIMESTAMP are "now" as in Flink, and
// max-past spreads TIMESTAMP over [now - max-past, now] in milliseconds.
func TestTimeColumns(t *testing.T) {
	cols := []sql.Column{{Name: "d", Type: sql.Date()}, {Name: "tm", Type: sql.Time(0)},
		{Name: "ts", Type: sql.Timestamp(3)}, {Name: "past", Type: sql.TimestampLTZ(3)}}
	before := time.Now()
	rows := generate(t, cols, map[string]string{"fields.past.max-past": "1 h"}, 2000)
	after := time.Now()
	today := clockAt(before).date
	seen := map[int64]bool{}
	for _, r := range rows {
		if d := r.Values[0].(int32); d != today && d != clockAt(after).date {
			t.Fatalf("DATE %d, today is %d", d, today)
		}
		if tm := r.Values[1].(int32); tm < 0 || tm >= 86400000 {
			t.Fatalf("TIME %d", tm)
		}
		ts := r.Values[2].(sql.TimestampData)
		if ts.Millis < before.UnixMilli() || ts.Millis > after.UnixMilli() || ts.NanoOfMilli != 0 {
			t.Fatalf("TIMESTAMP %v not now (%v..%v)", ts.Time(), before, after)
		}
		p := r.Values[3].(sql.TimestampData)
		if p.Millis < before.Add(-time.Hour).UnixMilli() || p.Millis > after.UnixMilli() {
			t.Fatalf("TIMESTAMP_LTZ with max-past 1 h: %v", p.Time())
		}
		seen[p.Millis] = true
	}
	if len(seen) < 1990 {
		t.Errorf("max-past: %d distinct timestamps of 2000", len(seen))
	}
}

// TestNested: ARRAY, MAP and ROW values with their element options
// (fields.<col>.element.*, .key.*, .value.*, .<member>.*), as Flink.
func TestNested(t *testing.T) {
	cols := []sql.Column{{Name: "a", Type: sql.ArrayOf(sql.Int())},
		{Name: "m", Type: sql.MapOf(sql.VarChar(4), sql.BigInt())},
		{Name: "r", Type: sql.RowOf(sql.Field{Name: "x", Type: sql.TinyInt()}, sql.Field{Name: "y", Type: sql.String()})}}
	rows := generate(t, cols, map[string]string{
		"fields.a.length": "5", "fields.a.element.min": "1", "fields.a.element.max": "9",
		"fields.m.value.min": "0", "fields.m.value.max": "0",
		"fields.r.x.min": "0", "fields.r.x.max": "1", "fields.r.y.length": "3",
	}, 1000)
	elems := map[int32]int{}
	for _, r := range rows {
		a := r.Values[0].([]any)
		if len(a) != 5 {
			t.Fatalf("array %v", a)
		}
		for _, e := range a {
			elems[e.(int32)]++
		}
		m := r.Values[1].(*sql.Map)
		if len(m.Keys) != 3 || len(m.Values) != 3 {
			t.Fatalf("map %v", m)
		}
		for k, key := range m.Keys {
			if len(key.(string)) != 4 || m.Values[k] != int64(0) {
				t.Fatalf("map %v", m)
			}
		}
		row := r.Values[2].([]any)
		if x := row[0].(int8); x != 0 && x != 1 || len(row[1].(string)) != 3 {
			t.Fatalf("row %v", row)
		}
	}
	if len(elems) != 9 {
		t.Errorf("array elements %v, want 1..9", elems)
	}
}

// TestDeterministic: a value is a function of the row index only, so two
// sources over the same table produce the same rows, and two columns of
// the same type do not.
func TestDeterministic(t *testing.T) {
	cols := []sql.Column{{Name: "a", Type: sql.BigInt()}, {Name: "b", Type: sql.BigInt()},
		{Name: "s", Type: sql.String()}, {Name: "d", Type: sql.Decimal(20, 3)}}
	x := generate(t, cols, nil, 100)
	y := generate(t, cols, nil, 100)
	for i := range x {
		for j := range cols {
			if sql.FormatValue(x[i].Values[j], cols[j].Type) != sql.FormatValue(y[i].Values[j], cols[j].Type) {
				t.Fatalf("row %d column %s differs between runs", i, cols[j].Name)
			}
		}
		if x[i].Values[0] == x[i].Values[1] {
			t.Fatalf("row %d: columns a and b equal", i)
		}
	}
	// Two subtasks generate the even and the odd indexes: the same rows.
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: sql.Schema{Columns: cols},
		Options: map[string]string{"number-of-rows": "100", "rows-per-second": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	even, _ := readAll(t, src.(*Source), 0, 2, nil, -1)
	odd, _ := readAll(t, src.(*Source), 1, 2, nil, -1)
	for i := range x {
		part := even
		if i%2 == 1 {
			part = odd
		}
		for j := range cols {
			if sql.FormatValue(part[i/2].Values[j], cols[j].Type) != sql.FormatValue(x[i].Values[j], cols[j].Type) {
				t.Fatalf("row %d column %s differs with 2 subtasks", i, cols[j].Name)
			}
		}
	}
}
