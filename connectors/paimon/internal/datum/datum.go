// Package datum compares values of the sql/row.go Go representations the
// way Paimon orders them: keys in data files are sorted field-wise with this
// order, and min/max statistics use it. Strings and binaries compare by
// unsigned bytes (UTF-8), which is Java's BinaryString order.
package datum

import (
	"bytes"
	"cmp"
	"math"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// Compare orders two non-null values of the same type; a nil sorts before
// any value (Paimon's nulls-first key order).
func Compare(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int8:
		return cmp.Compare(x, b.(int8))
	case int16:
		return cmp.Compare(x, b.(int16))
	case int32:
		return cmp.Compare(x, b.(int32))
	case int64:
		return cmp.Compare(x, b.(int64))
	case float32:
		return compareFloat(float64(x), float64(b.(float32)))
	case float64:
		return compareFloat(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case decimal.Decimal:
		return x.Cmp(b.(decimal.Decimal))
	case sql.TimestampData:
		return x.Compare(b.(sql.TimestampData))
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := Compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	}
	return 0
}

// compareFloat is Java's Double.compare: -0.0 < 0.0, NaN greatest.
func compareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xb, yb := int64(math.Float64bits(x)), int64(math.Float64bits(y))
	if math.IsNaN(x) {
		xb = 0x7ff8000000000000
	}
	if math.IsNaN(y) {
		yb = 0x7ff8000000000000
	}
	return cmp.Compare(xb, yb)
}

// CompareRows compares two rows field by field.
func CompareRows(a, b []any) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// Comparable reports whether Paimon keeps min/max statistics for a type
// (nested types have none).
func Comparable(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeArray, sql.TypeMap, sql.TypeRow, sql.TypeNull:
		return false
	}
	return true
}
