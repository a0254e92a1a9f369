package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/exec/runtime/state/lsm"
	"github.com/sqlrun/sqlrun/internal/fnv1a"
	"github.com/sqlrun/sqlrun/sql"
)

// envelope is what travels on a data channel: a batch of rows or an
// in-band control event, tagged with the channel index it came from (all
// senders into one subtask share one Go channel; the tag lets the receiver
// align barriers per logical channel).
type envelope struct {
	ch   int
	kind envKind
	rows []sql.Row
	cp   int64 // barrier: checkpoint id
	wm   int64 // watermark
	idle bool  // watermark status: IDLE (true) or ACTIVE
	// drain is set on end of input when the data really ended (run Finish);
	// it is false when a graceful stop ended the input.
	drain bool
	// splits are the split events of a source's rows (on forward edges,
	// to a SplitProcessor: the generator of a watermark pushed into it).
	splits []connectors.SplitEvent
}

type envKind uint8

const (
	envData envKind = iota
	envBarrier
	envEnd
	envWatermark
	envStatus
)

// command is what the coordinator tells a task outside the data flow.
type command struct {
	kind cmdKind
	cp   int64
	mode snapMode // cmdTrigger: what the snapshot is for
}

// snapMode is what a snapshot is taken for.
type snapMode uint8

const (
	// snapCheckpoint: a chk-N directory under the job's checkpoint
	// directory (the LSM backend links its files there).
	snapCheckpoint snapMode = iota
	// snapSavepoint: a self-contained snapshot (entries, not files).
	snapSavepoint
	// snapDiscard: the final checkpoint of a job that writes none (no
	// checkpointing, no savepoint): only sources and sinks take part (the
	// sinks commit); operator state, which nothing will restore, is not
	// serialized.
	snapDiscard
)

type cmdKind uint8

const (
	// cmdTrigger: a running source injects barrier cp; a finished task
	// snapshots directly (nothing can reach it any more).
	cmdTrigger cmdKind = iota
	cmdNotify
	cmdStop
	cmdClose
)

// event is what a task tells the coordinator.
type event struct {
	kind        evKind
	task        *task
	cp          int64
	state       []byte
	committable []byte
	err         error
	// sync (evAck) is how long the subtask stopped processing records to
	// take its snapshot (Flink's checkpoint "sync duration"); align how
	// long its first barrier waited for the last (alignment duration).
	sync, align time.Duration
}

type evKind uint8

const (
	evAck evKind = iota
	evFinished
	evFailed
	evClosed
)

type dest struct {
	ch  chan envelope
	idx int // channel index at the receiver
	// credits bounds the data batches of this logical channel that the
	// receiver holds unprocessed (nil for a receiver with one channel): a
	// batch takes a credit when sent and gives it back once processed, so
	// a channel blocked by barrier alignment back-pressures its sender
	// after alignCredits batches instead of being buffered without bound.
	credits chan struct{}
}

// alignCredits is how many batches one logical channel may have in flight
// to a receiver with several channels (what alignment buffers at most per
// blocked channel).
const alignCredits = 8

type outEdge struct {
	kind  PartitionKind
	keys  []int
	dests []dest
	rr    int
	enc   state.Encoder
	parts [][]sql.Row
}

type taskRole uint8

const (
	roleSource taskRole = iota
	roleOperator
	roleSink
)

// task is one subtask of a vertex, run by one goroutine.
type task struct {
	// splitEvents are the split events of the rows a source task sends
	// next (connectors.SplitReader).
	splitEvents []connectors.SplitEvent
	job         *Job
	vertex      *Vertex
	vi          int
	subtask     int
	role        taskRole
	metrics     *vertexMetrics

	restored []byte
	// restoreDir is the directory of the checkpoint being restored.
	restoreDir string
	// store is the operator's LSM (state.backend.type rocksdb).
	store *lsm.Store
	// rescaled holds every old subtask's state when a Rescalable operator
	// is restored at a different parallelism.
	rescaled [][]byte

	op     Operator
	reader connectors.SourceReader
	writer connectors.SinkWriter

	in         chan envelope
	ctrl       chan command
	events     chan<- event
	outs       []*outEdge
	outEdgeIdx []int // graph edge index → index in outs, -1 if none
	numChan    int
	inputOf    []int           // channel index → input index
	credits    []chan struct{} // channel index → its credits (nil with one channel)

	// alignment state
	blocked  []bool
	ended    []bool
	nEnded   int
	drainAll bool
	aligning int64 // checkpoint being aligned, 0 when none
	// alignStart is when the first barrier of aligning arrived; aligned
	// how long alignment took, for the snapshot's ack.
	alignStart time.Time
	aligned    time.Duration
	nBlocked   int
	buffered   []envelope
	finished   bool
	closed     bool
	lastAcked  int64
	out        Collector
	valve      *valve // event time across the input channels
	// alignMember is, on an aligned source's reader and on the generator
	// chained after it, the subtask's place in its alignment group.
	alignMember *alignMember
}

func (t *task) name() string {
	return fmt.Sprintf("%s (%d/%d)", t.vertex.Name, t.subtask+1, t.vertex.Parallelism)
}

func (t *task) emit(ctx context.Context, ev event) {
	ev.task = t
	select {
	case t.events <- ev:
	case <-ctx.Done():
	}
}

// run is the subtask's goroutine.
func (t *task) run(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			t.emit(ctx, event{kind: evFailed, err: fmt.Errorf("%s panicked: %v", t.name(), r)})
		}
		if !t.closed {
			t.closeAll(ctx)
		}
	}()
	if err := t.open(ctx); err != nil {
		t.emit(ctx, event{kind: evFailed, err: fmt.Errorf("open %s: %w", t.name(), err)})
		return
	}
	var err error
	if t.role == roleSource {
		err = t.runSource(ctx)
	} else {
		err = t.runConsumer(ctx)
	}
	if err != nil && ctx.Err() == nil {
		t.emit(ctx, event{kind: evFailed, err: err})
	}
}

func (t *task) open(ctx context.Context) error {
	v := t.vertex
	switch t.role {
	case roleSource:
		r, err := v.Source.NewReader(t.subtask, v.Parallelism)
		if err != nil {
			return err
		}
		t.reader = r
		if m, ok := r.(connectors.ReportsMetrics); ok {
			t.metrics.report(t.subtask, m)
		}
		return r.Open(ctx, t.restored)
	case roleSink:
		w, err := v.Sink.NewWriter(t.subtask, v.Parallelism)
		if err != nil {
			return err
		}
		t.writer = w
		if r, ok := w.(connectors.ReportsMetrics); ok {
			t.metrics.report(t.subtask, r)
		}
		return w.Open(ctx, t.restored)
	default:
		op, err := v.Operator(t.subtask, v.Parallelism)
		if err != nil {
			return err
		}
		t.op = op
		octx := &Context{Ctx: ctx, JobID: t.job.ID, JobName: t.job.Name, VertexUID: v.UID,
			VertexName: v.Name, Subtask: t.subtask, Parallelism: v.Parallelism}
		if octx.State, err = t.stateBackend(); err != nil {
			return err
		}
		if t.rescaled != nil {
			r, ok := op.(Rescalable)
			if !ok {
				return fmt.Errorf("%s cannot restore state taken at another parallelism", t.name())
			}
			sub, par := t.subtask, v.Parallelism
			err = r.OpenRescaled(octx, t.rescaled, func(key string) bool { return OwnsKey(key, sub, par) })
		} else {
			err = op.Open(octx, t.restored)
		}
		if errors.Is(err, state.ErrIncompatible) {
			// Name the checkpoint: the plan changed since it was taken.
			err = fmt.Errorf("restore from checkpoint %s: %w", t.restoreDir, err)
		}
		return err
	}
}

func (t *task) closeAll(ctx context.Context) error {
	t.closed = true
	var err error
	switch {
	case t.reader != nil:
		err = t.reader.Close()
	case t.writer != nil:
		err = t.writer.Close(ctx)
	case t.op != nil:
		err = t.op.Close()
	}
	if t.store != nil {
		if cerr := t.store.Close(); err == nil {
			err = cerr
		}
		t.store = nil
	}
	if err != nil {
		return fmt.Errorf("close %s: %w", t.name(), err)
	}
	return nil
}

// stateBackend is the keyed-state backend of an operator subtask: nil
// (memory, no TTL) unless the job sets state.backend.type or
// table.exec.state.ttl.
func (t *task) stateBackend() (*state.Backend, error) {
	cfg := &t.job.cfg
	if cfg.StateBackend != "rocksdb" {
		if cfg.StateTTL > 0 {
			return &state.Backend{TTL: cfg.StateTTL}, nil
		}
		return nil, nil
	}
	base := cfg.StateLocalDir
	if base == "" {
		base = filepath.Join(t.job.jobDir(), lsmWorkDir)
	}
	name := fmt.Sprintf("%s-%d", SanitizeJobName(t.vertex.UID), t.subtask)
	s, err := lsm.Open(filepath.Join(base, fmt.Sprintf("%d-%s-%s", os.Getpid(), t.job.ID[:8], name)), name)
	if err != nil {
		return nil, err
	}
	s.SetRestoreDir(t.restoreDir)
	s.SetCacheBytes(cfg.StateCacheSize)
	t.store = s
	return &state.Backend{Store: s, TTL: cfg.StateTTL}, nil
}

// runSource reads batches and injects barriers between them.
func (t *task) runSource(ctx context.Context) error {
	idle := time.NewTimer(time.Hour)
	defer idle.Stop()
	for {
		if !t.finished {
			// Commands first, without blocking: barriers go in between batches.
			select {
			case c := <-t.ctrl:
				if done, err := t.command(ctx, c); done || err != nil {
					return err
				}
				continue
			case <-ctx.Done():
				return ctx.Err()
			default:
			}
			if t.alignMember != nil {
				if ok, changed := t.alignMember.ready(); !ok {
					// Paused by watermark alignment: wait for the
					// group to move, still taking commands (barriers).
					select {
					case c := <-t.ctrl:
						if done, err := t.command(ctx, c); done || err != nil {
							return err
						}
					case <-changed:
					case <-ctx.Done():
						return ctx.Err()
					}
					continue
				}
			}
			rows, err := t.reader.Next(ctx)
			// Only a bare io.EOF ends the input (the SourceReader
			// contract). A wrapped one is a file that ended too early —
			// an empty or cut Parquet data file reports "reading magic
			// header: EOF" — and must fail the job, not pass for the end
			// of a bounded read and silently drop the rows.
			if err == io.EOF {
				if err := t.endOutputs(ctx, true); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", t.name(), err)
			}
			t.splitEvents = nil
			if sr, ok := t.reader.(connectors.SplitReader); ok {
				t.splitEvents = sr.SplitEvents()
			}
			if len(rows) == 0 && len(t.splitEvents) > 0 {
				if err := t.send(ctx, rows); err != nil {
					return err
				}
				continue
			}
			if len(rows) == 0 {
				idle.Reset(5 * time.Millisecond)
				select {
				case c := <-t.ctrl:
					if done, err := t.command(ctx, c); done || err != nil {
						return err
					}
				case <-idle.C:
				case <-ctx.Done():
					return ctx.Err()
				}
				continue
			}
			if t.alignMember != nil {
				t.alignMember.sentRows(len(rows))
			}
			if err := t.send(ctx, rows); err != nil {
				return err
			}
			continue
		}
		select {
		case c := <-t.ctrl:
			if done, err := t.command(ctx, c); done || err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// runConsumer is the loop of operators and sinks.
func (t *task) runConsumer(ctx context.Context) error {
	// A sink writer that flushes in the background reports a flush that
	// failed for good here, so the job fails even when no further row or
	// checkpoint would have asked the writer again.
	var failed <-chan error
	if b, ok := t.writer.(connectors.BackgroundFailer); ok {
		failed = b.Failed()
	}
	var tick <-chan time.Time
	timers, _ := t.op.(ProcessingTimeOperator)
	if timers != nil && timers.TimerInterval() > 0 {
		ticker := time.NewTicker(timers.TimerInterval())
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		in := t.in
		if t.finished {
			in, tick = nil, nil
		}
		select {
		case now := <-tick:
			if err := timers.OnProcessingTime(now, &t.out); err != nil {
				return fmt.Errorf("%s: %w", t.name(), err)
			}
			if err := t.flushOut(ctx); err != nil {
				return err
			}
		case err := <-failed:
			return fmt.Errorf("%s: write: %w", t.name(), err)
		case m := <-in:
			if err := t.handle(ctx, m); err != nil {
				return err
			}
		case c := <-t.ctrl:
			if done, err := t.command(ctx, c); done || err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// command handles a coordinator command; done means the task has closed.
func (t *task) command(ctx context.Context, c command) (done bool, err error) {
	switch c.kind {
	case cmdTrigger:
		if err := t.snapshot(ctx, c.cp, c.mode); err != nil {
			return false, err
		}
		if t.role == roleSource && !t.finished {
			return false, t.broadcast(ctx, envelope{kind: envBarrier, cp: c.cp})
		}
	case cmdNotify:
		switch {
		case t.reader != nil:
			err = t.reader.NotifyCheckpointComplete(ctx, c.cp)
		case t.writer != nil:
			err = t.writer.NotifyCheckpointComplete(ctx, c.cp)
		case t.op != nil:
			err = t.op.NotifyCheckpointComplete(c.cp)
		}
		if err != nil {
			return false, fmt.Errorf("%s: notify checkpoint %d complete: %w", t.name(), c.cp, err)
		}
	case cmdStop:
		if t.role == roleSource && !t.finished {
			return false, t.endOutputs(ctx, false)
		}
	case cmdClose:
		err := t.closeAll(ctx)
		t.emit(ctx, event{kind: evClosed, err: err})
		return true, nil
	}
	return false, nil
}

// snapshot takes this subtask's state for checkpoint cp and acks it. An
// operator whose LSM writes the checkpoint's files in the background acks
// once they are written, from another goroutine: the subtask goes on
// processing rows meanwhile (Flink's asynchronous snapshot part).
func (t *task) snapshot(ctx context.Context, cp int64, mode snapMode) error {
	if cp <= t.lastAcked {
		return nil // already part of this checkpoint
	}
	start := time.Now()
	var st, comm []byte
	var err error
	var written func() error
	switch {
	case t.reader != nil:
		st, err = t.reader.Snapshot(cp)
	case t.writer != nil:
		st, comm, err = t.writer.Snapshot(ctx, cp)
		t.metrics.flushes.Add(1)
	case t.op != nil && mode == snapDiscard:
	case t.op != nil:
		if t.store != nil {
			dir := ""
			if mode == snapCheckpoint {
				dir = t.job.checkpointDir(cp)
			}
			t.store.BeginSnapshot(dir)
		}
		st, err = t.op.Snapshot(cp)
		if err == nil && t.store != nil {
			written = t.store.CheckpointDone()
		}
	}
	if err != nil {
		return fmt.Errorf("%s: snapshot for checkpoint %d: %w", t.name(), cp, err)
	}
	t.lastAcked = cp
	ack := event{kind: evAck, cp: cp, state: st, committable: comm, sync: time.Since(start), align: t.aligned}
	if written == nil {
		t.emit(ctx, ack)
		return nil
	}
	go func() {
		if err := written(); err != nil {
			t.emit(ctx, event{kind: evFailed, err: fmt.Errorf("%s: snapshot for checkpoint %d: %w", t.name(), cp, err)})
			return
		}
		t.emit(ctx, ack)
	}()
	return nil
}

// handle processes one envelope from the data channel, buffering those of
// channels blocked by barrier alignment.
func (t *task) handle(ctx context.Context, m envelope) error {
	if t.blocked[m.ch] {
		t.buffered = append(t.buffered, m)
		t.metrics.alignBuffered.Add(1)
		return nil
	}
	switch m.kind {
	case envData:
		err := t.process(ctx, m)
		if t.credits != nil {
			<-t.credits[m.ch]
		}
		if t.alignMember != nil {
			t.alignMember.takenRows(len(m.rows))
		}
		return err
	case envBarrier:
		if t.aligning == 0 {
			t.aligning = m.cp
			t.alignStart = time.Now()
		} else if m.cp != t.aligning {
			return fmt.Errorf("%s: barrier %d arrived while aligning %d", t.name(), m.cp, t.aligning)
		}
		t.blocked[m.ch] = true
		t.nBlocked++
		return t.maybeAligned(ctx)
	case envWatermark:
		return t.onWatermark(ctx, m)
	case envStatus:
		return t.onStatus(ctx, m)
	case envEnd:
		if !t.ended[m.ch] {
			t.ended[m.ch] = true
			t.nEnded++
			t.drainAll = t.drainAll && m.drain
		}
		if err := t.maybeAligned(ctx); err != nil {
			return err
		}
		if t.nEnded == t.numChan && !t.finished && t.aligning == 0 {
			return t.finish(ctx)
		}
	}
	return nil
}

func (t *task) process(ctx context.Context, m envelope) error {
	t.metrics.recordsIn.Add(int64(len(m.rows)))
	sp, _ := t.op.(SplitProcessor)
	if len(m.rows) == 0 && (sp == nil || t.role == roleSink) {
		// Split events without rows matter only to a SplitProcessor.
		return nil
	}
	switch t.role {
	case roleSink:
		if err := t.writer.Write(ctx, m.rows); err != nil {
			return fmt.Errorf("%s: write: %w", t.name(), err)
		}
		return nil
	default:
		var err error
		if sp != nil {
			err = sp.ProcessSplitBatch(m.rows, m.splits, &t.out)
		} else {
			err = t.op.ProcessBatch(t.inputIndex(m.ch), m.rows, &t.out)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.name(), err)
		}
		return t.flushOut(ctx)
	}
}

// maybeAligned completes the checkpoint being aligned once every channel
// has either delivered its barrier or ended: snapshot, forward the barrier,
// then replay what the blocked channels delivered meanwhile.
func (t *task) maybeAligned(ctx context.Context) error {
	if t.aligning == 0 || t.nBlocked+t.nEnded < t.numChan {
		return nil
	}
	cp := t.aligning
	t.aligned = time.Since(t.alignStart)
	// Barriers in the data flow are periodic checkpoints: the final
	// checkpoint and savepoints reach the tasks as commands.
	err := t.snapshot(ctx, cp, snapCheckpoint)
	t.aligned = 0
	if err != nil {
		return err
	}
	if err := t.broadcast(ctx, envelope{kind: envBarrier, cp: cp}); err != nil {
		return err
	}
	t.aligning = 0
	t.nBlocked = 0
	for i := range t.blocked {
		t.blocked[i] = false
	}
	replay := t.buffered
	t.buffered = nil
	t.metrics.alignBuffered.Add(-int64(len(replay)))
	for _, m := range replay {
		if err := t.handle(ctx, m); err != nil {
			return err
		}
	}
	if t.nEnded == t.numChan && !t.finished && t.aligning == 0 {
		return t.finish(ctx)
	}
	return nil
}

// finish runs at end of all inputs: Finish (when the data ended), end the
// outputs, tell the coordinator.
func (t *task) finish(ctx context.Context) error {
	if t.alignMember != nil {
		// A finished source no longer holds its group back.
		t.alignMember.leave()
	}
	if t.drainAll && t.op != nil {
		if err := t.op.Finish(&t.out); err != nil {
			return fmt.Errorf("%s: finish: %w", t.name(), err)
		}
		// Large results (sorts) go out in bounded batches.
		if err := t.flushOut(ctx); err != nil {
			return err
		}
	}
	return t.endOutputs(ctx, t.drainAll)
}

func (t *task) endOutputs(ctx context.Context, drain bool) error {
	if drain && t.role == roleSource {
		// The end of a bounded input is the end of event time.
		if err := t.broadcast(ctx, envelope{kind: envWatermark, wm: MaxWatermark}); err != nil {
			return err
		}
	}
	if err := t.broadcast(ctx, envelope{kind: envEnd, drain: drain}); err != nil {
		return err
	}
	t.finished = true
	t.emit(ctx, event{kind: evFinished})
	return nil
}

func (t *task) inputIndex(ch int) int { return t.inputOf[ch] }

// send routes a batch of rows along every output edge. Each receiver owns
// the slice it gets (operators may reuse an input batch for their output),
// so a batch going to more than one receiver is copied for all but the
// first.
func (t *task) send(ctx context.Context, rows []sql.Row) error {
	if len(t.outs) == 0 {
		return nil
	}
	t.metrics.recordsOut.Add(int64(len(rows)))
	given := false
	own := func() []sql.Row {
		if !given {
			given = true
			return rows
		}
		return append([]sql.Row(nil), rows...)
	}
	splits := t.splitEvents
	t.splitEvents = nil
	for _, o := range t.outs {
		if len(rows) == 0 && (o.kind != Forward || len(splits) == 0) {
			continue
		}
		switch o.kind {
		case Forward, Global:
			var ev []connectors.SplitEvent
			if o.kind == Forward {
				ev = splits
			}
			if err := t.put(ctx, o.dests[0], envelope{kind: envData, rows: own(), splits: ev}); err != nil {
				return err
			}
		case Rebalance:
			d := o.dests[o.rr%len(o.dests)]
			o.rr++
			if err := t.put(ctx, d, envelope{kind: envData, rows: own()}); err != nil {
				return err
			}
		case Broadcast:
			for _, d := range o.dests {
				if err := t.put(ctx, d, envelope{kind: envData, rows: own()}); err != nil {
					return err
				}
			}
		case Channel:
			n := len(o.dests)
			if o.parts == nil {
				o.parts = make([][]sql.Row, n)
			}
			for _, r := range rows {
				c, ok := r.Values[o.keys[0]].(int32)
				if !ok || c < 0 || int(c) >= n {
					return fmt.Errorf("%s: channel %v outside the %d receivers", t.name(), r.Values[o.keys[0]], n)
				}
				o.parts[c] = append(o.parts[c], r)
			}
			for i, part := range o.parts {
				if len(part) == 0 {
					continue
				}
				o.parts[i] = nil
				if err := t.put(ctx, o.dests[i], envelope{kind: envData, rows: part}); err != nil {
					return err
				}
			}
		case Hash:
			n := len(o.dests)
			if n == 1 {
				if err := t.put(ctx, o.dests[0], envelope{kind: envData, rows: own()}); err != nil {
					return err
				}
				continue
			}
			if o.parts == nil {
				o.parts = make([][]sql.Row, n)
			}
			for _, r := range rows {
				o.enc.Buf = o.enc.Buf[:0]
				if err := state.AppendKey(&o.enc, r, o.keys); err != nil {
					return fmt.Errorf("%s: hash key: %w", t.name(), err)
				}
				p := int(fnv1a.Sum32(o.enc.Buf) % uint32(n)) // OwnsKey agrees
				o.parts[p] = append(o.parts[p], r)
			}
			for i, part := range o.parts {
				if len(part) == 0 {
					continue
				}
				o.parts[i] = nil
				if err := t.put(ctx, o.dests[i], envelope{kind: envData, rows: part}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// broadcast sends a control event on every output channel.
func (t *task) broadcast(ctx context.Context, m envelope) error {
	for _, o := range t.outs {
		for _, d := range o.dests {
			if err := t.put(ctx, d, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// put sends on one channel; a full channel blocks (backpressure) and the
// time spent waiting is counted.
func (t *task) put(ctx context.Context, d dest, m envelope) error {
	m.ch = d.idx
	if d.credits != nil && m.kind == envData {
		select {
		case d.credits <- struct{}{}:
		default:
			start := time.Now()
			select {
			case d.credits <- struct{}{}:
				t.metrics.backpressureNanos.Add(int64(time.Since(start)))
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	select {
	case d.ch <- m:
		return nil
	default:
	}
	start := time.Now()
	select {
	case d.ch <- m:
		t.metrics.backpressureNanos.Add(int64(time.Since(start)))
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// vertexMetrics are shared by a vertex's subtasks.
type vertexMetrics struct {
	recordsIn         atomic.Int64
	recordsOut        atomic.Int64
	backpressureNanos atomic.Int64
	flushes           atomic.Int64 // sink writer snapshots (each flushes the writer)
	alignBuffered     atomic.Int64 // batches held by barrier alignment now

	// reporters are the subtasks' readers or writers that report metrics of
	// their own, by subtask; a restarted subtask replaces its entry, whose
	// counters start again (as Flink's do after a restart).
	mu        sync.Mutex
	reporters map[int]connectors.ReportsMetrics
}

func (m *vertexMetrics) report(subtask int, r connectors.ReportsMetrics) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reporters == nil {
		m.reporters = map[int]connectors.ReportsMetrics{}
	}
	m.reporters[subtask] = r
}

// connectorMetrics sums the reporters' metrics over subtasks: samples with
// the same name and labels add up, in the order they first appear.
func (m *vertexMetrics) connectorMetrics() []connectors.Metric {
	m.mu.Lock()
	subtasks := make([]int, 0, len(m.reporters))
	for s := range m.reporters {
		subtasks = append(subtasks, s)
	}
	sort.Ints(subtasks)
	reporters := make([]connectors.ReportsMetrics, len(subtasks))
	for i, s := range subtasks {
		reporters[i] = m.reporters[s]
	}
	m.mu.Unlock()
	var out []connectors.Metric
	index := map[string]int{}
	for _, r := range reporters {
		for _, x := range r.Metrics() {
			k := x.Name
			for _, l := range x.Labels {
				k += "\x00" + l[0] + "=" + l[1]
			}
			i, ok := index[k]
			if !ok {
				index[k] = len(out)
				x.Buckets = slices.Clone(x.Buckets)
				out = append(out, x)
				continue
			}
			y := &out[i]
			y.Value += x.Value
			y.Count += x.Count
			y.Sum += x.Sum
			for b := range min(len(y.Buckets), len(x.Buckets)) {
				y.Buckets[b] += x.Buckets[b]
			}
		}
	}
	return out
}
