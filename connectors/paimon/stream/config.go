package stream

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Scan modes as 'scan.mode' spells them (CoreOptions.StartupMode).
const (
	ModeDefault          = "default"
	ModeLatestFull       = "latest-full"
	ModeFull             = "full"
	ModeLatest           = "latest"
	ModeCompactedFull    = "compacted-full"
	ModeFromTimestamp    = "from-timestamp"
	ModeFromSnapshot     = "from-snapshot"
	ModeFromSnapshotFull = "from-snapshot-full"
	ModeIncremental      = "incremental"
)

// Config is the read configuration of one source, parsed from the table's
// options (with hints) by ParseConfig.
type Config struct {
	// Mode is the effective scan mode ('default' and 'full' resolved).
	Mode string
	// Streaming is true for an unbounded (streaming, not scan.bounded) read.
	Streaming bool

	SnapshotID       *int64
	TimestampMillis  *int64
	TagName          string
	BoundedWatermark *int64
	// IncrementalBetween is 'incremental-between' split at the comma.
	IncrementalBetween []string
	// IncrementalBetweenTimestamp is 'incremental-between-timestamp'
	// (epoch millis, start exclusive).
	IncrementalBetweenTimestamp []int64
	// IncrementalScanMode is 'incremental-between-scan-mode' (auto, delta,
	// changelog).
	IncrementalScanMode string

	DiscoveryInterval time.Duration
	ReadOverwrite     bool

	ConsumerID             string
	ConsumerAtLeastOnce    bool
	ConsumerIgnoreProgress bool
}

func has(o map[string]string, k string) bool { _, ok := o[k]; return ok }

func illegal(format string, args ...any) error {
	return sql.Errorf(sql.IllegalArgumentException, format, args...)
}

// ResolveMode is CoreOptions.startupMode(): 'default' becomes
// from-timestamp, from-snapshot, incremental or latest-full depending on
// which scan options are set; 'full' is latest-full.
func ResolveMode(o map[string]string) string {
	m := strings.ToLower(strings.TrimSpace(o["scan.mode"]))
	switch m {
	case "", ModeDefault:
	case ModeFull:
		return ModeLatestFull
	default:
		return m
	}
	switch {
	case has(o, "scan.timestamp-millis") || has(o, "scan.timestamp"):
		return ModeFromTimestamp
	case has(o, "scan.snapshot-id") || has(o, "scan.tag-name") || has(o, "scan.watermark") || has(o, "scan.version"):
		return ModeFromSnapshot
	case has(o, "incremental-between") || has(o, "incremental-between-timestamp"):
		return ModeIncremental
	}
	return ModeLatestFull
}

// ParseConfig reads the scan options. streaming is the runtime mode; a
// 'scan.bounded' = true read is a batch read (AbstractFlinkTableFactory).
// It repeats the checks that make a read impossible (the factory validates
// the rest at planning time) with Paimon's messages.
func ParseConfig(o map[string]string, streaming bool) (*Config, error) {
	c := &Config{Mode: ResolveMode(o), DiscoveryInterval: 10 * time.Second, IncrementalScanMode: "auto"}
	c.Streaming = streaming && !strings.EqualFold(strings.TrimSpace(o["scan.bounded"]), "true")
	long := func(k string) (*int64, error) {
		v, ok := o[k]
		if !ok {
			return nil, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, illegal("Could not parse value '%s' for key '%s'.", v, k)
		}
		return &n, nil
	}
	var err error
	if c.SnapshotID, err = long("scan.snapshot-id"); err != nil {
		return nil, err
	}
	if c.TimestampMillis, err = long("scan.timestamp-millis"); err != nil {
		return nil, err
	}
	if v, ok := o["scan.timestamp"]; ok && c.TimestampMillis == nil {
		ms, err := parseLocalTimestamp(v)
		if err != nil {
			return nil, illegal("Could not parse value '%s' for key '%s'.", v, "scan.timestamp")
		}
		c.TimestampMillis = &ms
	}
	if c.BoundedWatermark, err = long("scan.bounded.watermark"); err != nil {
		return nil, err
	}
	c.TagName = strings.TrimSpace(o["scan.tag-name"])
	if v, ok := o["incremental-between"]; ok {
		parts := strings.Split(v, ",")
		if len(parts) != 2 {
			return nil, illegal("The incremental-between or incremental-between-timestamp must specific start(exclusive) and end timestamp or snapshot or tag, but is: %s", v)
		}
		c.IncrementalBetween = []string{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])}
	}
	if v, ok := o["incremental-between-timestamp"]; ok {
		parts := strings.Split(v, ",")
		if len(parts) != 2 {
			return nil, illegal("The incremental-between or incremental-between-timestamp must specific start(exclusive) and end timestamp or snapshot or tag, but is: %s", v)
		}
		for _, p := range parts {
			n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
			if err != nil {
				return nil, illegal("Could not parse value '%s' for key '%s'.", v, "incremental-between-timestamp")
			}
			c.IncrementalBetweenTimestamp = append(c.IncrementalBetweenTimestamp, n)
		}
	}
	if v, ok := o["incremental-between-scan-mode"]; ok {
		c.IncrementalScanMode = strings.ToLower(strings.TrimSpace(v))
	}
	if v, ok := o["continuous.discovery-interval"]; ok {
		if c.DiscoveryInterval, err = connectors.ParseDuration(v); err != nil {
			return nil, illegal("Could not parse value '%s' for key '%s'.", v, "continuous.discovery-interval")
		}
	}
	c.ReadOverwrite = strings.EqualFold(strings.TrimSpace(o["streaming-read-overwrite"]), "true")
	c.ConsumerID = o["consumer-id"]
	c.ConsumerIgnoreProgress = strings.EqualFold(strings.TrimSpace(o["consumer.ignore-progress"]), "true")
	switch m := strings.ToLower(strings.TrimSpace(o["consumer.mode"])); m {
	case "", "exactly-once":
	case "at-least-once":
		c.ConsumerAtLeastOnce = true
	default:
		return nil, illegal("Could not parse value '%s' for key '%s'.", o["consumer.mode"], "consumer.mode")
	}

	if c.Streaming {
		if c.Mode == ModeIncremental {
			return nil, illegal("Cannot read incremental in streaming mode.")
		}
		if c.ConsumerID != "" && !has(o, "consumer.expiration-time") {
			return nil, illegal("You need to configure 'consumer.expiration-time' (ALTER TABLE) and restart your write job for it to take effect, when you need consumer-id feature. This is to prevent consumers from leaving too many snapshots that could pose a risk to the file system.")
		}
	}
	switch c.Mode {
	case ModeLatestFull, ModeLatest, ModeCompactedFull:
		for _, k := range []string{"scan.timestamp-millis", "scan.timestamp", "scan.snapshot-id", "scan.tag-name", "incremental-between"} {
			if has(o, k) {
				return nil, illegal("%s must be null when you use %s for %s", k, c.Mode, "scan.mode")
			}
		}
	case ModeFromTimestamp:
		if has(o, "scan.timestamp-millis") == has(o, "scan.timestamp") {
			return nil, illegal("must set only one key in [scan.timestamp-millis,scan.timestamp] when you use from-timestamp for scan.mode")
		}
	case ModeFromSnapshot:
		if (c.SnapshotID != nil) == (c.TagName != "") {
			return nil, illegal("must set only one key in [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot for scan.mode")
		}
	case ModeFromSnapshotFull:
		if c.SnapshotID == nil {
			return nil, illegal("%s can not be null when you use %s for %s", "scan.snapshot-id", c.Mode, "scan.mode")
		}
	case ModeIncremental:
		if c.IncrementalBetween == nil && c.IncrementalBetweenTimestamp == nil {
			return nil, illegal("%s can not be null when you use %s for %s", "incremental-between", c.Mode, "scan.mode")
		}
	default:
		return nil, illegal("Could not parse value '%s' for key '%s'.", o["scan.mode"], "scan.mode")
	}
	return c, nil
}

// parseLocalTimestamp parses 'scan.timestamp' ("yyyy-MM-dd HH:mm:ss" and
// variants) in the local time zone, as Paimon's DateTimeUtils does.
func parseLocalTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("bad timestamp %q", s)
}
