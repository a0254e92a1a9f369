package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// TestReconcileScale measures CALL sqlrun.reconcile at issue 19's scale:
// 1M keys in MariaDB, 10k of them (every id divisible by 100) absent from
// the Paimon table. The reconcile runs in its own sqlrun process, whose
// peak RSS and CPU time are reported; MariaDB must end with exactly the
// Paimon table's keys. A measurement, so it runs only with SQLRUN_SCALE=1
// (`SQLRUN_SCALE=1 go test ./e2e -run TestReconcileScale -v`).
func TestReconcileScale(t *testing.T) {
	if os.Getenv("SQLRUN_SCALE") == "" {
		t.Skip("a measurement: set SQLRUN_SCALE=1 to run it")
	}
	const n = 1_000_000
	srv := mariadb.Start(t)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL PRIMARY KEY, v INT) ENGINE = InnoDB")
	srv.Exec(t, fmt.Sprintf("INSERT INTO `%s`.orders_rt SELECT seq, 0 FROM `%s`.seq_1_to_%d", db, db, n))
	e := newEnv(t)
	e.Vars["$JDBC_URL"], e.Vars["$USER"], e.Vars["$PASSWORD"] = srv.JDBCURL(db), srv.User, srv.Password
	tables := `
SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE IF NOT EXISTS p.` + "`default`" + `.orders (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4');
CREATE TABLE mysql_orders (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '$JDBC_URL', 'table-name' = 'orders_rt', 'username' = '$USER', 'password' = '$PASSWORD');
`
	load := tables + fmt.Sprintf(`
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d');
INSERT INTO p.`+"`default`"+`.orders SELECT id, 0 FROM gen WHERE MOD(id, 100) <> 0;
`, n)
	if r := e.runScript("load.sql", load, 10*time.Minute); r.code != 0 {
		t.Fatalf("load: %s", r.all())
	}
	script := e.Write("reconcile.sql", tables+"CALL sqlrun.reconcile(source => 'p.`default`.orders', target => 'mysql_orders');\n")
	cmd := exec.Command(sqlrunBin, "-f", script)
	cmd.Env = append(os.Environ(), "HOME="+e.Home)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("reconcile: %v\n%s", err, out.String())
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if !strings.Contains(out.String(), "10000 orphan row(s) deleted from mysql_orders (990000 keys in orders, 1000000 in mysql_orders)") {
		t.Fatalf("reconcile output:\n%s", out.String())
	}
	left := srv.Query(t, "SELECT COUNT(*), SUM(MOD(id, 100) = 0) FROM `"+db+"`.orders_rt")
	if left[0][0] != "990000" || left[0][1] != "0" {
		t.Fatalf("MariaDB after reconcile: %v rows, %v orphans left", left[0][0], left[0][1])
	}
	t.Logf("reconcile of %d MariaDB keys against %d Paimon keys: %d orphans deleted; wall %s, CPU %s, peak RSS %d MiB",
		n, n-n/100, n/100, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), ru.Maxrss/1024)
}
