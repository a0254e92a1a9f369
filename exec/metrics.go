package exec

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// startMetrics serves the session's jobs' metrics in the Prometheus text
// format on metrics.reporter.prom.port (a port or a range "9249-9260", the
// first free one is used, as Flink's reporter does) at any path, e.g.
// /metrics. Setting the key again moves the endpoint; an empty value
// stops it.
func (s *Session) startMetrics(spec string) error {
	s.stopMetrics()
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil
	}
	lo, hi, err := parsePortRange(spec)
	if err != nil {
		return err
	}
	var ln net.Listener
	for p := lo; p <= hi; p++ {
		ln, err = net.Listen("tcp", ":"+strconv.Itoa(p))
		if err == nil {
			break
		}
	}
	if ln == nil {
		return sql.Errorf(sql.RuntimeException, "Could not start Prometheus metrics endpoint on port(s) %s: %w", spec, err)
	}
	srv := &http.Server{Handler: runtime.MetricsHandler(s.Jobs.List), ReadHeaderTimeout: 5 * time.Second}
	s.metrics = srv
	s.metricsAddr = ln.Addr().String()
	// Serve returns ErrServerClosed on stopMetrics; any other error ends
	// the endpoint only (jobs keep running), as a failing reporter does
	// in Flink.
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// MetricsAddr is the address of the Prometheus endpoint, "" when off.
func (s *Session) MetricsAddr() string { return s.metricsAddr }

func (s *Session) stopMetrics() {
	if s.metrics != nil {
		_ = s.metrics.Close()
		s.metrics, s.metricsAddr = nil, ""
	}
}

// Close releases what the session holds outside its jobs (the metrics
// endpoint). Jobs are stopped by the caller (Jobs.StopAll).
func (s *Session) Close() { s.stopMetrics() }

func parsePortRange(spec string) (int, int, error) {
	bad := sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key '%s'.", spec, config.KeyPromPort)
	a, b, isRange := strings.Cut(spec, "-")
	lo, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || lo < 0 || lo > 65535 {
		return 0, 0, bad
	}
	hi := lo
	if isRange {
		hi, err = strconv.Atoi(strings.TrimSpace(b))
		if err != nil || hi < lo || hi > 65535 {
			return 0, 0, bad
		}
	}
	return lo, hi, nil
}
