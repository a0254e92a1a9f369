package mysqlcdc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// BenchmarkSnapshotAndCatchUp measures the two phases of the source on a
// table of SQLRUN_CDC_BENCH_ROWS rows (default 100 000; four columns:
// BIGINT key, DECIMAL, two VARCHARs), wall clock, one reader: the initial
// snapshot in chunks of 8096 rows (snapshot-rows/s), and the catch-up of a
// binlog holding one UPDATE of every row (catchup-rows/s, rows changed per
// second; each is a -U and a +U). The physical reference is mysqldump of
// the same table over TCP into /dev/null (mysqldump-rows/s), when
// mysqldump or mariadb-dump is installed.
//
//	go test ./connectors/mysqlcdc -run '^$' -bench SnapshotAndCatchUp -benchtime 3x
func BenchmarkSnapshotAndCatchUp(b *testing.B) {
	if srv == nil {
		b.Skip("mysqlcdc: no MariaDB (install mariadb-server: scripts/ensure-mariadb.sh, or set SQLRUN_MYSQL_DSN)")
	}
	n := 100000
	if s := os.Getenv("SQLRUN_CDC_BENCH_ROWS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatalf("SQLRUN_CDC_BENCH_ROWS: %v", err)
		}
	}
	db := srv.NewDatabase(b)
	srv.Exec(b, "CREATE TABLE `"+db+"`.bench (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32), note VARCHAR(64)) ENGINE = InnoDB")
	h := srv.DB(b, db)
	for i := 0; i < n; i += 5000 {
		var vals []string
		for j := i; j < min(i+5000, n); j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d.25, 'CREATED', 'note number %d of the benchmark')", j, j%1000, j))
		}
		if _, err := h.Exec("INSERT INTO bench VALUES " + strings.Join(vals, ", ")); err != nil {
			b.Fatal(err)
		}
	}
	schema := sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "amount", Type: sql.Decimal(10, 2)},
		{Name: "status", Type: sql.String()}, {Name: "note", Type: sql.String()},
	}, PrimaryKey: []string{"id"}}
	open := func(extra map[string]string) *Reader {
		opts := map[string]string{"hostname": srv.Host, "port": fmt.Sprint(srv.Port), "username": srv.User, "password": srv.Password,
			"database-name": db, "table-name": "bench", "server-id": "5501"}
		for k, v := range extra {
			opts[k] = v
		}
		s, err := Factory{}.CreateSource(&connectors.Context{Table: connectors.ObjectIdentifier{Catalog: "c", Database: "d", Name: "bench"},
			Schema: schema, Options: opts, Streaming: true})
		if err != nil {
			b.Fatal(err)
		}
		r, _ := s.(*Source).NewReader(0, 1)
		if err := r.Open(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		return r.(*Reader)
	}
	read := func(r *Reader, want int, done func() bool) {
		got := 0
		deadline := time.Now().Add(10 * time.Minute)
		for got < want || !done() {
			rows, err := r.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			got += len(rows)
			if time.Now().After(deadline) {
				b.Fatalf("read %d of %d rows", got, want)
			}
		}
	}
	dump, _ := exec.LookPath("mysqldump")
	if dump == "" {
		dump, _ = exec.LookPath("mariadb-dump")
	}
	var snap, catchup, dumped time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := open(nil)
		start := time.Now()
		read(r, n, func() bool { return r.st.Phase == phaseBinlog })
		snap += time.Since(start)
		pos, err := r.masterPosition(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		if _, err := h.Exec("UPDATE bench SET amount = amount + 1"); err != nil {
			b.Fatal(err)
		}
		r = open(map[string]string{"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.file": pos.File,
			"scan.startup.specific-offset.pos": fmt.Sprint(pos.Pos)})
		start = time.Now()
		read(r, 2*n, func() bool { return true })
		catchup += time.Since(start)
		r.Close()
		if dump != "" {
			cmd := exec.Command(dump, "--protocol=TCP", "-h", srv.Host, "-P", fmt.Sprint(srv.Port), "-u", srv.User,
				"--single-transaction", "--skip-lock-tables", db, "bench")
			cmd.Env = append(os.Environ(), "MYSQL_PWD="+srv.Password)
			var stderr strings.Builder
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			start = time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s: %v\n%s", dump, err, stderr.String())
			}
			dumped += time.Since(start)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n*b.N)/snap.Seconds(), "snapshot-rows/s")
	b.ReportMetric(float64(n*b.N)/catchup.Seconds(), "catchup-rows/s")
	if dump != "" {
		b.ReportMetric(float64(n*b.N)/dumped.Seconds(), "mysqldump-rows/s")
	}
}
