package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/peterh/liner"
	"golang.org/x/sys/unix"

	"github.com/sqlrun/sqlrun/exec"
)

const (
	prompt             = "sqlrun> "
	continuationPrompt = "      > "
	historyFile        = ".sqlrun_history"
)

const banner = `
                   _
   ___  __ _ | |_ __ _   _ _ __
  / __|/ _` + "`" + ` || | '__| | | | '_ \
  \__ \ (_| || | |  | |_| | | | |
  |___/\__, ||_|_|   \__,_|_| |_|
          |_|

  Flink SQL on one machine. No JVM.

Welcome! Enter 'HELP;' to list all available commands. 'QUIT;' to exit.

Command history file path: %s

`

// runShell is the interactive shell: liner for editing and history,
// statements collected over lines until one ends with ';', Ctrl-C to
// drop the current input or cancel a running query, Ctrl-D / QUIT; /
// EXIT; to leave. Leaving stops running jobs gracefully.
func runShell(s *exec.Session, _ io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	s.Interactive = true
	s.TermRows = func() int {
		ws, err := unix.IoctlGetWinsize(int(os.Stdout.Fd()), unix.TIOCGWINSZ)
		if err != nil {
			return 0
		}
		return int(ws.Row)
	}
	s.ViewKeys = func(ctx context.Context) <-chan byte { return terminalKeys(ctx, int(os.Stdin.Fd())) }
	histPath := historyPath()
	fmt.Fprintf(stdout, banner, histPath)

	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetMultiLineMode(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(completer(s))
	if f, err := os.Open(histPath); err == nil {
		_, _ = ln.ReadHistory(f)
		f.Close()
	}
	saveHistory := func() {
		if histPath == "" {
			return
		}
		f, err := os.OpenFile(histPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return
		}
		_, _ = ln.WriteHistory(f)
		f.Close()
	}
	defer saveHistory()

	// A signal while a statement runs cancels it; outside a statement
	// liner reads Ctrl-C itself (the terminal is raw), so a signal then
	// is SIGTERM: leave. A prompt blocked in read(2) cannot be woken, so
	// SIGTERM at the prompt shuts down from here and exits.
	var mu sync.Mutex
	var cancelRunning context.CancelFunc
	terminated := make(chan struct{})
	go func() {
		for sig := range sigs {
			mu.Lock()
			c := cancelRunning
			mu.Unlock()
			if c != nil {
				c()
				if sig == syscall.SIGTERM {
					close(terminated) // the loop leaves after the statement
					return
				}
				continue
			}
			if sig == syscall.SIGTERM {
				saveHistory()
				ln.Close()
				fmt.Fprintln(stdout)
				fmt.Fprintln(stdout, "Shutting down the session...")
				code := stopJobs(s, stdout, stderr, true)
				fmt.Fprintln(stdout, "done.")
				exec.RemoveScratchDirs()
				os.Exit(code)
			}
		}
	}()
	isTerminated := func() bool {
		select {
		case <-terminated:
			return true
		default:
			return false
		}
	}

	var buf strings.Builder
	for {
		p := prompt
		if buf.Len() > 0 {
			p = continuationPrompt
		}
		line, err := ln.Prompt(p)
		if isTerminated() {
			break
		}
		if err != nil {
			if errors.Is(err, liner.ErrPromptAborted) {
				buf.Reset() // Ctrl-C drops the statement being typed
				continue
			}
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(stdout)
				break // Ctrl-D
			}
			fmt.Fprintf(stderr, "sqlrun: read input: %v\n", err)
			break
		}
		if buf.Len() == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		if buf.Len() > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString(line)
		if !exec.IsComplete(buf.String()) && !isShellCommand(buf.String()) {
			continue
		}
		text := buf.String()
		buf.Reset()
		// History keeps one line per statement, passwords masked.
		ln.AppendHistory(exec.RedactSQL(strings.Join(strings.Fields(text), " ")))
		saveHistory()

		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		cancelRunning = cancel
		mu.Unlock()
		quit := runInteractive(ctx, s, text, stdout)
		mu.Lock()
		cancelRunning = nil
		mu.Unlock()
		cancel()
		if quit || isTerminated() {
			break
		}
	}
	// Leaving (QUIT, EXIT, Ctrl-D, SIGTERM) stops the session's jobs
	// with a savepoint, as Ctrl-C / SIGTERM does for -f: --resume then
	// continues them.
	fmt.Fprintln(stdout, "Shutting down the session...")
	code := stopJobs(s, stdout, stderr, true)
	fmt.Fprintln(stdout, "done.")
	return code
}

// isShellCommand accepts QUIT / EXIT / HELP / CLEAR without ';', as the
// Flink SQL client does.
func isShellCommand(text string) bool {
	switch strings.ToUpper(strings.TrimSpace(text)) {
	case "QUIT", "EXIT", "HELP", "CLEAR":
		return true
	}
	return false
}

// runInteractive runs the statements of one input and prints each
// result or error; the shell goes on after an error. It reports QUIT.
func runInteractive(ctx context.Context, s *exec.Session, text string, out io.Writer) bool {
	if isShellCommand(text) {
		text += ";"
	}
	return s.RunInput(ctx, text, out)
}

// historyPath is ~/.sqlrun_history ("" when there is no home).
func historyPath() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, historyFile)
}

// keywords are what Tab completes besides table names and option keys.
var keywords = []string{
	"ADD", "ALL", "ALTER", "AND", "AS", "ASC", "BEGIN", "BETWEEN", "BIGINT", "BOOLEAN", "BY", "BYTES",
	"CALL", "CASE", "CAST", "CATALOG", "CATALOGS", "CHANGELOG_MODE", "CHAR", "CONSTRAINT", "COUNT", "CREATE",
	"CURRENT", "DATABASE", "DATABASES", "DATE", "DECIMAL", "DELETE", "DESC", "DESCRIBE", "DISTINCT",
	"DOUBLE", "DROP", "ELSE", "END", "ENFORCED", "EXECUTE", "EXISTS", "EXIT", "EXPLAIN", "FALSE", "FLOAT",
	"FROM", "GROUP", "HAVING", "HELP", "IF", "IN", "INSERT", "INT", "INTEGER", "INTO", "IS", "JOBS", "JOB",
	"KEY", "LIKE", "LIMIT", "MAP", "NOT", "NULL", "ON", "OPTIONS", "OR", "ORDER", "OVERWRITE", "PARTITIONED",
	"PLAN", "PRIMARY", "QUIT", "RESET", "ROW", "SAVEPOINT", "SELECT", "SET", "SHOW", "SMALLINT", "STATEMENT",
	"STOP", "STRING", "SUM", "TABLE", "TABLES", "TEMPORARY", "THEN", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ",
	"TINYINT", "TO", "TRUE", "TRY_CAST", "UNION", "UPDATE", "USE", "VALUES", "VARCHAR", "WATERMARK", "WHEN",
	"WHERE", "WITH",
}

// tableContext are the keywords after which only a table name fits.
var tableContext = map[string]bool{"FROM": true, "JOIN": true, "INTO": true, "TABLE": true,
	"DESCRIBE": true, "DESC": true, "LIKE": true, "UPDATE": true}

// completer completes the word before the cursor: an option key after a
// quote, else a keyword (in the case the user typed) or a table name.
func completer(s *exec.Session) liner.WordCompleter {
	opts := exec.OptionKeys()
	return func(line string, pos int) (string, []string, string) {
		head, tail := line[:pos], line[pos:]
		// Inside an open quote the word is everything since the quote
		// (option keys contain dots and dashes).
		if strings.Count(head, "'")%2 == 1 {
			start := strings.LastIndex(head, "'")
			prefix := head[start+1:]
			var out []string
			for _, k := range opts {
				if strings.HasPrefix(k, prefix) {
					out = append(out, "'"+k+"'")
				}
			}
			return head[:start], out, tail
		}
		start := strings.LastIndexAny(head, " \t\n(,=.`") + 1
		word := head[start:]
		var out []string
		if strings.HasPrefix(word, "'") {
			prefix := word[1:]
			for _, k := range opts {
				if strings.HasPrefix(k, prefix) {
					out = append(out, "'"+k+"'")
				}
			}
			return head[:start], out, tail
		}
		if word == "" {
			return head, nil, tail
		}
		lower := word == strings.ToLower(word)
		prev := strings.Fields(strings.ToUpper(head[:start]))
		tableOnly := len(prev) > 0 && tableContext[prev[len(prev)-1]]
		for _, k := range keywords {
			if tableOnly {
				break
			}
			if strings.HasPrefix(k, strings.ToUpper(word)) {
				if lower {
					k = strings.ToLower(k)
				}
				out = append(out, k)
			}
		}
		for _, t := range s.Catalogs.AllTableNames() {
			if strings.HasPrefix(t, word) {
				out = append(out, t)
			}
		}
		return head[:start], out, tail
	}
}

// terminalKeys delivers the keys typed on the terminal fd until ctx ends,
// for the table result mode's paging keys. The terminal leaves canonical
// mode and echo meanwhile but keeps ISIG, so Ctrl-C still arrives as
// SIGINT and cancels the query as before; its settings are restored when
// ctx ends. Reads poll with a short timeout, so no read is left pending
// to steal the next line from the line editor. On a non-terminal it
// delivers nothing.
func terminalKeys(ctx context.Context, fd int) <-chan byte {
	keys := make(chan byte)
	saved, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		close(keys)
		return keys
	}
	raw := *saved
	raw.Lflag &^= unix.ICANON | unix.ECHO
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		close(keys)
		return keys
	}
	go func() {
		defer close(keys)
		defer unix.IoctlSetTermios(fd, unix.TCSETS, saved)
		buf := make([]byte, 16)
		for ctx.Err() == nil {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 100)
			if err == unix.EINTR || n == 0 {
				continue
			}
			if err != nil || fds[0].Revents&unix.POLLIN == 0 {
				return
			}
			m, err := unix.Read(fd, buf)
			if err != nil || m <= 0 {
				return
			}
			for _, b := range buf[:m] {
				select {
				case keys <- b:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return keys
}
