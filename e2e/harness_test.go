// Package e2e runs the real sqlrun binary the way a user does — `sqlrun -f
// script`, `sqlrun -e`, `sqlrun explain`, kill -9, SIGTERM, `--resume` —
// and checks what it prints and what it leaves behind (files, Paimon
// tables, MariaDB rows). The binary is built once per test binary in
// TestMain; every run gets its own HOME, so checkpoints (under
// $XDG_DATA_HOME/sqlrun/checkpoints) never leak between tests or into the
// developer's home.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sqlrunBin is the binary built by TestMain.
var sqlrunBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sqlrun-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	sqlrunBin = filepath.Join(dir, "sqlrun")
	build := exec.Command("go", "build", "-o", sqlrunBin, "github.com/sqlrun/sqlrun/cmd/sqlrun")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building sqlrun:", err)
		return 1
	}
	code := m.Run()
	closeMariaDB()
	return code
}

// env is one user's world: a temp HOME (so the default checkpoint dir is
// private), a work dir for scripts and data, and the substitutions scripts
// may use ($DIR, and $JDBC_URL/$USER/$PASSWORD when MariaDB is up).
type env struct {
	t    testing.TB
	home string
	dir  string
	vars map[string]string
	seq  int // numbers generated files
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, home: filepath.Join(root, "home"), dir: filepath.Join(root, "work"), vars: map[string]string{}}
	for _, d := range []string{e.home, e.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.vars["$DIR"] = e.dir
	return e
}

// checkpointDir is where sqlrun puts checkpoints by default for this env.
func (e *env) checkpointDir() string {
	return filepath.Join(e.home, ".local", "share", "sqlrun", "checkpoints")
}

// expand replaces the env's $VARS in s (longest names first, so $DIR does
// not eat $DIRX).
func (e *env) expand(s string) string {
	keys := make([]string, 0, len(e.vars))
	for k := range e.vars {
		keys = append(keys, k)
	}
	// longest first
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if len(keys[j]) > len(keys[i]) {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, e.vars[k])
	}
	return s
}

// write puts content (expanded) into the work dir and returns its path.
func (e *env) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(e.expand(content)), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, sqlrunBin, args...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(),
		"HOME="+e.home,
		"XDG_DATA_HOME="+filepath.Join(e.home, ".local", "share"),
		"XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"),
		"TERM=dumb",
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On a timeout kill the whole process group, not just the binary.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
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
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := e.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ctx.Err() != nil {
		e.t.Fatalf("sqlrun %s: no exit within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), timeout, r.stdout, r.stderr)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else {
			e.t.Fatalf("sqlrun %s: %v", strings.Join(args, " "), err)
		}
	}
	assertNoSecret(e.t, r.all())
	return r
}

// runScript writes script (expanded) to a file and runs `sqlrun -f` on it.
func (e *env) runScript(name, script string, timeout time.Duration, extra ...string) result {
	e.t.Helper()
	p := e.write(name, script)
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
	e    *env
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer // stdout and stderr interleaved
	done chan struct{}
	err  error
}

type lockedWriter struct{ p *proc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// start launches sqlrun in the background; the test's cleanup kills it if
// the test did not wait for it.
func (e *env) start(args ...string) *proc {
	e.t.Helper()
	p := &proc{e: e, done: make(chan struct{})}
	p.cmd = e.command(context.Background(), args...)
	p.cmd.Stdout, p.cmd.Stderr = lockedWriter{p}, lockedWriter{p}
	if err := p.cmd.Start(); err != nil {
		e.t.Fatalf("start sqlrun: %v", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	e.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	})
	return p
}

// output is everything printed so far.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitFor polls cond until it holds; it fails the test on timeout or when
// the process exits first.
func (p *proc) waitFor(what string, timeout time.Duration, cond func() bool) {
	p.e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if p.exited() {
			if cond() {
				return
			}
			p.e.t.Fatalf("sqlrun exited (%v) before %s; output:\n%s", p.err, what, p.output())
		}
		if time.Now().After(deadline) {
			p.e.t.Fatalf("timed out after %s waiting for %s; output:\n%s", timeout, what, p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitLine waits until the output contains s.
func (p *proc) waitLine(s string, timeout time.Duration) {
	p.e.t.Helper()
	p.waitFor(fmt.Sprintf("output %q", s), timeout, func() bool { return strings.Contains(p.output(), s) })
}

// waitRunning waits until `sqlrun -f` reports its jobs running (its
// signal handler is long installed by then: a SIGTERM in the first
// milliseconds of a process would meet the default action).
func (p *proc) waitRunning(timeout time.Duration) {
	p.e.t.Helper()
	p.waitLine("[INFO] Waiting for ", timeout)
}

// signal sends sig to sqlrun itself (a real kill -9 / kill -TERM of the
// process, not a context cancellation).
func (p *proc) signal(sig syscall.Signal) {
	p.e.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil && !p.exited() {
		p.e.t.Fatalf("signal %v: %v", sig, err)
	}
}

// wait waits for the exit and returns the exit code (-1 when killed by a
// signal).
func (p *proc) wait(timeout time.Duration) int {
	p.e.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		p.e.t.Fatalf("sqlrun did not exit within %s; output:\n%s", timeout, p.output())
	}
	assertNoSecret(p.e.t, p.output())
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	p.e.t.Fatalf("sqlrun: %v", p.err)
	return -2
}

// completedCheckpoints lists the job's completed checkpoints (chk-N dirs
// holding _metadata, the file the runtime writes last).
func completedCheckpoints(dir, job string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, job, "chk-*", "_metadata"))
	return m
}

var (
	reJobID    = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	reSeconds  = regexp.MustCompile(`\(\d+\.\d+ seconds\)`)
	reSavepath = regexp.MustCompile(`savepoint-[0-9a-f]{6}-[0-9a-f]{12}`)
)

// noNormalize lists vars whose values are stable and too common to
// replace in output (the test user is "sqlrun", like the prompt).
var noNormalize = map[string]bool{"$USER": true}

// normalize makes output stable across runs: temp paths, job ids,
// durations and savepoint names.
func (e *env) normalize(s string) string {
	s = strings.ReplaceAll(s, e.dir, "$DIR")
	s = strings.ReplaceAll(s, e.home, "$HOME")
	// Longest values first, so $JDBC_URL wins over the $DB inside it.
	type kv struct{ k, v string }
	var subs []kv
	for k, v := range e.vars {
		if k != "$DIR" && v != "" && !noNormalize[k] {
			subs = append(subs, kv{k, v})
		}
	}
	sort.Slice(subs, func(i, j int) bool { return len(subs[i].v) > len(subs[j].v) })
	for _, x := range subs {
		s = strings.ReplaceAll(s, x.v, x.k)
	}
	s = reJobID.ReplaceAllString(s, "<job-id>")
	s = reSeconds.ReplaceAllString(s, "(<t> seconds)")
	s = reSavepath.ReplaceAllString(s, "savepoint-<id>")
	return s
}
