package format

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// Schema evolution on read: a column whose type changed since a file was
// written (ALTER TABLE MODIFY) is converted from the file's type to the
// current one as Paimon's reader does, with the rule CastExecutors
// resolves for the pair (org.apache.paimon.casting, release-1.4): each
// function below names its rule class. A pair without a rule is an error
// naming both types (Paimon's SchemaManager refuses such an ALTER, so only
// a hand-made schema has one); a value a rule cannot convert (a string
// that is not a number) fails the read as Paimon's does, and a DECIMAL
// that overflows its precision reads as null (Decimal.fromBigDecimal).
// Conversions involving TIMESTAMP_LTZ use the process's time zone where
// Paimon uses the JVM's default (TimeZone.getDefault()).

// ErrCast is wrapped when a value cannot be converted to an evolved type.
var ErrCast = errors.New("cannot convert value for schema evolution")

// evolveZone is the zone of TIMESTAMP_LTZ conversions; tests fix it.
var evolveZone = time.Local

// caster converts one non-null value; a nil result is SQL null.
type caster func(x any) (any, error)

func isIntegral(r sql.TypeRoot) bool {
	return r == sql.TypeTinyInt || r == sql.TypeSmallInt || r == sql.TypeInt || r == sql.TypeBigInt
}

func isApprox(r sql.TypeRoot) bool { return r == sql.TypeFloat || r == sql.TypeDouble }

func isCharacter(r sql.TypeRoot) bool { return r == sql.TypeChar || r == sql.TypeVarChar }

func isBinary(r sql.TypeRoot) bool { return r == sql.TypeBinary || r == sql.TypeVarBinary }

func isTimestamp(r sql.TypeRoot) bool { return r == sql.TypeTimestamp || r == sql.TypeTimestampLTZ }

// evolveCast resolves the conversion of values of type from to type to,
// in CastExecutors' rule order.
func evolveCast(from, to sql.DataType) (caster, error) {
	f, t := from.Root, to.Root
	var c caster
	switch {
	case f == t && f != sql.TypeDecimal && !isCharacter(f) && !isBinary(f) && !isTimestamp(f):
		c = func(x any) (any, error) { return x, nil }
	case f == sql.TypeDecimal && t == sql.TypeDecimal: // DecimalToDecimalCastRule
		c = func(x any) (any, error) { return fitDecimal(x.(decimal.Decimal), to), nil }
	case (isIntegral(f) || isApprox(f)) && t == sql.TypeDecimal: // NumericPrimitiveToDecimalCastRule
		c = func(x any) (any, error) {
			if isIntegral(f) {
				return fitDecimal(decimal.NewFromInt(integral(x)), to), nil
			}
			d := toFloat64(x)
			if math.IsNaN(d) || math.IsInf(d, 0) {
				return nil, fmt.Errorf("%w: %v to %s", ErrCast, d, to)
			}
			v, err := decimal.NewFromString(strconv.FormatFloat(d, 'g', -1, 64)) // BigDecimal.valueOf(double)
			if err != nil {
				return nil, fmt.Errorf("%w: %v to %s", ErrCast, d, to)
			}
			return fitDecimal(v, to), nil
		}
	case f == sql.TypeDecimal && (isIntegral(t) || isApprox(t)): // DecimalToNumericPrimitiveCastRule
		c = func(x any) (any, error) {
			d := x.(decimal.Decimal)
			if isApprox(t) {
				return fromFloat64(decimalDouble(d, from), t), nil
			}
			return fromInt64(low64(d.Truncate(0).BigInt()), t), nil // castToIntegral: RoundingMode.DOWN, longValue
		}
	case (isIntegral(f) || isApprox(f)) && (isIntegral(t) || isApprox(t)): // NumericPrimitiveCastRule
		c = func(x any) (any, error) {
			if isIntegral(f) {
				return fromInt64(integral(x), t), nil
			}
			return fromFloat64(toFloat64(x), t), nil
		}
	case (f == sql.TypeInt || f == sql.TypeBigInt) && isTimestamp(t): // NumericPrimitiveToTimestamp
		c = func(x any) (any, error) {
			ms := integral(x) * 1000
			if t == sql.TypeTimestampLTZ { // the local wall time of the instant, kept as such
				ms += zoneOffsetMillis(ms)
			}
			return sql.TimestampData{Millis: ms}, nil
		}
	case f == sql.TypeBoolean && (isIntegral(t) || isApprox(t) || t == sql.TypeDecimal): // BooleanToNumericCastRule
		c = func(x any) (any, error) {
			var n int64
			if x.(bool) {
				n = 1
			}
			if t == sql.TypeDecimal {
				return fitDecimal(decimal.NewFromInt(n), to), nil
			}
			return fromInt64(n, t), nil
		}
	case isIntegral(f) && t == sql.TypeBoolean: // NumericToBooleanCastRule
		c = func(x any) (any, error) { return integral(x) != 0, nil }
	case isCharacter(t):
		c = toStringCast(from, to)
	case isCharacter(f):
		c = fromStringCast(to)
	case isTimestamp(f) && isTimestamp(t): // TimestampToTimestampCastRule
		c = func(x any) (any, error) {
			ts := x.(sql.TimestampData)
			switch {
			case f == sql.TypeTimestamp && t == sql.TypeTimestampLTZ:
				ts.Millis -= zoneOffsetMillis(ts.Millis - zoneOffsetMillis(ts.Millis))
			case f == sql.TypeTimestampLTZ && t == sql.TypeTimestamp:
				ts.Millis += zoneOffsetMillis(ts.Millis)
			}
			if from.Precision > to.Precision {
				ts = truncateTimestamp(ts, to.Precision)
			}
			return ts, nil
		}
	case isTimestamp(f) && t == sql.TypeDate: // TimestampToDateCastRule
		c = func(x any) (any, error) { return int32(floorDiv(localMillis(x, f), 86_400_000)), nil }
	case isTimestamp(f) && t == sql.TypeTime: // TimestampToTimeCastRule
		c = func(x any) (any, error) {
			ms := localMillis(x, f)
			return int32(ms - floorDiv(ms, 86_400_000)*86_400_000), nil
		}
	case f == sql.TypeDate && isTimestamp(t): // DateToTimestampCastRule
		c = func(x any) (any, error) { return fromLocalMillis(int64(x.(int32))*86_400_000, t), nil }
	case f == sql.TypeTime && isTimestamp(t): // TimeToTimestampCastRule
		c = func(x any) (any, error) { return fromLocalMillis(int64(x.(int32)), t), nil }
	case isTimestamp(f) && (t == sql.TypeInt || t == sql.TypeBigInt): // TimestampToNumericPrimitiveCastRule
		c = func(x any) (any, error) {
			s := x.(sql.TimestampData).Millis / 1000 // DateTimeUtils.unixTimestamp
			if t == sql.TypeInt {
				return int32(s), nil
			}
			return s, nil
		}
	case isBinary(f) && isBinary(t): // BinaryToBinaryCastRule
		c = func(x any) (any, error) { return fitBinary(x.([]byte), to), nil }
	}
	if c == nil {
		return nil, fmt.Errorf("%w: Paimon has no cast from %s to %s (CastExecutors)", ErrCast, from, to)
	}
	return c, nil
}

// toStringCast converts to CHAR/VARCHAR/STRING: NumericToStringCastRule,
// BooleanToStringCastRule and StringToStringCastRule (Java's toString, cut
// or padded to the target's length), BinaryToStringCastRule (the bytes as
// they are), and the date and time rules (their own formats, not cut).
func toStringCast(from, to sql.DataType) caster {
	fit := func(s string) (any, error) { return fitString(s, to), nil }
	switch f := from.Root; {
	case isCharacter(f):
		return func(x any) (any, error) { return fit(x.(string)) }
	case isBinary(f):
		return func(x any) (any, error) { return string(x.([]byte)), nil }
	case f == sql.TypeBoolean:
		return func(x any) (any, error) { return fit(strconv.FormatBool(x.(bool))) }
	case isIntegral(f):
		return func(x any) (any, error) { return fit(strconv.FormatInt(integral(x), 10)) }
	case isApprox(f), f == sql.TypeDecimal: // Float/Double.toString; Decimal: toPlainString at its scale
		return func(x any) (any, error) { return fit(sql.FormatValue(x, from)) }
	case f == sql.TypeDate: // DateToStringCastRule
		return func(x any) (any, error) { return sql.FormatDate(x.(int32)), nil }
	case f == sql.TypeTime: // TimeToStringCastRule
		return func(x any) (any, error) { return formatPaimonTime(x.(int32), from.Precision), nil }
	case isTimestamp(f): // TimestampToStringCastRule
		return func(x any) (any, error) {
			ts := x.(sql.TimestampData)
			if f == sql.TypeTimestampLTZ {
				ts.Millis += zoneOffsetMillis(ts.Millis)
			}
			return formatPaimonTimestamp(ts, from.Precision), nil
		}
	}
	return nil
}

// fromStringCast converts from CHAR/VARCHAR/STRING (the From-string rules).
func fromStringCast(to sql.DataType) caster {
	bad := func(s string) error { return fmt.Errorf("%w: %q to %s", ErrCast, s, to) }
	switch t := to.Root; {
	case t == sql.TypeBoolean: // StringToBooleanCastRule: BinaryStringUtils.toBoolean
		return func(x any) (any, error) {
			switch strings.ToLower(x.(string)) {
			case "t", "true", "y", "yes", "1":
				return true, nil
			case "f", "false", "n", "no", "0":
				return false, nil
			}
			return nil, bad(x.(string))
		}
	case t == sql.TypeDecimal: // StringToDecimalCastRule: new BigDecimal(s)
		return func(x any) (any, error) {
			s := x.(string)
			if strings.TrimSpace(s) != s || s == "" {
				return nil, bad(s)
			}
			d, err := decimal.NewFromString(s)
			if err != nil {
				return nil, bad(s)
			}
			return fitDecimal(d, to), nil
		}
	case isIntegral(t): // StringToNumericPrimitiveCastRule: toByte/toShort/toInt/toLong
		return func(x any) (any, error) {
			n, ok := parseJavaIntegral(x.(string), t)
			if !ok {
				return nil, bad(x.(string))
			}
			return fromInt64(n, t), nil
		}
	case isApprox(t): // Float.parseFloat / Double.parseDouble
		return func(x any) (any, error) {
			bits := 64
			if t == sql.TypeFloat {
				bits = 32
			}
			d, err := strconv.ParseFloat(strings.TrimSpace(x.(string)), bits)
			if err != nil {
				return nil, bad(x.(string))
			}
			return fromFloat64(d, t), nil
		}
	case t == sql.TypeDate: // StringToDateCastRule: BinaryStringUtils.toDate
		return func(x any) (any, error) {
			s := x.(string)
			if n, ok := parseJavaIntegral(s, sql.TypeInt); ok && isDigits(s) {
				return int32(n), nil
			}
			d, err := time.Parse("2006-1-2", strings.TrimSpace(s))
			if err != nil {
				return nil, bad(s)
			}
			return int32(floorDiv(d.Unix(), 86400)), nil
		}
	case t == sql.TypeTime: // StringToTimeCastRule: BinaryStringUtils.toTime
		return func(x any) (any, error) {
			s := x.(string)
			if n, ok := parseJavaIntegral(s, sql.TypeInt); ok && isDigits(s) {
				return int32(n), nil
			}
			ms, ok := parseTimeOfDay(strings.TrimSpace(s))
			if !ok {
				return nil, bad(s)
			}
			return int32(ms), nil
		}
	case isTimestamp(t): // StringToTimestampCastRule: BinaryStringUtils.toTimestamp
		return func(x any) (any, error) {
			s := x.(string)
			if n, ok := parseJavaIntegral(s, sql.TypeBigInt); ok && isDigits(s) && t == sql.TypeTimestamp {
				return sql.TimestampData{Millis: n}, nil // epoch milliseconds
			}
			ts, ok := parseTimestamp(strings.TrimSpace(s))
			if !ok {
				return nil, bad(s)
			}
			ts = truncateTimestamp(ts, to.Precision)
			if t == sql.TypeTimestampLTZ { // the wall time in the default zone
				ts.Millis -= zoneOffsetMillis(ts.Millis - zoneOffsetMillis(ts.Millis))
			}
			return ts, nil
		}
	case isBinary(t): // StringToBinaryCastRule
		return func(x any) (any, error) { return fitBinary([]byte(x.(string)), to), nil }
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseJavaIntegral is BinaryStringUtils.toLong/toInt/toShort/toByte: an
// optional sign, digits, and an optional fraction of digits that is
// dropped; anything else, or a number out of the type's range, fails.
func parseJavaIntegral(s string, t sql.TypeRoot) (int64, bool) {
	i := 0
	if s != "" && (s[0] == '-' || s[0] == '+') {
		i = 1
	}
	if i == len(s) {
		return 0, false
	}
	j := i
	for j < len(s) && s[j] != '.' {
		if s[j] < '0' || s[j] > '9' {
			return 0, false
		}
		j++
	}
	if j < len(s) {
		for _, c := range []byte(s[j+1:]) {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	digits := s[i:j]
	if digits == "" {
		return 0, true
	}
	if s[0] == '-' {
		digits = "-" + digits
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t {
	case sql.TypeTinyInt:
		lo, hi = math.MinInt8, math.MaxInt8
	case sql.TypeSmallInt:
		lo, hi = math.MinInt16, math.MaxInt16
	case sql.TypeInt:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	return n, n >= lo && n <= hi
}

func parseTimeOfDay(s string) (int64, bool) {
	for _, layout := range []string{"15:04:05.999999999", "15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return int64(t.Hour())*3_600_000 + int64(t.Minute())*60_000 + int64(t.Second())*1000 + int64(t.Nanosecond()/1e6), true
		}
	}
	return 0, false
}

func parseTimestamp(s string) (sql.TimestampData, bool) {
	for _, layout := range []string{"2006-1-2 15:04:05.999999999", "2006-1-2T15:04:05.999999999", "2006-1-2 15:04", "2006-1-2T15:04", "2006-1-2"} {
		if t, err := time.Parse(layout, s); err == nil {
			ms := floorDiv(t.UnixNano(), 1e6)
			return sql.TimestampData{Millis: ms, NanoOfMilli: int32(t.UnixNano() - ms*1e6)}, true
		}
	}
	return sql.TimestampData{}, false
}

func integral(x any) int64 {
	switch v := x.(type) {
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int64:
		return v
	}
	return 0
}

func toFloat64(x any) float64 {
	if f, ok := x.(float32); ok {
		return float64(f)
	}
	return x.(float64)
}

// fromInt64 narrows as Java's Number.byteValue/shortValue/intValue do
// (two's complement wrap-around) or converts to FLOAT/DOUBLE.
func fromInt64(n int64, t sql.TypeRoot) any {
	switch t {
	case sql.TypeTinyInt:
		return int8(n)
	case sql.TypeSmallInt:
		return int16(n)
	case sql.TypeInt:
		return int32(n)
	case sql.TypeFloat:
		return float32(n)
	case sql.TypeDouble:
		return float64(n)
	}
	return n
}

// fromFloat64 is Java's narrowing of a double: NaN to 0, saturating at
// int's or long's range, then (for TINYINT and SMALLINT) wrapping from int.
func fromFloat64(d float64, t sql.TypeRoot) any {
	switch t {
	case sql.TypeFloat:
		return float32(d)
	case sql.TypeDouble:
		return d
	case sql.TypeBigInt:
		return javaD2L(d)
	}
	i := javaD2I(d)
	switch t {
	case sql.TypeTinyInt:
		return int8(i)
	case sql.TypeSmallInt:
		return int16(i)
	}
	return i
}

func javaD2L(d float64) int64 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	}
	return int64(d)
}

func javaD2I(d float64) int32 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt32:
		return math.MaxInt32
	case d <= math.MinInt32:
		return math.MinInt32
	}
	return int32(d)
}

// fitDecimal is Decimal.fromBigDecimal: rounded HALF_UP to the target's
// scale, null when the result needs more digits than its precision.
func fitDecimal(d decimal.Decimal, to sql.DataType) any {
	r := d.Round(int32(to.Scale))
	digits := len(new(big.Int).Abs(r.Coefficient()).String())
	if r.Exponent() > 0 {
		digits += int(r.Exponent())
	}
	if digits > to.Precision {
		return nil
	}
	return r
}

// decimalDouble is DecimalUtils.doubleValue: a compact decimal (precision
// up to 18) divides its unscaled long by 10^scale.
func decimalDouble(d decimal.Decimal, t sql.DataType) float64 {
	if t.Precision <= 18 {
		u := d.Shift(int32(t.Scale)).Round(0).IntPart()
		return float64(u) / math.Pow10(t.Scale)
	}
	f, _ := d.Float64()
	return f
}

// low64 is BigInteger.longValue: the low 64 bits, two's complement.
func low64(x *big.Int) int64 {
	m := new(big.Int).Mod(x, new(big.Int).Lsh(big.NewInt(1), 64))
	return int64(m.Uint64())
}

// fitString is BinaryStringUtils.toCharacterString: cut to the target's
// length in characters; a CHAR is padded with spaces to it.
func fitString(s string, to sql.DataType) string {
	n := utf8.RuneCountInString(s)
	if to.Length > 0 && n > to.Length {
		return string([]rune(s)[:to.Length])
	}
	if to.Root == sql.TypeChar && n < to.Length {
		return s + strings.Repeat(" ", to.Length-n)
	}
	return s
}

// fitBinary is BinaryStringUtils.toBinaryString: a BINARY(n) is cut or
// zero-padded to n bytes, a VARBINARY(n) cut to n.
func fitBinary(b []byte, to sql.DataType) []byte {
	if len(b) == to.Length {
		return b
	}
	if to.Root == sql.TypeBinary {
		out := make([]byte, to.Length)
		copy(out, b)
		return out
	}
	if to.Length > 0 && len(b) > to.Length {
		return b[:to.Length]
	}
	return b
}

// zoneOffsetMillis is the default zone's offset at the instant ms.
func zoneOffsetMillis(ms int64) int64 {
	_, off := time.UnixMilli(ms).In(evolveZone).Zone()
	return int64(off) * 1000
}

// localMillis is a timestamp's wall-clock milliseconds (an LTZ's in the
// default zone).
func localMillis(x any, f sql.TypeRoot) int64 {
	ms := x.(sql.TimestampData).Millis
	if f == sql.TypeTimestampLTZ {
		ms += zoneOffsetMillis(ms)
	}
	return ms
}

// fromLocalMillis makes a timestamp of wall-clock milliseconds (an LTZ
// the instant of that wall time in the default zone).
func fromLocalMillis(ms int64, t sql.TypeRoot) sql.TimestampData {
	if t == sql.TypeTimestampLTZ {
		ms -= zoneOffsetMillis(ms - zoneOffsetMillis(ms))
	}
	return sql.TimestampData{Millis: ms}
}

// truncateTimestamp is DateTimeUtils.truncate: the fraction cut to
// precision digits, with Java's division (toward zero) on the millis.
func truncateTimestamp(ts sql.TimestampData, precision int) sql.TimestampData {
	if precision >= 9 {
		return ts
	}
	if precision <= 3 {
		p := int64(math.Pow10(3 - precision))
		return sql.TimestampData{Millis: ts.Millis / p * p}
	}
	p := int32(math.Pow10(9 - precision))
	ts.NanoOfMilli = ts.NanoOfMilli / p * p
	return ts
}

// formatPaimonTimestamp is DateTimeUtils.formatTimestamp: the nine-digit
// fraction with trailing zeros dropped down to precision digits.
func formatPaimonTimestamp(ts sql.TimestampData, precision int) string {
	t := ts.Time()
	frac := fmt.Sprintf("%09d", t.Nanosecond())
	for len(frac) > precision && strings.HasSuffix(frac, "0") {
		frac = frac[:len(frac)-1]
	}
	s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
	if frac != "" {
		s += "." + frac
	}
	return s
}

// formatPaimonTime is DateTimeUtils.formatTimestampMillis: the fraction's
// digits up to precision, stopping after the last non-zero one.
func formatPaimonTime(ms int32, precision int) string {
	for ms < 0 {
		ms += 86_400_000
	}
	s := fmt.Sprintf("%02d:%02d:%02d", ms/3_600_000, ms%3_600_000/60_000, ms%60_000/1000)
	if precision > 0 {
		frac := ms % 1000
		s += "."
		for precision > 0 {
			s += string(rune('0' + frac/100))
			frac = frac % 100 * 10
			if frac == 0 {
				break
			}
			precision--
		}
	}
	return s
}

// CanEvolve reports whether a file column of type from can be read as type
// to (Paimon's CastExecutors.resolve(from, to) != null): ALTER TABLE
// MODIFY refuses a type change the reader could not follow.
func CanEvolve(from, to sql.DataType) bool {
	_, err := evolveCast(from, to)
	return err == nil
}
