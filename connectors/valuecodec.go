package connectors

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// ParseText converts a CSV field (or a JSON string) to the column type's
// Go value, with Flink's text forms: dates yyyy-MM-dd, times HH:mm:ss,
// timestamps "yyyy-MM-dd HH:mm:ss[.fffffffff]" (a 'T' is accepted too),
// bytes in base64.
func ParseText(s string, t sql.DataType) (any, error) {
	switch t.Root {
	case sql.TypeChar, sql.TypeVarChar:
		return s, nil
	case sql.TypeBoolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("invalid BOOLEAN %q", s)
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeIntervalYearMonth, sql.TypeIntervalDayTime:
		// An interval is its count of months (an int) or milliseconds (a
		// long), as Flink's JsonToRowDataConverters reads it.
		bits := map[sql.TypeRoot]int{sql.TypeTinyInt: 8, sql.TypeSmallInt: 16, sql.TypeInt: 32, sql.TypeBigInt: 64,
			sql.TypeIntervalYearMonth: 32, sql.TypeIntervalDayTime: 64}[t.Root]
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return nil, fmt.Errorf("invalid %s %q", t, s)
		}
		return intOf(n, t), nil
	case sql.TypeFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil {
			return nil, fmt.Errorf("invalid FLOAT %q", s)
		}
		return float32(f), nil
	case sql.TypeDouble:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("invalid DOUBLE %q", s)
		}
		return f, nil
	case sql.TypeDecimal:
		d, err := decimal.NewFromString(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("invalid %s %q", t, s)
		}
		return fitDecimal(d, t)
	case sql.TypeBinary, sql.TypeVarBinary:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("invalid base64 for %s: %w", t, err)
		}
		return b, nil
	case sql.TypeDate:
		d, err := time.Parse("2006-01-02", strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("invalid DATE %q", s)
		}
		return int32(d.Unix() / 86400), nil
	case sql.TypeTime:
		// Flink's text formats keep no more of the fraction than the
		// column's precision: CsvToRowDataConverters.convertToTime rounds
		// the milliseconds down to it, and JsonToRowDataConverters.
		// convertToTime keeps whole seconds (toSecondOfDay() * 1000). A
		// DDL column is TIME(0) (sql.Planned), so both read whole seconds.
		for _, layout := range []string{"15:04:05.999999999", "15:04"} {
			if d, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
				ms := d.Hour()*3600000 + d.Minute()*60000 + d.Second()*1000 + d.Nanosecond()/1e6
				if p := t.Precision; p < 3 {
					unit := []int{1000, 100, 10}[p]
					ms -= ms % unit
				}
				return int32(ms), nil
			}
		}
		return nil, fmt.Errorf("invalid TIME %q", s)
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		v := strings.TrimSuffix(strings.Replace(strings.TrimSpace(s), "T", " ", 1), "Z")
		for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04"} {
			if d, err := time.Parse(layout, v); err == nil {
				return sql.TimestampFromTime(d), nil
			}
		}
		return nil, fmt.Errorf("invalid %s %q", t, s)
	}
	return nil, fmt.Errorf("type %s is not supported by this format", t)
}

func intOf(n int64, t sql.DataType) any {
	switch t.Root {
	case sql.TypeTinyInt:
		return int8(n)
	case sql.TypeSmallInt:
		return int16(n)
	case sql.TypeInt, sql.TypeIntervalYearMonth:
		return int32(n)
	}
	return n
}

// fitDecimal rounds to the column's scale and rejects values that overflow
// its precision (Flink turns those into NULL; we report them).
func fitDecimal(d decimal.Decimal, t sql.DataType) (any, error) {
	r := d.Round(int32(t.Scale))
	if t.Precision > 0 && len(r.Coefficient().String())-btoi(r.Sign() < 0) > t.Precision {
		return nil, fmt.Errorf("value %s does not fit %s", d, t)
	}
	return r, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FormatText renders a value in the text form ParseText reads.
func FormatText(v any, t sql.DataType) string {
	switch x := v.(type) {
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case sql.TimestampData:
		// Flink's SQL_TIMESTAMP_FORMAT: the fraction has as many digits as
		// it needs (none when zero).
		s := x.Time().Format("2006-01-02 15:04:05")
		if ns := x.Time().Nanosecond(); ns != 0 {
			s += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
		}
		if t.Root == sql.TypeTimestampLTZ {
			s += "Z"
		}
		return s
	case int32:
		switch t.Root {
		case sql.TypeDate:
			return sql.FormatDate(x)
		case sql.TypeTime:
			return time.UnixMilli(int64(x)).UTC().Format("15:04:05")
		}
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return sql.FormatValue(v, t)
}

// ValueFromJSON converts a decoded JSON value (decoded with UseNumber) to the
// column type's Go value.
func ValueFromJSON(v any, t sql.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		return ParseText(x, t)
	case json.Number:
		switch t.Root {
		case sql.TypeVarChar, sql.TypeChar:
			return x.String(), nil
		}
		return ParseText(x.String(), t)
	case bool:
		if t.Root == sql.TypeBoolean {
			return x, nil
		}
		if t.IsString() {
			return strconv.FormatBool(x), nil
		}
	case []any:
		switch t.Root {
		case sql.TypeArray:
			out := make([]any, len(x))
			for i, e := range x {
				var err error
				if out[i], err = ValueFromJSON(e, *t.Elem); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	case map[string]any:
		switch t.Root {
		case sql.TypeRow:
			out := make([]any, len(t.Fields))
			for i, f := range t.Fields {
				var err error
				if out[i], err = ValueFromJSON(x[f.Name], f.Type); err != nil {
					return nil, err
				}
			}
			return out, nil
		case sql.TypeMap:
			m := &sql.Map{}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				kv, err := ParseText(k, *t.Elem)
				if err != nil {
					return nil, err
				}
				vv, err := ValueFromJSON(x[k], *t.Value)
				if err != nil {
					return nil, err
				}
				m.Keys = append(m.Keys, kv)
				m.Values = append(m.Values, vv)
			}
			return m, nil
		}
	}
	return nil, fmt.Errorf("cannot convert JSON %T to %s", v, t)
}

// appendJSON writes a value as Flink's json format does: numbers and
// decimals as JSON numbers, dates/times/timestamps as SQL-format strings,
// bytes as base64, rows as objects, maps as objects.
func appendJSON(b []byte, v any, t sql.DataType) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int8, int16, int64:
		return append(b, fmt.Sprint(x)...)
	case int32:
		if t.Root == sql.TypeDate || t.Root == sql.TypeTime {
			return appendJSONString(b, FormatText(x, t))
		}
		return strconv.AppendInt(b, int64(x), 10)
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return appendJSONString(b, fmt.Sprint(x))
		}
		return strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendJSONString(b, fmt.Sprint(x))
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case decimal.Decimal:
		if t.Root == sql.TypeDecimal {
			return append(b, x.StringFixed(int32(t.Scale))...)
		}
		return append(b, x.String()...)
	case string:
		return appendJSONString(b, x)
	case []byte, sql.TimestampData:
		return appendJSONString(b, FormatText(x, t))
	case []any:
		if t.Root == sql.TypeRow {
			b = append(b, '{')
			for i, f := range t.Fields {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, f.Name)
				b = append(b, ':')
				var e any
				if i < len(x) {
					e = x[i]
				}
				b = appendJSON(b, e, f.Type)
			}
			return append(b, '}')
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var et sql.DataType
			if t.Elem != nil {
				et = *t.Elem
			}
			b = appendJSON(b, e, et)
		}
		return append(b, ']')
	case *sql.Map:
		b = append(b, '{')
		for i := range x.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			var kt, vt sql.DataType
			if t.Elem != nil {
				kt, vt = *t.Elem, *t.Value
			}
			b = appendJSONString(b, FormatText(x.Keys[i], kt))
			b = append(b, ':')
			b = appendJSON(b, x.Values[i], vt)
		}
		return append(b, '}')
	}
	return appendJSONString(b, fmt.Sprint(v))
}

func appendJSONString(b []byte, s string) []byte {
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}

// AppendJSONObject writes a row as one JSON object keyed by column name.
func AppendJSONObject(b []byte, vals []any, cols []sql.Column) []byte {
	b = append(b, '{')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.Name)
		b = append(b, ':')
		b = appendJSON(b, vals[i], c.Type)
	}
	return append(b, '}')
}

// RowFromJSONObject reads a JSON object into column order; a missing
// field is NULL unless failOnMissing.
func RowFromJSONObject(obj map[string]any, cols []sql.Column, failOnMissing bool) ([]any, error) {
	vals := make([]any, len(cols))
	for i, c := range cols {
		raw, ok := obj[c.Name]
		if !ok && failOnMissing {
			return nil, fmt.Errorf("Could not find field with name '%s'.", c.Name)
		}
		v, err := ValueFromJSON(raw, c.Type)
		if err != nil {
			return nil, fmt.Errorf("field '%s': %w", c.Name, err)
		}
		vals[i] = v
	}
	return vals, nil
}
