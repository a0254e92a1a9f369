package e2e

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/s3server"
)

// TestPaimonS3Warehouse is the catalog story of TestPaimonCatalogStory on
// an S3 warehouse served by a real S3-compatible server (versitygw's POSIX
// gateway), once per changelog producer: the seed's order 1001 (80.00,
// then the -D/+I update to 100.00) through a Paimon table in an S3
// catalog, a streaming read with a consumer printing each producer's
// changelog as on local disk (TestPaimonProducers), a batch read; the
// table's snapshot, schema and data files land in the bucket, and the
// secret key appears in no output and no local file.
func TestPaimonS3Warehouse(t *testing.T) {
	needPaimonCatalog(t)
	srv := s3server.Start(t)
	addSecret(srv.SecretKey)
	dc := []string{dbzD80, dbzC100}
	for i, c := range []struct {
		name, opts string
		want       []string
	}{
		{"input", ", 'changelog-producer' = 'input'", []string{i80, d80, i100}},
		{"none", ", 'changelog-producer' = 'none'", []string{i80, ub80, ua00}},
		{"lookup", ", 'changelog-producer' = 'lookup'", []string{i80, ub80, ua00}},
		{"full-compaction", ", 'changelog-producer' = 'full-compaction', 'full-compaction.delta-commits' = '1'", []string{i80, ub80, ua00}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // mostly waiting on discovery and checkpoints
			s3Story(t, srv, srv.Bucket(t, fmt.Sprintf("lake%d", i)), c.opts, dc, c.want)
		})
	}
}

func s3Story(t *testing.T, srv *s3server.Server, bucket, tableOpts string, update, want []string) {
	e := newEnv(t)
	e.Write("upd/changes.json", strings.Join(update, "\n")+"\n")
	head := fmt.Sprintf(`
CREATE TABLE print_orders (id BIGINT, amount DECIMAL(10, 2), status STRING) WITH ('connector' = 'print');
CREATE TABLE changes (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$DIR/upd', 'format' = 'debezium-json');
CREATE CATALOG p WITH (
  'type' = 'paimon',
  'warehouse' = 's3://%s/warehouse',
  's3.endpoint' = '%s',
  's3.access-key' = '%s',
  's3.secret-key' = '%s',
  's3.path.style.access' = 'true'
);
USE CATALOG p;
`, bucket, srv.Endpoint, srv.AccessKey, srv.SecretKey)
	if r := e.runScript("setup.sql", "SET 'table.dml-sync' = 'true';\n"+head+`
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('consumer.expiration-time' = '1 d'`+tableOpts+`);
INSERT INTO orders VALUES (1001, 80.00, 'CREATED');
`, time.Minute); r.code != 0 {
		t.Fatalf("setup: exit %d\n%s", r.code, r.all())
	}
	p := e.start("-f", e.Write("job.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+head+`
INSERT INTO default_catalog.default_database.print_orders SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'print-v1', 'continuous.discovery-interval' = '100ms') */;
`))
	p.waitLine(i80, 30*time.Second)
	if r := e.runScript("upd.sql", "SET 'table.dml-sync' = 'true';\n"+head+`
INSERT INTO orders SELECT * FROM default_catalog.default_database.changes;
`, time.Minute); r.code != 0 {
		t.Fatalf("update: exit %d\n%s", r.code, r.all())
	}
	p.waitFor(fmt.Sprintf("changelog %v", want), 30*time.Second, func() bool { return len(changelogOf(p.output())) >= len(want) })
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	if got := changelogOf(p.output()); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("printed %v, want %v", got, want)
	}
	assertNoSecret(t, p.output())

	r := e.runScript("read.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+head+`
SELECT * FROM orders;
SELECT snapshot_id, commit_kind FROM orders$snapshots;
SELECT consumer_id FROM orders$consumers;
`, time.Minute)
	if r.code != 0 {
		t.Fatalf("read: exit %d\n%s", r.code, r.all())
	}
	for _, s := range []string{"| 1001 | 100.00 |", "print-v1"} {
		if !strings.Contains(strings.ReplaceAll(r.stdout, "  ", " "), s) && !strings.Contains(r.stdout, s) {
			t.Errorf("batch read lacks %q:\n%s", s, r.stdout)
		}
	}

	// The table lives in the bucket, laid out as Paimon lays it out.
	tbl := filepath.Join(srv.Dir, bucket, "warehouse", "default.db", "orders")
	for _, f := range []string{"schema/schema-0", "snapshot/LATEST", "snapshot/snapshot-1", "consumer/consumer-print-v1"} {
		if _, err := os.Stat(filepath.Join(tbl, f)); err != nil {
			t.Errorf("bucket: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(tbl, "bucket-0")); err != nil {
		if ms, _ := filepath.Glob(filepath.Join(tbl, "bucket-*")); len(ms) == 0 {
			t.Errorf("no bucket directory in %s", tbl)
		}
	}
	// No local file (checkpoints, job files, history) holds the secret.
	filepath.Walk(filepath.Dir(e.Dir), func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || info.Size() > 64<<20 {
			return nil
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), srv.SecretKey) && !strings.HasSuffix(path, ".sql") {
			t.Errorf("%s holds the secret key", path)
		}
		return nil
	})
}

// TestPaimonS3KillResumeToMariaDB is TestPaimonToPaimonKillResume's crash
// story with the warehouse on S3 and the seed's MariaDB sink: a writer job
// (datagen → GROUP BY → orders, producer input, in an S3 catalog) and the
// sync job (orders → MariaDB by JDBC, latest-full with a consumer) are
// killed with kill -9 at random points and restarted with --resume; in the
// end MariaDB holds exactly the writer's result. Checkpoints are local,
// the table's commits are conditional puts on the S3 server.
func TestPaimonS3KillResumeToMariaDB(t *testing.T) {
	needPaimonCatalog(t)
	db := needMariaDB(t)
	srv := s3server.Start(t)
	addSecret(srv.SecretKey)
	bucket := srv.Bucket(t, "crash")
	mdb := db.NewDatabase(t)
	db.Exec(t, "CREATE TABLE `"+mdb+"`.totals (k INT NOT NULL PRIMARY KEY, c BIGINT, s BIGINT) ENGINE = InnoDB")
	e := newEnv(t)
	catalog := fmt.Sprintf(`
CREATE CATALOG p WITH (
  'type' = 'paimon',
  'warehouse' = 's3://%s/warehouse',
  's3.endpoint' = '%s',
  's3.access-key' = '%s',
  's3.secret-key' = '%s',
  's3.path.style.access' = 'true'
);
`, bucket, srv.Endpoint, srv.AccessKey, srv.SecretKey)
	if r := e.runScript("create.sql", catalog+"CREATE TABLE p.`default`.src (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)\n"+
		"  WITH ('bucket' = '2', 'changelog-producer' = 'input', 'consumer.expiration-time' = '1 d');\n", time.Minute); r.code != 0 {
		t.Fatalf("create: exit %d\n%s", r.code, r.all())
	}
	writerScript := e.Write("writer.sql", "SET 'execution.checkpointing.interval' = '300ms';\n"+catalog+`
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2400');
INSERT INTO p.`+"`default`"+`.src SELECT id % 50, COUNT(*), SUM(id) FROM gen GROUP BY id % 50;
`)
	syncJob := e.Write("sync.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+catalog+fmt.Sprintf(`
CREATE TABLE totals (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%s', 'table-name' = 'totals',
  'username' = '%s', 'password' = '%s');
INSERT INTO totals SELECT * FROM p.`+"`default`"+`.src /*+ OPTIONS('scan.mode' = 'latest-full',
  'consumer-id' = 'sync', 'continuous.discovery-interval' = '100ms') */;
`, db.JDBCURL(mdb), db.User, db.Password))
	writer := e.start("-f", writerScript)
	p := e.start("-f", syncJob)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for i := 0; i < 3; i++ {
		d := time.Duration(300+rng.Intn(1500)) * time.Millisecond
		time.Sleep(d) // a random crash point, not a wait for something
		p.signal(syscall.SIGKILL)
		if code := p.wait(10 * time.Second); code != -1 {
			t.Fatalf("kill -9 #%d: exit %d\n%s", i+1, code, p.output())
		}
		t.Logf("kill -9 of the sync job #%d after %s", i+1, d)
		p = e.start("-f", syncJob, "--resume", "--allow-fresh") // the kill may precede the first checkpoint
		if i == 1 {
			writer.signal(syscall.SIGKILL)
			t.Logf("kill -9 of the writer: exit %d", writer.wait(10*time.Second))
			writer = e.start("-f", writerScript, "--resume", "--allow-fresh")
		}
	}
	if code := writer.wait(2 * time.Minute); code != 0 {
		t.Fatalf("writer: exit %d\n%s", code, writer.output())
	}
	// ids 1..2400: key k holds the 48 ids ≡ k (mod 50).
	var want strings.Builder
	for k := 0; k < 50; k++ {
		sum := 0
		for id := 1; id <= 2400; id++ {
			if id%50 == k {
				sum += id
			}
		}
		fmt.Fprintf(&want, "%d, 48, %d\n", k, sum)
	}
	p.waitFor("MariaDB totals = the writer's result", time.Minute, func() bool { return db.Table(t, mdb, "totals") == want.String() })
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("sync job SIGTERM: exit %d\n%s", code, p.output())
	}
	assertNoSecret(t, p.output()+writer.output())
}
