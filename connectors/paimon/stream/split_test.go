package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream/streamtest"
)

// splitTrace reads n batches (all when n < 0, until the reader waits or
// ends) and renders their rows and split events in order.
func splitTrace(t *testing.T, r connectors.SourceReader, n int) string {
	t.Helper()
	var b []string
	for i := 0; n < 0 || i < n; i++ {
		rows, err := r.Next(context.Background())
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		e := 0
		evs := r.(connectors.SplitReader).SplitEvents()
		for j := 0; j <= len(rows); j++ {
			for ; e < len(evs) && evs[e].At <= j; e++ {
				b = append(b, [...]string{"add", "read", "done"}[evs[e].Kind]+"("+evs[e].Split+")")
			}
			if j < len(rows) {
				b = append(b, fmt.Sprint(rows[j].Values[0]))
			}
		}
		if err != nil || (rows == nil && len(evs) == 0) {
			break
		}
	}
	return strings.Join(b, " ")
}

// TestSplitEvents: the reader reports its splits as Paimon's
// FileStoreSourceReader is handed and reads them: a bucket of a snapshot
// is a split; an unbounded read is handed one at a time (the continuous
// enumerator's PreAssignSplitAssigner has a batch size of 1, whatever
// 'scan.split-enumerator.batch-size' says), a bounded one that many at
// once (the static enumerator); each is read after the other and finished
// at its last row. A reader restored from any position adds again the
// splits of its batch not finished, the one it reads first
// (SourceOperator restores its reader's splits).
func TestSplitEvents(t *testing.T) {
	w := streamtest.NewOrders(t, map[string]string{"changelog-producer": "input", "bucket": "3"})
	d := streamtest.Dec
	// Each commit writes its rows as data files and as changelog files
	// ('changelog-producer' = 'input').
	both := func(fs ...streamtest.FileSpec) []streamtest.FileSpec {
		out := fs
		for _, f := range fs {
			f.Changelog = true
			out = append(out, f)
		}
		return out
	}
	w.Commit(snapshot.Append, both(
		streamtest.FileSpec{Bucket: 0, Recs: []streamtest.Rec{streamtest.Ins(int32(1), d("1.00"), "a"), streamtest.Ins(int32(2), d("1.00"), "b")}},
		streamtest.FileSpec{Bucket: 1, Recs: []streamtest.Rec{streamtest.Ins(int32(3), d("1.00"), "c")}},
		streamtest.FileSpec{Bucket: 2, Recs: []streamtest.Rec{streamtest.Ins(int32(4), d("1.00"), "d")}},
	))
	w.Commit(snapshot.Append, both(
		streamtest.FileSpec{Bucket: 1, Recs: []streamtest.Rec{streamtest.Ins(int32(5), d("1.00"), "e")}},
	))
	for _, c := range []struct {
		name     string
		opts     map[string]string
		want     string
		restored []string
	}{{
		name: "unbounded",
		opts: map[string]string{"scan.snapshot-id": "1", "scan.split-enumerator.batch-size": "2"},
		want: "add(incr-0-1-0) read(incr-0-1-0) 1 2 done(incr-0-1-0) add(incr-0-1-1) read(incr-0-1-1) 3 done(incr-0-1-1) " +
			"add(incr-0-1-2) read(incr-0-1-2) 4 done(incr-0-1-2) add(incr-0-2-0) read(incr-0-2-0) 5 done(incr-0-2-0)",
		// After a restore: the split being read is added again (one whose
		// end the reader had already seen is added and finished at once,
		// before any row: the same watermarks), the rows not emitted follow.
		restored: []string{
			1: "add(incr-0-1-0) read(incr-0-1-0) 2 done(incr-0-1-0) add(incr-0-1-1) read(incr-0-1-1) 3 done(incr-0-1-1) add(incr-0-1-2) read(incr-0-1-2) 4 done(incr-0-1-2) add(incr-0-2-0) read(incr-0-2-0) 5 done(incr-0-2-0)",
			2: "add(incr-0-1-0) read(incr-0-1-0) done(incr-0-1-0) add(incr-0-1-1) read(incr-0-1-1) 3 done(incr-0-1-1) add(incr-0-1-2) read(incr-0-1-2) 4 done(incr-0-1-2) add(incr-0-2-0) read(incr-0-2-0) 5 done(incr-0-2-0)",
			3: "add(incr-0-1-1) read(incr-0-1-1) done(incr-0-1-1) add(incr-0-1-2) read(incr-0-1-2) 4 done(incr-0-1-2) add(incr-0-2-0) read(incr-0-2-0) 5 done(incr-0-2-0)",
			4: "add(incr-0-2-0) read(incr-0-2-0) 5 done(incr-0-2-0)",
			5: "",
		},
	}, {
		name: "bounded",
		opts: map[string]string{"scan.bounded": "true", "scan.split-enumerator.batch-size": "2"},
		want: "add(full-0-2-0) add(full-0-2-1) read(full-0-2-0) 1 2 done(full-0-2-0) read(full-0-2-1) 3 5 done(full-0-2-1) add(full-0-2-2) read(full-0-2-2) 4 done(full-0-2-2)",
		restored: []string{
			1: "add(full-0-2-0) add(full-0-2-1) read(full-0-2-0) 2 done(full-0-2-0) read(full-0-2-1) 3 5 done(full-0-2-1) add(full-0-2-2) read(full-0-2-2) 4 done(full-0-2-2)",
			2: "add(full-0-2-0) add(full-0-2-1) read(full-0-2-0) done(full-0-2-0) read(full-0-2-1) 3 5 done(full-0-2-1) add(full-0-2-2) read(full-0-2-2) 4 done(full-0-2-2)",
			3: "add(full-0-2-1) read(full-0-2-1) 5 done(full-0-2-1) add(full-0-2-2) read(full-0-2-2) 4 done(full-0-2-2)",
			4: "add(full-0-2-1) read(full-0-2-1) done(full-0-2-1) add(full-0-2-2) read(full-0-2-2) 4 done(full-0-2-2)",
			5: "",
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			src, err := NewSourceFS(w.FIO, w.Root, c.opts, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			src.BatchRows = 1
			clock := time.Unix(1_800_000_000, 0)
			src.Now = func() time.Time { return clock }
			open := func(state []byte) connectors.SourceReader {
				r, err := src.NewReader(0, 1)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Open(context.Background(), state); err != nil {
					t.Fatal(err)
				}
				return r
			}
			if got := splitTrace(t, open(nil), -1); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
			for k := 1; k <= 5; k++ {
				r := open(nil)
				splitTrace(t, r, k)
				state, err := r.Snapshot(1)
				if err != nil {
					t.Fatal(err)
				}
				if got := splitTrace(t, open(state), -1); got != c.restored[k] {
					t.Errorf("restored after %d batches:\ngot  %s\nwant %s", k, got, c.restored[k])
				}
			}
		})
	}
}
