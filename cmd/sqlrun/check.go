package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlrun/sqlrun/exec"
)

const checkUsage = `Usage: sqlrun check --target flink-1.20 job.sql [more.sql ...]

Reports, with file, line and column, what Apache Flink 1.20 (with Paimon 1.4 and
flink-connector-jdbc 3.3) would reject or run differently in each script:
sqlrun's own options and procedures, connectors Flink's distribution lacks. It
also lists the connector jars the Flink job needs in lib/. It reads the scripts
only; nothing runs. Exit status: 0 nothing found, 1 findings, 2 usage or a file
that cannot be read.
`

// runCheck is `sqlrun check`: the portability check of scripts against a
// Flink cluster (exec.CheckPortability).
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sqlrun check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, checkUsage) }
	target := fs.String("target", "", "")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if *target != exec.FlinkTarget {
		fmt.Fprintf(stderr, "sqlrun check: --target must be %s\n%s", exec.FlinkTarget, checkUsage)
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, checkUsage)
		return exitUsage
	}
	code := exitOK
	for _, file := range fs.Args() {
		text, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "sqlrun check: %v\n", err)
			return exitUsage
		}
		rep, err := exec.CheckPortability(string(text))
		if err != nil {
			fmt.Fprintf(stderr, "sqlrun check: %s: %v\n", file, err)
			return exitUsage
		}
		fmt.Fprint(stdout, exec.FormatPortability(file, rep))
		if len(rep.Findings) > 0 {
			code = exitFailed
		}
	}
	return code
}
