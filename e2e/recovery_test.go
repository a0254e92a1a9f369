package e2e

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// aggJob is issue 4's recovery job: a datagen sequence 1..n → GroupAggregate
// (COUNT, SUM per id % 10, emitting -U/+U) → the filesystem sink in
// debezium-json, whose part files become visible only when a checkpoint
// completes (exactly-once). rate paces the source so a kill lands mid-run.
func aggJob(out string, n, rate int) string { return aggJobKeys(out, n, rate, 10) }

// aggJobKeys is aggJob grouping by id % keys.
func aggJobKeys(out string, n, rate, keys int) string {
	return fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE gen (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '%d',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d');
CREATE TABLE totals (k BIGINT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');
INSERT INTO totals SELECT id %% %d, COUNT(*), SUM(id) FROM gen GROUP BY id %% %d;
`, rate, n, out, keys, keys)
}

const aggJobName = "insert-into_default_catalog.default_database.totals"

// sortedLines is the multiset of changelog lines the sink committed.
func sortedLines(t testing.TB, dir string) []string {
	t.Helper()
	l := dirLines(t, dir)
	sort.Strings(l)
	return l
}

// uninterruptedAgg runs the job once, fast, to completion: the reference.
func uninterruptedAgg(t *testing.T, n int) []string { return uninterruptedAggKeys(t, n, 10) }

func uninterruptedAggKeys(t *testing.T, n, keys int) []string {
	t.Helper()
	e := newEnv(t)
	out := filepath.Join(e.Dir, "out")
	r := e.runScript("job.sql", aggJobKeys(out, n, 1_000_000, keys), 5*time.Minute)
	if r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", r.code, r.all())
	}
	ref := sortedLines(t, out)
	// Each id after the first per key retracts the old total and adds
	// the new one; the sink writes -U as "d" and +U as "c".
	if want := keys + 2*(n-keys); len(ref) != want {
		t.Fatalf("uninterrupted run wrote %d changelog lines, want %d", len(ref), want)
	}
	return ref
}

// checkFinalTotals folds the changelog to the final row per key, checking
// that every key ends with count n/keys.
func checkFinalTotals(t *testing.T, lines []string, n, keys int) {
	t.Helper()
	final := map[int]string{}
	for _, l := range lines {
		var k, c, s int
		if _, err := fmt.Sscanf(l, `{"before":null,"after":{"k":%d,"c":%d,"s":%d},"op":"c"}`, &k, &c, &s); err == nil && c == n/keys {
			final[k] = l
		}
	}
	if len(final) != keys {
		t.Fatalf("final totals for %d keys, want %d", len(final), keys)
	}
}

func diffLines(want, got []string) string {
	w := map[string]int{}
	for _, l := range want {
		w[l]++
	}
	for _, l := range got {
		w[l]--
	}
	var b strings.Builder
	n := 0
	for l, c := range w {
		if c != 0 && n < 10 {
			fmt.Fprintf(&b, "  %+d × %s\n", -c, l)
			n++
		}
	}
	return fmt.Sprintf("want %d lines, got %d; first differences (count in got minus want):\n%s", len(want), len(got), b.String())
}

// TestKillResumeAggregate: issue 4's recovery test. The job is killed with
// SIGKILL (a real kill -9 of the process) after a completed checkpoint and
// restarted with `sqlrun -f job.sql --resume`; the committed changelog must
// equal an uninterrupted run's exactly — nothing lost, nothing duplicated.
func TestKillResumeAggregate(t *testing.T) { killResumeAggregate(t, "") }

// TestKillResumeAggregateRocksDB: the same with the aggregate's state on
// the LSM backend (state.backend.type = rocksdb), whose checkpoints hold
// the store's files (chk-N/lsm/); the reference run uses the hashmap
// backend, so the two backends also agree.
func TestKillResumeAggregateRocksDB(t *testing.T) {
	killResumeAggregate(t, "SET 'state.backend.type' = 'rocksdb';\n")
}

// TestKillResumeAggregateRocksDBHighRate: the same on the LSM backend with
// rows flowing fast into 20,000 keys (beyond the state's write-back cache)
// while checkpoints are taken every 200 ms: each checkpoint's files are
// written while the subtask goes on writing state, and what a restore
// reads must be the state at the barrier, nothing later.
func TestKillResumeAggregateRocksDBHighRate(t *testing.T) {
	killResumeAggregateN(t, "SET 'state.backend.type' = 'rocksdb';\n", 100_000, 20_000, 20_000, true)
}

func killResumeAggregate(t *testing.T, setBackend string) {
	killResumeAggregateN(t, setBackend, 1500, 500, 10, false)
}

// killResumeAggregateN kills the job of n rows (rate per second, keys
// groups) three times; with progress each run is killed only after it
// committed more output than the last (checkpoints completed while rows
// were flowing), else the resumed runs die at random points.
func killResumeAggregateN(t *testing.T, setBackend string, n, rate, keys int, progress bool) {
	ref := uninterruptedAggKeys(t, n, keys)
	checkFinalTotals(t, ref, n, keys)

	e := newEnv(t)
	out := filepath.Join(e.Dir, "out")
	script := e.Write("job.sql", setBackend+aggJobKeys(out, n, rate, keys))
	p := e.start("-f", script)
	p.waitFor("a completed checkpoint and committed output", 30*time.Second, func() bool {
		return len(completedCheckpoints(e.checkpointDir(), aggJobName)) >= 1 && len(dirLines(t, out)) > 0
	})

	time.Sleep(300 * time.Millisecond) // land between checkpoints
	p.signal(syscall.SIGKILL)
	if code := p.wait(10 * time.Second); code != -1 {
		t.Fatalf("kill -9: exit code %d, want death by signal", code)
	}
	if setBackend != "" {
		for _, md := range completedCheckpoints(e.checkpointDir(), aggJobName) {
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(md), "lsm", "*", "MANIFEST-*")); len(m) == 0 {
				t.Fatalf("checkpoint %s holds no LSM store", filepath.Dir(md))
			}
		}
	}
	before := len(dirLines(t, out))
	if before >= len(ref) {
		t.Fatalf("the job finished before the kill (%d lines); slow the source", before)
	}
	t.Logf("killed with %d of %d changelog lines committed", before, len(ref))

	// Two more kills of the resumed job at random points (possibly before
	// its first checkpoint), then a resumed run to the end.
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for i := 0; i < 2; i++ {
		committed := len(dirLines(t, out))
		q := e.start("-f", script, "--resume", "--allow-fresh")
		if progress {
			q.waitFor("more committed output", 30*time.Second, func() bool { return len(dirLines(t, out)) > committed })
		}
		d := time.Duration(200+rng.Intn(800)) * time.Millisecond
		time.Sleep(d)
		q.signal(syscall.SIGKILL)
		code := q.wait(10 * time.Second)
		t.Logf("kill -9 of the resumed job after %s: exit %d, %d lines committed", d, code, len(dirLines(t, out)))
	}
	r := e.run(time.Minute, "-f", script, "--resume")
	if r.code != 0 {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.all())
	}
	got := sortedLines(t, out)
	if strings.Join(got, "\n") != strings.Join(ref, "\n") {
		t.Fatalf("after kill -9 and --resume the output differs from an uninterrupted run: %s", diffLines(ref, got))
	}
}

// TestGracefulStopResumeAggregate: SIGTERM stops the job gracefully (final
// savepoint, sinks commit, exit 0); `--resume` continues from the
// savepoint and the output equals an uninterrupted run's.
func TestGracefulStopResumeAggregate(t *testing.T) {
	const n = 1500
	ref := uninterruptedAgg(t, n)

	e := newEnv(t)
	out := filepath.Join(e.Dir, "out")
	script := e.Write("job.sql", aggJob(out, n, 500))
	p := e.start("-f", script)
	p.waitFor("a completed checkpoint", 30*time.Second, func() bool {
		return len(completedCheckpoints(e.checkpointDir(), aggJobName)) >= 1
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d, want 0 (graceful stop)\n%s", code, p.output())
	}
	stopped := len(dirLines(t, out))
	if stopped >= len(ref) {
		t.Fatalf("the job finished before SIGTERM (%d lines); slow the source", stopped)
	}
	sp, _ := filepath.Glob(filepath.Join(e.checkpointDir(), aggJobName, "savepoint-*", "_metadata"))
	if len(sp) == 0 {
		ents, _ := os.ReadDir(filepath.Join(e.checkpointDir(), aggJobName))
		t.Errorf("no savepoint after SIGTERM; checkpoint dir holds %v", ents)
	}
	t.Logf("stopped with %d of %d changelog lines committed", stopped, len(ref))

	r := e.run(time.Minute, "-f", script, "--resume")
	if r.code != 0 {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.all())
	}
	got := sortedLines(t, out)
	if strings.Join(got, "\n") != strings.Join(ref, "\n") {
		t.Fatalf("after SIGTERM and --resume the output differs from an uninterrupted run: %s", diffLines(ref, got))
	}
}
