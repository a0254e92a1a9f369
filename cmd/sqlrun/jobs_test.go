package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// scanPlanner plans "INSERT INTO sink SELECT * FROM src" with the real
// connector factories and runtime, so the -f job lifecycle (wait, signal,
// savepoint, --resume) is tested independently of the planner's
// progress. Everything else goes to the real planner adapter.
type scanPlanner struct{ exec.PlanPlanner }

func (scanPlanner) CompileInsert(_ context.Context, env exec.Env, stmt ast.Statement, name string) (*runtime.Graph, error) {
	in := stmt.(*ast.Insert)
	sel := in.Query.(*ast.Select)
	srcID, srcT, err := env.LookupTable(sel.From.(*ast.TableRef).Name)
	if err != nil {
		return nil, err
	}
	sinkID, sinkT, err := env.LookupTable(in.Table)
	if err != nil {
		return nil, err
	}
	sf, err := connectors.Lookup(srcT.Options["connector"])
	if err != nil {
		return nil, err
	}
	src, err := sf.(connectors.SourceFactory).CreateSource(&connectors.Context{Table: srcID, Schema: srcT.Schema,
		Options: srcT.Options, Config: env.Config(), Streaming: true})
	if err != nil {
		return nil, err
	}
	kf, err := connectors.Lookup(sinkT.Options["connector"])
	if err != nil {
		return nil, err
	}
	sink, err := kf.(connectors.SinkFactory).CreateSink(&connectors.Context{Table: sinkID, Schema: sinkT.Schema,
		Options: sinkT.Options, Config: env.Config(), Streaming: true})
	if err != nil {
		return nil, err
	}
	g := runtime.NewGraph(name)
	a := g.AddSource("source", "Source: "+srcID.String(), src, 1)
	b := g.AddSink("sink", "Sink: "+sinkID.String(), sink, 1)
	g.Connect(a, b, runtime.Partitioning{Kind: runtime.Forward})
	return g, nil
}

const streamingJob = `
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT * FROM src;
`

// runUntilSignal runs sqlrun -f in-process and sends it SIGTERM once the
// job is submitted; it returns the exit code and output.
func runUntilSignal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut syncBuffer
	done := make(chan int)
	go func() { done <- run(args, strings.NewReader(""), &out, &errOut) }()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(out.String(), "Job ID: ") {
		if time.Now().After(deadline) {
			t.Fatalf("job not submitted:\n%s\n%s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // let a few checkpoints complete
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		return code, out.String(), errOut.String()
	case <-time.After(30 * time.Second):
		t.Fatalf("sqlrun did not stop after SIGTERM:\n%s", out.String())
	}
	return 0, "", ""
}

// SIGTERM stops the script's jobs with a savepoint and exits 0; --resume
// then restores the job from that savepoint (found by the job's name).
func TestScriptSignalStopsWithSavepointAndResumes(t *testing.T) {
	orig := planner
	planner = func() exec.Planner { return scanPlanner{} }
	defer func() { planner = orig }()
	t.Setenv("HOME", t.TempDir())
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	f := writeScript(t, streamingJob)

	code, out, errOut := runUntilSignal(t, "-f", f)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s:\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "[INFO] SQL update statement has been successfully submitted to the cluster:\nJob ID: ") ||
		!strings.Contains(out, "[INFO] Waiting for 1 running job(s). Ctrl-C or SIGTERM stops them with a savepoint.\n") ||
		!strings.Contains(out, "[INFO] Stopping 1 running job(s) gracefully...") ||
		!strings.Contains(out, "(insert-into_default_catalog.default_database.sink) stopped with savepoint: ") {
		t.Fatalf("output:\n%s", out)
	}
	jobDir := filepath.Join(data, "sqlrun", "checkpoints", "insert-into_default_catalog.default_database.sink")
	saved, err := runtime.LatestCheckpoint(filepath.Join(data, "sqlrun", "checkpoints"), "insert-into_default_catalog.default_database.sink")
	if err != nil || saved == "" || !strings.HasPrefix(saved, jobDir) {
		t.Fatalf("no savepoint under %s: %q %v", jobDir, saved, err)
	}

	// --resume restores the same job name from its latest savepoint.
	code, out, errOut = runUntilSignal(t, "--resume", "-f", f)
	if code != 0 {
		t.Fatalf("resume: exit %d, stderr %s:\n%s", code, errOut, out)
	}
	cp, err := runtime.ReadCheckpoint(saved)
	if err != nil {
		t.Fatal(err)
	}
	// It says what it restored (issue 23 finding 7, issue 25 finding 3).
	if want := fmt.Sprintf("[INFO] --resume: job 'insert-into_default_catalog.default_database.sink' restores savepoint %d from %s\n", cp.ID, saved); !strings.Contains(out, want) {
		t.Errorf("resume output lacks %q:\n%s", want, out)
	}
	latest, err := runtime.LatestCheckpoint(filepath.Join(data, "sqlrun", "checkpoints"), "insert-into_default_catalog.default_database.sink")
	if err != nil {
		t.Fatal(err)
	}
	next, err := runtime.ReadCheckpoint(latest)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID <= cp.ID {
		t.Errorf("resumed job did not continue from checkpoint %d (latest %d)", cp.ID, next.ID)
	}
}

// --resume of a job with nothing to resume refuses to start it from
// scratch (which re-reads the sources and, for an append sink, writes
// their rows twice — issue 25 finding 3): exit 1 naming the job and
// where it looked, nothing submitted. --allow-fresh starts it, saying so.
func TestResumeWithoutCheckpointRefuses(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	f := writeScript(t, `CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
SET 'table.dml-sync' = 'true';
INSERT INTO sink SELECT * FROM src;
`)
	var o, e bytes.Buffer
	code := run([]string{"--resume", "-f", f}, strings.NewReader(""), &o, &e)
	where := filepath.Join(data, "sqlrun", "checkpoints", "insert-into_default_catalog.default_database.sink")
	if code != 1 || !strings.Contains(o.String(), "--resume: job 'insert-into_default_catalog.default_database.sink' has no completed checkpoint or savepoint under "+where) ||
		strings.Contains(o.String(), exec.MsgSubmitting) || !strings.Contains(e.String(), f+":4:") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, e.String(), o.String())
	}
	o.Reset()
	e.Reset()
	code = run([]string{"--resume", "--allow-fresh", "-f", f}, strings.NewReader(""), &o, &e)
	if code != 0 || !strings.Contains(o.String(), "[INFO] --resume: job 'insert-into_default_catalog.default_database.sink' has no checkpoint or savepoint under "+where+"; starting from scratch (--allow-fresh).") {
		t.Fatalf("--allow-fresh: exit %d, stderr %q:\n%s", code, e.String(), o.String())
	}
	if code, _, errOut := runCLI(t, "--allow-fresh", "-f", f); code != 2 || !strings.Contains(errOut, "--allow-fresh only makes sense with --resume") {
		t.Fatalf("--allow-fresh alone: exit %d, %q", code, errOut)
	}
}

// A job failing after submission fails the script: exit 1.
func TestScriptJobFailure(t *testing.T) {
	orig := planner
	planner = func() exec.Planner { return scanPlanner{} }
	defer func() { planner = orig }()
	dir := t.TempDir()
	f := writeScript(t, fmt.Sprintf(`
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');
INSERT INTO sink SELECT * FROM src;
`, filepath.Join(dir, "file-not-dir")))
	if err := os.WriteFile(filepath.Join(dir, "file-not-dir"), []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "-f", f)
	// The failure names the statement's line and the job (issue 23
	// finding 7: it named no line).
	if code != 1 || !regexp.MustCompile(regexp.QuoteMeta(f)+`:4: job failed: .+ \(job [0-9a-f]{32}, insert-into_default_catalog\.default_database\.sink\)\n`).MatchString(errOut) {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a poller.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// QUIT in a script stops its running jobs with a savepoint, as Ctrl-C and
// SIGTERM do (issue 23 finding 7: QUIT took none), so --resume continues.
func TestQuitTakesSavepoint(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	f := writeScript(t, streamingJob+"QUIT;\n")
	var o, e bytes.Buffer
	code := run([]string{"-f", f}, strings.NewReader(""), &o, &e)
	if code != 0 || !strings.Contains(o.String(), "(insert-into_default_catalog.default_database.sink) stopped with savepoint: ") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, e.String(), o.String())
	}
	saved, err := runtime.LatestCheckpoint(filepath.Join(data, "sqlrun", "checkpoints"), "insert-into_default_catalog.default_database.sink")
	if err != nil || !strings.Contains(filepath.Base(saved), "savepoint-") {
		t.Fatalf("no savepoint: %q %v", saved, err)
	}
}
