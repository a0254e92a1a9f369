package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sqlrun/sqlrun/exec"
)

// runCompact is `sqlrun compact`: Paimon's dedicated compaction action,
// which the Paimon connector registers (connectors/paimon/action.go) and
// exec runs; see `sqlrun compact --help`.
func runCompact(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	code, ok := exec.RunAction("compact", args, stdout, stderr, sigs)
	if !ok {
		fmt.Fprintln(stderr, "sqlrun compact: no connector in this binary offers it")
		return exitUsage
	}
	return code
}
