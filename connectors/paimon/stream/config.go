package stream

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// Config is the read configuration of one source: the table's scan
// options (parsed once with the table, coreoptions.Scan) and whether the
// read is unbounded.
type Config struct {
	coreoptions.Scan
	// Streaming is true for an unbounded (streaming, not scan.bounded) read.
	Streaming bool
}

func illegal(format string, args ...any) error {
	return sql.Errorf(sql.IllegalArgumentException, format, args...)
}

// ParseConfig checks the scan options of o for a read of table (its
// path, for messages). streaming is the
// runtime mode; a 'scan.bounded' = true read is a batch read
// (AbstractFlinkTableFactory). It repeats the checks that make a read
// impossible (the factory validates the rest at planning time) with
// Paimon's messages.
func ParseConfig(table string, o *coreoptions.Options, streaming bool) (*Config, error) {
	if err := coreoptions.CheckRead(table, o.Raw()); err != nil {
		return nil, err
	}
	c := &Config{Scan: o.Scan, Streaming: streaming && !o.Scan.Bounded}
	if c.Streaming {
		if c.Mode == coreoptions.ScanIncremental {
			return nil, illegal("Cannot read incremental in streaming mode.")
		}
		if c.ConsumerID != "" && !o.Has(coreoptions.OptConsumerExpirationTime) {
			return nil, illegal("You need to configure 'consumer.expiration-time' (ALTER TABLE) and restart your write job for it to take effect, when you need consumer-id feature. This is to prevent consumers from leaving too many snapshots that could pose a risk to the file system.")
		}
	}
	switch c.Mode {
	case coreoptions.ScanLatestFull, coreoptions.ScanLatest, coreoptions.ScanCompactedFull:
		for _, k := range []string{coreoptions.OptScanTimestampMillis, coreoptions.OptScanTimestamp, coreoptions.OptScanSnapshotID, coreoptions.OptScanTagName, coreoptions.OptIncrementalBetween} {
			if o.Has(k) {
				return nil, illegal("%s must be null when you use %s for %s", k, c.Mode, coreoptions.OptScanMode)
			}
		}
	case coreoptions.ScanFromTimestamp:
		if o.Has(coreoptions.OptScanTimestampMillis) == o.Has(coreoptions.OptScanTimestamp) {
			return nil, illegal("must set only one key in [scan.timestamp-millis,scan.timestamp] when you use from-timestamp for scan.mode")
		}
	case coreoptions.ScanFromSnapshot:
		if (c.SnapshotID != nil) == (c.TagName != "") {
			return nil, illegal("must set only one key in [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot for scan.mode")
		}
	case coreoptions.ScanFromSnapshotFull:
		if c.SnapshotID == nil {
			return nil, illegal("%s can not be null when you use %s for %s", coreoptions.OptScanSnapshotID, c.Mode, coreoptions.OptScanMode)
		}
	case coreoptions.ScanIncremental:
		if c.IncrementalBetween == nil && c.IncrementalBetweenTimestamp == nil {
			return nil, illegal("%s can not be null when you use %s for %s", coreoptions.OptIncrementalBetween, c.Mode, coreoptions.OptScanMode)
		}
	case coreoptions.ScanFromFileCreation, coreoptions.ScanFromCreation:
		return nil, &sql.Error{Class: sql.UnsupportedOperation, Err: coreoptions.ErrUnsupportedOption,
			Msg: fmt.Sprintf("scan mode '%s' is not supported by sqlrun yet", c.Mode)}
	default:
		return nil, illegal("Could not parse value '%s' for key '%s'.", o.Raw()[coreoptions.OptScanMode], coreoptions.OptScanMode)
	}
	return c, nil
}
