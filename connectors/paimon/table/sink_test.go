package table

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

var ordersTypes = []sql.DataType{sql.BigInt().NotNull(), sql.Decimal(10, 2), sql.String()}

func ordersSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{{Name: "id", Type: ordersTypes[0]}, {Name: "amount", Type: ordersTypes[1]},
		{Name: "status", Type: ordersTypes[2]}}, PrimaryKey: []string{"id"}}
}

func parseOrder(t *testing.T, line string) sql.Row {
	f := strings.Fields(line)
	if len(f) != 4 {
		t.Fatalf("bad row %q", line)
	}
	kind, err := sql.ParseRowKind(f[0])
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.ParseInt(f[1], 10, 64)
	return sql.Row{Kind: kind, Values: []any{id, decimal.RequireFromString(f[2]), f[3]}}
}

// TestSinkStory drives the SQL sink runtime (SinkWriter + Committer) with
// the seed's order-1001 story: checkpoints, commits, replays after
// recovery, restarts and what a streaming reader sees per snapshot.
func TestSinkStory(t *testing.T) {
	datadriven.Walk(t, "testdata/sink", func(t *testing.T, path string) {
		var (
			tbl   *Table
			sink  *Sink
			w     *SinkWriter
			state []byte
			comms = map[int64][]byte{}
			dir   = t.TempDir()
			ctx   = context.Background()
			clock = time.UnixMilli(1_700_000_000_000)
		)
		open := func() {
			var err error
			if tbl, err = Open(fs.NewLocal(), dir, nil); err != nil {
				t.Fatal(err)
			}
			if sink, err = NewSink(tbl, SinkOptions{Streaming: true, TempDir: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			sw, _ := sink.NewWriter(0, 1)
			w = sw.(*SinkWriter)
			if err := w.Open(ctx, state); err != nil {
				t.Fatal(err)
			}
			// compaction-interval runs on a clock only "tick" moves.
			w.tw.now = func() time.Time { return clock }
			w.tw.lastFull = clock
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "create":
				opts := map[string]string{}
				for _, a := range d.CmdArgs {
					opts[a.Key] = a.Vals[0]
				}
				if _, err := Create(fs.NewLocal(), dir, ordersSchema(), nil, opts, "", 0); err != nil {
					return "error: " + err.Error() + "\n"
				}
				open()
				return ""
			case "write":
				var rows []sql.Row
				for _, l := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					rows = append(rows, parseOrder(t, l))
				}
				if err := w.Write(ctx, rows); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return ""
			case "checkpoint":
				var id int64
				d.ScanArgs(t, "id", &id)
				st, comm, err := w.Snapshot(ctx, id)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				state, comms[id] = st, comm
				if d.HasArg("fail-before-commit") {
					return ""
				}
				fallthrough
			case "replay":
				var id int64
				d.ScanArgs(t, "id", &id)
				before, _, _ := tbl.Snapshots.LatestID()
				if err := sink.Commit(ctx, id, [][]byte{comms[id]}); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return describeSnapshots(t, tbl, before)
			case "tick":
				clock = clock.Add(time.Hour)
				return ""
			case "restart":
				w.Close(ctx)
				open()
				return ""
			case "changelog":
				var from int64
				d.ScanArgs(t, "from", &from)
				return streamRead(t, tbl, from)
			case "vectors":
				// The latest snapshot's deletion vectors, after checking
				// that the table reads as Paimon's deletion-vector readers
				// read it (checkDeletionVectors).
				checkDeletionVectors(t, tbl)
				s, _ := tbl.Snapshots.Latest()
				es, err := tbl.indexEntries(s, "DELETION_VECTORS")
				if err != nil {
					t.Fatal(err)
				}
				files, rows := 0, int64(0)
				for _, e := range es {
					for _, r := range e.DVRanges {
						files++
						rows += *r.Cardinality
					}
				}
				return fmt.Sprintf("%d index files, %d vectors, %d rows deleted\n", len(es), files, rows)
			case "read":
				rows, err := readAll(tbl, nil, ReadOptions{})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return strings.Join(rows, "\n") + "\n"
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
		if w != nil {
			w.Close(ctx)
		}
	})
}

func describeSnapshots(t *testing.T, tbl *Table, after int64) string {
	latest, _, _ := tbl.Snapshots.LatestID()
	if latest == after {
		return "no new snapshot\n"
	}
	var b strings.Builder
	for id := after + 1; id <= latest; id++ {
		s, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "snapshot %d %s identifier=%d total=%d delta=%d", s.ID, s.CommitKind, s.CommitIdentifier,
			snapshot.Get(s.TotalRecordCount), snapshot.Get(s.DeltaRecordCount))
		if s.ChangelogRecordCount != nil {
			fmt.Fprintf(&b, " changelog=%d", *s.ChangelogRecordCount)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// streamRead prints what a streaming reader sees from snapshot from on:
// with producer none the delta of APPEND snapshots, otherwise the
// changelog of snapshots that have one.
func streamRead(t *testing.T, tbl *Table, from int64) string {
	latest, _, _ := tbl.Snapshots.LatestID()
	none := tbl.Spec.Producer == "none"
	var b strings.Builder
	for id := from; id <= latest; id++ {
		s, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		var splits []Split
		if none {
			if s.CommitKind != snapshot.Append {
				continue
			}
			splits, err = tbl.PlanDelta(s, nil)
		} else {
			splits, err = tbl.PlanChangelog(s, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range splits {
			r, err := tbl.NewSplitReader(sp, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for {
				row, ok := r.Next()
				if !ok {
					break
				}
				fmt.Fprintf(&b, "snapshot %d: %s\n", id, sql.FormatRow(row, ordersTypes))
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.String()
}
