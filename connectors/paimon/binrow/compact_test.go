package binrow

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// TestDecodeCompact: DecodeCompact decodes every type as Decode does
// (nulls, empty and inline strings, the boxed kinds and the rest), and
// its values own their memory: they are unchanged after the bytes they
// were decoded from are overwritten and collections ran.
func TestDecodeCompact(t *testing.T) {
	types := []sql.DataType{sql.Boolean(), sql.TinyInt(), sql.SmallInt(), sql.Int(), sql.BigInt(), sql.Float(), sql.Double(),
		sql.Decimal(10, 2), sql.Decimal(38, 4), sql.String(), sql.String(), sql.String(), sql.Char(3), sql.Bytes(), sql.Date(), sql.Time(3),
		sql.Timestamp(3), sql.Timestamp(9), sql.RowOf(sql.Field{Name: "a", Type: sql.Int()}, sql.Field{Name: "b", Type: sql.String()}),
		sql.Int(), sql.String(), sql.BigInt(), sql.Double()}
	vals := []any{true, int8(-3), int16(-300), int32(-70000), int64(-1) << 40, float32(1.5), 2.25,
		decimal.New(-12345, -2), decimal.RequireFromString("-123456789012345678901234.5678"), "ünïcode and long", "", "inline", "abc",
		[]byte{1, 2, 3}, int32(19000), int32(3600_000), sql.TimestampData{Millis: -5}, sql.TimestampData{Millis: 1700000000123, NanoOfMilli: 456789},
		[]any{int32(5), "nested string!"}, nil, nil, nil, nil}
	b, err := Encode(types, vals)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(types, b)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, len(types))
	if err := DecodeCompact(got, types, b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeCompact %#v\nDecode %#v", got, want)
	}
	for i := range b {
		b[i] = 0xA5
	}
	runtime.GC()
	runtime.GC()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the bytes were overwritten: %#v\nwant %#v", got, want)
	}
	if err := DecodeCompact(got, types, b[:20]); err == nil {
		t.Error("a truncated row decoded")
	}
}
