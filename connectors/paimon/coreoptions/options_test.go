package coreoptions

import (
	"testing"
	"time"
)

// Defaults are Paimon 1.4.2's CoreOptions defaults.
func TestParseDefaults(t *testing.T) {
	o, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Bucket != -1 || o.FileFormat != "parquet" || o.MergeEngine != EngineDeduplicate || o.ChangelogProducer != ProducerNone ||
		o.WriteBufferSize != 256<<20 || o.TargetFileSize(true) != 128<<20 || o.TargetFileSize(false) != 256<<20 ||
		o.CommitMaxRetries != 10 || o.SnapshotTimeRetained != time.Hour || !o.LookupWait || !o.PartitionLegacyName ||
		o.FullCompactionDeltaCommits != -1 || o.Scan.Mode != ScanLatestFull || o.Scan.DiscoveryInterval != 10*time.Second {
		t.Errorf("defaults: %+v", o)
	}
}

// A value that does not parse fails with Flink's message naming the key;
// fallback keys (CoreOptions' withFallbackKeys) apply only when the main
// key is unset.
func TestParseErrorsAndFallbacks(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]string
		want string
	}{
		{map[string]string{"bucket": "two"}, "Could not parse value 'two' for key 'bucket'."},
		{map[string]string{"write-buffer-size": "64 gallons"}, "Could not parse value '64 gallons' for key 'write-buffer-size'."},
		{map[string]string{"first-row.ignore-delete": "maybe"}, "Could not parse value 'maybe' for key 'first-row.ignore-delete'."},
		{map[string]string{"scan.snapshot-id": "x"}, "Could not parse value 'x' for key 'scan.snapshot-id'."},
		{map[string]string{"consumer.mode": "twice"}, "Could not parse value 'twice' for key 'consumer.mode'."},
		{map[string]string{"sequence.field.sort-order": "sideways"}, "Could not parse value 'sideways' for key 'sequence.field.sort-order'."},
	} {
		_, err := Parse(c.raw)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v, want %q", c.raw, err, c.want)
		}
	}
	o, err := Parse(map[string]string{"changelog-producer.lookup-wait": "false", "first-row.ignore-delete": "true", "ignore-delete": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if o.LookupWait || o.IgnoreDelete {
		t.Errorf("fallbacks: lookup-wait %v (want false), ignore-delete %v (want false: the main key is set)", o.LookupWait, o.IgnoreDelete)
	}
}

// ResolveMode is CoreOptions.startupMode().
func TestResolveMode(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]string
		want string
	}{
		{nil, ScanLatestFull},
		{map[string]string{"scan.mode": "full"}, ScanLatestFull},
		{map[string]string{"scan.mode": "LATEST"}, ScanLatest},
		{map[string]string{"scan.timestamp-millis": "1"}, ScanFromTimestamp},
		{map[string]string{"scan.tag-name": "t"}, ScanFromSnapshot},
		{map[string]string{"incremental-between": "1,2"}, ScanIncremental},
	} {
		if got := ResolveMode(c.raw); got != c.want {
			t.Errorf("%v: %s, want %s", c.raw, got, c.want)
		}
	}
}
