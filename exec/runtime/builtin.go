package runtime

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// ValuesSource is the source of a VALUES clause (Flink's Values node): the
// given rows, read once by subtask 0. It is restorable: its position is
// its checkpoint state.
type ValuesSource struct {
	Rows []sql.Row
	// Unbounded keeps the source running (idle) after the last row, as a
	// streaming values source in Flink's planner tests does.
	Unbounded bool
}

// ChangelogMode is the union of the rows' kinds (insert-only for VALUES).
func (v *ValuesSource) ChangelogMode() sql.ChangelogMode {
	m := sql.InsertOnly
	for _, r := range v.Rows {
		m = m.With(r.Kind)
	}
	return m
}

// Bounded reports whether the source ends after its rows.
func (v *ValuesSource) Bounded() bool { return !v.Unbounded }

// NewReader gives subtask 0 all rows, the others none.
func (v *ValuesSource) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	var rows []sql.Row
	if subtask == 0 {
		rows = v.Rows
	}
	return &SliceReader{Rows: rows, Unbounded: v.Unbounded}, nil
}

// SliceReader reads a slice of rows in batches; its state is the offset.
type SliceReader struct {
	Rows      []sql.Row
	Unbounded bool
	// BatchSize defaults to 1024.
	BatchSize int
	pos       int
}

// Open restores the offset.
func (r *SliceReader) Open(_ context.Context, st []byte) error {
	if r.BatchSize <= 0 {
		r.BatchSize = 1024
	}
	if len(st) > 0 {
		n, k := binary.Uvarint(st)
		if k <= 0 || n > uint64(len(r.Rows)) {
			return fmt.Errorf("values source: bad restored position")
		}
		r.pos = int(n)
	}
	return nil
}

// Next returns the next batch, io.EOF at the end (unless unbounded).
func (r *SliceReader) Next(context.Context) ([]sql.Row, error) {
	if r.pos >= len(r.Rows) {
		if r.Unbounded {
			return nil, nil
		}
		return nil, io.EOF
	}
	end := min(r.pos+r.BatchSize, len(r.Rows))
	out := make([]sql.Row, end-r.pos)
	copy(out, r.Rows[r.pos:end])
	r.pos = end
	return out, nil
}

// Snapshot stores the offset.
func (r *SliceReader) Snapshot(int64) ([]byte, error) {
	return binary.AppendUvarint(nil, uint64(r.pos)), nil
}

// NotifyCheckpointComplete does nothing.
func (r *SliceReader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

// Close does nothing.
func (r *SliceReader) Close() error { return nil }

// Collect is the sink behind a SELECT in the shell: it streams the rows
// (every RowKind) to the reader through a bounded channel, so a slow
// terminal backpressures the job. Use it with parallelism 1.
type Collect struct {
	ch chan []sql.Row
}

// NewCollect makes a collect sink buffering up to buffer batches.
func NewCollect(buffer int) *Collect {
	if buffer <= 0 {
		buffer = 16
	}
	return &Collect{ch: make(chan []sql.Row, buffer)}
}

// ChangelogMode accepts whatever the query produces.
func (c *Collect) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	return requested, nil
}

// Parallelism is 1.
func (c *Collect) Parallelism() int { return 1 }

// NewWriter returns the writer feeding the channel.
func (c *Collect) NewWriter(int, int) (connectors.SinkWriter, error) {
	return &collectWriter{c: c}, nil
}

// Next returns the next batch of result rows. It returns io.EOF once the
// job has ended and every row was delivered, or the job's error if it
// failed.
func (c *Collect) Next(ctx context.Context, job *Job) ([]sql.Row, error) {
	select {
	case b := <-c.ch:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-job.Done():
	}
	select { // rows sent before the job ended come first
	case b := <-c.ch:
		return b, nil
	default:
	}
	if err := job.Err(); err != nil {
		if errors.Is(err, io.EOF) {
			// A failure caused by a file that ended too early (an empty
			// Parquet file: "reading magic header: EOF") must not read as
			// this method's end-of-results io.EOF to the caller.
			return nil, &sql.Error{Class: sql.RuntimeException, Msg: err.Error()}
		}
		return nil, err
	}
	return nil, io.EOF
}

type collectWriter struct {
	c *Collect
}

func (w *collectWriter) Open(context.Context, []byte) error { return nil }

func (w *collectWriter) Write(ctx context.Context, rows []sql.Row) error {
	b := make([]sql.Row, len(rows))
	copy(b, rows)
	select {
	case w.c.ch <- b:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *collectWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) {
	return nil, nil, nil
}

func (w *collectWriter) NotifyCheckpointComplete(context.Context, int64) error { return nil }

func (w *collectWriter) Close(context.Context) error { return nil }
