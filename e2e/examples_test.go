package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// examplesDir is the repository's examples/, copied into an env's work dir
// so the examples' relative paths (./sqlrun-quickstart, examples/data) land
// in the temp dir, as they would in a fresh clone's root.
func (e *env) copyExamples() string {
	e.T.Helper()
	src, err := filepath.Abs("../examples")
	if err != nil {
		e.T.Fatal(err)
	}
	dst := filepath.Join(e.Dir, "examples")
	err = filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		e.T.Fatal(err)
	}
	return dst
}

// TestExamplesQuickstartAndWatch runs the README's first command
// (sqlrun -f examples/quickstart.sql: it must end by itself, exit 0), then
// examples/watch_changelog.sql until every producer printed order 1001's
// life, and checks each producer's changelog against the seed.
func TestExamplesQuickstartAndWatch(t *testing.T) {
	needPaimon(t)
	e := newEnv(t)
	e.copyExamples()
	start := time.Now()
	r := e.run(time.Minute, "-f", "examples/quickstart.sql")
	if r.code != 0 {
		t.Fatalf("quickstart: exit %d\n%s", r.code, r.all())
	}
	t.Logf("quickstart ran in %s", time.Since(start).Round(time.Millisecond))
	for _, want := range []string{
		"ChangelogNormalize(key=[id])",
		"|            none | 1002 |  35.50 | CREATED |",
		"Received a total of 9 rows",
		// t$audit_log between snapshots: input's -D verbatim, lookup's and
		// full-compaction's -U[80]/+U[100].
		"|      -D | 1001 |  80.00 | CREATED |",
		"|      -U | 1001 |  80.00 | CREATED |",
		"|      +U | 1001 | 100.00 | CREATED |",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("quickstart output lacks %q", want)
		}
	}
	if n := strings.Count(r.stdout, "ChangelogNormalize(key=[id])"); n != 2 {
		t.Errorf("ChangelogNormalize appears %d times, want 2 (physical and execution plan of producer none only)", n)
	}

	p := e.start("-f", "examples/watch_changelog.sql")
	p.waitFor("20 changelog rows", 30*time.Second, func() bool { return strings.Count(p.output(), "CREATED]") >= 20 })
	time.Sleep(300 * time.Millisecond)
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("watch: SIGTERM exit %d", code)
	}
	got := map[string][]string{}
	for _, l := range strings.Split(p.output(), "\n") {
		if i := strings.Index(l, "> "); i > 0 && strings.HasSuffix(l, "]") {
			got[l[:i]] = append(got[l[:i]], l[i+2:])
		}
	}
	seed := map[string][]string{
		"input":           {i80, d80, i100, "-D[1001, 100.00, CREATED]"},
		"none":            {i80, ub80, ua00, "-D[1001, 100.00, CREATED]"},
		"lookup":          {i80, ub80, ua00, "-D[1001, 100.00, CREATED]"},
		"full-compaction": {i80, ub80, ua00, "-D[1001, 100.00, CREATED]"},
	}
	var names []string
	for k := range seed {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		var only1001 []string
		for _, l := range got[k] {
			if strings.Contains(l, "[1001,") {
				only1001 = append(only1001, l)
			}
		}
		if strings.Join(only1001, " ") != strings.Join(seed[k], " ") {
			t.Errorf("%s printed %v for order 1001, want %v", k, only1001, seed[k])
		}
	}
}

// TestExampleCDCDebezium runs examples/cdc_debezium.sql (it must end by
// itself) and checks the Paimon table it leaves.
func TestExampleCDCDebezium(t *testing.T) {
	needPaimon(t)
	e := newEnv(t)
	e.copyExamples()
	r := e.run(time.Minute, "-f", "examples/cdc_debezium.sql")
	if r.code != 0 {
		t.Fatalf("cdc_debezium: exit %d\n%s", r.code, r.all())
	}
	final := r.stdout[strings.LastIndex(r.stdout, "SELECT * FROM orders_ods"):]
	for _, want := range []string{"| 1002 |  35.50 |    PAID |", "| 1003 |  12.00 | CREATED |", "2 rows in set"} {
		if !strings.Contains(final, want) {
			t.Errorf("orders_ods after the CDC file lacks %q:\n%s", want, final)
		}
	}
}

// TestExamplePaimonToMySQL runs examples/paimon_to_mysql.sql against the
// test MariaDB (url, user and password substituted) after the quickstart,
// and checks that orders_rt gets the quickstart's final state.
func TestExamplePaimonToMySQL(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	e := newEnv(t)
	dir := e.copyExamples()
	if r := e.run(time.Minute, "-f", "examples/quickstart.sql"); r.code != 0 {
		t.Fatalf("quickstart: exit %d\n%s", r.code, r.all())
	}
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	b, err := os.ReadFile(filepath.Join(dir, "paimon_to_mysql.sql"))
	if err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer(
		"jdbc:mysql://127.0.0.1:3306/serving", srv.JDBCURL(db),
		"'flink_writer'", "'"+srv.User+"'",
		"'change-me'", "'"+srv.Password+"'",
	).Replace(string(b))
	if !strings.Contains(script, srv.Password) {
		t.Fatal("the example's password placeholder moved; update the test")
	}
	p := e.start("-f", e.Write("examples/paimon_to_mysql_local.sql", script))
	p.waitFor("orders_rt holds order 1002", 30*time.Second, func() bool {
		return srv.Table(t, db, "orders_rt") == "1002, 35.50, CREATED\n"
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
}
