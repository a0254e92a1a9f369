package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream/streamtest"
	"github.com/sqlrun/sqlrun/sql"
)

// drainReader reads until the reader waits (fake clock not advanced) or
// ends, returning the rows printed.
func drainReader(t *testing.T, r connectors.SourceReader) []string {
	t.Helper()
	var out []string
	for i := 0; i < 100000; i++ {
		rows, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rows == nil {
			return out
		}
		for _, row := range rows {
			out = append(out, sql.FormatRow(row, nil))
		}
	}
	t.Fatal("reader never waited")
	return nil
}

// TestRandomRestoreExactlyOnce commits random snapshots (APPEND with a
// changelog, COMPACT without, across three buckets) and reads them with
// readers that are checkpointed and restored at random points, with small
// batches so restores land inside snapshots. Per subtask, the rows emitted
// up to each checkpoint plus what the restored reader emits must equal
// the changelog rows of its buckets in commit order: no gap, no replay.
func TestRandomRestoreExactlyOnce(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			w := streamtest.NewOrders(t, map[string]string{"changelog-producer": "input", "bucket": "3"})
			clock := time.Unix(1_800_000_000, 0)
			par := 1 + int(seed%2)
			want := make([][]string, par)
			var sources []*Source
			var readers []connectors.SourceReader
			var got [][]string
			var states [][]byte
			var statesGot [][]string
			newReader := func(i int, state []byte) connectors.SourceReader {
				r, err := sources[0].NewReader(i, par)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Open(context.Background(), state); err != nil {
					t.Fatal(err)
				}
				return r
			}
			src, err := NewSourceFS(w.FIO, w.Root, map[string]string{"scan.snapshot-id": "1"}, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			src.Now = func() time.Time { return clock }
			src.BatchRows = 3
			sources = append(sources, src)
			for i := 0; i < par; i++ {
				readers = append(readers, newReader(i, nil))
				got = append(got, nil)
				states = append(states, nil)
				statesGot = append(statesGot, nil)
			}
			key := int32(0)
			for step := 0; step < 30; step++ {
				if rng.Intn(4) == 0 && step > 0 {
					w.CompactAll(nil, nil)
				} else {
					var files []streamtest.FileSpec
					for b := int32(0); b < 3; b++ {
						if rng.Intn(3) == 0 {
							continue
						}
						var recs []streamtest.Rec
						for n := rng.Intn(5) + 1; n > 0; n-- {
							key++
							recs = append(recs, streamtest.Ins(key, streamtest.Dec("1.00"), fmt.Sprint("s", step)))
						}
						files = append(files, streamtest.FileSpec{Bucket: b, Changelog: true, Recs: recs})
						owner := owner([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, b, par)
						for _, r := range recs {
							want[owner] = append(want[owner], sql.FormatRow(sql.Row{Kind: r.Kind, Values: r.Vals}, nil))
						}
					}
					w.Commit(snapshot.Append, files)
				}
				clock = clock.Add(11 * time.Second)
				for i := range readers {
					// read a random amount, then maybe checkpoint or restore
					for n := rng.Intn(4); n > 0; n-- {
						rows, err := readers[i].Next(context.Background())
						if err != nil {
							t.Fatal(err)
						}
						for _, row := range rows {
							got[i] = append(got[i], sql.FormatRow(row, nil))
						}
					}
					switch rng.Intn(3) {
					case 0:
						st, err := readers[i].Snapshot(int64(step))
						if err != nil {
							t.Fatal(err)
						}
						states[i], statesGot[i] = st, append([]string(nil), got[i]...)
					case 1: // crash: back to the last checkpoint
						readers[i].Close()
						readers[i] = newReader(i, states[i])
						got[i] = append([]string(nil), statesGot[i]...)
					}
				}
			}
			clock = clock.Add(11 * time.Second)
			for i := range readers {
				got[i] = append(got[i], drainReader(t, readers[i])...)
				if strings.Join(got[i], "\n") != strings.Join(want[i], "\n") {
					t.Fatalf("subtask %d of %d:\n got %d rows %v\nwant %d rows %v", i, par, len(got[i]), got[i], len(want[i]), want[i])
				}
				readers[i].Close()
			}
		})
	}
}

// TestConsumerSlowestSubtask: with two subtasks the consumer file names the
// slowest subtask's next snapshot, only once every subtask has taken part
// in the checkpoint; at-least-once uses the positions at completion.
func TestConsumerSlowestSubtask(t *testing.T) {
	for _, mode := range []string{"exactly-once", "at-least-once"} {
		t.Run(mode, func(t *testing.T) {
			w := streamtest.NewOrders(t, map[string]string{"changelog-producer": "input", "bucket": "2"})
			d := streamtest.Dec
			w.Commit(snapshot.Append, []streamtest.FileSpec{{Bucket: 0, Changelog: true, Recs: []streamtest.Rec{streamtest.Ins(int32(2), d("1.00"), "a")}}})
			src, err := NewSourceFS(w.FIO, w.Root, map[string]string{"scan.mode": "latest", "consumer-id": "c",
				"consumer.expiration-time": "1 d", "consumer.mode": mode}, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			clock := time.Unix(1_800_000_000, 0)
			src.Now = func() time.Time { return clock }
			r0, _ := src.NewReader(0, 2)
			r1, _ := src.NewReader(1, 2)
			ctx := context.Background()
			for _, r := range []connectors.SourceReader{r0, r1} {
				if err := r.Open(ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
			drainReader(t, r0) // both start: latest is 1, so they follow from 2
			drainReader(t, r1)
			w.Commit(snapshot.Append, []streamtest.FileSpec{{Bucket: 0, Changelog: true, Recs: []streamtest.Rec{streamtest.Ins(int32(4), d("1.00"), "b")}}})
			w.Commit(snapshot.Append, []streamtest.FileSpec{{Bucket: 1, Changelog: true, Recs: []streamtest.Rec{streamtest.Ins(int32(5), d("1.00"), "c")}}})
			clock = clock.Add(time.Minute)
			drainReader(t, r0) // r0 at snapshot 4
			if _, err := r0.Snapshot(1); err != nil {
				t.Fatal(err)
			}
			if err := r0.NotifyCheckpointComplete(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := w.SM.ReadConsumer("c"); err == nil {
				t.Fatal("consumer written before every subtask took part")
			}
			// r1 has not read yet: at snapshot 2.
			if _, err := r1.Snapshot(1); err != nil {
				t.Fatal(err)
			}
			if mode == "at-least-once" {
				drainReader(t, r1) // now at 4 too
			}
			if err := r1.NotifyCheckpointComplete(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if mode == "at-least-once" {
				if err := r0.NotifyCheckpointComplete(ctx, 1); err != nil {
					t.Fatal(err)
				}
			}
			c, err := w.SM.ReadConsumer("c")
			if err != nil {
				t.Fatal(err)
			}
			want := int64(2)
			if mode == "at-least-once" {
				want = 4
			}
			if c.NextSnapshot != want {
				t.Fatalf("consumer nextSnapshot = %d, want %d", c.NextSnapshot, want)
			}
		})
	}
}

// TestNextReturnsPromptly: catching up over many skipped snapshots does
// not hold Next beyond its time budget.
func TestNextReturnsPromptly(t *testing.T) {
	w := streamtest.NewOrders(t, nil)
	d := streamtest.Dec
	w.Commit(snapshot.Append, []streamtest.FileSpec{{Recs: []streamtest.Rec{streamtest.Ins(int32(1), d("1.00"), "a")}}})
	for i := 0; i < 60; i++ {
		w.Commit(snapshot.Compact, nil)
	}
	src, err := NewSourceFS(w.FIO, w.Root, map[string]string{"scan.snapshot-id": "2"}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := src.NewReader(0, 1)
	if err := r.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var slowest time.Duration
	for i := 0; i < 1000; i++ {
		start := time.Now()
		rows, err := r.Next(context.Background())
		if el := time.Since(start); el > slowest {
			slowest = el
		}
		if err != nil || rows != nil {
			t.Fatalf("rows %v err %v", rows, err)
		}
		if r.(*Reader).Position().Snapshot == 62 {
			break
		}
	}
	if p := r.(*Reader).Position(); p.Snapshot != 62 {
		t.Fatalf("position %+v", p)
	}
	if slowest > 200*time.Millisecond {
		t.Fatalf("a Next took %v", slowest)
	}
	t.Logf("slowest Next while skipping 60 snapshots: %v", slowest)
}

// TestConcurrentSubtasks runs four subtasks on their own goroutines, as
// the runtime does, over shared plan cache and consumer progress: every
// changelog row is read exactly once by exactly one subtask.
func TestConcurrentSubtasks(t *testing.T) {
	w := streamtest.NewOrders(t, map[string]string{"changelog-producer": "input", "bucket": "4"})
	want := map[string]bool{}
	for s := 0; s < 8; s++ {
		var files []streamtest.FileSpec
		for b := int32(0); b < 4; b++ {
			id := int32(s*4) + b
			r := streamtest.Ins(id, streamtest.Dec("1.00"), "x")
			files = append(files, streamtest.FileSpec{Bucket: b, Changelog: true, Recs: []streamtest.Rec{r}})
			want[sql.FormatRow(sql.Row{Kind: r.Kind, Values: r.Vals}, nil)] = true
		}
		w.Commit(snapshot.Append, files)
	}
	src, err := NewSourceFS(w.FIO, w.Root, map[string]string{"scan.snapshot-id": "1", "consumer-id": "c",
		"consumer.expiration-time": "1 h"}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, 4)
	done := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func(i int) {
			r, err := src.NewReader(i, 4)
			if err == nil {
				err = r.Open(context.Background(), nil)
			}
			for err == nil {
				var rows []sql.Row
				if rows, err = r.Next(context.Background()); rows == nil && err == nil {
					if r.(*Reader).Position().Snapshot == 9 {
						break
					}
				}
				for _, row := range rows {
					out[i] = append(out[i], sql.FormatRow(row, nil))
				}
			}
			if err == nil {
				_, err = r.Snapshot(1)
			}
			if err == nil {
				err = r.NotifyCheckpointComplete(context.Background(), 1)
			}
			done <- err
		}(i)
	}
	for i := 0; i < 4; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, rows := range out {
		for _, r := range rows {
			if seen[r] || !want[r] {
				t.Fatalf("row %s read twice or unexpected", r)
			}
			seen[r] = true
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("read %d rows, want %d", len(seen), len(want))
	}
	if c, err := w.SM.ReadConsumer("c"); err != nil || c.NextSnapshot != 9 {
		t.Fatalf("consumer %+v, %v", c, err)
	}
}

// TestOpenRejectsBadState: a corrupt checkpoint state is an error, never a
// panic or a reader that silently never reads.
func TestOpenRejectsBadState(t *testing.T) {
	w := streamtest.NewOrders(t, nil)
	src, err := NewSourceFS(w.FIO, w.Root, nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{`{`, `{"phase":"sideways"}`, `{"phase":"incr","offset":-1}`, `[]`} {
		r, _ := src.NewReader(0, 1)
		if err := r.Open(context.Background(), []byte(st)); err == nil {
			t.Errorf("state %s: no error", st)
		}
	}
}
