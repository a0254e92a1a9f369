// Command joins is issue 17's join benchmark, one case per run (so its
// peak RSS is the case's own), each an INSERT job planned by sqlrun's
// planner from SQL and run by the runtime, as `sqlrun -f` runs it:
//
//   - -op join: a regular INNER join of two datagen streams of -keys rows
//     each (orders: id sequence 1..keys, amount; customers: id sequence
//     1..keys, name STRING(10)), ON o.id = c.id, into a blackhole table,
//     on the -backend state backend (state.backend.type hashmap or
//     rocksdb). Neither datagen table declares a key, so the join keeps
//     both sides NoUniqueKey, as Flink's JoinInputSideSpec would. The
//     sources end after their sequences; the job's final checkpoint then
//     holds the join's whole state (every key on both sides). Printed:
//     input rows per CPU-second of the process (generation, join and sink
//     included), the final checkpoint's bytes per key (the checkpoint
//     directory on disk: the hashmap backend's state files or the LSM
//     backend's linked SSTs), peak RSS and its rise per key.
//   - -op lookup: a lookup join of -rows datagen orders (customer id random
//     over 0..-dimkeys-1) against a MariaDB customers table of -dimrows
//     rows (`FOR SYSTEM_TIME AS OF o.proc_time`), with 'lookup.cache' =
//     'PARTIAL' (-cache partial, max-rows -dimrows) or without a cache
//     (-cache none), into blackhole. Printed: rows per wall second and per
//     CPU-second of this process, and MySQL queries per row: the server's
//     Com_select counter (SHOW GLOBAL STATUS) across the job, over the rows.
//     The server is a throwaway mariadbd started as the jdbc tests start
//     theirs (internal/testutil/mariadb), or SQLRUN_MYSQL_DSN's.
//   - -op lookup -cache paimon: the same orders looked up in a Paimon
//     primary-key table of -dimrows rows (one bucket, written first by an
//     INSERT from datagen, not measured): Paimon's lookup, a local index of
//     the table's latest snapshot built on the first lookup. Printed: rows
//     per wall second and per CPU-second, peak RSS.
//
// scripts/bench-joins.sh (`make bench-joins`) runs every case.
package main

import (
	"context"
	gosql "database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"

	_ "github.com/sqlrun/sqlrun/connectors/all"
	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/internal/gctune"
	"github.com/sqlrun/sqlrun/internal/procstat"
	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

func main() {
	op := flag.String("op", "join", "join or lookup")
	keys := flag.Int("keys", 1_000_000, "join: rows (= distinct keys) per side")
	backend := flag.String("backend", "hashmap", "join: state.backend.type, hashmap or rocksdb")
	rows := flag.Int("rows", 200_000, "lookup: order rows")
	dimRows := flag.Int("dimrows", 10_000, "lookup: rows of the MariaDB customers table")
	dimKeys := flag.Int("dimkeys", 1_000, "lookup: distinct customer ids the orders look up")
	cache := flag.String("cache", "none", "lookup: none or partial (MariaDB), or paimon: the dimension table is a Paimon primary-key table")
	flag.Parse()
	gctune.Tune() // the binary's collector policy
	var err error
	switch *op {
	case "join":
		err = joinCase(*keys, *backend)
	case "lookup":
		if *cache == "paimon" {
			err = paimonLookupCase(*rows, *dimRows, *dimKeys)
		} else {
			err = lookupCase(*rows, *dimRows, *dimKeys, *cache)
		}
	default:
		err = fmt.Errorf("unknown -op %q", *op)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "joins:", err)
		os.Exit(1)
	}
}

// measured is what runJob saw of one job.
type measured struct {
	wall, cpu time.Duration
	job       *runtime.Job
}

// runJob runs the DDL and then the INSERT (table.dml-sync: the call
// returns when the job has finished), measuring the INSERT's wall and
// CPU time.
func runJob(ddl, insert string) (*measured, error) {
	s := exec.NewSession()
	s.Planner = exec.DefaultPlanner
	defer s.Close()
	var out strings.Builder
	ctx := context.Background()
	if err := s.ExecuteScript(ctx, ddl, "bench.sql", &out); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out.String())
	}
	start, cpu0 := time.Now(), procstat.CPU()
	if err := s.ExecuteScript(ctx, insert, "bench.sql", &out); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out.String())
	}
	m := &measured{wall: time.Since(start), cpu: procstat.CPU() - cpu0}
	jobs := s.Jobs.List()
	if len(jobs) == 0 {
		return nil, fmt.Errorf("no job ran:\n%s", out.String())
	}
	m.job = jobs[len(jobs)-1]
	if st := m.job.Status(); st != runtime.Finished {
		return nil, fmt.Errorf("job %s: %v\n%s", st, m.job.Err(), out.String())
	}
	return m, nil
}

// sinkIn is the rows the job's sink received.
func (m *measured) sinkIn() int64 {
	for _, v := range m.job.Metrics().Vertices {
		if v.Kind == "sink" {
			return v.RecordsIn
		}
	}
	return -1
}

func joinCase(keys int, backend string) error {
	dir, err := os.MkdirTemp("", "bench-joins-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ddl := fmt.Sprintf(`
SET 'parallelism.default' = '1';
SET 'state.backend.type' = '%s';
SET 'state.checkpoints.dir' = 'file://%s';
SET 'execution.checkpointing.interval' = '1 h';
SET 'table.dml-sync' = 'true';
CREATE TABLE orders (id BIGINT, amount INT) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d',
  'fields.amount.min' = '1', 'fields.amount.max' = '1000');
CREATE TABLE customers (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d',
  'fields.name.length' = '10');
CREATE TABLE enriched (id BIGINT, amount INT, name STRING) WITH ('connector' = 'blackhole');
`, backend, dir, keys, keys)
	insert := "INSERT INTO enriched SELECT o.id, o.amount, c.name FROM orders AS o JOIN customers AS c ON o.id = c.id;"
	base, _ := procstat.Memory()
	m, err := runJob(ddl, insert)
	if err != nil {
		return err
	}
	_, peak := procstat.Memory()
	if got := m.sinkIn(); got != int64(keys) {
		return fmt.Errorf("the sink got %d rows, want %d (one per key)", got, keys)
	}
	c := m.job.Metrics().Checkpoints
	if c.LastPath == "" {
		return fmt.Errorf("no final checkpoint was written")
	}
	ck := procstat.DirSize(c.LastPath)
	n := float64(keys)
	fmt.Printf("join    %-8s %9d keys/side  %6.2f s  %7.2f CPU-s  %9.0f input rows/cpu-s  checkpoint %5.1f B/key (%4.0f MiB, %d checkpoints)  peak RSS %6.0f MiB  (+%5.0f B/key)\n",
		backend, keys, m.wall.Seconds(), m.cpu.Seconds(), 2*n/m.cpu.Seconds(), float64(ck)/n, float64(ck)/(1<<20), c.Completed,
		float64(peak)/(1<<20), float64(peak-base)/n)
	return nil
}

func lookupCase(rows, dimRows, dimKeys int, cache string) error {
	srv, err := mariadb.StartServer()
	if err != nil {
		return err
	}
	defer srv.Close()
	db, err := gosql.Open("mysql", srv.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	name := fmt.Sprintf("bench_joins_%d", os.Getpid())
	if _, err := db.Exec("CREATE DATABASE `" + name + "`"); err != nil {
		return err
	}
	defer func() { _, _ = db.Exec("DROP DATABASE `" + name + "`") }() // matters on an external server only
	if _, err := db.Exec("CREATE TABLE `" + name + "`.customers (id INT PRIMARY KEY, name VARCHAR(20), tier INT) ENGINE = InnoDB"); err != nil {
		return err
	}
	for lo := 0; lo < dimRows; lo += 1000 {
		var vals []string
		for i := lo; i < min(lo+1000, dimRows); i++ {
			vals = append(vals, fmt.Sprintf("(%d, 'customer-%d', %d)", i, i, i%3))
		}
		if _, err := db.Exec("INSERT INTO `" + name + "`.customers VALUES " + strings.Join(vals, ", ")); err != nil {
			return err
		}
	}
	var cacheOpts string
	switch cache {
	case "none":
	case "partial":
		cacheOpts = fmt.Sprintf(", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '%d'", dimRows)
	default:
		return fmt.Errorf("unknown -cache %q", cache)
	}
	ddl := fmt.Sprintf(`
SET 'parallelism.default' = '1';
SET 'table.dml-sync' = 'true';
CREATE TABLE orders (id BIGINT, cust INT, proc_time AS PROCTIME()) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'number-of-rows' = '%d', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d',
  'fields.cust.min' = '0', 'fields.cust.max' = '%d');
CREATE TABLE customers (id INT, name STRING, tier INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = '%s', 'table-name' = 'customers', 'username' = '%s', 'password' = '%s'%s);
CREATE TABLE enriched (id BIGINT, cust INT, name STRING, tier INT) WITH ('connector' = 'blackhole');
`, rows, rows, dimKeys-1, srv.JDBCURL(name), srv.User, srv.Password, cacheOpts)
	insert := `INSERT INTO enriched SELECT o.id, o.cust, c.name, c.tier FROM orders AS o
  JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.cust = c.id;`
	selects := func() (int64, error) {
		var k string
		var v int64
		err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Com_select'").Scan(&k, &v)
		return v, err
	}
	before, err := selects()
	if err != nil {
		return err
	}
	m, err := runJob(ddl, insert)
	if err != nil {
		return err
	}
	after, err := selects()
	if err != nil {
		return err
	}
	_, peak := procstat.Memory()
	if got := m.sinkIn(); got != int64(rows) {
		return fmt.Errorf("the sink got %d rows, want %d (every order finds its customer)", got, rows)
	}
	n := float64(rows)
	fmt.Printf("lookup  cache=%-7s %8d rows, %d of %d customers  %6.2f s  %8.0f rows/s  %8.0f rows/cpu-s  %7d MySQL SELECTs  %.4f queries/row  peak RSS %4.0f MiB\n",
		cache, rows, dimKeys, dimRows, m.wall.Seconds(), n/m.wall.Seconds(), n/m.cpu.Seconds(), after-before,
		float64(after-before)/n, float64(peak)/(1<<20))
	return nil
}

func paimonLookupCase(rows, dimRows, dimKeys int) error {
	dir, err := os.MkdirTemp("", "bench-joins-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	table := fmt.Sprintf(`CREATE TABLE customers (id INT, name STRING, tier INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'paimon',
  'path' = '%s', 'bucket' = '1', 'auto-create' = 'true');
`, filepath.Join(dir, "customers"))
	write := fmt.Sprintf(`SET 'table.dml-sync' = 'true';
SET 'parallelism.default' = '1';
%sCREATE TABLE gen (id INT, name STRING, tier INT) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%d', 'fields.name.length' = '10',
  'fields.tier.min' = '0', 'fields.tier.max' = '2');
`, table, dimRows-1)
	if _, err := runJob(write, "INSERT INTO customers SELECT * FROM gen;"); err != nil {
		return fmt.Errorf("write the dimension table: %w", err)
	}
	ddl := fmt.Sprintf(`SET 'table.dml-sync' = 'true';
SET 'parallelism.default' = '1';
%sCREATE TABLE orders (id BIGINT, cust INT, proc_time AS PROCTIME()) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'number-of-rows' = '%d', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d',
  'fields.cust.min' = '0', 'fields.cust.max' = '%d');
CREATE TABLE enriched (id BIGINT, cust INT, name STRING, tier INT) WITH ('connector' = 'blackhole');
`, table, rows, rows, dimKeys-1)
	insert := `INSERT INTO enriched SELECT o.id, o.cust, c.name, c.tier FROM orders AS o
  JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.cust = c.id;`
	m, err := runJob(ddl, insert)
	if err != nil {
		return err
	}
	_, peak := procstat.Memory()
	if got := m.sinkIn(); got != int64(rows) {
		return fmt.Errorf("the sink got %d rows, want %d (every order finds its customer)", got, rows)
	}
	n := float64(rows)
	fmt.Printf("lookup  paimon        %8d rows, %d of %d customers  %6.2f s  %8.0f rows/s  %8.0f rows/cpu-s  peak RSS %4.0f MiB\n",
		rows, dimKeys, dimRows, m.wall.Seconds(), n/m.wall.Seconds(), n/m.cpu.Seconds(), float64(peak)/(1<<20))
	return nil
}
