package config

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the zones of table.local-time-zone, on machines without zoneinfo

	"github.com/sqlrun/sqlrun/sql"
)

// DefaultZone is the zone 'table.local-time-zone' = 'default' (its
// default) stands for: Flink's is the JVM's default zone
// (ZoneId.systemDefault(), from the TZ environment variable or the
// machine's /etc/localtime). It is UTC until the sqlrun binary sets it to
// the process's zone, time.Local, read the same way
// (exec.UseMachineTimeZone), so that sessions in tests and in other
// programs never depend on the machine's zone.
var DefaultZone = time.UTC

// TimeZone is the session time zone of m: 'default' is DefaultZone,
// anything else a zone Flink's TableConfig.validateTimeZone accepts (a
// TZDB region ID such as 'Asia/Shanghai', 'UTC', 'GMT' or a fixed offset
// 'GMT+08:00'), else Flink's ValidationException.
func TimeZone(m map[string]string) (*time.Location, error) {
	v, _, err := value(m, KeyLocalTimeZone)
	if err != nil {
		return nil, err
	}
	zone, _ := v.(string)
	if zone == "default" {
		if DefaultZone == nil {
			return time.UTC, nil
		}
		return DefaultZone, nil
	}
	if loc, ok := loadZone(zone); ok {
		return loc, nil
	}
	return nil, sql.Errorf(sql.ValidationException,
		"Invalid time zone. The valid value should be a Time Zone Database ID such as 'America/Los_Angeles' "+
			"to include daylight saving time. Fixed offsets are supported using 'GMT-03:00' or 'GMT+03:00'. "+
			"Or use 'UTC' without time zone and daylight saving time.")
}

// gmtOffset is java.util.TimeZone's custom ID, GMT[+-]hh[[:]mm].
var gmtOffset = regexp.MustCompile(`^GMT([+-])(\d{1,2})(?::?(\d{2}))?$`)

// javaShortIDs are the three-letter IDs java.util.TimeZone maps to
// another zone than java.time's ZoneId.of reads them as (ZoneId.SHORT_IDS,
// and EST, MST, HST, which TimeZone reads as fixed offsets): Flink's check
// that both read a zone alike refuses them.
var javaShortIDs = map[string]bool{
	"ACT": true, "AET": true, "AGT": true, "ART": true, "AST": true, "BET": true, "BST": true, "CAT": true,
	"CNT": true, "CST": true, "CTT": true, "EAT": true, "ECT": true, "IET": true, "IST": true, "JST": true,
	"MIT": true, "NET": true, "NST": true, "PLT": true, "PNT": true, "PRT": true, "PST": true, "SST": true,
	"VST": true, "EST": true, "MST": true, "HST": true,
}

// loadZone reads zone as Flink's TableConfig.validateTimeZone accepts it:
// java.util.TimeZone.getTimeZone(zone).toZoneId() must equal
// ZoneId.of(zone). That holds for the TZDB region IDs (case-sensitive),
// 'UTC' and 'GMT', and 'GMT' with an offset up to 18 hours ('GMT+8',
// 'GMT+08:00', 'GMT-0330'); it fails for a bare offset ('+08:00', 'Z'),
// 'UTC+8' and the short IDs ('CST', 'PST').
func loadZone(zone string) (*time.Location, bool) {
	if m := gmtOffset.FindStringSubmatch(zone); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi := 0
		if m[3] != "" {
			mi, _ = strconv.Atoi(m[3])
		}
		if h > 18 || mi > 59 || h == 18 && mi > 0 {
			return nil, false
		}
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		if off == 0 {
			return time.UTC, true
		}
		return time.FixedZone(zone, off), true
	}
	switch {
	case zone == "UTC" || zone == "GMT":
		return time.UTC, true
	case zone == "" || zone == "Local" || javaShortIDs[zone] || strings.ContainsAny(zone, " .\\") ||
		strings.HasPrefix(zone, "/") || !regionID.MatchString(zone):
		return nil, false
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// regionID is the form of java.time's region IDs (ZoneRegion.checkName).
var regionID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9~/._+-]+$`)
