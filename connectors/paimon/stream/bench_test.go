package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream/streamtest"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// BenchmarkFollowChangelog measures the follow-up phase: a streaming
// reader (one subtask, so one core) consuming the changelog files of
// snapshots committed with changelog-producer = input, 4 changelog rows
// per key (+I, -U, +U, -D), reported as changelog rows per second.
func BenchmarkFollowChangelog(b *testing.B) {
	const snapshots, keys = 10, 2500
	w := streamtest.NewOrders(b, map[string]string{"changelog-producer": "input"})
	d := streamtest.Dec
	for s := 0; s < snapshots; s++ {
		var data, cl []streamtest.Rec
		for k := 0; k < keys; k++ {
			id := int32(s*keys + k)
			data = append(data, streamtest.Ins(id, d("100.00"), "PAID"))
			cl = append(cl, streamtest.Ins(id, d("80.00"), "CREATED"), streamtest.UB(id, d("80.00"), "CREATED"),
				streamtest.UA(id, d("100.00"), "PAID"))
		}
		w.Commit(snapshot.Append, []streamtest.FileSpec{{Recs: data}, {Changelog: true, Recs: cl}})
	}
	want := snapshots * keys * 3
	b.ResetTimer()
	var total int
	for i := 0; i < b.N; i++ {
		src, err := NewSourceFS(w.FIO, w.Root, map[string]string{"scan.snapshot-id": "1"}, true, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := readToWait(b, src)
		if n != want {
			b.Fatalf("read %d rows, want %d", n, want)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFullPhase measures the full phase: merge-on-read of a bucket
// with several level-0 files over a compacted level, as +I rows.
func BenchmarkFullPhase(b *testing.B) {
	const files, keys = 5, 10000
	w := streamtest.NewOrders(b, nil)
	d := streamtest.Dec
	for f := 0; f < files; f++ {
		var data []streamtest.Rec
		for k := 0; k < keys; k++ {
			data = append(data, streamtest.Ins(int32(k), d(fmt.Sprintf("%d.00", f)), "CREATED"))
		}
		w.Commit(snapshot.Append, []streamtest.FileSpec{{Recs: data}})
	}
	b.ResetTimer()
	var total int
	for i := 0; i < b.N; i++ {
		src, err := NewSourceFS(w.FIO, w.Root, nil, false, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := readToWait(b, src)
		if n != keys {
			b.Fatalf("read %d rows, want %d", n, keys)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rows/s")
}

// readToWait reads until the reader waits for the next snapshot or ends.
func readToWait(b *testing.B, src *Source) int {
	r, err := src.NewReader(0, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if err := r.Open(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	n := 0
	idle := 0
	for {
		rows, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		if rows == nil {
			if rr := r.(*Reader); rr.now().Before(rr.nextCheck) || idle > 1000 {
				return n
			}
			idle++
			time.Sleep(time.Millisecond)
			continue
		}
		n += len(rows)
	}
}

// BenchmarkCommitToRow measures the latency from a commit (the table
// layer's TableWrite + Commit, producer input, one row) returning to a
// streaming reader emitting the row, with the discovery interval set to 0
// so the figure excludes the wait for the next discovery.
func BenchmarkCommitToRow(b *testing.B) {
	dir := b.TempDir()
	tt, err := table.Create(nil, dir+"/t", sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int().NotNull()},
		{Name: "v", Type: sql.BigInt()}}, PrimaryKey: []string{"k"}}, nil,
		map[string]string{"bucket": "1", "changelog-producer": "input"}, "", time.Now().UnixMilli())
	if err != nil {
		b.Fatal(err)
	}
	tw, err := tt.NewWrite(table.WriteOptions{TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer tw.Close()
	tc := tt.NewCommit("bench")
	src, err := NewSource(dir+"/t", map[string]string{"scan.mode": "latest", "continuous.discovery-interval": "0 ms"}, true, nil)
	if err != nil {
		b.Fatal(err)
	}
	r, _ := src.NewReader(0, 1)
	ctx := context.Background()
	if err := r.Open(ctx, nil); err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(ctx); err != nil { // starting scan
		b.Fatal(err)
	}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := tw.Write(sql.Row{Kind: sql.Insert, Values: []any{int32(i % 100), int64(i)}}); err != nil {
			b.Fatal(err)
		}
		msgs, err := tw.PrepareCommit(false)
		if err != nil {
			b.Fatal(err)
		}
		if err := tc.Commit(int64(i+1), msgs, nil); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for {
			rows, err := r.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if len(rows) > 0 {
				break
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/commit-to-row")
}
