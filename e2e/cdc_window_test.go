package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The CDC → ROW_NUMBER → per-minute → Paimon → MariaDB job of issue 18.
//
// An orders table's changes arrive as debezium-json files (creates, amount
// updates, deletes). Job 1 keeps each customer's first order by
// ROW_NUMBER() OVER (PARTITION BY cust ORDER BY ts) and counts the new
// customers (and the amount of their first orders) per minute into a Paimon
// primary-key table; job 2 syncs that table into MariaDB.
//
// Flink 1.20 refuses a TUMBLE window aggregate here: the source is a
// changelog, so ROW_NUMBER plans a Rank that emits updates, and
// StreamPhysicalWindowAggregate consumes insert-only input only
// ("StreamPhysicalWindowAggregate doesn't support consuming update and
// delete changes which is produced by node Rank(...)", see
// testdata/explain/window). The per-minute windowing is therefore a
// GROUP BY on the minute, as a Flink user would write it; the script runs
// unchanged on Flink.

// cdcOrder is one order's state in the generated change stream.
type cdcOrder struct {
	id, cust int
	cents    int // amount in cents
	ts       time.Time
}

var cdcBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func newCDCOrder(id int) cdcOrder {
	return cdcOrder{id: id, cust: id % 250, cents: id*100 + 25, ts: cdcBase.Add(time.Duration(id) * 2 * time.Second)}
}

func (o cdcOrder) json() string {
	return fmt.Sprintf(`{"id":%d,"cust":%d,"amount":%d.%02d,"ts":"%s"}`, o.id, o.cust, o.cents/100, o.cents%100, o.ts.Format("2006-01-02 15:04:05.000"))
}

// cdcStream generates debezium-json change events and tracks the table
// they describe.
type cdcStream struct {
	orders map[int]cdcOrder
}

// batch creates orders from..to, then raises the amount of the live
// orders whose id is a multiple of upd, then deletes those whose id is a
// multiple of del; it returns the events, one JSON object a line.
func (s *cdcStream) batch(from, to, upd, del int) string {
	var b strings.Builder
	for id := from; id <= to; id++ {
		o := newCDCOrder(id)
		s.orders[id] = o
		fmt.Fprintf(&b, `{"before":null,"after":%s,"op":"c"}`+"\n", o.json())
	}
	ids := make([]int, 0, len(s.orders))
	for id := range s.orders {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if o := s.orders[id]; id%upd == 0 {
			n := o
			n.cents += 10000
			s.orders[id] = n
			fmt.Fprintf(&b, `{"before":%s,"after":%s,"op":"u"}`+"\n", o.json(), n.json())
		}
	}
	for _, id := range ids {
		if o := s.orders[id]; id%del == 0 {
			delete(s.orders, id)
			fmt.Fprintf(&b, `{"before":%s,"after":null,"op":"d"}`+"\n", o.json())
		}
	}
	return b.String()
}

// want is the MariaDB table the job must end with: per minute, the
// customers whose first live order falls in it and those orders' amount.
func (s *cdcStream) want() string {
	first := map[int]cdcOrder{}
	for _, o := range s.orders {
		if f, ok := first[o.cust]; !ok || o.ts.Before(f.ts) {
			first[o.cust] = o
		}
	}
	type agg struct{ n, cents int }
	per := map[time.Time]*agg{}
	for _, o := range first {
		m := o.ts.Truncate(time.Minute)
		if per[m] == nil {
			per[m] = &agg{}
		}
		per[m].n++
		per[m].cents += o.cents
	}
	mins := make([]time.Time, 0, len(per))
	for m := range per {
		mins = append(mins, m)
	}
	sort.Slice(mins, func(i, j int) bool { return mins[i].Before(mins[j]) })
	var b strings.Builder
	for _, m := range mins {
		a := per[m]
		fmt.Fprintf(&b, "%s, %d, %d.%02d\n", m.Format("2006-01-02 15:04:05.000"), a.n, a.cents/100, a.cents%100)
	}
	return b.String()
}

// writeAtomically makes a file visible to the filesystem source whole: it
// is written under a hidden name ('.' prefix, skipped as in Flink) and
// renamed.
func writeAtomically(t *testing.T, dir, name, content string) {
	t.Helper()
	tmp := filepath.Join(dir, "."+name)
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// TestCDCDedupPerMinuteKillResume: both jobs are killed with SIGKILL after
// completed checkpoints; while they are down more change events arrive
// (new orders, and deletes that make a customer's second order its first);
// resumed with --resume, and fed one more file, MariaDB ends with exactly
// the rows the change stream defines — what an uninterrupted run ends
// with: no first order counted twice, none lost.
func TestCDCDedupPerMinuteKillResume(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.new_customers (minute_start DATETIME(3) NOT NULL PRIMARY KEY, customers BIGINT, amount DECIMAL(38, 2)) ENGINE = InnoDB")
	e := newEnv(t)
	e.Vars["$JDBC_URL"], e.Vars["$USER"], e.Vars["$PASSWORD"] = srv.JDBCURL(db), srv.User, srv.Password
	addSecret(srv.Password)
	cdc := filepath.Join(e.Dir, "cdc")
	if err := os.MkdirAll(cdc, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &cdcStream{orders: map[int]cdcOrder{}}
	writeAtomically(t, cdc, "orders-1.json", s.batch(1, 150, 7, 1000))

	dedup := e.Write("dedup.sql", fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '500ms';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%[1]s/wh');
CREATE TABLE IF NOT EXISTS p.`+"`default`"+`.new_customers (
  minute_start TIMESTAMP(3), customers BIGINT, amount DECIMAL(38, 2),
  PRIMARY KEY (minute_start) NOT ENFORCED
) WITH ('bucket' = '2', 'changelog-producer' = 'input');
CREATE TABLE orders (id BIGINT, cust INT, amount DECIMAL(10, 2), ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '%[1]s/cdc', 'format' = 'debezium-json',
        'source.monitor-interval' = '200ms');
CREATE TEMPORARY VIEW first_orders AS
SELECT id, cust, amount, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY ts) AS rn FROM orders)
WHERE rn = 1;
INSERT INTO p.`+"`default`"+`.new_customers
SELECT TO_TIMESTAMP(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:00')) AS minute_start,
  COUNT(*) AS customers, SUM(amount) AS amount
FROM first_orders
GROUP BY TO_TIMESTAMP(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:00'));
`, e.Dir))
	sync := e.Write("sync.sql", fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '500ms';
CREATE TABLE new_customers (minute_start TIMESTAMP(3), customers BIGINT, amount DECIMAL(38, 2),
  PRIMARY KEY (minute_start) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = '%s/wh/default.db/new_customers',
        'continuous.discovery-interval' = '200ms');
CREATE TABLE mysql_new_customers (minute_start TIMESTAMP(3), customers BIGINT, amount DECIMAL(38, 2),
  PRIMARY KEY (minute_start) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '$JDBC_URL', 'table-name' = 'new_customers',
  'username' = '$USER', 'password' = '$PASSWORD',
  'sink.buffer-flush.max-rows' = '20', 'sink.buffer-flush.interval' = '100ms');
INSERT INTO mysql_new_customers SELECT * FROM new_customers;
`, e.Dir))
	const dedupJob = "insert-into_p.default.new_customers"
	const syncJob = "insert-into_default_catalog.default_database.mysql_new_customers"

	p1 := e.start("-f", dedup)
	p1.waitFor("a checkpoint of the dedup job and its first Paimon snapshot", time.Minute, func() bool {
		snaps, _ := filepath.Glob(filepath.Join(e.Dir, "wh", "default.db", "new_customers", "snapshot", "snapshot-*"))
		return len(completedCheckpoints(e.checkpointDir(), dedupJob)) >= 1 && len(snaps) > 0
	})
	p2 := e.start("-f", sync)
	p2.waitFor("a checkpoint of the sync job and rows in MariaDB", time.Minute, func() bool {
		return len(completedCheckpoints(e.checkpointDir(), syncJob)) >= 1 && srv.Table(t, db, "new_customers") != ""
	})
	for _, p := range []*proc{p1, p2} {
		p.signal(syscall.SIGKILL)
		if code := p.wait(10 * time.Second); code != -1 {
			t.Fatalf("kill -9: exit code %d\n%s", code, p.output())
		}
	}
	t.Logf("killed with %d rows in MariaDB", strings.Count(srv.Table(t, db, "new_customers"), "\n"))

	// While both are down: new orders, amount updates, and deletes of
	// every 11th order (some a customer's first).
	writeAtomically(t, cdc, "orders-2.json", s.batch(151, 400, 13, 11))
	p1 = e.start("-f", dedup, "--resume")
	p2 = e.start("-f", sync, "--resume")
	writeAtomically(t, cdc, "orders-3.json", s.batch(401, 600, 17, 19))
	want := s.want()
	p2.waitFor("MariaDB to hold the new customers per minute of the change stream", 2*time.Minute, func() bool {
		return srv.Table(t, db, "new_customers") == want
	})
	for _, p := range []*proc{p1, p2} {
		p.signal(syscall.SIGTERM)
		if code := p.wait(time.Minute); code != 0 {
			t.Fatalf("stop after resume: exit %d\n%s", code, p.output())
		}
	}
	if got := srv.Table(t, db, "new_customers"); got != want {
		t.Fatalf("after the stop MariaDB changed:\n%s\nwant:\n%s", got, want)
	}
	assertNoSecretInFiles(t, e, sync)
}
