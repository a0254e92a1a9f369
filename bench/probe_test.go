package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	_ "github.com/sqlrun/sqlrun/connectors/all"
	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// The probe sink ('connector' = 'bench-probe', 'probe' = name) stamps
// every row with time.Now() the moment its sink writer's Write is called,
// i.e. after the source, every operator and the exchanges between them:
// what a real sink would see before it does its own I/O.
func init() { connectors.Register(probeFactory{}) }

type probeFactory struct{}

func (probeFactory) Identifier() string { return "bench-probe" }

func (probeFactory) Options() []connectors.Option {
	return []connectors.Option{{Key: "probe", Type: connectors.String, Required: true}}
}

func (f probeFactory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	p := probeNamed(ctx.Options["probe"])
	if p == nil {
		return nil, fmt.Errorf("bench-probe: no probe %q registered", ctx.Options["probe"])
	}
	return p, nil
}

var (
	probesMu sync.Mutex
	probes   = map[string]*probe{}
)

func probeNamed(name string) *probe {
	probesMu.Lock()
	defer probesMu.Unlock()
	return probes[name]
}

// arrival is one row as the probe saw it.
type arrival struct {
	kind sql.RowKind
	row  []any
	at   time.Time
}

// probe is a sink that keeps every row with its arrival time.
type probe struct {
	name string
	mu   sync.Mutex
	rows []arrival
	// job is the job writing into the probe (set by its starter).
	job *runtime.Job
	// batch is the column whose value names the commit a row came from.
	batch int
}

func newProbe(t testing.TB, batchCol int) *probe {
	p := &probe{name: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()), batch: batchCol}
	probesMu.Lock()
	probes[p.name] = p
	probesMu.Unlock()
	t.Cleanup(func() {
		probesMu.Lock()
		delete(probes, p.name)
		probesMu.Unlock()
	})
	return p
}

// ChangelogMode accepts every kind, as the print sink does, so the planner
// keeps -U rows (and adds ChangelogNormalize where Flink would).
func (p *probe) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	return requested, nil
}
func (p *probe) Parallelism() int { return 1 }
func (p *probe) NewWriter(int, int) (connectors.SinkWriter, error) {
	return probeWriter{p}, nil
}

type probeWriter struct{ p *probe }

func (w probeWriter) Open(context.Context, []byte) error { return nil }
func (w probeWriter) Write(_ context.Context, rows []sql.Row) error {
	now := time.Now()
	w.p.mu.Lock()
	for _, r := range rows {
		w.p.rows = append(w.p.rows, arrival{kind: r.Kind, row: append([]any(nil), r.Values...), at: now})
	}
	w.p.mu.Unlock()
	return nil
}
func (w probeWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (w probeWriter) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (w probeWriter) Close(context.Context) error                             { return nil }

// snapshot returns the rows seen so far.
func (p *probe) snapshot() []arrival {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]arrival(nil), p.rows...)
}

// startSession runs the statements (the last an INSERT, not waited for)
// in a new session with the real planner and returns the started job; it
// is cancelled when the test ends.
func startSession(t testing.TB, script string) (*exec.Session, *runtime.Job) {
	t.Helper()
	s := exec.NewSession()
	s.Planner = exec.DefaultPlanner
	var out strings.Builder
	if err := s.ExecuteScript(context.Background(), script, "bench.sql", &out); err != nil {
		t.Fatalf("script: %v\n%s", err, out.String())
	}
	jobs := s.Jobs.List()
	if len(jobs) == 0 {
		t.Fatalf("no job started:\n%s", out.String())
	}
	job := jobs[len(jobs)-1]
	t.Cleanup(func() {
		for _, j := range s.Jobs.List() {
			j.Cancel()
			<-j.Done()
		}
		s.Close()
	})
	return s, job
}

// pct is the q-quantile (nearest rank) of sorted durations.
func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	i = max(0, min(len(sorted)-1, i))
	return sorted[i]
}

func sortDurations(d []time.Duration) { sort.Slice(d, func(i, j int) bool { return d[i] < d[j] }) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
