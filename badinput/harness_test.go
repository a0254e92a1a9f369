// Package badinput runs the bad-input corpus in testdata/badinput: malformed
// statements, wrong option values, wrong types, missing files, corrupt Paimon
// metadata and data files, unreachable or mismatched MySQL tables. Each case
// runs the real sqlrun binary as a user would (or, for table-level checks,
// the Paimon table package directly) and its golden is the error a user
// sees. Every run is also checked for a Go panic or goroutine dump in its
// output: a bad input must never crash sqlrun.
//
// Regenerate the goldens with
//
//	go test ./badinput -run TestCorpus -rewrite
package badinput

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

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// sqlrunBin is the binary built once by TestMain.
var sqlrunBin string

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.fuzz") {
			return m.Run() // fuzzing runs FuzzSession only: no binary needed
		}
	}
	dir, err := os.MkdirTemp("", "sqlrun-badinput-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "badinput: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	sqlrunBin = filepath.Join(dir, "sqlrun")
	build := exec.Command("go", "build", "-o", sqlrunBin, "github.com/sqlrun/sqlrun/cmd/sqlrun")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "badinput: building sqlrun:", err)
		return 1
	}
	code := m.Run()
	if mariaSrv != nil {
		_ = mariaSrv.Close()
	}
	return code
}

// env is one corpus file's world: a private HOME (checkpoints land under
// it) and a work dir $DIR where scripts run and tables live.
type env struct {
	t    testing.TB
	home string
	dir  string
	vars map[string]string
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

// expand replaces $VARS in s, longest names first.
func (e *env) expand(s string) string {
	keys := make([]string, 0, len(e.vars))
	for k := range e.vars {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, e.vars[k])
	}
	return s
}

// write puts content (expanded) at $DIR/name.
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

type result struct {
	stdout, stderr string
	code           int
	// timedOut is set when sqlrun was still running at the deadline and
	// was killed (only when the caller allowed it; else the test fails).
	timedOut bool
}

// run runs sqlrun in $DIR to completion and fails the test on a hang, a
// panic, a goroutine dump or a printed password.
func (e *env) run(timeout time.Duration, args ...string) result {
	e.t.Helper()
	return e.runAllowHang(timeout, false, args...)
}

// runAllowHang is run; with allowHang a run still going at the deadline is
// killed and reported in the result instead of failing the test, so a
// golden can record that a bad option leaves a job running forever.
func (e *env) runAllowHang(timeout time.Duration, allowHang bool, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, sqlrunBin, args...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(),
		"HOME="+e.home,
		"XDG_DATA_HOME="+filepath.Join(e.home, ".local", "share"),
		"XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"),
		"TERM=dumb",
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ctx.Err() != nil && allowHang {
		r.timedOut = true
		assertNoCrash(e.t, strings.Join(args, " "), r.stdout+r.stderr)
		return r
	}
	if ctx.Err() != nil {
		e.t.Fatalf("sqlrun %s: no exit within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), timeout, r.stdout, r.stderr)
	}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			e.t.Fatalf("sqlrun %s: %v", strings.Join(args, " "), err)
		}
		r.code = ee.ExitCode()
	}
	assertNoCrash(e.t, strings.Join(args, " "), r.stdout+r.stderr)
	if mariaSrv != nil && strings.Contains(r.stdout+r.stderr, mariaSrv.Password) {
		e.t.Errorf("sqlrun %s printed the MariaDB password", strings.Join(args, " "))
	}
	for _, pw := range e.passwords() {
		if strings.Contains(r.stdout+r.stderr, pw) {
			e.t.Errorf("sqlrun %s printed a password of its script", strings.Join(args, " "))
		}
	}
	return r
}

var rePassword = regexp.MustCompile(`'password'\s*=\s*'([^']+)'`)

// passwords returns every 'password' option value in the work dir's .sql
// files (as sqlrun reads them, $VARS expanded), so no run may echo one.
func (e *env) passwords() []string {
	files, _ := filepath.Glob(filepath.Join(e.dir, "*.sql"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, m := range rePassword.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// crashSigns are what a crash looks like in sqlrun's output: a Go panic
// or goroutine dump, and the messages of the recover()s that keep a bug
// from taking the shell down (parser, planner, compiler, task, job).
var crashSigns = []string{"panic:", "goroutine ", "fatal error:", "runtime error:",
	"SQL parse failed. internal error", "internal planner error", "internal error translating the plan", "panicked"}

// assertNoCrash fails on anything that looks like a crash, recovered or not.
func assertNoCrash(t testing.TB, what, out string) {
	t.Helper()
	for _, sig := range crashSigns {
		if strings.Contains(out, sig) {
			t.Errorf("%s: output contains %q (a crash):\n%s", what, sig, out)
			return
		}
	}
}

var (
	reUUID    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reJobID   = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	reSeconds = regexp.MustCompile(`\([0-9.]+ seconds\)`)
	rePort    = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	reChk     = regexp.MustCompile(`chk-[0-9]+`)
	reChkNum  = regexp.MustCompile(`checkpoint [0-9]+`)
	// The bytes a corrupted file ends with depend on how the writer laid
	// the file out (compression, page sizes), not on the error's quality.
	reMagic = regexp.MustCompile(`(invalid magic (?:footer|header)[^:]*: )"(?:[^"\\]|\\.)*"`)
)

// normalize makes output stable across runs: temp paths, uuids in file
// names, job ids, timings, loopback ports and checkpoint numbers.
func (e *env) normalize(s string) string {
	s = strings.ReplaceAll(s, e.dir, "$DIR")
	s = strings.ReplaceAll(s, e.home, "$HOME")
	type kv struct{ k, v string }
	var subs []kv
	for k, v := range e.vars {
		// $USER is "sqlrun", which would also rename the program in
		// "sqlrun: job.sql:3: ..."; the user name is no secret.
		if k != "$DIR" && k != "$USER" && v != "" {
			subs = append(subs, kv{k, v})
		}
	}
	sort.Slice(subs, func(i, j int) bool { return len(subs[i].v) > len(subs[j].v) })
	for _, x := range subs {
		s = strings.ReplaceAll(s, x.v, x.k)
	}
	s = reUUID.ReplaceAllString(s, "<uuid>")
	s = reJobID.ReplaceAllString(s, "<job-id>")
	s = reSeconds.ReplaceAllString(s, "(<t> seconds)")
	s = rePort.ReplaceAllString(s, "127.0.0.1:<port>")
	s = reChk.ReplaceAllString(s, "chk-<n>")
	s = reChkNum.ReplaceAllString(s, "checkpoint <n>")
	s = reMagic.ReplaceAllString(s, "${1}<bytes>")
	return s
}

// show renders a run for a golden. The echo of each statement and the
// routine "[INFO] Execute statement succeeded." lines are dropped so the
// golden shows what went wrong; stderr and a non-zero exit follow.
func (e *env) show(r result) string {
	var b strings.Builder
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "sqlrun> ") || strings.HasPrefix(l, "      > ") ||
			l == "[INFO] Execute statement succeeded." || l == "[INFO] Executing SQL from file." ||
			strings.TrimSpace(l) == "" {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	out := e.normalize(b.String())
	if r.stderr != "" {
		stderr := r.stderr
		// The usage text after a flag error belongs to cmd/sqlrun's own
		// goldens; here only the first line (what was wrong) matters.
		if i := strings.Index(stderr, "\nUsage:\n"); i >= 0 {
			stderr = stderr[:i+1] + "<usage>\n"
		}
		out += "-- stderr:\n" + e.normalize(stderr)
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
	}
	if r.timedOut {
		return out + "-- still running at the deadline (killed)\n"
	}
	out += fmt.Sprintf("-- exit %d\n", r.code)
	return out
}

// The MariaDB server is shared by the test binary (each file gets its own
// database) and closed by TestMain.
var (
	mariaOnce sync.Once
	mariaSrv  *mariadb.Server
	mariaErr  error
)

func needMariaDB(t testing.TB) *mariadb.Server {
	t.Helper()
	mariaOnce.Do(func() { mariaSrv, mariaErr = mariadb.StartServer() })
	if mariaErr != nil {
		t.Skipf("no MariaDB server can be had (install mariadb-server or set SQLRUN_MYSQL_DSN): %v", mariaErr)
	}
	return mariaSrv
}
