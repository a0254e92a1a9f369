package expr

import (
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestHashCode checks HASH_CODE, the split distinct aggregation's bucket
// function: Java's Integer.hashCode and Long.hashCode for integers, 0 for
// NULL, and a hash of a string that is the same in every process (a
// restored job must put a value in the bucket it had before).
func TestHashCode(t *testing.T) {
	for _, c := range []struct {
		v    any
		t    sql.DataType
		want int32
	}{
		{int32(7), sql.Int(), 7},
		{int32(-7), sql.Int(), -7},
		{int64(-3), sql.BigInt(), 2},      // Long.hashCode(-3L) = (int)(-3 ^ (-3 >>> 32)) = 2
		{int64(1) << 32, sql.BigInt(), 1}, // Long.hashCode(4294967296L)
		{int16(12), sql.SmallInt(), 12},   // Short.hashCode
		{nil, sql.String(), 0},            // NULL
		{"", sql.String(), -2128831035},   // FNV-1a offset basis
		{"a", sql.String(), -468965076},   // FNV-1a("a") = 0xe40c292c
		{"Order-1001", sql.String(), fnvHash("Order-1001")},
	} {
		e := &Call{Op: "HASH_CODE", Args: []Expr{&Literal{Value: c.v, T: c.t}}, T: sql.Int().NotNull()}
		f, err := Compile(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("HASH_CODE(%v) = %v, want %d", c.v, got, c.want)
		}
	}
}
