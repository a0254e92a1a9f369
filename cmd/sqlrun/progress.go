package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/exec"
)

// progressMode says how the status of running jobs is shown while a script
// waits for them.
type progressMode int

const (
	progressOff   progressMode = iota
	progressTTY                // one line, redrawn in place (stderr is a terminal)
	progressLines              // a line per job every interval (--progress)
)

// progressFor picks the mode: --progress forces lines; otherwise a
// terminal on stderr gets the redrawn line and anything else (pipes, CI
// logs, tests) gets nothing, so captured output stays deterministic.
func progressFor(forced bool, stderr io.Writer) progressMode {
	if forced {
		return progressLines
	}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return progressTTY
		}
	}
	return progressOff
}

// watchProgress shows exec.StatusLine for each running job (rows in/out
// per second, the last checkpoint, backpressure) until ctx ends. In TTY
// mode the line is cleared when it returns, so it never mixes with output.
func watchProgress(ctx context.Context, s *exec.Session, w io.Writer, mode progressMode, every time.Duration) {
	if mode == progressOff {
		return
	}
	prev := map[string]exec.JobMetrics{}
	last := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	drawn := false
	for {
		select {
		case <-ctx.Done():
			if drawn {
				fmt.Fprint(w, "\r\033[K")
			}
			return
		case now := <-tick.C:
			dt := now.Sub(last)
			last = now
			var lines []string
			for _, j := range s.Jobs.Running() {
				cur := j.Metrics()
				lines = append(lines, exec.StatusLine(prev[j.ID], cur, dt))
				prev[j.ID] = cur
			}
			if len(lines) == 0 {
				continue
			}
			if mode == progressTTY {
				fmt.Fprint(w, "\r\033[K"+strings.Join(lines, " | "))
				drawn = true
				continue
			}
			for _, l := range lines {
				fmt.Fprintln(w, "[PROGRESS] "+l)
			}
		}
	}
}
