package paimon

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func ctxFor(pk bool, streaming bool, opts map[string]string) *connectors.Context {
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}}}
	if pk {
		s.PrimaryKey = []string{"id"}
	}
	return &connectors.Context{Table: connectors.ObjectIdentifier{Catalog: "c", Database: "d", Name: "t"},
		Schema: s, Options: opts, Streaming: streaming}
}

// TestSourceChangelogMode walks BaseDataTableSource.getChangelogMode's
// rules in their order of precedence.
func TestSourceChangelogMode(t *testing.T) {
	cases := []struct {
		pk, streaming bool
		opts          map[string]string
		want          sql.ChangelogMode
	}{
		{true, false, nil, sql.InsertOnly},                                      // batch is bounded
		{true, true, map[string]string{"scan.bounded": "true"}, sql.InsertOnly}, // bounded streaming
		{false, true, nil, sql.InsertOnly},                                      // no primary key
		{true, true, map[string]string{"merge-engine": "first-row", "changelog-producer": "lookup"}, sql.InsertOnly},
		{true, true, map[string]string{"scan.remove-normalize": "true"}, sql.All}, // before producer
		{true, true, map[string]string{"changelog-producer": "input"}, sql.All},
		{true, true, map[string]string{"changelog-producer": "lookup"}, sql.All},
		{true, true, map[string]string{"changelog-producer": "full-compaction"}, sql.All},
		{true, true, nil, sql.Upsert},                                      // none → upsert, Flink adds CN
		{true, true, map[string]string{"unknown.key": "kept"}, sql.Upsert}, // unknown keys accepted
	}
	for i, c := range cases {
		src, err := Factory{}.CreateSource(ctxFor(c.pk, c.streaming, c.opts))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got := src.ChangelogMode(); got != c.want {
			t.Errorf("case %d (%v): mode %s, want %s", i, c.opts, got, c.want)
		}
	}
}

func TestSinkChangelogMode(t *testing.T) {
	cases := []struct {
		pk   bool
		opts map[string]string
		want sql.ChangelogMode
	}{
		{true, nil, sql.Upsert},
		{false, nil, sql.All},
		{true, map[string]string{"changelog-producer": "input"}, sql.All},
		{true, map[string]string{"merge-engine": "aggregation"}, sql.All},
		{true, map[string]string{"merge-engine": "partial-update"}, sql.Upsert},
		{true, map[string]string{"merge-engine": "partial-update", "fields.v.aggregate-function": "last_value"}, sql.All},
	}
	for i, c := range cases {
		snk, err := Factory{}.CreateSink(ctxFor(c.pk, true, c.opts))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, err := snk.ChangelogMode(sql.All)
		if err != nil || got != c.want {
			t.Errorf("case %d: %s, %v; want %s", i, got, err, c.want)
		}
	}
}

func TestStartupModeValidation(t *testing.T) {
	cases := []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"scan.mode": "latest", "scan.snapshot-id": "3"}, "scan.snapshot-id must be null when you use latest for scan.mode"},
		{map[string]string{"scan.mode": "latest-full", "scan.timestamp-millis": "3"}, "scan.timestamp-millis must be null when you use latest-full for scan.mode"},
		{map[string]string{"scan.mode": "from-timestamp"}, "must set only one key in [scan.timestamp-millis,scan.timestamp] when you use from-timestamp for scan.mode"},
		{map[string]string{"scan.timestamp": "2024-01-01 00:00:00", "scan.snapshot-id": "1"}, "[scan.snapshot-id] must be null when you set [scan.timestamp-millis,scan.timestamp]"},
		{map[string]string{"scan.mode": "from-snapshot-full"}, "scan.snapshot-id can not be null when you use from-snapshot-full for scan.mode"},
		{map[string]string{"scan.mode": "from-snapshot", "scan.snapshot-id": "1", "scan.tag-name": "t"}, "must set only one key in [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot for scan.mode"},
		{map[string]string{"scan.mode": "incremental"}, "incremental-between can not be null when you use incremental for scan.mode"},
		{map[string]string{"bucket": "two"}, "Could not parse value 'two' for key 'bucket'."},
		{map[string]string{"scan.snapshot-id": "3"}, ""},
		{map[string]string{"scan.mode": "full"}, ""},
	}
	for _, c := range cases {
		err := CheckOptions(c.opts)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%v: got %q, want %q", c.opts, got, c.want)
		}
	}
}

func TestStreamingReadErrors(t *testing.T) {
	for engine, what := range map[string]string{"partial-update": "Partial update", "aggregation": "Pre-aggregate", "first-row": "First row"} {
		_, err := Factory{}.CreateSource(ctxFor(true, true, map[string]string{"merge-engine": engine}))
		if err == nil || !strings.HasPrefix(err.Error(), what+" streaming reading is not supported.") {
			t.Errorf("%s: %v", engine, err)
		}
		// With a producer, or in batch, the read is fine.
		if _, err := (Factory{}).CreateSource(ctxFor(true, true, map[string]string{"merge-engine": engine, "changelog-producer": "lookup"})); err != nil {
			t.Errorf("%s + lookup: %v", engine, err)
		}
		if _, err := (Factory{}).CreateSource(ctxFor(true, false, map[string]string{"merge-engine": engine})); err != nil {
			t.Errorf("%s batch: %v", engine, err)
		}
	}
	_, err := Factory{}.CreateSource(ctxFor(true, true, map[string]string{"scan.mode": "incremental", "incremental-between": "1,2"}))
	if err == nil || err.Error() != "Cannot read incremental in streaming mode." {
		t.Errorf("incremental streaming: %v", err)
	}
	if _, err := (Factory{}).CreateSource(ctxFor(true, true, map[string]string{"consumer-id": "c", "consumer.expiration-time": "1 h"})); err != nil {
		t.Errorf("consumer with expiration: %v", err)
	}
}

func TestReaderNeedsPath(t *testing.T) {
	src, _ := Factory{}.CreateSource(ctxFor(true, true, nil))
	if _, err := src.NewReader(0, 1); err == nil || !strings.Contains(err.Error(), "no 'path' option") {
		t.Errorf("NewReader: %v", err)
	}
	snk, _ := Factory{}.CreateSink(ctxFor(true, true, nil))
	if _, err := snk.NewWriter(0, 1); err == nil || !strings.Contains(err.Error(), "no 'path' option") {
		t.Errorf("NewWriter: %v", err)
	}
}
