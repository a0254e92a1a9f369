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
