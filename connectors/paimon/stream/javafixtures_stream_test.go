package stream

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// TestJavaFixturesStreamEqualsBatch reads every table Paimon Java wrote
// (testdata/paimon/java) as a streaming read from its earliest snapshot
// ('scan.mode' = 'from-snapshot-full': that snapshot in full, then each
// later snapshot's changes, as DataTableStreamScan plans them) and folds the
// changelog by primary key (+I/+U set the row, -U/-D remove it; first-row
// keeps a key's first row; for append tables every row counts). That must
// give the streaming full read of the latest snapshot, and that in turn
// the batch scan's rows where the batch scan reads level 0 (not with
// deletion vectors or first-row: DataTableBatchScan's batchScanSkipLevel0).
// A streaming job that follows a Java-written table from its start ends
// where one started at its end begins. Tables whose streaming changes are
// not whole rows (partial-update and aggregation merge engines) are
// skipped with the reason.
func TestJavaFixturesStreamEqualsBatch(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "paimon", "java")
	tables, err := filepath.Glob(filepath.Join(root, "*", "*.db", "*", "schema"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 10 {
		t.Fatalf("found %d Java fixture tables under %s", len(tables), root)
	}
	for _, s := range tables {
		path := filepath.Dir(s)
		name, _ := filepath.Rel(root, path)
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			if err := os.CopyFS(dir, os.DirFS(path)); err != nil {
				t.Fatal(err)
			}
			tbl, err := table.Open(fs.NewLocal(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			switch tbl.Options.MergeEngine {
			case coreoptions.EnginePartialUpdate, coreoptions.EngineAggregation:
				t.Skipf("merge-engine %s: streaming changes are partial rows", tbl.Options.MergeEngine)
			}
			if tbl.Options.DataEvolution {
				// A file that updates some columns of existing rows is a
				// change of partial rows (new rows with NULL elsewhere), in
				// a stream as in Paimon's DataEvolutionSplitRead.
				t.Skip("data-evolution.enabled: streaming changes are partial rows")
			}
			earliest, ok, err := tbl.Snapshots.EarliestID()
			if err != nil || !ok {
				t.Fatalf("earliest snapshot: %v %v", ok, err)
			}
			latest, ok, err := tbl.Snapshots.LatestID()
			if err != nil || !ok {
				t.Fatalf("latest snapshot: %v %v", ok, err)
			}
			full := func(id int64) []sql.Row {
				return readAll(t, dir, map[string]string{"scan.mode": "from-snapshot-full", "scan.snapshot-id": strconv.FormatInt(id, 10)}, true)
			}
			stream, atLatest := full(earliest), full(latest)
			var keys []int
			if tbl.PrimaryKey() {
				names := map[string]int{}
				for i, f := range tbl.Schema.Fields {
					names[f.Name] = i
				}
				for _, k := range tbl.Schema.PrimaryKeys {
					keys = append(keys, names[k])
				}
			}
			firstRow := tbl.Options.MergeEngine == coreoptions.EngineFirstRow
			got, want := fold(stream, keys, firstRow), fold(atLatest, keys, firstRow)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("streaming from snapshot %d folds to\n%s\nthe full read of snapshot %d is\n%s", earliest,
					strings.Join(got, "\n"), latest, strings.Join(want, "\n"))
			}
			if !tbl.BatchSkipLevel0() {
				// A batch scan reads what the streaming full phase reads;
				// with deletion vectors or first-row it leaves level 0 out.
				if batch := fold(readAll(t, dir, nil, false), keys, firstRow); strings.Join(batch, "\n") != strings.Join(want, "\n") {
					t.Fatalf("the batch scan reads\n%s\nthe streaming full read of snapshot %d\n%s",
						strings.Join(batch, "\n"), latest, strings.Join(want, "\n"))
				}
			}
			// Snapshot by snapshot (where a batch scan reads level 0): the
			// batch read of snapshot k ('scan.snapshot-id', time travel)
			// with the batch incremental read of (k, k+1]
			// ('incremental-between', through $audit_log so that its
			// retractions are kept: AuditLogRead.forceKeepDelete) applied is
			// the batch read of k+1.
			for k := earliest; k < latest && !tbl.BatchSkipLevel0(); k++ {
				at := func(id int64) []sql.Row {
					return readAll(t, dir, map[string]string{"scan.snapshot-id": strconv.FormatInt(id, 10)}, false)
				}
				delta := readAudit(t, dir, map[string]string{"incremental-between": strconv.FormatInt(k, 10) + "," + strconv.FormatInt(k+1, 10)})
				if got, want := fold(append(at(k), delta...), keys, firstRow), fold(at(k+1), keys, firstRow); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("snapshot %d with incremental-between %d,%d applied is\n%s\nsnapshot %d is\n%s",
						k, k, k+1, strings.Join(got, "\n"), k+1, strings.Join(want, "\n"))
				}
			}
			t.Logf("snapshots %d..%d, %d rows", earliest, latest, len(want))
		})
	}
}

// readAudit reads a batch source as $audit_log does and returns its rows
// with the row kind of their rowkind column.
func readAudit(t *testing.T, dir string, opts map[string]string) []sql.Row {
	t.Helper()
	rows := readSrc(t, dir, opts, false, true)
	for i, r := range rows {
		k, err := sql.ParseRowKind(r.Values[0].(string))
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = sql.Row{Kind: k, Values: r.Values[1:]}
	}
	return rows
}

// readAll reads a source until it waits or ends.
func readAll(t *testing.T, dir string, opts map[string]string, streaming bool) []sql.Row {
	return readSrc(t, dir, opts, streaming, false)
}

func readSrc(t *testing.T, dir string, opts map[string]string, streaming, audit bool) []sql.Row {
	t.Helper()
	if !streaming {
		// The batch side reads the table's own branch, as the stream does
		// (a 'scan.fallback-branch' batch read is refused by sqlrun:
		// cmd/sqlrun TestFallbackBranchRefused).
		opts = maps.Clone(opts)
		if opts == nil {
			opts = map[string]string{}
		}
		opts["scan.fallback-branch"] = ""
	}
	src, err := NewSourceFS(fs.NewLocal(), dir, opts, streaming, nil)
	if err != nil {
		t.Fatal(err)
	}
	src.Audit = audit
	// A frozen clock: Next's 30 ms budget never runs out, so (nil, nil)
	// means the reader waits for a snapshot, not that the machine is
	// slow (under load the fixture reads ended early, 1 run in ~10).
	src.Now = func() time.Time { return time.Unix(0, 0) }
	r, err := src.NewReader(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []sql.Row
	for {
		rows, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) || (err == nil && rows == nil) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
}

// fold applies a changelog: by key when keys are given (keeping a key's
// first row for the first-row merge engine), else as a multiset of rows.
// It returns the rows left, formatted and sorted.
func fold(rows []sql.Row, keys []int, firstRow bool) []string {
	count := map[string]int{}
	byKey := map[string]string{}
	for _, r := range rows {
		v := sql.FormatRow(sql.Row{Kind: sql.Insert, Values: r.Values}, nil)
		if keys == nil {
			if r.Kind.IsAdd() {
				count[v]++
			} else {
				count[v]--
			}
			continue
		}
		var k strings.Builder
		for _, i := range keys {
			k.WriteString(sql.FormatRow(sql.Row{Values: []any{r.Values[i]}}, nil))
		}
		if r.Kind.IsAdd() {
			if _, seen := byKey[k.String()]; !seen || !firstRow {
				byKey[k.String()] = v
			}
		} else {
			delete(byKey, k.String())
		}
	}
	var out []string
	for v, n := range count {
		for ; n > 0; n-- {
			out = append(out, v)
		}
		if n < 0 {
			out = append(out, "retracted more than added: "+v)
		}
	}
	for _, v := range byKey {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
