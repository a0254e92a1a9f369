package sql

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Row is one changelog record: a RowKind and its field values.
//
// Each DataType has exactly one Go representation in Values, so operators
// and connectors never guess:
//
//	NULL (any type)          nil
//	BOOLEAN                  bool
//	TINYINT                  int8
//	SMALLINT                 int16
//	INT                      int32
//	BIGINT                   int64
//	FLOAT                    float32
//	DOUBLE                   float64
//	DECIMAL(p, s)            decimal.Decimal (github.com/shopspring/decimal), exponent -s
//	CHAR / VARCHAR / STRING  string
//	BINARY / VARBINARY       []byte
//	DATE                     int32, days since 1970-01-01
//	TIME(p)                  int32, milliseconds of the day
//	TIMESTAMP(p)             TimestampData (a wall-clock date-time, no zone)
//	TIMESTAMP_LTZ(p)         TimestampData (an instant, as epoch time in UTC)
//	INTERVAL YEAR / MONTH    int32, months
//	INTERVAL DAY ... SECOND  int64, milliseconds
//	ARRAY<T>                 []any
//	MAP<K, V>                *Map
//	ROW<...>                 []any
//
// These are also Paimon's internal representations, so the store converts
// without loss.
type Row struct {
	Kind   RowKind
	Values []any
}

// NewRow builds a +I row.
func NewRow(values ...any) Row { return Row{Kind: Insert, Values: values} }

// Copy returns a row whose Values slice is not shared with r.
func (r Row) Copy() Row {
	v := make([]any, len(r.Values))
	copy(v, r.Values)
	return Row{Kind: r.Kind, Values: v}
}

// TimestampData is Flink's and Paimon's TimestampData: milliseconds since the
// epoch plus the nanoseconds within that millisecond (0..999,999).
type TimestampData struct {
	Millis      int64
	NanoOfMilli int32
}

// TimestampFromTime converts a time.Time, keeping its wall clock as UTC.
func TimestampFromTime(t time.Time) TimestampData {
	ns := t.UnixNano()
	ms := t.UnixMilli()
	if ns/1e6 != ms { // outside the UnixNano range: keep millisecond precision
		return TimestampData{Millis: ms, NanoOfMilli: int32(t.Nanosecond() % 1e6)}
	}
	return TimestampData{Millis: ms, NanoOfMilli: int32(ns - ms*1e6)}
}

// Time returns the timestamp as a UTC time.Time.
func (t TimestampData) Time() time.Time {
	return time.UnixMilli(t.Millis).Add(time.Duration(t.NanoOfMilli)).UTC()
}

// Compare orders timestamps.
func (t TimestampData) Compare(o TimestampData) int {
	switch {
	case t.Millis < o.Millis:
		return -1
	case t.Millis > o.Millis:
		return 1
	case t.NanoOfMilli < o.NanoOfMilli:
		return -1
	case t.NanoOfMilli > o.NanoOfMilli:
		return 1
	}
	return 0
}

// Map is a MAP value: parallel key and value slices, in insertion order.
type Map struct {
	Keys   []any
	Values []any
}

// FormatRow prints a row as Flink's print connector does:
// +I[1001, 80.00, CREATED].
func FormatRow(r Row, types []DataType) string {
	var b strings.Builder
	b.WriteString(r.Kind.ShortString())
	b.WriteByte('[')
	for i, v := range r.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		var t DataType
		if i < len(types) {
			t = types[i]
		}
		b.WriteString(FormatValue(v, t))
	}
	b.WriteByte(']')
	return b.String()
}

// FormatValue renders one value as Flink's Row.toString does (Java's
// toString of the external type): "null", "80.00", "2024-01-02T10:00",
// "[1, 2]", "{k=v}".
func FormatValue(v any, t DataType) string {
	if v == nil {
		return "null"
	}
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		switch t.Root {
		case TypeDate:
			return FormatDate(x)
		case TypeTime:
			return FormatTime(x, t.Precision)
		case TypeIntervalYearMonth:
			return formatPeriod(x, t.Unit)
		}
		return strconv.FormatInt(int64(x), 10)
	case int64:
		if t.Root == TypeIntervalDayTime {
			return formatDuration(x)
		}
		return strconv.FormatInt(x, 10)
	case float32:
		return formatJavaFloat(float64(x), 32)
	case float64:
		return formatJavaFloat(x, 64)
	case decimal.Decimal:
		if t.Root == TypeDecimal {
			return x.StringFixed(int32(t.Scale))
		}
		return x.String()
	case string:
		return x
	case []byte:
		return "x'" + hex.EncodeToString(x) + "'"
	case TimestampData:
		if t.Root == TypeTimestampLTZ {
			return FormatTimestamp(x, t.Precision) + "Z"
		}
		return FormatTimestamp(x, t.Precision)
	case []any:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			var et DataType
			if t.Root == TypeArray && t.Elem != nil {
				et = *t.Elem
			} else if t.Root == TypeRow && i < len(t.Fields) {
				et = t.Fields[i].Type
			}
			b.WriteString(FormatValue(e, et))
		}
		b.WriteByte(']')
		if t.Root == TypeRow {
			return "+I" + b.String()
		}
		return b.String()
	case *Map:
		var b strings.Builder
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			var kt, vt DataType
			if t.Elem != nil {
				kt, vt = *t.Elem, *t.Value
			}
			b.WriteString(FormatValue(x.Keys[i], kt))
			b.WriteByte('=')
			b.WriteString(FormatValue(x.Values[i], vt))
		}
		b.WriteByte('}')
		return b.String()
	}
	return fmt.Sprint(v)
}

// FormatDate prints days since the epoch as yyyy-MM-dd.
func FormatDate(days int32) string {
	return time.Unix(int64(days)*86400, 0).UTC().Format("2006-01-02")
}

// FormatTime prints milliseconds of the day as Java's LocalTime does
// (HH:mm, HH:mm:ss or HH:mm:ss.SSS).
func FormatTime(millis int32, precision int) string {
	t := time.UnixMilli(int64(millis)).UTC()
	s := t.Format("15:04")
	if t.Second() != 0 || t.Nanosecond() != 0 {
		s = t.Format("15:04:05")
	}
	if t.Nanosecond() != 0 {
		s += fmt.Sprintf(".%03d", t.Nanosecond()/1e6)
	}
	return s
}

// FormatTimestamp prints as Java's LocalDateTime.toString: seconds and
// fractions are omitted when zero, fractions use 3, 6 or 9 digits.
func FormatTimestamp(ts TimestampData, precision int) string {
	t := ts.Time()
	s := t.Format("2006-01-02T15:04")
	ns := t.Nanosecond()
	if t.Second() != 0 || ns != 0 {
		s += t.Format(":05")
	}
	if ns != 0 {
		switch {
		case ns%1e6 == 0:
			s += fmt.Sprintf(".%03d", ns/1e6)
		case ns%1e3 == 0:
			s += fmt.Sprintf(".%06d", ns/1e3)
		default:
			s += fmt.Sprintf(".%09d", ns)
		}
	}
	return s
}

// formatJavaFloat mimics Java's Double.toString closely enough for display:
// always a decimal point, scientific notation outside [1e-3, 1e7).
func formatJavaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if f == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	return JavaScientific(f, bits)
}

// JavaScientific prints f in Java's computerized scientific notation, as
// Double.toString does outside [1e-3, 1e7) and Calcite prints double
// literals and costs: the shortest mantissa with at least one decimal
// ("1.0E7"), and an exponent without padding or plus sign ("E-4", not
// Go's "E-04"). bits is 32 for FLOAT, 64 for DOUBLE.
func JavaScientific(f float64, bits int) string {
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if exp == "" {
		exp = "0"
	}
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// formatPeriod prints a year-month interval as Flink's Row.toString does:
// the java.time.Period YearMonthIntervalPeriodConverter makes of it
// (Period.ofYears(months / 12) for INTERVAL YEAR, Period.ofMonths for
// INTERVAL MONTH), printed by Period.toString: P7Y, P84M, P0D.
func formatPeriod(months int32, unit IntervalUnit) string {
	var b strings.Builder
	b.WriteByte('P')
	if unit == IntervalYear {
		if y := months / 12; y != 0 {
			b.WriteString(strconv.Itoa(int(y)))
			b.WriteByte('Y')
		}
	} else if months != 0 {
		b.WriteString(strconv.Itoa(int(months)))
		b.WriteByte('M')
	}
	if b.Len() == 1 {
		return "P0D"
	}
	return b.String()
}

// formatDuration prints a day-time interval as Flink's Row.toString does:
// java.time.Duration.ofMillis(ms).toString (PT48H, PT1M30.5S, PT-0.5S,
// PT0S), the Duration DayTimeIntervalDurationConverter makes of it.
func formatDuration(ms int64) string {
	if ms == 0 {
		return "PT0S"
	}
	// Duration keeps whole seconds (floored) and a non-negative nano part.
	secs := ms / 1000
	nanos := (ms % 1000) * 1000000
	if nanos < 0 {
		nanos += 1000000000
		secs--
	}
	eff := secs
	if secs < 0 && nanos > 0 {
		eff++
	}
	hours, minutes, s := eff/3600, (eff%3600)/60, eff%60
	var b strings.Builder
	b.WriteString("PT")
	if hours != 0 {
		b.WriteString(strconv.FormatInt(hours, 10))
		b.WriteByte('H')
	}
	if minutes != 0 {
		b.WriteString(strconv.FormatInt(minutes, 10))
		b.WriteByte('M')
	}
	if s == 0 && nanos == 0 && b.Len() > 2 {
		return b.String()
	}
	if secs < 0 && nanos > 0 && s == 0 {
		b.WriteString("-0")
	} else {
		b.WriteString(strconv.FormatInt(s, 10))
	}
	if nanos > 0 {
		var frac int64
		if secs < 0 {
			frac = 2*1000000000 - nanos
		} else {
			frac = nanos + 1000000000
		}
		f := strings.TrimRight(strconv.FormatInt(frac, 10), "0")
		b.WriteByte('.')
		b.WriteString(f[1:])
	}
	b.WriteByte('S')
	return b.String()
}

// WriteJSONString writes s to b as a JSON string with the escapes Flink's
// JSON functions and aggregates make (Jackson's: the short escapes, \uXXXX
// in upper case for the other control characters, everything else as is).
func WriteJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
