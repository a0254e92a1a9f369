package sql

import (
	"math"
	"time"
)

// ZoneOffsetMillis is loc's offset from UTC at the instant epoch
// millisecond ms.
func ZoneOffsetMillis(ms int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return 0
	}
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

// LocalMillis is the wall clock of loc at the instant ms, as epoch
// milliseconds of that wall clock read as UTC (Flink's
// DateTimeUtils.timestampWithLocalZoneToTimestamp).
func LocalMillis(ms int64, loc *time.Location) int64 {
	return ms + ZoneOffsetMillis(ms, loc)
}

// UTCMillis is the instant the wall clock wall (epoch milliseconds of the
// wall clock read as UTC) is in loc, resolved as java.time's
// ZonedDateTime.ofLocal (Flink's DateTimeUtils
// .timestampToTimestampWithLocalZone, LocalDateTime.atZone): in a gap of
// a daylight-saving change the wall clock moves forward by the gap's
// length, in an overlap the earlier offset (the one before the change)
// is taken.
func UTCMillis(wall int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return wall
	}
	const day = 86400000
	before := ZoneOffsetMillis(wall-day, loc)
	after := ZoneOffsetMillis(wall+day, loc)
	validBefore := ZoneOffsetMillis(wall-before, loc) == before
	validAfter := ZoneOffsetMillis(wall-after, loc) == after
	switch {
	case validBefore:
		return wall - before
	case validAfter:
		return wall - after
	}
	// A gap: the wall clock shifted by the gap, at the later offset,
	// is the same instant as the wall clock at the earlier offset.
	return wall - before
}

// EpochOfWindow is Flink's TimeWindowUtil.toEpochMills: the instant of
// a window bound local (a wall clock in loc as epoch milliseconds), read
// at whole seconds (LocalDateTime.ofEpochSecond(local / 1000)), the
// instant a window property such as window_time is derived from.
func EpochOfWindow(local int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return local
	}
	return UTCMillis(local/1000*1000, loc)
}

// WindowTimer is Flink's TimeWindowUtil.toEpochMillsForTimer: the instant
// at which a window whose last wall-clock millisecond in loc is local
// fires (EpochOfWindow, or an hour later when that wall clock occurs twice,
// as it does when daylight saving time ends, so that both hours' rows
// fire together).
func WindowTimer(local int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC || local == math.MaxInt64 {
		return local
	}
	const hour = 3600000
	t1 := EpochOfWindow(local, loc)
	t2 := EpochOfWindow(local+hour, loc)
	if t2-t1 > hour {
		return t1 + hour
	}
	return t1
}
