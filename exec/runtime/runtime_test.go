package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	_ "github.com/sqlrun/sqlrun/connectors/datagen"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/sql"
)

// memSink records every row it is given, and the committables committed.
type memSink struct {
	mu        sync.Mutex
	rows      []sql.Row
	commits   map[int64][][]byte
	snapshots int
	closed    int
	failAt    int // fail the Write that would bring rows past failAt (once)
	// snapDelay is how long each Snapshot takes (a slow flush).
	snapDelay time.Duration
}

func (s *memSink) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (s *memSink) Parallelism() int                                             { return 0 }
func (s *memSink) NewWriter(subtask, _ int) (connectors.SinkWriter, error) {
	return &memWriter{s: s, subtask: subtask}, nil
}
func (s *memSink) Commit(_ context.Context, cp int64, comms [][]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.commits == nil {
		s.commits = map[int64][][]byte{}
	}
	s.commits[cp] = comms
	return nil
}

func (s *memSink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.rows {
		out = append(out, sql.FormatRow(r, nil))
	}
	return out
}

type memWriter struct {
	s       *memSink
	subtask int
	n       int
}

func (w *memWriter) Open(context.Context, []byte) error { return nil }
func (w *memWriter) Write(_ context.Context, rows []sql.Row) error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if w.s.failAt > 0 && len(w.s.rows)+len(rows) > w.s.failAt {
		w.s.failAt = 0
		return errors.New("injected failure")
	}
	w.s.rows = append(w.s.rows, rows...)
	w.n += len(rows)
	return nil
}
func (w *memWriter) Snapshot(_ context.Context, cp int64) ([]byte, []byte, error) {
	w.s.mu.Lock()
	w.s.snapshots++
	delay := w.s.snapDelay
	w.s.mu.Unlock()
	time.Sleep(delay)
	return []byte(fmt.Sprint(w.n)), []byte(fmt.Sprintf("w%d@%d", w.subtask, cp)), nil
}
func (w *memWriter) NotifyCheckpointComplete(context.Context, int64) error { return nil }
func (w *memWriter) Close(context.Context) error {
	w.s.mu.Lock()
	w.s.closed++
	w.s.mu.Unlock()
	return nil
}

func ordersRows() []sql.Row {
	return []sql.Row{
		sql.NewRow(int32(1001), int64(80), "CREATED"),
		sql.NewRow(int32(1002), int64(20), "CREATED"),
		{Kind: sql.UpdateBefore, Values: []any{int32(1001), int64(80), "CREATED"}},
		{Kind: sql.UpdateAfter, Values: []any{int32(1001), int64(100), "CREATED"}},
		sql.NewRow(int32(1003), int64(5), "PAID"),
	}
}

func aggGraph(src connectors.TableSource, sink connectors.TableSink, par int) *runtime.Graph {
	g := runtime.NewGraph("orders-by-status")
	s := g.AddSource("src", "Source: orders", src, 1)
	a := g.AddOperator("agg", "GroupAggregate", operators.GroupAggregate(operators.AggregateSpec{
		GroupKeys: []int{2}, Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1}},
		GenerateUpdateBefore: true}), par)
	k := g.AddSink("sink", "Sink: out", sink, 1)
	g.Connect(s, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{2}})
	g.Connect(a, k, runtime.Partitioning{Kind: runtime.Global})
	return g
}

func TestBoundedJobRunsToCompletion(t *testing.T) {
	for _, par := range []int{1, 3} {
		sink := &memSink{}
		job, err := runtime.Start(context.Background(), aggGraph(&runtime.ValuesSource{Rows: ordersRows()}, sink, par),
			runtime.Config{Streaming: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Wait(context.Background()); err != nil {
			t.Fatalf("p=%d: %v", par, err)
		}
		if job.Status() != runtime.Finished {
			t.Fatalf("status %s", job.Status())
		}
		got := strings.Join(sink.lines(), " ")
		want := "+I[CREATED, 80] -U[CREATED, 80] +U[CREATED, 100] -U[CREATED, 100] +U[CREATED, 20] -U[CREATED, 20] +U[CREATED, 120] +I[PAID, 5]"
		if par == 1 && got != want {
			t.Fatalf("p=1 got  %s\nwant %s", got, want)
		}
		// With parallel aggregation the two groups interleave, but each
		// group's sequence is the same.
		var created []string
		for _, l := range sink.lines() {
			if strings.Contains(l, "CREATED") {
				created = append(created, l)
			}
		}
		if len(created) != 7 || created[6] != "+U[CREATED, 120]" {
			t.Fatalf("p=%d: %v", par, created)
		}
		// The final checkpoint ran: every writer snapshotted, the sink's
		// committer got the committables, writers were closed.
		if sink.snapshots != 1 || len(sink.commits) != 1 || sink.closed != 1 {
			t.Fatalf("snapshots=%d commits=%v closed=%d", sink.snapshots, sink.commits, sink.closed)
		}
		m := job.Metrics()
		if m.Vertices[0].RecordsOut != 5 || m.Vertices[1].RecordsIn != 5 || m.Vertices[2].RecordsIn != 8 {
			t.Fatalf("metrics %+v", m.Vertices)
		}
	}
}

func TestGraphString(t *testing.T) {
	got := aggGraph(&runtime.ValuesSource{}, &memSink{}, 2).String()
	want := `0 src "Source: orders" p=1 source
1 agg "GroupAggregate" p=2 operator <- 0 hash[2]
2 sink "Sink: out" p=1 sink <- 1 global
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGraphValidation(t *testing.T) {
	g := runtime.NewGraph("bad")
	s := g.AddSource("a", "src", &runtime.ValuesSource{}, 2)
	k := g.AddSink("b", "sink", &memSink{}, 1)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Forward})
	if _, err := runtime.Start(context.Background(), g, runtime.Config{}); err == nil ||
		!strings.Contains(err.Error(), "forward edge") {
		t.Fatalf("got %v", err)
	}
}

func datagenSource(t testing.TB, rows, rps int) connectors.TableSource {
	fail := func(err error) {
		if t == nil {
			panic(err)
		}
		t.Fatal(err)
	}
	f, err := connectors.Lookup("datagen")
	if err != nil {
		fail(err)
	}
	src, err := f.(connectors.SourceFactory).CreateSource(&connectors.Context{
		Schema: sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}}},
		Options: map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1",
			"fields.id.end": fmt.Sprint(rows), "rows-per-second": fmt.Sprint(rps)},
	})
	if err != nil {
		fail(err)
	}
	return src
}

// modGraph is datagen id → (id % 10, id) → GROUP BY k: SUM(id), COUNT(*)
// → sink.
func modGraph(src connectors.TableSource, sink connectors.TableSink) *runtime.Graph {
	return modGraphP(src, sink, 2)
}

func modGraphP(src connectors.TableSource, sink connectors.TableSink, aggPar int) *runtime.Graph {
	g := runtime.NewGraph("datagen-mod")
	s := g.AddSource("src", "Source: datagen", src, 1)
	c := g.AddOperator("calc", "Calc", operators.Calc(func(r sql.Row) (sql.Row, bool, error) {
		id := r.Values[0].(int64)
		return sql.Row{Values: []any{id % 10, id}}, true, nil
	}), 1)
	a := g.AddOperator("agg", "GroupAggregate", operators.GroupAggregate(operators.AggregateSpec{
		GroupKeys: []int{0}, Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1}, {Kind: operators.CountStar}},
		GenerateUpdateBefore: true}), aggPar)
	k := g.AddSink("sink", "Sink: out", sink, 1)
	g.Connect(s, c, runtime.Partitioning{Kind: runtime.Forward})
	g.Connect(c, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
	g.Connect(a, k, runtime.Partitioning{Kind: runtime.Global})
	return g
}

// materialize applies a retract changelog keyed by column 0.
func materialize(lines []sql.Row) []string {
	m := map[string]string{}
	for _, r := range lines {
		k := fmt.Sprint(r.Values[0])
		if r.Kind.IsAdd() {
			m[k] = sql.FormatRow(sql.Row{Values: r.Values}, nil)
		} else {
			delete(m, k)
		}
	}
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func expectedMod(n int64) []string {
	var out []string
	for k := int64(0); k < 10; k++ {
		var sum, cnt int64
		for id := int64(1); id <= n; id++ {
			if id%10 == k {
				sum += id
				cnt++
			}
		}
		out = append(out, fmt.Sprintf("+I[%d, %d, %d]", k, sum, cnt))
	}
	sort.Strings(out)
	return out
}

func TestCheckpointsAndRestoreInProcess(t *testing.T) {
	dir := t.TempDir()
	sink := &memSink{}
	cfg := runtime.Config{Streaming: true, CheckpointInterval: 20 * time.Millisecond, CheckpointDir: dir, NumRetained: 2}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 3000, 10000), sink), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Stop with a savepoint part way.
	time.Sleep(120 * time.Millisecond)
	sp, err := job.Stop(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil || job.Status() != runtime.Finished {
		t.Fatalf("stop: %v %s", err, job.Status())
	}
	if !strings.Contains(filepath.Base(sp), "savepoint-"+job.ID[:6]) {
		t.Fatalf("savepoint path %s", sp)
	}
	m := job.Metrics()
	if m.Checkpoints.Completed < 2 {
		t.Fatalf("only %d checkpoints completed", m.Checkpoints.Completed)
	}
	chks, _ := filepath.Glob(filepath.Join(dir, "datagen-mod", "chk-*"))
	if len(chks) > 2 {
		t.Fatalf("num-retained=2 kept %v", chks)
	}
	first := len(sink.rows)
	latest, err := runtime.LatestCheckpoint(dir, "datagen-mod")
	if err != nil || latest != sp {
		t.Fatalf("latest %q (%v), savepoint %q", latest, err, sp)
	}
	// Resume from the savepoint: the sequence continues.
	cfg.RestorePath = latest
	job2, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 3000, 0), sink), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := job2.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := materialize(sink.rows), expectedMod(3000); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after resume:\n got %v\nwant %v", got, want)
	}
	// Nothing duplicated: a savepoint resume replays nothing, so the log
	// equals an uninterrupted run's.
	ref := &memSink{}
	job3, _ := runtime.Start(context.Background(), modGraph(datagenSource(t, 3000, 0), ref), runtime.Config{Streaming: true})
	if err := job3.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(ref.rows) != len(sink.rows) {
		t.Fatalf("stop+resume wrote %d rows (%d before the stop), an uninterrupted run %d", len(sink.rows), first, len(ref.rows))
	}
}

func TestUnclaimedStateFails(t *testing.T) {
	dir := t.TempDir()
	cfg := runtime.Config{Streaming: true, CheckpointInterval: time.Hour, CheckpointDir: dir}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1000, 1000), &memSink{}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := job.Stop(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	g := runtime.NewGraph("datagen-mod")
	s := g.AddSource("src", "Source: datagen", datagenSource(t, 1000, 0), 1)
	k := g.AddSink("sink", "Sink: out", &memSink{}, 1)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Forward})
	cfg.RestorePath = sp
	_, err = runtime.Start(context.Background(), g, cfg)
	if err == nil || !strings.Contains(err.Error(), "Cannot map checkpoint/savepoint state for operator agg") {
		t.Fatalf("got %v", err)
	}
	cfg.IgnoreUnclaimedState = true
	j2, err := runtime.Start(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := j2.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestRestartFromCheckpointInProcess(t *testing.T) {
	sink := &memSink{failAt: 1500}
	cfg := runtime.Config{Streaming: true, CheckpointInterval: 10 * time.Millisecond, CheckpointDir: t.TempDir(),
		RestartAttempts: 2, RestartDelay: 10 * time.Millisecond}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 2000, 20000), sink), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if job.Metrics().Restarts != 1 {
		t.Fatalf("restarts %d", job.Metrics().Restarts)
	}
	if got, want := materialize(sink.rows), expectedMod(2000); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after restart:\n got %v\nwant %v", got, want)
	}
}

func TestFailureWithoutRestartReportsRootCause(t *testing.T) {
	sink := &memSink{failAt: 3}
	job, err := runtime.Start(context.Background(), aggGraph(&runtime.ValuesSource{Rows: ordersRows()}, sink, 1), runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "injected failure") || job.Status() != runtime.Failed {
		t.Fatalf("got %v, %s", err, job.Status())
	}
	if rc := sql.RootCause(err); rc == nil || rc.Class != sql.RuntimeException || rc.Msg != "Sink: out (1/1): write: injected failure" {
		t.Fatalf("root cause %#v", rc)
	}
}

func TestCancel(t *testing.T) {
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1<<40, 100), &memSink{}), runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	job.Cancel()
	if err := job.Wait(context.Background()); !errors.Is(err, context.Canceled) || job.Status() != runtime.Canceled {
		t.Fatalf("got %v %s", err, job.Status())
	}
	if _, err := job.Stop(context.Background(), false); err == nil {
		t.Fatal("stop of a canceled job succeeded")
	}
}

func TestCollect(t *testing.T) {
	c := runtime.NewCollect(1)
	g := runtime.NewGraph("select")
	s := g.AddSource("src", "Values", &runtime.ValuesSource{Rows: ordersRows()}, 1)
	k := g.AddSink("collect", "Collect", c, 1)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Forward})
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		b, err := c.Next(context.Background(), job)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
	}
	if n != 5 {
		t.Fatalf("collected %d rows", n)
	}
}

func TestPrometheus(t *testing.T) {
	job, _ := runtime.Start(context.Background(), aggGraph(&runtime.ValuesSource{Rows: ordersRows()}, &memSink{}, 1), runtime.Config{Streaming: true})
	_ = job.Wait(context.Background())
	var b strings.Builder
	if err := runtime.WritePrometheus(&b, []*runtime.Job{job}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`flink_taskmanager_job_task_operator_numRecordsIn{job_id="%s",job_name="orders-by-status",operator_id="agg",operator_name="GroupAggregate"} 5`, job.ID)
	if !strings.Contains(b.String(), want) {
		t.Fatalf("missing %s in\n%s", want, b.String())
	}
}

// TestCheckpointSyncDuration: a sink whose snapshot (its flush) takes
// 150 ms stops its subtask for that long, and the checkpoint statistics
// and the Prometheus metrics say so (Flink's checkpoint "Sync Duration",
// issue 24's measure of how long a checkpoint stops the job). A lower
// bound: the subtask cannot have been stopped for less.
func TestCheckpointSyncDuration(t *testing.T) {
	const delay = 150 * time.Millisecond
	sink := &memSink{snapDelay: delay}
	job, err := runtime.Start(context.Background(), aggGraph(&runtime.ValuesSource{Rows: ordersRows()}, sink, 1), runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := job.Metrics().Checkpoints
	if c.Completed == 0 || c.LastSyncDuration < delay || c.MaxSyncDuration < c.LastSyncDuration {
		t.Fatalf("checkpoints %d, last sync %s, max sync %s; want at least %s", c.Completed, c.LastSyncDuration, c.MaxSyncDuration, delay)
	}
	var b strings.Builder
	if err := runtime.WritePrometheus(&b, []*runtime.Job{job}); err != nil {
		t.Fatal(err)
	}
	var ms float64
	prefix := fmt.Sprintf(`sqlrun_jobmanager_job_maxCheckpointSyncDuration{job_id="%s",job_name="orders-by-status"} `, job.ID)
	for _, l := range strings.Split(b.String(), "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			ms, _ = strconv.ParseFloat(v, 64)
		}
	}
	if ms < float64(delay.Milliseconds()) {
		t.Fatalf("maxCheckpointSyncDuration %v ms, want at least %d in\n%s", ms, delay.Milliseconds(), b.String())
	}
}

// TestParallelAlignedCheckpointsAndCrash: two source subtasks feed three
// aggregate subtasks through a hash exchange, so every aggregate subtask
// aligns barriers from two channels. The job is cancelled (a crash) after
// a few checkpoints and restored from the latest one; the result is exact.
func TestParallelAlignedCheckpointsAndCrash(t *testing.T) {
	const n = 40000
	build := func(sink connectors.TableSink, rps int) *runtime.Graph {
		g := runtime.NewGraph("parallel")
		s := g.AddSource("src", "Source: datagen", datagenSource(t, n, rps), 2)
		c := g.AddOperator("calc", "Calc", operators.Calc(func(r sql.Row) (sql.Row, bool, error) {
			id := r.Values[0].(int64)
			return sql.Row{Values: []any{id % 10, id}}, true, nil
		}), 2)
		a := g.AddOperator("agg", "GroupAggregate", operators.GroupAggregate(operators.AggregateSpec{
			GroupKeys: []int{0}, Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1}, {Kind: operators.CountStar}},
			GenerateUpdateBefore: true}), 3)
		k := g.AddSink("sink", "Sink: out", sink, 1)
		g.Connect(s, c, runtime.Partitioning{Kind: runtime.Forward})
		g.Connect(c, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
		g.Connect(a, k, runtime.Partitioning{Kind: runtime.Global})
		return g
	}
	dir := t.TempDir()
	sink := &memSink{}
	cfg := runtime.Config{Streaming: true, CheckpointInterval: 15 * time.Millisecond, CheckpointDir: dir}
	job, err := runtime.Start(context.Background(), build(sink, 40000), cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for job.Metrics().Checkpoints.Completed < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	job.Cancel()
	_ = job.Wait(context.Background())
	latest, err := runtime.LatestCheckpoint(dir, "parallel")
	if err != nil || latest == "" {
		t.Fatalf("no checkpoint: %v", err)
	}
	cfg.RestorePath = latest
	job2, err := runtime.Start(context.Background(), build(sink, 0), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := job2.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := materialize(sink.rows), expectedMod(n); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after crash and restore from %s:\n got %v\nwant %v", latest, got, want)
	}
}

func TestStatusLineAndMetricsServer(t *testing.T) {
	job, _ := runtime.Start(context.Background(), aggGraph(&runtime.ValuesSource{Rows: ordersRows()}, &memSink{}, 1), runtime.Config{Streaming: true})
	_ = job.Wait(context.Background())
	line := runtime.StatusLine(runtime.Metrics{}, job.Metrics(), time.Second)
	if want := job.ID + " FINISHED: in 5 rows/s, out 8 rows/s, checkpoint 1 "; !strings.HasPrefix(line, want) {
		t.Fatalf("status line %q, want prefix %q", line, want)
	}
	srv, err := runtime.ServeMetrics("0", func() []*runtime.Job { return []*runtime.Job{job} })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	resp, err := http.Get("http://" + srv.Addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "# TYPE flink_taskmanager_job_task_operator_numRecordsOut counter") ||
		!strings.Contains(string(body), `sqlrun_sink_flushes_total{job_id="`+job.ID) {
		t.Fatalf("metrics page:\n%s", body)
	}
	if got := runtime.DefaultJobName([]string{"default_catalog.default_database.t"}); got != "insert-into_default_catalog.default_database.t" {
		t.Fatal(got)
	}
}

// unionCount counts rows per input and emits one row per input at Finish;
// its state is the counts.
type unionCount struct {
	runtime.Base
	n [2]int64
}

func (u *unionCount) Open(_ *runtime.Context, st []byte) error {
	if st != nil {
		_, err := fmt.Sscan(string(st), &u.n[0], &u.n[1])
		return err
	}
	return nil
}
func (u *unionCount) ProcessBatch(input int, rows []sql.Row, out *runtime.Collector) error {
	u.n[input] += int64(len(rows))
	return nil
}
func (u *unionCount) Snapshot(int64) ([]byte, error) { return []byte(fmt.Sprint(u.n[0], u.n[1])), nil }
func (u *unionCount) Finish(out *runtime.Collector) error {
	out.Emit(sql.NewRow(int64(0), u.n[0]))
	out.Emit(sql.NewRow(int64(1), u.n[1]))
	return nil
}

// TestTwoInputsAndEdgeKinds: two sources feed inputs 0 and 1 of one
// operator through Rebalance and Broadcast edges, with checkpoints
// aligning across the inputs; a graceful stop without savepoint skips
// Finish while a bounded end runs it.
func TestTwoInputsAndEdgeKinds(t *testing.T) {
	build := func(sink connectors.TableSink, rows int) *runtime.Graph {
		g := runtime.NewGraph("two-inputs")
		a := g.AddSource("a", "Source: a", datagenSource(t, rows, 50000), 2)
		b := g.AddSource("b", "Source: b", datagenSource(t, rows, 50000), 1)
		u := g.AddOperator("u", "Union", func(int, int) (runtime.Operator, error) { return &unionCount{}, nil }, 2)
		k := g.AddSink("sink", "Sink", sink, 1)
		if in := g.Connect(a, u, runtime.Partitioning{Kind: runtime.Rebalance}); in != 0 {
			t.Fatalf("first input index %d", in)
		}
		if in := g.Connect(b, u, runtime.Partitioning{Kind: runtime.Broadcast}); in != 1 {
			t.Fatalf("second input index %d", in)
		}
		g.Connect(u, k, runtime.Partitioning{Kind: runtime.Global})
		return g
	}
	sink := &memSink{}
	job, err := runtime.Start(context.Background(), build(sink, 5000),
		runtime.Config{Streaming: true, CheckpointInterval: 5 * time.Millisecond, CheckpointDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Two subtasks each emit their counts; input 0 totals 5000 rows,
	// input 1 (broadcast) 5000 per subtask.
	var in0, in1 int64
	for _, r := range sink.rows {
		if r.Values[0] == int64(0) {
			in0 += r.Values[1].(int64)
		} else {
			in1 += r.Values[1].(int64)
		}
	}
	if in0 != 5000 || in1 != 10000 || job.Metrics().Checkpoints.Completed < 2 {
		t.Fatalf("input 0: %d, input 1: %d, checkpoints %d", in0, in1, job.Metrics().Checkpoints.Completed)
	}

	// Stop without savepoint: no Finish output, job FINISHED.
	sink2 := &memSink{}
	job2, err := runtime.Start(context.Background(), build(sink2, 1<<30), runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := job2.Stop(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if err := job2.Wait(context.Background()); err != nil || job2.Status() != runtime.Finished {
		t.Fatalf("%v %s", err, job2.Status())
	}
	if len(sink2.rows) != 0 || sink2.closed != 1 {
		t.Fatalf("a stopped job ran Finish: %v (closed %d)", sink2.lines(), sink2.closed)
	}
}

// TestRescaleKeyedState: a savepoint taken with the aggregate at
// parallelism 2 resumes at parallelism 3 and 1; every group's state moves
// to the subtask its key now hashes to, and the totals are exact.
func TestRescaleKeyedState(t *testing.T) {
	for _, newPar := range []int{3, 1} {
		dir := t.TempDir()
		sink := &memSink{}
		cfg := runtime.Config{Streaming: true, CheckpointDir: dir}
		job, err := runtime.Start(context.Background(), modGraphP(datagenSource(t, 5000, 20000), sink, 2), cfg)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		sp, err := job.Stop(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RestorePath = sp
		job2, err := runtime.Start(context.Background(), modGraphP(datagenSource(t, 5000, 0), sink, newPar), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := job2.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, want := materialize(sink.rows), expectedMod(5000); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("2 → %d:\n got %v\nwant %v", newPar, got, want)
		}
	}
	// A source's position cannot be redistributed.
	dir := t.TempDir()
	cfg := runtime.Config{Streaming: true, CheckpointDir: dir}
	job, _ := runtime.Start(context.Background(), modGraph(datagenSource(t, 1<<30, 1000), &memSink{}), cfg)
	sp, err := job.Stop(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	g := modGraph(datagenSource(t, 1<<30, 1000), &memSink{})
	g.Vertices[0].Parallelism, g.Vertices[1].Parallelism = 2, 2
	cfg.RestorePath = sp
	if _, err := runtime.Start(context.Background(), g, cfg); err == nil || !strings.Contains(err.Error(), "cannot be redistributed") {
		t.Fatalf("got %v", err)
	}
}

// TestRepeatedCrashes is metamorphic: the job is cancelled at random
// moments and restored from its latest checkpoint until it finishes; the
// materialized result never depends on where the crashes fell.
func TestRepeatedCrashes(t *testing.T) {
	const n = 20000
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	sink := &memSink{}
	crashes := 0
	for attempt := 0; ; attempt++ {
		cfg := runtime.Config{Streaming: true, CheckpointInterval: time.Duration(2+rng.Intn(10)) * time.Millisecond,
			CheckpointDir: dir, ChannelCapacity: 1 + rng.Intn(8)}
		latest, err := runtime.LatestCheckpoint(dir, "datagen-mod")
		if err != nil {
			t.Fatal(err)
		}
		cfg.RestorePath = latest
		job, err := runtime.Start(context.Background(), modGraphP(datagenSource(t, n, 50000), sink, 1+rng.Intn(3)), cfg)
		if err != nil {
			t.Fatalf("seed %d attempt %d: %v", seed, attempt, err)
		}
		if attempt < 6 {
			time.Sleep(time.Duration(20+rng.Intn(60)) * time.Millisecond)
			job.Cancel()
		}
		err = job.Wait(context.Background())
		if job.Status() == runtime.Finished {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("seed %d attempt %d: %v", seed, attempt, err)
		}
		crashes++
	}
	if got, want := materialize(sink.rows), expectedMod(n); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("seed %d, %d crashes:\n got %v\nwant %v", seed, crashes, got, want)
	}
	t.Logf("seed %d: %d crashes, %d changes delivered", seed, crashes, len(sink.rows))
}

// TestConcurrentStops: a second Stop while the first runs returns once the
// job ended, with an error; exactly one savepoint is written.
func TestConcurrentStops(t *testing.T) {
	dir := t.TempDir()
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1<<40, 100000), &memSink{}),
		runtime.Config{Streaming: true, CheckpointDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	type res struct {
		path string
		err  error
	}
	out := make(chan res, 2)
	for i := 0; i < 2; i++ {
		go func() {
			p, err := job.Stop(context.Background(), true)
			out <- res{p, err}
		}()
	}
	a, b := <-out, <-out
	if (a.err == nil) == (b.err == nil) {
		t.Fatalf("want exactly one successful stop: %+v %+v", a, b)
	}
	sps, _ := filepath.Glob(filepath.Join(dir, "datagen-mod", "savepoint-*"))
	if len(sps) != 1 || job.Status() != runtime.Finished {
		t.Fatalf("savepoints %v, status %s", sps, job.Status())
	}
}

// TestRocksDBBackendCrashRestoreRescale: the aggregate's state on the LSM
// backend (state.backend.type = rocksdb). The job is cancelled (a crash)
// after some checkpoints, whose chk-N directories hold the LSM's files;
// it is restored from the latest one at another parallelism (the keys are
// read back out of every old subtask's files) and the result is exact. The
// working stores are gone when the jobs end.
func TestRocksDBBackendCrashRestoreRescale(t *testing.T) {
	const n = 40000
	dir := t.TempDir()
	sink := &memSink{}
	cfg := runtime.Config{Streaming: true, CheckpointInterval: 15 * time.Millisecond, CheckpointDir: dir,
		StateBackend: "rocksdb"}
	job, err := runtime.Start(context.Background(), modGraphP(datagenSource(t, n, 40000), sink, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for job.Metrics().Checkpoints.Completed < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	job.Cancel()
	_ = job.Wait(context.Background())
	latest, err := runtime.LatestCheckpoint(dir, "datagen-mod")
	if err != nil || latest == "" {
		t.Fatalf("no checkpoint: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(latest, "lsm", "agg-*", "MANIFEST-*")); len(files) != 3 {
		t.Fatalf("checkpoint %s holds %d LSM stores, want 3", latest, len(files))
	}
	cfg.RestorePath = latest
	job2, err := runtime.Start(context.Background(), modGraphP(datagenSource(t, n, 0), sink, 2), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := job2.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := materialize(sink.rows), expectedMod(n); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after crash and restore from %s:\n got %v\nwant %v", latest, got, want)
	}
	if work, _ := filepath.Glob(filepath.Join(dir, "datagen-mod", "lsm-work", "*")); len(work) != 0 {
		t.Fatalf("working stores left behind: %v", work)
	}
}

// TestHashmapRefusesRocksDBCheckpoint: a checkpoint of the LSM backend
// holds files, not entries; restoring it with the hashmap backend fails
// instead of starting from empty state (Flink switches backends only
// through a savepoint), and a savepoint restores on either.
func TestHashmapRefusesRocksDBCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := runtime.Config{Streaming: true, CheckpointInterval: time.Hour, CheckpointDir: dir, StateBackend: "rocksdb"}
	sink := &memSink{}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1000, 5000), sink), cfg)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	sp, err := job.Stop(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	hm := runtime.Config{Streaming: true, CheckpointDir: dir, RestorePath: sp}
	job2, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1000, 0), sink), hm)
	if err != nil {
		t.Fatal(err)
	}
	if err := job2.Wait(context.Background()); err != nil {
		t.Fatalf("savepoint of rocksdb into hashmap: %v", err)
	}
	if got, want := materialize(sink.rows), expectedMod(1000); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after resume:\n got %v\nwant %v", got, want)
	}
	// A checkpoint (files) with the hashmap backend fails.
	dir = t.TempDir()
	job3, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1000, 2000), &memSink{}),
		runtime.Config{Streaming: true, CheckpointInterval: 10 * time.Millisecond, CheckpointDir: dir, StateBackend: "rocksdb"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for job3.Metrics().Checkpoints.Completed < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	job3.Cancel()
	_ = job3.Wait(context.Background())
	latest, _ := runtime.LatestCheckpoint(dir, "datagen-mod")
	hm.RestorePath, hm.CheckpointDir = latest, dir
	job4, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1000, 0), &memSink{}), hm)
	if err == nil {
		err = job4.Wait(context.Background())
	}
	if err == nil || !strings.Contains(err.Error(), "state.backend.type 'rocksdb'") {
		t.Fatalf("hashmap restoring an LSM checkpoint: %v", err)
	}
}

// noSnapshot fails when asked for its state.
type noSnapshot struct{ runtime.Base }

func (noSnapshot) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Adopt(rows)
	return nil
}
func (noSnapshot) Snapshot(int64) ([]byte, error) { return nil, fmt.Errorf("snapshot taken") }

// TestBoundedJobTakesNoOperatorSnapshot: a job that writes no checkpoints
// (no interval, no savepoint) still takes its final checkpoint so the
// sinks commit, but operator state, which nothing will restore, is not
// serialized (it was 42% of the CPU of a batch MAX query, issue 24).
func TestBoundedJobTakesNoOperatorSnapshot(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		g := runtime.NewGraph("bounded")
		s := g.AddSource("src", "Source: datagen", datagenSource(t, 100, 0), 1)
		o := g.AddOperator("op", "Op", func(int, int) (runtime.Operator, error) { return noSnapshot{}, nil }, 1)
		sink := &memSink{}
		k := g.AddSink("sink", "Sink: out", sink, 1)
		g.Connect(s, o, runtime.Partitioning{Kind: runtime.Forward})
		g.Connect(o, k, runtime.Partitioning{Kind: runtime.Forward})
		job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: streaming, CheckpointDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Wait(context.Background()); err != nil {
			t.Fatalf("streaming=%v: %v", streaming, err)
		}
		if len(sink.rows) != 100 || len(sink.commits) == 0 {
			t.Fatalf("streaming=%v: %d rows, commits %v", streaming, len(sink.rows), sink.commits)
		}
	}
}

// TestRestoreRefusesChangedAggregate: a savepoint restored into a job whose
// GroupAggregate now computes another aggregate fails, naming the
// checkpoint and the aggregate (Flink: StateMigrationException), instead
// of reading SUM's accumulators as AVG's.
func TestRestoreRefusesChangedAggregate(t *testing.T) {
	dir := t.TempDir()
	cfg := runtime.Config{Streaming: true, CheckpointDir: dir}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, 1<<30, 1000), &memSink{}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := job.Stop(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	g := modGraph(datagenSource(t, 1<<30, 1000), &memSink{})
	for _, v := range g.Vertices {
		if v.UID == "agg" {
			v.Operator = operators.GroupAggregate(operators.AggregateSpec{GroupKeys: []int{0},
				Aggs: []operators.AggSpec{{Kind: operators.Avg, Arg: 1}, {Kind: operators.CountStar}}})
		}
	}
	cfg.RestorePath = sp
	job2, err := runtime.Start(context.Background(), g, cfg)
	if err == nil {
		err = job2.Wait(context.Background())
	}
	if err == nil || !strings.Contains(err.Error(), "restore from checkpoint "+sp) ||
		!strings.Contains(err.Error(), "aggregate 1 was SUM, is now AVG($1)") {
		t.Fatalf("got %v", err)
	}
}
