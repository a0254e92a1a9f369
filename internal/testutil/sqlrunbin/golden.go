package sqlrunbin

import (
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// SharedMariaDB is one MariaDB server for a whole test binary, started on
// first need (each golden file or test gets its own database) and closed
// by TestMain.
type SharedMariaDB struct {
	// OnStart, when set, sees the server once after it started (e2e
	// registers its password as a secret no output may contain).
	OnStart func(*mariadb.Server)

	once sync.Once
	srv  *mariadb.Server
	err  error
}

// Need returns the server, skipping the test when none can be had.
func (m *SharedMariaDB) Need(t testing.TB) *mariadb.Server {
	t.Helper()
	m.once.Do(func() {
		m.srv, m.err = mariadb.StartServer()
		if m.err == nil && m.OnStart != nil {
			m.OnStart(m.srv)
		}
	})
	if m.err != nil {
		t.Skipf("no MariaDB server can be had (install mariadb-server or set SQLRUN_MYSQL_DSN): %v", m.err)
	}
	return m.srv
}

// Started is the server if one was started, else nil.
func (m *SharedMariaDB) Started() *mariadb.Server { return m.srv }

// Close stops the server if one was started.
func (m *SharedMariaDB) Close() {
	if m.srv != nil {
		_ = m.srv.Close()
	}
}

// UseMariaDB gives the env a fresh database on srv and the $VARS scripts
// use to reach it: $DB, $JDBC_URL, $USER, $PASSWORD.
func (e *Env) UseMariaDB(t testing.TB, srv *mariadb.Server) {
	t.Helper()
	db := srv.NewDatabase(t)
	e.Vars["$DB"] = db
	e.Vars["$JDBC_URL"] = srv.JDBCURL(db)
	e.Vars["$USER"] = srv.User
	e.Vars["$PASSWORD"] = srv.Password
}

// Directive runs the golden directives every driver reads the same way
// and says whether d was one of them:
//
//	var name=X      $X in later inputs stands for this input ($VARS expanded)
//	file name=N     write the input ($VARS expanded) to $DIR/N
//	mysql           run the input's statements on MariaDB as the administrator
//	mysql-query     run one query on MariaDB, print its rows
//
// srv is the file's MariaDB (nil until 'require mariadb').
func (e *Env) Directive(t *testing.T, d *datadriven.TestData, srv *mariadb.Server) (string, bool) {
	t.Helper()
	switch d.Cmd {
	case "var":
		var name string
		d.ScanArgs(t, "name", &name)
		e.Vars["$"+name] = e.Expand(d.Input)
		return "", true
	case "file":
		var name string
		d.ScanArgs(t, "name", &name)
		e.Write(name, d.Input+"\n")
		return "", true
	case "mysql":
		if srv == nil {
			d.Fatalf(t, "mysql needs 'require mariadb' first")
		}
		for _, stmt := range strings.Split(d.Input, ";") {
			if s := strings.TrimSpace(stmt); s != "" {
				srv.Exec(t, e.Expand(s))
			}
		}
		return "", true
	case "mysql-query":
		if srv == nil {
			d.Fatalf(t, "mysql-query needs 'require mariadb' first")
		}
		var b strings.Builder
		for _, r := range srv.Query(t, e.Expand(d.Input)) {
			b.WriteString(strings.Join(r, ", "))
			b.WriteByte('\n')
		}
		return b.String(), true
	}
	return "", false
}
