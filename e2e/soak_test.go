package e2e

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSoakPaimonToMariaDB is issue 9's soak in a short form: seed 003's
// streaming job (Paimon orders, producer lookup → jdbc → MariaDB orders_rt)
// under a random workload of inserts, updates and deletes on random keys,
// with a random fault after every batch — kill -9 of sqlrun then --resume,
// kill -9 then a fresh start relying on the consumer-id, SIGTERM then
// --resume, MariaDB restarted under the job. After each recovery MariaDB
// must equal the model (and, at the end, the Paimon table) exactly.
//
// SQLRUN_SOAK_FAULTS sets the number of faults (default 6; `make soak`
// would run 50+). The seed is logged so a failure can be replayed with
// SQLRUN_SOAK_SEED.
func TestSoakPaimonToMariaDB(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	faults := 6
	if v, err := strconv.Atoi(os.Getenv("SQLRUN_SOAK_FAULTS")); err == nil && v > 0 {
		faults = v
	}
	seed := time.Now().UnixNano()
	if v, err := strconv.ParseInt(os.Getenv("SQLRUN_SOAK_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("soak seed %d, %d faults", seed, faults)
	rng := rand.New(rand.NewSource(seed))

	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	e := newEnv(t)
	e.paimonSetup(", 'changelog-producer' = 'lookup'", "(1, 1.00, 'CREATED')")
	type order struct {
		amount int // cents
		status string
	}
	model := map[int]order{1: {100, "CREATED"}}
	render := func() string {
		var ids []int
		for id := range model {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		var b strings.Builder
		for _, id := range ids {
			o := model[id]
			fmt.Fprintf(&b, "%d, %d.%02d, %s\n", id, o.amount/100, o.amount%100, o.status)
		}
		return b.String()
	}
	dbz := func(id int, o order) string {
		return fmt.Sprintf(`{"id":%d,"amount":%d.%02d,"status":"%s"}`, id, o.amount/100, o.amount%100, o.status)
	}
	job := e.Write("job.sql", "SET 'execution.checkpointing.interval' = '300ms';\n"+paimonTables+fmt.Sprintf(`
CREATE TABLE mysql_orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%s', 'table-name' = 'orders_rt', 'username' = '%s', 'password' = '%s',
  'sink.buffer-flush.max-rows' = '50', 'sink.buffer-flush.interval' = '200ms', 'sink.max-retries' = '5');
INSERT INTO mysql_orders SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'mysql-orders-v1',
                        'continuous.discovery-interval' = '100ms') */;
`, srv.JDBCURL(db), srv.User, srv.Password))

	converge := func(p *proc, what string) {
		t.Helper()
		want := render()
		p.waitFor("MariaDB = model after "+what, 60*time.Second, func() bool { return srv.Table(t, db, "orders_rt") == want })
	}
	p := e.start("-f", job)
	converge(p, "start")
	statuses := []string{"CREATED", "PAID", "SHIPPED"}
	survived, verified := 0, 0
	for round := 0; round < faults; round++ {
		// A random batch of changes, one commit.
		var lines []string
		for i := 0; i < 30; i++ {
			id := 1 + rng.Intn(60)
			old, ok := model[id]
			nu := order{100 + rng.Intn(100000), statuses[rng.Intn(len(statuses))]}
			switch {
			case !ok:
				lines = append(lines, `{"before":null,"after":`+dbz(id, nu)+`,"op":"c"}`)
				model[id] = nu
			case rng.Intn(3) == 0:
				lines = append(lines, `{"before":`+dbz(id, old)+`,"after":null,"op":"d"}`)
				delete(model, id)
			default:
				lines = append(lines, `{"before":`+dbz(id, old)+`,"after":`+dbz(id, nu)+`,"op":"u"}`)
				model[id] = nu
			}
		}
		e.paimonApply(lines)
		time.Sleep(time.Duration(rng.Intn(400)) * time.Millisecond)
		kind := rng.Intn(4)
		if kind == 3 && srv.External() {
			kind = 0
		}
		switch kind {
		case 0:
			p.signal(syscall.SIGKILL)
			p.wait(10 * time.Second)
			p = e.start("-f", job, "--resume", "--allow-fresh") // the kill may precede the first checkpoint
		case 1:
			p.signal(syscall.SIGKILL)
			p.wait(10 * time.Second)
			p = e.start("-f", job) // no state: the consumer-id says where to go on
		case 2:
			p.waitRunning(30 * time.Second)
			p.signal(syscall.SIGTERM)
			if code := p.wait(30 * time.Second); code != 0 {
				t.Fatalf("round %d: SIGTERM exit %d\n%s", round, code, p.output())
			}
			p = e.start("-f", job, "--resume")
		case 3:
			srv.Restart(t, time.Second)
		}
		converge(p, fmt.Sprintf("round %d, fault %d", round, kind))
		survived++
		verified += len(model)
	}
	p.waitRunning(30 * time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("final SIGTERM: exit %d", code)
	}
	// The Paimon table itself holds the model too.
	r := e.runScript("check.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+paimonTables+
		"SELECT COUNT(*) AS n, SUM(amount) AS total FROM orders;\n", time.Minute)
	sum := 0
	for _, o := range model {
		sum += o.amount
	}
	wantTotal := fmt.Sprintf("| %d | %d.%02d |", len(model), sum/100, sum%100)
	if got := strings.Join(strings.Fields(tableRows(r.stdout)), " "); !strings.Contains(got, strings.Join(strings.Fields(wantTotal), " ")) {
		t.Errorf("Paimon orders: %s, want %s\n%s", got, wantTotal, r.all())
	}
	t.Logf("soak: %d faults survived, %d rows verified", survived, verified)
	fmt.Printf("soak: %d faults survived, %d rows verified (seed %d)\n", survived, verified, seed)
}
