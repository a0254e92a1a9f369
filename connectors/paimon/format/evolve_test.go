package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TestEvolveCasts is issue 13's fourth item: a column whose type changed
// reads old values converted as Paimon's CastExecutors converts them
// (release-1.4, org.apache.paimon.casting; each case names its rule).
// The time zone of TIMESTAMP_LTZ conversions is fixed at UTC+2.
func TestEvolveCasts(t *testing.T) {
	defer func(z *time.Location) { evolveZone = z }(evolveZone)
	evolveZone = time.FixedZone("x", 2*3600)
	ts := func(ms int64, nano int32) sql.TimestampData { return sql.TimestampData{Millis: ms, NanoOfMilli: nano} }
	const h = 3_600_000
	for _, c := range []struct {
		rule     string
		from, to sql.DataType
		in, want any
	}{
		// NumericPrimitiveCastRule: Java's primitive conversions.
		{"NumericPrimitiveCastRule", sql.TinyInt(), sql.BigInt(), int8(-5), int64(-5)},
		{"NumericPrimitiveCastRule", sql.Int(), sql.TinyInt(), int32(383), int8(127)},
		{"NumericPrimitiveCastRule", sql.Int(), sql.TinyInt(), int32(384), int8(-128)},
		{"NumericPrimitiveCastRule", sql.BigInt(), sql.Int(), int64(1) << 33, int32(0)},
		{"NumericPrimitiveCastRule", sql.Int(), sql.Double(), int32(7), float64(7)},
		{"NumericPrimitiveCastRule", sql.BigInt(), sql.Float(), int64(16777217), float32(16777216)},
		{"NumericPrimitiveCastRule", sql.Double(), sql.Int(), 1e12, int32(math.MaxInt32)},
		{"NumericPrimitiveCastRule", sql.Double(), sql.BigInt(), -2.9, int64(-2)},
		{"NumericPrimitiveCastRule", sql.Double(), sql.TinyInt(), 300.7, int8(44)},
		{"NumericPrimitiveCastRule", sql.Float(), sql.Int(), float32(math.NaN()), int32(0)},
		{"NumericPrimitiveCastRule", sql.Float(), sql.Double(), float32(0.1), float64(float32(0.1))},
		// DecimalToDecimalCastRule: HALF_UP to the new scale, null past the precision.
		{"DecimalToDecimalCastRule", sql.Decimal(10, 2), sql.Decimal(10, 1), dec("1.25"), dec("1.3")},
		{"DecimalToDecimalCastRule", sql.Decimal(10, 2), sql.Decimal(10, 1), dec("-1.25"), dec("-1.3")},
		{"DecimalToDecimalCastRule", sql.Decimal(10, 2), sql.Decimal(20, 4), dec("12.34"), dec("12.3400")},
		{"DecimalToDecimalCastRule", sql.Decimal(10, 2), sql.Decimal(3, 1), dec("123.45"), nil},
		// NumericPrimitiveToDecimalCastRule: BigDecimal.valueOf.
		{"NumericPrimitiveToDecimalCastRule", sql.Int(), sql.Decimal(5, 2), int32(123), dec("123.00")},
		{"NumericPrimitiveToDecimalCastRule", sql.Int(), sql.Decimal(4, 2), int32(123), nil},
		{"NumericPrimitiveToDecimalCastRule", sql.Double(), sql.Decimal(10, 2), 2.675, dec("2.68")},
		{"NumericPrimitiveToDecimalCastRule", sql.Float(), sql.Decimal(20, 10), float32(0.1), dec("0.1000000015")},
		// DecimalToNumericPrimitiveCastRule: castToIntegral (toward zero), doubleValue.
		{"DecimalToNumericPrimitiveCastRule", sql.Decimal(10, 2), sql.Int(), dec("-7.99"), int32(-7)},
		{"DecimalToNumericPrimitiveCastRule", sql.Decimal(10, 2), sql.TinyInt(), dec("300.5"), int8(44)},
		{"DecimalToNumericPrimitiveCastRule", sql.Decimal(10, 2), sql.Double(), dec("0.10"), 0.1},
		{"DecimalToNumericPrimitiveCastRule", sql.Decimal(38, 0), sql.BigInt(), dec("18446744073709551617"), int64(1)},
		// BooleanToNumericCastRule and NumericToBooleanCastRule.
		{"BooleanToNumericCastRule", sql.Boolean(), sql.Int(), true, int32(1)},
		{"BooleanToNumericCastRule", sql.Boolean(), sql.Decimal(3, 2), true, dec("1.00")},
		{"NumericToBooleanCastRule", sql.BigInt(), sql.Boolean(), int64(-3), true},
		{"NumericToBooleanCastRule", sql.TinyInt(), sql.Boolean(), int8(0), false},
		// To string.
		{"NumericToStringCastRule", sql.Int(), sql.String(), int32(-42), "-42"},
		{"NumericToStringCastRule", sql.Double(), sql.String(), 1e10, "1.0E10"},
		{"NumericToStringCastRule", sql.Decimal(10, 3), sql.String(), dec("1.5"), "1.500"},
		{"NumericToStringCastRule", sql.BigInt(), sql.VarChar(3), int64(123456), "123"},
		{"NumericToStringCastRule", sql.Int(), sql.Char(4), int32(7), "7   "},
		{"BooleanToStringCastRule", sql.Boolean(), sql.String(), true, "true"},
		{"StringToStringCastRule", sql.VarChar(10), sql.VarChar(2), "héllo", "hé"},
		{"StringToStringCastRule", sql.VarChar(10), sql.Char(3), "a", "a  "},
		{"BinaryToStringCastRule", sql.Bytes(), sql.String(), []byte("raw"), "raw"},
		{"DateToStringCastRule", sql.Date(), sql.String(), int32(19724), "2024-01-02"},
		{"TimeToStringCastRule", sql.Time(0), sql.String(), int32(10*h + 120), "10:00:00"},
		{"TimeToStringCastRule", sql.Time(3), sql.String(), int32(10*h + 120), "10:00:00.12"},
		{"TimestampToStringCastRule", sql.Timestamp(3), sql.String(), ts(1704164645120, 0), "2024-01-02 03:04:05.120"},
		{"TimestampToStringCastRule", sql.Timestamp(0), sql.String(), ts(1704164645000, 0), "2024-01-02 03:04:05"},
		{"TimestampToStringCastRule", sql.Timestamp(9), sql.String(), ts(1704164645000, 1500), "2024-01-02 03:04:05.000001500"},
		{"TimestampToStringCastRule", sql.TimestampLTZ(3), sql.String(), ts(1704164645000, 0), "2024-01-02 05:04:05.000"},
		// From string.
		{"StringToBooleanCastRule", sql.String(), sql.Boolean(), "Yes", true},
		{"StringToBooleanCastRule", sql.String(), sql.Boolean(), "0", false},
		{"StringToDecimalCastRule", sql.String(), sql.Decimal(5, 2), "3.14159", dec("3.14")},
		{"StringToNumericPrimitiveCastRule", sql.String(), sql.Int(), "-12.9", int32(-12)},
		{"StringToNumericPrimitiveCastRule", sql.String(), sql.BigInt(), "+7", int64(7)},
		{"StringToNumericPrimitiveCastRule", sql.String(), sql.Double(), " 2.5 ", 2.5},
		{"StringToDateCastRule", sql.String(), sql.Date(), "2024-01-02", int32(19724)},
		{"StringToDateCastRule", sql.String(), sql.Date(), "19724", int32(19724)},
		{"StringToTimeCastRule", sql.String(), sql.Time(0), "10:00:01", int32(10*h + 1000)},
		{"StringToTimestampCastRule", sql.String(), sql.Timestamp(3), "2024-01-02 03:04:05.1239", ts(1704164645123, 0)},
		{"StringToTimestampCastRule", sql.String(), sql.Timestamp(3), "1000", ts(1000, 0)},
		{"StringToTimestampCastRule", sql.String(), sql.TimestampLTZ(3), "2024-01-02 03:04:05", ts(1704164645000-2*h, 0)},
		{"StringToBinaryCastRule", sql.String(), sql.Bytes(), "ab", []byte("ab")},
		{"StringToBinaryCastRule", sql.String(), sql.Binary(4), "ab", []byte{'a', 'b', 0, 0}},
		// Date/Time/Timestamp rules.
		{"TimestampToTimestampCastRule", sql.Timestamp(9), sql.Timestamp(3), ts(1000, 999_999), ts(1000, 0)},
		{"TimestampToTimestampCastRule", sql.Timestamp(9), sql.Timestamp(6), ts(1000, 123_456), ts(1000, 123_000)},
		{"TimestampToTimestampCastRule", sql.Timestamp(3), sql.Timestamp(0), ts(-1500, 0), ts(-1000, 0)},
		{"TimestampToTimestampCastRule", sql.Timestamp(3), sql.Timestamp(6), ts(1500, 0), ts(1500, 0)},
		{"TimestampToTimestampCastRule", sql.Timestamp(3), sql.TimestampLTZ(3), ts(10*h, 0), ts(8*h, 0)},
		{"TimestampToTimestampCastRule", sql.TimestampLTZ(3), sql.Timestamp(3), ts(8*h, 0), ts(10*h, 0)},
		{"TimestampToDateCastRule", sql.Timestamp(3), sql.Date(), ts(-1, 0), int32(-1)},
		{"TimestampToDateCastRule", sql.TimestampLTZ(3), sql.Date(), ts(23*h, 0), int32(1)},
		{"TimestampToTimeCastRule", sql.Timestamp(3), sql.Time(0), ts(86_400_000+5*h, 0), int32(5 * h)},
		{"DateToTimestampCastRule", sql.Date(), sql.Timestamp(3), int32(2), ts(2*86_400_000, 0)},
		{"DateToTimestampCastRule", sql.Date(), sql.TimestampLTZ(3), int32(0), ts(-2*h, 0)},
		{"TimeToTimestampCastRule", sql.Time(0), sql.Timestamp(3), int32(h), ts(h, 0)},
		{"TimestampToNumericPrimitiveCastRule", sql.Timestamp(3), sql.BigInt(), ts(5999, 0), int64(5)},
		{"NumericPrimitiveToTimestamp", sql.BigInt(), sql.Timestamp(3), int64(5), ts(5000, 0)},
		{"NumericPrimitiveToTimestamp", sql.Int(), sql.TimestampLTZ(3), int32(0), ts(2*h, 0)},
		// To binary.
		{"BinaryToBinaryCastRule", sql.Bytes(), sql.VarBinary(2), []byte("abc"), []byte("ab")},
		{"BinaryToBinaryCastRule", sql.VarBinary(2), sql.Binary(3), []byte("ab"), []byte{'a', 'b', 0}},
	} {
		name := fmt.Sprintf("%s %s->%s %v", c.rule, c.from, c.to, c.in)
		cast, err := evolveCast(c.from, c.to)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got, err := cast(c.in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if gd, ok := got.(decimal.Decimal); ok {
			if wd, ok := c.want.(decimal.Decimal); !ok || !gd.Equal(wd) || gd.Exponent() != -int32(c.to.Scale) {
				t.Errorf("%s = %v (exp %d), want %v", name, gd, gd.Exponent(), c.want)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v, want %#v", name, got, c.want)
		}
	}
	// Values a rule cannot convert fail the read, as Paimon's exceptions do;
	// pairs without a rule are refused when the column is resolved.
	for _, c := range []struct {
		from, to sql.DataType
		in       any
	}{
		{sql.String(), sql.Int(), "12a"},
		{sql.String(), sql.TinyInt(), "200"},
		{sql.String(), sql.Boolean(), "maybe"},
		{sql.String(), sql.Decimal(5, 2), " 1"},
		{sql.String(), sql.Date(), "yesterday"},
	} {
		cast, err := evolveCast(c.from, c.to)
		if err != nil {
			t.Fatalf("%s->%s: %v", c.from, c.to, err)
		}
		if _, err := cast(c.in); !errors.Is(err, ErrCast) {
			t.Errorf("%s->%s %q: error %v, want ErrCast", c.from, c.to, c.in, err)
		}
	}
	for _, p := range [][2]sql.DataType{{sql.Bytes(), sql.Int()}, {sql.Date(), sql.Int()}, {sql.Boolean(), sql.Date()}, {sql.Time(0), sql.Date()}} {
		if _, err := evolveCast(p[0], p[1]); !errors.Is(err, ErrCast) {
			t.Errorf("%s->%s: error %v, want no cast", p[0], p[1], err)
		}
	}
}

// TestEvolveReadOldFile reads a file written with an older schema through
// a newer one, by field id: a renamed column (same id, new name), a
// dropped one, an added one (null), and type changes (INT to BIGINT,
// STRING to BYTES, BOOLEAN to STRING, DECIMAL(10,2) to DECIMAL(5,1), a
// DOUBLE to INT narrowing). Before the casts followed CastExecutors,
// STRING to BYTES failed with "cannot convert value for schema evolution".
func TestEvolveReadOldFile(t *testing.T) {
	old := []schema.Field{
		{ID: 0, Name: "k", Type: sql.Int()}, {ID: 1, Name: "s", Type: sql.String()},
		{ID: 2, Name: "flag", Type: sql.Boolean()}, {ID: 3, Name: "gone", Type: sql.String()},
		{ID: 4, Name: "amount", Type: sql.Decimal(10, 2)}, {ID: 5, Name: "ratio", Type: sql.Double()},
	}
	var buf bytes.Buffer
	w, err := NewAppendWriter(&buf, old, 0, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]any{
		{int32(1), "ab", true, "x", dec("12.35"), 2.9},
		{int32(2), nil, false, "y", dec("-0.05"), -1e12},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "old.parquet")
	if err != nil {
		t.Fatal(err)
	}
	cur := []schema.Field{
		{ID: 0, Name: "k", Type: sql.BigInt()}, {ID: 1, Name: "payload", Type: sql.Bytes()},
		{ID: 2, Name: "flag", Type: sql.String()}, {ID: 4, Name: "amount", Type: sql.Decimal(5, 1)},
		{ID: 5, Name: "ratio", Type: sql.Int()}, {ID: 6, Name: "added", Type: sql.Int()},
	}
	it, err := f.Rows(Projection{FileFields: old, Fields: cur})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, append([]any(nil), r...))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(1), []byte("ab"), "true", dec("12.4"), int32(2), nil},
		{int64(2), nil, "false", dec("-0.1"), int32(math.MinInt32), nil},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			g, w := got[i][j], want[i][j]
			if gd, ok := g.(decimal.Decimal); ok {
				if !gd.Equal(w.(decimal.Decimal)) {
					t.Errorf("row %d field %s = %v, want %v", i, cur[j].Name, g, w)
				}
				continue
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("row %d field %s = %#v, want %#v", i, cur[j].Name, g, w)
			}
		}
	}
}

// TestEvolveRenamedPrimaryKey reads a primary-key file whose key column
// was renamed and widened (INT id to BIGINT uid, same field id) and whose
// value column v was dropped: the _KEY_ column is found by the file's own
// key name and the key converted like the value.
func TestEvolveRenamedPrimaryKey(t *testing.T) {
	oldKeys := []schema.Field{{ID: 0, Name: "id", Type: sql.Int().NotNull()}}
	oldVals := []schema.Field{oldKeys[0], {ID: 1, Name: "v", Type: sql.String()}, {ID: 2, Name: "n", Type: sql.SmallInt()}}
	var buf bytes.Buffer
	w, err := NewKVWriter(&buf, oldKeys, oldVals, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := int32(1); i <= 2; i++ {
		if err := w.Write(&kv.KeyValue{Key: []any{i}, Seq: int64(i), Value: []any{i, "x", int16(-i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-old.parquet")
	if err != nil {
		t.Fatal(err)
	}
	newKeys := []schema.Field{{ID: 0, Name: "uid", Type: sql.BigInt().NotNull()}}
	newVals := []schema.Field{newKeys[0], {ID: 2, Name: "n", Type: sql.String()}}
	it, err := f.KeyValues(oldKeys, newKeys, Projection{FileFields: oldVals, Fields: newVals}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, fmt.Sprintf("%T=%v %T=%v %T=%v", r.Key[0], r.Key[0], r.Value[0], r.Value[0], r.Value[1], r.Value[1]))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	want := []string{"int64=1 int64=1 string=-1", "int64=2 int64=2 string=-2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// nestedOld and nestedNew are the schemas of TestEvolveNested*: nested ROW
// field ids in pre-order (schema.Field.NestedIDs). From old to new, as
// Paimon 1.4's NestedSchemaUtils.generateNestedColumnUpdates turns an
// ALTER TABLE MODIFY into nested changes: r.a INT → BIGINT, r.b dropped
// and re-added (a new id, so old values are not its values), r.c.x
// INT → STRING, r.c.z added; arr's element field x renamed x2 (same id)
// and widened; m's value row gains w and v becomes STRING.
var (
	nestedOld = []schema.Field{
		{ID: 0, Name: "k", Type: sql.Int()},
		{ID: 1, Name: "r", Type: sql.RowOf(
			sql.Field{Name: "a", Type: sql.Int()}, sql.Field{Name: "b", Type: sql.String()},
			sql.Field{Name: "c", Type: sql.RowOf(sql.Field{Name: "x", Type: sql.Int()})}),
			NestedIDs: []int{2, 3, 5, 4}},
		{ID: 6, Name: "arr", Type: sql.ArrayOf(sql.RowOf(
			sql.Field{Name: "x", Type: sql.Int()}, sql.Field{Name: "y", Type: sql.String()})),
			NestedIDs: []int{7, 8}},
		{ID: 9, Name: "m", Type: sql.MapOf(sql.String(), sql.RowOf(sql.Field{Name: "v", Type: sql.Int()})),
			NestedIDs: []int{10}},
	}
	nestedNew = []schema.Field{
		{ID: 0, Name: "k", Type: sql.Int()},
		{ID: 1, Name: "r", Type: sql.RowOf(
			sql.Field{Name: "a", Type: sql.BigInt()},
			sql.Field{Name: "c", Type: sql.RowOf(sql.Field{Name: "x", Type: sql.String()}, sql.Field{Name: "z", Type: sql.Int()})},
			sql.Field{Name: "b", Type: sql.String()}),
			NestedIDs: []int{2, 5, 4, 12, 11}},
		{ID: 6, Name: "arr", Type: sql.ArrayOf(sql.RowOf(
			sql.Field{Name: "x2", Type: sql.BigInt()}, sql.Field{Name: "y", Type: sql.String()})),
			NestedIDs: []int{7, 8}},
		{ID: 9, Name: "m", Type: sql.MapOf(sql.String(), sql.RowOf(
			sql.Field{Name: "v", Type: sql.String()}, sql.Field{Name: "w", Type: sql.Int()})),
			NestedIDs: []int{10, 13}},
	}
	nestedRows = [][]any{
		{int32(1), []any{int32(1), "bee", []any{int32(7)}},
			[]any{[]any{int32(1), "p"}, nil, []any{int32(2), nil}},
			&sql.Map{Keys: []any{"k1", "k2"}, Values: []any{[]any{int32(5)}, nil}}},
		{int32(2), nil, nil, nil},
		{int32(3), []any{nil, nil, nil}, []any{}, &sql.Map{}},
	}
	nestedWant = [][]any{
		{int32(1), []any{int64(1), []any{"7", nil}, nil},
			[]any{[]any{int64(1), "p"}, nil, []any{int64(2), nil}},
			&sql.Map{Keys: []any{"k1", "k2"}, Values: []any{[]any{"5", nil}, nil}}},
		{int32(2), nil, nil, nil},
		{int32(3), []any{nil, nil, nil}, []any{}, &sql.Map{}},
	}
)

// TestEvolveNestedParquet reads a Parquet file written before nested
// schema changes with the table's current schema: fields matched by id at
// every depth, as SchemaEvolutionUtil.createCastExecutor (release-1.4)
// converts ROW, ARRAY and MAP values. Before, the read failed ("changing
// nested column ... is not supported yet"), and a field dropped and
// re-added under the same name and type would have shown the old values.
func TestEvolveNestedParquet(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewAppendWriter(&buf, nestedOld, 0, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range nestedRows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "old.parquet")
	if err != nil {
		t.Fatal(err)
	}
	checkNestedRead(t, f)

	// The same type with a dropped-and-re-added field (new id): not the
	// old values.
	readd := slices.Clone(nestedOld)
	readd[1].NestedIDs = []int{2, 11, 5, 4}
	it, err := f.Rows(Projection{FileFields: nestedOld, Fields: readd[:2]})
	if err != nil {
		t.Fatal(err)
	}
	if r := it.Next(); r == nil || !reflect.DeepEqual(r[1], []any{int32(1), nil, []any{int32(7)}}) {
		t.Fatalf("re-added field: got %#v (err %v), want r.b null", r, it.Error())
	}

	// A MAP key type change has no executor (createMapCastExecutor).
	bad := slices.Clone(nestedOld)
	bad[3].Type = sql.MapOf(sql.VarChar(5), *nestedOld[3].Type.Value)
	if _, err := f.Rows(Projection{FileFields: nestedOld, Fields: bad}); err == nil ||
		!strings.Contains(err.Error(), "because they have different key types") {
		t.Fatalf("map key change: err = %v", err)
	}
}

func checkNestedRead(t *testing.T, f *File) {
	t.Helper()
	it, err := f.Rows(Projection{FileFields: nestedOld, Fields: nestedNew})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, append([]any(nil), r...))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(nestedWant) {
		t.Fatalf("got %d rows, want %d", len(got), len(nestedWant))
	}
	for i := range nestedWant {
		for j := range nestedWant[i] {
			if !reflect.DeepEqual(normEmpty(got[i][j]), normEmpty(nestedWant[i][j])) {
				t.Errorf("row %d column %s = %s, want %s", i, nestedNew[j].Name, fmt.Sprintf("%#v", got[i][j]), fmt.Sprintf("%#v", nestedWant[i][j]))
			}
		}
	}
}

// normEmpty makes empty and nil slices of an empty ARRAY or MAP compare equal.
func normEmpty(v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normEmpty(e)
		}
		return out
	case *sql.Map:
		if len(x.Keys) == 0 {
			return &sql.Map{}
		}
		return &sql.Map{Keys: x.Keys, Values: normEmpty(x.Values).([]any)}
	}
	return v
}

// TestEvolveNestedAvro is TestEvolveNestedParquet's conversion on an Avro
// data file (the ORC and Avro readers share it): one row of nestedOld
// written by hand, without nulls.
func TestEvolveNestedAvro(t *testing.T) {
	sch := `{"type":"record","name":"record","fields":[{"name":"k","type":"int"},
{"name":"r","type":{"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},
 {"name":"c","type":{"type":"record","name":"c","fields":[{"name":"x","type":"int"}]}}]}},
{"name":"arr","type":{"type":"array","items":{"type":"record","name":"e","fields":[{"name":"x","type":"int"},{"name":"y","type":"string"}]}}},
{"name":"m","type":{"type":"map","values":{"type":"record","name":"v","fields":[{"name":"v","type":"int"}]}}}]}`
	var rec []byte
	long := func(v int64) { rec = binary.AppendVarint(rec, v) }
	str := func(s string) { long(int64(len(s))); rec = append(rec, s...) }
	long(1)    // k
	long(1)    // r.a
	str("bee") // r.b
	long(7)    // r.c.x
	long(2)    // arr: a block of two
	long(1)    // arr[0].x
	str("p")   // arr[0].y
	long(2)    // arr[1].x
	str("q")   // arr[1].y
	long(0)    // end of arr
	long(1)    // m: a block of one
	str("k1")  // key
	long(5)    // m[k1].v
	long(0)    // end of m
	file := avroHeader(sch, "null")
	sync := file[len(file)-16:]
	file = binary.AppendVarint(file, 1)
	file = binary.AppendVarint(file, int64(len(rec)))
	file = append(append(file, rec...), sync...)
	f, err := Open(bytes.NewReader(file), int64(len(file)), "data-n-0.avro")
	if err != nil {
		t.Fatal(err)
	}
	it, err := f.Rows(Projection{FileFields: nestedOld, Fields: nestedNew})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	r := it.Next()
	if r == nil {
		t.Fatal(it.Error())
	}
	want := []any{int32(1), []any{int64(1), []any{"7", nil}, nil},
		[]any{[]any{int64(1), "p"}, []any{int64(2), "q"}},
		&sql.Map{Keys: []any{"k1"}, Values: []any{[]any{"5", nil}}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %#v\nwant %#v", r, want)
	}
}
