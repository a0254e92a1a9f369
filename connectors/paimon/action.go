package paimon

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
)

// This file is what the Paimon connector offers the sqlrun process:
// `sqlrun compact` (Paimon's dedicated compaction action) and the removal
// of its scratch directories.

func init() {
	connectors.RegisterAction("compact", compactAction{})
	connectors.RegisterScratchDirs(scratchDirs{})
}

var (
	_ connectors.Action      = compactAction{}
	_ connectors.ScratchDirs = scratchDirs{}
)

// scratchDirs are the lookup indexes and spill files of table (its
// TempDirPrefix directories).
type scratchDirs struct{}

func (scratchDirs) RemoveStale() { table.RemoveStaleTempDirs("") }
func (scratchDirs) RemoveOwn()   { table.RemoveTempDirs() }

// The exit codes of an action (connectors.Action).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// compactAction is `sqlrun compact`.
type compactAction struct{}

const compactUsage = `Usage:
  sqlrun compact --warehouse W --database D --table T [options]
  sqlrun compact --path P [options]

Runs Paimon's dedicated compaction (the compact action) on one table: the
table's writers may run with 'write-only' = 'true', and the lookup and
full-compaction changelog producers still produce their changelog.

Options:
  --warehouse W       the Paimon warehouse (file:///... or a local path)
  --database D        the database of the table in the warehouse
  --table T           the table
  --path P            the table's directory, instead of warehouse/database/table
  --compact_strategy S  full or minor; default full, minor with --continuous
                      (Paimon's compact action: batch full, streaming minor)
  --full              the same as --compact_strategy full
  --partition SPEC    only these partitions: "k1=v1,k2=v2;k1=v3"
  --table-conf K=V    a dynamic table option (repeatable)
  --continuous        keep compacting every --interval until Ctrl-C or SIGTERM
  --interval D        pause between continuous runs (default 10s)
`

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// Run is `sqlrun compact`: one compaction, or one every interval with
// --continuous until a signal (exit 0).
func (compactAction) Run(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	fset := flag.NewFlagSet("sqlrun compact", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, compactUsage) }
	var (
		wh, db, tbl, path, part string
		strategy                string
		full, continuous, help  bool
		interval                = 10 * time.Second
		conf                    multiFlag
	)
	fset.StringVar(&wh, "warehouse", "", "")
	fset.StringVar(&db, "database", "", "")
	fset.StringVar(&tbl, "table", "", "")
	fset.StringVar(&path, "path", "", "")
	fset.StringVar(&part, "partition", "", "")
	fset.BoolVar(&full, "full", false, "")
	fset.StringVar(&strategy, "compact_strategy", "", "")
	fset.BoolVar(&continuous, "continuous", false, "")
	fset.DurationVar(&interval, "interval", interval, "")
	fset.Var(&conf, "table-conf", "")
	fset.BoolVar(&help, "h", false, "")
	fset.BoolVar(&help, "help", false, "")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if help {
		fmt.Fprint(stdout, compactUsage)
		return exitOK
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "sqlrun compact: %s\n", msg)
		fmt.Fprint(stderr, compactUsage)
		return exitUsage
	}
	switch {
	case fset.NArg() > 0:
		return usageErr(fmt.Sprintf("unexpected argument %q", fset.Arg(0)))
	case path != "" && (wh != "" || db != "" || tbl != ""):
		return usageErr("--path cannot be combined with --warehouse/--database/--table")
	case path == "" && (wh == "" || db == "" || tbl == ""):
		return usageErr("give --warehouse, --database and --table, or --path")
	case interval <= 0:
		return usageErr("--interval must be positive")
	}
	// Paimon's CompactAction: without a strategy a batch compaction is
	// full and a streaming (continuous) one minor; full is batch only.
	switch strings.ToLower(strategy) {
	case "":
		full = full || !continuous
	case "full":
		full = true
	case "minor":
		if full {
			return usageErr("--full contradicts --compact_strategy minor")
		}
	default:
		return usageErr(fmt.Sprintf("The compact strategy only supports 'full' or 'minor', but '%s' is configured.", strategy))
	}
	if full && continuous {
		return usageErr("The full compact strategy is only supported in batch mode (not with --continuous).")
	}
	name := path
	if path == "" {
		tp, err := fs.TablePath(strings.TrimRight(wh, "/"), db, tbl)
		if err != nil {
			return usageErr(err.Error())
		}
		path, name = tp, db+"."+tbl
	}
	req := CompactRequest{Full: full, Streaming: continuous}
	var err error
	if req.Partitions, err = ParsePartitions(part); err != nil {
		return usageErr(err.Error())
	}
	if len(conf) > 0 {
		if req.Options, err = ParseKV(strings.Join(conf, ",")); err != nil {
			return usageErr(err.Error())
		}
	}
	for {
		ids, err := Compact(path, req)
		if err != nil {
			fmt.Fprintf(stderr, "sqlrun compact: %s: %v\n", name, err)
			return exitFailed
		}
		if len(ids) == 0 {
			fmt.Fprintf(stdout, "[INFO] Compaction of %s: nothing to compact.\n", name)
		} else {
			fmt.Fprintf(stdout, "[INFO] Compaction of %s committed snapshot %s.\n", name, joinIDs(ids))
		}
		if !continuous {
			return exitOK
		}
		select {
		case <-sigs:
			fmt.Fprintf(stdout, "[INFO] Continuous compaction of %s stopped.\n", name)
			return exitOK
		case <-time.After(interval):
		}
	}
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
