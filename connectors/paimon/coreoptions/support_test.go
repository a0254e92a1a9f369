package coreoptions

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
)

// paimonKeys reads testdata/paimon-1.4.1-keys.txt: every key of Paimon
// 1.4.1's CoreOptions and FlinkConnectorOptions.
func paimonKeys(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/paimon-1.4.1-keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("bad line %q", line)
		}
		keys = append(keys, cols[2])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// Every option Paimon 1.4.1 has is declared with what sqlrun does with it
// (honoured, refused on read or write, no effect and why), so an option
// Paimon honours cannot be accepted by sqlrun and silently ignored: a key
// added to the pinned list must be declared in keys.go first.
func TestEveryPaimonOptionClassified(t *testing.T) {
	declared := map[string]Decl{}
	for _, d := range Decls() {
		if _, dup := declared[d.Key]; dup {
			t.Errorf("option %s declared twice", d.Key)
		}
		declared[d.Key] = d
		for _, fb := range d.FallbackKeys {
			declared[fb] = d
		}
		switch d.Support {
		case Honoured:
		case NoEffect, RefusedOnWrite, RefusedOnRead, RefusedOnReadAndWrite:
			if strings.TrimSpace(d.Why) == "" {
				t.Errorf("option %s is %s without a reason", d.Key, d.Support)
			}
		default:
			t.Errorf("option %s: unknown support %d", d.Key, d.Support)
		}
	}
	keys := paimonKeys(t)
	if len(keys) != 341 {
		t.Errorf("pinned list has %d keys, want 341", len(keys))
	}
	counts := map[Support]int{}
	for _, k := range keys {
		d, ok := declared[k]
		if !ok {
			t.Errorf("Paimon option %s is not declared in coreoptions/keys.go: declare it with what sqlrun does with it", k)
			continue
		}
		counts[d.Support]++
	}
	t.Logf("Paimon 1.4.1 options: %d honoured, %d no effect, %d refused on write, %d refused on read, %d refused on both",
		counts[Honoured], counts[NoEffect], counts[RefusedOnWrite], counts[RefusedOnRead], counts[RefusedOnReadAndWrite])
}

// Each refused option is refused where it takes effect, with its name,
// and only then: unset or at an allowed value it passes.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		raw         map[string]string
		write, read string // the key refused, "" when none
	}{
		{nil, "", ""},
		{map[string]string{"tag.automatic-creation": "none"}, "", ""},
		{map[string]string{"tag.automatic-creation": "NONE"}, "", ""},
		// TagAutoCreation (by process time or watermark) and
		// TagBatchCreation are honoured.
		{map[string]string{"tag.automatic-creation": "process-time"}, "", ""},
		{map[string]string{"tag.automatic-creation": "batch"}, "", ""},
		{map[string]string{"tag.automatic-creation": "watermark", "snapshot.watermark-idle-timeout": "1 min", "end-input.watermark": "1"}, "", ""},
		// PartitionExpire and its write-time validation are honoured.
		{map[string]string{"partition.expiration-time": "7 d", "end-input.check-partition-expire": "true"}, "", ""},
		{map[string]string{"partition.timestamp-format.strict": "true", "partition.timestamp-formatter": "yyyyMMdd"}, "", ""},
		// RecordLevelExpire is honoured.
		{map[string]string{"record-level.expire-time": "1 d", "record-level.time-field": "ts"}, "", ""},
		{map[string]string{"changelog-file.compression": "zstd"}, "", ""},
		{map[string]string{"changelog-file.compression": "snappy", "file.compression": "snappy"}, "", ""},
		{map[string]string{"changelog-file.compression": "lz4"}, "changelog-file.compression", ""},
		{map[string]string{"changelog-file.format": "parquet"}, "", ""},
		{map[string]string{"changelog-file.format": "avro"}, "changelog-file.format", ""},
		// CoreOptions.changelogLifecycleDecoupled.
		{map[string]string{"changelog.num-retained.max": "5"}, "", ""},
		{map[string]string{"changelog.num-retained.max": "50", "snapshot.num-retained.max": "50"}, "", ""},
		{map[string]string{"changelog.num-retained.max": "51", "snapshot.num-retained.max": "50"}, "changelog.num-retained.max", ""},
		{map[string]string{"changelog.time-retained": "2 h"}, "changelog.time-retained", ""},
		{map[string]string{"changelog.num-retained.min": "11"}, "changelog.num-retained.min", ""},
		{map[string]string{"scan.partitions": "max_pt()"}, "", "scan.partitions"},
		{map[string]string{"lookup.dynamic-partition": "max_pt()"}, "", "lookup.dynamic-partition"},
		{map[string]string{"scan.file-creation-time-millis": "1"}, "", "scan.file-creation-time-millis"},
		{map[string]string{"branch": "main"}, "", ""},
		{map[string]string{"branch": "b1"}, "branch", "branch"},
		{map[string]string{"metadata.stats-dense-store": "false"}, "metadata.stats-dense-store", ""},
	} {
		for _, side := range []struct {
			check func(string, map[string]string) error
			want  string
		}{{CheckWrite, c.write}, {CheckRead, c.read}} {
			err := side.check("db.t", c.raw)
			switch {
			case side.want == "" && err != nil:
				t.Errorf("%v: unexpected %v", c.raw, err)
			case side.want != "" && (err == nil || !errors.Is(err, ErrUnsupportedOption) || !strings.Contains(err.Error(), "'"+side.want+"'") || !strings.Contains(err.Error(), "of table db.t:")):
				t.Errorf("%v: got %v, want a refusal naming %s", c.raw, err, side.want)
			}
		}
	}
}
