package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// Source creates the readers of one Paimon table scan. The connector
// factory owns planning (ChangelogMode, option validation); it calls
// NewSource once per scan and NewReader per subtask.
type Source struct {
	T   *table.Table
	Cfg *Config
	// Projection are the table field indexes produced (nil: all).
	Projection []int
	// Audit prepends the RowKind as a STRING column and emits every row as
	// +I ($audit_log).
	Audit bool
	// ReadOptimized reads only the top level of primary-key tables, without
	// merging ($ro).
	ReadOptimized bool
	// Aggregate, when set (a batch read under a global aggregate, see
	// table.ReadOptions.Aggregate), makes the readers yield partial
	// aggregates of these calls instead of rows: each reader first yields
	// the partial of no rows (COUNTs 0, the rest null; none when a call is
	// a grouping key), so that the merge of the partials is defined on an
	// empty table too, then those of its splits.
	Aggregate []format.AggCall
	// Filter, with Aggregate, are the conjuncts a row must pass to be
	// aggregated (table.ReadOptions.Filter).
	Filter []format.Pred
	// BatchRows bounds the rows one Next returns (default 1024).
	BatchRows int
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time

	// SplitBatch is 'scan.split-enumerator.batch-size': how many of a
	// subtask's splits a bounded read hands its reader at once.
	SplitBatch int

	progress progress
	plans    planCache
}

// NewSource opens the table at tablePath on the local file system (or a
// file: URI) for reading. opts are the table options with hints merged
// over them (they override the stored options); streaming is the runtime
// mode; projection the pushed-down field indexes (nil: all fields).
func NewSource(tablePath string, opts map[string]string, streaming bool, projection []int) (*Source, error) {
	return NewSourceFS(fs.NewLocal(), tablePath, opts, streaming, projection)
}

// NewSourceFS is NewSource on a given FileIO.
func NewSourceFS(fio fs.FileIO, tablePath string, opts map[string]string, streaming bool, projection []int) (*Source, error) {
	if fio == nil {
		fio = fs.NewLocal()
	}
	t, err := table.Open(fio, tablePath, opts)
	if err != nil {
		return nil, err
	}
	return NewSourceTable(t, streaming, projection)
}

// NewSourceTable is NewSource on a table already opened (the connector
// opens it with the schema it read while planning).
func NewSourceTable(t *table.Table, streaming bool, projection []int) (*Source, error) {
	tablePath := t.Root
	cfg, err := ParseConfig(tablePath, t.Options, streaming)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", tablePath, err)
	}
	for _, p := range projection {
		if p < 0 || p >= len(t.Schema.Fields) {
			return nil, fmt.Errorf("paimon table %s: projected field %d out of range (%d fields)", tablePath, p, len(t.Schema.Fields))
		}
	}
	if !cfg.Streaming {
		if err := checkBatchBranches(t); err != nil {
			return nil, fmt.Errorf("paimon table %s: %w", tablePath, err)
		}
	}
	batch := 10
	if v, ok := t.Options.Raw()[optSplitBatch]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return nil, illegal("Could not parse value '%s' for key '%s'.", v, optSplitBatch)
		}
		batch = n
	}
	return &Source{T: t, Cfg: cfg, Projection: projection, SplitBatch: batch}, nil
}

const optSplitBatch = "scan.split-enumerator.batch-size"

// ErrBranchRead is wrapped when a batch read would have to read another
// branch of the table, which sqlrun does not do.
var ErrBranchRead = errors.New("reading other branches is not supported")

// checkBatchBranches refuses a batch read that Paimon would merge from two
// branches instead of reading this one alone and silently returning other
// rows. FileStoreTableFactory.create wraps a table whose
// 'scan.fallback-branch' (or 'scan.primary-branch') names an existing
// branch in a FallbackReadFileStoreTable, whose batch scan reads each
// partition from one branch or the other (its stream scan reads this
// branch only); a missing branch is logged and ignored, as here; a chain
// table ('chain-table.enabled') reads a chain of branches.
func checkBatchBranches(t *table.Table) error {
	raw := t.Options.Raw()
	if strings.EqualFold(strings.TrimSpace(raw["chain-table.enabled"]), "true") {
		return fmt.Errorf("%w: a batch read of a chain table ('chain-table.enabled' = 'true')", ErrBranchRead)
	}
	for _, key := range []string{"scan.fallback-branch", "scan.primary-branch"} {
		name := strings.TrimSpace(raw[key])
		if name == "" {
			continue
		}
		dir, err := fs.BranchPath(t.Root, name)
		if err != nil {
			return fmt.Errorf("'%s' = '%s': %w", key, name, err)
		}
		latest, err := schema.NewManager(t.FIO, dir).Latest()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("'%s' = '%s': %w", key, name, err)
		}
		if latest != nil {
			return fmt.Errorf("%w: '%s' = '%s' makes a batch read take partitions from branch %s (FallbackReadFileStoreTable); sqlrun reads one branch (a streaming read, which Paimon takes from this branch alone, works)", ErrBranchRead, key, name, name)
		}
	}
	return nil
}

// Bounded reports a read that ends: batch, 'scan.bounded', or a streaming
// read with 'scan.bounded.watermark' (which ends at the first snapshot
// whose watermark passes it).
func (s *Source) Bounded() bool { return !s.Cfg.Streaming || s.Cfg.BoundedWatermark != nil }

// Schema is the produced row type: the projected table columns, after a
// rowkind column for Audit.
func (s *Source) Schema() sql.Schema {
	full := s.T.Schema.SQLSchema()
	out := sql.Schema{}
	if s.Audit {
		out.Columns = append(out.Columns, sql.Column{Name: "rowkind", Type: sql.String().NotNull()})
	}
	if s.Projection == nil {
		out.Columns = append(out.Columns, full.Columns...)
		if !s.Audit {
			out.PrimaryKey = full.PrimaryKey
		}
		return out
	}
	for _, p := range s.Projection {
		out.Columns = append(out.Columns, full.Columns[p])
	}
	return out
}

// NewReader creates the reader of one subtask.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	if parallelism < 1 || subtask < 0 || subtask >= parallelism {
		return nil, fmt.Errorf("paimon source: subtask %d of %d", subtask, parallelism)
	}
	s.progress.init(parallelism)
	n := s.BatchRows
	if n <= 0 {
		n = 1024
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	return &Reader{src: s, t: s.T, cfg: s.Cfg, subtask: subtask, parallelism: parallelism, batch: n, now: now}, nil
}

// progress collects the subtasks' consumer positions per checkpoint so the
// consumer file records the slowest one (all subtasks follow the same
// snapshots; a subtask still in its full phase records nothing).
type progress struct {
	mu          sync.Mutex
	parallelism int
	byCP        map[int64]map[int]int64
	live        map[int]int64
	written     int64
}

func (p *progress) init(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byCP == nil {
		p.byCP, p.live = map[int64]map[int]int64{}, map[int]int64{}
	}
	p.parallelism = n
}

func (p *progress) record(cp int64, subtask int, next int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.byCP[cp]
	if m == nil {
		m = map[int]int64{}
		p.byCP[cp] = m
	}
	m[subtask] = next
}

func (p *progress) setLive(subtask int, next int64) {
	p.mu.Lock()
	p.live[subtask] = next
	p.mu.Unlock()
}

// complete returns the value to write for checkpoint cp (false: nothing
// to write) and forgets older checkpoints.
func (p *progress) complete(cp int64, atLeastOnce bool) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.byCP[cp]
	if atLeastOnce {
		m = p.live
	}
	for c := range p.byCP {
		if c < cp {
			delete(p.byCP, c)
		}
	}
	if len(m) < p.parallelism {
		return 0, false
	}
	min := int64(-1)
	for _, v := range m {
		if v <= 0 {
			return 0, false
		}
		if min < 0 || v < min {
			min = v
		}
	}
	if min <= 0 || min == p.written {
		return 0, false
	}
	p.written = min
	return min, true
}

// Phases of a reader's position.
const (
	phaseStart = "start" // starting scan not done yet
	phaseFull  = "full"  // reading the merged rows of Snapshot
	phaseIncr  = "incr"  // following: reading the changes of Snapshot
	phaseBatch = "batch" // batch incremental (From, Snapshot]
	phaseDone  = "done"
)

// Position is a reader's checkpointed state: the phase, the snapshot it
// is in, and how many rows of that snapshot this subtask has emitted.
type Position struct {
	Phase    string `json:"phase"`
	Snapshot int64  `json:"snapshot,omitempty"`
	Tag      string `json:"tag,omitempty"`
	From     int64  `json:"from,omitempty"`
	Offset   int64  `json:"offset,omitempty"`
}

// Reader is one subtask's reader (connectors.SourceReader).
type Reader struct {
	src                  *Source
	t                    *table.Table
	cfg                  *Config
	subtask, parallelism int
	batch                int
	now                  func() time.Time

	pos Position
	cur table.RowIterator
	// peek is a row read from cur but not emitted yet (peeked=true); it is
	// not counted in pos.Offset, so a restore reads it again.
	peek      sql.Row
	peeked    bool
	nextCheck time.Time
	// emptyDone: the partial aggregate of no rows was returned (Source.Aggregate).
	emptyDone bool

	// events are the split events of the rows being returned (SplitEvents);
	// at is the number of rows the current drain has collected, where an
	// event goes; skipping is set while a restore skips rows already
	// emitted, whose events were reported before.
	events   []connectors.SplitEvent
	at       int
	skipping bool
}

var (
	_ connectors.SourceReader = (*Reader)(nil)
	_ connectors.SplitReader  = (*Reader)(nil)
)

// SplitEvents reports the splits of the rows the last Next returned
// (connectors.SplitReader). A split is what Paimon's enumerator hands to a
// FileStoreSourceReader: the rows of one bucket of one partition in one
// snapshot (a DataSplit), this subtask's in plan order. The reader is
// handed them handover() at a time (PreAssignSplitAssigner.getNext) and
// asks for more only when all it was handed are finished
// (FileStoreSourceReader.onSplitFinished); it reads them one after
// another, and a split is finished when its last row was read.
func (r *Reader) SplitEvents() []connectors.SplitEvent {
	ev := r.events
	r.events = nil
	return ev
}

func (r *Reader) splitEvent(kind connectors.SplitEventKind, id string) {
	if !r.skipping {
		r.events = append(r.events, connectors.SplitEvent{At: r.at, Kind: kind, Split: id})
	}
}

func (r *Reader) splitID(i int) string {
	return fmt.Sprintf("%s-%d-%d-%d", r.pos.Phase, r.pos.From, r.pos.Snapshot, i)
}

// handover is how many splits the reader is handed at once: an unbounded
// read's ContinuousFileSplitEnumerator hands them one at a time (its
// PreAssignSplitAssigner has a batch size of 1), a bounded read's
// StaticFileStoreSplitEnumerator 'scan.split-enumerator.batch-size'.
func (r *Reader) handover() int {
	if r.cfg.Streaming {
		return 1
	}
	return max(r.src.SplitBatch, 1)
}

// splitOpened reports split i of n being opened: when it is the first of
// a batch, the batch is handed over first.
func (r *Reader) splitOpened(i, n int) {
	b := r.handover()
	if i%b == 0 {
		for j := i; j < min(i+b, n); j++ {
			r.splitEvent(connectors.SplitAdded, r.splitID(j))
		}
	}
	r.splitEvent(connectors.SplitRead, r.splitID(i))
}

// Open restores a checkpointed position, or starts from the consumer's
// progress ('consumer-id', streaming, unless 'consumer.ignore-progress'),
// or from the starting scan.
func (r *Reader) Open(ctx context.Context, state []byte) error {
	r.pos = Position{Phase: phaseStart}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &r.pos); err != nil {
			return fmt.Errorf("paimon source: restore position: %w", err)
		}
		switch r.pos.Phase {
		case phaseStart, phaseFull, phaseIncr, phaseBatch, phaseDone:
		default:
			return fmt.Errorf("paimon source: restore position: unknown phase %q", r.pos.Phase)
		}
		if r.pos.Offset < 0 || r.pos.Snapshot < 0 {
			return fmt.Errorf("paimon source: restore position: bad position %+v", r.pos)
		}
		return nil
	}
	if r.cfg.Streaming && r.cfg.ConsumerID != "" && !r.cfg.ConsumerIgnoreProgress {
		c, err := r.t.Snapshots.ReadConsumer(r.cfg.ConsumerID)
		switch {
		case err == nil:
			r.pos = Position{Phase: phaseIncr, Snapshot: c.NextSnapshot}
		case errors.Is(err, snapshot.ErrNotFound):
		default:
			return fmt.Errorf("paimon source: %w", err)
		}
	}
	return nil
}

// Position returns the current position (tests, diagnostics).
func (r *Reader) Position() Position { return r.pos }

// consumerNext is the snapshot a consumer file should name for the
// current position: the snapshot being followed, or nothing before the
// follow-up phase.
func (r *Reader) consumerNext() int64 {
	if r.pos.Phase == phaseIncr {
		return r.pos.Snapshot
	}
	return 0
}

// Snapshot returns the position as JSON and remembers the consumer
// progress belonging to checkpointID.
func (r *Reader) Snapshot(checkpointID int64) ([]byte, error) {
	if r.cfg.ConsumerID != "" {
		r.src.progress.record(checkpointID, r.subtask, r.consumerNext())
	}
	b, err := json.Marshal(r.pos)
	if err != nil {
		return nil, fmt.Errorf("paimon source: encode position: %w", err)
	}
	return b, nil
}

// NotifyCheckpointComplete writes consumer/consumer-<id> when 'consumer-id'
// is set: exactly-once writes the position checkpointed with checkpointID,
// at-least-once the slowest subtask's current position.
func (r *Reader) NotifyCheckpointComplete(ctx context.Context, checkpointID int64) error {
	if r.cfg.ConsumerID == "" || !r.cfg.Streaming {
		return nil
	}
	if r.cfg.ConsumerAtLeastOnce {
		r.src.progress.setLive(r.subtask, r.consumerNext())
	}
	next, ok := r.src.progress.complete(checkpointID, r.cfg.ConsumerAtLeastOnce)
	if !ok {
		return nil
	}
	if err := r.t.Snapshots.WriteConsumer(r.cfg.ConsumerID, snapshot.Consumer{NextSnapshot: next}); err != nil {
		return fmt.Errorf("paimon source: %w", err)
	}
	return nil
}

// Close releases open files.
func (r *Reader) Close() error {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
	return nil
}

// Next returns up to BatchRows rows. It never blocks: while waiting for
// the next snapshot it returns (nil, nil) and looks again only after
// 'continuous.discovery-interval'; catching up over existing snapshots
// does not wait. A bounded read ends with io.EOF.
func (r *Reader) Next(ctx context.Context) ([]sql.Row, error) {
	if r.src.Aggregate != nil && !r.emptyDone {
		r.emptyDone = true
		if empty := emptyPartial(r.src.Aggregate); empty != nil {
			return []sql.Row{{Kind: sql.Insert, Values: empty}}, nil
		}
	}
	deadline := r.now().Add(30 * time.Millisecond)
	for {
		if r.cur != nil {
			rows, err := r.drain()
			if err != nil || len(rows) > 0 {
				return rows, err
			}
			continue
		}
		if r.now().After(deadline) {
			return nil, nil
		}
		wait, err := r.step()
		if err != nil {
			return nil, err
		}
		if r.pos.Phase == phaseDone {
			return nil, io.EOF
		}
		if wait {
			return nil, nil
		}
	}
}

// drain reads the next batch of the current iterator and advances the
// position past the snapshot as soon as the iterator is exhausted, so a
// checkpoint taken right after the last row already points at the next
// snapshot (no replay on restore, and the consumer names the next one).
func (r *Reader) drain() ([]sql.Row, error) {
	var out []sql.Row // sized at the first row: an empty snapshot allocates nothing
	for {
		var row sql.Row
		ok := r.peeked
		if ok {
			row, r.peeked = r.peek, false
		} else {
			r.at = len(out)
			row, ok = r.cur.Next()
		}
		if !ok {
			err := r.cur.Error()
			r.cur.Close()
			r.cur = nil
			if err != nil {
				return nil, fmt.Errorf("paimon source: %s snapshot %d: %w", r.pos.Phase, r.pos.Snapshot, err)
			}
			r.advance()
			return out, nil
		}
		if len(out) == r.batch {
			// (Events of the row held back were placed at len(out), before it.)
			// A full batch: hold the next row back, so that an exhausted
			// snapshot is noticed now and not after the next checkpoint.
			r.peek, r.peeked = row, true
			return out, nil
		}
		r.pos.Offset++
		if out == nil {
			out = make([]sql.Row, 0, r.batch)
		}
		out = append(out, r.emit(row))
	}
}

func (r *Reader) emit(row sql.Row) sql.Row {
	if !r.src.Audit {
		return row
	}
	v := make([]any, 0, len(row.Values)+1)
	v = append(v, row.Kind.ShortString())
	return sql.Row{Kind: sql.Insert, Values: append(v, row.Values...)}
}

// advance moves past the current snapshot.
func (r *Reader) advance() {
	switch r.pos.Phase {
	case phaseFull:
		if !r.cfg.Streaming {
			r.pos = Position{Phase: phaseDone}
			return
		}
		r.pos = Position{Phase: phaseIncr, Snapshot: r.pos.Snapshot + 1}
	case phaseIncr:
		r.pos = Position{Phase: phaseIncr, Snapshot: r.pos.Snapshot + 1}
	default:
		r.pos = Position{Phase: phaseDone}
	}
}

// mine keeps the splits of this subtask.
func (r *Reader) mine(splits []table.Split) []table.Split {
	out := splits[:0:0]
	for _, sp := range splits {
		if owner(sp.Partition, int32(sp.Bucket), r.parallelism) == r.subtask {
			out = append(out, sp)
		}
	}
	return out
}

// setIter installs the iterator of the current position, skipping the
// rows emitted before a restore.
func (r *Reader) setIter(it table.RowIterator) error {
	r.skipping = r.pos.Offset > 0
	for i := int64(0); i < r.pos.Offset; i++ {
		if _, ok := it.Next(); !ok {
			if err := it.Error(); err != nil {
				it.Close()
				r.skipping = false
				return fmt.Errorf("paimon source: restore %s snapshot %d offset %d: %w", r.pos.Phase, r.pos.Snapshot, r.pos.Offset, err)
			}
			break
		}
	}
	if r.skipping {
		r.skipping = false
		// The reader restored holds the splits of its batch not finished
		// (SourceOperator's state), the one being read first.
		if m, ok := it.(*multiIter); ok && m.cur != nil {
			i := m.i - 1
			b := r.handover()
			r.at = 0
			for j := i; j < min((i/b+1)*b, m.n); j++ {
				r.splitEvent(connectors.SplitAdded, r.splitID(j))
			}
			r.splitEvent(connectors.SplitRead, r.splitID(i))
		}
	}
	r.cur, r.peeked = it, false
	return nil
}

func (r *Reader) splitIter(id int64, kind table.SplitKind, splits []table.Split, insertOnly bool) table.RowIterator {
	return &multiIter{n: len(splits), opened: func(i int) { r.splitOpened(i, len(splits)) },
		done: func(i int) { r.splitEvent(connectors.SplitFinished, r.splitID(i)) }, open: func(i int) (table.RowIterator, error) {
			// $audit_log keeps deletes and RowKinds in full reads too
			// (AuditLogRead.forceKeepDelete).
			sp := splits[i] // a copy: the plan cache shares splits between subtasks
			sp.SnapshotID, sp.Kind = id, kind
			if kind == table.SplitChangelog {
				sp.DeletionFiles = nil // changelog files carry no deletion vectors
			}
			it, err := r.t.NewSplitReader(sp, table.ReadOptions{Projection: r.src.Projection, KeepDelete: r.src.Audit, Aggregate: r.src.Aggregate, Filter: r.src.Filter})
			if err != nil {
				return nil, err
			}
			return &splitIter{it: it, insertOnly: insertOnly}, nil
		}}
}

// step does one unit of planning. wait=true means nothing is available
// before the next discovery.
func (r *Reader) step() (wait bool, err error) {
	switch r.pos.Phase {
	case phaseStart:
		if r.now().Before(r.nextCheck) {
			return true, nil
		}
		plan, err := Start(r.t, r.cfg)
		if err != nil {
			return false, fmt.Errorf("paimon source: %w", err)
		}
		switch {
		case plan.NoSnapshot:
			if !r.cfg.Streaming {
				r.pos = Position{Phase: phaseDone}
				return false, nil
			}
			r.nextCheck = r.now().Add(r.cfg.DiscoveryInterval)
			return true, nil
		case r.cfg.Mode == coreoptions.ScanIncremental:
			r.pos = Position{Phase: phaseBatch, From: plan.IncrementalFrom, Snapshot: plan.IncrementalTo}
		case plan.Full > 0:
			r.pos = Position{Phase: phaseFull, Snapshot: plan.Full, Tag: plan.FullTag}
		default:
			r.pos = Position{Phase: phaseIncr, Snapshot: plan.Next}
		}
		return false, nil
	case phaseFull:
		splits, err := FullEntries(r.t, r.pos.Snapshot, r.pos.Tag, r.cfg.Streaming)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				return false, ExpiredError(r.pos.Snapshot)
			}
			return false, fmt.Errorf("paimon source: %w", err)
		}
		splits = r.mine(splits)
		if r.src.ReadOptimized && r.t.PrimaryKey() {
			// $ro: only the top level, which is one sorted run without
			// retractions, so the table layer reads it raw.
			top := int32(r.t.Spec.NumLevels - 1)
			for i := range splits {
				splits[i] = keepLevel(splits[i], func(f *manifest.DataFileMeta) bool { return f.Level == top })
			}
		}
		return false, r.setIter(r.splitIter(r.pos.Snapshot, table.SplitFull, splits, false))
	case phaseBatch:
		splits, err := IncrementalSplits(r.t, r.cfg, r.pos.From, r.pos.Snapshot)
		if err != nil {
			return false, fmt.Errorf("paimon source: %w", err)
		}
		// A batch incremental read of the table drops retractions and
		// stamps +I; $audit_log keeps them (AuditLogRead.forceKeepDelete),
		// so its rowkind column shows the -D/-U/+U of the range.
		return false, r.setIter(r.splitIter(r.pos.Snapshot, table.SplitChangelog, r.mine(splits), !r.src.Audit))
	case phaseIncr:
		return r.follow()
	}
	return false, nil
}

// follow looks at snapshot pos.Snapshot: waits when it does not exist
// yet, fails when it has expired, skips it or opens its splits.
func (r *Reader) follow() (wait bool, err error) {
	if r.now().Before(r.nextCheck) {
		return true, nil
	}
	id := r.pos.Snapshot
	s, err := r.t.Snapshots.Read(id)
	if errors.Is(err, snapshot.ErrNotFound) {
		earliest, ok, err := r.t.Snapshots.EarliestID()
		if err != nil {
			return false, fmt.Errorf("paimon source: %w", err)
		}
		if ok && earliest > id {
			return false, ExpiredError(id)
		}
		r.nextCheck = r.now().Add(r.cfg.DiscoveryInterval)
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("paimon source: %w", err)
	}
	// scan.bounded.watermark: the stream ends at the first snapshot whose
	// watermark is larger; that snapshot is not read.
	if bw := r.cfg.BoundedWatermark; bw != nil && s.Watermark != nil && *s.Watermark > *bw {
		r.pos = Position{Phase: phaseDone}
		return false, nil
	}
	splits, kind, read, err := r.src.plans.followUp(r.t, r.cfg, s)
	if err != nil {
		return false, fmt.Errorf("paimon source: %w", err)
	}
	if !read {
		r.advance()
		return false, nil
	}
	return false, r.setIter(r.splitIter(id, kind, r.mine(splits), false))
}

// emptyPartial is the partial aggregate of no rows; nil when the calls
// group (no rows make no group).
func emptyPartial(calls []format.AggCall) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		switch c.Kind {
		case format.AggKey:
			return nil
		case format.AggCountStar, format.AggCount:
			out[i] = int64(0)
		}
	}
	return out
}
