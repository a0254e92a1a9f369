package expr

import (
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// The session time zone, 'table.local-time-zone' (Flink's
// TableConfig.getLocalTimeZone), in which TIMESTAMP_LTZ values meet the
// types without a zone: a CAST between TIMESTAMP_LTZ and TIMESTAMP,
// STRING, DATE or TIME, FLOOR/CEIL of a TIMESTAMP_LTZ, FROM_UNIXTIME,
// UNIX_TIMESTAMP(s), DATE_FORMAT of a TIMESTAMP_LTZ, and the wall clock of
// LOCALTIMESTAMP, LOCALTIME, CURRENT_TIME and CURRENT_DATE. A TIMESTAMP_LTZ
// value is an instant (epoch milliseconds, as Flink's TimestampData), the
// same in every zone. The planner and the job compiler bind the session's
// zone into an expression with InZone; a call with none evaluates in UTC,
// and the reducer folds no zone-dependent call that has none
// (zoneDependent).

// InZone returns e with every call bound to the time zone loc (nil is
// UTC). e itself is not changed.
func InZone(e Expr, loc *time.Location) Expr {
	c, ok := e.(*Call)
	if !ok || e == nil {
		return e
	}
	out := *c
	out.zone = loc
	if out.zone == nil {
		out.zone = time.UTC
	}
	out.Args = make([]Expr, len(c.Args))
	for i, a := range c.Args {
		out.Args[i] = InZone(a, loc)
	}
	return &out
}

// location is the zone c evaluates in: UTC unless InZone bound one.
func (c *Call) location() *time.Location {
	if c.zone == nil {
		return time.UTC
	}
	return c.zone
}

// zoneDependent reports a call whose value depends on the session time
// zone: one over or to a TIMESTAMP_LTZ (other than a CAST between it and
// a number, which reads the epoch), FROM_UNIXTIME, UNIX_TIMESTAMP and the
// wall-clock functions.
func zoneDependent(c *Call) bool {
	switch c.Op {
	case "FROM_UNIXTIME", "UNIX_TIMESTAMP", "LOCALTIMESTAMP", "LOCALTIME", "CURRENT_TIME", "CURRENT_DATE":
		return true
	}
	if c.T.Root == sql.TypeTimestampLTZ {
		return true
	}
	for _, a := range c.Args {
		if a.Type().Root == sql.TypeTimestampLTZ {
			return true
		}
	}
	return false
}

// ZoneOffsetMillis, LocalMillis and UTCMillis are sql's (sql/zone.go).
var (
	ZoneOffsetMillis = sql.ZoneOffsetMillis
	LocalMillis      = sql.LocalMillis
	UTCMillis        = sql.UTCMillis
)

// toLocalTimestamp is the TIMESTAMP (wall clock in loc) of a TIMESTAMP_LTZ
// value.
func toLocalTimestamp(t sql.TimestampData, loc *time.Location) sql.TimestampData {
	t.Millis = LocalMillis(t.Millis, loc)
	return t
}

// fromLocalTimestamp is the TIMESTAMP_LTZ value of a TIMESTAMP (wall clock
// in loc).
func fromLocalTimestamp(t sql.TimestampData, loc *time.Location) sql.TimestampData {
	t.Millis = UTCMillis(t.Millis, loc)
	return t
}

// castValueIn is castValue with the TIMESTAMP_LTZ side of a cast read in
// loc: a TIMESTAMP_LTZ becomes its wall clock in loc before it is cast to
// a TIMESTAMP, STRING, DATE or TIME, and such a value cast to a
// TIMESTAMP_LTZ is read as a wall clock in loc (Flink's CastRules:
// TimestampToStringCastRule, TimestampToTimestampCastRule,
// TimestampToDateCastRule, TimestampToTimeCastRule, StringToTimestampCastRule,
// DateToTimestampCastRule, TimeToTimestampCastRule with the session zone).
func castValueIn(v any, from, to sql.DataType, loc *time.Location) (any, error) {
	if v == nil || loc == nil || loc == time.UTC {
		return castValue(v, from, to)
	}
	switch {
	case from.Root == sql.TypeTimestampLTZ && to.Root != sql.TypeTimestampLTZ:
		if t, ok := v.(sql.TimestampData); ok && wallClockType(to) {
			if to.Root == sql.TypeDate {
				// timestampWithLocalZoneToDate: the local date, not
				// TimestampToDateCastRule's truncating division.
				return int32(floorDiv(toLocalTimestamp(t, loc).Millis, millisPerDay)), nil
			}
			return castValue(toLocalTimestamp(t, loc), sql.Timestamp(from.Precision).WithNullable(from.Nullable), to)
		}
	case to.Root == sql.TypeTimestampLTZ && from.Root != sql.TypeTimestampLTZ && wallClockType(from):
		r, err := castValue(v, from, sql.Timestamp(to.Precision))
		if err != nil || r == nil {
			if err != nil {
				err = castErr(v, to)
			}
			return r, err
		}
		if t, ok := r.(sql.TimestampData); ok {
			return fromLocalTimestamp(t, loc), nil
		}
		return r, nil
	}
	return castValue(v, from, to)
}

// wallClockType is a type a TIMESTAMP_LTZ casts to and from through the
// session's wall clock.
func wallClockType(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeTimestamp, sql.TypeDate, sql.TypeTime:
		return true
	}
	return t.IsString()
}
