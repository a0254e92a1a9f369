// Package e2e runs the real sqlrun binary the way a user does — `sqlrun -f
// script`, `sqlrun -e`, `sqlrun explain`, kill -9, SIGTERM, `--resume` —
// and checks what it prints and what it leaves behind (files, Paimon
// tables, MariaDB rows). The binary is built once per test binary in
// TestMain; every run gets its own HOME, so checkpoints (under
// $XDG_DATA_HOME/sqlrun/checkpoints) never leak between tests or into the
// developer's home.
package e2e

import (
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

	"github.com/sqlrun/sqlrun/internal/testutil/sqlrunbin"
)

// sqlrunBin is the binary built by TestMain.
var sqlrunBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	bin, cleanup, err := sqlrunbin.Build("sqlrun-e2e-bin-")
	defer cleanup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	sqlrunBin = bin
	code := m.Run()
	closeMariaDB()
	return code
}

// env is one user's world (see sqlrunbin.Env): a temp HOME, a work dir
// $DIR, and the substitutions scripts may use ($JDBC_URL/$USER/$PASSWORD
// when MariaDB is up).
type env struct {
	*sqlrunbin.Env
	seq int // numbers generated files
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{Env: sqlrunbin.NewEnv(t, sqlrunBin)}
}

// checkpointDir is where sqlrun puts checkpoints by default for this env.
func (e *env) checkpointDir() string {
	return filepath.Join(e.Home, ".local", "share", "sqlrun", "checkpoints")
}

// result is what one finished run printed.
type result struct {
	stdout, stderr string
	code           int
}

// all is stdout then stderr, the order a user reading a terminal would
// mostly see them in (goldens keep them apart to stay deterministic).
func (r result) all() string { return r.stdout + r.stderr }

// run runs sqlrun to completion with a timeout and returns what it printed.
func (e *env) run(timeout time.Duration, args ...string) result {
	e.T.Helper()
	rr := e.Run(timeout, args...)
	r := result{stdout: rr.Stdout, stderr: rr.Stderr, code: rr.Code}
	if rr.TimedOut {
		e.T.Fatalf("sqlrun %s: no exit within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), timeout, r.stdout, r.stderr)
	}
	assertNoSecret(e.T, r.all())
	return r
}

// runScript writes script (expanded) to a file and runs `sqlrun -f` on it.
func (e *env) runScript(name, script string, timeout time.Duration, extra ...string) result {
	e.T.Helper()
	p := e.Write(name, script)
	return e.run(timeout, append([]string{"-f", p}, extra...)...)
}

// secrets are strings no sqlrun output may ever contain.
var (
	secretsMu sync.Mutex
	secrets   []string
)

func addSecret(s string) {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	secrets = append(secrets, s)
}

// assertNoSecret greps every byte sqlrun printed for every known password.
func assertNoSecret(t testing.TB, out string) {
	t.Helper()
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("sqlrun printed a password (%d bytes of output)", len(out))
		}
	}
}

// proc is sqlrun running in the background, for crash and fault tests.
type proc struct {
	*sqlrunbin.Proc
	e *env
}

// start launches sqlrun in the background; the test's cleanup kills it if
// the test did not wait for it.
func (e *env) start(args ...string) *proc {
	e.T.Helper()
	sp, err := sqlrunbin.Start(e.Command(context.Background(), args...))
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(sp.KillAndWait)
	return &proc{Proc: sp, e: e}
}

// output is everything printed so far.
func (p *proc) output() string { return p.Output() }

func (p *proc) exited() bool { return p.Exited() }

// waitFor polls cond until it holds; it fails the test on timeout or when
// the process exits first.
func (p *proc) waitFor(what string, timeout time.Duration, cond func() bool) {
	p.e.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if p.exited() {
			if cond() {
				return
			}
			p.e.T.Fatalf("sqlrun exited (%v) before %s; output:\n%s", p.Err(), what, p.output())
		}
		if time.Now().After(deadline) {
			p.e.T.Fatalf("timed out after %s waiting for %s; output:\n%s", timeout, what, p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitLine waits until the output contains s.
func (p *proc) waitLine(s string, timeout time.Duration) {
	p.e.T.Helper()
	p.waitFor(fmt.Sprintf("output %q", s), timeout, func() bool { return strings.Contains(p.output(), s) })
}

// waitRunning waits until `sqlrun -f` reports its jobs running (its
// signal handler is long installed by then: a SIGTERM in the first
// milliseconds of a process would meet the default action).
func (p *proc) waitRunning(timeout time.Duration) {
	p.e.T.Helper()
	p.waitLine("[INFO] Waiting for ", timeout)
}

// signal sends sig to sqlrun itself (a real kill -9 / kill -TERM of the
// process, not a context cancellation).
func (p *proc) signal(sig syscall.Signal) {
	p.e.T.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil && !p.exited() {
		p.e.T.Fatalf("signal %v: %v", sig, err)
	}
}

// wait waits for the exit and returns the exit code (-1 when killed by a
// signal).
func (p *proc) wait(timeout time.Duration) int {
	p.e.T.Helper()
	code, timedOut, err := p.Wait(timeout)
	if timedOut {
		p.e.T.Fatalf("sqlrun did not exit within %s; output:\n%s", timeout, p.output())
	}
	assertNoSecret(p.e.T, p.output())
	if err != nil {
		p.e.T.Fatalf("sqlrun: %v", err)
	}
	return code
}

// completedCheckpoints lists the job's completed checkpoints (chk-N dirs
// holding _metadata, the file the runtime writes last).
func completedCheckpoints(dir, job string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, job, "chk-*", "_metadata"))
	return m
}

var (
	reSeconds  = regexp.MustCompile(`\(\d+\.\d+ seconds\)`)
	reSavepath = regexp.MustCompile(`savepoint-[0-9a-f]{6}-[0-9a-f]{12}`)
)

// normalize makes output stable across runs: temp paths, $VARS and job
// ids (sqlrunbin), then durations and savepoint names.
func (e *env) normalize(s string) string {
	s = e.Normalize(s)
	s = reSeconds.ReplaceAllString(s, "(<t> seconds)")
	s = reSavepath.ReplaceAllString(s, "savepoint-<id>")
	return s
}
