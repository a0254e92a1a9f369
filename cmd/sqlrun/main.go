// Command sqlrun runs Flink SQL jobs on one machine, without a JVM.
//
//	sqlrun                      the interactive shell (Flink SQL client style)
//	sqlrun -i init.sql          run init.sql, then the shell
//	sqlrun -f job.sql           run a script, wait for its jobs
//	sqlrun -e "SQL; SQL;"       run statements given inline, wait for jobs
//	sqlrun --resume -f job.sql  restore every job from its latest checkpoint
//	sqlrun explain [--dot] -f job.sql
//	sqlrun compact --warehouse W --database D --table T [--full] [--continuous]
//	sqlrun --version | --help
//
// A script stops at its first failing statement and sqlrun exits with
// status 1, naming the file and line. This differs on purpose from Flink
// 1.20's SQL client, which stops too but exits 0: a scheduler or CI job
// must see the failure. Ctrl-C or SIGTERM stops the jobs gracefully
// (sources stop, a final savepoint is taken, sinks flush and commit) and
// sqlrun exits 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	_ "github.com/sqlrun/sqlrun/connectors/all"
	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/internal/gctune"
	"github.com/sqlrun/sqlrun/sql"
)

// version is set at link time (-ldflags "-X main.version=v0.1.0"); else
// the module version from the build info.
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("sqlrun %s (Flink SQL 1.20 dialect, Paimon 1.4 table format)", v)
}

const usage = `Usage:
  sqlrun [options]                       open the interactive shell
  sqlrun -f job.sql [options]            run a SQL script and wait for its jobs
  sqlrun -e "statements" [options]       run statements given inline
  sqlrun explain [--dot] -f job.sql      print the plan of the script's INSERT/SELECT statements
  sqlrun compact --warehouse W --database D --table T [--full] [--continuous --interval 10s]
  sqlrun compact --path P [...]          compact a Paimon table (see sqlrun compact --help)
  sqlrun check --target flink-1.20 job.sql   what Flink 1.20 would reject or run differently
  sqlrun action mysql-sync-table --warehouse W --database D --table T --mysql-conf K=V ...
                                         Paimon's MySQL CDC action (see sqlrun action mysql-sync-table --help)

Options:
  -f, --file FILE     run the statements of FILE (a final ';' may be omitted)
  -e, --execute SQL   run the given statements
  -i, --init FILE     run FILE before the shell (or before -f / -e)
  --resume            restore each job from its latest checkpoint or savepoint (it says
                      which); a job with none is refused (exit 1) unless --allow-fresh
  --allow-fresh       with --resume: a job that has nothing to resume starts from scratch
  --gateway URL       run the statements on a Flink cluster through its SQL Gateway
                      (REST API v2+, e.g. http://host:8083), printing what the SQL client
                      prints; sqlrun runs nothing itself
  --progress          while -f/-e waits for its jobs, print a status line per job every
                      10 s (rows in/out per second, last checkpoint, backpressure); on a
                      terminal a one-line status is redrawn every second without it
  --progress-interval D  how often --progress prints (default 10s)
                      (jobs are named by pipeline.name, else insert-into_<sink>)
  --version           print the version and exit
  -h, --help          print this help and exit

A script stops at its first failing statement; sqlrun then exits with status 1
and names the file and line (Flink 1.20's SQL client exits 0 there).
Ctrl-C or SIGTERM stops running jobs gracefully with a final savepoint; exit 0,
or 1 when a job could not stop cleanly (e.g. a sink that could not flush).
A second Ctrl-C/SIGTERM, or a stop still going after 2m30s, exits at once
with status 1 and no final savepoint (--resume uses the last checkpoint).
`

type options struct {
	file, execute, init string
	resume, version     bool
	allowFresh          bool
	progress            bool
	progressEvery       time.Duration
	help                bool
	gateway             string
}

func parseFlags(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet("sqlrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	for _, n := range []string{"f", "file"} {
		fs.StringVar(&o.file, n, "", "")
	}
	for _, n := range []string{"e", "execute"} {
		fs.StringVar(&o.execute, n, "", "")
	}
	for _, n := range []string{"i", "init"} {
		fs.StringVar(&o.init, n, "", "")
	}
	fs.BoolVar(&o.resume, "resume", false, "")
	fs.StringVar(&o.gateway, "gateway", "", "")
	fs.BoolVar(&o.allowFresh, "allow-fresh", false, "")
	fs.BoolVar(&o.progress, "progress", false, "")
	fs.DurationVar(&o.progressEvery, "progress-interval", 10*time.Second, "")
	fs.BoolVar(&o.version, "version", false, "")
	fs.BoolVar(&o.help, "h", false, "")
	fs.BoolVar(&o.help, "help", false, "")
	err := fs.Parse(args)
	return o, fs, err
}

func main() {
	gctune.Tune()
	exec.UseMachineTimeZone()
	// Scratch directories of sqlrun processes that were killed (kill -9
	// cannot be caught) are removed by the next run; this run's own are
	// removed on every way out.
	exec.RemoveStaleScratchDirs()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	exec.RemoveScratchDirs()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // a statement or a job failed
	exitUsage  = 2
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "explain" {
		return runExplain(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "check" {
		return runCheck(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "action" {
		sigs, stop := watchSignals(false, stderr)
		defer stop()
		return runAction(args[1:], stdout, stderr, sigs)
	}
	if len(args) > 0 && args[0] == "compact" {
		sigs, stop := watchSignals(false, stderr)
		defer stop()
		return runCompact(args[1:], stdout, stderr, sigs)
	}
	o, fs, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch {
	case o.help:
		fmt.Fprint(stdout, usage)
		return exitOK
	case o.version:
		fmt.Fprintln(stdout, versionString())
		return exitOK
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "sqlrun: unexpected argument %q\n", fs.Arg(0))
		fmt.Fprint(stderr, usage)
		return exitUsage
	case o.allowFresh && !o.resume:
		fmt.Fprintln(stderr, "sqlrun: --allow-fresh only makes sense with --resume")
		return exitUsage
	case o.file != "" && o.execute != "":
		fmt.Fprintln(stderr, "sqlrun: -f and -e cannot be used together")
		return exitUsage
	case o.gateway != "" && (o.resume || o.init != ""):
		fmt.Fprintln(stderr, "sqlrun: --gateway runs statements on a Flink cluster; --resume and -i are for local jobs")
		return exitUsage
	}

	s := exec.NewSession()
	defer s.Close()
	s.Planner = planner()
	s.Resume = o.resume
	s.ResumeAllowFresh = o.allowFresh

	// SIGINT/SIGTERM: the first one cancels what runs (a query, a wait
	// for jobs) and leads to a graceful stop; a second one, or the first
	// one's deadline, exits at once (watchSignals).
	sigs, stopSignals := watchSignals(o.file == "" && o.execute == "", stderr)
	defer stopSignals()

	if o.gateway != "" {
		if err := s.UseGateway(context.Background(), o.gateway); err != nil {
			fmt.Fprintf(stderr, "sqlrun: %v\n", err)
			return exitFailed
		}
		defer func() {
			if err := s.CloseGateway(context.Background()); err != nil {
				fmt.Fprintf(stderr, "sqlrun: close the SQL Gateway session: %v\n", err)
			}
		}()
	}
	if o.init != "" {
		if code := runInit(s, o.init, stdout, stderr); code != exitOK {
			return code
		}
	}
	if o.file == "" && o.execute == "" {
		return runShell(s, stdin, stdout, stderr, sigs)
	}
	return runScript(s, o, stdout, stderr, sigs)
}

// runInit runs an init script before the shell or script. As in Flink,
// its statements' output is not shown; success prints "Successfully
// initialized from sql script: f". On failure Flink points to its log;
// sqlrun keeps none, so it prints the failing statement's error block and
// says where that statement is instead.
func runInit(s *exec.Session, file string, stdout, stderr io.Writer) int {
	text, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "sqlrun: read init script: %v\n", err)
		return exitFailed
	}
	var quiet strings.Builder
	if err := s.ExecuteScript(context.Background(), string(text), file, &quiet); err != nil {
		out := quiet.String()
		if i := strings.LastIndex(out, exec.MsgErrorPrefix); i >= 0 {
			fmt.Fprint(stdout, out[i:])
		}
		where := file
		var se *exec.StatementError
		if errors.As(err, &se) {
			where = fmt.Sprintf("%s:%d", file, se.Line)
		}
		fmt.Fprintf(stdout, "Failed to initialize from sql script: %s. The statement at %s failed with the error above.\n", file, where)
		reportStatementError(stderr, err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "Successfully initialized from sql script: %s\n", file)
	return exitOK
}

// reportStatementError is the one-line summary on stderr of a failure
// whose full error block went to stdout: "sqlrun: file:line: statement
// failed: <first line of the cause>".
func reportStatementError(stderr io.Writer, err error) {
	var se *exec.StatementError
	if errors.As(err, &se) {
		msg := se.Err.Error()
		if rc := sql.RootCause(se.Err); rc != nil {
			msg = rc.Msg
		}
		fmt.Fprintf(stderr, "sqlrun: %s:%d: statement failed: %s\n", se.File, se.Line, firstLine(msg))
		return
	}
	fmt.Fprintf(stderr, "sqlrun: %s\n", firstLine(err.Error()))
}

// firstLine shortens a multi-line message (Flink's option lists) to its
// first line: the whole text is in the error block, printed once.
func firstLine(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return strings.TrimSpace(msg[:i]) + " (the full message is in the error above)"
	}
	return msg
}

// runScript is -f / -e: run the statements, then wait for the jobs they
// started. A signal stops the jobs with a savepoint and exits 0 — or 1
// when a job could not stop cleanly (a sink that could not flush).
func runScript(s *exec.Session, o *options, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	text, name := o.execute, "<-e>"
	if o.file != "" {
		b, err := os.ReadFile(o.file)
		if err != nil {
			fmt.Fprintf(stderr, "sqlrun: read script: %v\n", err)
			return exitFailed
		}
		text, name = string(b), o.file
		fmt.Fprintln(stdout, exec.MsgExecutingFile)
	}
	s.Echo = &exec.EchoPrompts{Prompt: prompt, Continuation: continuationPrompt}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signalled := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			close(signalled)
			cancel()
		case <-ctx.Done():
		}
	}()
	err := s.ExecuteScript(ctx, text, name, stdout)
	wasSignalled := func() bool {
		select {
		case <-signalled:
			return true
		default:
			return false
		}
	}
	if err != nil && !wasSignalled() {
		if errors.Is(err, exec.ErrQuit) {
			// QUIT stops the jobs as Ctrl-C does: with a savepoint.
			return stopJobs(s, stdout, stderr, true)
		}
		reportStatementError(stderr, err)
		// Jobs the script started before the failure end gracefully.
		stopJobs(s, stdout, stderr, false)
		return exitFailed
	}
	if !wasSignalled() {
		if n := len(s.Jobs.Running()); n > 0 {
			fmt.Fprintf(stdout, "[INFO] Waiting for %d running job(s). Ctrl-C or SIGTERM stops them with a savepoint.\n", n)
		}
		pctx, stopProgress := context.WithCancel(ctx)
		progressDone := make(chan struct{})
		go func() {
			defer close(progressDone)
			watchProgress(pctx, s, stderr, progressFor(o.progress, stderr), progressInterval(o.progress, o.progressEvery))
		}()
		err := s.Jobs.WaitAll(ctx)
		stopProgress()
		<-progressDone
		if err != nil && !wasSignalled() {
			fmt.Fprint(stdout, exec.FormatError(err))
			reportJobFailure(stderr, name, err)
			return exitFailed
		}
	}
	if wasSignalled() {
		return stopJobs(s, stdout, stderr, true)
	}
	return exitOK
}

// reportJobFailure names the failed job and the script line of the
// statement that started it: "sqlrun: job.sql:12: job failed: <cause>
// (job <id>, <name>)".
func reportJobFailure(stderr io.Writer, script string, err error) {
	var jf *exec.JobFailure
	if !errors.As(err, &jf) {
		fmt.Fprintf(stderr, "sqlrun: %s: job failed: %v\n", script, err)
		return
	}
	where := jf.Origin
	if where == "" {
		where = script
	}
	msg := jf.Err.Error()
	if rc := sql.RootCause(jf.Err); rc != nil {
		msg = rc.Msg
	}
	fmt.Fprintf(stderr, "sqlrun: %s: job failed: %s (job %s, %s)\n", where, firstLine(msg), jf.Job.ID, jf.Job.Name)
}

// progressInterval is how often the status is drawn: every second in
// place on a terminal, every 10 s as log lines.
func progressInterval(lines bool, every time.Duration) time.Duration {
	if lines && every > 0 {
		return every
	}
	return time.Second
}

// stopJobs stops the running jobs gracefully: a final checkpoint, or a
// savepoint (printed) when withSavepoint.
func stopJobs(s *exec.Session, stdout, stderr io.Writer, withSavepoint bool) int {
	running := s.Jobs.Running()
	if len(running) == 0 {
		return exitOK
	}
	fmt.Fprintf(stdout, "[INFO] Stopping %d running job(s) gracefully...\n", len(running))
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	code := exitOK
	for _, j := range running {
		path, err := j.Stop(ctx, withSavepoint)
		if err != nil && j.Status().Terminal() {
			// It ended meanwhile (or failed while stopping, e.g. a sink
			// that could not flush): its own outcome is the answer.
			err = j.Err()
		}
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			// Rows the job had not delivered are not covered by any
			// savepoint: never report this stop as clean.
			fmt.Fprint(stdout, exec.FormatError(err))
			fmt.Fprintf(stderr, "sqlrun: job %s (%s) did not stop cleanly (no final savepoint; rows it had not written were not delivered): %v\n", j.ID, j.Name, err)
			code = exitFailed
		case withSavepoint && path != "":
			fmt.Fprintf(stdout, "[INFO] Job %s (%s) stopped with savepoint: %s\n", j.ID, j.Name, path)
		default:
			fmt.Fprintf(stdout, "[INFO] Job %s (%s) stopped.\n", j.ID, j.Name)
		}
	}
	return code
}
