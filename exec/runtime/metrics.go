package runtime

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
)

// CheckpointStats summarizes a job's checkpoints.
type CheckpointStats struct {
	Completed     int64
	Failed        int64
	LastID        int64
	LastDuration  time.Duration
	LastSize      int64
	LastCompleted time.Time
	// LastPath is the last written checkpoint or savepoint directory.
	LastPath      string
	TotalDuration time.Duration
	// LastSyncDuration is the last checkpoint's longest synchronous part
	// over its subtasks: how long one stopped processing records to take
	// its snapshot (Flink's checkpoint statistics' "Sync Duration"; the
	// rocksdb backend writes its files after it, asynchronously).
	// MaxSyncDuration is the longest since the job started.
	LastSyncDuration time.Duration
	MaxSyncDuration  time.Duration
	// LastAlignmentDuration is the last checkpoint's longest barrier
	// alignment over its subtasks (first barrier to last; Flink's
	// "Alignment Duration"), during which the aligned inputs are held.
	LastAlignmentDuration time.Duration
}

// VertexMetrics are one vertex's counters, summed over its subtasks.
type VertexMetrics struct {
	UID  string
	Name string
	// Kind is "source", "operator" or "sink".
	Kind        string
	Parallelism int
	RecordsIn   int64
	RecordsOut  int64
	// BackPressured is the total time the vertex's subtasks waited on full
	// output channels.
	BackPressured time.Duration
	// Flushes counts a sink's writer snapshots: every checkpoint flushes
	// each writer (JDBC buffers, Paimon files).
	Flushes int64
	// Connector are the metrics the vertex's readers or writers report
	// themselves (connectors.ReportsMetrics), summed over subtasks.
	Connector []connectors.Metric
}

// Metrics is a point-in-time snapshot of a job, for the shell's status line
// and SHOW JOBS.
type Metrics struct {
	JobID       string
	JobName     string
	Status      Status
	StartTime   time.Time
	EndTime     time.Time
	Restarts    int
	Vertices    []VertexMetrics
	Checkpoints CheckpointStats
}

// Metrics snapshots the job's counters.
func (j *Job) Metrics() Metrics {
	m := Metrics{JobID: j.ID, JobName: j.Name, Status: j.Status(), StartTime: j.StartTime}
	for i, v := range j.graph.Vertices {
		vm := j.metrics[i]
		kind := "operator"
		switch {
		case v.Source != nil:
			kind = "source"
		case v.Sink != nil:
			kind = "sink"
		}
		m.Vertices = append(m.Vertices, VertexMetrics{UID: v.UID, Name: v.Name, Kind: kind, Parallelism: v.Parallelism,
			RecordsIn: vm.recordsIn.Load(), RecordsOut: vm.recordsOut.Load(),
			BackPressured: time.Duration(vm.backpressureNanos.Load()), Flushes: vm.flushes.Load(),
			Connector: vm.connectorMetrics()})
	}
	j.mu.Lock()
	m.Checkpoints = j.cpStats
	m.Restarts = j.restarts
	m.EndTime = j.endTime
	j.mu.Unlock()
	return m
}

// WritePrometheus writes the jobs' metrics in the Prometheus text format,
// with Flink's metric names as the Prometheus reporter spells them.
func WritePrometheus(w io.Writer, jobs []*Job) error {
	type sample struct {
		suffix string // _bucket, _sum, _count of a histogram
		labels string
		value  float64
	}
	families := map[string][]sample{}
	help := map[string]string{}
	histograms := map[string]bool{}
	add := func(name, h, labels string, v float64) {
		families[name] = append(families[name], sample{labels: labels, value: v})
		help[name] = h
	}
	for _, j := range jobs {
		m := j.Metrics()
		jl := fmt.Sprintf(`job_id="%s",job_name="%s"`, m.JobID, escapeLabel(m.JobName))
		add("flink_jobmanager_job_uptime", "Milliseconds since the job started.", jl,
			float64(time.Since(m.StartTime).Milliseconds()))
		add("flink_jobmanager_job_numRestarts", "Restarts of the job.", jl, float64(m.Restarts))
		add("flink_jobmanager_job_numberOfCompletedCheckpoints", "Completed checkpoints.", jl, float64(m.Checkpoints.Completed))
		add("flink_jobmanager_job_numberOfFailedCheckpoints", "Failed checkpoints.", jl, float64(m.Checkpoints.Failed))
		add("flink_jobmanager_job_lastCheckpointDuration", "Duration of the last checkpoint in milliseconds.", jl,
			float64(m.Checkpoints.LastDuration.Milliseconds()))
		add("flink_jobmanager_job_lastCheckpointSize", "Bytes written by the last checkpoint.", jl, float64(m.Checkpoints.LastSize))
		add("sqlrun_jobmanager_job_lastCheckpointSyncDuration",
			"Longest time a subtask stopped processing records for the last checkpoint's synchronous snapshot, in milliseconds.", jl,
			float64(m.Checkpoints.LastSyncDuration.Milliseconds()))
		add("sqlrun_jobmanager_job_maxCheckpointSyncDuration",
			"Longest synchronous snapshot part of any checkpoint since the job started, in milliseconds.", jl,
			float64(m.Checkpoints.MaxSyncDuration.Milliseconds()))
		add("sqlrun_jobmanager_job_lastCheckpointAlignmentDuration",
			"Longest barrier alignment of the last checkpoint over its subtasks, in milliseconds.", jl,
			float64(m.Checkpoints.LastAlignmentDuration.Milliseconds()))
		for _, v := range m.Vertices {
			ol := fmt.Sprintf(`%s,operator_id="%s",operator_name="%s"`, jl, escapeLabel(v.UID), escapeLabel(v.Name))
			add("flink_taskmanager_job_task_operator_numRecordsIn", "Records received.", ol, float64(v.RecordsIn))
			add("flink_taskmanager_job_task_operator_numRecordsOut", "Records emitted.", ol, float64(v.RecordsOut))
			add("flink_taskmanager_job_task_backPressuredTimeMsTotal", "Milliseconds spent waiting on full output channels.", ol,
				float64(v.BackPressured.Milliseconds()))
			if v.Kind == "sink" {
				add("sqlrun_sink_flushes_total", "Sink writer flushes (one per subtask per checkpoint).", ol, float64(v.Flushes))
			}
			for _, c := range v.Connector {
				l := ol
				for _, kv := range c.Labels {
					l += fmt.Sprintf(`,%s="%s"`, kv[0], escapeLabel(kv[1]))
				}
				if c.Bounds == nil {
					add(c.Name, c.Help, l, c.Value)
					continue
				}
				histograms[c.Name] = true
				help[c.Name] = c.Help
				for i, b := range c.Bounds {
					families[c.Name] = append(families[c.Name], sample{"_bucket", fmt.Sprintf(`%s,le="%g"`, l, b), float64(c.Buckets[i])})
				}
				families[c.Name] = append(families[c.Name],
					sample{"_bucket", l + `,le="+Inf"`, float64(c.Count)},
					sample{"_sum", l, c.Sum}, sample{"_count", l, float64(c.Count)})
			}
		}
	}
	names := make([]string, 0, len(families))
	for n := range families {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		kind := "gauge"
		switch {
		case histograms[n]:
			kind = "histogram"
		case strings.HasPrefix(n, "flink_taskmanager") || strings.Contains(n, "numberOf") || strings.HasSuffix(n, "_total"):
			kind = "counter"
		}
		if _, err := fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", n, help[n], n, kind); err != nil {
			return err
		}
		for _, s := range families[n] {
			if _, err := fmt.Fprintf(w, "%s%s{%s} %g\n", n, s.suffix, s.labels, s.value); err != nil {
				return err
			}
		}
	}
	return nil
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// MetricsHandler serves WritePrometheus for the jobs jobs() returns; the
// shell mounts it on metrics.reporter.prom.port.
func MetricsHandler(jobs func() []*Job) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_ = WritePrometheus(w, jobs())
	})
}
