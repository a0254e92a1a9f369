package badinput

import (
	"bytes"
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/sqlrunbin"
)

// TestUnboundedInputs runs the inputs of issue 25, finding 8 through the
// binary: each ends with an answer or a clear error, never a Go stack
// overflow, an out-of-memory kill or a hang (run fails the test on a
// crash dump or no exit within its timeout).
func TestUnboundedInputs(t *testing.T) {
	e := newEnv(t)
	const batch = "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"
	cases := []struct {
		name, stmt string
		code       int
		want       string
	}{
		{"ROUND with a huge scale", "SELECT ROUND(1.5, 2147483647), ROUND(CAST(2.5 AS DOUBLE), -2147483647);", 0, "| 1.5 | 0.0 |"},
		{"1M nested +", "SELECT 1" + strings.Repeat("+1", 1_000_000) + ";", 1, "The expression is nested more than 2000 levels deep"},
		{"1M nested NOT", "SELECT " + strings.Repeat("NOT ", 1_000_000) + "TRUE;", 1, "The expression is nested more than 2000 levels deep"},
		{"10k UNIONs", strings.Repeat("SELECT 1 UNION ALL ", 10_000) + "SELECT 1;", 1, "The statement has 10000 set operations"},
		{"100k-term CONCAT", "SELECT CHAR_LENGTH(CONCAT(" + strings.Repeat("'a', ", 99_999) + "'a'));", 0, "100000"},
		{"100k parentheses", "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000) + ";", 1, "Parentheses are nested more than 2000 levels deep"},
	}
	for _, c := range cases {
		e.Write("job.sql", batch+c.stmt+"\n")
		r := e.run(2*time.Minute, "-f", "job.sql")
		out := r.stdout + r.stderr
		if r.code != c.code || !strings.Contains(strings.Join(strings.Fields(out), " "), c.want) {
			if len(out) > 3000 {
				out = out[len(out)-3000:]
			}
			t.Errorf("%s: exit %d, want %d and output containing %q\n...%s", c.name, r.code, c.code, c.want, out)
		}
	}
}

// TestSigtermEndsLongQuery: SIGTERM while a batch query evaluates a very
// long input ends the process promptly (the evaluation loop watches the
// cancellation between batches).
func TestSigtermEndsLongQuery(t *testing.T) {
	e := newEnv(t)
	e.Write("job.sql", `SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';
CREATE TEMPORARY TABLE g (id BIGINT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000000000');
SELECT COUNT(*), MAX(CONCAT(v, v, v)), SUM(ROUND(id, 2)) FROM g;
`)
	p, err := sqlrunbin.Start(e.Command(context.Background(), "-f", "job.sql"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.KillAndWait)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.Output(), "SUM(ROUND(id, 2)) FROM g;") {
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("the query did not start:\n%s", p.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := p.Wait(30 * time.Second); timedOut || err != nil {
		t.Fatalf("no exit within 30 s of SIGTERM (err %v):\n%s", err, p.Output())
	}
}

// TestSecondSigtermForcesExit: when a graceful stop cannot finish — here
// a print sink blocked writing to a stdout pipe nobody reads — a second
// SIGTERM ends the process at once with status 1 and says so on stderr
// (before, every later SIGTERM was ignored).
func TestSecondSigtermForcesExit(t *testing.T) {
	e := newEnv(t)
	e.Write("job.sql", `CREATE TEMPORARY TABLE g (id BIGINT, v STRING) WITH ('connector' = 'datagen');
CREATE TEMPORARY TABLE p (id BIGINT, v STRING) WITH ('connector' = 'print');
INSERT INTO p SELECT * FROM g;
`)
	cmd := e.Command(context.Background(), "-f", "job.sql")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}()
	// Wait until a thread of sqlrun sleeps in pipe_write: the pipe is full,
	// the print sink is blocked, and with it the job's stop.
	deadline := time.Now().Add(time.Minute)
	for !blockedInPipeWrite(t, cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("sqlrun never blocked writing its stdout\nstderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Further SIGTERMs a little more than a second apart: however late the
	// first one was received, a later one counts as a second request.
	exited := false
	for deadline := time.Now().Add(30 * time.Second); !exited && time.Now().Before(deadline); {
		select {
		case err = <-done:
			exited = true
		case <-time.After(sameSignalWindow):
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	if !exited {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		done <- nil
		t.Fatalf("no exit within 30 s of repeated SIGTERMs\nstderr:\n%s", stderr.String())
	}
	done <- err
	var ee *osexec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit %v, want status 1", err)
	}
	if !strings.Contains(stderr.String(), "sqlrun: second signal: exiting now, without a final savepoint") {
		t.Errorf("stderr does not say why:\n%s", stderr.String())
	}
}

// sameSignalWindow is a little more than cmd/sqlrun's sameSignal.
const sameSignalWindow = 1200 * time.Millisecond

// blockedInPipeWrite reports whether a thread of pid sleeps in the
// kernel's pipe_write (anon_pipe_write on newer kernels; Linux
// /proc/<pid>/task/<tid>/wchan).
func blockedInPipeWrite(t *testing.T, pid int) bool {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Skipf("no /proc task list: %v", err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/wchan")
		if err == nil && strings.HasSuffix(strings.TrimSpace(string(b)), "pipe_write") {
			return true
		}
	}
	return false
}
