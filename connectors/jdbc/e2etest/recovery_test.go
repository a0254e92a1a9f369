// Package e2etest runs the JDBC sink inside sqlrun's streaming runtime
// against a real MariaDB and kills the job with SIGKILL mid-run: the
// at-least-once recovery story of the seed, end to end below the planner.
// It is its own package so a change in the runtime's API cannot break the
// connector's unit tests.
package e2etest

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/jdbc"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/sql"
)

// The job runs in a child process (this test binary re-executed with
// childEnv naming the work directory and urlEnv/userEnv/passEnv the
// database), so the parent can SIGKILL it like a crashed TaskManager.
const (
	childEnv = "SQLRUN_JDBC_E2E_CHILD"
	urlEnv   = "SQLRUN_JDBC_E2E_URL"
	userEnv  = "SQLRUN_JDBC_E2E_USER"
	passEnv  = "SQLRUN_JDBC_E2E_PASS"
	// modeEnv, when "exactly-once", runs the sink with
	// 'sink.delivery-guarantee' = 'exactly-once'.
	modeEnv = "SQLRUN_JDBC_E2E_MODE"
	jobName = "insert-into-mysql_orders"
	changes = 20000
	keys    = 500
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(runChild(dir))
	}
	os.Exit(m.Run())
}

// changelog is the source's deterministic change stream over the seed's
// orders (id, amount, status): inserts, updates and deletes, +I/+U/-D as
// Paimon emits them to an upsert sink.
func changelog() []sql.Row {
	rnd := rand.New(rand.NewSource(1001))
	live := map[int64]bool{}
	out := make([]sql.Row, 0, changes)
	for len(out) < changes {
		id := int64(rnd.Intn(keys) + 1)
		switch {
		case live[id] && rnd.Intn(5) == 0:
			out = append(out, sql.Row{Kind: sql.Delete, Values: []any{id, nil, nil}})
			delete(live, id)
		default:
			kind := sql.UpdateAfter
			if !live[id] {
				kind = sql.Insert
			}
			live[id] = true
			// A change's amount is its position in the stream (in cents),
			// so an audit trigger can tell which change MySQL applied.
			amount := decimal.New(int64(len(out)), -2)
			status := []string{"CREATED", "PAID", "SHIPPED"}[rnd.Intn(3)]
			out = append(out, sql.Row{Kind: kind, Values: []any{id, amount, status}})
		}
	}
	return out
}

// source emits changelog() slowly (so checkpoints fall in the middle) and
// checkpoints its offset.
type source struct{}

func (source) ChangelogMode() sql.ChangelogMode { return sql.Upsert }
func (source) Bounded() bool                    { return true }
func (source) NewReader(int, int) (connectors.SourceReader, error) {
	return &reader{rows: changelog()}, nil
}

type reader struct {
	rows []sql.Row
	off  int
}

func (r *reader) Open(_ context.Context, state []byte) error {
	if len(state) > 0 {
		n, err := strconv.Atoi(string(state))
		if err != nil {
			return fmt.Errorf("bad state %q: %w", state, err)
		}
		r.off = n
	}
	return nil
}

func (r *reader) Next(context.Context) ([]sql.Row, error) {
	if r.off >= len(r.rows) {
		return nil, io.EOF
	}
	time.Sleep(4 * time.Millisecond)
	end := min(r.off+40, len(r.rows))
	batch := r.rows[r.off:end]
	r.off = end
	return batch, nil
}

func (r *reader) Snapshot(int64) ([]byte, error) { return []byte(strconv.Itoa(r.off)), nil }
func (r *reader) NotifyCheckpointComplete(context.Context, int64) error {
	return nil
}
func (r *reader) Close() error { return nil }

func schema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "amount", Type: sql.Decimal(10, 2)},
		{Name: "status", Type: sql.String()},
	}, PrimaryKey: []string{"id"}}
}

// runChild runs INSERT INTO mysql_orders SELECT ... as the planner would
// build it: source → hash by id → JDBC sink with parallelism 2, resuming
// from the latest checkpoint when there is one (sqlrun --resume).
func runChild(dir string) int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "child:", err); return 2 }
	sink, err := jdbc.Factory{}.CreateSink(&connectors.Context{
		Table:  connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: "mysql_orders"},
		Schema: schema(),
		Options: map[string]string{
			"connector": "jdbc", "url": os.Getenv(urlEnv), "table-name": "orders_rt",
			"username": os.Getenv(userEnv), "password": os.Getenv(passEnv),
			"sink.buffer-flush.max-rows": "100", "sink.buffer-flush.interval": "1s", "sink.max-retries": "3",
			"sink.parallelism": "2", "sink.delivery-guarantee": deliveryGuarantee(),
		},
		Config:             map[string]string{"execution.checkpointing.interval": "150 ms"},
		CheckpointInterval: 150 * time.Millisecond,
		Streaming:          true,
	})
	if err != nil {
		return fail(err)
	}
	g := runtime.NewGraph(jobName)
	src := g.AddSource("src", "Source: orders", source{}, 1)
	snk := g.AddSink("sink", "Sink: mysql_orders", sink, 2)
	g.Connect(src, snk, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
	cfg := runtime.Config{Streaming: true, CheckpointInterval: 150 * time.Millisecond,
		CheckpointDir: filepath.Join(dir, "chk"), NumRetained: 1}
	if cfg.RestorePath, err = runtime.LatestCheckpoint(cfg.CheckpointDir, jobName); err != nil {
		return fail(err)
	}
	job, err := runtime.Start(context.Background(), g, cfg)
	if err != nil {
		return fail(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "job failed:", err)
		return 1
	}
	return 0
}

// checkpointed is closed when the job in dir has completed a checkpoint
// (or after a minute, when the test's own check then fails).
func checkpointed(t *testing.T, dir string) <-chan time.Time {
	c := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for checkpointID(t, dir) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		c <- time.Now()
	}()
	return c
}

func deliveryGuarantee() string {
	if os.Getenv(modeEnv) == "exactly-once" {
		return "exactly-once"
	}
	return "at-least-once"
}

func startChild(t *testing.T, s *mariadb.Server, db, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir, urlEnv+"="+s.JDBCURL(db), userEnv+"="+s.User, passEnv+"="+s.Password)
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if strings.Contains(stderr.String(), s.Password) {
			t.Errorf("the job printed the password:\n%s", stderr.String())
		}
		if stderr.Len() > 0 {
			t.Logf("child stderr:\n%s", stderr.String())
		}
	})
	return cmd
}

func checkpointID(t *testing.T, dir string) int64 {
	p, err := runtime.LatestCheckpoint(filepath.Join(dir, "chk"), jobName)
	if err != nil || p == "" {
		return 0
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(filepath.Base(p), "chk-"), 10, 64)
	return id
}

// expected is orders_rt after the whole changelog, one "id, amount, status"
// line per row ordered by id — the form mariadb.Server.Table prints.
func expected() string {
	final := map[int64]sql.Row{}
	for _, r := range changelog() {
		id := r.Values[0].(int64)
		if r.Kind == sql.Delete {
			delete(final, id)
		} else {
			final[id] = r
		}
	}
	ids := make([]int64, 0, len(final))
	for id := range final {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var b strings.Builder
	for _, id := range ids {
		r := final[id]
		fmt.Fprintf(&b, "%d, %s, %s\n", id, r.Values[1].(decimal.Decimal).StringFixed(2), r.Values[2])
	}
	return b.String()
}

// TestSIGKILLAndResume: the job is killed with SIGKILL while it writes
// (after flushes, with a checkpoint in flight), restarted from its last
// completed checkpoint, replays what came after it, and MySQL ends
// identical to the source's final state.
func TestSIGKILLAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	s := mariadb.Start(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	dir := t.TempDir()

	cmd := startChild(t, s, db, dir)
	deadline := time.Now().Add(30 * time.Second)
	for checkpointID(t, dir) < 4 {
		if time.Now().After(deadline) {
			t.Fatal("no 4th checkpoint within 30s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(70 * time.Millisecond) // into the next checkpoint interval
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killedAt := checkpointID(t, dir)
	rowsBefore := len(s.Query(t, "SELECT id FROM `"+db+"`.orders_rt"))
	if rowsBefore == 0 {
		t.Fatal("the killed run wrote nothing to MySQL")
	}
	if got := s.Table(t, db, "orders_rt"); got == expected() {
		t.Fatal("the job finished before the kill; the test proves nothing")
	}

	before := s.Status(t, "Com_insert", "Com_delete")
	cmd = startChild(t, s, db, dir)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	after := s.Status(t, "Com_insert", "Com_delete")
	if got, want := s.Table(t, db, "orders_rt"), expected(); got != want {
		t.Fatalf("after SIGKILL and resume MySQL differs from the source's final state:\n got %d lines\nwant %d lines",
			strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	t.Logf("killed after checkpoint %d with %d rows in MySQL; the resumed run sent %d upsert and %d delete statements",
		killedAt, rowsBefore, after["Com_insert"]-before["Com_insert"], after["Com_delete"]-before["Com_delete"])
}

// TestExactlyOnceUnderSIGKILL is seed 003's failure timeline with an
// audit trigger, the case where Flink's at-least-once replay is wrong: the
// job runs with 'sink.delivery-guarantee' = 'exactly-once', is killed with
// SIGKILL at a random moment, resumed from its latest checkpoint, killed
// again, 50 times, and then runs to the end. MySQL must equal the source's
// final state, and the audit table must show every key's applied changes
// in stream order with none applied twice: an applied change's amount is
// its position in the stream, so a replayed epoch would log an amount not
// above the one before it. The same timeline with the default sink
// (Flink's behaviour) is logged, not asserted: its replays show up as such
// repeats (docs/guarantees.md).
func TestExactlyOnceUnderSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	s := mariadb.Start(t)
	if repeats, applied := killLoop(t, s, "exactly-once", 50); repeats > 0 {
		t.Fatalf("exactly-once: %d of %d audited changes were applied again", repeats, applied)
	}
	repeats, applied := killLoop(t, s, "at-least-once", 20)
	t.Logf("at-least-once (Flink's sink), 20 SIGKILLs: %d of %d audited changes were replays", repeats, applied)
}

// killLoop runs the job in mode, SIGKILLs it at a random moment up to
// rounds times, runs it to the end, checks MySQL against the source, and
// returns how many audited changes repeated an earlier one, of how many.
func killLoop(t *testing.T, s *mariadb.Server, mode string, rounds int) (repeats, applied int) {
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	s.Exec(t, "CREATE TABLE `"+db+"`.audit (n BIGINT AUTO_INCREMENT PRIMARY KEY, op CHAR(1), id BIGINT, amount DECIMAL(10, 2)) ENGINE = InnoDB")
	s.Exec(t, "CREATE TRIGGER `"+db+"`.a_ins AFTER INSERT ON `"+db+"`.orders_rt FOR EACH ROW INSERT INTO `"+db+"`.audit (op, id, amount) VALUES ('I', NEW.id, NEW.amount)")
	s.Exec(t, "CREATE TRIGGER `"+db+"`.a_upd AFTER UPDATE ON `"+db+"`.orders_rt FOR EACH ROW INSERT INTO `"+db+"`.audit (op, id, amount) VALUES ('U', NEW.id, NEW.amount)")
	dir := t.TempDir()
	rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
	kills := 0
	for round := 0; round < rounds; round++ {
		cmd := startChild(t, s, db, dir, modeEnv+"="+mode)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// The first kill waits for a completed checkpoint (so that later
		// runs restore and re-commit, whatever the machine's load); the
		// others land at a random moment.
		wait := time.After(time.Duration(20+rnd.Intn(300)) * time.Millisecond)
		if round == 0 {
			wait = checkpointed(t, dir)
		}
		select {
		case err := <-done: // finished before the kill
			if err != nil {
				t.Fatalf("%s, round %d: %v", mode, round, err)
			}
			round = rounds
			continue
		case <-wait:
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		kills++
	}
	if kills > 0 && checkpointID(t, dir) == 0 {
		t.Fatalf("%s: no checkpoint completed in %d rounds; the test proves nothing", mode, rounds)
	}
	cmd := startChild(t, s, db, dir, modeEnv+"="+mode)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s, final run: %v", mode, err)
	}
	if got, want := s.Table(t, db, "orders_rt"), expected(); got != want {
		t.Fatalf("%s: after %d SIGKILLs MySQL differs from the source's final state:\n got %d lines\nwant %d lines",
			mode, kills, strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	last := map[string]decimal.Decimal{}
	for _, r := range s.Query(t, "SELECT id, amount FROM `"+db+"`.audit ORDER BY n") {
		a := decimal.RequireFromString(r[1])
		if prev, ok := last[r[0]]; ok && !a.GreaterThan(prev) {
			repeats++
		}
		last[r[0]] = a
		applied++
	}
	t.Logf("%s: %d SIGKILLs, then a run to the end; %d changes audited", mode, kills, applied)
	return repeats, applied
}
