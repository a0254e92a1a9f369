package jdbc

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	"github.com/sqlrun/sqlrun/sql"
)

// Sink is JdbcDynamicTableSink.
type Sink struct {
	cfg *config
}

var _ connectors.TableSink = (*Sink)(nil)

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
	conn, err := newConn(s.cfg.conn, s.cfg.opts.Duration(OptMaxRetryTimeout))
	if err != nil {
		return nil, err
	}
	connStr := fmt.Sprintf("%s, subtask %d/%d", s.cfg.conn, subtask, parallelism)
	return newWriter(conn, connStr, s.cfg.table, s.cfg.schema, opts), nil
}

func dialectOf() dialect.MySQL { return dialect.MySQL{} }
