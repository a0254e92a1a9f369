package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// TestSeed003Pipeline is seed 003's job end to end, for each producer:
// Paimon orders → `INSERT INTO mysql_orders SELECT id, amount, status FROM
// orders /*+ OPTIONS('scan.mode'='latest-full','consumer-id'='mysql-orders-v1') */`
// → MariaDB orders_rt. It follows inserts, updates and deletes, is stopped
// (SIGTERM) and restarted with --resume while the table changes, and
// MariaDB always ends equal to the Paimon table.
func TestSeed003Pipeline(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	for _, producer := range []string{"none", "input", "lookup", "full-compaction"} {
		t.Run(producer, func(t *testing.T) {
			t.Parallel()
			opts := ", 'changelog-producer' = '" + producer + "'"
			if producer == "full-compaction" {
				opts += ", 'full-compaction.delta-commits' = '1'"
			}
			seed003(t, srv, opts, "200ms")
		})
	}
}

func seed003(t *testing.T, srv *mariadb.Server, opts, interval string) {
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	e := newEnv(t)
	e.paimonSetup(opts, "(1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED')")
	job := e.Write("job.sql", "SET 'execution.checkpointing.interval' = '"+interval+"';\n"+paimonTables+fmt.Sprintf(`
CREATE TABLE mysql_orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'jdbc',
    'url' = '%s',
    'table-name' = 'orders_rt',
    'username' = '%s',
    'password' = '%s',
    'sink.buffer-flush.max-rows' = '100',
    'sink.buffer-flush.interval' = '1s',
    'sink.max-retries' = '3'
);
INSERT INTO mysql_orders
SELECT id, amount, status
FROM orders /*+ OPTIONS(
    'scan.mode' = 'latest-full',
    'consumer-id' = 'mysql-orders-v1',
    'continuous.discovery-interval' = '100ms'
) */;
`, srv.JDBCURL(db), srv.User, srv.Password))

	waitTable := func(p *proc, want string) {
		t.Helper()
		p.waitFor("MariaDB orders_rt =\n"+want, 30*time.Second, func() bool { return srv.Table(t, db, "orders_rt") == want })
	}
	p := e.start("-f", job)
	waitTable(p, "1001, 80.00, CREATED\n1002, 35.50, CREATED\n")
	// 80 → 100 as the MySQL CDC Action writes it (-D/+I), 1002 deleted, 1003 new.
	e.paimonApply([]string{dbzD80, dbzC100,
		`{"before":{"id":1002,"amount":35.50,"status":"CREATED"},"after":null,"op":"d"}`,
		`{"before":null,"after":{"id":1003,"amount":12.00,"status":"PAID"},"op":"c"}`})
	waitTable(p, "1001, 100.00, CREATED\n1003, 12.00, PAID\n")
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, p.output())
	}
	// The consumer's progress, in Paimon's format, written on checkpoints.
	cf := filepath.Join(e.Dir, "wh", "default.db", "orders", "consumer", "consumer-mysql-orders-v1")
	b, err := os.ReadFile(cf)
	if err != nil {
		t.Fatalf("consumer file after a graceful stop: %v", err)
	}
	var c struct {
		NextSnapshot *int64 `json:"nextSnapshot"`
	}
	latest, err := os.ReadFile(filepath.Join(e.Dir, "wh", "default.db", "orders", "snapshot", "LATEST"))
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	fmt.Sscan(string(latest), &last)
	// With frequent checkpoints a periodic one may be the last to record
	// progress (the final savepoint's is TestSeed003ConsumerAfterStop's
	// business): then the consumer may still name the last snapshot.
	err = json.Unmarshal(b, &c)
	lagOK := interval == "200ms" && c.NextSnapshot != nil && *c.NextSnapshot == last
	if err != nil || c.NextSnapshot == nil || (*c.NextSnapshot != last+1 && !lagOK) {
		t.Errorf("consumer file %s = %s, want nextSnapshot %d (every snapshot up to LATEST consumed)", cf, b, last+1)
	}
	// While the job is down: 1001 is deleted, 1003 paid more.
	e.paimonApply([]string{
		`{"before":{"id":1001,"amount":100.00,"status":"CREATED"},"after":null,"op":"d"}`,
		`{"before":{"id":1003,"amount":12.00,"status":"PAID"},"after":{"id":1003,"amount":15.00,"status":"PAID"},"op":"u"}`})
	p = e.start("-f", job, "--resume")
	waitTable(p, "1003, 15.00, PAID\n")
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM after resume: exit %d\n%s", code, p.output())
	}
	assertNoSecretInFiles(t, e, job)
}

// TestSeed003ConsumerAfterStop: with checkpoints far apart, only the final
// savepoint of a graceful stop can record the consumer's progress: the
// consumer file must then name the snapshot after the last one the job
// read (Flink delivers the stop-with-savepoint's notifyCheckpointComplete,
// where Paimon's source commits consumer progress), else a restart with the
// same consumer-id replays what was already written.
func TestSeed003ConsumerAfterStop(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	for _, producer := range []string{"input", "lookup"} {
		t.Run(producer, func(t *testing.T) {
			t.Parallel()
			seed003(t, srv, ", 'changelog-producer' = '"+producer+"'", "10min")
		})
	}
}
