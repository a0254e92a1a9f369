// Package sqlrunbin is the harness the black-box test packages (e2e,
// badinput) share to run the real sqlrun binary as a user does: built once
// per test binary, run with a private HOME and a timeout in its own process
// group, its output made stable for goldens. What differs between the
// packages (which crashes or secrets to look for, extra normalisations,
// how a hang is judged) stays with them.
package sqlrunbin

import (
	"bytes"
	"context"
	"errors"
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

// Build compiles cmd/sqlrun into a fresh temp directory whose name starts
// with prefix. It is meant for TestMain (which has no *testing.T), so it
// returns an error; cleanup removes the directory and is never nil.
func Build(prefix string) (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", func() {}, fmt.Errorf("temp dir: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	bin = filepath.Join(dir, "sqlrun")
	build := exec.Command("go", "build", "-o", bin, "github.com/sqlrun/sqlrun/cmd/sqlrun")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", cleanup, fmt.Errorf("building sqlrun: %w", err)
	}
	return bin, cleanup, nil
}

// Env is one user's world: a temp HOME (so the default checkpoint dir,
// $XDG_DATA_HOME/sqlrun/checkpoints, is private), a work dir where
// scripts run and data lives, and the $VARS scripts may use ($DIR always).
type Env struct {
	T    testing.TB
	Bin  string // the sqlrun binary
	Home string
	Dir  string
	Vars map[string]string
}

// NewEnv makes the HOME and work dirs under t.TempDir().
func NewEnv(t testing.TB, bin string) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{T: t, Bin: bin, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "work"), Vars: map[string]string{}}
	for _, d := range []string{e.Home, e.Dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.Vars["$DIR"] = e.Dir
	return e
}

// Expand replaces the env's $VARS in s, longest names first so $DIR does
// not eat $DIRX.
func (e *Env) Expand(s string) string {
	keys := make([]string, 0, len(e.Vars))
	for k := range e.Vars {
		keys = append(keys, k)
	}
	sort.SliceStable(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, e.Vars[k])
	}
	return s
}

// Write puts content ($VARS expanded) at $DIR/name and returns its path.
func (e *Env) Write(name, content string) string {
	e.T.Helper()
	p := filepath.Join(e.Dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(e.Expand(content)), 0o644); err != nil {
		e.T.Fatal(err)
	}
	return p
}

// Command is sqlrun in the work dir with the env's HOME, in its own
// process group; when ctx ends the whole group is killed, not just the
// binary.
func (e *Env) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Dir = e.Dir
	cmd.Env = append(os.Environ(), HomeEnv(e.Home)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// HomeEnv is the environment that gives sqlrun home as its HOME and XDG
// directories, a dumb terminal and UTC as the machine's time zone (what
// 'table.local-time-zone' = 'default' reads), so that no result depends
// on the zone of the machine the tests run on.
func HomeEnv(home string) []string {
	return []string{
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"TERM=dumb",
		"TZ=UTC",
	}
}

// Result is what one finished (or killed) run printed.
type Result struct {
	Stdout, Stderr string
	Code           int
	// TimedOut is set when sqlrun was still running at the deadline and
	// its process group was killed; callers decide whether that fails.
	TimedOut bool
}

// Run runs sqlrun to completion or timeout. It fails the test only when
// the binary cannot be run at all; a non-zero exit is in Code.
func (e *Env) Run(timeout time.Duration, args ...string) Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := e.Command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	if ctx.Err() != nil {
		r.TimedOut = true
		return r
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			e.T.Fatalf("sqlrun %s: %v", strings.Join(args, " "), err)
		}
		r.Code = ee.ExitCode()
	}
	return r
}

var (
	reJobID = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
)

// Normalize makes output stable across runs: the work dir and HOME become
// $DIR and $HOME, every other $VAR's value becomes its name (longest values
// first, so $JDBC_URL wins over the $DB inside it), and job ids become
// <job-id>. $USER is left alone: the test user is "sqlrun", and replacing
// it would also rename the program in "sqlrun: job.sql:3: ...".
// Packages add their own rules (timings, uuids, ports) on top.
func (e *Env) Normalize(s string) string {
	s = strings.ReplaceAll(s, e.Dir, "$DIR")
	s = strings.ReplaceAll(s, e.Home, "$HOME")
	type kv struct{ k, v string }
	var subs []kv
	for k, v := range e.Vars {
		if k != "$DIR" && k != "$USER" && v != "" {
			subs = append(subs, kv{k, v})
		}
	}
	sort.Slice(subs, func(i, j int) bool { return len(subs[i].v) > len(subs[j].v) })
	for _, x := range subs {
		s = strings.ReplaceAll(s, x.v, x.k)
	}
	return reJobID.ReplaceAllString(s, "<job-id>")
}

// Proc is sqlrun running in the background, for crash and fault tests;
// stdout and stderr are interleaved into one buffer.
type Proc struct {
	Cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	err  error
}

type procWriter struct{ p *Proc }

func (w procWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// Start starts cmd (which must run in its own process group, as Command's
// do) with its output captured.
func Start(cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = procWriter{p}, procWriter{p}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sqlrun: %w", err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Output is everything printed so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Exited says whether the process has exited and been waited for.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill is kill -9 of the process group (sqlrun and anything it started).
func (p *Proc) Kill() { _ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL) }

// KillAndWait kills the group unless it has exited, and waits for it.
func (p *Proc) KillAndWait() {
	if !p.Exited() {
		p.Kill()
	}
	<-p.done
}

// Wait waits up to timeout for the exit. On timeout the group is killed
// and timedOut is true. err is the Wait error when it is not an exit
// status (code is then -1); a signal death gives code -1 and no error.
func (p *Proc) Wait(timeout time.Duration) (code int, timedOut bool, err error) {
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.Kill()
		<-p.done
		return -1, true, nil
	}
	if p.err == nil {
		return 0, false, nil
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), false, nil
	}
	return -1, false, p.err
}

// Err is the process's Wait error once it has exited.
func (p *Proc) Err() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}
