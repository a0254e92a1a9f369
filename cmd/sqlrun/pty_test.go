package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// screen collects what sqlrun writes to its terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// text is the screen so far without terminal control sequences.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.ReplaceAllString(s.buf.String(), "")
}

// raw is everything written to the terminal, control sequences included.
func (s *screen) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// session is sqlrun running in a pseudo-terminal.
type ptySession struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd
	scr  *screen
	done chan struct{}
}

func startPTY(t *testing.T, home string, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command(sqlrunBin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"), "TERM=xterm")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptySession{t: t, tty: tty, cmd: cmd, scr: &screen{}, done: make(chan struct{})}
	go func() {
		_, _ = io.Copy(p.scr, tty)
		close(p.done)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		tty.Close()
	})
	return p
}

// waitFor waits until the screen shows want n times in total.
func (p *ptySession) waitFor(want string, n int) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Count(p.scr.text(), want) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("screen never showed %q %d time(s); screen:\n%s", want, n, p.scr.text())
}

// waitIdle waits until the shell is back at an empty prompt: the screen
// ends with the prompt and nothing after it. Counting prompts is not
// enough, since the line editor redraws the prompt on every keystroke and
// a live table view prints "N rows in set" footers while it runs.
func (p *ptySession) waitIdle() {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if strings.HasSuffix(strings.TrimRight(p.scr.text(), " \n"), strings.TrimSpace(prompt)) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("shell never came back to an empty prompt; screen:\n%s", p.scr.text())
}

// typeKeys sends keystrokes, slowly enough for the line editor.
func (p *ptySession) typeKeys(s string) {
	p.t.Helper()
	for len(s) > 0 {
		// A key is one rune, or a whole escape sequence (ESC [ ... final
		// byte) written at once, as a terminal sends it: liner takes an ESC
		// followed by nothing within its escape timeout for a lone Escape
		// key, which a loaded machine's scheduling gap between single-byte
		// writes could otherwise trigger (the up arrow then typed "[A").
		n := len(string([]rune(s)[0]))
		if s[0] == '\x1b' {
			n = 1
			for n < len(s) && (n == 1 || !(s[n-1] >= 'A' && s[n-1] <= 'Z' || s[n-1] >= 'a' && s[n-1] <= 'z' || s[n-1] == '~')) {
				n++
			}
		}
		if _, err := p.tty.Write([]byte(s[:n])); err != nil {
			p.t.Fatal(err)
		}
		s = s[n:]
		time.Sleep(2 * time.Millisecond)
	}
}

const (
	keyEnter = "\r"
	keyUp    = "\x1b[A"
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
	keyTab   = "\t"
)

// TestShell drives the shell as a person does: a multi-line CREATE
// TABLE, DESCRIBE (with the table name completed by Tab), a syntax error,
// history recall with the up arrow, Ctrl-C to drop a half-typed
// statement, and Ctrl-D to leave; then the history file.
func TestShell(t *testing.T) {
	home := t.TempDir()
	p := startPTY(t, home)
	p.waitFor("Welcome! Enter 'HELP;' to list all available commands. 'QUIT;' to exit.", 1)
	p.waitFor(prompt, 1)

	// A multi-line statement: continuation prompts until the ';'.
	p.typeKeys("CREATE TABLE orders (" + keyEnter)
	p.waitFor(continuationPrompt, 1)
	p.typeKeys("  id BIGINT," + keyEnter)
	p.typeKeys("  amount DECIMAL(10, 2)," + keyEnter)
	p.typeKeys("  PRIMARY KEY (id) NOT ENFORCED" + keyEnter)
	p.waitFor(continuationPrompt, 3)
	p.typeKeys(") WITH ('connector' = 'blackhole', 'password' = 'hunter2');" + keyEnter)
	p.waitFor("[INFO] Execute statement succeeded.", 1)

	// DESCRIBE, the table name completed with Tab.
	p.typeKeys("DESCRIBE ord" + keyTab)
	p.waitFor("DESCRIBE orders", 1)
	p.typeKeys(";" + keyEnter)
	p.waitFor("|     id |         BIGINT | FALSE | PRI(id) |        |           |", 1)
	p.waitFor("2 rows in set", 1)

	// A syntax error: the shell reports it and goes on.
	p.typeKeys("SELECT * FORM orders;" + keyEnter)
	p.waitFor("org.apache.flink.table.api.SqlParserException: SQL parse failed. Encountered \"FORM\" at line 1, column 10.", 1)

	// History: up twice recalls DESCRIBE; Enter runs it again.
	p.typeKeys(keyUp)
	p.waitFor("SELECT * FORM orders;", 2)
	p.typeKeys(keyUp)
	p.typeKeys(keyEnter)
	p.waitFor("2 rows in set", 2)

	// Ctrl-C drops the statement being typed, even over several lines.
	p.typeKeys("SELECT amount" + keyEnter)
	p.waitFor(continuationPrompt, 4)
	p.typeKeys("FROM nowhere" + keyCtrlC)
	p.typeKeys("SHOW TABLES;" + keyEnter)
	p.waitFor("1 row in set", 1)
	if strings.Contains(p.scr.text(), "nowhere") && strings.Contains(p.scr.text(), "Object 'nowhere'") {
		t.Fatalf("the cancelled statement ran:\n%s", p.scr.text())
	}

	// Ctrl-D leaves with status 0.
	p.typeKeys(keyCtrlD)
	p.waitFor("Shutting down the session...", 1)
	p.waitFor("done.", 1)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("sqlrun did not exit after Ctrl-D")
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}

	hist, err := os.ReadFile(filepath.Join(home, historyFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"CREATE TABLE orders ( id BIGINT, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED ) WITH ('connector' = 'blackhole', 'password' = '******');",
		"DESCRIBE orders;", "SELECT * FORM orders;", "SHOW TABLES;",
	} {
		if !strings.Contains(string(hist), want+"\n") {
			t.Errorf("history lacks %q:\n%s", want, hist)
		}
	}
	if strings.Contains(string(hist), "hunter2") {
		t.Errorf("a password went into the history:\n%s", hist)
	}
	if strings.Contains(string(hist), "nowhere") {
		t.Errorf("a cancelled input went into the history:\n%s", hist)
	}
}

// TestShellQuit leaves with QUIT; and shows that history persists into
// the next session.
func TestShellQuit(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, historyFile), []byte("SHOW CATALOGS;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startPTY(t, home)
	p.waitFor(prompt, 1)
	p.typeKeys(keyUp + keyEnter)
	p.waitFor("default_catalog |", 1)
	p.typeKeys("quit" + keyEnter)
	p.waitFor("done.", 1)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("sqlrun did not exit after QUIT")
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// TestShellCancelQuery: Ctrl-C during a streaming query cancels it (not
// the shell), prints Flink's "Query terminated" footer and returns to the
// prompt; the table result mode (the default) shows a live view.
func TestShellCancelQuery(t *testing.T) {
	home := t.TempDir()
	p := startPTY(t, home)
	p.waitFor(prompt, 1)
	p.typeKeys("CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20'," +
		" 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');" + keyEnter)
	p.waitFor("[INFO] Execute statement succeeded.", 1)
	p.typeKeys("SET 'sql-client.execution.result-mode' = 'tableau';" + keyEnter)
	p.waitFor("[INFO] Execute statement succeeded.", 2)
	p.typeKeys("SELECT * FROM src;" + keyEnter)
	p.waitFor("| op |                   id |", 1)
	p.waitFor("| +I |                    3 |", 1)
	p.typeKeys(keyCtrlC)
	p.waitFor("Query terminated, received a total of ", 1)
	p.waitIdle()

	// The default table mode: a view redrawn in place; Ctrl-C leaves it.
	p.typeKeys("RESET 'sql-client.execution.result-mode';" + keyEnter)
	p.waitFor("[INFO] Execute statement succeeded.", 3)
	p.typeKeys("SELECT * FROM src;" + keyEnter)
	// The table view sizes columns to their content ("|  3 |"); waiting
	// for the tableau run's wide cell above returned at once and sent
	// Ctrl-C while the line editor still had the terminal raw, where it is
	// a character, not SIGINT, and the query ran on (seen under load in CI).
	p.waitFor("|  3 |", 1)
	p.typeKeys(keyCtrlC)
	p.waitIdle()
	// A full-screen view: one visit to the alternate screen, frames
	// redrawn in place (cursor home), never a full clear that pushes
	// copies into the scrollback; the final table once afterwards.
	raw := p.scr.raw()
	view := raw[strings.Index(raw, "RESET 'sql-client.execution.result-mode'"):]
	if strings.Count(view, "\x1b[?1049h") != 1 || strings.Count(view, "\x1b[?1049l") != 1 ||
		strings.Contains(view, "\x1b[2J") || strings.Count(view, "Table mode: rows ") < 1 {
		t.Fatalf("the table view is not one full-screen view redrawn in place: %q", view)
	}
	if after := view[strings.Index(view, "\x1b[?1049l"):]; !strings.Contains(after, " rows in set") {
		t.Fatalf("no final table after the view: %q", after)
	}
	// Paging keys (Flink's CliTableResultView): the view follows the last
	// page; G shows the first page and stays there; Q leaves the view (the
	// query ends) and the terminal is the line editor's again.
	frames := strings.Count(p.scr.text(), "(last page)")
	p.typeKeys("SELECT * FROM src;" + keyEnter)
	p.waitFor("(last page)", frames+1) // the new view is up, reading keys
	p.waitFor("N next page, P previous page", 1)
	p.typeKeys("g")
	p.waitFor("Table mode: rows 1-", 1)
	p.waitFor("(page)", 1)
	p.typeKeys("q")
	p.waitIdle()
	p.typeKeys("SHOW TABLES;" + keyEnter)
	p.waitFor("| table name |", 1)
	p.waitIdle()
	p.typeKeys("QUIT;" + keyEnter)
	p.waitFor("done.", 1)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("sqlrun did not exit")
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// TestShellTerm: Tab completes an option key; SIGTERM at the prompt
// leaves the shell cleanly (exit 0), stopping the running job gracefully
// with a savepoint.
func TestShellTerm(t *testing.T) {
	p := startPTY(t, t.TempDir())
	p.waitFor(prompt, 1)
	p.typeKeys("SET 'table.dml-s" + keyTab)
	p.waitFor("SET 'table.dml-sync'", 1)
	p.typeKeys(" = 'false';" + keyEnter)
	p.waitFor("[INFO] Execute statement succeeded.", 1)
	p.typeKeys("CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');" + keyEnter)
	p.typeKeys("CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');" + keyEnter)
	p.typeKeys("INSERT INTO sink SELECT * FROM src;" + keyEnter)
	p.waitFor("Job ID: ", 1)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitFor("[INFO] Stopping 1 running job(s) gracefully...", 1)
	p.waitFor("(insert-into_default_catalog.default_database.sink) stopped with savepoint: ", 1)
	p.waitFor("done.", 1)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("sqlrun did not exit after SIGTERM")
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}
