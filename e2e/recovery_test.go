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
func aggJob(out string, n, rate int) string {
	return fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '200ms';
CREATE TABLE gen (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '%d',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d');
CREATE TABLE totals (k BIGINT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');
INSERT INTO totals SELECT id %% 10, COUNT(*), SUM(id) FROM gen GROUP BY id %% 10;
`, rate, n, out)
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
func uninterruptedAgg(t *testing.T, n int) []string {
	t.Helper()
	e := newEnv(t)
	out := filepath.Join(e.Dir, "out")
	r := e.runScript("job.sql", aggJob(out, n, 1_000_000), time.Minute)
	if r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", r.code, r.all())
	}
	ref := sortedLines(t, out)
	// Each id after the first per key retracts the old total and adds
	// the new one; the sink writes -U as "d" and +U as "c".
	if want := 10 + 2*(n-10); len(ref) != want {
		t.Fatalf("uninterrupted run wrote %d changelog lines, want %d", len(ref), want)
	}
	return ref
}

// finalTotals folds the changelog to the final row per key, checking that
// every key ends with count n/10 and the sum of its residue class.
func checkFinalTotals(t *testing.T, lines []string, n int) {
	t.Helper()
	final := map[int]string{}
	for _, l := range lines {
		var k, c, s int
		if _, err := fmt.Sscanf(l, `{"before":null,"after":{"k":%d,"c":%d,"s":%d},"op":"c"}`, &k, &c, &s); err == nil && c == n/10 {
			final[k] = l
		}
	}
	if len(final) != 10 {
		t.Fatalf("final totals for %d keys, want 10", len(final))
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

func killResumeAggregate(t *testing.T, setBackend string) {
	const n = 1500
	ref := uninterruptedAgg(t, n)
	checkFinalTotals(t, ref, n)

	e := newEnv(t)
	out := filepath.Join(e.Dir, "out")
	script := e.Write("job.sql", setBackend+aggJob(out, n, 500))
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
		q := e.start("-f", script, "--resume", "--allow-fresh")
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
