package jdbc

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	"github.com/sqlrun/sqlrun/sql"
)

// Sink is JdbcDynamicTableSink. With 'sink.delivery-guarantee' =
// 'exactly-once' it is also the job's committer (see txn.go).
type Sink struct {
	cfg *config
	// runID is the lineage a fresh start's exactly-once writers take.
	runID string
	// noCheckpoints: streaming without execution.checkpointing.interval,
	// where an exactly-once sink would never commit.
	noCheckpoints bool
	// retryUnit shortens the committer's back-off in tests.
	retryUnit time.Duration
	commitMu  sync.Mutex
	stats     commitCounters
}

var (
	_ connectors.TableSink     = (*Sink)(nil)
	_ connectors.Committer     = (*Sink)(nil)
	_ connectors.OrphanCleanup = (*Sink)(nil)
)

// OrphansOnFullStart is 'sink.orphans-on-full-start'.
func (s *Sink) OrphansOnFullStart() string { return orphansPolicy(s.cfg.opts) }

// CommitStats are an exactly-once sink's commits: epochs written, epochs
// found already committed (re-commits after recovery) and rows written.
type CommitStats struct {
	Committed, Skipped, Rows int64
}

// CommitStats returns the sink's commit counters.
func (s *Sink) CommitStats() CommitStats {
	return CommitStats{Committed: s.stats.committed.Load(), Skipped: s.stats.skipped.Load(), Rows: s.stats.rows.Load()}
}

// Commit is connectors.Committer: checkpoint checkpointID is durable, so
// the exactly-once writers' rows of that checkpoint go to MySQL, once.
// At-least-once writers hand over no committables and Commit is not
// called for them.
func (s *Sink) Commit(ctx context.Context, checkpointID int64, committables [][]byte) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	return s.commitEpochs(ctx, checkpointID, committables)
}

// ChangelogMode is JdbcDynamicTableSink.getChangelogMode: a sink with a
// primary key takes [I, UA, D] (it upserts by key and never needs the -U
// image); without one, only an insert-only query is allowed.
func (s *Sink) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	if !s.cfg.schema.HasPrimaryKey() && !requested.IsInsertOnly() {
		return 0, sql.Errorf(sql.IllegalStateException,
			"please declare primary key for sink table when query contains update/delete record.")
	}
	if !s.cfg.schema.HasPrimaryKey() {
		return sql.InsertOnly, nil
	}
	return sql.ModeOf(sql.Insert, sql.UpdateAfter, sql.Delete), nil
}

// Parallelism is 'sink.parallelism' (0 when unset).
func (s *Sink) Parallelism() int {
	if !s.cfg.opts.Has(OptSinkParallelism) {
		return 0
	}
	return s.cfg.opts.Int(OptSinkParallelism)
}

// ExecutionOptions are the sink's flush and retry settings.
func (s *Sink) ExecutionOptions() ExecutionOptions {
	o := s.cfg.opts
	return ExecutionOptions{
		BatchSize:     o.Int(OptSinkMaxRows),
		BatchInterval: o.Duration(OptSinkInterval),
		MaxRetries:    o.Int(OptSinkMaxRetries),

		AllowOtherUniqueKeys: o.Bool(OptAllowOtherUniqueKeys),
		Transactional:        o.Bool(OptTransactionalFlush),
		ExactlyOnce:          o.Get(OptDeliveryGuarantee) == "exactly-once",
		ProgressTable:        o.Get(OptProgressTable),
		VersionColumn:        o.Get(OptVersionColumn),
	}
}

// NewWriter creates subtask's writer with its own connection and buffer.
// The runtime routes rows by primary-key hash, so each key's changes reach
// one writer in order.
func (s *Sink) NewWriter(subtask, parallelism int) (connectors.SinkWriter, error) {
	return s.NewJDBCWriter(subtask, parallelism, s.ExecutionOptions())
}

// NewJDBCWriter is NewWriter with explicit execution options (tests shorten
// the retry back-off) and the concrete type, whose Stats tests read.
func (s *Sink) NewJDBCWriter(subtask, parallelism int, opts ExecutionOptions) (*Writer, error) {
	if opts.ExactlyOnce && s.noCheckpoints {
		return nil, sql.Errorf(sql.ValidationException,
			"'%s' = 'exactly-once' writes a checkpoint's rows when the checkpoint completes, and this streaming job takes no checkpoints: "+
				"set 'execution.checkpointing.interval' (table %s)", OptDeliveryGuarantee, s.cfg.ident)
	}
	return s.newWriter(subtask, parallelism, opts)
}

// newWriter creates a writer with its own session; subtask -1 is the
// exactly-once committer.
func (s *Sink) newWriter(subtask, parallelism int, opts ExecutionOptions) (*Writer, error) {
	conn, err := newConn(s.cfg.conn, s.cfg.opts.Duration(OptMaxRetryTimeout))
	if err != nil {
		return nil, err
	}
	connStr := fmt.Sprintf("%s, subtask %d/%d", s.cfg.conn, subtask, parallelism)
	if subtask < 0 {
		connStr = fmt.Sprintf("%s, committer", s.cfg.conn)
	}
	w := newWriter(conn, connStr, s.cfg.table, s.cfg.schema, opts)
	w.subtask, w.runID = subtask, s.runID
	if subtask == 0 && opts.ExactlyOnce {
		w.commits = &s.stats
	}
	return w, nil
}

func dialectOf() dialect.MySQL { return dialect.MySQL{} }
