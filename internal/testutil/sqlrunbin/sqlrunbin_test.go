package sqlrunbin

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestExpandLongestNameFirst(t *testing.T) {
	e := NewEnv(t, "")
	e.Vars["$DIRX"] = "other"
	if got, want := e.Expand("$DIRX $DIR/a"), "other "+e.Dir+"/a"; got != want {
		t.Fatalf("Expand = %q, want %q", got, want)
	}
}

func TestNormalize(t *testing.T) {
	e := NewEnv(t, "")
	e.Vars["$DB"] = "db_1"
	e.Vars["$JDBC_URL"] = "jdbc:mysql://h:1/db_1"
	e.Vars["$USER"] = "sqlrun"
	in := e.Dir + "/t " + e.Home + "/.local jdbc:mysql://h:1/db_1 db_1 sqlrun: job 0123456789abcdef0123456789abcdef"
	want := "$DIR/t $HOME/.local $JDBC_URL $DB sqlrun: job <job-id>"
	if got := e.Normalize(in); got != want {
		t.Fatalf("Normalize = %q, want %q", got, want)
	}
}

func TestRunAndProc(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	e := NewEnv(t, sh)
	r := e.Run(10*time.Second, "-c", `echo "$HOME"; echo err >&2; exit 3`)
	if r.Code != 3 || r.TimedOut || strings.TrimSpace(r.Stdout) != e.Home || r.Stderr != "err\n" {
		t.Fatalf("Run = %+v", r)
	}
	if r := e.Run(200*time.Millisecond, "-c", "sleep 30"); !r.TimedOut {
		t.Fatalf("Run of a hang = %+v, want TimedOut", r)
	}
	p, err := Start(e.Command(t.Context(), "-c", "echo up; sleep 30"))
	if err != nil {
		t.Fatal(err)
	}
	if code, timedOut, err := p.Wait(300 * time.Millisecond); !timedOut || code != -1 || err != nil {
		t.Fatalf("Wait = %d %v %v, want a timeout", code, timedOut, err)
	}
	if !p.Exited() || p.Output() != "up\n" {
		t.Fatalf("after kill: exited=%v output=%q", p.Exited(), p.Output())
	}
}
