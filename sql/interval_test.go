package sql

import "testing"

// TestFormatInterval checks the print connector's spelling of intervals
// against what java.time prints for the Period / Duration Flink's
// converters make (YearMonthIntervalPeriodConverter,
// DayTimeIntervalDurationConverter); the expectations were printed by
// Java 17's Period.ofMonths / Period.ofYears(m / 12) / Duration.ofMillis.
func TestFormatInterval(t *testing.T) {
	month, _ := Interval("MONTH", "")
	year, _ := Interval("YEAR", "")
	second, _ := Interval("DAY", "SECOND")
	for _, c := range []struct {
		months          int32
		asMonth, asYear string
	}{{14, "P14M", "P1Y"}, {-1, "P-1M", "P0D"}, {0, "P0D", "P0D"}, {36, "P36M", "P3Y"}, {-13, "P-13M", "P-1Y"}} {
		if got := FormatValue(c.months, month); got != c.asMonth {
			t.Errorf("%d months as %s: %s, want %s", c.months, month, got, c.asMonth)
		}
		if got := FormatValue(c.months, year); got != c.asYear {
			t.Errorf("%d months as %s: %s, want %s", c.months, year, got, c.asYear)
		}
	}
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{86400000, "PT24H"}, {-90500, "PT-1M-30.5S"}, {0, "PT0S"}, {500, "PT0.5S"}, {-500, "PT-0.5S"},
		{3723004, "PT1H2M3.004S"}, {60000, "PT1M"}, {93600000, "PT26H"}, {-1, "PT-0.001S"},
		{9223372036854775, "PT2562047788H54.775S"}, {-259200001, "PT-72H-0.001S"},
	} {
		if got := FormatValue(c.ms, second); got != c.want {
			t.Errorf("%d ms: %s, want %s", c.ms, got, c.want)
		}
	}
}

// TestIntervalTypes checks the qualifier-to-type mapping of Flink's
// FlinkTypeFactory.toLogicalType and the names DESCRIBE shows
// (YearMonthIntervalType / DayTimeIntervalType.asSummaryString).
func TestIntervalTypes(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"YEAR", "", "INTERVAL YEAR(2)"}, {"YEAR", "MONTH", "INTERVAL MONTH"}, {"MONTH", "", "INTERVAL MONTH"},
		{"DAY", "", "INTERVAL DAY(2)"}, {"DAY", "HOUR", "INTERVAL HOUR"}, {"HOUR", "", "INTERVAL HOUR"},
		{"DAY", "MINUTE", "INTERVAL MINUTE"}, {"HOUR", "MINUTE", "INTERVAL MINUTE"}, {"MINUTE", "", "INTERVAL MINUTE"},
		{"DAY", "SECOND", "INTERVAL SECOND(3)"}, {"MINUTE", "SECOND", "INTERVAL SECOND(3)"}, {"SECOND", "", "INTERVAL SECOND(3)"},
	} {
		got, ok := Interval(c.from, c.to)
		if !ok || got.String() != c.want {
			t.Errorf("INTERVAL %s TO %s: %v %v, want %s", c.from, c.to, got, ok, c.want)
		}
	}
	for _, c := range [][2]string{{"MONTH", "YEAR"}, {"YEAR", "DAY"}, {"SECOND", "MINUTE"}, {"WEEK", ""}} {
		if got, ok := Interval(c[0], c[1]); ok {
			t.Errorf("INTERVAL %s TO %s: %v, want refused", c[0], c[1], got)
		}
	}
}
