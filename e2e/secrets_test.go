package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The secrets test (issue 23, finding 3): every form a secret can take in
// sqlrun's input — a connector's 'password' option, a password in a JDBC
// url's query or user-info part, an OPTIONS hint, and a SET or catalog
// option whose key contains one of the fragments Flink's
// GlobalConfiguration.isSensitive looks for (its SENSITIVE_KEYS) — goes
// through every path sqlrun writes to: the -f echo, -e, the shell and its
// history file, SHOW CREATE TABLE, DESCRIBE, SET's listing, EXPLAIN in all
// forms (PLAN FOR, CHANGELOG_MODE/ESTIMATED_COST/JSON_EXECUTION_PLAN,
// `sqlrun explain`, --dot), error messages (planning, connection, parse,
// catalog, job failure), the Prometheus metrics, and every file left
// under HOME and the work dir (checkpoints, savepoints, history). No
// clear-text secret may appear in any of them: each run's output is
// checked by env.run (assertNoSecret) and the files by
// assertNoSecretInFiles.

// sensitiveKeyFragments are Flink 1.20's GlobalConfiguration.SENSITIVE_KEYS.
var sensitiveKeyFragments = []string{"password", "secret", "fs.azure.account.key", "apikey",
	"auth-params", "service-key", "token", "basic-auth", "jaas.config", "http-headers"}

// secretValue makes a distinct secret for one form and registers it.
func secretValue(form string) string {
	v := "Sq1Secret" + strings.NewReplacer(".", "", "-", "", "_", "").Replace(form)
	addSecret(v)
	return v
}

// secretDDL is the definitions: a table per JDBC secret form, a SET per
// sensitive key fragment, and the statements that print them back.
func secretDDL(host string, port int, db string) (ddl string, show string) {
	pwOpt := secretValue("pwoption")
	urlQuery := secretValue("urlquery")
	urlQueryUpper := secretValue("urlqueryupper")
	userinfo := secretValue("userinfo")
	hint := secretValue("hint")
	base := fmt.Sprintf("jdbc:mysql://%s:%d/%s", host, port, db)
	var b strings.Builder
	fmt.Fprintf(&b, `SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE gen (id BIGINT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE j_opt (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%[1]s', 'table-name' = 'sec',
  'username' = 'u', 'password' = '%[2]s');
CREATE TABLE j_query (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%[1]s?user=u&password=%[3]s&useSSL=false', 'table-name' = 'sec');
CREATE TABLE j_query_upper (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%[1]s?user=u&PASSWORD=%[4]s', 'table-name' = 'sec');
CREATE TABLE j_userinfo (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:mysql://u:%[5]s@%[6]s:%[7]d/%[8]s', 'table-name' = 'sec');
`, base, pwOpt, urlQuery, urlQueryUpper, userinfo, host, port, db)
	for _, k := range sensitiveKeyFragments {
		fmt.Fprintf(&b, "SET 'my.%s' = '%s';\n", k, secretValue("set"+k))
	}
	var s strings.Builder
	for _, tbl := range []string{"j_opt", "j_query", "j_query_upper", "j_userinfo"} {
		fmt.Fprintf(&s, "SHOW CREATE TABLE %s;\nDESCRIBE %s;\n", tbl, tbl)
		fmt.Fprintf(&s, "EXPLAIN PLAN FOR INSERT INTO %s SELECT * FROM gen;\n", tbl)
		fmt.Fprintf(&s, "EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, JSON_EXECUTION_PLAN INSERT INTO %s SELECT * FROM gen;\n", tbl)
		fmt.Fprintf(&s, "EXPLAIN JSON_EXECUTION_PLAN SELECT * FROM %s;\n", tbl)
	}
	fmt.Fprintf(&s, "EXPLAIN INSERT INTO j_opt /*+ OPTIONS('url' = '%s?password=%s') */ SELECT * FROM gen;\n", base, hint)
	s.WriteString("EXPLAIN PLAN FOR EXECUTE STATEMENT SET BEGIN\nINSERT INTO j_opt SELECT * FROM gen;\nINSERT INTO j_userinfo SELECT * FROM gen;\nEND;\n")
	s.WriteString("SET;\nSHOW TABLES;\n")
	return b.String(), s.String()
}

// Every statement path that only plans or prints: -f (echo and results),
// -e, `sqlrun explain` and --dot, the shell and its history.
func TestSecretsNeverPrinted(t *testing.T) {
	e := newEnv(t)
	ddl, show := secretDDL("127.0.0.1", 1, "db")
	script := e.Write("secrets.sql", ddl+show)

	r := e.run(time.Minute, "-f", script)
	if r.code != 0 {
		t.Fatalf("-f: exit %d:\n%s", r.code, r.all())
	}
	for _, want := range []string{"'password' = '******'", "password=******", "u:******@", "| my.token | ****** |"} {
		if !strings.Contains(r.stdout, want) && !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("-f output lacks %q (the test must see the masked form)", want)
		}
	}
	if r := e.run(time.Minute, "-e", ddl+show); r.code != 0 {
		t.Fatalf("-e: exit %d:\n%s", r.code, r.all())
	}
	if r := e.run(time.Minute, "explain", "-f", script); r.code != 0 {
		t.Fatalf("explain: exit %d:\n%s", r.code, r.all())
	}
	if r := e.run(time.Minute, "explain", "--dot", "-f", script); r.code != 0 {
		t.Fatalf("explain --dot: exit %d:\n%s", r.code, r.all())
	}

	// The shell, statements typed one per line and one over several.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := e.Command(ctx)
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(ddl, ", 'table-name'", ",\n 'table-name'") + show + "QUIT;\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("shell: %v\n%s", err, out)
	}
	assertNoSecret(t, string(out))
	hist, err := os.ReadFile(filepath.Join(e.Home, ".sqlrun_history"))
	if err != nil {
		t.Fatalf("the shell wrote no history: %v", err)
	}
	if !strings.Contains(string(hist), "CREATE TABLE j_userinfo") {
		t.Fatalf("history lacks the statements:\n%s", hist)
	}
	assertNoSecretInFiles(t, e, script)
}

// Error paths: each script fails at a statement that carries a secret.
func TestSecretsNeverInErrors(t *testing.T) {
	e := newEnv(t)
	ddl, _ := secretDDL("127.0.0.1", 1, "db")
	bad := secretValue("badparam")
	parse := secretValue("parse")
	catalogSecret := secretValue("catalog")
	unsupported := secretValue("unsupported")
	notADir := e.Write("not-a-dir", "x")
	var scripts []string
	for i, failing := range []string{
		// The job fails connecting (port 1 is closed): runtime error.
		"SET 'table.dml-sync' = 'true';\nINSERT INTO j_query SELECT * FROM gen;",
		"INSERT INTO j_userinfo SELECT * FROM gen;",
		"INSERT INTO j_opt SELECT * FROM gen;",
		// The url does not parse: planning error naming the parameter.
		"CREATE TABLE j_bad (id BIGINT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://h:1/db?password=" + bad + "&bogus=1', 'table-name' = 't');\nINSERT INTO j_bad SELECT id FROM gen;",
		// A syntax error just after a secret.
		"CREATE TABLE p (id BIGINT) WITH ('password' = '" + parse + "' 'x');",
		// An unknown option whose value is a secret.
		"CREATE TABLE d (id BIGINT) WITH ('connector' = 'datagen', 'my.password' = '" + unsupported + "');\nEXPLAIN SELECT * FROM d;",
		// A catalog that cannot be created, with a secret option.
		"CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '" + notADir + "', 's3.secret-key' = '" + catalogSecret + "');",
		"CREATE CATALOG c WITH ('type' = 'nope', 'password' = '" + catalogSecret + "');",
	} {
		script := e.Write(fmt.Sprintf("fail%d.sql", i), ddl+failing)
		scripts = append(scripts, script)
		r := e.run(time.Minute, "-f", script)
		if r.code == 0 {
			t.Errorf("script %d (%q) exited 0:\n%s", i, failing, r.all())
		}
		if r := e.run(time.Minute, "explain", "-f", script); i >= 3 && r.code == 0 {
			t.Errorf("explain of script %d (%q) exited 0:\n%s", i, failing, r.all())
		}
		// The same failure from an init script.
		e.run(time.Minute, "-i", script, "-e", "SHOW TABLES;")
	}
	assertNoSecretInFiles(t, e, scripts...)
}

// A running job with a password in its url: the Prometheus metrics while
// it runs, its checkpoints, the savepoint of its stop, the --resume run.
func TestSecretsNeverInJobFiles(t *testing.T) {
	srv := needMariaDB(t)
	e := newEnv(t)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.sec (id BIGINT PRIMARY KEY, v VARCHAR(20))")
	user := fmt.Sprintf("sec%d", time.Now().UnixNano()%1e6)
	pw := secretValue("mariadbuser")
	srv.Exec(t, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", user, pw))
	srv.Exec(t, fmt.Sprintf("GRANT ALL ON `%s`.* TO '%s'@'%%'", db, user))
	t.Cleanup(func() { srv.Exec(t, fmt.Sprintf("DROP USER '%s'@'%%'", user)) })
	port := freeTCPPort(t)
	base := fmt.Sprintf("%s:%d/%s", srv.Host, srv.Port, db)
	script := e.Write("job.sql", fmt.Sprintf(`SET 'execution.checkpointing.interval' = '100ms';
SET 'metrics.reporter.prom.port' = '%[1]d';
SET 'pipeline.name' = 'secrets';
CREATE TABLE gen (id BIGINT, v STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '50',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000', 'fields.v.length' = '5');
CREATE TABLE a (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:mysql://%[2]s?user=%[3]s&password=%[4]s', 'table-name' = 'sec');
CREATE TABLE b (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:mysql://%[3]s:%[4]s@%[2]s', 'table-name' = 'sec');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO a SELECT * FROM gen WHERE MOD(id, 2) = 0;
  INSERT INTO b SELECT * FROM gen WHERE MOD(id, 2) = 1;
END;
`, port, base, user, url.QueryEscape(pw)))
	p := e.start("-f", script)
	p.waitRunning(time.Minute)
	p.waitFor("a checkpoint", time.Minute, func() bool { return len(completedCheckpoints(e.checkpointDir(), "secrets")) > 0 })
	p.waitFor("rows in MariaDB", time.Minute, func() bool {
		return len(srv.Query(t, "SELECT id FROM `"+db+"`.sec LIMIT 3")) >= 3
	})
	metrics := scrape(t, port)
	if !strings.Contains(metrics, "flink_") && !strings.Contains(metrics, "sqlrun") {
		t.Errorf("metrics endpoint served nothing recognisable:\n%.500s", metrics)
	}
	assertNoSecret(t, metrics)
	p.signal(syscall.SIGTERM)
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("stop: exit %d:\n%s", code, p.output())
	}
	if !strings.Contains(p.output(), "savepoint") {
		t.Errorf("no savepoint taken:\n%s", p.output())
	}
	p = e.start("--resume", "-f", script)
	p.waitRunning(time.Minute)
	p.signal(syscall.SIGTERM)
	p.wait(time.Minute)
	assertNoSecretInFiles(t, e, script)
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func scrape(t *testing.T, port int) string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		t.Fatalf("scrape metrics: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
