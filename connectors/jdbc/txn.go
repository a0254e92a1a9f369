package jdbc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	sqlrun "github.com/sqlrun/sqlrun/sql"
)

// Exactly-once without XA ('sink.delivery-guarantee' = 'exactly-once').
//
// Flink's JDBC sink is at-least-once: a replay after a failure re-executes
// batches MySQL already applied, which is harmless for plain upserts but
// not for triggers or audit tables (seed 003). flink-connector-jdbc's own
// exactly-once needs XA transactions. sqlrun uses the checkpoint itself as
// the write-ahead log instead, the two-phase pattern of Flink's
// TwoPhaseCommittingSink:
//
//  1. Between checkpoints a writer only buffers (reduced by key, as
//     always). At checkpoint N's barrier, Snapshot hands the buffer over as
//     the writer's committable: it is stored in checkpoint N.
//  2. When checkpoint N is durable, the runtime calls Sink.Commit once with
//     every subtask's committable. Commit writes all of them in ONE MySQL
//     transaction together with the progress row (lineage, N) in the
//     progress table; a progress row already at N or later means this
//     epoch was committed before (a COMMIT whose answer was lost, or a
//     re-commit after recovery) and the transaction writes nothing.
//  3. After a crash the runtime restores checkpoint N and replays its
//     committables through Commit: the progress row decides, inside the
//     transaction, whether they were applied. Rows after checkpoint N are
//     read again by the sources and go into the next epochs.
//
// A lineage (runID) is a random id the Sink draws when a statement is
// planned; every committable carries the lineage it was written under.
// Checkpoint ids only grow within one run of a job (restarts in the
// process included), but a resumed job may number its checkpoints below
// ids an earlier run already committed (a savepoint restored into another
// checkpoint directory): new epochs therefore always start a new lineage,
// while a restored checkpoint's committables are re-committed under their
// own. Another job writing the same table never shares a lineage either.
// The progress table gets one row per run.

// epoch is the checkpoint a committer flush belongs to.
type epoch struct {
	runID      string
	checkpoint int64
	// skipped is set when the progress row showed the epoch committed.
	skipped bool
}

// progressDDL creates the progress table; InnoDB, so a progress row
// commits atomically with the rows it describes.
const progressDDL = "CREATE TABLE IF NOT EXISTS %s (" +
	"`sink_id` CHAR(32) NOT NULL PRIMARY KEY, " +
	"`target_table` VARCHAR(512) NOT NULL, " +
	"`checkpoint_id` BIGINT NOT NULL, " +
	"`committed_at` TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)) ENGINE = InnoDB"

// NewRunID returns a fresh lineage id.
func newRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// TransactionError is a table whose storage engine does not roll back:
// a transaction over it would apply part of a flush or epoch and report
// success for all of it.
type TransactionError struct {
	Table, Engine, Option string
}

func (e *TransactionError) Error() string {
	return fmt.Sprintf("'%s' needs a transactional table, but table '%s' uses ENGINE=%s, which does not roll back: "+
		"ALTER TABLE `%s` ENGINE = InnoDB", e.Option, e.Table, e.Engine, e.Table)
}

// checkTransactional refuses target tables whose engine has no
// transactions (MyISAM, Aria, MEMORY, ...): there the transaction of a
// transactional flush or an exactly-once epoch would be a lie.
func (w *Writer) checkTransactional(ctx context.Context, sc *sql.Conn) error {
	var engine, txns sql.NullString
	err := sc.QueryRowContext(ctx, "SELECT t.ENGINE, e.TRANSACTIONS FROM information_schema.TABLES t "+
		"LEFT JOIN information_schema.ENGINES e ON e.ENGINE = t.ENGINE "+
		"WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME = ?", w.table).Scan(&engine, &txns)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // a missing table fails the first statement with MySQL's own message
	}
	if err != nil {
		return sqlrun.Errorf(sqlrun.IOException, "unable to open JDBC writer for table '%s' (%s): %w", w.table, w.connStr, err)
	}
	if txns.String == "YES" || !engine.Valid { // views have no engine
		return nil
	}
	opt := OptTransactionalFlush + "' = 'true"
	if w.opts.ExactlyOnce || w.epoch != nil {
		opt = OptDeliveryGuarantee + "' = 'exactly-once"
	}
	return sqlrun.Errorf(sqlrun.ValidationException, "%w", &TransactionError{Table: w.table, Engine: engine.String, Option: opt})
}

// openExactlyOnce creates the progress table.
func (w *Writer) openExactlyOnce(ctx context.Context, sc *sql.Conn) error {
	if _, err := sc.ExecContext(ctx, fmt.Sprintf(progressDDL, w.d.Quote(w.opts.ProgressTable))); err != nil {
		return sqlrun.Errorf(sqlrun.IOException, "unable to create the exactly-once progress table '%s' ('%s') for table '%s': %w",
			w.opts.ProgressTable, OptProgressTable, w.table, err)
	}
	return nil
}

// committable layout: version, lineage, subtask, checkpoint, rows.
const committableVersion = 1

// snapshotEpoch hands the buffer over as checkpoint id's committable.
// Callers hold w.mu.
func (w *Writer) snapshotEpoch(id int64) (state, committable []byte, err error) {
	if len(w.entries) == 0 && len(w.appendRows) == 0 {
		return nil, nil, nil
	}
	var e sqlrun.Encoder
	e.Uvarint(committableVersion)
	e.String(w.runID)
	e.Uvarint(uint64(w.subtask))
	e.Varint(id)
	e.Uvarint(uint64(len(w.entries) + len(w.appendRows)))
	for _, en := range w.entries {
		if err := e.Row(en.row); err != nil {
			return nil, nil, fmt.Errorf("jdbc: checkpoint %d of table '%s': %w", id, w.table, err)
		}
	}
	for _, r := range w.appendRows {
		if err := e.Row(r); err != nil {
			return nil, nil, fmt.Errorf("jdbc: checkpoint %d of table '%s': %w", id, w.table, err)
		}
	}
	w.c.lastBatch.Store(int64(w.batchCount))
	w.batchCount = 0
	w.resetBuffer()
	return nil, e.Buf, nil
}

// decodeCommittable reads what snapshotEpoch wrote.
func decodeCommittable(b []byte) (runID string, rows []sqlrun.Row, err error) {
	d := sqlrun.Decoder{Buf: b}
	v, err := d.Uvarint()
	if err != nil {
		return "", nil, err
	}
	if v != committableVersion {
		return "", nil, sqlrun.Corrupt(fmt.Sprintf("unknown committable version %d", v))
	}
	if runID, err = d.String(); err != nil {
		return "", nil, err
	}
	if _, err = d.Uvarint(); err != nil { // subtask
		return "", nil, err
	}
	if _, err = d.Varint(); err != nil { // checkpoint
		return "", nil, err
	}
	n, err := d.Uvarint()
	if err != nil {
		return "", nil, err
	}
	if n > uint64(len(b)) {
		return "", nil, sqlrun.ErrCorruptEncoding
	}
	rows = make([]sqlrun.Row, n)
	for i := range rows {
		if rows[i], err = d.Row(); err != nil {
			return "", nil, err
		}
	}
	if !d.Done() {
		return "", nil, sqlrun.ErrCorruptEncoding
	}
	return runID, rows, nil
}

// inTransaction runs send between START TRANSACTION and COMMIT; for a
// committer flush it first locks and checks the lineage's progress row and
// advances it after the rows. On any error the transaction is rolled back
// (MySQL does so anyway when the session is gone), and the caller's retry
// resends everything.
func (w *Writer) inTransaction(ctx context.Context, send func(context.Context) (string, error)) (string, error) {
	sc, err := w.conn.open(ctx)
	if err != nil {
		return "BEGIN", err
	}
	if _, err := sc.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return "BEGIN", err
	}
	rollback := func(kind string, err error) (string, error) {
		_, _ = sc.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return kind, err
	}
	table := w.d.Quote(w.opts.ProgressTable)
	if ep := w.epoch; ep != nil {
		var done int64
		err := sc.QueryRowContext(ctx, "SELECT `checkpoint_id` FROM "+table+" WHERE `sink_id` = ? FOR UPDATE", ep.runID).Scan(&done)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return rollback("PROGRESS", err)
		case done >= ep.checkpoint:
			ep.skipped = true
			return rollback("", nil)
		}
	}
	if kind, err := send(ctx); err != nil {
		return rollback(kind, err)
	}
	if ep := w.epoch; ep != nil {
		if _, err := sc.ExecContext(ctx, "INSERT INTO "+table+" (`sink_id`, `target_table`, `checkpoint_id`) VALUES (?, ?, ?) "+
			"ON DUPLICATE KEY UPDATE `checkpoint_id` = VALUES(`checkpoint_id`), `committed_at` = CURRENT_TIMESTAMP(3)",
			ep.runID, w.table, ep.checkpoint); err != nil {
			return rollback("PROGRESS", err)
		}
	}
	if _, err := sc.ExecContext(ctx, "COMMIT"); err != nil {
		return "COMMIT", err
	}
	w.c.txns.Add(1)
	return "", nil
}

// commitEpochs writes checkpoint id's committables, one transaction per
// lineage (normally one: every writer of a job shares it).
func (s *Sink) commitEpochs(ctx context.Context, id int64, comms [][]byte) error {
	byRun := map[string][]sqlrun.Row{}
	var order []string
	for i, c := range comms {
		runID, rows, err := decodeCommittable(c)
		if err != nil {
			return sqlrun.Errorf(sqlrun.IllegalStateException, "JDBC sink for table '%s': committable %d of checkpoint %d: %w",
				s.cfg.table, i, id, err)
		}
		if _, ok := byRun[runID]; !ok {
			order = append(order, runID)
		}
		byRun[runID] = append(byRun[runID], rows...)
	}
	for _, runID := range order {
		if err := s.commitEpoch(ctx, id, runID, byRun[runID]); err != nil {
			return err
		}
	}
	return nil
}

// commitEpoch writes one lineage's rows of checkpoint id through a
// committer writer of its own (a session opened for the commit and closed
// after it), with the writer's retries.
func (s *Sink) commitEpoch(ctx context.Context, id int64, runID string, rows []sqlrun.Row) error {
	opts := s.ExecutionOptions()
	opts.ExactlyOnce, opts.Transactional = false, false
	opts.BatchSize, opts.BatchInterval = 0, 0
	opts.RetryUnit = s.retryUnit
	w, err := s.newWriter(-1, 0, opts)
	if err != nil {
		return err
	}
	w.epoch = &epoch{runID: runID, checkpoint: id}
	w.stmtRows = s.ExecutionOptions().BatchSize
	if w.stmtRows <= 0 {
		w.stmtRows = 1000
	}
	start := time.Now()
	if err := w.Open(ctx, nil); err != nil {
		_ = w.Close(ctx)
		return err
	}
	for _, r := range rows {
		if err := w.add(r); err != nil {
			_ = w.Close(ctx)
			return err
		}
		w.batchCount++
	}
	w.mu.Lock()
	err = w.flush(ctx, byCommit)
	w.mu.Unlock()
	st := w.Stats()
	if cerr := w.Close(ctx); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("commit checkpoint %d to table '%s': %w", id, s.cfg.table, err)
	}
	if w.epoch.skipped {
		s.stats.skipped.Add(1)
	} else {
		s.stats.committed.Add(1)
		s.stats.rows.Add(st.UpsertRows + st.DeleteRows + st.InsertRows)
		s.stats.latency.observe(int64(time.Since(start)))
	}
	return nil
}
