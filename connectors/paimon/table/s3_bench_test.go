package table

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/internal/testutil/s3server"
)

// countingTransport counts the HTTP requests an S3 client sends.
type countingTransport struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// BenchmarkCommitS3 compares a streaming writer's checkpoints on local disk
// and on a real S3-compatible server (versitygw's POSIX gateway on
// loopback, so the figures are the protocol's cost, not a network's): each
// op writes 1,000 rows of the TableWriterBenchmark shape into a one-bucket
// primary-key table and commits them (data file, manifest, manifest list,
// snapshot: a checkpoint of a job). It reports rows/s, ms per commit and,
// on S3, HTTP requests per commit.
func BenchmarkCommitS3(b *testing.B) {
	const rowsPerCommit = 1000
	run := func(b *testing.B, fio fs.FileIO, path string, requests func() int64) {
		productGC(b)
		if _, err := Create(fio, path, benchSchema(), nil, map[string]string{"bucket": "1"}, "", 0); err != nil {
			b.Fatal(err)
		}
		tbl, err := Open(fio, path, nil)
		if err != nil {
			b.Fatal(err)
		}
		w, err := tbl.NewWrite(WriteOptions{TempDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		c := tbl.NewCommit("bench")
		gen := newRowGen(1 << 30)
		req0 := requests()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j := 0; j < rowsPerCommit; j++ {
				if err := w.Write(gen.next()); err != nil {
					b.Fatal(err)
				}
			}
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Commit(int64(i+1), msgs, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N*rowsPerCommit)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/commit")
		if n := requests() - req0; n > 0 {
			b.ReportMetric(float64(n)/float64(b.N), "requests/commit")
		}
	}
	b.Run("local", func(b *testing.B) {
		run(b, fs.NewLocal(), b.TempDir(), func() int64 { return 0 })
	})
	b.Run("s3", func(b *testing.B) {
		fio, requests := s3BenchFS(b)
		run(b, fio, "s3://bench/wh/default.db/t", requests)
	})
}

// BenchmarkReadS3 reads a 100,000-row table (TableWriterBenchmark's shape,
// one bucket, written in 10 commits, so merge-on-read over several files)
// in batch mode per op, on local disk and on the S3 server: rows/s and, on
// S3, HTTP requests per full read.
func BenchmarkReadS3(b *testing.B) {
	const rows, commits = 100_000, 10
	run := func(b *testing.B, fio fs.FileIO, path string, requests func() int64) {
		if _, err := Create(fio, path, benchSchema(), nil, map[string]string{"bucket": "1", "num-sorted-run.compaction-trigger": "100"}, "", 0); err != nil {
			b.Fatal(err)
		}
		tbl, err := Open(fio, path, nil)
		if err != nil {
			b.Fatal(err)
		}
		w, err := tbl.NewWrite(WriteOptions{TempDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		gen := newRowGen(1 << 30)
		c := tbl.NewCommit("bench")
		for i := 0; i < commits; i++ {
			for j := 0; j < rows/commits; j++ {
				if err := w.Write(gen.next()); err != nil {
					b.Fatal(err)
				}
			}
			msgs, err := w.PrepareCommit(false)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Commit(int64(i+1), msgs, nil); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
		productGC(b)
		req0 := requests()
		b.ResetTimer()
		var n int
		for i := 0; i < b.N; i++ {
			s, err := tbl.Snapshots.Latest() // a batch read plans from the snapshot each time
			if err != nil {
				b.Fatal(err)
			}
			splits, err := tbl.PlanFull(s, nil)
			if err != nil {
				b.Fatal(err)
			}
			for _, sp := range splits {
				r, err := tbl.NewSplitReader(sp, ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, ok := r.Next(); !ok {
						break
					}
					n++
				}
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		if n != b.N*rows {
			b.Fatalf("read %d rows, want %d", n, b.N*rows)
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
		if k := requests() - req0; k > 0 {
			b.ReportMetric(float64(k)/float64(b.N), "requests/read")
		}
	}
	b.Run("local", func(b *testing.B) {
		run(b, fs.NewLocal(), b.TempDir(), func() int64 { return 0 })
	})
	b.Run("s3", func(b *testing.B) {
		fio, requests := s3BenchFS(b)
		run(b, fio, "s3://bench/wh/default.db/r", requests)
	})
}

// s3BenchFS starts the S3 server with a bucket "bench" and returns a FileIO
// on it and the count of HTTP requests it has sent.
func s3BenchFS(b *testing.B) (fs.FileIO, func() int64) {
	srv := s3server.Start(b)
	srv.Bucket(b, "bench")
	cfg, err := fs.S3ConfigFromOptions(srv.Options())
	if err != nil {
		b.Fatal(err)
	}
	ct := &countingTransport{next: http.DefaultTransport}
	cfg.Transport = ct
	fio, err := fs.NewS3(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return fio, ct.n.Load
}
