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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/internal/testutil/sqlrunbin"
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
	bin, cleanup, err := sqlrunbin.Build("sqlrun-badinput-bin-")
	defer cleanup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "badinput:", err)
		return 1
	}
	sqlrunBin = bin
	code := m.Run()
	maria.Close()
	return code
}

// env is one corpus file's world (see sqlrunbin.Env): a private HOME
// (checkpoints land under it) and a work dir $DIR where scripts run and
// tables live.
type env struct{ *sqlrunbin.Env }

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{sqlrunbin.NewEnv(t, sqlrunBin)}
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
	e.T.Helper()
	return e.runAllowHang(timeout, false, args...)
}

// runAllowHang is run; with allowHang a run still going at the deadline is
// killed and reported in the result instead of failing the test, so a
// golden can record that a bad option leaves a job running forever.
func (e *env) runAllowHang(timeout time.Duration, allowHang bool, args ...string) result {
	e.T.Helper()
	rr := e.Run(timeout, args...)
	r := result{stdout: rr.Stdout, stderr: rr.Stderr, code: rr.Code}
	if rr.TimedOut && allowHang {
		r.timedOut = true
		assertNoCrash(e.T, strings.Join(args, " "), r.stdout+r.stderr)
		return r
	}
	if rr.TimedOut {
		e.T.Fatalf("sqlrun %s: no exit within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), timeout, r.stdout, r.stderr)
	}
	assertNoCrash(e.T, strings.Join(args, " "), r.stdout+r.stderr)
	if srv := maria.Started(); srv != nil && strings.Contains(r.stdout+r.stderr, srv.Password) {
		e.T.Errorf("sqlrun %s printed the MariaDB password", strings.Join(args, " "))
	}
	for _, pw := range e.passwords() {
		if strings.Contains(r.stdout+r.stderr, pw) {
			e.T.Errorf("sqlrun %s printed a password of its script", strings.Join(args, " "))
		}
	}
	return r
}

var rePassword = regexp.MustCompile(`'password'\s*=\s*'([^']+)'`)

// passwords returns every 'password' option value in the work dir's .sql
// files (as sqlrun reads them, $VARS expanded), so no run may echo one.
func (e *env) passwords() []string {
	files, _ := filepath.Glob(filepath.Join(e.Dir, "*.sql"))
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
	reSeconds = regexp.MustCompile(`\([0-9.]+ seconds\)`)
	rePort    = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	reChk     = regexp.MustCompile(`chk-[0-9]+`)
	reChkNum  = regexp.MustCompile(`checkpoint [0-9]+`)
	// The bytes a corrupted file ends with depend on how the writer laid
	// the file out (compression, page sizes), not on the error's quality.
	reMagic = regexp.MustCompile(`(invalid magic (?:footer|header)[^:]*: )"(?:[^"\\]|\\.)*"`)
)

// normalize makes output stable across runs: temp paths, $VARS and job
// ids (sqlrunbin), then uuids in file names, timings, loopback ports and
// checkpoint numbers.
func (e *env) normalize(s string) string {
	s = e.Normalize(s)
	s = reUUID.ReplaceAllString(s, "<uuid>")
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

// maria is the MariaDB server shared by the test binary (each file gets
// its own database), closed by TestMain.
var maria sqlrunbin.SharedMariaDB

func needMariaDB(t testing.TB) *mariadb.Server { return maria.Need(t) }
