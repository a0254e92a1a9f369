package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// This file is exec's API for the parts of the sqlrun process that are
// not statements: the connectors' command-line actions, their scratch
// directories, the option keys the shell completes, and the progress
// line of a running job. The binary imports exec and nothing below it.

// RunAction runs a connector's command-line action (`sqlrun compact`);
// ok is false when no connector has an action of that name. stop delivers
// the signal that ends a long-running action; code is the exit code.
func RunAction(name string, args []string, stdout, stderr io.Writer, stop <-chan os.Signal) (code int, ok bool) {
	a, ok := connectors.LookupAction(name)
	if !ok {
		return 0, false
	}
	return a.Run(args, stdout, stderr, stop), true
}

// PrepareJobAction runs the Prepare step of the job action name (a
// connector's action that runs as a streaming job, `sqlrun action
// mysql-sync-table`): the script to run, or an exit code. ok is false when
// no connector offers such an action.
func PrepareJobAction(name string, args []string, again bool, stdout, stderr io.Writer) (job connectors.ActionJob, code int, ok bool) {
	a, ok := connectors.LookupJobAction(name)
	if !ok {
		return connectors.ActionJob{}, 0, false
	}
	job, code = a.Prepare(args, again, stdout, stderr)
	return job, code, true
}

// RemoveStaleScratchDirs removes the scratch directories that killed
// sqlrun processes left in the temp directory (kill -9 cannot be caught).
func RemoveStaleScratchDirs() { connectors.RemoveStaleScratchDirs() }

// RemoveScratchDirs removes this process's scratch directories; the
// binary calls it on every way out.
func RemoveScratchDirs() { connectors.RemoveScratchDirs() }

// OptionKeys are the SET keys and every registered connector's options
// ('connector' among them), sorted: what the shell completes inside
// quotes.
func OptionKeys() []string {
	seen := map[string]bool{"connector": true}
	for _, o := range ConfigOptions {
		seen[o.Key] = true
	}
	for _, id := range connectors.Identifiers() {
		f, err := connectors.Lookup(id)
		if err != nil {
			continue
		}
		for _, o := range f.Options() {
			seen[o.Key] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// JobMetrics is a running job's metrics snapshot (Job.Metrics).
type JobMetrics = runtime.Metrics

// StatusLine is the one-line progress of a job between two metrics
// snapshots dt apart (rows in/out per second, the last checkpoint,
// backpressure).
func StatusLine(prev, cur JobMetrics, dt time.Duration) string {
	return runtime.StatusLine(prev, cur, dt)
}

// IsComplete reports whether the shell's input so far holds one or more
// complete statements (its last significant token is a ';').
func IsComplete(buffer string) bool { return parser.IsComplete(buffer) }

// RunInput runs the statements of one shell input and prints each result
// or error block to out; the shell goes on after an error. quit is true
// for QUIT (or EXIT).
func (s *Session) RunInput(ctx context.Context, text string, out io.Writer) (quit bool) {
	pieces, splitErr := parser.Split(text)
	for _, p := range pieces {
		if ctx.Err() != nil {
			return false
		}
		stmt, err := parser.Parse(p.Text)
		if s.remote != nil && (err != nil || !remoteLocal(stmt)) {
			err = s.executeRemote(ctx, p.Text, stmt, out)
		} else if err == nil {
			err = s.Execute(ctx, stmt, out)
		}
		if errors.Is(err, ErrQuit) {
			return true
		}
		if err != nil {
			fmt.Fprint(out, FormatError(err))
		}
		fmt.Fprintln(out)
	}
	if splitErr != nil {
		fmt.Fprint(out, FormatError(splitErr))
		fmt.Fprintln(out)
	}
	return false
}

// UseMachineTimeZone makes 'table.local-time-zone' = 'default' (the
// option's default) the machine's time zone (the TZ environment variable,
// else /etc/localtime), as Flink's is the JVM's default zone; without it a
// session's default is UTC (config.DefaultZone). The sqlrun binary calls
// it once at start.
func UseMachineTimeZone() { config.DefaultZone = time.Local }
