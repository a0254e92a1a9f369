package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/fakegateway"
)

// TestGatewayScript runs a script through `sqlrun -f --gateway` against
// the fake gateway: every statement goes to the gateway in order (the
// shell's own commands excepted), results print as the SQL client prints
// them (an INSERT's Job ID, a query's tableau with its changelog, a SHOW's
// box), the failing statement prints the server's root cause with the
// script's password masked and exits 1 naming the line, and the session is
// closed.
func TestGatewayScript(t *testing.T) {
	g := fakegateway.Start(t)
	e := newEnv(t)
	addSecret("s3cr3t-pw")
	script := e.Write("job.sql", `SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE mysql_orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://db:3306/shop', 'table-name' = 'orders_rt',
      'username' = 'app', 'password' = 's3cr3t-pw');
SHOW TABLES;
INSERT INTO mysql_orders SELECT id, amount, status FROM orders;
SELECT id, amount, status, ts FROM orders;
SELECT * FROM no_such_table;
SHOW TABLES;
`)
	r := e.run(time.Minute, "-f", script, "--gateway", g.URL)
	out := r.all()
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the failing SELECT)\n%s", r.code, out)
	}
	for _, want := range []string{
		"[INFO] Execute statement succeeded.",
		"|   table name |\n+--------------+\n| mysql_orders |",
		"[INFO] Submitting SQL update statement to the cluster...\n[INFO] SQL update statement has been successfully submitted to the cluster:\nJob ID: 6c1a8d3e4f5b6a7c8d9e0f1a2b3c4d5e",
		"| +I |                 1001 |        80.00 |                        CREATED | 2024-01-01 10:00:00.500 |\n" +
			"| -U |                 1001 |        80.00 |                        CREATED | 2024-01-01 10:00:00.500 |\n" +
			"| +U |                 1001 |       100.00 |                         <NULL> | 2024-01-01 10:05:00.000 |\n",
		"Received a total of 3 rows",
		"[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 15 to line 1, column 27: Object 'no_such_table' not found (connection jdbc:mysql://db:3306/shop?password=******)",
		"job.sql:8: statement failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	assertNoSecret(t, out)
	if got := strings.Join(g.Statements(), " "); got != "SET CREATE SHOW INSERT SELECT SELECT" {
		t.Errorf("statements sent: %s (the script stops at the failure)", got)
	}
	if g.OpenSessions() != 0 {
		t.Errorf("session left open; requests:\n%s", strings.Join(g.Log(), "\n"))
	}
}
