package binrow

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
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

// TestDecodePackedCompact: decoding a row's packed form gives what
// DecodeCompact gives for its BinaryRow, on the fast path (STRING, CHAR,
// INT, DATE, TIME, BIGINT, DOUBLE) and through an unpack for other types,
// with every field null in turn; the values do not alias the packed
// bytes; corrupt input is an error, not a panic.
func TestDecodePackedCompact(t *testing.T) {
	fast := []sql.DataType{sql.Int(), sql.String(), sql.String(), sql.Char(3), sql.BigInt(), sql.Double(), sql.Date(), sql.Time(3), sql.String()}
	fastVals := []any{int32(-7), "ünïcode and long", "", "abc", int64(-1) << 40, -2.5, int32(19000), int32(3600_000), string(make([]byte, 300))}
	other := append(slices.Clone(fast), sql.Decimal(38, 4), sql.Timestamp(9), sql.Boolean())
	otherVals := append(slices.Clone(fastVals), decimal.RequireFromString("-123456789012345678901234.5678"),
		sql.TimestampData{Millis: 1700000000123, NanoOfMilli: 456789}, true)
	for _, c := range []struct {
		types []sql.DataType
		vals  []any
	}{{fast, fastVals}, {other, otherVals}} {
		rows := [][]any{c.vals, make([]any, len(c.vals))}
		for i := range c.vals {
			v := slices.Clone(c.vals)
			v[i] = nil
			rows = append(rows, v)
		}
		var scratch []byte
		for _, vals := range rows {
			p, err := AppendPacked(nil, c.types, vals)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Encode(c.types, vals)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]any, len(c.types))
			if err := DecodeCompact(want, c.types, b); err != nil {
				t.Fatal(err)
			}
			got := make([]any, len(c.types))
			if scratch, err = DecodePackedCompact(got, c.types, p, scratch); err != nil {
				t.Fatalf("%v: %v", vals, err)
			}
			for i := range p {
				p[i] = 0xA5
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("DecodePackedCompact %#v\nDecodeCompact %#v", got, want)
			}
		}
		good, _ := AppendPacked(nil, c.types, c.vals)
		r := rand.New(rand.NewPCG(1, 2))
		out := make([]any, len(c.types))
		for range 2000 {
			b := append([]byte(nil), good[:r.IntN(len(good)+1)]...)
			if len(b) > 0 {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
			DecodePackedCompact(out, c.types, b, nil)
		}
		if _, err := DecodePackedCompact(out, c.types, good[:len(good)-1], nil); err == nil {
			t.Error("a truncated packed row decoded")
		}
	}
}

// BenchmarkDecodePacked compares decoding a packed record of the
// benchmark row shape (INT + 20 STRING(10)) through an unpack to its
// BinaryRow with decoding it from the packed bytes (DecodePackedCompact).
func BenchmarkDecodePacked(b *testing.B) {
	types := []sql.DataType{sql.Int()}
	vals := []any{int32(7)}
	for i := range 20 {
		types = append(types, sql.String())
		vals = append(vals, fmt.Sprintf("%010x", i*7919))
	}
	p, err := AppendPacked(nil, types, vals)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]any, len(types))
	var scratch []byte
	b.Run("unpack", func(b *testing.B) {
		for range b.N {
			scratch, _ = AppendUnpacked(scratch[:0], types, p)
			if err := DecodeCompact(out, types, scratch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("packed", func(b *testing.B) {
		for range b.N {
			if scratch, err = DecodePackedCompact(out, types, p, scratch); err != nil {
				b.Fatal(err)
			}
		}
	})
}
