package badinput

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/sql"
)

// TestCorpus runs every file in testdata/badinput. Directives:
//
//	require mariadb          skip the file when no MariaDB can be had; sets $JDBC_URL, $USER, $PASSWORD, $DB
//	closed-port              sets $CLOSED_URL to a jdbc:mysql URL on a loopback port nothing listens on
//	var name=X               $X in later inputs stands for this input ($VARS expanded)
//	file name=N              write the input ($VARS expanded) to $DIR/N
//	run [timeout=D]          sqlrun -f job.sql with the input as job.sql; prints what went wrong and the exit code;
//	                         with timeout a run still going after D is killed and the golden says so
//	exec                     sqlrun with the input's lines as arguments
//	paimon-write path=P      write rows "id,v" (or "-id" to delete) to the Paimon table at $DIR/P
//	                         (id BIGINT primary key, v STRING, bucket 1), created on first use, one commit
//	select path=P            sqlrun: a batch SELECT * of the Paimon table at $DIR/P (id BIGINT, v STRING)
//	paimon-read path=P       read the table at $DIR/P with the Paimon table package; rows or the error
//	corrupt glob=G how=H     damage every file matching $DIR/G: truncate (keep half), empty, magic
//	                         (first 4 bytes), tail (last 8 bytes), flip (every byte of the middle third),
//	                         delete, replace (with the input), subst (input lines "old => new")
//	ls path=P                the files under $DIR/P, uuids masked
//	mysql                    run the input's statements on MariaDB as the administrator
//	mysql-query              run one query on MariaDB, print its rows
func TestCorpus(t *testing.T) {
	datadriven.Walk(t, "../testdata/badinput", func(t *testing.T, path string) {
		e := newEnv(t)
		var srv *mariadb.Server
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if out, ok := e.Directive(t, d, srv); ok {
				return out
			}
			switch d.Cmd {
			case "require":
				for _, a := range d.CmdArgs {
					if a.Key != "mariadb" {
						d.Fatalf(t, "unknown requirement %q", a.Key)
					}
					srv = needMariaDB(t)
					e.UseMariaDB(t, srv)
				}
				return ""
			case "closed-port":
				e.Vars["$CLOSED_URL"] = "jdbc:mysql://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/db"
				return ""
			case "run":
				e.Write("job.sql", d.Input+"\n")
				if d.HasArg("timeout") {
					var s string
					d.ScanArgs(t, "timeout", &s)
					to, err := time.ParseDuration(s)
					if err != nil {
						d.Fatalf(t, "timeout: %v", err)
					}
					return e.show(e.runAllowHang(to, true, "-f", "job.sql"))
				}
				return e.show(e.run(time.Minute, "-f", "job.sql"))
			case "exec":
				var args []string
				for _, l := range strings.Split(d.Input, "\n") {
					if l != "" {
						args = append(args, e.Expand(l))
					}
				}
				return e.show(e.run(time.Minute, args...))
			case "paimon-write":
				var p string
				d.ScanArgs(t, "path", &p)
				return e.normalize(paimonWrite(t, filepath.Join(e.Dir, p), d.Input))
			case "select":
				var p string
				d.ScanArgs(t, "path", &p)
				e.Write("select.sql", fmt.Sprintf(selectScript, filepath.Join(e.Dir, p)))
				return e.show(e.run(time.Minute, "-f", "select.sql"))
			case "paimon-read":
				var p string
				d.ScanArgs(t, "path", &p)
				return e.normalize(paimonRead(filepath.Join(e.Dir, p)))
			case "corrupt":
				var g, how string
				d.ScanArgs(t, "glob", &g)
				d.ScanArgs(t, "how", &how)
				return corrupt(t, e.Dir, g, how, e.Expand(d.Input))
			case "ls":
				var p string
				d.ScanArgs(t, "path", &p)
				return e.normalize(listFiles(t, filepath.Join(e.Dir, p)))
			default:
				d.Fatalf(t, "unknown directive %q", d.Cmd)
				return ""
			}
		})
	})
}

// closedPort returns a loopback port that was just listened on and closed,
// so a connection to it is refused at once.
func closedPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// selectScript reads a Paimon path table (%s: its path) in batch mode.
const selectScript = `SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'paimon', 'path' = '%s');
SELECT * FROM t;
`

var kvSchema = sql.Schema{
	Columns:    []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}},
	PrimaryKey: []string{"id"},
}

// paimonWrite writes one commit of rows to the table at dir, creating it
// (id BIGINT primary key, v STRING, one bucket) on first use.
func paimonWrite(t testing.TB, dir, input string) string {
	t.Helper()
	fio := fs.NewLocal()
	tbl, err := table.Open(fio, dir, nil)
	if err != nil {
		tbl, err = table.Create(fio, dir, kvSchema, nil, map[string]string{"bucket": "1"}, "", time.Now().UnixMilli())
		if err != nil {
			t.Fatalf("create %s: %v", dir, err)
		}
	}
	w, err := tbl.NewWrite(table.WriteOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("new write: %v", err)
	}
	defer w.Close()
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(input), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		row := sql.Row{Kind: sql.Insert}
		if strings.HasPrefix(l, "-") {
			id, err := strconv.ParseInt(l[1:], 10, 64)
			if err != nil {
				t.Fatalf("bad row %q", l)
			}
			row = sql.Row{Kind: sql.Delete, Values: []any{id, nil}}
		} else {
			id, v, _ := strings.Cut(l, ",")
			n, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				t.Fatalf("bad row %q", l)
			}
			row.Values = []any{n, v}
		}
		if err := w.Write(row); err != nil {
			t.Fatalf("write: %v", err)
		}
		n++
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		t.Fatalf("prepare commit: %v", err)
	}
	c := tbl.NewCommit("badinput")
	id, _, err := c.LatestCommitted()
	if err != nil {
		t.Fatalf("latest committed: %v", err)
	}
	if err := c.Commit(id+1, msgs, nil); err != nil {
		t.Fatalf("commit: %v", err)
	}
	return fmt.Sprintf("wrote %d rows\n", n)
}

// paimonRead reads the latest snapshot of the table at dir and returns its
// rows sorted, or the first error.
func paimonRead(dir string) string {
	rows, err := readTable(dir)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	if len(rows) == 0 {
		return "(no rows)\n"
	}
	return strings.Join(rows, "\n") + "\n"
}

func readTable(dir string) ([]string, error) {
	tbl, err := table.Open(fs.NewLocal(), dir, nil)
	if err != nil {
		return nil, err
	}
	s, err := tbl.ResolveSnapshot()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, nil
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		return nil, err
	}
	types := tbl.Schema.Types()
	var out []string
	for _, sp := range splits {
		r, err := tbl.NewSplitReader(sp, table.ReadOptions{})
		if err != nil {
			return nil, err
		}
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			out = append(out, sql.FormatRow(row, types))
		}
		if err := r.Close(); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// corrupt damages every file matching glob under dir and says how many.
func corrupt(t testing.TB, dir, glob, how, input string) string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		t.Fatalf("glob %q: %v", glob, err)
	}
	var files []string
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && !st.IsDir() {
			files = append(files, m)
		}
	}
	if len(files) == 0 {
		t.Fatalf("corrupt: no file matches %q", glob)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch how {
		case "truncate":
			b = b[:len(b)/2]
		case "empty":
			b = nil
		case "magic":
			copy(b, "XXXX")
		case "tail":
			if len(b) >= 8 {
				copy(b[len(b)-8:], "XXXXXXXX")
			}
		case "flip":
			for i := len(b) / 3; i < 2*len(b)/3; i++ {
				b[i] ^= 0xff
			}
		case "delete":
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		case "replace":
			b = []byte(input)
		case "subst":
			for _, l := range strings.Split(strings.TrimSpace(input), "\n") {
				old, repl, ok := strings.Cut(l, " => ")
				if !ok || !bytes.Contains(b, []byte(old)) {
					t.Fatalf("corrupt subst: %q not in %s", old, f)
				}
				b = bytes.ReplaceAll(b, []byte(old), []byte(repl))
			}
		default:
			t.Fatalf("corrupt: unknown how=%q", how)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("%s %d file(s)\n", how, len(files))
}

// listFiles lists the regular files under root, relative and sorted.
func listFiles(t testing.TB, root string) string {
	t.Helper()
	var out []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	sort.Strings(out)
	return strings.Join(out, "\n") + "\n"
}
