package badinput

import (
	"context"
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
