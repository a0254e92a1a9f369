package badinput

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/sqlrunbin"
)

// TestTempDirsRemoved runs the binary with a private TMPDIR and checks that
// no sqlrun-paimon-* scratch directory (a lookup-producer writer's local
// index) outlives the run, however the run ends (issue 25, finding 9):
// SIGTERM, two SIGTERMs (a forced exit), a failing job, and kill -9 — whose
// leftovers, which no process can remove itself, the next run removes.
// A directory of a process that is still alive is kept.
func TestTempDirsRemoved(t *testing.T) {
	e := newEnv(t)
	tmp := filepath.Join(e.Dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	// A scratch directory of a live process (this test) is not stale.
	live := filepath.Join(tmp, "sqlrun-paimon-"+strconv.Itoa(os.Getpid())+"-live")
	if err := os.MkdirAll(live, 0o755); err != nil {
		t.Fatal(err)
	}
	const setup = "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');\nUSE CATALOG lake;\n"
	e.Write("create.sql", setup+`CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'lookup');
`)
	if r := e.run(time.Minute, "-f", "create.sql"); r.code != 0 {
		t.Fatalf("create: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	job := func(fail bool) string {
		expr := "id % 100"
		if fail {
			expr = "id % 100 + 10 / (id - 5000)" // fails after 5 s, many checkpoints in
		}
		return setup + `SET 'execution.checkpointing.interval' = '100ms';
CREATE TEMPORARY TABLE g (id BIGINT, v STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
INSERT INTO t SELECT ` + expr + `, v FROM g;
`
	}
	start := func(script string) *sqlrunbin.Proc {
		t.Helper()
		e.Write("job.sql", script)
		cmd := e.Command(context.Background(), "-f", "job.sql")
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		p, err := sqlrunbin.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.KillAndWait)
		return p
	}
	scratch := func() []string {
		ents, _ := os.ReadDir(tmp)
		var out []string
		for _, d := range ents {
			if p := filepath.Join(tmp, d.Name()); strings.HasPrefix(d.Name(), "sqlrun-paimon-") && p != live {
				out = append(out, d.Name())
			}
		}
		return out
	}
	// waitScratch waits until the job's writer has made its directory.
	waitScratch := func(p *sqlrunbin.Proc) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for len(scratch()) == 0 {
			if p.Exited() || time.Now().After(deadline) {
				t.Fatalf("no scratch directory appeared in %s\n%s", tmp, p.Output())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	signal := func(p *sqlrunbin.Proc, sig syscall.Signal) {
		if err := p.Cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, p *sqlrunbin.Proc, wantCode int) {
		t.Helper()
		code, timedOut, err := p.Wait(time.Minute)
		if timedOut || err != nil {
			t.Fatalf("%s: no exit within a minute (err %v)\n%s", what, err, p.Output())
		}
		if wantCode >= 0 && code != wantCode {
			t.Errorf("%s: exit %d, want %d\n%s", what, code, wantCode, p.Output())
		}
		if left := scratch(); len(left) > 0 {
			t.Errorf("%s: scratch directories left in TMPDIR: %v\n%s", what, left, p.Output())
		}
	}

	p := start(job(false))
	waitScratch(p)
	signal(p, syscall.SIGTERM)
	check("SIGTERM", p, 0)

	p = start(job(false))
	waitScratch(p)
	// Two SIGTERMs at once (GNU timeout signals the child and then its
	// process group) are one request: a graceful stop.
	signal(p, syscall.SIGTERM)
	signal(p, syscall.SIGTERM)
	check("two SIGTERMs at once", p, 0)
	if !strings.Contains(p.Output(), "stopped with savepoint") {
		t.Errorf("two SIGTERMs at once: no graceful stop\n%s", p.Output())
	}

	p = start(job(true))
	waitScratch(p)
	check("a failing job", p, 1)

	p = start(job(false))
	waitScratch(p)
	p.Kill()
	p.Wait(time.Minute)
	if len(scratch()) == 0 {
		t.Fatal("kill -9 left no scratch directory: the test no longer shows what it should")
	}
	p = start(setup + "SET 'table.dml-sync' = 'true';\n")
	check("the run after kill -9", p, 0)

	if _, err := os.Stat(live); err != nil {
		t.Errorf("the scratch directory of a live process was removed: %v", err)
	}
}
