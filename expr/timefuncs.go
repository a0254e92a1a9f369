package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// Time functions of Flink 1.20 beyond the SQL standard's: FLOOR/CEIL of a
// datetime to a unit, FROM_UNIXTIME and UNIX_TIMESTAMP. sqlrun evaluates
// them in UTC, the zone it shows TIMESTAMP_LTZ values in
// (docs/differences.md: table.local-time-zone).

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
		if !calendarUnit[unit] {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("sqlrun does not support %s(DATE TO %s) yet", name, unit)}
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
	return func(row []any) (any, error) {
		v, err := x(row)
		if err != nil || v == nil {
			return nil, err
		}
		ts, _ := v.(sql.TimestampData)
		ms := ts.Millis
		if m := unitMillis[unit]; m > 0 {
			if floor {
				return sql.TimestampData{Millis: floorMul(ms, m)}, nil
			}
			return sql.TimestampData{Millis: ceilMul(ms, m)}, nil
		}
		days := int(ms/millisPerDay) + epochJulian
		return sql.TimestampData{Millis: int64(julianDateFloor(unit, days, floor)) * millisPerDay}, nil
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
	return strict(args, func(vs []any) (any, error) {
		n, _ := ToInt(vs[0])
		layout := "2006-01-02 15:04:05"
		if len(vs) > 1 {
			layout = javaLayout(vs[1].(string))
		}
		return time.Unix(n, 0).UTC().Format(layout), nil
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
	return strict(args, func(vs []any) (any, error) {
		layout := "2006-01-02 15:04:05"
		if len(vs) > 1 {
			layout = javaLayout(vs[1].(string))
		}
		tm, ok := parsePrefix(layout, vs[0].(string))
		if !ok {
			return int64(math.MinInt64), nil
		}
		return tm.Unix(), nil
	}), nil
}

// parsePrefix reads s by layout as SimpleDateFormat.parse(String) does in
// this respect: text after what the layout reads is ignored
// ('2024-01-01 00:00:00.123' by 'yyyy-MM-dd HH:mm:ss').
func parsePrefix(layout, s string) (time.Time, bool) {
	tm, err := time.Parse(layout, s)
	if err == nil {
		return tm, true
	}
	var pe *time.ParseError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, ": extra text: ") {
		return time.Time{}, false
	}
	rest, uerr := strconv.Unquote(strings.TrimPrefix(pe.Message, ": extra text: "))
	if uerr != nil || !strings.HasSuffix(s, rest) {
		return time.Time{}, false
	}
	tm, err = time.Parse(layout, s[:len(s)-len(rest)])
	return tm, err == nil
}
