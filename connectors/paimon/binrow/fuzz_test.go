package binrow

import (
	"reflect"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// FuzzDecode feeds garbage to the decoder under a mix of types: it must
// return an error or values, never panic.
func FuzzDecode(f *testing.F) {
	types := []sql.DataType{sql.Int(), sql.String(), sql.Decimal(38, 2), sql.Timestamp(9), sql.Bytes(), sql.Decimal(10, 1), sql.ArrayOf(sql.String()), sql.MapOf(sql.Int(), sql.String()),
		sql.RowOf(sql.Field{Name: "x", Type: sql.String()})}
	seed, _ := Serialize(types, []any{int32(1), "a long string value", nil, sql.TimestampData{Millis: 5, NanoOfMilli: 7}, []byte("bytes!!!!"), nil, []any{"a", nil, "long string!"}, &sql.Map{Keys: []any{int32(1)}, Values: []any{"v"}}, []any{"nested!!!"}})
	f.Add(seed)
	f.Add(EmptyRow())
	f.Fuzz(func(t *testing.T, b []byte) {
		for n := 0; n <= len(types); n++ {
			vals, err := Deserialize(types[:n], b)
			if err != nil {
				continue
			}
			// Whatever decodes must re-encode.
			if _, err := Encode(types[:n], vals); err != nil {
				t.Fatalf("decoded values do not re-encode: %v", err)
			}
		}
		// DecodeCompact accepts and refuses what Decode does, with the
		// same values.
		for n := 0; n <= len(types); n++ {
			want, werr := Decode(types[:n], b)
			got := make([]any, n)
			gerr := DecodeCompact(got, types[:n], b)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%d fields: Decode error %v, DecodeCompact error %v", n, werr, gerr)
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%d fields: DecodeCompact %#v, Decode %#v", n, got, want)
			}
		}
	})
}
