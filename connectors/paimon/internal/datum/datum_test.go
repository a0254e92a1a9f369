package datum

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

func TestCompare(t *testing.T) {
	lt := [][2]any{
		{nil, int32(0)}, {false, true}, {int8(-1), int8(1)}, {int16(1), int16(2)}, {int32(-5), int32(3)}, {int64(1) << 40, int64(1) << 41},
		{float32(math.Copysign(0, -1)), float32(0)}, {1.5, math.NaN()}, {math.Inf(-1), -1e300},
		{"Alex", "Alice"}, {"Z", "a"}, {"abc", "abcd"}, {"z", "é"}, // unsigned UTF-8 bytes: 'z' < 0xC3
		{[]byte{1}, []byte{1, 0}}, {decimal.New(100, -2), decimal.New(101, -2)},
		{sql.TimestampData{Millis: 1, NanoOfMilli: 5}, sql.TimestampData{Millis: 1, NanoOfMilli: 6}},
		{[]any{int32(1), "a"}, []any{int32(1), "b"}},
	}
	for _, c := range lt {
		if Compare(c[0], c[1]) >= 0 || Compare(c[1], c[0]) <= 0 {
			t.Errorf("expected %v < %v", c[0], c[1])
		}
		if Compare(c[0], c[0]) != 0 {
			t.Errorf("%v != itself", c[0])
		}
	}
	if Compare(decimal.New(1, 0), decimal.New(100, -2)) != 0 {
		t.Error("1 vs 1.00")
	}
	if CompareRows([]any{"a", int32(1)}, []any{"a", int32(2)}) >= 0 {
		t.Error("rows")
	}
	if Comparable(sql.ArrayOf(sql.Int())) || !Comparable(sql.String()) {
		t.Error("Comparable")
	}
}
