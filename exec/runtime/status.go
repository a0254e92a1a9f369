package runtime

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
)

// DefaultJobName is Flink's default name of an INSERT job,
// "insert-into_<sink>[,<sink>...]", used when pipeline.name is not set. It
// is stable across runs, which --resume relies on to find the job's
// checkpoints; a session running two INSERTs into one table should set
// pipeline.name or disambiguate.
func DefaultJobName(sinkTables []string) string {
	return "insert-into_" + strings.Join(sinkTables, ",")
}

// StatusLine is the one-line progress summary the shell shows for a
// running job, from two snapshots taken dt apart: rows in/out per second
// (sources' output, sinks' input), the last checkpoint, and the share of
// time spent backpressured.
func StatusLine(prev, cur Metrics, dt time.Duration) string {
	var srcOut, sinkIn, pSrcOut, pSinkIn int64
	var bp, pbp time.Duration
	for i, v := range cur.Vertices {
		var p VertexMetrics
		if i < len(prev.Vertices) {
			p = prev.Vertices[i]
		}
		switch v.Kind {
		case "source":
			srcOut += v.RecordsOut
			pSrcOut += p.RecordsOut
		case "sink":
			sinkIn += v.RecordsIn
			pSinkIn += p.RecordsIn
		}
		bp += v.BackPressured
		pbp += p.BackPressured
	}
	secs := dt.Seconds()
	if secs <= 0 {
		secs = 1
	}
	cp := "no checkpoint yet"
	if c := cur.Checkpoints; c.Completed > 0 {
		cp = fmt.Sprintf("checkpoint %d %s ago (%s, %s)", c.LastID, time.Since(c.LastCompleted).Round(time.Second),
			c.LastDuration.Round(time.Millisecond), byteSize(c.LastSize))
	}
	pressure := float64(bp-pbp) / float64(dt) * 100
	if pressure < 0 {
		pressure = 0
	}
	line := fmt.Sprintf("%s %s: in %.0f rows/s, out %.0f rows/s, %s, backpressure %.0f%%",
		cur.JobID, cur.Status, float64(srcOut-pSrcOut)/secs, float64(sinkIn-pSinkIn)/secs, cp, pressure)
	for _, v := range cur.Vertices {
		if s := connectorStatus(v.Connector); s != "" {
			line += ", " + s
		}
	}
	return line
}

// connectorStatus shows a vertex's connector metrics that have a Short
// name: counters summed over their labels, histograms as their mean (in
// milliseconds for a _seconds histogram).
func connectorStatus(ms []connectors.Metric) string {
	var parts []string
	seen := map[string]int{}
	type agg struct {
		value, sum float64
		count      uint64
		seconds    bool
		histogram  bool
	}
	var aggs []agg
	for _, m := range ms {
		if m.Short == "" {
			continue
		}
		i, ok := seen[m.Short]
		if !ok {
			i = len(aggs)
			seen[m.Short] = i
			parts = append(parts, m.Short)
			aggs = append(aggs, agg{seconds: strings.HasSuffix(m.Name, "_seconds"), histogram: m.Bounds != nil})
		}
		aggs[i].value += m.Value
		aggs[i].sum += m.Sum
		aggs[i].count += m.Count
	}
	for i, a := range aggs {
		switch {
		case !a.histogram:
			parts[i] = fmt.Sprintf("%s %.0f", parts[i], a.value)
		case a.count == 0:
			parts[i] = parts[i] + " -"
		case a.seconds:
			parts[i] = fmt.Sprintf("%s %.1f ms", parts[i], a.sum/float64(a.count)*1000)
		default:
			parts[i] = fmt.Sprintf("%s %.1f", parts[i], a.sum/float64(a.count))
		}
	}
	return strings.Join(parts, ", ")
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ServeMetrics serves the Prometheus text format on port
// (metrics.reporter.prom.port; Flink's default is 9249) at any path. It
// returns once listening; stop it with the returned server's Shutdown.
func ServeMetrics(port string, jobs func() []*Job) (*http.Server, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("", port))
	if err != nil {
		return nil, fmt.Errorf("metrics.reporter.prom.port %s: %w", port, err)
	}
	// Addr tells callers the port actually bound (port "0" picks one).
	srv := &http.Server{Addr: ln.Addr().String(), Handler: MetricsHandler(jobs), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return srv, nil
}
