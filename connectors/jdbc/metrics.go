package jdbc

import (
	"sync/atomic"

	"github.com/sqlrun/sqlrun/connectors"
)

// The sink's own metrics (connectors.ReportsMetrics), which
// flink-connector-jdbc does not export: flushes by what triggered them,
// rows per flush, flush latency, failed attempts and reconnects, and an
// exactly-once sink's commits. The runtime sums them over subtasks and
// exports them with the operator's labels.

// flushTrigger is what made a writer flush.
type flushTrigger int

const (
	byMaxRows    flushTrigger = iota // sink.buffer-flush.max-rows
	byInterval                       // sink.buffer-flush.interval
	byCheckpoint                     // a checkpoint barrier
	byClose                          // the end of input or a stop
	byCommit                         // an exactly-once epoch, when its checkpoint completed
	numTriggers
)

var triggerNames = [numTriggers]string{"max-rows", "interval", "checkpoint", "close", "commit"}

// histogram counts observations into fixed buckets; scale converts an
// observation's integer unit into the exported one (nanoseconds → s).
type histogram struct {
	bounds  []float64
	scale   float64
	buckets []atomic.Uint64
	count   atomic.Uint64
	sum     atomic.Int64
}

func newHistogram(scale float64, bounds ...float64) *histogram {
	return &histogram{bounds: bounds, scale: scale, buckets: make([]atomic.Uint64, len(bounds))}
}

func (h *histogram) observe(v int64) {
	x := float64(v) * h.scale
	for i, b := range h.bounds {
		if x <= b {
			h.buckets[i].Add(1)
		}
	}
	h.count.Add(1)
	h.sum.Add(v)
}

func (h *histogram) metric(name, help, short string, labels ...[2]string) connectors.Metric {
	m := connectors.Metric{Name: name, Help: help, Labels: labels, Bounds: h.bounds, Short: short,
		Count: h.count.Load(), Sum: float64(h.sum.Load()) * h.scale, Buckets: make([]uint64, len(h.buckets))}
	for i := range h.buckets {
		m.Buckets[i] = h.buckets[i].Load()
	}
	return m
}

type writerMetrics struct {
	flushes [numTriggers]atomic.Int64
	rows    *histogram // input rows per flush
	latency *histogram // seconds per successful flush, retries included
}

func newWriterMetrics() *writerMetrics {
	return &writerMetrics{
		rows:    newHistogram(1, 1, 10, 100, 1000, 10000, 100000),
		latency: newLatencyHistogram(),
	}
}

func newLatencyHistogram() *histogram {
	return newHistogram(1e-9, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30)
}

// commitCounters are an exactly-once sink's commits.
type commitCounters struct {
	committed, skipped, rows atomic.Int64
	latency                  *histogram
}

var _ connectors.ReportsMetrics = (*Writer)(nil)

// Metrics is connectors.ReportsMetrics.
func (w *Writer) Metrics() []connectors.Metric {
	var out []connectors.Metric
	for t := range numTriggers {
		if t == byCommit {
			continue
		}
		out = append(out, connectors.Metric{Name: "sqlrun_jdbc_sink_flushes_total",
			Help: "JDBC sink flushes that succeeded, by what triggered them.", Short: "jdbc flushes",
			Labels: [][2]string{{"trigger", triggerNames[t]}}, Value: float64(w.m.flushes[t].Load())})
	}
	out = append(out,
		w.m.rows.metric("sqlrun_jdbc_sink_flush_rows", "Input rows per JDBC sink flush (before reduction by key).", "rows/flush"),
		w.m.latency.metric("sqlrun_jdbc_sink_flush_duration_seconds", "Duration of successful JDBC sink flushes, retries included.", "flush"),
		connectors.Metric{Name: "sqlrun_jdbc_sink_failed_attempts_total", Help: "JDBC sink flush attempts that failed (each retried or failing the job).",
			Short: "failed attempts", Value: float64(w.c.failures.Load())},
		connectors.Metric{Name: "sqlrun_jdbc_sink_reconnects_total", Help: "JDBC sessions re-established after a failure.",
			Value: float64(max(w.conn.opens.Load()-1, 0))},
	)
	if c := w.commits; c != nil {
		out = append(out,
			connectors.Metric{Name: "sqlrun_jdbc_sink_commits_total", Help: "Exactly-once epochs committed.", Short: "commits",
				Value: float64(c.committed.Load())},
			connectors.Metric{Name: "sqlrun_jdbc_sink_commits_skipped_total",
				Help: "Exactly-once epochs found already committed (re-commits after recovery).", Value: float64(c.skipped.Load())},
			c.latency.metric("sqlrun_jdbc_sink_commit_duration_seconds", "Duration of exactly-once commits, retries included.", ""),
		)
	}
	return out
}
