package runtime_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// The recovery tests run the job in a child process: the test binary
// re-executed with childEnv naming the work directory. The child resumes
// from the latest checkpoint of its job when there is one (what
// `sqlrun --resume` does), and stops with a savepoint on SIGTERM.
const childEnv = "SQLRUN_RUNTIME_RECOVERY_CHILD"

const recoveryRows = 30000

// sinkEnv selects the child's sink: the append log (default) or the
// filesystem connector writing debezium-json part files.
const sinkEnv = "SQLRUN_RUNTIME_RECOVERY_SINK"

var modSchema = sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.BigInt()}, {Name: "total", Type: sql.BigInt()},
	{Name: "cnt", Type: sql.BigInt()}}}

// debeziumTable is a filesystem table (debezium-json) over dir; it
// returns the factory's sink or source depending on how it is used.
func debeziumTable(t testing.TB, dir string) any {
	f, err := connectors.Lookup("filesystem")
	if err != nil {
		panic(err)
	}
	ctx := &connectors.Context{Schema: modSchema, Options: map[string]string{"path": dir, "format": "debezium-json"}}
	if t == nil {
		s, err := f.(connectors.SinkFactory).CreateSink(ctx)
		if err != nil {
			panic(err)
		}
		return s
	}
	s, err := f.(connectors.SourceFactory).CreateSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(runChild(dir))
	}
	os.Exit(m.Run())
}

// fileSink appends every row to a log file as it arrives (at-least-once:
// rows after the restored checkpoint are written again after a crash; the
// materialized view by key is idempotent).
type fileSink struct{ path string }

func (s fileSink) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (s fileSink) Parallelism() int                                             { return 0 }
func (s fileSink) NewWriter(int, int) (connectors.SinkWriter, error) {
	return &fileWriter{path: s.path}, nil
}

type fileWriter struct {
	path string
	f    *os.File
}

func (w *fileWriter) Open(context.Context, []byte) error {
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	w.f = f
	return err
}
func (w *fileWriter) Write(_ context.Context, rows []sql.Row) error {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(sql.FormatRow(r, nil))
		b.WriteByte('\n')
	}
	_, err := w.f.WriteString(b.String())
	return err
}
func (w *fileWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (w *fileWriter) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (w *fileWriter) Close(context.Context) error                             { return w.f.Close() }

func runChild(dir string) int {
	cfg := runtime.Config{Streaming: true, CheckpointInterval: 50 * time.Millisecond,
		CheckpointDir: filepath.Join(dir, "chk"), NumRetained: 1}
	latest, err := runtime.LatestCheckpoint(cfg.CheckpointDir, "datagen-mod")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.RestorePath = latest
	var sink connectors.TableSink = fileSink{filepath.Join(dir, "out.log")}
	if os.Getenv(sinkEnv) == "filesystem" {
		sink = debeziumTable(nil, filepath.Join(dir, "table")).(connectors.TableSink)
	}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(nil, recoveryRows, 10000), sink), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-sig
		if _, err := job.Stop(context.Background(), true); err != nil {
			fmt.Fprintln(os.Stderr, "stop:", err)
		}
	}()
	if err := job.Wait(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "job failed:", err)
		return 1
	}
	return 0
}

func startChild(t *testing.T, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+dir), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitForCheckpoint polls until a completed checkpoint with id >= n exists.
func waitForCheckpoint(t *testing.T, dir string, n int64) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if p, _ := runtime.LatestCheckpoint(filepath.Join(dir, "chk"), "datagen-mod"); p != "" {
			if id, err := strconv.ParseInt(strings.TrimPrefix(filepath.Base(p), "chk-"), 10, 64); err == nil && id >= n {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no checkpoint %d within 20s", n)
}

func readLog(t *testing.T, path string) ([]sql.Row, []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []sql.Row
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		lines = append(lines, l)
		k, _ := sql.ParseRowKind(l[:2])
		var vals []any
		for _, f := range strings.Split(strings.TrimSuffix(l[3:], "]"), ", ") {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("bad line %q", l)
			}
			vals = append(vals, n)
		}
		rows = append(rows, sql.Row{Kind: k, Values: vals})
	}
	return rows, lines
}

func TestRecoveryAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	cmd := startChild(t, dir)
	waitForCheckpoint(t, dir, 3)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	before, _ := readLog(t, filepath.Join(dir, "out.log"))
	if len(materialize(before)) == 0 {
		t.Fatal("the killed run wrote nothing")
	}
	cmd = startChild(t, dir)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	rows, _ := readLog(t, filepath.Join(dir, "out.log"))
	got, want := strings.Join(materialize(rows), " "), strings.Join(expectedMod(recoveryRows), " ")
	if got != want {
		t.Fatalf("after SIGKILL and resume:\n got %s\nwant %s", got, want)
	}
	t.Logf("killed after %d changes; %d changes in total (replays included)", len(before), len(rows))
}

func TestGracefulStopAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	cmd := startChild(t, dir)
	waitForCheckpoint(t, dir, 2)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("graceful stop must exit 0: %v", err)
	}
	sps, _ := filepath.Glob(filepath.Join(dir, "chk", "datagen-mod", "savepoint-*"))
	if len(sps) != 1 {
		t.Fatalf("savepoints: %v", sps)
	}
	_, first := readLog(t, filepath.Join(dir, "out.log"))
	cmd = startChild(t, dir)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	_, lines := readLog(t, filepath.Join(dir, "out.log"))
	// An uninterrupted run's log, in process.
	ref := &memSink{}
	job, err := runtime.Start(context.Background(), modGraph(datagenSource(t, recoveryRows, 0), ref), runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Nothing lost, nothing duplicated: the same changes per group, in the
	// same order (groups interleave differently across the two subtasks).
	perGroup := func(ls []string) map[string][]string {
		m := map[string][]string{}
		for _, l := range ls {
			k := l[3:strings.Index(l, ",")]
			m[k] = append(m[k], l)
		}
		return m
	}
	g, w := perGroup(lines), perGroup(ref.lines())
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("stop+resume log differs from an uninterrupted run's (%d vs %d lines, %d before the stop)",
			len(lines), len(ref.lines()), len(first))
	}
	t.Logf("stopped after %d of %d changes", len(first), len(lines))
}

// TestExactlyOnceFilesystemSinkAfterSIGKILL: the same job writing
// debezium-json part files through the filesystem connector. Part files
// are committed only when their checkpoint completes and a restore discards
// the uncommitted ones, so after SIGKILL and resume the committed changelog
// is exactly an uninterrupted run's: nothing lost, nothing duplicated.
func TestExactlyOnceFilesystemSinkAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	cmd := startChild(t, dir, sinkEnv+"=filesystem")
	waitForCheckpoint(t, dir, 3)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	cmd = startChild(t, dir, sinkEnv+"=filesystem")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	// Read the committed files back with the filesystem source.
	c := runtime.NewCollect(16)
	g := runtime.NewGraph("read-back")
	s := g.AddSource("src", "Source: table", debeziumTable(t, filepath.Join(dir, "table")).(connectors.TableSource), 1)
	k := g.AddSink("collect", "Collect", c, 1)
	g.Connect(s, k, runtime.Partitioning{Kind: runtime.Forward})
	job, err := runtime.Start(context.Background(), g, runtime.Config{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rows, err := c.Next(context.Background(), job)
		if err != nil {
			break
		}
		for _, r := range rows {
			got = append(got, sql.FormatRow(r, nil))
		}
	}
	if err := job.Err(); err != nil {
		t.Fatal(err)
	}
	// An uninterrupted run, written as debezium-json would be: -U as -D,
	// +U as +I.
	ref := &memSink{}
	rj, _ := runtime.Start(context.Background(), modGraph(datagenSource(t, recoveryRows, 0), ref), runtime.Config{Streaming: true})
	if err := rj.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range ref.rows {
		k := sql.Insert
		if r.Kind.IsRetract() {
			k = sql.Delete
		}
		want = append(want, sql.FormatRow(sql.Row{Kind: k, Values: r.Values}, nil))
	}
	perGroup := func(ls []string) map[string][]string {
		m := map[string][]string{}
		for _, l := range ls {
			key := l[3:strings.Index(l, ",")]
			m[key] = append(m[key], l)
		}
		return m
	}
	if g, w := perGroup(got), perGroup(want); fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("committed changelog differs from an uninterrupted run's: %d vs %d rows", len(got), len(want))
	}
	t.Logf("%d changes committed exactly once", len(got))
}
