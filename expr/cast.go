package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
			i, ok := parseIntegral(x, bits)
			if !ok {
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
			n = javaFloatToIntegral(float64(x), to.Root)
		case float64:
			n = javaFloatToIntegral(x, to.Root)
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
			// BinaryStringDataUtil.toDecimal trims blanks, tabs and
			// newlines; a number that does not fit fails (where a
			// number's does not: NULL, below).
			p, err := decimal.NewFromString(strings.Trim(x, " \t\n"))
			if err != nil {
				return nil, castErr(v, to)
			}
			if r := p.Round(int32(to.Scale)); len(r.Abs().Truncate(0).String()) > to.Precision-to.Scale && !r.Truncate(0).IsZero() {
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
		return fitString(castToString(v, from), to), nil
	case sql.TypeBinary, sql.TypeVarBinary:
		switch x := v.(type) {
		case []byte:
			return fitBytes(x, to), nil
		case string:
			// StringToBinaryCastRule: the string's UTF-8 bytes.
			return fitBytes([]byte(x), to), nil
		}
	case sql.TypeDate:
		switch x := v.(type) {
		case string:
			// DateTimeUtils.parseDate: "2021", "2021-09-27" or a
			// timestamp's date part.
			d, ok := parseDate(x)
			if !ok {
				return nil, castErr(v, to)
			}
			return int32(d), nil
		case sql.TimestampData:
			if from.Root == sql.TypeTimestamp {
				// TimestampToDateCastRule: (int) (getMillisecond() /
				// MILLIS_PER_DAY), Java's division, so a time before 1970
				// that is not midnight moves a day forward (as EXTRACT's
				// date units do, ExtractCallGen).
				return int32(x.Millis / millisPerDay), nil
			}
			// A TIMESTAMP_LTZ: DateTimeUtils.timestampWithLocalZoneToDate,
			// the LocalDate of the instant.
			return int32(floorDiv(x.Millis, millisPerDay)), nil
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
			return truncTimestamp(ts, to.Precision), nil
		case sql.TimestampData:
			return truncTimestamp(x, to.Precision), nil
		case int32:
			switch from.Root {
			case sql.TypeDate:
				return sql.TimestampData{Millis: int64(x) * 86400000}, nil
			case sql.TypeTime:
				// TimeToTimestampCastRule: the time on 1970-01-01.
				return truncTimestamp(sql.TimestampData{Millis: int64(x)}, to.Precision), nil
			}
		}
	case sql.TypeTime:
		// Flink's code generator sees every TIME as TIME(0)
		// (FlinkTypeFactory.toLogicalType, sql.Planned), whatever the
		// cast's target says: StringToTimeCastRule and
		// TimestampToTimeCastRule cut the value to whole seconds
		// (CastFunctionITCase: "Fractional seconds are lost", FLINK-17224),
		// and a TIME to TIME cast is the identity (TimeToTimeCastRule
		// truncates only to a smaller precision). The binder rounds a
		// literal's cast as Calcite does.
		switch x := v.(type) {
		case string:
			ms, ok := parseTime(x)
			if !ok {
				return nil, castErr(v, to)
			}
			return TruncTime(ms, 0), nil
		case sql.TimestampData:
			ms := x.Millis % 86400000
			if ms < 0 {
				ms += 86400000
			}
			return TruncTime(int32(ms), 0), nil
		case int32:
			return x, nil
		}
	case sql.TypeIntervalYearMonth, sql.TypeIntervalDayTime:
		if from.IsNumeric() {
			// Calcite's StandardConvertletTable.convertCast: an exact
			// number counts the interval's unit (CAST(5 AS INTERVAL DAY)
			// is five days), scaled to months or milliseconds.
			d, ok := toDecimal(v)
			if !ok {
				return nil, castErr(v, to)
			}
			n := d.Mul(decimal.NewFromInt(intervalMultiplier[to.Unit])).IntPart()
			if to.Root == sql.TypeIntervalYearMonth {
				return int32(n), nil
			}
			return n, nil
		}
		if from.Root == to.Root {
			return v, nil
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

// parseTimestamp reads a timestamp as Flink's DateTimeUtils.parseTimestampData
// does (CAST to TIMESTAMP, TO_TIMESTAMP(s)): its DEFAULT_TIMESTAMP_FORMATTER,
// "yyyy-[MM][M]-[dd][d]" then optionally " [HH][H]:[mm][m]:[ss][s]" and a
// fraction of up to 9 digits after a '.', the whole string and nothing
// else (no 'T', no blanks around it, seconds required). A day past the
// month's end is clamped to it (ResolverStyle.SMART: 2021-02-30 is
// 2021-02-28); other fields out of range fail.
func parseTimestamp(s string) (sql.TimestampData, error) {
	bad := fmt.Errorf("invalid timestamp %q", s)
	i := 0
	digits := func(min, max int) (int, bool) {
		j := i
		for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-i < min {
			return 0, false
		}
		n, _ := strconv.Atoi(s[i:j])
		i = j
		return n, true
	}
	lit := func(c byte) bool {
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	y, ok := digits(4, 9)
	if !ok || !lit('-') {
		return sql.TimestampData{}, bad
	}
	mo, ok := digits(1, 2)
	if !ok || !lit('-') {
		return sql.TimestampData{}, bad
	}
	d, ok := digits(1, 2)
	if !ok {
		return sql.TimestampData{}, bad
	}
	var h, mi, sec, nano int
	if i < len(s) {
		if !lit(' ') {
			return sql.TimestampData{}, bad
		}
		if h, ok = digits(1, 2); !ok || !lit(':') {
			return sql.TimestampData{}, bad
		}
		if mi, ok = digits(1, 2); !ok || !lit(':') {
			return sql.TimestampData{}, bad
		}
		if sec, ok = digits(1, 2); !ok {
			return sql.TimestampData{}, bad
		}
		if lit('.') {
			start := i
			f, _ := digits(0, 9)
			for k := i - start; k < 9; k++ {
				f *= 10
			}
			nano = f
		}
		if i != len(s) {
			return sql.TimestampData{}, bad
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return sql.TimestampData{}, bad
	}
	if last := time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	return sql.TimestampFromTime(time.Date(y, time.Month(mo), d, h, mi, sec, nano, time.UTC)), nil
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

// CastCodegenError is the error Flink raises when it generates the code
// of a cast between a timestamp and a number (NumericToTimestampCastRule,
// TimestampToNumericCastRule): the planner accepts such a cast, so
// EXPLAIN shows it, but no job with it runs.
func CastCodegenError(from, to sql.DataType) error {
	switch {
	case from.IsNumeric() && to.Root == sql.TypeTimestamp:
		return sql.Errorf(sql.ValidationException, "The cast from NUMERIC type to TIMESTAMP type is not allowed. It's recommended to use TO_TIMESTAMP(FROM_UNIXTIME(numeric_col)) instead, note the numeric is in seconds.")
	case from.IsNumeric() && to.Root == sql.TypeTimestampLTZ:
		return sql.Errorf(sql.ValidationException, "The cast from NUMERIC type to TIMESTAMP_LTZ type is not allowed. It's recommended to use TO_TIMESTAMP_LTZ(numeric_col, precision) instead.")
	case from.Root == sql.TypeTimestamp && to.IsNumeric():
		return sql.Errorf(sql.ValidationException, "The cast from TIMESTAMP type to NUMERIC type is not allowed. It's recommended to use UNIX_TIMESTAMP(CAST(timestamp_col AS STRING)) instead.")
	case from.Root == sql.TypeTimestampLTZ && to.IsNumeric():
		return sql.Errorf(sql.ValidationException, "The cast from TIMESTAMP_LTZ type to NUMERIC type is not allowed.")
	}
	return nil
}

// castToString is Flink's cast of a value to a character string (the
// *ToStringCastRule classes): BOOLEAN as TRUE or FALSE, a binary string
// decoded as UTF-8, TIME and TIMESTAMP as DateTimeUtils formats them, and
// ARRAY, MAP and ROW members by the same rules with NULL for a null one:
// [1, NULL], {k=v}, (1, NULL).
func castToString(v any, from sql.DataType) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case []byte:
		return strings.ToValidUTF8(string(x), "\uFFFD")
	case sql.TimestampData:
		return formatTimestampSQL(x, from.Precision)
	case Interval:
		return x.String()
	case int32:
		if from.Root == sql.TypeIntervalYearMonth {
			return Interval{Months: int64(x), Unit: "MONTH"}.String()
		}
		if from.Root == sql.TypeTime {
			// TimeToStringCastRule prints the operand's logical
			// precision, and every TIME is TIME(0) there
			// (toLogicalType, sql.Planned): CAST(TIME '12:34:56.789' AS
			// STRING) is '12:34:56'.
			return formatTimeSQL(x, 0)
		}
	case int64:
		if from.Root == sql.TypeIntervalDayTime {
			return Interval{Millis: x, Unit: "SECOND"}.String()
		}
	case []any:
		var b strings.Builder
		open, sep, end := "[", ", ", "]"
		if from.Root == sql.TypeRow {
			open, end = "(", ")"
		}
		b.WriteString(open)
		for i, e := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			et := sql.DataType{}
			switch {
			case from.Root == sql.TypeArray && from.Elem != nil:
				et = *from.Elem
			case from.Root == sql.TypeRow && i < len(from.Fields):
				et = from.Fields[i].Type
			}
			b.WriteString(castToString(e, et))
		}
		b.WriteString(end)
		return b.String()
	case *sql.Map:
		var kt, vt sql.DataType
		if from.Elem != nil && from.Value != nil {
			kt, vt = *from.Elem, *from.Value
		}
		var b strings.Builder
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(castToString(x.Keys[i], kt))
			b.WriteByte('=')
			b.WriteString(castToString(x.Values[i], vt))
		}
		b.WriteByte('}')
		return b.String()
	}
	return sql.FormatValue(v, from)
}

// fitString trims a string to a CHAR(n) or VARCHAR(n) and pads it to a
// CHAR(n) with spaces (CharVarCharTrimPadCastRule), counting characters.
func fitString(s string, to sql.DataType) string {
	if to.Length >= sql.MaxLength || to.Length <= 0 {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n > to.Length {
		r := []rune(s)
		return string(r[:to.Length])
	}
	if to.Root == sql.TypeChar && n < to.Length {
		return s + strings.Repeat(" ", to.Length-n)
	}
	return s
}

// fitBytes trims a binary string to a BINARY(n) or VARBINARY(n) and pads
// it to a BINARY(n) with zero bytes (BinaryToBinaryCastRule).
func fitBytes(b []byte, to sql.DataType) []byte {
	if to.Length >= sql.MaxLength || to.Length <= 0 {
		return b
	}
	if len(b) > to.Length {
		return b[:to.Length:to.Length]
	}
	if to.Root == sql.TypeBinary && len(b) < to.Length {
		out := make([]byte, to.Length)
		copy(out, b)
		return out
	}
	return b
}

// parseIntegral reads a string as BinaryStringDataUtil.toLong and toInt
// do: an optional sign, digits, and optionally a '.' followed by digits
// only, which are dropped ("1.234" is 1). No blanks are skipped. The
// value must fit bits (TINYINT and SMALLINT check their range after
// reading an INT, failing the same way).
func parseIntegral(s string, bits int) (int64, bool) {
	if s == "" || s == "+" || s == "-" {
		return 0, false
	}
	digits := s
	if s[0] == '+' || s[0] == '-' {
		digits = s[1:]
	}
	whole, frac, _ := strings.Cut(digits, ".")
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false
			}
		}
	}
	if whole == "" {
		return 0, true
	}
	if s[0] == '-' {
		whole = "-" + whole
	}
	n, err := strconv.ParseInt(whole, 10, bits)
	return n, err == nil
}

// javaFloatToIntegral narrows a FLOAT or DOUBLE as a Java cast does
// (NumericPrimitiveCastRule generates one): to BIGINT saturating, to the
// others through a saturating int then wrapping, NaN as 0.
func javaFloatToIntegral(f float64, r sql.TypeRoot) int64 {
	clamp := func(lo, hi float64) int64 {
		switch {
		case math.IsNaN(f):
			return 0
		case f <= lo:
			return int64(lo)
		case f >= hi:
			return int64(hi)
		}
		return int64(f)
	}
	if r == sql.TypeBigInt {
		switch {
		case math.IsNaN(f):
			return 0
		case f >= math.MaxInt64:
			return math.MaxInt64
		case f <= math.MinInt64:
			return math.MinInt64
		}
		return int64(f)
	}
	return clamp(math.MinInt32, math.MaxInt32)
}

// parseTime reads a TIME as Flink's DateTimeUtils.parseTime does:
// hour[:minute[:second[.fraction]]] with an optional zone offset after a
// '-' or '+' added to it; the fraction is rounded to milliseconds. The
// hour is not bounded.
func parseTime(v string) (int32, bool) {
	num := func(s string) (int, bool) {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		return int(n), err == nil
	}
	end, op := len(v), -1
	tz := strings.IndexByte(v, '-')
	if tz < 0 {
		tz, op = strings.IndexByte(v, '+'), 1
	}
	var tzh, tzm int
	if tz >= 0 {
		end = tz
		var ok bool
		if c := strings.IndexByte(v[tz:], ':'); c < 0 {
			if tzh, ok = num(v[tz+1:]); !ok {
				return 0, false
			}
		} else {
			c += tz
			if tzh, ok = num(v[tz+1 : c]); !ok {
				return 0, false
			}
			if tzm, ok = num(v[c+1:]); !ok {
				return 0, false
			}
		}
	}
	var h, m, sec, milli int
	var ok bool
	head := v[:end]
	c1 := strings.IndexByte(head, ':')
	if c1 < 0 {
		if h, ok = num(head); !ok {
			return 0, false
		}
	} else {
		if h, ok = num(head[:c1]); !ok {
			return 0, false
		}
		rest := head[c1+1:]
		c2 := strings.IndexByte(rest, ':')
		if c2 < 0 {
			if m, ok = num(rest); !ok {
				return 0, false
			}
		} else {
			if m, ok = num(rest[:c2]); !ok {
				return 0, false
			}
			secs := rest[c2+1:]
			if dot := strings.IndexByte(secs, '.'); dot < 0 {
				if sec, ok = num(secs); !ok {
					return 0, false
				}
			} else {
				if sec, ok = num(secs[:dot]); !ok {
					return 0, false
				}
				milli = parseFraction(strings.TrimSpace(secs[dot+1:]))
			}
		}
	}
	h += op * tzh
	m += op * tzm
	return int32(h*3600000 + m*60000 + sec*1000 + milli), true
}

// parseFraction is DateTimeUtils.parseFraction: milliseconds from a
// fraction's digits, rounded half up on the fourth.
func parseFraction(v string) int {
	mult, r := 100, 0
	for i := 0; i < len(v); i++ {
		x := 0
		if c := v[i]; c >= '0' && c <= '9' {
			x = int(c - '0')
		}
		r += mult * x
		if mult < 10 {
			if i+1 < len(v) && v[i+1] >= '5' {
				r++
			}
			break
		}
		mult /= 10
	}
	return r
}

// TruncTime drops a TIME's milliseconds beyond precision p.
func TruncTime(ms int32, p int) int32 {
	if p >= 3 {
		return ms
	}
	unit := int32(math.Pow10(3 - p))
	return ms - ((ms%unit)+unit)%unit
}

// formatTimeSQL prints a TIME as CAST(t AS STRING) does in Flink
// (DateTimeUtils.formatTimestampMillis(time, precision)): HH:mm:ss, then
// up to precision fraction digits, stopping after the last non-zero one
// but printing at least one.
func formatTimeSQL(ms int32, p int) string {
	for ms < 0 {
		ms += 86400000
	}
	h, m, s, frac := ms/3600000, ms%3600000/60000, ms%60000/1000, ms%1000
	var b strings.Builder
	two := func(i int32) { b.WriteByte(byte('0' + (i/10)%10)); b.WriteByte(byte('0' + i%10)) }
	two(h)
	b.WriteByte(':')
	two(m)
	b.WriteByte(':')
	two(s)
	if p > 0 {
		b.WriteByte('.')
		for p > 0 {
			b.WriteByte(byte('0' + frac/100))
			frac = frac % 100 * 10
			if frac == 0 {
				break
			}
			p--
		}
	}
	return b.String()
}

// intervalMultiplier is the months or milliseconds in one of an interval
// type's unit.
var intervalMultiplier = map[sql.IntervalUnit]int64{
	sql.IntervalYear: 12, sql.IntervalMonth: 1, sql.IntervalDay: 86400000,
	sql.IntervalHour: 3600000, sql.IntervalMinute: 60000, sql.IntervalSecond: 1000,
}
