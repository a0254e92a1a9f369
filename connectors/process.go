package connectors

import (
	"io"
	"os"
)

// This file holds what a connector offers the sqlrun process beyond
// tables: command-line actions (`sqlrun compact`) and scratch directories
// to remove on the way out. Connectors register them in init(); the
// binary reaches them through exec.

// Action is a connector's command-line action, run as `sqlrun <name>
// args...` (Paimon's Flink actions: compact).
type Action interface {
	// Run runs the action. stop delivers the signal that asks a
	// long-running action to end (SIGINT, SIGTERM). It returns the
	// process exit code: 0, 1 when the action failed, 2 for a bad
	// command line.
	Run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int
}

var (
	actions     = map[string]Action{}
	scratchDirs []ScratchDirs
)

// RegisterAction adds an action under name; a second one of that name is a
// programming error.
func RegisterAction(name string, a Action) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := actions[name]; dup {
		panic("connectors: duplicate action " + name)
	}
	actions[name] = a
}

// LookupAction finds an action by name.
func LookupAction(name string) (Action, bool) {
	mu.RLock()
	defer mu.RUnlock()
	a, ok := actions[name]
	return a, ok
}

// ScratchDirs is implemented by connectors that keep scratch directories
// in the temp directory (Paimon's lookup indexes and spill files).
type ScratchDirs interface {
	// RemoveStale removes the scratch directories that sqlrun processes
	// which no longer run left behind (kill -9 cannot be caught).
	RemoveStale()
	// RemoveOwn removes this process's scratch directories; the process
	// calls it on every way out.
	RemoveOwn()
}

// RegisterScratchDirs adds a connector's scratch directories.
func RegisterScratchDirs(s ScratchDirs) {
	mu.Lock()
	defer mu.Unlock()
	scratchDirs = append(scratchDirs, s)
}

// RemoveStaleScratchDirs is ScratchDirs.RemoveStale of every connector.
func RemoveStaleScratchDirs() {
	mu.RLock()
	defer mu.RUnlock()
	for _, s := range scratchDirs {
		s.RemoveStale()
	}
}

// RemoveScratchDirs is ScratchDirs.RemoveOwn of every connector.
func RemoveScratchDirs() {
	mu.RLock()
	defer mu.RUnlock()
	for _, s := range scratchDirs {
		s.RemoveOwn()
	}
}

// JobAction is a connector's command-line action that runs as a streaming
// job (Paimon's CDC action mysql-sync-table): Prepare parses the command
// line and prepares what the job needs (creating or evolving tables), and
// returns the SQL script the binary runs as it runs `sqlrun -f`, with
// checkpoints, savepoints and --resume.
type JobAction interface {
	// Prepare returns the job to run, or a non-zero exit code (2 for a
	// bad command line, 1 when preparing failed). A zero code with an
	// empty script means there is nothing to run (--help). again is true
	// when the previous run of the script ended by itself, which an
	// action's source does to have the job prepared anew (a schema
	// change); the job then resumes from that run's final checkpoint.
	Prepare(args []string, again bool, stdout, stderr io.Writer) (ActionJob, int)
}

// ActionJob is what a JobAction runs.
type ActionJob struct {
	// Script is the SQL script.
	Script string
	// Resume and AllowFresh are `sqlrun --resume` and `--allow-fresh`.
	Resume, AllowFresh bool
}

var jobActions = map[string]JobAction{}

// RegisterJobAction adds a job action under name; a second action of that
// name is a programming error.
func RegisterJobAction(name string, a JobAction) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := jobActions[name]; dup {
		panic("connectors: duplicate action " + name)
	}
	if _, dup := actions[name]; dup {
		panic("connectors: duplicate action " + name)
	}
	jobActions[name] = a
}

// LookupJobAction finds a job action by name.
func LookupJobAction(name string) (JobAction, bool) {
	mu.RLock()
	defer mu.RUnlock()
	a, ok := jobActions[name]
	return a, ok
}
