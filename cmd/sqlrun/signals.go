package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sqlrun/sqlrun/exec"
)

// stopTimeout bounds a graceful stop (stopJobs); forceExitAfter bounds
// the whole way out after the first stopping signal, so that every
// SIGTERM ends the process even when something cannot be stopped.
const (
	stopTimeout    = 2 * time.Minute
	forceExitAfter = stopTimeout + 30*time.Second
	// sameSignal: a stopping signal this soon after the first is the
	// same request delivered twice — GNU timeout, for one, signals the
	// child and then its whole process group — not a second request.
	sameSignal = time.Second
)

// watchSignals relays SIGINT and SIGTERM to the returned channel, which
// the shell and the script runner read as before (the first stopping
// signal stops gracefully). A second stopping signal (a second or more
// after the first), or the first one's deadline passing, ends the process at once with status 1, after
// removing this process's scratch directories. A stopping signal is
// SIGTERM, and SIGINT outside the shell (in the shell Ctrl-C cancels the
// running statement and the session goes on).
func watchSignals(shell bool, stderr io.Writer) (<-chan os.Signal, func()) {
	raw := make(chan os.Signal, 4)
	out := make(chan os.Signal, 2)
	signal.Notify(raw, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		stopping := 0
		var first time.Time
		for {
			select {
			case <-done:
				return
			case sig := <-raw:
				if sig == syscall.SIGTERM || !shell {
					if stopping == 0 {
						first = time.Now()
						stopping++
					} else if time.Since(first) >= sameSignal {
						stopping++
					}
				}
				if stopping >= 2 {
					forcedExit(stderr, "sqlrun: second signal: exiting now, without a final savepoint (a restart with --resume continues from the last completed checkpoint)")
				}
				if stopping == 1 && (sig == syscall.SIGTERM || !shell) {
					time.AfterFunc(forceExitAfter, func() {
						forcedExit(stderr, fmt.Sprintf("sqlrun: could not stop within %s: exiting now, without a final savepoint (a restart with --resume continues from the last completed checkpoint)", forceExitAfter))
					})
				}
				select {
				case out <- sig:
				default:
				}
			}
		}
	}()
	return out, func() {
		signal.Stop(raw)
		close(done)
	}
}

// forcedExit leaves at once: nothing may be left in the temp directory.
func forcedExit(stderr io.Writer, msg string) {
	fmt.Fprintln(stderr, msg)
	exec.RemoveScratchDirs()
	os.Exit(exitFailed)
}
