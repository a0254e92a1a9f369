// Command scale measures keyed state at scale (issue 24): one job per run,
// ChangelogNormalize or GroupAggregate over N keys, on the hashmap or the
// rocksdb (LSM) state backend, with periodic checkpoints. It prints one
// line: peak RSS, memory and checkpoint bytes per key, the longest and the
// full-state checkpoint's duration, and the longest stall of the output
// while input was flowing with the CPU time the process got during it (on
// a loaded machine a stall in which the process barely ran is the load's).
// scripts/bench-scale.sh runs it per case, each in its own process so peak
// RSS is the case's own. -stalldump finds a stall's cause: each gap in the
// output past it is printed with the process's CPU time and its threads'
// run-queue wait during it, and the goroutines' stacks and an execution
// trace of the last seconds (runtime/trace's flight recorder) are written
// while it lasts.
//
// The job is built on the runtime directly (source → hash → operator →
// sink) with the operators the planner puts behind an upsert source
// (ChangelogNormalize, keyed by the primary key) and behind
// `SELECT k, SUM(a), COUNT(*), MAX(a) FROM t GROUP BY k` over insert-only
// input (GroupAggregate).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/internal/gctune"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/sql"
)

func main() {
	op := flag.String("op", "normalize", "normalize or groupby")
	keys := flag.Int("keys", 1_000_000, "distinct keys")
	backend := flag.String("backend", "hashmap", "hashmap or rocksdb")
	interval := flag.Duration("interval", 5*time.Second, "checkpoint interval")
	dir := flag.String("dir", "", "checkpoint directory (default a temp dir, removed)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up after this long, printing how far the input got")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.DurationVar(&stallDump, "stalldump", 0, "when the output stalls this long while input flows, write the goroutines' stacks and the last seconds' execution trace (a flight recorder) to stall-N.txt / stall-N.trace in the current directory, and print each stall longer than this when it ends")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*op, *keys, *backend, *interval, *dir, *timeout); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// gen emits rows for n keys: every key once (+I), then a fifth of them
// again (+U for normalize, another +I for group by), then idles (the job
// stays up for a checkpoint of the full state).
type gen struct {
	op   string
	keys int
}

func (g *gen) ChangelogMode() sql.ChangelogMode {
	if g.op == "normalize" {
		return sql.ModeOf(sql.Insert, sql.UpdateAfter)
	}
	return sql.InsertOnly
}
func (g *gen) Bounded() bool { return false }
func (g *gen) NewReader(int, int) (connectors.SourceReader, error) {
	return &genReader{g: g}, nil
}

type genReader struct {
	g   *gen
	pos int
}

var statuses = []string{"CREATED", "PAID", "SHIPPED", "DELIVERED"}

func (r *genReader) Open(context.Context, []byte) error { return nil }
func (r *genReader) total() int                         { return r.g.keys + r.g.keys/5 }
func (r *genReader) Next(context.Context) ([]sql.Row, error) {
	if r.pos >= r.total() {
		return nil, nil
	}
	n := min(1024, r.total()-r.pos)
	rows := make([]sql.Row, n)
	for i := range rows {
		p := r.pos + i
		kind := sql.Insert
		k := p
		if p >= r.g.keys {
			k = (p - r.g.keys) * 5
			if r.g.op == "normalize" {
				kind = sql.UpdateAfter
			}
		}
		rows[i] = sql.Row{Kind: kind, Values: []any{int64(k), int64(p%1000 + 1), statuses[p%len(statuses)],
			sql.TimestampData{Millis: 1_700_000_000_000 + int64(p)}}}
	}
	r.pos += n
	return rows, nil
}
func (r *genReader) Snapshot(int64) ([]byte, error)                        { return nil, nil } // never restored
func (r *genReader) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (r *genReader) Close() error                                          { return nil }

// probe is the sink: it counts rows and notes the longest gap between two
// writes, and the CPU time the process got during it (a gap in which the
// process ran little is the machine's load, not the job's).
type probe struct {
	mu         sync.Mutex
	rows       int64
	last       time.Time
	longest    time.Duration
	longestCPU time.Duration // the process's CPU time during the longest gap
	lastCPU    time.Duration // the process's CPU time at the last write
	lastWait   time.Duration // with -stalldump: its threads' run-queue wait then
	start      time.Time     // the job's start (for -stalldump's report)
	inputDone  bool          // the input has all been read: the output ends
}

// runQueueWait is how long the process's threads have been runnable but
// waiting for a CPU (the second field of Linux's
// /proc/self/task/*/schedstat), threads that ended excluded; 0 where that
// is not available.
func runQueueWait() time.Duration {
	var wait time.Duration
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			wait += time.Duration(n)
		}
	}
	return wait
}

// stallDump is -stalldump: 0, or the gap in the output past which the
// watchdog records what the process is doing.
var stallDump time.Duration

func (p *probe) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (p *probe) Parallelism() int                                             { return 1 }
func (p *probe) NewWriter(int, int) (connectors.SinkWriter, error)            { return p, nil }
func (p *probe) Open(context.Context, []byte) error                           { return nil }
func (p *probe) Write(_ context.Context, rows []sql.Row) error {
	now := time.Now()
	cpu := procstat.CPU()
	var wait time.Duration
	if stallDump > 0 {
		wait = runQueueWait()
	}
	p.mu.Lock()
	if !p.last.IsZero() {
		gap := now.Sub(p.last)
		if gap > p.longest {
			p.longest, p.longestCPU = gap, cpu-p.lastCPU
		}
		if stallDump > 0 && gap >= stallDump {
			fmt.Fprintf(os.Stderr, "stall: %.3f s without output, %.3f-%.3f s after the start, after %d rows; meanwhile the process ran %.3f CPU-s and its threads waited %.3f s for a CPU\n",
				gap.Seconds(), p.last.Sub(p.start).Seconds(), now.Sub(p.start).Seconds(), p.rows,
				(cpu - p.lastCPU).Seconds(), (wait - p.lastWait).Seconds())
		}
	}
	p.last, p.lastCPU, p.lastWait = now, cpu, wait
	p.rows += int64(len(rows))
	p.mu.Unlock()
	return nil
}
func (p *probe) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (p *probe) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (p *probe) Close(context.Context) error                             { return nil }

// state is the rows written, the longest gap between two writes and the
// process's CPU time during it.
func (p *probe) state() (int64, time.Duration, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rows, p.longest, p.longestCPU
}

func run(op string, keys int, backend string, interval time.Duration, dir string, timeout time.Duration) error {
	gctune.Tune() // the binary's collector policy
	if dir == "" {
		d, err := os.MkdirTemp("", "bench-scale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	g := runtime.NewGraph("scale-" + op)
	src := &gen{op: op, keys: keys}
	s := g.AddSource("src", "Source: gen", src, 1)
	var f runtime.OperatorFactory
	switch op {
	case "normalize":
		f = operators.ChangelogNormalize(operators.NormalizeSpec{Keys: []int{0}, GenerateUpdateBefore: true})
	case "groupby":
		f = operators.GroupAggregate(operators.AggregateSpec{GroupKeys: []int{0}, GenerateUpdateBefore: true,
			Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1}, {Kind: operators.CountStar},
				{Kind: operators.Max, Arg: 1, InsertOnly: true}}})
	default:
		return fmt.Errorf("unknown op %q", op)
	}
	o := g.AddOperator("op", op, f, 1)
	sink := &probe{start: time.Now()}
	k := g.AddSink("sink", "Sink: probe", sink, 1)
	g.Connect(s, o, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
	g.Connect(o, k, runtime.Partitioning{Kind: runtime.Forward})
	base, _ := procstat.Memory()
	start := time.Now()
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true, CheckpointInterval: interval,
		CheckpointDir: dir, StateBackend: backend, NumRetained: 1})
	if err != nil {
		return err
	}
	defer func() { job.Cancel(); _ = job.Wait(context.Background()) }()
	total := int64(keys + keys/5)
	var longestCp, fullCp time.Duration
	var seen int64
	var cpBytes int64
	doneAt := time.Time{}
	var doneID int64
	var inputStall, stallCPU time.Duration
	if stallDump > 0 {
		stop := watch(sink, stallDump)
		defer stop()
	}
	for {
		time.Sleep(50 * time.Millisecond)
		m := job.Metrics()
		if st := m.Status; st.Terminal() {
			return fmt.Errorf("job ended: %s %v", st, job.Err())
		}
		c := m.Checkpoints
		if c.LastID != seen && c.LastID != 0 {
			seen = c.LastID
			longestCp = max(longestCp, c.LastDuration)
			if !doneAt.IsZero() && c.LastID > doneID {
				fullCp = c.LastDuration
				if backend == "rocksdb" {
					cpBytes = procstat.DirSize(c.LastPath)
				} else {
					cpBytes = c.LastSize
				}
				break
			}
		}
		var in int64
		for _, v := range m.Vertices {
			if v.UID == "op" {
				in = v.RecordsIn
			}
		}
		if doneAt.IsZero() && in >= total {
			doneAt = time.Now()
			doneID = c.LastID
			_, inputStall, stallCPU = sink.state() // gaps while rows were flowing
			sink.mu.Lock()
			sink.inputDone = true
			sink.mu.Unlock()
		}
		if time.Since(start) > timeout {
			// What a run too slow for the machine's load still shows: how
			// far the input got, memory, and the checkpoints and output
			// stalls so far.
			_, peak := procstat.Memory()
			_, stall, scpu := sink.state()
			// The last checkpoint's bytes over the keys seen so far (the
			// first keys rows of the input are the distinct keys).
			last := c.LastSize
			if backend == "rocksdb" && c.LastPath != "" {
				last = procstat.DirSize(c.LastPath)
			}
			fmt.Printf("%-9s %-8s %9d keys  timed out after %s: input %d of %d rows  peak RSS %7.0f MiB  last checkpoint %5.1f B/key  %d checkpoints, longest %6.2f s, longest sync %6.2f s  longest output stall %6.2f s (process CPU in it %5.2f s)\n",
				op, backend, keys, timeout, in, total, float64(peak)/(1<<20), float64(last)/float64(max(1, min(in, int64(keys)))),
				seen, longestCp.Seconds(), c.MaxSyncDuration.Seconds(), stall.Seconds(), scpu.Seconds())
			return fmt.Errorf("timed out")
		}
	}
	_, peak := procstat.Memory()
	n := int64(keys)
	// The longest synchronous part of any checkpoint: how long a subtask
	// stopped processing records for one (runtime.CheckpointStats).
	maxSync := job.Metrics().Checkpoints.MaxSyncDuration
	fmt.Printf("%-9s %-8s %9d keys  %6.2f s  peak RSS %7.0f MiB  %6.0f B/key  checkpoint %5.1f B/key  ckpt full %6.2f s  longest ckpt %6.2f s  longest sync %6.2f s  longest output stall %6.2f s (process CPU in it %5.2f s)\n",
		op, backend, keys, doneAt.Sub(start).Seconds(), float64(peak)/(1<<20), float64(peak-base)/float64(n),
		float64(cpBytes)/float64(n), fullCp.Seconds(), longestCp.Seconds(), maxSync.Seconds(), inputStall.Seconds(), stallCPU.Seconds())
	return nil
}

// watch is -stalldump's watchdog: once the output has been silent for
// limit since its last write (rows having flowed before), it writes every
// goroutine's stack and the flight recorder's trace of the last seconds,
// once per silence.
func watch(p *probe, limit time.Duration) (stop func()) {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 2 * limit, MaxBytes: 64 << 20})
	if err := fr.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "scale: flight recorder:", err)
	}
	done := make(chan struct{})
	go func() {
		var dumped time.Time
		n := 0
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			p.mu.Lock()
			last, ended := p.last, p.inputDone
			p.mu.Unlock()
			if ended || last.IsZero() || last.Equal(dumped) || time.Since(last) < limit {
				continue
			}
			dumped = last
			n++
			if f, err := os.Create(fmt.Sprintf("stall-%d.txt", n)); err == nil {
				_ = pprof.Lookup("goroutine").WriteTo(f, 2)
				_ = f.Close()
			}
			if fr.Enabled() {
				if f, err := os.Create(fmt.Sprintf("stall-%d.trace", n)); err == nil {
					_, _ = fr.WriteTo(f)
					_ = f.Close()
				}
			}
			fmt.Fprintf(os.Stderr, "stall-%d: silent %.3f s since %.3f s after the start\n", n, time.Since(last).Seconds(), last.Sub(p.start).Seconds())
		}
	}()
	return func() { close(done); fr.Stop() }
}
