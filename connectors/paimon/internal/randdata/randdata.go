// Package randdata generates random types and values (in the Go
// representations of sql/row.go) for property tests of the Paimon codecs.
package randdata

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// Atomic returns a random atomic type.
func Atomic(r *rand.Rand) sql.DataType {
	var t sql.DataType
	switch r.Intn(17) {
	case 0:
		t = sql.Boolean()
	case 1:
		t = sql.TinyInt()
	case 2:
		t = sql.SmallInt()
	case 3:
		t = sql.Int()
	case 4:
		t = sql.BigInt()
	case 5:
		t = sql.Float()
	case 6:
		t = sql.Double()
	case 7:
		t = sql.Decimal(1+r.Intn(38), 0)
		t.Scale = r.Intn(t.Precision + 1)
	case 8:
		t = sql.String()
	case 9:
		t = sql.VarChar(1 + r.Intn(20))
	case 10:
		t = sql.Bytes()
	case 11:
		t = sql.Date()
	case 12:
		t = sql.Time(0)
	case 13:
		t = sql.Timestamp(r.Intn(10))
	case 14:
		t = sql.TimestampLTZ(r.Intn(10))
	case 15:
		t = sql.Char(1 + r.Intn(5))
	default:
		t = sql.Binary(1 + r.Intn(5))
	}
	if r.Intn(4) == 0 {
		t = t.NotNull()
	}
	return t
}

// Type returns a random type, nesting ARRAY/MAP/ROW up to depth.
func Type(r *rand.Rand, depth int) sql.DataType {
	if depth <= 0 || r.Intn(3) > 0 {
		return Atomic(r)
	}
	var t sql.DataType
	switch r.Intn(3) {
	case 0:
		t = sql.ArrayOf(Type(r, depth-1))
	case 1:
		t = sql.MapOf(Atomic(r).NotNull(), Type(r, depth-1))
	default:
		n := 1 + r.Intn(3)
		fs := make([]sql.Field, n)
		for i := range fs {
			fs[i] = sql.Field{Name: fmt.Sprintf("f%d", i), Type: Type(r, depth-1)}
		}
		t = sql.RowOf(fs...)
	}
	if r.Intn(4) == 0 {
		t = t.NotNull()
	}
	return t
}

const letters = "abcxyzé漢 "

func str(r *rand.Rand, max int) string {
	n := r.Intn(max + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		rs := []rune(letters)
		b.WriteRune(rs[r.Intn(len(rs))])
	}
	return b.String()
}

// Value returns a random value of t (nil for nullable types sometimes).
func Value(r *rand.Rand, t sql.DataType) any {
	if t.Nullable && r.Intn(5) == 0 {
		return nil
	}
	switch t.Root {
	case sql.TypeBoolean:
		return r.Intn(2) == 0
	case sql.TypeTinyInt:
		return int8(r.Intn(256) - 128)
	case sql.TypeSmallInt:
		return int16(r.Intn(65536) - 32768)
	case sql.TypeInt:
		return int32(r.Uint32())
	case sql.TypeBigInt:
		return int64(r.Uint64())
	case sql.TypeFloat:
		return float32(r.NormFloat64())
	case sql.TypeDouble:
		return r.NormFloat64() * 1e6
	case sql.TypeDecimal:
		digits := make([]byte, t.Precision)
		for i := range digits {
			digits[i] = byte('0' + r.Intn(10))
		}
		d := decimal.RequireFromString(string(digits)).Shift(-int32(t.Scale))
		if r.Intn(2) == 0 {
			d = d.Neg()
		}
		return d
	case sql.TypeChar, sql.TypeVarChar:
		return str(r, 12)
	case sql.TypeBinary, sql.TypeVarBinary:
		b := make([]byte, r.Intn(12))
		r.Read(b)
		return b
	case sql.TypeDate:
		return int32(r.Intn(40000) - 10000)
	case sql.TypeTime:
		return int32(r.Intn(86400000))
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		ts := sql.TimestampData{Millis: r.Int63n(4e12) - 1e12}
		switch {
		case t.Precision > 6:
			ts.NanoOfMilli = int32(r.Intn(1e6))
		case t.Precision > 3:
			ts.NanoOfMilli = int32(r.Intn(1e3)) * 1000
		default:
			// millisecond precision
		}
		return ts
	case sql.TypeArray:
		n := r.Intn(4)
		out := make([]any, n)
		for i := range out {
			out[i] = Value(r, *t.Elem)
		}
		return out
	case sql.TypeMap:
		n := r.Intn(3)
		m := &sql.Map{}
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			k := Value(r, *t.Elem)
			if seen[fmt.Sprint(k)] {
				continue
			}
			seen[fmt.Sprint(k)] = true
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, Value(r, *t.Value))
		}
		return m
	case sql.TypeRow:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = Value(r, f.Type)
		}
		return out
	}
	panic(fmt.Sprintf("randdata: type %s", t))
}

// Equal compares values structurally, decimals by value.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *sql.Map:
		y, ok := b.(*sql.Map)
		return ok && Equal(append([]any{}, x.Keys...), append([]any{}, y.Keys...)) && Equal(append([]any{}, x.Values...), append([]any{}, y.Values...))
	}
	return reflect.DeepEqual(a, b)
}
