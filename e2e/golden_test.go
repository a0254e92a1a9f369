package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/internal/testutil/sqlrunbin"
)

// TestGolden runs the scripts in testdata/e2e. Regenerate with
//
//	go test ./e2e -run TestGolden -rewrite
//
// Directives (each file gets its own env: temp HOME and work dir $DIR):
//
//	require mariadb|paimon|paimon-catalog   skip the file when the thing cannot be had (first directive)
//	var name=X               $X in later directives stands for the input ($VARS expanded)
//	file name=N              write the input to $DIR/N ($VARS expanded)
//	run [resume]             sqlrun -f <input as a script> [--resume]; prints stdout, stderr, exit code
//	exec                     sqlrun <input as arguments, one per line>
//	explain                  sqlrun explain -f <input as a script>
//	mysql                    run the input's statements on MariaDB as the administrator ($DB is this file's database)
//	mysql-query              run one query on MariaDB, print its rows
//	mysql-counters           MariaDB's Com_insert/Com_delete/... since the previous mysql-counters
//	cat name=N               print the file (or, for a directory, every visible file's lines sorted)
//
// Scripts may use $DIR, and with MariaDB $JDBC_URL, $USER, $PASSWORD, $DB.
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "../testdata/e2e", func(t *testing.T, path string) {
		e := newEnv(t)
		var srv *mariadb.Server
		var lastCounters map[string]int64
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if out, ok := e.Directive(t, d, srv); ok {
				return out
			}
			switch d.Cmd {
			case "require":
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "mariadb":
						srv = needMariaDB(t)
						e.UseMariaDB(t, srv)
						e.Vars["$MYSQL_ADDR"] = net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port))
					case "paimon":
						needPaimon(t)
					case "paimon-catalog":
						needPaimonCatalog(t)
					default:
						d.Fatalf(t, "unknown requirement %q", a.Key)
					}
				}
				return ""
			case "run":
				script := e.Write(e.nextScript(), d.Input+"\n")
				args := []string{"-f", script}
				if d.HasArg("resume") {
					args = append(args, "--resume")
				}
				return e.show(e.run(2*time.Minute, args...))
			case "explain":
				script := e.Write(e.nextScript(), d.Input+"\n")
				return e.show(e.run(time.Minute, "explain", "-f", script))
			case "exec":
				var args []string
				for _, l := range strings.Split(d.Input, "\n") {
					if l != "" {
						args = append(args, e.Expand(l))
					}
				}
				return e.show(e.run(time.Minute, args...))
			case "mysql-counters":
				// The statements the server ran since the previous
				// mysql-counters (server-wide: golden files run one at a time).
				if srv == nil {
					d.Fatalf(t, "mysql-counters needs 'require mariadb' first")
				}
				names := []string{"Com_insert", "Com_delete", "Com_update", "Com_replace"}
				cur := srv.Status(t, names...)
				var b strings.Builder
				if lastCounters != nil {
					for _, n := range names {
						fmt.Fprintf(&b, "%s +%d\n", n, cur[n]-lastCounters[n])
					}
				}
				lastCounters = cur
				return b.String()
			case "cat":
				var name string
				d.ScanArgs(t, "name", &name)
				return e.normalize(catPath(t, filepath.Join(e.Dir, name)))
			default:
				d.Fatalf(t, "unknown directive %q", d.Cmd)
				return ""
			}
		})
	})
}

// show renders a finished run for a golden: normalized stdout, then
// stderr and the exit code when there are any.
func (e *env) show(r result) string {
	var b strings.Builder
	b.WriteString(e.normalize(r.stdout))
	if r.stderr != "" {
		b.WriteString("\n-- stderr:\n")
		b.WriteString(e.normalize(r.stderr))
	}
	if r.code != 0 {
		fmt.Fprintf(&b, "\n-- exit %d\n", r.code)
	}
	return b.String()
}

// nextScript names the next script file: numbered in order, so goldens
// stay stable when -rewrite shifts their lines.
func (e *env) nextScript() string {
	e.seq++
	return fmt.Sprintf("script-%d.sql", e.seq)
}

// catPath prints a file, or the sorted lines of every visible file of a
// directory (a sink's part files: their names carry uuids, and the order
// across files is not the point).
func catPath(t testing.TB, p string) string {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	if !st.IsDir() {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lines := dirLines(t, p)
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// dirLines returns the lines of every committed (visible) file in dir.
func dirLines(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ent := range ents {
		if ent.IsDir() || strings.HasPrefix(ent.Name(), ".") || strings.HasPrefix(ent.Name(), "_") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// maria is the MariaDB server shared by the whole test binary (one
// startup, each test in its own database), closed by TestMain; its
// password is a secret no output may contain.
var maria = &sqlrunbin.SharedMariaDB{OnStart: func(srv *mariadb.Server) { addSecret(srv.Password) }}

func needMariaDB(t testing.TB) *mariadb.Server { return maria.Need(t) }

func closeMariaDB() { maria.Close() }

// needPaimon skips when Paimon tables are not yet usable from SQL, naming
// the missing piece. It probes the binary once: a table created through a
// Paimon catalog, declared in the default catalog with 'connector'='paimon'
// and its 'path', one INSERT and one batch SELECT.
var (
	paimonOnce sync.Once
	paimonGap  string
)

func needPaimon(t testing.TB) {
	t.Helper()
	paimonOnce.Do(func() {
		paimonGap = probe(t, `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE p.`+"`default`"+`.probe (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
CREATE TABLE probe WITH ('connector' = 'paimon', 'path' = '$DIR/wh/default.db/probe') LIKE p.`+"`default`"+`.probe;
`)
	})
	if paimonGap != "" {
		t.Skip(paimonGap)
	}
}

// needPaimonCatalog skips when tables of a Paimon catalog cannot be read
// and written by name (USE CATALOG p; INSERT INTO t ...).
var (
	paimonCatOnce sync.Once
	paimonCatGap  string
)

func needPaimonCatalog(t testing.TB) {
	t.Helper()
	paimonCatOnce.Do(func() {
		paimonCatGap = probe(t, `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
USE CATALOG p;
CREATE TABLE probe (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
`)
	})
	if paimonCatGap != "" {
		t.Skip(paimonCatGap)
	}
}

// probe runs ddl, then INSERT INTO probe and a batch SELECT, and returns
// "" when the row comes back, else what went wrong.
func probe(t testing.TB, ddl string) string {
	e := newEnv(t)
	r := e.runScript("probe.sql", `
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.dml-sync' = 'true';
`+ddl+`
INSERT INTO probe VALUES (1, 'a');
SET 'execution.runtime-mode' = 'batch';
SELECT * FROM probe;
`, time.Minute)
	if r.code == 0 && strings.Contains(r.stdout, "1 row in set") {
		return ""
	}
	msg := r.stderr
	if msg == "" {
		msg = r.stdout
	}
	if i := strings.LastIndex(msg, "statement failed: "); i >= 0 {
		msg = msg[i+len("statement failed: "):]
	}
	gap := "Paimon is not usable from SQL yet: " + strings.TrimSpace(e.normalize(msg))
	if strings.Contains(msg, "no 'path' option") {
		gap += " — the catalog manager gives no TablePath (catalog.TablePather), so a Paimon catalog's tables reach the connector without 'path'"
	}
	return gap
}
