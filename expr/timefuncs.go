package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// Time functions of Flink 1.20 beyond the SQL standard's: FLOOR/CEIL of a
// datetime to a unit, FROM_UNIXTIME and UNIX_TIMESTAMP. sqlrun evaluates
// the ones that read a wall clock in the session time zone (zone.go).

// The time units of FLOOR(x TO unit), with Flink's TimeUnitRange
// multipliers (the units a TIMESTAMP floors to arithmetically).
var unitMillis = map[string]int64{
	"DAY": 86400000, "HOUR": 3600000, "MINUTE": 60000, "SECOND": 1000, "MILLISECOND": 1,
}

// calendarUnit: units floored through the Julian date (DateTimeUtils.julianDateFloor).
var calendarUnit = map[string]bool{
	"MILLENNIUM": true, "CENTURY": true, "DECADE": true, "YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true,
}

// inferFloorCeil types FLOOR/CEIL(x) as inferAbsFloorCeil and
// FLOOR/CEIL(x TO unit) (the parser's second argument is the unit's flag)
// as Calcite's SqlFloorFunction: x's own type, for a DATE, TIMESTAMP or
// TIMESTAMP_LTZ.
func inferFloorCeil(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 2 {
		return inferAbsFloorCeil(name, args)
	}
	u, ok := args[1].(*Literal)
	if !ok || !u.Flag {
		return inferAbsFloorCeil(name, args)
	}
	unit, _ := u.Value.(string)
	t := args[0].Type()
	switch t.Root {
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		if unitMillis[unit] == 0 && !calendarUnit[unit] {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("sqlrun does not support %s(... TO %s) yet", name, unit)}
		}
	case sql.TypeDate:
		// FLOOR(date TO DAY) is the date and CEIL's the next day
		// (julianDateFloor), as TemporalTypesTest expects.
		if !calendarUnit[unit] && unit != "DAY" {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("sqlrun does not support %s(DATE TO %s) yet", name, unit)}
		}
	case sql.TypeTime:
		// A TIME floors and ceils on its milliseconds of the day.
		if unitMillis[unit] == 0 {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("sqlrun does not support %s(TIME TO %s) yet", name, unit)}
		}
	default:
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(<%s> TO <%s>)'. Supported form(s): '%s(<DATE> TO <TIME UNIT>)'\n'%s(<TIME> TO <TIME UNIT>)'\n'%s(<TIMESTAMP> TO <TIME UNIT>)'",
			name, name, CalciteTypeName(t), unit, name, name, name)}
	}
	return args, t, nil
}

// evalFloorCeil evaluates FLOOR/CEIL with a unit as Flink's
// FloorCeilCallGen: calendar units through DateTimeUtils.julianDateFloor
// (unixTimestampFloor/Ceil for a TIMESTAMP, timestampFloor/Ceil for a
// TIMESTAMP_LTZ, unixDateFloor/Ceil for a DATE), DAY and smaller units
// arithmetically on the epoch milliseconds; the result keeps no fraction
// below the millisecond (TimestampData.fromEpochMillis).
func evalFloorCeil(c *Call, args []Eval) (Eval, error) {
	if len(c.Args) != 2 {
		return evalRound(c, args)
	}
	u, ok := c.Args[1].(*Literal)
	if !ok || !u.Flag {
		return evalRound(c, args)
	}
	unit, _ := u.Value.(string)
	floor := c.Op == "FLOOR"
	x := args[0]
	if c.Args[0].Type().Root == sql.TypeTime {
		m := unitMillis[unit]
		return func(row []any) (any, error) {
			v, err := x(row)
			if err != nil || v == nil {
				return nil, err
			}
			t, _ := v.(int32)
			if floor {
				return int32(floorMul(int64(t), m)), nil
			}
			return int32(ceilMul(int64(t), m)), nil
		}, nil
	}
	if c.Args[0].Type().Root == sql.TypeDate {
		return func(row []any) (any, error) {
			v, err := x(row)
			if err != nil || v == nil {
				return nil, err
			}
			d, _ := v.(int32)
			return int32(julianDateFloor(unit, int(d)+epochJulian, floor)), nil
		}, nil
	}
	// A TIMESTAMP_LTZ floors to an HOUR, a DAY or a calendar unit on its
	// wall clock in the session zone, less the zone's offset at the value
	// (DateTimeUtils.timestampFloor/timestampCeil with the session's
	// TimeZone); to smaller units on the instant.
	ltz := c.Args[0].Type().Root == sql.TypeTimestampLTZ && unit != "MINUTE" && unit != "SECOND" && unit != "MILLISECOND"
	loc := c.location()
	return func(row []any) (any, error) {
		v, err := x(row)
		if err != nil || v == nil {
			return nil, err
		}
		ts, _ := v.(sql.TimestampData)
		ms := ts.Millis
		var offset int64
		if ltz {
			offset = ZoneOffsetMillis(ms, loc)
			ms += offset
		}
		if m := unitMillis[unit]; m > 0 {
			if floor {
				return sql.TimestampData{Millis: floorMul(ms, m) - offset}, nil
			}
			return sql.TimestampData{Millis: ceilMul(ms, m) - offset}, nil
		}
		days := int(ms/millisPerDay) + epochJulian
		return sql.TimestampData{Millis: int64(julianDateFloor(unit, days, floor))*millisPerDay - offset}, nil
	}, nil
}

const (
	epochJulian  = 2440588
	millisPerDay = 86400000
)

// floorMul and ceilMul are DateTimeUtils.floor and ceil: a rounded down
// or up to a multiple of b.
func floorMul(a, b int64) int64 {
	r := a % b
	if r < 0 {
		return a - r - b
	}
	return a - r
}

func ceilMul(a, b int64) int64 {
	r := a % b
	if r > 0 {
		return a - r + b
	}
	return a - r
}

// julianDateFloor is Flink's DateTimeUtils.julianDateFloor (Calcite's):
// the Unix date of the start (floor) or the end (ceil) of the unit
// holding a Julian day. Its ceil of a YEAR, QUARTER or MONTH is the unit's
// start when the day is the unit's first (CEIL of 2024-01-01 10:00 TO
// YEAR is 2024-01-01 00:00), as Flink's.
func julianDateFloor(unit string, julian int, floor bool) int {
	var b, c int
	if julian > 2299160 {
		a := julian + 32044
		b = (4*a + 3) / 146097
		c = a - b*146097/4
	} else {
		c = julian + 32082
	}
	d := (4*c + 3) / 1461
	e := c - (1461*d)/4
	m := (5*e + 2) / 153
	day := e - (153*m+2)/5 + 1
	month := m + 3 - 12*(m/10)
	quarter := (month + 2) / 3
	year := b*100 + d - 4800 + (m / 10)
	switch unit {
	case "MILLENNIUM":
		if floor {
			return ymdToUnixDate(1000*((year+999)/1000)-999, 1, 1)
		}
		return ymdToUnixDate(1000*((year+999)/1000)+1, 1, 1)
	case "CENTURY":
		if floor {
			return ymdToUnixDate(100*((year+99)/100)-99, 1, 1)
		}
		return ymdToUnixDate(100*((year+99)/100)+1, 1, 1)
	case "DECADE":
		if floor {
			return ymdToUnixDate(10*(year/10), 1, 1)
		}
		return ymdToUnixDate(10*(1+year/10), 1, 1)
	case "YEAR":
		if !floor && (month > 1 || day > 1) {
			year++
		}
		return ymdToUnixDate(year, 1, 1)
	case "MONTH":
		if !floor && day > 1 {
			month++
		}
		return ymdToUnixDate(year, month, 1)
	case "QUARTER":
		if !floor && (month > 1 || day > 1) {
			quarter++
		}
		return ymdToUnixDate(year, quarter*3-2, 1)
	case "WEEK":
		dow := ((julian+1)%7 + 7) % 7 // Sunday 0 ... Saturday 6
		offset := dow
		if !floor && offset > 0 {
			offset -= 7
		}
		return ymdToUnixDate(year, month, day) - offset
	}
	// DAY
	res := ymdToUnixDate(year, month, day)
	if floor {
		return res
	}
	return res + 1
}

func ymdToUnixDate(year, month, day int) int {
	a := (14 - month) / 12
	y := year + 4800 - a
	m := month + 12*a - 3
	return day + (153*m+2)/5 + 365*y + y/4 - y/100 + y/400 - 32045 - epochJulian
}

// inferFromUnixtime: FROM_UNIXTIME(seconds [, format]) is a nullable
// STRING (FlinkSqlOperatorTable.FROM_UNIXTIME: INTEGER [, STRING] operands,
// VARCHAR_FORCE_NULLABLE).
func inferFromUnixtime(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	ok := isIntegerType(args[0].Type()) || args[0].Type().Root == sql.TypeNull
	if len(args) == 2 {
		ok = ok && (args[1].Type().IsString() || args[1].Type().Root == sql.TypeNull)
	}
	if !ok {
		sig := "<" + signatureType(args[0].Type()) + ">"
		if len(args) == 2 {
			sig += ", <" + signatureType(args[1].Type()) + ">"
		}
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(%s)'. Supported form(s): '%s(<INTEGER>)'\n'%s(<INTEGER>, <STRING>)'",
			name, name, sig, name, name)}
	}
	return args, sql.String().WithNullable(true), nil
}

// evalFromUnixtime formats epoch seconds as DateTimeUtils.formatUnixTimestamp
// ('yyyy-MM-dd HH:mm:ss' unless a format is given).
func evalFromUnixtime(c *Call, args []Eval) (Eval, error) {
	loc := c.location()
	return strict(args, func(vs []any) (any, error) {
		n, _ := ToInt(vs[0])
		format := "yyyy-MM-dd HH:mm:ss"
		if len(vs) > 1 {
			format = vs[1].(string)
		}
		pat, err := getSimplePattern(format)
		if err != nil {
			return nil, sql.Errorf(sql.TableException, "FROM_UNIXTIME: %v", err)
		}
		return pat.format(time.UnixMilli(LocalMillis(n*1000, loc)).UTC()), nil
	}), nil
}

// inferUnixTimestamp: UNIX_TIMESTAMP() is the current epoch second, a
// BIGINT NOT NULL; UNIX_TIMESTAMP(s [, format]) parses s, a BIGINT as
// nullable as its arguments (ReturnTypes.BIGINT_NULLABLE over NILADIC,
// CHARACTER or CHARACTER, CHARACTER operands).
func inferUnixTimestamp(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 0, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	for i := range args {
		if err := wantString(name, args, i); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	return args, sql.BigInt().WithNullable(anyNullable(args)), nil
}

// evalUnixTimestamp: the clock's epoch second without arguments; else the
// epoch second of s read by the format ('yyyy-MM-dd HH:mm:ss' by
// default), and Long.MIN_VALUE for a string that does not parse, as
// Flink's DateTimeUtils.unixTimestamp returns.
func evalUnixTimestamp(c *Call, args []Eval) (Eval, error) {
	if len(args) == 0 {
		return func([]any) (any, error) { return time.Now().Unix(), nil }, nil
	}
	loc := c.location()
	return strict(args, func(vs []any) (any, error) {
		format := "yyyy-MM-dd HH:mm:ss"
		if len(vs) > 1 {
			format = vs[1].(string)
		}
		pat, err := getSimplePattern(format)
		if err != nil {
			return nil, sql.Errorf(sql.TableException, "UNIX_TIMESTAMP: %v", err)
		}
		tm, ok := pat.parse(vs[0].(string), time.Now())
		if !ok {
			return int64(math.MinInt64), nil
		}
		return floorDiv(UTCMillis(tm.UnixMilli(), loc), 1000), nil
	}), nil
}

// The units of EXTRACT(unit FROM x) (Flink's ExtractCallGen): the units of
// the date, read through DateTimeUtils.unixDateExtract from the day, and
// the units of the time of day, read from the milliseconds as
// (ms % factor) / multiplier. The date-part functions YEAR(x) ... SECOND(x)
// are EXTRACT calls (Calcite's SqlDatePartFunction rewrites them).
var (
	extractDateUnit = map[string]bool{
		"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "DOY": true, "DOW": true,
		"ISODOW": true, "ISOYEAR": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true,
	}
	extractTimeUnit = map[string][2]int64{
		"HOUR": {86400000, 3600000}, "MINUTE": {3600000, 60000}, "SECOND": {60000, 1000}, "MILLISECOND": {1000, 1},
		"MICROSECOND": {1000, 1}, "NANOSECOND": {1000, 1},
	}
	// intervalExtract: ExtractCallGen over an interval's months or
	// milliseconds, (value % factor) / multiplier, the factor 1 meaning no
	// remainder (getFactor and TimeUnit's multipliers).
	intervalExtract = map[string][2]int64{
		"DAY": {1, 86400000}, "HOUR": {86400000, 3600000}, "MINUTE": {3600000, 60000}, "SECOND": {60000, 1000},
		"MILLISECOND": {1000, 1}, "MONTH": {12, 1}, "QUARTER": {12, 3}, "YEAR": {1, 12}, "CENTURY": {1, 1200},
		"MILLENNIUM": {1, 12000},
	}
	datePartUnit = map[string]string{
		"YEAR": "YEAR", "QUARTER": "QUARTER", "MONTH": "MONTH", "WEEK": "WEEK", "DAYOFYEAR": "DOY",
		"DAYOFMONTH": "DAY", "DAYOFWEEK": "DOW", "HOUR": "HOUR", "MINUTE": "MINUTE", "SECOND": "SECOND",
	}
)

// unitFlag reads the time unit a call's first argument names (the
// parser's TimeUnit, bound as a flag literal).
func unitFlag(e Expr) (string, bool) {
	l, ok := e.(*Literal)
	if !ok || !l.Flag {
		return "", false
	}
	u, ok := l.Value.(string)
	return u, ok
}

// inferExtract types EXTRACT(unit FROM x) and the date-part functions
// (YEAR(x) is EXTRACT(YEAR FROM x), DAYOFWEEK(x) EXTRACT(DOW FROM x): the
// call EXPLAIN prints) as Calcite's SqlExtractFunction: a BIGINT as
// nullable as x, from a DATE, TIME or TIMESTAMP.
func inferExtract(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if name = strings.ToUpper(name); name != "EXTRACT" {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, sql.DataType{}, err
		}
		u := datePartUnit[name]
		args = []Expr{&Literal{Value: u, T: sql.Char(len(u)).NotNull(), Flag: true}, args[0]}
	}
	unit, ok := unitFlag(args[0])
	if len(args) != 2 || !ok {
		return nil, sql.DataType{}, &OperandError{Msg: "Invalid number of arguments to function 'EXTRACT'. Was expecting 2 arguments"}
	}
	_, timeUnit := extractTimeUnit[unit]
	t := args[1].Type()
	switch t.Root {
	case sql.TypeTimestamp, sql.TypeNull:
		if !extractDateUnit[unit] && !timeUnit && unit != "EPOCH" {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("sqlrun does not support EXTRACT(%s FROM <TIMESTAMP>) yet", unit)}
		}
	case sql.TypeDate:
		if !extractDateUnit[unit] && unit != "EPOCH" {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("sqlrun does not support EXTRACT(%s FROM <DATE>) yet", unit)}
		}
	case sql.TypeTime:
		// ExtractCallGen's ValidationException.
		if extractDateUnit[unit] || unit == "EPOCH" {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("unit %s can not be applied to time variable", unit)}
		}
		if unit == "MICROSECOND" || unit == "NANOSECOND" {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("unit %s can not be applied to %s variable", unit, t)}
		}
	case sql.TypeTimestampLTZ:
		return nil, sql.DataType{}, &OperandError{Msg: "sqlrun does not support EXTRACT from a TIMESTAMP_LTZ yet"}
	case sql.TypeIntervalDayTime, sql.TypeIntervalYearMonth:
		// ExtractCallGen's getFactor and its ValidationException.
		if unit == "MICROSECOND" || unit == "NANOSECOND" {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("unit %s can not be applied to %s variable", unit, t)}
		}
		if _, ok := intervalExtract[unit]; !ok {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Unit '%s' is not supported.", unit)}
		}
	default:
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply 'EXTRACT' to arguments of type 'EXTRACT(<INTERVAL %s> FROM <%s>)'. Supported form(s): 'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME_INTERVAL>)'\n'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'",
			unit, CalciteTypeName(t))}
	}
	return args, sql.BigInt().WithNullable(t.Nullable), nil
}

// evalExtract is Flink's ExtractCallGen: the date units of a TIMESTAMP
// from its day (milliseconds / 86400000, Java's division), the time units
// from (ms % factor) / multiplier, Java's remainder (so a time before 1970
// reads negative hours, as Flink's).
func evalExtract(c *Call, args []Eval) (Eval, error) {
	unit, _ := unitFlag(c.Args[0])
	root := c.Args[1].Type().Root
	x := args[1]
	return func(row []any) (any, error) {
		v, err := x(row)
		if err != nil || v == nil {
			return nil, err
		}
		var ms int64
		nano := int64(0)
		if root == sql.TypeIntervalYearMonth || root == sql.TypeIntervalDayTime {
			n := intervalCount(v)
			fm := intervalExtract[unit]
			switch {
			case unit == "QUARTER":
				return ((n%fm[0])-1)/fm[1] + 1, nil
			case fm[0] == 1:
				return n / fm[1], nil
			}
			return (n % fm[0]) / fm[1], nil
		}
		switch v := v.(type) {
		case sql.TimestampData:
			ms, nano = v.Millis, int64(v.NanoOfMilli)
		case int32:
			if root == sql.TypeDate && unit == "EPOCH" {
				return int64(v) * 86400, nil
			}
			if root == sql.TypeDate {
				return unixDateExtract(unit, int(v)), nil
			}
			ms = int64(v)
		}
		if unit == "EPOCH" {
			// StandardConvertletTable.convertExtract: the timestamp's
			// milliseconds divided by 1000 (Java's division).
			return ms / 1000, nil
		}
		if extractDateUnit[unit] {
			return unixDateExtract(unit, int(ms/millisPerDay)), nil
		}
		fm := extractTimeUnit[unit]
		r := (ms % fm[0]) / fm[1]
		switch unit {
		case "MICROSECOND":
			return r*1000 + nano/1000, nil
		case "NANOSECOND":
			return r*1000000 + nano, nil
		}
		return r, nil
	}, nil
}

// unixDateExtract is DateTimeUtils.unixDateExtract over a Unix date: the
// proleptic Gregorian calendar of julianDateFloor's algorithm; DOW counts
// Sunday 1 to Saturday 7, WEEK and ISOYEAR are ISO 8601's.
func unixDateExtract(unit string, date int) int64 {
	t := time.Unix(int64(date)*86400, 0).UTC()
	year, month, day := t.Date()
	switch unit {
	case "YEAR":
		return int64(year)
	case "QUARTER":
		return int64(month+2) / 3
	case "MONTH":
		return int64(month)
	case "DAY":
		return int64(day)
	case "DOW":
		return int64(t.Weekday()) + 1
	case "ISODOW":
		if t.Weekday() == time.Sunday {
			return 7
		}
		return int64(t.Weekday())
	case "DOY":
		return int64(t.YearDay())
	case "WEEK":
		_, w := t.ISOWeek()
		return int64(w)
	case "ISOYEAR":
		y, _ := t.ISOWeek()
		return int64(y)
	case "DECADE":
		return int64(year / 10)
	case "CENTURY":
		if year > 0 {
			return int64((year + 99) / 100)
		}
		return int64((year - 99) / 100)
	}
	// MILLENNIUM
	if year > 0 {
		return int64((year + 999) / 1000)
	}
	return int64((year - 999) / 1000)
}

// The units of TIMESTAMPADD and TIMESTAMPDIFF Flink documents (SECOND to
// YEAR): milliseconds of the fixed-length ones, months of the others.
var (
	tsUnitMillis = map[string]int64{"SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": millisPerDay, "WEEK": 7 * millisPerDay}
	tsUnitMonths = map[string]int{"MONTH": 1, "QUARTER": 3, "YEAR": 12}
)

// TimestampAddInterval is the INTERVAL literal Calcite's
// TimestampAddConvertlet (StandardConvertletTable) multiplies a
// TIMESTAMPADD's count by: the unit's TimeUnit.multiplier (milliseconds,
// or months for MONTH, QUARTER and YEAR) with the unit as its qualifier,
// whose type is SqlIntervalQualifier.typeName's (a WEEK is an INTERVAL
// DAY, a QUARTER an INTERVAL MONTH): 86400000:INTERVAL DAY, 3:INTERVAL
// QUARTER. ok is false for a unit TIMESTAMPADD does not take.
func TimestampAddInterval(unit string) (iv Interval, t sql.DataType, ok bool) {
	if ms := tsUnitMillis[unit]; ms > 0 {
		from := unit
		if unit == "WEEK" {
			from = "DAY"
		}
		t, ok = sql.Interval(from, "")
		return Interval{Millis: ms, Unit: unit}, t.NotNull(), ok
	}
	if m := tsUnitMonths[unit]; m > 0 {
		from := unit
		if unit == "QUARTER" {
			from = "MONTH"
		}
		t, ok = sql.Interval(from, "")
		return Interval{Months: int64(m), Unit: unit}, t.NotNull(), ok
	}
	return Interval{}, sql.DataType{}, false
}

// tsUnit checks the unit of TIMESTAMPADD/TIMESTAMPDIFF.
func tsUnit(name string, e Expr) (string, error) {
	unit, ok := unitFlag(e)
	if !ok {
		return "", &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting 3 arguments", name)}
	}
	if tsUnitMillis[unit] == 0 && tsUnitMonths[unit] == 0 && (name != "TIMESTAMPDIFF" || tsDiffSubSecond[unit] == 0) {
		return "", &OperandError{Msg: fmt.Sprintf("sqlrun does not support %s(%s, ...) yet", name, unit)}
	}
	return unit, nil
}

// tsDiffSubSecond is what Calcite's TimestampDiffConvertlet multiplies
// the whole seconds between the operands by for a unit below the
// second (multiplyDivide(e, 1000, unit.multiplier)): the difference is
// counted in seconds and then scaled, so TIMESTAMPDIFF(MICROSECOND, a,
// a + 1.5 s) is 1000000, as in Flink 1.20.
var tsDiffSubSecond = map[string]int64{"MILLISECOND": 1000, "MICROSECOND": 1000000, "NANOSECOND": 1000000000}

// TimestampDiffSubSecond is tsDiffSubSecond's factor for unit (0 for
// the other units).
func TimestampDiffSubSecond(unit string) int64 { return tsDiffSubSecond[unit] }

func isDatetime(t sql.DataType) bool {
	return t.Root == sql.TypeDate || t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ
}

// inferTimestampAdd types TIMESTAMPADD(unit, n, x) as Flink's copy of
// Calcite's SqlTimestampAddFunction (CALCITE-4698): n of the INTEGER
// family and x of the DATETIME family (DATE, TIME, TIMESTAMP,
// TIMESTAMP_LTZ); HOUR, MINUTE or SECOND added to a DATE makes a TIMESTAMP
// of Flink's default precision (6), anything else keeps x's type (a TIME
// stays a TIME for every unit, a DATE a DATE for DAY and longer units);
// as nullable as n and x (timestampAddType).
func inferTimestampAdd(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, sql.DataType{}, err
	}
	unit, err := tsUnit(name, args[0])
	if err != nil {
		return nil, sql.DataType{}, err
	}
	n, x := args[1].Type(), args[2].Type()
	if !isIntegerType(n) && n.Root != sql.TypeNull || !isDatetime(x) && x.Root != sql.TypeTime {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(<SYMBOL>, <%s>, <%s>)'. Supported form(s): '%s(<ANY>, <INTEGER>, <DATETIME>)'",
			name, name, signatureType(n), signatureType(x), name)}
	}
	return args, timestampAddType(unit, x).WithNullable(anyNullable(args)), nil
}

// timestampAddType is SqlTimestampAddFunction.deduceType as Flink 1.20's
// copy has it for the units TIMESTAMPADD takes: a DATE plus HOUR, MINUTE
// or SECOND is a TIMESTAMP (FlinkTypeSystem's default precision, 6); the
// other combinations keep the datetime's type.
func timestampAddType(unit string, x sql.DataType) sql.DataType {
	switch unit {
	case "HOUR", "MINUTE", "SECOND":
		if x.Root == sql.TypeDate {
			return sql.Timestamp(6)
		}
	}
	return x
}

// evalTimestampAdd is the x + INTERVAL(unit) * n Calcite's
// TimestampAddConvertlet makes of it, computed as datetime + interval
// (datetimePlus): fixed-length units add milliseconds (whole days to a
// DATE, wrapping within the day for a TIME), the others
// DateTimeUtils.addMonths (the day clamped to the month's last: 2024-01-31
// plus a month is 2024-02-29; a TIME is unchanged).
func evalTimestampAdd(c *Call, args []Eval) (Eval, error) {
	unit, _ := unitFlag(c.Args[0])
	t := c.T
	return strict(args[1:], func(vs []any) (any, error) {
		n, _ := ToInt(vs[0])
		if months := tsUnitMonths[unit]; months > 0 {
			return datetimePlus("+", vs[1], int64(int32(n)*int32(months)), true, t)
		}
		return datetimePlus("+", vs[1], n*tsUnitMillis[unit], false, t)
	}), nil
}

// inferTimestampDiff types TIMESTAMPDIFF(unit, a, b) as Calcite's
// SqlTimestampDiffFunction: an INTEGER (a BIGINT for NANOSECOND) as
// nullable as a and b, of two operands of the DATETIME family (DATE,
// TIME, TIMESTAMP, TIMESTAMP_LTZ).
func inferTimestampDiff(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, sql.DataType{}, err
	}
	unit, err := tsUnit(name, args[0])
	if err != nil {
		return nil, sql.DataType{}, err
	}
	a, b := args[1].Type(), args[2].Type()
	if !isDatetime(a) && a.Root != sql.TypeTime || !isDatetime(b) && b.Root != sql.TypeTime {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(<SYMBOL>, <%s>, <%s>)'. Supported form(s): '%s(<ANY>, <DATETIME>, <DATETIME>)'",
			name, name, signatureType(a), signatureType(b), name)}
	}
	// A DATE and a TIMESTAMP subtract as ScalarOperatorGens
	// .generateTemporalPlusMinus does, the DATE as its midnight
	// (ScalarFunctionsTest.testTimestampDiff); a TIMESTAMP_LTZ with another
	// type fails there (generateTimestampLtzMinus).
	if a.Root != b.Root && (a.Root == sql.TypeTimestampLTZ || b.Root == sql.TypeTimestampLTZ) {
		return nil, sql.DataType{}, sql.Errorf(sql.CodeGenException, "TIMESTAMP_LTZ only supports diff between the same type.")
	}
	// A TIME subtracts only in months (the INTERVAL_YEAR_MONTH branch
	// of generateTemporalPlusMinus); the milliseconds' branch matches
	// the pairs of DATE and TIMESTAMP only, so any other unit fails
	// there with Scala's MatchError on the pair (b's type, a's type).
	if tsUnitMonths[unit] == 0 && (a.Root == sql.TypeTime || b.Root == sql.TypeTime) {
		return nil, sql.DataType{}, sql.Errorf(sql.ScalaMatchError, "(%s,%s) (of class scala.Tuple2)", typeRootName(b), typeRootName(a))
	}
	t := sql.Int()
	if unit == "NANOSECOND" {
		t = sql.BigInt()
	}
	return args, t.WithNullable(anyNullable(args)), nil
}

// minusDateMonths is the months between two time points as
// generateTemporalPlusMinus's INTERVAL_YEAR_MONTH branch computes them
// (b - a): DateTimeUtils.subtractMonths over epoch milliseconds when one
// side is a TIMESTAMP (a DATE as its midnight, a TIME as its
// milliseconds of the day, which Java widens to a long), and otherwise
// over the two values' int representations, which Java resolves to
// subtractMonths(int, int) over days: a TIME's milliseconds of the day
// are then read as a day number (TIME '10:00:00' is day 36000000).
func minusDateMonths(b, a any, bt, at sql.DataType) int32 {
	if bt.Root != sql.TypeTimestamp && at.Root != sql.TypeTimestamp && bt.Root != sql.TypeTimestampLTZ {
		bi, _ := b.(int32)
		ai, _ := a.(int32)
		return int32(subtractDateMonths(int(bi), int(ai)))
	}
	ms := func(v any, t sql.DataType) int64 {
		switch x := v.(type) {
		case int32:
			if t.Root == sql.TypeTime {
				return int64(x)
			}
			return int64(x) * millisPerDay
		case sql.TimestampData:
			return x.Millis
		}
		return 0
	}
	return int32(subtractMonths(ms(b, bt), ms(a, at)))
}

// evalTimestampDiff is the CAST((b - a) unit AS INTEGER) Calcite's
// TimestampDiffConvertlet makes of it: the milliseconds between them
// divided by the unit's (toward zero), or DateTimeUtils.subtractMonths
// divided by the unit's months; the INTEGER cast wraps as Java's.
func evalTimestampDiff(c *Call, args []Eval) (Eval, error) {
	unit, _ := unitFlag(c.Args[0])
	at, bt := c.Args[1].Type(), c.Args[2].Type()
	return strict(args[1:], func(vs []any) (any, error) {
		if months := tsUnitMonths[unit]; months > 0 {
			return int32(int(minusDateMonths(vs[1], vs[0], bt, at)) / months), nil
		}
		a, b := epochMillis(vs[0]), epochMillis(vs[1])
		if f := tsDiffSubSecond[unit]; f > 0 {
			secs := (b - a) / 1000
			if unit == "NANOSECOND" {
				return secs * f, nil
			}
			return int32(secs) * int32(f), nil
		}
		return int32((b - a) / tsUnitMillis[unit]), nil
	}), nil
}

// epochMillis is a DATE (days) or a TIMESTAMP / TIMESTAMP_LTZ as epoch
// milliseconds.
func epochMillis(v any) int64 {
	if d, ok := v.(int32); ok {
		return int64(d) * millisPerDay
	}
	return v.(sql.TimestampData).Millis
}

// evalReinterpret is Calcite's Reinterpret: the operand's value as its
// type's internal representation, which for an interval is its count of
// milliseconds or months as a BIGINT (RexBuilder.decodeIntervalOrDecimal);
// a rowtime's Reinterpret keeps the value.
func evalReinterpret(c *Call, args []Eval) (Eval, error) {
	if c.T.Root != sql.TypeBigInt || !c.Args[0].Type().IsInterval() {
		return args[0], nil
	}
	return strict(args, func(vs []any) (any, error) { return intervalCount(vs[0]), nil }), nil
}

// evalDivideInteger is Calcite's /INT: Java's division of integers of the
// call's type, truncating toward zero.
func evalDivideInteger(c *Call, args []Eval) (Eval, error) {
	t := c.T
	return strict(args, func(vs []any) (any, error) {
		x, _ := ToInt(vs[0])
		y, _ := ToInt(vs[1])
		if y == 0 {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.ArithmeticException: / by zero")
		}
		if t.Root == sql.TypeBigInt {
			return x / y, nil
		}
		return int32(int32(x) / int32(y)), nil
	}), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// addMonths is DateTimeUtils.addMonths over a Unix date.
func addMonths(date, m int) int {
	t := time.Unix(int64(date)*86400, 0).UTC()
	y0, m0, d0 := t.Year(), int(t.Month()), t.Day()
	m0 += m
	dy := int(floorDiv(int64(m0), 12))
	y0 += dy
	m0 -= dy * 12
	if m0 == 0 {
		y0--
		m0 = 12
	}
	if last := time.Date(y0, time.Month(m0)+1, 0, 0, 0, 0, 0, time.UTC).Day(); d0 > last {
		d0 = last
	}
	return ymdToUnixDate(y0, m0, d0)
}

// subtractMonths is DateTimeUtils.subtractMonths(long, long): the whole
// months from t1 to t0 (epoch milliseconds), counting a month only once
// its day and time of day are reached.
func subtractMonths(t0, t1 int64) int {
	d0, d1 := floorDiv(t0, millisPerDay), floorDiv(t1, millisPerDay)
	ms0, ms1 := t0-d0*millisPerDay, t1-d1*millisPerDay
	x := subtractDateMonths(int(d0), int(d1))
	if addMonths(int(d1), x) == int(d0) && ms0 < ms1 {
		x--
	}
	return x
}

// subtractDateMonths is DateTimeUtils.subtractMonths(int, int).
func subtractDateMonths(date0, date1 int) int {
	if date0 < date1 {
		return -subtractDateMonths(date1, date0)
	}
	m := (date0 - date1) / 31
	for {
		if addMonths(date1, m) >= date0 {
			return m
		}
		if addMonths(date1, m+1) > date0 {
			return m
		}
		m++
	}
}

// inferToDate: TO_DATE(s [, format]) is a nullable DATE
// (FlinkSqlOperatorTable.TO_DATE: STRING [, STRING] operands, DATE made
// nullable).
func inferToDate(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	for i := range args {
		if err := wantString(name, args, i); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	return args, sql.Date(), nil
}

// evalToDate: TO_DATE(s) is DateTimeUtils.parseDate (year[-month[-day]],
// anything after a space ignored, NULL for what does not parse or is no
// date); TO_DATE(s, format) reads s by the SimpleDateFormat pattern, NULL
// when it does not parse.
func evalToDate(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		if len(vs) == 1 {
			d, ok := parseDate(s)
			if !ok {
				return nil, nil
			}
			return int32(d), nil
		}
		pat, err := getSimplePattern(vs[1].(string))
		if err != nil {
			return nil, sql.Errorf(sql.TableException, "TO_DATE: %v", err)
		}
		tm, ok := pat.parse(s, time.Now())
		if !ok {
			return nil, nil
		}
		return int32(floorDiv(tm.Unix(), 86400)), nil
	}), nil
}

// parseDate is DateTimeUtils.parseDate.
func parseDate(s string) (int, bool) {
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	parts := strings.SplitN(s, "-", 3)
	ymd := []int{0, 1, 1}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return 0, false
		}
		ymd[i] = n
	}
	y, m, d := ymd[0], ymd[1], ymd[2]
	if y < 0 || y > 9999 || m < 1 || m > 12 || d < 1 || time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day() < d {
		return 0, false
	}
	return ymdToUnixDate(y, m, d), true
}
