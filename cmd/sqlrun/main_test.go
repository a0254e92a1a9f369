package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sqlrunBin is the binary built once for the tests that run it as a
// person or a scheduler would (pty, signals).
var sqlrunBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sqlrun-bin-")
	if err != nil {
		panic(err)
	}
	sqlrunBin = filepath.Join(dir, "sqlrun")
	build := exec.Command("go", "build", "-o", sqlrunBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("build sqlrun: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.sql")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runCLI runs sqlrun in-process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func TestScriptSucceeds(t *testing.T) {
	f := writeScript(t, `-- the seed's sink table
CREATE TABLE mysql_orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'jdbc',
    'url' = 'jdbc:mysql://mysql-host:3306/serving',
    'table-name' = 'orders_rt',
    'username' = 'flink_writer',
    'password' = 'hunter2'
);
SHOW CREATE TABLE mysql_orders;
SET 'table.dml-sync' = 'true'
`)
	code, out, errOut := runCLI(t, "-f", f)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"[INFO] Executing SQL from file.\n", "[INFO] Execute statement succeeded.\n",
		"sqlrun> CREATE TABLE mysql_orders (\n      >     id BIGINT,\n", "      >     'password' = '******'\n      > );\n",
		"'password' = '******'", "CONSTRAINT `PK_3386` PRIMARY KEY (`id`) NOT ENFORCED"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, "hunter2") {
		t.Errorf("password printed:\n%s%s", out, errOut)
	}
}

// A script stops at its first failing statement; the exit code is 1 and
// stderr names the file and the statement's line.
func TestScriptStopsAtFirstFailure(t *testing.T) {
	f := writeScript(t, `CREATE TABLE a (x INT) WITH ('connector' = 'blackhole');

SHOW TABLES;
SELECT *
  FORM a;
CREATE TABLE b (x INT) WITH ('connector' = 'blackhole');
`)
	code, out, errOut := runCLI(t, "-f", f)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantErr := "[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.table.api.SqlParserException: SQL parse failed. Encountered \"FORM\" at line 2, column 3.\n"
	if !strings.Contains(out, wantErr) {
		t.Errorf("stdout lacks the error block:\n%s", out)
	}
	if want := f + ":5: statement failed: SQL parse failed."; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	if strings.Count(out, "[INFO] Execute statement succeeded.") != 1 {
		t.Errorf("statements after the failure ran:\n%s", out)
	}
}

func TestScriptQueryNeedsTableau(t *testing.T) {
	code, out, _ := runCLI(t, "-e", "SELECT 1;")
	if code != 1 || !strings.Contains(out, "In non-interactive mode, it only supports to use TABLEAU as value of sql-client.execution.result-mode when execute query.") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestInitScriptFailure(t *testing.T) {
	f := writeScript(t, "SET 'parallelism.default' = 'x';\n")
	code, out, _ := runCLI(t, "-i", f, "-e", "SHOW TABLES;")
	// sqlrun keeps no log: the message points to the error it printed and
	// the statement's line, not to a LOG (issue 23 finding 7).
	if code != 1 || !strings.Contains(out, "[ERROR] Could not execute SQL statement. Reason:\n") ||
		!strings.Contains(out, "Failed to initialize from sql script: "+f+". The statement at "+f+":1 failed with the error above.\n") ||
		strings.Contains(out, "LOG") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestInitThenExecute(t *testing.T) {
	f := writeScript(t, "CREATE TABLE t (x INT) WITH ('connector' = 'blackhole');\n")
	code, out, errOut := runCLI(t, "-i", f, "-e", "DESCRIBE t")
	if code != 0 || !strings.Contains(out, "|    x |  INT | TRUE |") ||
		!strings.HasPrefix(out, "Successfully initialized from sql script: "+f+"\n") {
		t.Fatalf("exit %d, stderr %s:\n%s", code, errOut, out)
	}
}

func TestFlags(t *testing.T) {
	if code, out, _ := runCLI(t, "--version"); code != 0 || !strings.HasPrefix(out, "sqlrun ") {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "--help"); code != 0 || !strings.Contains(out, "sqlrun -f job.sql") || !strings.Contains(out, "sqlrun compact --warehouse W") {
		t.Errorf("--help: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "--no-such-flag"); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
	if code, _, errOut := runCLI(t, "-f", "a.sql", "-e", "SHOW TABLES"); code != 2 || !strings.Contains(errOut, "cannot be used together") {
		t.Errorf("-f with -e: %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "-f", filepath.Join(t.TempDir(), "missing.sql")); code != 1 || !strings.Contains(errOut, "read script") {
		t.Errorf("missing file: %d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "explain"); code != 2 {
		t.Errorf("explain without -f: exit %d", code)
	}
}

const seedScript = `CREATE TABLE orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'paimon',
    'path' = 'hdfs:///warehouse/orders',
    'changelog-producer' = 'input',
    'consumer.expiration-time' = '1 d'
);
CREATE TABLE mysql_orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'jdbc',
    'url' = 'jdbc:mysql://mysql-host:3306/serving',
    'table-name' = 'orders_rt',
    'username' = 'flink_writer',
    'password' = 'hunter2',
    'sink.buffer-flush.max-rows' = '100',
    'sink.buffer-flush.interval' = '1s',
    'sink.max-retries' = '3'
);
INSERT INTO mysql_orders
SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'mysql-orders-v1') */;
`

// The explain subcommand runs the DDL and explains the seed's job with
// the real planner: text, then DOT.
func TestExplainSubcommand(t *testing.T) {
	f := writeScript(t, seedScript)
	code, out, errOut := runCLI(t, "explain", "-f", f)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"== Abstract Syntax Tree ==", "== Optimized Physical Plan ==",
		"== Optimized Execution Plan ==", "Sink(table=[default_catalog.default_database.mysql_orders]"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "explain", "--dot", "-f", f)
	if code != 0 || !strings.HasPrefix(out, "digraph") {
		t.Fatalf("--dot: exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "hunter2") {
		t.Errorf("password in DOT output")
	}
}

// Planning errors surface with Flink's text and the statement's line.
func TestExplainSubcommandError(t *testing.T) {
	f := writeScript(t, "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\nINSERT INTO t\nSELECT * FROM missing;\n")
	code, out, errOut := runCLI(t, "explain", "-f", f)
	if code != 1 || !strings.Contains(out, "Object 'missing' not found") || !strings.Contains(errOut, f+":2:") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
}

// The quickstart runs end to end with the real planner, compiler and
// runtime: order 1001's changes through a grouped query and into print.
func TestQuickstart(t *testing.T) {
	code, out, errOut := runCLI(t, "-f", filepath.Join("..", "..", "examples", "quickstart.sql"))
	if code != 0 {
		t.Fatalf("exit %d, stderr %s:\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"| op |                         status |                                    total |",
		"| +I |                        CREATED |                                    80.00 |",
		"| +U |                        CREATED |                                   135.50 |",
		"Received a total of 9 rows",
		"|      -U | 1001 |  80.00 | CREATED |", // orders_lookup$audit_log
		"[INFO] Submitting SQL update statement to the cluster...\n",
		"[INFO] Complete execution of the SQL update statement.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A long multi-line message (Flink's list of supported options) is printed
// once, in the error block on stdout; stderr's summary keeps its first
// line (issue 23 finding 7: the list was printed on both).
func TestLongErrorPrintedOnce(t *testing.T) {
	f := writeScript(t, "CREATE TABLE d (id INT) WITH ('connector' = 'datagen', 'bogus' = '1');\nEXPLAIN SELECT * FROM d;\n")
	code, out, errOut := runCLI(t, "-f", f)
	if code != 1 || !strings.Contains(out, "Supported options:\n\nconnector\nfields.*\n") {
		t.Fatalf("exit %d, stdout:\n%s", code, out)
	}
	if want := "sqlrun: " + f + ":2: statement failed: Unsupported options found for 'datagen'. (the full message is in the error above)\n"; errOut != want {
		t.Fatalf("stderr %q, want %q", errOut, want)
	}
}
