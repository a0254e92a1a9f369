package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// castValue converts v (in from's Go representation) to to's, as Flink's
// CAST does. Errors are what a failing CAST reports at runtime; TRY_CAST
// turns them into NULL.
func castValue(v any, from, to sql.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch to.Root {
	case sql.TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "t", "yes", "y", "1":
				return true, nil
			case "false", "f", "no", "n", "0":
				return false, nil
			}
			return nil, castErr(v, to)
		}
		if f, ok := toFloat(v); ok {
			return f != 0, nil
		}
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt:
		var n int64
		switch x := v.(type) {
		case string:
			// A string out of the target's range fails like a malformed
			// one (Flink's BinaryStringDataUtil.toInt/toByte/...), where a
			// wider number narrows by wrapping, as Java casts do.
			bits := map[sql.TypeRoot]int{sql.TypeTinyInt: 8, sql.TypeSmallInt: 16, sql.TypeInt: 32}[to.Root]
			if bits == 0 {
				bits = 64
			}
			i, err := strconv.ParseInt(strings.TrimSpace(x), 10, bits)
			if err != nil {
				return nil, castErr(v, to)
			}
			n = i
		case bool:
			if x {
				n = 1
			}
		case decimal.Decimal:
			n = x.Truncate(0).IntPart()
		case float32:
			n = int64(x)
		case float64:
			n = int64(x)
		default:
			i, ok := ToInt(v)
			if !ok {
				return nil, castErr(v, to)
			}
			n = i
		}
		return intOf(n, to.Root), nil
	case sql.TypeFloat, sql.TypeDouble:
		var f float64
		switch x := v.(type) {
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, castErr(v, to)
			}
			f = p
		case bool:
			if x {
				f = 1
			}
		default:
			p, ok := toFloat(v)
			if !ok {
				return nil, castErr(v, to)
			}
			f = p
		}
		if to.Root == sql.TypeFloat {
			return float32(f), nil
		}
		return f, nil
	case sql.TypeDecimal:
		var d decimal.Decimal
		switch x := v.(type) {
		case string:
			p, err := decimal.NewFromString(strings.TrimSpace(x))
			if err != nil {
				return nil, castErr(v, to)
			}
			d = p
		case decimal.Decimal:
			d = x
		case float32:
			d = decimal.NewFromFloat32(x)
		case float64:
			if isNaNInf(x) {
				return nil, castErr(v, to)
			}
			d = decimal.NewFromFloat(x)
		case bool:
			if x {
				d = decimal.NewFromInt(1)
			}
		default:
			i, ok := ToInt(v)
			if !ok {
				return nil, castErr(v, to)
			}
			d = decimal.NewFromInt(i)
		}
		d = d.Round(int32(to.Scale))
		// Flink returns NULL when the value does not fit the precision.
		if len(d.Abs().Truncate(0).String()) > to.Precision-to.Scale && !d.Truncate(0).IsZero() {
			return nil, nil
		}
		return d, nil
	case sql.TypeChar, sql.TypeVarChar:
		s := sql.FormatValue(v, from)
		if from.Root == sql.TypeTimestamp || from.Root == sql.TypeTimestampLTZ {
			s = formatTimestampSQL(v.(sql.TimestampData), from.Precision)
		}
		if from.Root == sql.TypeBinary || from.Root == sql.TypeVarBinary {
			s = string(v.([]byte))
		}
		if to.Length < sql.MaxLength && len([]rune(s)) > to.Length {
			s = string([]rune(s)[:to.Length])
		}
		return s, nil
	case sql.TypeBinary, sql.TypeVarBinary:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case sql.TypeDate:
		switch x := v.(type) {
		case string:
			t, err := time.Parse("2006-01-02", strings.TrimSpace(x))
			if err != nil {
				return nil, castErr(v, to)
			}
			return int32(t.Unix() / 86400), nil
		case sql.TimestampData:
			return int32(math.Floor(float64(x.Millis) / 86400000)), nil
		case int32:
			return x, nil
		}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		switch x := v.(type) {
		case string:
			ts, err := parseTimestamp(x)
			if err != nil {
				return nil, castErr(v, to)
			}
			return ts, nil
		case sql.TimestampData:
			return truncTimestamp(x, to.Precision), nil
		case int32:
			if from.Root == sql.TypeDate {
				return sql.TimestampData{Millis: int64(x) * 86400000}, nil
			}
		}
	case sql.TypeTime:
		switch x := v.(type) {
		case string:
			for _, layout := range []string{"15:04:05.999999999", "15:04:05", "15:04"} {
				if t, err := time.Parse(layout, strings.TrimSpace(x)); err == nil {
					return int32(t.Hour()*3600000 + t.Minute()*60000 + t.Second()*1000 + t.Nanosecond()/1e6), nil
				}
			}
			return nil, castErr(v, to)
		case sql.TimestampData:
			ms := x.Millis % 86400000
			if ms < 0 {
				ms += 86400000
			}
			return int32(ms), nil
		case int32:
			return x, nil
		}
	case sql.TypeNull:
		return nil, nil
	case sql.TypeArray, sql.TypeRow, sql.TypeMap:
		if from.Root == to.Root {
			return castNested(v, from, to)
		}
	default:
		if from.Root == to.Root {
			return v, nil
		}
	}
	return nil, castErr(v, to)
}

// castNested casts an ARRAY, ROW or MAP value member by member, so that an
// ARRAY<INT> written as ARRAY<BIGINT> holds int64 elements (Flink's
// ArrayToArrayCastRule, RowToRowCastRule, MapToMapAndMultisetToMultisetCastRule).
func castNested(v any, from, to sql.DataType) (any, error) {
	member := func(x any, f, t sql.DataType) (any, error) {
		if x == nil || f.WithNullable(false).Equal(t.WithNullable(false)) {
			return x, nil
		}
		return castValue(x, f, t)
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var f, t sql.DataType
			switch {
			case to.Root == sql.TypeArray && from.Elem != nil && to.Elem != nil:
				f, t = *from.Elem, *to.Elem
			case to.Root == sql.TypeRow && i < len(from.Fields) && i < len(to.Fields):
				f, t = from.Fields[i].Type, to.Fields[i].Type
			default:
				return nil, castErr(v, to)
			}
			c, err := member(e, f, t)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *sql.Map:
		if from.Elem == nil || to.Elem == nil || from.Value == nil || to.Value == nil {
			return nil, castErr(v, to)
		}
		out := &sql.Map{Keys: make([]any, len(x.Keys)), Values: make([]any, len(x.Values))}
		for i := range x.Keys {
			k, err := member(x.Keys[i], *from.Elem, *to.Elem)
			if err != nil {
				return nil, err
			}
			val, err := member(x.Values[i], *from.Value, *to.Value)
			if err != nil {
				return nil, err
			}
			out.Keys[i], out.Values[i] = k, val
		}
		return out, nil
	}
	return nil, castErr(v, to)
}

func castErr(v any, to sql.DataType) error {
	return sql.Errorf(sql.TableException, "Cannot cast %v to %s", v, to.WithNullable(true))
}

func intOf(n int64, r sql.TypeRoot) any {
	switch r {
	case sql.TypeTinyInt:
		return int8(n)
	case sql.TypeSmallInt:
		return int16(n)
	case sql.TypeInt:
		return int32(n)
	}
	return n
}

// ToInt reads a Go integer of any width as an int64.
func ToInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	case decimal.Decimal:
		f, _ := x.Float64()
		return f, true
	}
	if i, ok := ToInt(v); ok {
		return float64(i), true
	}
	return 0, false
}

func toDecimal(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, true
	case float32:
		return decimal.NewFromFloat32(x), true
	case float64:
		return decimal.NewFromFloat(x), true
	}
	if i, ok := ToInt(v); ok {
		return decimal.NewFromInt(i), true
	}
	return decimal.Decimal{}, false
}

// parseTimestamp reads 'yyyy-MM-dd HH:mm:ss[.fff]' (or with T), as CAST
// and TO_TIMESTAMP do.
func parseTimestamp(s string) (sql.TimestampData, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return sql.TimestampFromTime(t), nil
		}
	}
	return sql.TimestampData{}, fmt.Errorf("invalid timestamp %q", s)
}

func truncTimestamp(t sql.TimestampData, p int) sql.TimestampData {
	switch {
	case p >= 9:
		return t
	case p <= 3:
		unit := int64(math.Pow10(3 - p))
		t.Millis = t.Millis - ((t.Millis%unit)+unit)%unit
		t.NanoOfMilli = 0
	default:
		unit := int32(math.Pow10(9 - p))
		t.NanoOfMilli -= t.NanoOfMilli % unit
	}
	return t
}

// formatTimestampSQL prints a timestamp as CAST(ts AS STRING) does in
// Flink: 'yyyy-MM-dd HH:mm:ss' plus exactly p fractional digits.
func formatTimestampSQL(t sql.TimestampData, p int) string {
	tm := t.Time()
	s := tm.Format("2006-01-02 15:04:05")
	if p > 0 {
		frac := fmt.Sprintf("%09d", tm.Nanosecond())
		s += "." + frac[:min(p, 9)]
	}
	return s
}
