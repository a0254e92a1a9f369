package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// jdbcJob streams a changelog with inserts, updates and deletes into
// MariaDB: a datagen sequence 1..n, counted and summed per id % 40, kept
// only while the count is not a multiple of 4 (HAVING), so keys disappear
// (-D by key in MariaDB) and come back (+I) as the counts grow.
func jdbcJob(srv *mariadb.Server, db string, n, rate int, checkpoint string, extra string) string {
	return fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '%s';
CREATE TABLE gen (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '%d',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d');
CREATE TABLE mysql_totals (k BIGINT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%s', 'table-name' = 'totals',
  'username' = '%s', 'password' = '%s',
  'sink.buffer-flush.max-rows' = '20', 'sink.buffer-flush.interval' = '100ms'%s);
INSERT INTO mysql_totals SELECT id %% 40, COUNT(*), SUM(id) FROM gen GROUP BY id %% 40 HAVING COUNT(*) %% 4 <> 0;
`, checkpoint, rate, n, srv.JDBCURL(db), srv.User, srv.Password, extra)
}

const jdbcJobName = "insert-into_default_catalog.default_database.mysql_totals"

// expectedTotals is the source's final state: the job's query evaluated in Go.
func expectedTotals(n int) string {
	c, s := map[int]int{}, map[int]int{}
	for id := 1; id <= n; id++ {
		c[id%40]++
		s[id%40] += id
	}
	var keys []int
	for k := range c {
		if c[k]%4 != 0 {
			keys = append(keys, k)
		}
	}
	sort.Ints(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%d, %d, %d\n", k, c[k], s[k])
	}
	return b.String()
}

func createTotals(t *testing.T, srv *mariadb.Server) string {
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.totals (k BIGINT NOT NULL PRIMARY KEY, c BIGINT, s BIGINT) ENGINE = InnoDB")
	return db
}

func rowCount(t testing.TB, srv *mariadb.Server, db string) int {
	r := srv.Query(t, "SELECT COUNT(*) FROM `"+db+"`.totals")
	n, _ := strconv.Atoi(r[0][0])
	return n
}

// TestJDBCKillAfterFlushResume: issue 8's recovery. Flushes run every 100 ms
// while checkpoints complete every 1.5 s, so a kill -9 right after rows
// reached MariaDB lands after a flush and before the next checkpoint
// completes; `--resume` replays from the last completed checkpoint (upserts
// and deletes by key converge) and MariaDB ends identical to the source.
func TestJDBCKillAfterFlushResume(t *testing.T) {
	srv := needMariaDB(t)
	db := createTotals(t, srv)
	const n = 2400
	e := newEnv(t)
	script := e.Write("job.sql", jdbcJob(srv, db, n, 600, "1500ms", ""))

	p := e.start("-f", script)
	var flushedAtCheckpoint int64
	p.waitFor("a completed checkpoint", 30*time.Second, func() bool {
		return len(completedCheckpoints(e.checkpointDir(), jdbcJobName)) >= 1
	})
	chk := len(completedCheckpoints(e.checkpointDir(), jdbcJobName))
	flushedAtCheckpoint = srv.Status(t, "Com_insert")["Com_insert"]
	// Wait for flushes after the checkpoint, then kill before the next one.
	p.waitFor("a flush after the checkpoint", 10*time.Second, func() bool {
		return srv.Status(t, "Com_insert")["Com_insert"] > flushedAtCheckpoint+2
	})
	if len(completedCheckpoints(e.checkpointDir(), jdbcJobName)) != chk {
		t.Log("a checkpoint completed meanwhile; the kill still lands after flushes it does not cover")
	}
	p.signal(syscall.SIGKILL)
	if code := p.wait(10 * time.Second); code != -1 {
		t.Fatalf("kill -9: exit code %d", code)
	}
	if got := srv.Table(t, db, "totals"); got == expectedTotals(n) {
		t.Fatal("the job finished before the kill; slow the source")
	}
	t.Logf("killed with %d rows in MariaDB after %d completed checkpoints", rowCount(t, srv, db), chk)

	r := e.run(time.Minute, "-f", script, "--resume")
	if r.code != 0 {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.all())
	}
	if got, want := srv.Table(t, db, "totals"), expectedTotals(n); got != want {
		t.Fatalf("MariaDB after kill -9 and --resume:\n%s\nwant the source's final state:\n%s", got, want)
	}
	assertNoSecretInFiles(t, e, script)
}

// assertNoSecretInFiles greps everything sqlrun left on disk (checkpoints,
// savepoints, logs under HOME and the work dir) for the password; only the
// user's own script may hold it.
func assertNoSecretInFiles(t *testing.T, e *env, except ...string) {
	t.Helper()
	skip := map[string]bool{}
	for _, p := range except {
		skip[p] = true
	}
	n := 0
	for _, root := range []string{e.Home, e.Dir} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || skip[p] {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			n++
			secretsMu.Lock()
			defer secretsMu.Unlock()
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s holds a password", p)
				}
			}
			return nil
		})
	}
	if n == 0 {
		t.Error("no files checked for passwords")
	}
}

// TestJDBCServerDownMidJob: MariaDB is stopped for a few seconds while the
// job runs; the sink retries and reconnects, and no row is lost. The outage
// is the stop, 2 s, and a restart that takes seconds more on a loaded
// machine: sink.max-retries = 15 gives a back-off budget of 0+1+...+14 =
// 105 s (JdbcOutputFormat's 1 s * attempt), so only a lost row or a sink
// that never reconnects fails this test, not a slow restart (5 retries,
// 10 s, failed under a load average of 40).
func TestJDBCServerDownMidJob(t *testing.T) {
	srv := needMariaDB(t)
	if srv.External() {
		t.Skip("cannot stop an external server (SQLRUN_MYSQL_DSN)")
	}
	db := createTotals(t, srv)
	const n = 2400
	e := newEnv(t)
	script := e.Write("job.sql", jdbcJob(srv, db, n, 600, "500ms", ", 'sink.max-retries' = '15'"))
	p := e.start("-f", script)
	p.waitFor("rows in MariaDB", 30*time.Second, func() bool { return rowCount(t, srv, db) > 0 })
	if p.exited() {
		t.Fatal("the job ended before MariaDB was stopped; slow the source")
	}
	srv.Restart(t, 2*time.Second)
	if p.exited() {
		t.Fatalf("the job ended while MariaDB was down:\n%s", p.output())
	}
	if code := p.wait(4 * time.Minute); code != 0 {
		t.Fatalf("job with MariaDB down for 2s: exit %d\n%s", code, p.output())
	}
	if got, want := srv.Table(t, db, "totals"), expectedTotals(n); got != want {
		t.Fatalf("MariaDB after an outage:\n%s\nwant:\n%s", got, want)
	}
}

// TestJDBCGracefulStopResume: SIGTERM stops the job with a final savepoint
// (the sink flushes before it completes); --resume continues from it and
// MariaDB ends equal to the source — nothing lost, and replays (if any)
// converge because upserts and deletes are by key.
func TestJDBCGracefulStopResume(t *testing.T) {
	srv := needMariaDB(t)
	db := createTotals(t, srv)
	const n = 1600
	e := newEnv(t)
	script := e.Write("job.sql", jdbcJob(srv, db, n, 600, "300ms", ""))
	p := e.start("-f", script)
	p.waitFor("rows in MariaDB", 30*time.Second, func() bool { return rowCount(t, srv, db) > 0 })
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, p.output())
	}
	if got := srv.Table(t, db, "totals"); got == expectedTotals(n) {
		t.Fatal("the job finished before SIGTERM; slow the source")
	}
	r := e.run(time.Minute, "-f", script, "--resume")
	if r.code != 0 {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.all())
	}
	if got, want := srv.Table(t, db, "totals"), expectedTotals(n); got != want {
		t.Fatalf("MariaDB after SIGTERM and --resume:\n%s\nwant:\n%s", got, want)
	}
}
