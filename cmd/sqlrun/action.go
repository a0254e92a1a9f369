package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/sqlrun/sqlrun/exec"
)

// runAction is `sqlrun action NAME args...`: a connector's action, Paimon's
// action names with dashes (mysql-sync-table, mysql-sync-database,
// compact). An action that runs
// as a job (exec.PrepareJobAction) is run as `sqlrun -f` runs a script: its
// job checkpoints, stops with a savepoint on Ctrl-C / SIGTERM and restores
// with --resume. When the job ends by itself (its source ended the input
// to have the job prepared anew: a MySQL schema change), the action
// prepares it again and the job resumes from that run's final checkpoint.
func runAction(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, actionUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name, rest := args[0], args[1:]
	if code, ok := exec.RunAction(name, rest, stdout, stderr, sigs); ok {
		return code
	}
	// One relay for every run, so a signal between two runs is not lost.
	var signalled atomic.Bool
	relay := make(chan os.Signal, 2)
	go func() {
		for sig := range sigs {
			signalled.Store(true)
			select {
			case relay <- sig:
			default:
			}
		}
	}()
	for again := false; ; again = true {
		job, code, ok := exec.PrepareJobAction(name, rest, again, stdout, stderr)
		if !ok {
			fmt.Fprintf(stderr, "sqlrun action: unknown action %q\n%s", name, actionUsage)
			return exitUsage
		}
		if code != exitOK || job.Script == "" || signalled.Load() {
			return code
		}
		s := exec.NewSession()
		s.Planner = planner()
		s.Resume = job.Resume || again
		s.ResumeAllowFresh = job.AllowFresh
		code = runScript(s, &options{execute: job.Script}, stdout, stderr, relay)
		s.Close()
		if code != exitOK || signalled.Load() {
			return code
		}
	}
}

const actionUsage = `Usage:
  sqlrun action mysql-sync-table --warehouse W --database D --table T --mysql-conf K=V ... [options]
  sqlrun action mysql-sync-database --warehouse W --database D --mysql-conf K=V ... [options]
  sqlrun action compact --warehouse W --database D --table T [options]

Paimon's actions, by Paimon's action names (with dashes). See
sqlrun action NAME --help.
`
