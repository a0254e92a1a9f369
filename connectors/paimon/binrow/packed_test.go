package binrow

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// TestPackedRoundTrip: unpacking the packed form of a row gives the bytes
// AppendEncode gives for it, for every type, with every field null in
// turn and with strings on both sides of the inline limit; the packed
// form of the benchmark row shape is the size the write buffer counts.
func TestPackedRoundTrip(t *testing.T) {
	types := []sql.DataType{sql.Boolean(), sql.TinyInt(), sql.SmallInt(), sql.Int(), sql.BigInt(), sql.Float(), sql.Double(),
		sql.Decimal(10, 2), sql.Decimal(38, 4), sql.Decimal(20, 0), sql.String(), sql.String(), sql.String(), sql.Char(3), sql.Bytes(), sql.Binary(9), sql.Bytes(), sql.Date(), sql.Time(3),
		sql.Timestamp(3), sql.Timestamp(9), sql.TimestampLTZ(6), sql.TimestampLTZ(3),
		sql.RowOf(sql.Field{Name: "a", Type: sql.Int()}, sql.Field{Name: "b", Type: sql.String()}),
		sql.ArrayOf(sql.String()), sql.MapOf(sql.Int(), sql.String())}
	vals := []any{true, int8(-3), int16(-300), int32(-70000), int64(-1) << 40, float32(1.5), 2.25,
		decimal.New(-12345, -2), decimal.RequireFromString("-123456789012345678901234.5678"), decimal.RequireFromString("-1"),
		"ünïcode and long", "", "seven77", "abc", []byte{1, 2, 3}, []byte("123456789"), []byte("eight888"), int32(19000), int32(3600_000),
		sql.TimestampData{Millis: -5}, sql.TimestampData{Millis: 1700000000123, NanoOfMilli: 456789}, sql.TimestampData{Millis: 1, NanoOfMilli: 999000},
		sql.TimestampData{Millis: 77},
		[]any{int32(5), "nested string!"}, []any{"a", nil, "long string!"}, &sql.Map{Keys: []any{int32(1)}, Values: []any{"v"}}}
	check := func(vals []any) {
		t.Helper()
		want, err := Encode(types, vals)
		if err != nil {
			t.Fatal(err)
		}
		p, err := AppendPacked([]byte("prefix"), types, vals)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendUnpacked([]byte("xy"), types, p[len("prefix"):])
		if err != nil {
			t.Fatalf("%v: %v", vals, err)
		}
		if !bytes.Equal(got[2:], want) {
			t.Fatalf("%v:\nunpacked %x\nencoded  %x", vals, got[2:], want)
		}
	}
	check(vals)
	for i := range vals {
		v := append([]any(nil), vals...)
		v[i] = nil
		check(v)
	}
	check(make([]any, len(types)))

	// The benchmark row shape: k INT and 20 STRING(10).
	shape := []sql.DataType{sql.Int()}
	row := []any{int32(7)}
	for range 20 {
		shape = append(shape, sql.String())
		row = append(row, "abcdefghij")
	}
	p, err := AppendPacked(nil, shape, row)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Encode(shape, row)
	if len(p) != 227 || len(full) != 496 {
		t.Errorf("packed %d bytes, BinaryRow %d; want 227 and 496", len(p), len(full))
	}

	// Corrupt input is an error, not a panic.
	r := rand.New(rand.NewPCG(1, 2))
	good, _ := AppendPacked(nil, types, vals)
	for range 2000 {
		b := append([]byte(nil), good[:r.IntN(len(good)+1)]...)
		if len(b) > 0 {
			b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
		}
		AppendUnpacked(nil, types, b)
	}
	if _, err := AppendUnpacked(nil, types, good[:len(good)-1]); err == nil {
		t.Error("a truncated packed row unpacked")
	}
	if _, err := AppendPacked(nil, []sql.DataType{sql.Int()}, []any{"x"}); err == nil {
		t.Error("a string packed as INT")
	}
}
