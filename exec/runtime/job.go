package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Status is a job's state, named as Flink names JobStatus.
type Status int32

// Job states.
const (
	Created Status = iota
	Running
	Restarting
	Finished
	Failed
	Canceled
)

func (s Status) String() string {
	switch s {
	case Created:
		return "CREATED"
	case Running:
		return "RUNNING"
	case Restarting:
		return "RESTARTING"
	case Finished:
		return "FINISHED"
	case Failed:
		return "FAILED"
	case Canceled:
		return "CANCELED"
	}
	return fmt.Sprintf("Status(%d)", int32(s))
}

// Terminal reports FINISHED, FAILED and CANCELED.
func (s Status) Terminal() bool { return s == Finished || s == Failed || s == Canceled }

// Job is a running graph. All methods are safe for concurrent use.
type Job struct {
	// ID is 32 lowercase hex digits, as Flink's JobID prints.
	ID        string
	Name      string
	StartTime time.Time

	graph   *Graph
	cfg     Config
	status  atomic.Int32
	metrics []*vertexMetrics

	cancel   context.CancelFunc
	canceled atomic.Bool
	stopReq  chan stopRequest
	done     chan struct{}

	mu       sync.Mutex
	err      error
	last     *Checkpoint // latest completed checkpoint (in memory), restore point for restarts
	cpStats  CheckpointStats
	restarts int
	endTime  time.Time
	stopping *stopRequest
}

type stopRequest struct {
	savepoint bool
	reply     chan stopResult
}

type stopResult struct {
	path string
	err  error
}

// Start validates the graph, loads cfg.RestorePath if set, and runs the job
// in the background. The returned Job is RUNNING; use Wait for its end.
// ctx bounds the job's life: cancelling it cancels the job.
func Start(ctx context.Context, g *Graph, cfg Config) (*Job, error) {
	if err := g.Validate(); err != nil {
		return nil, sql.Errorf(sql.TableException, "invalid job graph: %w", err)
	}
	if cfg.ChannelCapacity <= 0 {
		cfg.ChannelCapacity = 4
	}
	if cfg.NumRetained <= 0 {
		cfg.NumRetained = 1
	}
	if cfg.CheckpointDir == "" {
		cfg.CheckpointDir = DefaultCheckpointDir()
	}
	if cfg.CheckpointTimeout <= 0 {
		cfg.CheckpointTimeout = 10 * time.Minute
	}
	if cfg.ProcessMemory > 0 {
		debug.SetMemoryLimit(cfg.ProcessMemory)
	}
	j := &Job{
		ID:        strings.ReplaceAll(uuid.NewString(), "-", ""),
		Name:      g.Name,
		StartTime: time.Now(),
		graph:     g,
		cfg:       cfg,
		stopReq:   make(chan stopRequest),
		done:      make(chan struct{}),
	}
	for range g.Vertices {
		j.metrics = append(j.metrics, &vertexMetrics{})
	}
	if cfg.RestorePath != "" {
		cp, err := ReadCheckpoint(cfg.RestorePath)
		if err != nil {
			return nil, fmt.Errorf("restore job %s: %w", g.Name, err)
		}
		if err := j.checkClaims(cp); err != nil {
			return nil, err
		}
		j.last = cp
	}
	jctx, cancel := context.WithCancel(ctx)
	j.cancel = cancel
	j.status.Store(int32(Running))
	go j.run(jctx)
	return j, nil
}

// checkClaims matches saved state to the graph's vertices by UID.
func (j *Job) checkClaims(cp *Checkpoint) error {
	byUID := map[string]*Vertex{}
	for _, v := range j.graph.Vertices {
		byUID[v.UID] = v
	}
	for i := range cp.Vertices {
		vs := &cp.Vertices[i]
		v, ok := byUID[vs.UID]
		if !ok {
			if vs.hasState() && !j.cfg.IgnoreUnclaimedState {
				return sql.Errorf(sql.IllegalStateException,
					"Failed to rollback to checkpoint/savepoint %s. Cannot map checkpoint/savepoint state for operator %s (%s) to the new program, because the operator is not available in the new program. If you want to allow to skip this, you can set 'execution.savepoint.ignore-unclaimed-state' to true.",
					cp.Dir, vs.UID, vs.Name)
			}
			continue
		}
		if vs.hasState() && vs.Parallelism != v.Parallelism && !j.rescalable(v) {
			return sql.Errorf(sql.IllegalStateException,
				"Failed to rollback to checkpoint/savepoint %s. The state of operator %s (%s) was taken with parallelism %d, but the new program has parallelism %d, and its state cannot be redistributed.",
				cp.Dir, vs.UID, vs.Name, vs.Parallelism, v.Parallelism)
		}
	}
	return nil
}

// rescalable reports whether v's state can be restored at another
// parallelism: a Rescalable operator fed by Hash edges only.
func (j *Job) rescalable(v *Vertex) bool {
	if v.Operator == nil {
		return false
	}
	for _, e := range j.graph.Edges {
		if j.graph.Vertices[e.To] == v && e.Partition.Kind != Hash {
			return false
		}
	}
	op, err := v.Operator(0, v.Parallelism)
	if err != nil {
		return false
	}
	_, ok := op.(Rescalable)
	_ = op.Close()
	return ok
}

func (v *VertexState) hasState() bool {
	for _, s := range v.subtasks {
		if len(s) > 0 {
			return true
		}
	}
	for _, c := range v.Committables {
		if len(c) > 0 {
			return true
		}
	}
	return false
}

// Status is the job's current state.
func (j *Job) Status() Status { return Status(j.status.Load()) }

// Done is closed when the job reached a terminal state.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait blocks until the job ends or ctx is done, and returns the job's
// failure (nil for FINISHED; context.Canceled for CANCELED).
func (j *Job) Wait(ctx context.Context) error {
	select {
	case <-j.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Err is the failure of a FAILED job (nil otherwise or while running).
func (j *Job) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Cancel stops the job at once, without a final checkpoint.
func (j *Job) Cancel() {
	j.canceled.Store(true)
	j.cancel()
}

// Stop ends the job gracefully: sources stop, the operators drain what is
// in flight, a final checkpoint is taken (a savepoint when withSavepoint),
// sinks flush and commit, and the job ends FINISHED. It returns the
// savepoint's directory (or the final checkpoint's, when written).
func (j *Job) Stop(ctx context.Context, withSavepoint bool) (string, error) {
	req := stopRequest{savepoint: withSavepoint, reply: make(chan stopResult, 1)}
	select {
	case j.stopReq <- req:
	case <-j.done:
		return "", sql.Errorf(sql.IllegalStateException, "Job %s is not running (status %s).", j.ID, j.Status())
	case <-ctx.Done():
		return "", ctx.Err()
	}
	var r stopResult
	select {
	case r = <-req.reply:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if r.err != nil {
		return r.path, r.err
	}
	// Like Flink's stop-with-savepoint, answer once the job has terminated
	// (FINISHED), not merely when the savepoint is written.
	select {
	case <-j.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return r.path, nil
}

func (j *Job) setStatus(s Status) { j.status.Store(int32(s)) }

// run drives attempts: restart from the latest checkpoint on failure while
// the fixed-delay budget lasts.
func (j *Job) run(ctx context.Context) {
	defer close(j.done)
	defer j.cancel()
	attempt := 0
	for {
		err := j.runAttempt(ctx)
		j.mu.Lock()
		stopping := j.stopping
		j.stopping = nil
		j.mu.Unlock()
		switch {
		case err == nil:
			j.finish(Finished, nil)
			return
		case j.canceled.Load():
			j.finish(Canceled, context.Canceled)
			if stopping != nil {
				stopping.reply <- stopResult{err: context.Canceled}
			}
			return
		}
		if stopping != nil { // a job that fails while stopping is not restarted
			stopping.reply <- stopResult{err: err}
			j.finish(Failed, err)
			return
		}
		if attempt >= j.cfg.RestartAttempts || ctx.Err() != nil {
			j.finish(Failed, err)
			return
		}
		attempt++
		j.mu.Lock()
		j.restarts++
		j.mu.Unlock()
		j.setStatus(Restarting)
		select {
		case <-time.After(j.cfg.RestartDelay):
		case <-ctx.Done():
			j.finish(Canceled, context.Canceled)
			return
		}
		j.setStatus(Running)
	}
}

func (j *Job) finish(s Status, err error) {
	if s == Failed && sql.RootCause(err) == nil {
		// Connector errors are plain Go errors; give the shell a class to
		// print, as Flink reports an untyped failure.
		err = &sql.Error{Class: sql.RuntimeException, Msg: err.Error(), Err: err}
	}
	j.mu.Lock()
	j.err = err
	j.endTime = time.Now()
	j.mu.Unlock()
	j.setStatus(s)
}

// coordinator is one attempt's checkpoint coordinator and task supervisor.
type coordinator struct {
	job     *Job
	tasks   []*task
	sources []*task
	events  chan event
	nextID  int64

	finished map[*task]bool
	pending  *pendingCheckpoint
	final    bool // the final checkpoint has been triggered
	stop     *stopRequest
	// finalPath is the completed final checkpoint's directory, the answer
	// to a stop once the tasks have closed.
	finalPath string
}

type pendingCheckpoint struct {
	id        int64
	savepoint bool
	final     bool
	mode      snapMode
	start     time.Time
	acked     map[*task]bool
	states    map[*task][]byte
	comms     map[*task][]byte
	// sync and align are the longest over the acks (evAck's).
	sync, align time.Duration
}

func (j *Job) runAttempt(parent context.Context) (err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	defer func() { // a committer or checkpoint writer must not take the process down
		if r := recover(); r != nil {
			err = sql.Errorf(sql.RuntimeException, "job %s: coordinator panicked: %v", j.Name, r)
		}
	}()
	j.mu.Lock()
	restore := j.last
	j.mu.Unlock()

	co := &coordinator{job: j, finished: map[*task]bool{}, nextID: 1}
	// Checkpoint ids continue after both the restored one and any the job
	// name already has on disk, so a resumed job never overwrites (or
	// hides behind) an older run's chk-N.
	if n := highestCheckpointID(filepath.Join(j.cfg.CheckpointDir, SanitizeJobName(j.Name))); n >= co.nextID {
		co.nextID = n + 1
	}
	if restore != nil {
		co.nextID = max(co.nextID, restore.ID+1)
		if err := j.recommit(ctx, restore); err != nil {
			return err
		}
	}
	if j.cfg.StateBackend == "rocksdb" {
		base := j.cfg.StateLocalDir
		if base == "" {
			base = filepath.Join(j.jobDir(), lsmWorkDir)
		}
		removeStaleWork(base)
	}
	if err := co.build(restore); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, t := range co.tasks {
		wg.Add(1)
		go func(t *task) {
			defer wg.Done()
			t.run(ctx)
		}(t)
	}
	err = co.loop(ctx)
	cancel()
	wg.Wait()
	return err
}

// recommit replays the committables of the checkpoint being restored:
// Commit is idempotent per checkpoint id, so a commit that already
// happened before the crash is recognised and skipped by the sink.
func (j *Job) recommit(ctx context.Context, cp *Checkpoint) error {
	byUID := map[string]*VertexState{}
	for i := range cp.Vertices {
		byUID[cp.Vertices[i].UID] = &cp.Vertices[i]
	}
	for _, v := range j.graph.Vertices {
		c := committerOf(v)
		vs := byUID[v.UID]
		if c == nil || vs == nil || len(vs.Committables) == 0 {
			continue
		}
		if err := c.Commit(ctx, cp.ID, vs.Committables); err != nil {
			return fmt.Errorf("re-commit checkpoint %d of %s: %w", cp.ID, v.Name, err)
		}
	}
	return nil
}

func committerOf(v *Vertex) connectors.Committer {
	if v.Committer != nil {
		return v.Committer
	}
	if v.Sink != nil {
		if c, ok := v.Sink.(connectors.Committer); ok {
			return c
		}
	}
	return nil
}

// build creates the tasks and wires their channels.
func (co *coordinator) build(restore *Checkpoint) error {
	j := co.job
	g := j.graph
	saved := map[string]*VertexState{}
	if restore != nil {
		for i := range restore.Vertices {
			saved[restore.Vertices[i].UID] = &restore.Vertices[i]
		}
	}
	byVertex := make([][]*task, len(g.Vertices))
	for vi, v := range g.Vertices {
		for s := 0; s < v.Parallelism; s++ {
			t := &task{job: j, vertex: v, vi: vi, subtask: s, metrics: j.metrics[vi],
				ctrl: make(chan command, 64), drainAll: true}
			switch {
			case v.Source != nil:
				t.role = roleSource
			case v.Sink != nil:
				t.role = roleSink
			default:
				t.role = roleOperator
			}
			if restore != nil {
				t.restoreDir = restore.Dir
			}
			if vs := saved[v.UID]; vs != nil {
				if vs.Parallelism != v.Parallelism && vs.hasState() {
					t.rescaled = vs.subtasks // checkClaims allowed it: Rescalable
				} else {
					t.restored = vs.Subtask(s)
				}
			}
			byVertex[vi] = append(byVertex[vi], t)
			co.tasks = append(co.tasks, t)
			if t.role == roleSource {
				co.sources = append(co.sources, t)
			}
		}
	}
	alignGroups(g, byVertex)
	co.events = make(chan event, 4*len(co.tasks)+64)
	for _, t := range co.tasks {
		t.events = co.events
	}
	// Receivers: channel indexes per input edge and sender.
	for vi, v := range g.Vertices {
		if v.Source != nil {
			continue
		}
		for _, r := range byVertex[vi] {
			for _, ei := range v.inputs {
				e := g.Edges[ei]
				for _, s := range byVertex[e.From] {
					if e.Partition.Kind == Forward && s.subtask != r.subtask {
						continue
					}
					r.inputOf = append(r.inputOf, e.Input)
					r.numChan++
				}
			}
			r.in = make(chan envelope, j.cfg.ChannelCapacity*min(r.numChan, 4))
			if r.numChan > 1 {
				r.credits = make([]chan struct{}, r.numChan)
				for i := range r.credits {
					r.credits[i] = make(chan struct{}, alignCredits)
				}
			}
			r.blocked = make([]bool, r.numChan)
			r.ended = make([]bool, r.numChan)
			r.valve = newValve(r.numChan)
		}
	}
	// Senders: one outEdge per output edge, with the receivers' channel
	// indexes computed in the same order as above.
	next := map[*task]int{}
	for vi, v := range g.Vertices {
		if v.Source != nil {
			continue
		}
		for _, ei := range v.inputs {
			e := g.Edges[ei]
			for _, s := range byVertex[e.From] {
				o := s.outFor(ei, e)
				for _, r := range byVertex[vi] {
					if e.Partition.Kind == Forward && s.subtask != r.subtask {
						continue
					}
					d := dest{ch: r.in, idx: next[r]}
					if r.credits != nil {
						d.credits = r.credits[d.idx]
					}
					o.dests = append(o.dests, d)
					next[r]++
				}
			}
		}
	}
	return nil
}

// outFor returns (creating) the sender's outEdge for edge ei.
func (t *task) outFor(ei int, e Edge) *outEdge {
	for len(t.outEdgeIdx) <= ei {
		t.outEdgeIdx = append(t.outEdgeIdx, -1)
	}
	if i := t.outEdgeIdx[ei]; i >= 0 {
		return t.outs[i]
	}
	o := &outEdge{kind: e.Partition.Kind, keys: e.Partition.Keys}
	t.outEdgeIdx[ei] = len(t.outs)
	t.outs = append(t.outs, o)
	return o
}

func (co *coordinator) send(ctx context.Context, t *task, c command) {
	select {
	case t.ctrl <- c:
	case <-ctx.Done():
	}
}

// loop is the coordinator: periodic triggers, acks, completion, stop and
// the final checkpoint, failures.
func (co *coordinator) loop(ctx context.Context) error {
	j := co.job
	var tick <-chan time.Time
	if j.cfg.Streaming && j.cfg.CheckpointInterval > 0 {
		tk := time.NewTicker(j.cfg.CheckpointInterval)
		defer tk.Stop()
		tick = tk.C
	}
	stopReq := j.stopReq
	closing := 0
	var closeErr error
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			if p := co.pending; p != nil && time.Since(p.start) > j.cfg.CheckpointTimeout {
				j.mu.Lock()
				j.cpStats.Failed++
				j.mu.Unlock()
				return sql.Errorf(sql.RuntimeException,
					"Checkpoint %d of job %s expired before completing (execution.checkpointing.timeout = %s).",
					p.id, j.Name, j.cfg.CheckpointTimeout)
			}
			if co.pending == nil && !co.final && co.stop == nil {
				co.trigger(ctx, false, false)
			}
		case req := <-stopReq:
			stopReq = nil
			co.stop = &req
			j.mu.Lock()
			j.stopping = &req
			j.mu.Unlock()
			for _, t := range co.sources {
				co.send(ctx, t, command{kind: cmdStop})
			}
		case ev := <-co.events:
			switch ev.kind {
			case evFailed:
				return ev.err
			case evFinished:
				co.finished[ev.task] = true
				// A task that ended before barrier N reached it snapshots
				// directly: nothing can change its state any more.
				if p := co.pending; p != nil && !p.acked[ev.task] {
					co.send(ctx, ev.task, command{kind: cmdTrigger, cp: p.id, mode: p.mode})
				}
			case evAck:
				p := co.pending
				if p == nil || ev.cp != p.id {
					continue // a late ack of an aborted checkpoint
				}
				p.acked[ev.task] = true
				p.sync, p.align = max(p.sync, ev.sync), max(p.align, ev.align)
				if ev.state != nil {
					p.states[ev.task] = ev.state
				}
				if ev.committable != nil {
					p.comms[ev.task] = ev.committable
				}
				if len(p.acked) == len(co.tasks) {
					co.pending = nil
					path, err := co.complete(ctx, p)
					if err != nil {
						return err
					}
					if p.final {
						// The stop is answered only once every task has
						// handled this checkpoint's notification and closed
						// (evClosed below): Flink notifies the tasks of the
						// stop-with-savepoint's savepoint before they finish,
						// and sources commit there (the Paimon consumer file).
						co.finalPath = path
						for _, t := range co.tasks {
							co.send(ctx, t, command{kind: cmdClose})
						}
						closing = len(co.tasks)
					}
				}
			case evClosed:
				if ev.err != nil && closeErr == nil {
					closeErr = ev.err
				}
				if closing--; closing == 0 {
					// A close error leaves j.stopping set: run answers the
					// stop with it and does not restart the job.
					if co.stop != nil && closeErr == nil {
						co.stop.reply <- stopResult{path: co.finalPath}
						j.mu.Lock()
						j.stopping = nil
						j.mu.Unlock()
					}
					return closeErr
				}
				continue
			}
			if len(co.finished) == len(co.tasks) && co.pending == nil && !co.final {
				co.final = true
				co.trigger(ctx, co.stop != nil && co.stop.savepoint, true)
			}
		}
	}
}

// trigger starts checkpoint N: running sources inject the barrier,
// finished tasks snapshot directly.
func (co *coordinator) trigger(ctx context.Context, savepoint, final bool) {
	p := &pendingCheckpoint{id: co.nextID, savepoint: savepoint, final: final, start: time.Now(),
		acked: map[*task]bool{}, states: map[*task][]byte{}, comms: map[*task][]byte{}}
	switch {
	case savepoint:
		p.mode = snapSavepoint
	case !co.job.persists():
		p.mode = snapDiscard
	default:
		// Before any task writes into it (the LSM backend does, during
		// the snapshot): an interrupted attempt's leftovers.
		_ = os.RemoveAll(co.job.checkpointDir(p.id))
	}
	co.nextID++
	co.pending = p
	for _, t := range co.tasks {
		if t.role == roleSource || co.finished[t] {
			co.send(ctx, t, command{kind: cmdTrigger, cp: p.id, mode: p.mode})
		}
	}
}

// complete persists a fully acknowledged checkpoint (metadata last), then
// notifies every task and runs the committers.
func (co *coordinator) complete(ctx context.Context, p *pendingCheckpoint) (string, error) {
	j := co.job
	cp := &Checkpoint{Version: FormatVersion, JobID: j.ID, JobName: j.Name, ID: p.id,
		Savepoint: p.savepoint, Timestamp: time.Now().UTC()}
	for vi, v := range j.graph.Vertices {
		vs := VertexState{UID: v.UID, Name: v.Name, Parallelism: v.Parallelism,
			subtasks: make([][]byte, v.Parallelism)}
		var comms [][]byte
		for _, t := range co.tasks {
			if t.vi != vi {
				continue
			}
			vs.subtasks[t.subtask] = p.states[t]
			if c, ok := p.comms[t]; ok {
				comms = append(comms, c)
			}
		}
		vs.Committables = comms
		cp.Vertices = append(cp.Vertices, vs)
	}
	path := ""
	if p.mode != snapDiscard {
		jobDir := j.jobDir()
		var dir string
		switch {
		case p.savepoint && j.cfg.SavepointDir != "":
			dir = filepath.Join(j.cfg.SavepointDir, savepointDirName(j.ID))
		case p.savepoint:
			dir = filepath.Join(jobDir, savepointDirName(j.ID))
		default:
			dir = j.checkpointDir(p.id)
		}
		if err := writeCheckpoint(dir, cp); err != nil {
			j.mu.Lock()
			j.cpStats.Failed++
			j.mu.Unlock()
			return "", sql.Errorf(sql.IOException, "Failed to write checkpoint %d of job %s: %w", p.id, j.Name, err)
		}
		path = dir
		if !p.savepoint {
			if err := retainCheckpoints(jobDir, j.cfg.NumRetained); err != nil {
				return "", fmt.Errorf("remove old checkpoints of %s: %w", j.Name, err)
			}
		}
	}
	dur := time.Since(p.start)
	j.mu.Lock()
	if p.mode != snapDiscard {
		// A discarded final checkpoint has no operator state: a restart
		// goes back to the last one that has.
		j.last = cp
	}
	j.cpStats.Completed++
	j.cpStats.LastID = p.id
	j.cpStats.LastDuration = dur
	j.cpStats.LastSize = cp.Size
	j.cpStats.LastCompleted = time.Now()
	j.cpStats.LastPath = path
	j.cpStats.TotalDuration += dur
	j.cpStats.LastSyncDuration = p.sync
	j.cpStats.LastAlignmentDuration = p.align
	j.cpStats.MaxSyncDuration = max(j.cpStats.MaxSyncDuration, p.sync)
	j.mu.Unlock()
	for _, t := range co.tasks {
		co.send(ctx, t, command{kind: cmdNotify, cp: p.id})
	}
	for vi, v := range j.graph.Vertices {
		c := committerOf(v)
		if c == nil {
			continue
		}
		comms := cp.Vertices[vi].Committables
		if len(comms) == 0 {
			continue
		}
		if err := c.Commit(ctx, p.id, comms); err != nil {
			return "", fmt.Errorf("commit checkpoint %d of %s: %w", p.id, v.Name, err)
		}
	}
	return path, nil
}

// persists reports whether checkpoints other than savepoints are written:
// streaming with periodic checkpoints.
func (j *Job) persists() bool { return j.cfg.Streaming && j.cfg.CheckpointInterval > 0 }

// jobDir is <state.checkpoints.dir>/<job name>.
func (j *Job) jobDir() string { return filepath.Join(j.cfg.CheckpointDir, SanitizeJobName(j.Name)) }

// checkpointDir is checkpoint id's chk-N directory.
func (j *Job) checkpointDir(id int64) string {
	return filepath.Join(j.jobDir(), fmt.Sprintf("chk-%d", id))
}

// lsmWorkDir holds the LSM backend's working stores under the job's
// checkpoint directory, one <pid>-<job id>-<vertex>-<subtask> each.
const lsmWorkDir = "lsm-work"

// removeStaleWork deletes working stores that processes no longer running
// left behind (a kill -9).
func removeStaleWork(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, _, ok := strings.Cut(e.Name(), "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n == os.Getpid() || processAlive(n) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(base, e.Name()))
	}
}

// LastCheckpoint returns the latest completed checkpoint's directory, or ""
// when none was written.
func (j *Job) LastCheckpoint() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cpStats.LastPath
}
