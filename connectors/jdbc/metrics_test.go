package jdbc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// metricValues renders a writer's metrics as name{labels} value lines
// (histograms as count and the row histogram's sum).
func metricValues(ms []connectors.Metric) string {
	var b strings.Builder
	for _, m := range ms {
		var ls []string
		for _, l := range m.Labels {
			ls = append(ls, l[0]+"="+l[1])
		}
		switch {
		case m.Bounds == nil:
			fmt.Fprintf(&b, "%s{%s} %g\n", m.Name, strings.Join(ls, ","), m.Value)
		case strings.HasSuffix(m.Name, "_rows"):
			fmt.Fprintf(&b, "%s count=%d sum=%g buckets=%v\n", m.Name, m.Count, m.Sum, m.Buckets)
		default:
			fmt.Fprintf(&b, "%s count=%d\n", m.Name, m.Count)
		}
	}
	return b.String()
}

// TestMetricsByTrigger: each successful flush counts under what triggered
// it (max-rows, checkpoint, close), with its input rows in the rows
// histogram and its duration in the latency histogram.
func TestMetricsByTrigger(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkMaxRows, "3", OptSinkInterval, "1h")), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"), order(sql.Insert, 2, "1.00", "A"), order(sql.UpdateAfter, 1, "2.00", "B"))
	write(t, w, order(sql.Insert, 3, "1.00", "A"))
	snapshot(t, w, 1)
	snapshot(t, w, 2) // nothing buffered: no flush
	write(t, w, order(sql.Delete, 3, "1.00", "A"))
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	eq(t, "metrics", metricValues(w.Metrics()), `sqlrun_jdbc_sink_flushes_total{trigger=max-rows} 1
sqlrun_jdbc_sink_flushes_total{trigger=interval} 0
sqlrun_jdbc_sink_flushes_total{trigger=checkpoint} 1
sqlrun_jdbc_sink_flushes_total{trigger=close} 1
sqlrun_jdbc_sink_flush_rows count=3 sum=5 buckets=[2 3 3 3 3 3]
sqlrun_jdbc_sink_flush_duration_seconds count=3
sqlrun_jdbc_sink_failed_attempts_total{} 0
sqlrun_jdbc_sink_reconnects_total{} 0
`)
}

// TestExactlyOnceMetrics: subtask 0 of an exactly-once sink reports the
// committer's commits, re-commits found done included.
func TestExactlyOnceMetrics(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptDeliveryGuarantee, "exactly-once"))
	w := openWriter(t, sink, nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"))
	c := snapshotEpoch(t, w, 1)
	for range 2 {
		if err := sink.Commit(context.Background(), 1, [][]byte{c}); err != nil {
			t.Fatal(err)
		}
	}
	got := metricValues(w.Metrics())
	for _, want := range []string{"sqlrun_jdbc_sink_commits_total{} 1\n", "sqlrun_jdbc_sink_commits_skipped_total{} 1\n",
		"sqlrun_jdbc_sink_commit_duration_seconds count=1\n", "sqlrun_jdbc_sink_flushes_total{trigger=checkpoint} 0\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in\n%s", want, got)
		}
	}
}
