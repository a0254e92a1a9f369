// Package runtime is sqlrun's streaming runtime: a job graph of vertices
// (sources, operators, sinks), one goroutine per parallel subtask, bounded
// channels carrying batches of rows plus in-band control events (checkpoint
// barriers, end of input), aligned checkpoints (Chandy–Lamport, as Flink),
// recovery from checkpoints and savepoints, and job control.
//
// The planner builds a Graph (AddSource, AddOperator, AddSink, Connect) and
// the session runs it with Start, which returns a *Job. Operators implement
// Operator; the ones with Flink's changelog semantics live in
// exec/runtime/operators, keyed state and its codec in exec/runtime/state.
//
// Data contract: the []sql.Row slice of a batch belongs to the operator
// that receives it (the runtime copies batches that go to several
// receivers), so an operator may overwrite its input slice and hand it on
// with Collector.Adopt. The Values of rows are shared and read-only: an
// operator that changes a row builds a new Values slice.
package runtime

import (
	"context"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/fnv1a"
	"github.com/sqlrun/sqlrun/sql"
)

// Operator is one parallel instance of a processing step. The runtime calls
// every method from the subtask's own goroutine, so an operator needs no
// locking. Lifecycle:
//
//	Open → (ProcessBatch | Snapshot | NotifyCheckpointComplete)* → [Finish] → Snapshot(final) → NotifyCheckpointComplete → Close
//
// Finish is called only when every input ended because the data ended
// (bounded input); a graceful stop (stop-with-savepoint) ends the inputs
// without Finish, so the savepoint holds the state a resumed job continues
// from. Close is always called, also after failures and cancellation.
type Operator interface {
	// Open prepares the operator. restored is what Snapshot returned in the
	// checkpoint being restored, or nil on a fresh start.
	Open(ctx *Context, restored []byte) error
	// ProcessBatch handles rows that arrived on input (the index of the
	// Connect call that feeds this vertex, 0 for single-input operators).
	// Results go to out; they are sent downstream when ProcessBatch returns.
	ProcessBatch(input int, rows []sql.Row, out *Collector) error
	// Snapshot returns the operator's state as of every row processed so
	// far; it is called when checkpoint barrier N has arrived on all inputs.
	Snapshot(checkpointID int64) ([]byte, error)
	// NotifyCheckpointComplete says checkpoint N is durable.
	NotifyCheckpointComplete(checkpointID int64) error
	// Finish is end of input: emit what is buffered (batch aggregates,
	// sorts).
	Finish(out *Collector) error
	// Close releases resources.
	Close() error
}

// SplitProcessor is implemented by operators that take the split events
// of the source they are chained to (connectors.SplitReader), forwarded
// with its rows: the generator of a watermark pushed into a source that
// reads splits. ProcessSplitBatch replaces ProcessBatch; it is called on
// every batch, with events or without, and with events and no rows.
type SplitProcessor interface {
	ProcessSplitBatch(rows []sql.Row, events []connectors.SplitEvent, out *Collector) error
}

// Context tells an operator where it runs.
type Context struct {
	// Ctx is cancelled when the job is cancelled or fails.
	Ctx         context.Context
	JobID       string
	JobName     string
	VertexUID   string
	VertexName  string
	Subtask     int
	Parallelism int
	// State is the job's keyed-state backend for this subtask
	// (state.backend.type, table.exec.state.ttl); nil keeps state in memory.
	State *state.Backend
	// Now is the processing-time clock (time.Now when nil; tests set a
	// fake one).
	Now func() time.Time
}

// Clock is ctx.Now, or time.Now when the context sets none.
func (ctx *Context) Clock() func() time.Time {
	if ctx == nil || ctx.Now == nil {
		return time.Now
	}
	return ctx.Now
}

// Base gives no-op defaults for the optional Operator methods; embed it.
type Base struct{}

// Open does nothing.
func (Base) Open(*Context, []byte) error { return nil }

// Snapshot has no state.
func (Base) Snapshot(int64) ([]byte, error) { return nil, nil }

// NotifyCheckpointComplete does nothing.
func (Base) NotifyCheckpointComplete(int64) error { return nil }

// Finish emits nothing.
func (Base) Finish(*Collector) error { return nil }

// Close does nothing.
func (Base) Close() error { return nil }

// Collector gathers an operator's output rows; the runtime sends them on as
// one batch (per destination) after the call that produced them.
type Collector struct {
	rows  []sql.Row
	marks []Mark
}

// Emit appends one row to the output. The row's Values must not be
// changed afterwards.
func (c *Collector) Emit(r sql.Row) { c.rows = append(c.rows, r) }

// Adopt emits a whole batch, taking ownership of the slice when nothing
// was emitted before (no copy); otherwise it appends.
func (c *Collector) Adopt(rs []sql.Row) {
	if len(c.rows) == 0 {
		c.rows = rs
		return
	}
	c.rows = append(c.rows, rs...)
}

// EmitAll appends rows.
func (c *Collector) EmitAll(rs []sql.Row) { c.rows = append(c.rows, rs...) }

// Grow reserves room for n more rows (operators that know their output
// size avoid re-growing the batch).
func (c *Collector) Grow(n int) {
	if cap(c.rows)-len(c.rows) < n {
		rows := make([]sql.Row, len(c.rows), len(c.rows)+n)
		copy(rows, c.rows)
		c.rows = rows
	}
}

// Len is the number of rows emitted and not yet sent.
func (c *Collector) Len() int { return len(c.rows) }

// Rows returns what was emitted (for tests and embedding drivers).
func (c *Collector) Rows() []sql.Row { return c.rows }

// take hands the batch over and starts a fresh one, so the receiver owns
// the slice.
func (c *Collector) take() []sql.Row {
	r := c.rows
	c.rows = nil
	return r
}

// Reset drops emitted rows and marks (for tests that drive an operator by
// hand).
func (c *Collector) Reset() { c.rows, c.marks = nil, nil }

// Rescalable is implemented by operators whose whole state is keyed by the
// key of the Hash edge feeding them: state keys are state.AppendKey over
// the same columns, in the same order, as the edge's Partitioning.Keys.
// The runtime can then restore such an operator at a different parallelism
// than the checkpoint's (as Flink redistributes key groups): each new
// subtask gets every old subtask's blob and keeps the keys it owns.
type Rescalable interface {
	Operator
	// OpenRescaled replaces Open when restoring at a new parallelism.
	OpenRescaled(ctx *Context, blobs [][]byte, owns func(key string) bool) error
}

// OwnsKey reports whether subtask of parallelism receives the rows whose
// Hash-edge key encodes to key: the routing the runtime uses.
func OwnsKey(key string, subtask, parallelism int) bool {
	return int(fnv1a.Sum32String(key)%uint32(parallelism)) == subtask
}
