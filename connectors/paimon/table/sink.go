package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// ErrStreamingOverwrite is wrapped by NewSink for INSERT OVERWRITE in
// streaming mode.
var ErrStreamingOverwrite = errors.New("streaming INSERT OVERWRITE")

// SinkOptions configure the runtime half of the Paimon SQL sink.
type SinkOptions struct {
	// Streaming selects checkpoint ids as commit identifiers; batch jobs
	// commit with Long.MAX_VALUE as Paimon does.
	Streaming bool
	// Overwrite is INSERT OVERWRITE (batch only); OverwritePartition its
	// static PARTITION clause (column → value as written in SQL).
	Overwrite          bool
	OverwritePartition map[string]string
	// TempDir for lookup indexes and spills ("" = os.TempDir()).
	TempDir string
}

// Sink is the runtime half of the Paimon sink: it creates SinkWriters
// (connectors.SinkWriter) and is the connectors.Committer of their
// committables. The planning half (connectors/paimon) wraps it into a
// connectors.TableSink.
//
// The commit user travels inside every committable and the writer state,
// so a job restored from a checkpoint commits as the same user and a
// replayed commit (an identifier this user already committed) is skipped:
// that is what makes the sink exactly-once.
type Sink struct {
	t    *Table
	o    SinkOptions
	user string
	// assigner is the one bucket assigner of a dynamic-bucket table,
	// shared by the writers and Channel (sqlrun runs one assigner task).
	assigner index.BucketAssigner
	// postponeKnown are the bucket counts of a postpone bucket table's
	// partitions when the job started (PostponeUtils.getKnownNumBuckets),
	// shared by the writers and Channel.
	postponeKnown map[string]int
	// partExpire drops expired partitions after commits (nil: the table
	// expires none); now is its clock.
	partExpire *PartitionExpire
	now        func() time.Time
	// tagAuto is the job's automatic tag creation ('tag.automatic-creation'
	// process-time), created when the job starts as Paimon's committer
	// creates its TagAutoManager; nil when the table creates no tags.
	tagAuto *tagAutoCreation

	mu sync.Mutex
}

var _ connectors.Committer = (*Sink)(nil)

// NewSink creates the sink runtime for t.
func NewSink(t *Table, o SinkOptions) (*Sink, error) {
	if o.Overwrite && o.Streaming {
		return nil, &sql.Error{Class: sql.UnsupportedOperation, Msg: "Paimon doesn't support streaming INSERT OVERWRITE.", Err: ErrStreamingOverwrite}
	}
	if err := t.checkWritable(); err != nil {
		return nil, err
	}
	if t.postponeFilesWrite(o.Streaming) {
		if err := t.checkPostponeFiles(); err != nil {
			return nil, err
		}
	}
	if t.KeyDynamic() && o.Overwrite {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, ErrCrossPartitionOverwrite)
	}
	s := &Sink{t: t, o: o, user: t.NewCommitUser(), now: time.Now}
	// AbstractFileStoreTable.newCommit: no partition expiration on a
	// 'write-only' table; a postpone bucket table's batch write is
	// write-only.
	if !t.Options.WriteOnly && !t.PostponeBucket() {
		pe, err := t.NewPartitionExpire(s.now(), nil)
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
		}
		s.partExpire = pe
	}
	ta, err := t.newTagAutoCreation()
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	s.tagAuto = ta
	if t.DynamicBucket() && !t.KeyDynamic() {
		a, err := t.NewAssigner(o.Overwrite)
		if err != nil {
			return nil, err
		}
		s.assigner = a
	}
	if t.PostponeBucket() {
		// Read once, when the job starts, as FlinkSinkBuilder does.
		known, err := t.knownNumBuckets()
		if err != nil {
			return nil, err
		}
		s.postponeKnown = known
	}
	return s, nil
}

// Table returns the sink's table.
func (s *Sink) Table() *Table { return s.t }

// sinkState and committable name the table they belong to (its database
// and table directories): a job restored with its INSERTs in another
// order, or with a table added or removed (a mysql-sync action that
// changed its table list), would otherwise hand one table's commit user
// and pending files to another, whose commit would reference files in a
// directory it does not own.
type sinkState struct {
	CommitUser string `json:"commitUser"`
	Table      string `json:"table,omitempty"`
}

type committable struct {
	CommitUser string          `json:"commitUser"`
	Table      string          `json:"table,omitempty"`
	Messages   json.RawMessage `json:"messages"`
	// Watermark is the writer's input watermark when it took the
	// committable, Idle its watermark status (IDLE); committables of
	// older checkpoints carry none and count as Long.MIN_VALUE.
	Watermark *int64 `json:"watermark,omitempty"`
	Idle      bool   `json:"idle,omitempty"`
}

// stateName identifies the table in sink state: "<db>.db/<table>" (the
// last two path elements), which a moved warehouse keeps.
func (s *Sink) stateName() string { return fs.Base(fs.Dir(s.t.Root)) + "/" + fs.Base(s.t.Root) }

// checkStateTable refuses state written for another table (older state
// names none and is taken as before).
func (s *Sink) checkStateTable(what, table string) error {
	if table != "" && table != s.stateName() {
		return fmt.Errorf("paimon table %s: the restored %s belongs to table %s, not %s: the job's statements changed between the checkpoint and this run; start the job without that checkpoint", s.t.Root, what, table, s.stateName())
	}
	return nil
}

// NewWriter creates the writer of one subtask. Rows must reach the subtask
// owning their bucket (the planner partitions by bucket, or runs one
// writer): two writers of one bucket would both compact it.
func (s *Sink) NewWriter(subtask, parallelism int) (connectors.SinkWriter, error) {
	if s.t.KeyDynamic() && parallelism > 1 {
		// One writer holds the cross-partition key index; the planner
		// gives such a table one writer (Parallelism).
		return nil, fmt.Errorf("paimon table %s: a table with cross-partition upserts is written by one writer, not %d", s.t.Root, parallelism)
	}
	return &SinkWriter{s: s, user: s.user, subtask: subtask, parallelism: parallelism, wm: math.MinInt64}, nil
}

// SinkWriter is one subtask's writer: rows go to a TableWrite; on each
// checkpoint barrier the files are finished (PrepareCommit) and the commit
// messages become the committable.
type SinkWriter struct {
	s           *Sink
	user        string
	tw          *TableWrite
	subtask     int
	parallelism int
	// wm and idle are the input watermark and status the committable
	// carries (CommitterOperator.currentWatermark, Long.MIN_VALUE until
	// one arrives).
	wm   int64
	idle bool
}

// SinkWatermark records the writer's input watermark, as Paimon's
// CommitterOperator.processWatermark does: Long.MAX_VALUE (the end of a
// bounded input) is not taken, except that 'end-input.watermark', when
// set, becomes the watermark then (CommitterOperator.endInput). A batch
// job's commits record none (Flink runs batch jobs without watermarks).
func (w *SinkWriter) SinkWatermark(wm int64, idle bool) error {
	if !w.s.o.Streaming {
		return nil
	}
	w.idle = idle
	if wm != math.MaxInt64 {
		w.wm = wm
	} else if e := w.s.t.Options.EndInputWatermark; e != nil {
		w.wm = *e
	}
	return nil
}

// Open restores the commit user from the writer state and creates the
// TableWrite (bucket writers restore from the latest snapshot lazily).
func (w *SinkWriter) Open(ctx context.Context, state []byte) error {
	if len(state) > 0 {
		var st sinkState
		if err := json.Unmarshal(state, &st); err != nil {
			return fmt.Errorf("paimon sink state: %w", err)
		}
		if err := w.s.checkStateTable("writer state", st.Table); err != nil {
			return err
		}
		if st.CommitUser != "" {
			w.user = st.CommitUser
		}
	}
	tw, err := w.s.t.NewWrite(WriteOptions{TempDir: w.s.o.TempDir, IgnorePrevious: w.s.o.Overwrite, Assigner: w.s.assigner,
		Parallelism: w.parallelism, postponeKnown: w.s.postponeKnown,
		postponeFiles: w.s.t.postponeFilesWrite(w.s.o.Streaming), commitUser: w.user, writeID: w.subtask})
	if err != nil {
		return err
	}
	w.tw = tw
	return nil
}

// Write routes rows to their bucket writers.
func (w *SinkWriter) Write(ctx context.Context, rows []sql.Row) error {
	for _, r := range rows {
		if err := w.tw.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot finishes the files written since the last checkpoint (waiting
// for lookup compaction with lookup-wait, and for every compaction in
// batch mode) and returns them as the committable.
func (w *SinkWriter) Snapshot(ctx context.Context, checkpointID int64) (state, comm []byte, err error) {
	msgs, err := w.tw.PrepareCommit(!w.s.o.Streaming)
	if err != nil {
		return nil, nil, err
	}
	enc, err := EncodeMessages(msgs)
	if err != nil {
		return nil, nil, err
	}
	state, err = json.Marshal(sinkState{CommitUser: w.user, Table: w.s.stateName()})
	if err != nil {
		return nil, nil, err
	}
	comm, err = json.Marshal(committable{CommitUser: w.user, Table: w.s.stateName(), Messages: enc, Watermark: &w.wm, Idle: w.idle})
	if err != nil {
		return nil, nil, err
	}
	return state, comm, nil
}

// NotifyCheckpointComplete is a no-op: the Sink commits.
func (w *SinkWriter) NotifyCheckpointComplete(ctx context.Context, checkpointID int64) error {
	return nil
}

// Close releases the bucket writers; uncommitted files become orphans.
func (w *SinkWriter) Close(ctx context.Context) error {
	if w.tw == nil {
		return nil
	}
	return w.tw.Close()
}

// Commit commits the committables of checkpoint checkpointID: identifier
// = checkpointID when streaming, Long.MAX_VALUE in batch mode; skipped when
// the commit user already committed that identifier (replay after
// recovery). INSERT OVERWRITE commits an OVERWRITE snapshot.
func (s *Sink) Commit(ctx context.Context, checkpointID int64, committables [][]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	byUser := map[string][]CommitMessage{}
	var users []string
	var wms watermarks
	for _, c := range committables {
		if len(c) == 0 {
			continue
		}
		var cm committable
		if err := json.Unmarshal(c, &cm); err != nil {
			return fmt.Errorf("paimon committable: %w", err)
		}
		wms.add(cm.Watermark, cm.Idle)
		if err := s.checkStateTable("committable", cm.Table); err != nil {
			return err
		}
		msgs, err := DecodeMessages(cm.Messages)
		if err != nil {
			return err
		}
		if _, ok := byUser[cm.CommitUser]; !ok {
			users = append(users, cm.CommitUser)
		}
		byUser[cm.CommitUser] = append(byUser[cm.CommitUser], msgs...)
	}
	if len(users) == 0 {
		users = []string{s.user}
	}
	id := checkpointID
	watermark := wms.committer()
	if !s.o.Streaming {
		id = snapshot.BatchCommitIdentifier
		watermark = math.MinInt64
		if e := s.t.Options.EndInputWatermark; e != nil {
			watermark = *e
		}
	}
	empty := true
	for _, u := range users {
		for _, m := range byUser[u] {
			empty = empty && m.Empty()
		}
	}
	var last *Commit
	replayed := true
	for _, u := range users {
		c := s.t.NewCommit(u)
		c.Now = s.now
		c.PartitionExpire = s.partExpire
		c.tagAuto = s.tagAuto
		// A streaming checkpoint without changes commits an empty
		// snapshot when a tag is due (CommitterOperator with
		// TableCommitImpl.forceCreatingSnapshot), so the tag holds what
		// its period committed.
		if s.o.Streaming && empty && s.tagAuto != nil {
			force, err := s.tagAuto.forceCreatingSnapshot(s.now())
			if err != nil {
				return fmt.Errorf("paimon table %s: %w", s.t.Root, err)
			}
			c.Force = force
		}
		c.Watermark = &watermark
		// Snapshots expire after the partitions (TableCommitImpl.maintain).
		c.NoExpire = true
		var err error
		if s.o.Overwrite {
			err = c.Overwrite(id, byUser[u], s.o.OverwritePartition)
		} else {
			err = c.Commit(id, byUser[u], &watermark)
		}
		if err != nil {
			return err
		}
		last, replayed = c, replayed && c.Replayed
	}
	if replayed {
		// Nothing committed: no maintenance (TableCommitImpl.filterAndCommit).
		return s.batchTag()
	}
	// TableCommitImpl.maintain: partition expiration, then consumer and
	// snapshot expiration.
	if s.partExpire != nil {
		if _, _, err := s.partExpire.Expire(s.now(), id, last.User); err != nil {
			return err
		}
	}
	// A postpone bucket table's writes expire no snapshots: the batch
	// write is write-only, and PrimaryKeyFileStoreTable.newExpireRunnable
	// is null for bucket -2 (the overwrite's commit table).
	last.NoExpire = s.t.PostponeBucket()
	last.expire()
	return s.batchTag()
}

// watermarks combines the writers' watermarks into the committer's, as
// Flink's StatusWatermarkValve does for the committer operator: the least
// of the active writers' (Long.MIN_VALUE while one has none), or the
// greatest when every writer is idle.
type watermarks struct {
	active, idle []int64
}

func (w *watermarks) add(wm *int64, idle bool) {
	v := int64(math.MinInt64)
	if wm != nil {
		v = *wm
	}
	if idle {
		w.idle = append(w.idle, v)
	} else {
		w.active = append(w.active, v)
	}
}

func (w *watermarks) committer() int64 {
	if len(w.active) > 0 {
		return slices.Min(w.active)
	}
	if len(w.idle) > 0 {
		return slices.Max(w.idle)
	}
	return math.MinInt64
}

// batchTag tags the latest snapshot when a batch job's commit is done and
// the table has 'tag.automatic-creation' = 'batch' (Paimon's Flink sink
// adds BatchWriteGeneratorTagOperator, whose finish runs
// TagBatchCreation after the last commit).
func (s *Sink) batchTag() error {
	if s.o.Streaming || s.t.Options.TagAuto.Mode != "batch" {
		return nil
	}
	if err := s.t.createBatchTag(); err != nil {
		return fmt.Errorf("paimon table %s: batch tag: %w", s.t.Root, err)
	}
	return nil
}

// CompactOptions select what a dedicated compaction compacts.
type CompactOptions struct {
	// Full compacts every bucket into the top level (full compaction).
	Full bool
	// Partition keeps partitions (values in partition-key order); nil
	// compacts all.
	Partition func(values []any) bool
	// TempDir for lookup indexes ("" = os.TempDir()).
	TempDir string
	// Streaming is a compaction in streaming mode, which Paimon refuses
	// for postpone bucket tables.
	Streaming bool
}

// Compact runs a one-off compaction of the table (CALL sys.compact, sqlrun
// compact) and commits it as a COMPACT snapshot (with lookup or
// full-compaction changelog when the table produces it). It works on
// write-only tables. It returns the snapshot ids created (none when there
// was nothing to compact).
func Compact(t *Table, o CompactOptions) ([]int64, error) {
	if !t.PrimaryKey() {
		return nil, nil
	}
	if t.PostponeBucket() {
		return compactPostpone(t, o)
	}
	// CompactAction's committer (the table copied with 'write-only' =
	// false) expires partitions too, with lastCheck set when it starts.
	pe, err := t.NewPartitionExpire(time.Now(), nil)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	w, err := t.newCompactWrite(WriteOptions{TempDir: o.TempDir})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := w.Compact(o.Full, o.Partition); err != nil {
		return nil, err
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		return nil, err
	}
	return t.commitDedicatedCompaction(msgs, pe)
}

// commitDedicatedCompaction commits a dedicated compaction's messages
// (CompactAction, a batch Flink job whose committer has no watermark:
// Long.MIN_VALUE) as one COMPACT snapshot, then expires partitions (pe,
// when set) and snapshots, as the committer of the table CompactAction
// copies with 'write-only' = false does. It returns the snapshots made.
func (t *Table) commitDedicatedCompaction(msgs []CommitMessage, pe *PartitionExpire) ([]int64, error) {
	c := t.NewCommit(t.NewCommitUser())
	c.Dedicated, c.NoExpire = true, true
	if err := c.Commit(snapshot.BatchCommitIdentifier, msgs, snapshot.Int64(math.MinInt64)); err != nil {
		return nil, err
	}
	ids := c.LastSnapshots
	if pe != nil {
		if _, _, err := pe.Expire(time.Now(), snapshot.BatchCommitIdentifier, c.User); err != nil {
			return nil, err
		}
	}
	c.NoExpire = false
	c.expire()
	return ids, nil
}

// Channel is the writer subtask a row belongs to (Paimon's
// ChannelComputer: partition hash plus bucket, modulo parallelism). Rows
// of one bucket must all reach one writer, because every bucket has one
// merge tree and one compaction; the runtime's exchange in front of a
// Paimon sink with parallelism > 1 must route by Channel.
func (s *Sink) Channel(r sql.Row, parallelism int) (int, error) {
	if parallelism <= 1 {
		return 0, nil
	}
	if s.t.KeyDynamic() {
		return 0, fmt.Errorf("paimon table %s: a table with cross-partition upserts is written by one writer, not %d", s.t.Root, parallelism)
	}
	_, part, err := s.t.Partition(r.Values)
	if err != nil {
		return 0, err
	}
	if s.t.postponeFilesWrite(s.o.Streaming) {
		return s.t.postponeStreamChannel(r.Values, part, parallelism)
	}
	if s.t.PostponeBucket() {
		return postponeChannel(part, s.postponeKnown, parallelism), nil
	}
	var bucket int
	if s.assigner != nil {
		// Dynamic bucket mode: the shared assigner gives the bucket now
		// and the same bucket again when the writer assigns the row.
		hash, _, err := s.t.keyHash(r.Values, nil)
		if err != nil {
			return 0, err
		}
		if bucket, err = s.assigner.Assign(part, hash); err != nil {
			return 0, err
		}
	} else if bucket, _, err = s.t.Bucket(r.Values, nil); err != nil {
		return 0, err
	}
	h := int(binrow.Hash(part) & 0x7fffffff)
	return (h + bucket) % parallelism, nil
}
