package mysqlcdc

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	vtmysql "vitess.io/vitess/go/mysql"
	vtrepl "vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/sqlrun/sqlrun/sql"
)

// state is the reader's checkpoint state.
type state struct {
	// Phase is "snapshot" while chunks remain, then "binlog".
	Phase string `json:"phase"`
	// Chunks are the finished snapshot chunks, in reading order. They stay
	// until the binlog phase has passed the last high watermark.
	Chunks []chunk `json:"chunks,omitempty"`
	// Pos is, in the binlog phase, the start of the transaction being read
	// (the end of the last one finished), and Skip the rows of captured
	// tables of that transaction already handled.
	Pos  position `json:"pos"`
	Skip int64    `json:"skip,omitempty"`
	// Schemas are, for Paimon's CDC action in the binlog phase, each
	// table's columns as of Pos (alter.go): the rows after Pos are read
	// with them, not with information_schema's columns of when the job
	// resumes.
	Schemas map[string][]savedColumn `json:"schemas,omitempty"`
	// Handled is, for Paimon's CDC action, the end of the binlog when
	// the source last ended its input for a schema change: the action
	// has evolved the Paimon tables since, as the MySQL tables were
	// then, so an ALTER TABLE at or before it (read by a source whose
	// binlog is behind it) does not end the input again.
	Handled *position `json:"handled,omitempty"`
	// Since is, for 'scan.startup.mode' = 'timestamp', the second of
	// the startup timestamp: the binlog events of earlier seconds are
	// dropped (Flink CDC's BinlogSplitReader.createEventFilter), for the
	// job's life.
	Since int64 `json:"since,omitempty"`
	// After is, for a 'specific-offset' start by a MariaDB GTID position
	// of several domains (gtidStart), each domain's sequence number whose
	// transactions, and the earlier ones of the domain, are still to be
	// skipped; a domain leaves it at its first later transaction.
	After map[uint32]uint64 `json:"gtidAfter,omitempty"`
	// Stop is, for 'scan.startup.mode' = 'snapshot', where the binlog
	// phase ends: the largest high watermark of the snapshot's chunks, so
	// the rows read are the tables as of that position (Flink CDC's
	// MySqlHybridSplitAssigner gives the binlog split this ending offset
	// and MySqlBinlogSplitReadTask stops there). It is set when the last
	// chunk is read.
	Stop *position `json:"stop,omitempty"`
}

// chunk is one finished snapshot chunk: the rows of a table whose chunk key
// is in (Lo, Hi] (nil: unbounded), as of binlog position High.
type chunk struct {
	Table string   `json:"table"`
	Lo    *string  `json:"lo,omitempty"`
	Hi    *string  `json:"hi,omitempty"`
	High  position `json:"high"`
}

func (c *chunk) contains(t *table, key []byte) bool {
	if !t.chunkable {
		return true
	}
	if c.Lo != nil && t.compareKey(key, []byte(*c.Lo)) <= 0 {
		return false
	}
	return c.Hi == nil || t.compareKey(key, []byte(*c.Hi)) <= 0
}

const (
	phaseSnapshot = "snapshot"
	phaseBinlog   = "binlog"
)

// Reader reads the snapshot chunk by chunk, then the binlog.
type Reader struct {
	cfg      *config
	active   bool // subtask 0
	types    []sql.DataType
	meta     []string
	db       *gosql.DB
	tables   []*table
	byName   map[string]*table
	st       state
	stream   *stream
	tmaps    map[uint64]*vtmysql.TableMap
	rowIdx   int64  // rows of captured tables seen since st.Pos
	skipTx   bool   // the transaction being read is before the start's GTID position (state.After)
	gtid     string // GTID of the transaction being read
	inTx     bool
	maxHigh  position
	failures int       // binlog connections lost in a row
	retryAt  time.Time // when to reconnect
	// batchLimit caps the rows of one binlog batch (tests: small batches
	// put checkpoints inside transactions).
	batchLimit int
	// schemaChange is the ALTER TABLE that ended the input of Paimon's
	// CDC action (OptSyncAction); the state is past it.
	schemaChange *schemaChange
	// job is the stop the sources of a database action's job agree on
	// (nil for a source of its own).
	job *jobStop
}

// schemaChange is an ALTER TABLE of a captured table in the binlog.
type schemaChange struct {
	Table string
	At    position
	DDL   string
}

// afterSelect, when set by a test, runs between a chunk's SELECT and its
// high watermark.
var afterSelect func()

func newReader(cfg *config, subtask int, meta []string) *Reader {
	types := make([]sql.DataType, len(cfg.schema.Columns))
	for i, c := range cfg.schema.Columns {
		types[i] = c.Type
	}
	return &Reader{cfg: cfg, active: subtask == 0, types: types, meta: meta, batchLimit: 4096}
}

// Open connects, discovers the captured tables and restores the position.
func (r *Reader) Open(ctx context.Context, st []byte) error {
	if !r.active {
		return nil
	}
	mc := mysql.NewConfig()
	mc.User, mc.Passwd = r.cfg.user, r.cfg.password
	mc.Net, mc.Addr = "tcp", net.JoinHostPort(r.cfg.host, strconv.Itoa(r.cfg.port))
	mc.InterpolateParams = true
	mc.Timeout = r.cfg.connectTimeout
	// TIMESTAMP columns in UTC, as the binlog carries them.
	mc.Params = map[string]string{"time_zone": "'+00:00'"}
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		return fmt.Errorf("mysql-cdc: %w", err)
	}
	r.db = gosql.OpenDB(connector)
	r.db.SetMaxOpenConns(2)
	if err := r.checkServer(ctx); err != nil {
		return err
	}
	if len(st) > 0 {
		if err := json.Unmarshal(st, &r.st); err != nil {
			return fmt.Errorf("mysql-cdc: restore table %s: bad state: %w", r.cfg.ident, err)
		}
	}
	if err := r.checkStateTables(); err != nil {
		return err
	}
	var want []string
	for _, c := range r.st.Chunks {
		want = append(want, c.Table)
	}
	for n := range r.st.Schemas {
		want = append(want, n)
	}
	if r.tables, err = discover(ctx, r.db, r.cfg, want); err != nil {
		return err
	}
	r.byName = map[string]*table{}
	for _, t := range r.tables {
		r.byName[t.String()] = t
	}
	if len(st) > 0 {
		for _, c := range r.st.Chunks {
			if r.byName[c.Table] == nil {
				return fmt.Errorf("mysql-cdc: restore table %s: the checkpoint has chunks of %s, which '%s' and '%s' no longer capture",
					r.cfg.ident, c.Table, OptDatabaseName, OptTableName)
			}
		}
		for _, t := range r.tables {
			if saved, ok := r.st.Schemas[t.String()]; ok && r.cfg.syncAction {
				t.cols, t.restored = restoreColumns(saved), true
				if err := t.bind(r.cfg); err != nil {
					return err
				}
			}
		}
	} else if err := r.start(ctx); err != nil {
		return err
	}
	r.noteMaxHigh()
	if r.st.Phase == phaseBinlog {
		if err := r.openBinlog(ctx); err != nil {
			return err
		}
	}
	if r.cfg.syncAction && r.cfg.sharedServerID != 0 {
		r.job = joinJob(r.cfg)
	}
	return nil
}

// checkStateTables refuses a binlog state taken for other tables: one
// whose tables this source captures none of. The action's job restores
// each source's state by the place of its statement in the job
// (`sqlrun action mysql-sync-database`), so a state of another table
// would otherwise silently skip this table's binlog.
func (r *Reader) checkStateTables() error {
	if len(r.st.Schemas) == 0 {
		return nil
	}
	var names []string
	for n := range r.st.Schemas {
		db, tb, _ := strings.Cut(n, ".")
		if r.cfg.dbRegex.MatchString(db) && r.cfg.tableRegex.MatchString(tb) {
			return nil
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Errorf("mysql-cdc: restore table %s: the checkpoint holds the binlog state of %s, none of which '%s' and '%s' capture: the state belongs to another source (were tables added to or removed from the job?)",
		r.cfg.ident, strings.Join(names, ", "), OptDatabaseName, OptTableName)
}

// checkServer is MySqlValidator: the binlog must be on, in ROW format with
// full row images.
func (r *Reader) checkServer(ctx context.Context) error {
	var logBin, format, image string
	err := r.db.QueryRowContext(ctx, "SELECT @@global.log_bin, @@global.binlog_format, COALESCE(@@global.binlog_row_image, 'FULL')").Scan(&logBin, &format, &image)
	if err != nil {
		return sql.Errorf(sql.IOException, "mysql-cdc: connect to MySQL server %s:%d for table %s: %w", r.cfg.host, r.cfg.port, r.cfg.ident, err)
	}
	if logBin != "1" && !strings.EqualFold(logBin, "ON") {
		return sql.Errorf(sql.IOException, "The MySQL server %s:%d is not configured to use a ROW binlog_format, which is required for this connector to work properly. Change the MySQL configuration to use a binlog_format=ROW and restart the connector. (log_bin is OFF)", r.cfg.host, r.cfg.port)
	}
	if !strings.EqualFold(format, "ROW") {
		return sql.Errorf(sql.IOException, "The MySQL server is configured with binlog_format %s rather than ROW, which is required for this connector to work properly. Change the MySQL configuration to use a binlog_format=ROW and restart the connector.", format)
	}
	if !strings.EqualFold(image, "FULL") {
		return sql.Errorf(sql.IOException, "The MySQL server is configured with binlog_row_image %s rather than FULL, which is required for this connector to work properly. Change the MySQL configuration to use a binlog_row_image=FULL and restart the connector.", image)
	}
	return nil
}

// start sets the first position of a fresh job by its startup mode.
func (r *Reader) start(ctx context.Context) error {
	switch r.cfg.mode {
	case ModeInitial, ModeSnapshot:
		r.st = state{Phase: phaseSnapshot}
	case ModeLatest:
		p, err := r.masterPosition(ctx)
		if err != nil {
			return err
		}
		r.st = state{Phase: phaseBinlog, Pos: p}
	case ModeEarliest:
		var name string
		var size any
		rows, err := r.db.QueryContext(ctx, "SHOW BINARY LOGS")
		if err != nil {
			return sql.Errorf(sql.IOException, "mysql-cdc: SHOW BINARY LOGS: %w", err)
		}
		if rows.Next() {
			cols, _ := rows.Columns()
			dest := []any{&name, &size}
			for len(dest) < len(cols) {
				dest = append(dest, new(any))
			}
			err = rows.Scan(dest...)
		}
		rows.Close()
		if err != nil || name == "" {
			return sql.Errorf(sql.IOException, "mysql-cdc: no binary log files on %s:%d (%v)", r.cfg.host, r.cfg.port, err)
		}
		r.st = state{Phase: phaseBinlog, Pos: position{File: name, Pos: 4}}
	case ModeSpecific:
		p := r.cfg.offset
		var after map[uint32]uint64
		if r.cfg.gtid != nil {
			var err error
			if p, after, err = gtidStart(ctx, r, r.cfg.gtid); err != nil {
				return err
			}
		}
		r.st = state{Phase: phaseBinlog, Pos: p, After: after}
	case ModeTime:
		p, err := seekTimestamp(ctx, r.db, r.cfg)
		if err != nil {
			return err
		}
		r.st = state{Phase: phaseBinlog, Pos: p, Since: r.cfg.startSec}
	}
	return nil
}

// masterPosition is SHOW MASTER STATUS, with MariaDB's GTID position.
func (r *Reader) masterPosition(ctx context.Context) (position, error) {
	rows, err := r.db.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		return position{}, sql.Errorf(sql.IOException, "mysql-cdc: SHOW MASTER STATUS on %s:%d: %w", r.cfg.host, r.cfg.port, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return position{}, sql.Errorf(sql.IOException, "mysql-cdc: SHOW MASTER STATUS on %s:%d returned nothing: is the binary log on (log_bin)?", r.cfg.host, r.cfg.port)
	}
	cols, _ := rows.Columns()
	vals := make([]gosql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := rows.Scan(dest...); err != nil {
		return position{}, fmt.Errorf("mysql-cdc: SHOW MASTER STATUS: %w", err)
	}
	p := position{File: string(vals[0])}
	if p.Pos, err = strconv.ParseUint(string(vals[1]), 10, 64); err != nil {
		return position{}, fmt.Errorf("mysql-cdc: SHOW MASTER STATUS position %q: %w", vals[1], err)
	}
	rows.Close()
	var gtid gosql.NullString
	if err := r.db.QueryRowContext(ctx, "SELECT @@global.gtid_binlog_pos").Scan(&gtid); err == nil {
		p.GTID = gtid.String
	}
	return p, nil
}

func (r *Reader) noteMaxHigh() {
	r.maxHigh = position{}
	for _, c := range r.st.Chunks {
		if r.maxHigh.File == "" || c.High.compare(r.maxHigh) > 0 {
			r.maxHigh = c.High
		}
	}
}

// openBinlog starts reading the binlog at the transaction the state names.
func (r *Reader) openBinlog(ctx context.Context) error {
	if r.stream != nil {
		r.stream.close()
	}
	var s *stream
	var err error
	if r.cfg.sharedServerID != 0 {
		s, err = subscribe(ctx, r.cfg, r.st.Pos)
	} else {
		s, err = openStream(ctx, r.cfg, r.st.Pos)
	}
	if err != nil {
		return err
	}
	r.stream, r.tmaps, r.rowIdx, r.inTx, r.gtid, r.skipTx = s, map[uint64]*vtmysql.TableMap{}, 0, false, "", false
	return nil
}

// Next reads one snapshot chunk, or what the binlog has now.
func (r *Reader) Next(ctx context.Context) ([]sql.Row, error) {
	if !r.active {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
			return nil, nil
		}
	}
	if r.schemaChange != nil {
		// Paimon's CDC action: the input ends past the ALTER TABLE; the
		// final checkpoint holds the position after it.
		return nil, r.ended(ctx)
	}
	if r.job != nil && r.st.Phase == phaseBinlog {
		if at, ok := r.job.stopped(); ok && r.st.Pos.compare(at) >= 0 {
			// Another source of the job ended at an ALTER TABLE: this
			// one ends once it is past the statement. A source in its
			// snapshot reads it to the end first (its chunks are read
			// with the columns it started with; Flink CDC's binlog
			// phase, too, starts once all snapshot chunks are read).
			return nil, r.ended(ctx)
		}
	}
	if r.finished() {
		return nil, io.EOF
	}
	if r.st.Phase == phaseSnapshot {
		rows, err := r.nextChunk(ctx)
		if err != nil {
			return nil, err
		}
		if r.st.Phase == phaseBinlog && !r.finished() {
			if err := r.openBinlog(ctx); err != nil {
				return nil, err
			}
		}
		return rows, nil
	}
	if r.stream == nil {
		return nil, r.reconnect(ctx)
	}
	return r.nextBinlog(ctx)
}

// finished reports whether a snapshot-only read ('scan.startup.mode' =
// 'snapshot') has read the binlog up to its stop: the input ends.
func (r *Reader) finished() bool {
	return r.st.Stop != nil && r.st.Phase == phaseBinlog && r.st.Pos.compare(*r.st.Stop) >= 0
}

// nextChunk reads the next chunk: its bounds, the low watermark, the
// SELECT, the high watermark, and the binlog between the two merged in.
func (r *Reader) nextChunk(ctx context.Context) ([]sql.Row, error) {
	t, lo := r.pending()
	if t == nil {
		// Every chunk is read: the binlog starts at the smallest high
		// watermark.
		r.st.Phase = phaseBinlog
		r.st.Pos = r.st.Chunks[0].High
		for _, c := range r.st.Chunks {
			if c.High.compare(r.st.Pos) < 0 {
				r.st.Pos = c.High
			}
		}
		r.st.Skip = 0
		if r.cfg.mode == ModeSnapshot {
			stop := r.maxHigh
			r.st.Stop = &stop
		}
		return nil, nil
	}
	c := chunk{Table: t.String(), Lo: lo}
	if t.chunkable {
		hi, err := r.chunkEnd(ctx, t, lo)
		if err != nil {
			return nil, err
		}
		c.Hi = hi
	}
	low, err := r.masterPosition(ctx)
	if err != nil {
		return nil, err
	}
	if lo == nil && r.cfg.syncAction && !t.restored {
		if err := r.checkColumnsUnchanged(ctx, t, low); err != nil {
			return nil, err
		}
		if r.schemaChange != nil {
			return nil, nil // Next ends the input
		}
	}
	rows, order, err := r.selectChunk(ctx, t, &c)
	if err != nil {
		return nil, err
	}
	if afterSelect != nil {
		afterSelect()
	}
	high, err := r.masterPosition(ctx)
	if err != nil {
		return nil, err
	}
	if low.compare(high) != 0 {
		if order, err = r.backfill(ctx, t, &c, low, high, rows, order); err != nil {
			return nil, err
		}
	}
	c.High = high
	out := make([]sql.Row, 0, len(order))
	for _, k := range order {
		mr, ok := rows[k]
		if !ok {
			continue
		}
		vals, err := t.row(mr, r.types)
		if err != nil {
			return nil, err
		}
		out = append(out, sql.Row{Kind: sql.Insert, Values: r.withMeta(vals, t, sql.Insert, 0)})
	}
	r.st.Chunks = append(r.st.Chunks, c)
	r.noteMaxHigh()
	return out, nil
}

// checkColumnsUnchanged runs before a table's first snapshot chunk of a
// sync action: an ALTER TABLE between the action's reading of the table's
// columns (OptSyncColumns; else the source's, at Open) and this chunk's
// low watermark lies before any binlog position the source reads, so the
// source would never see it. With a
// column count that changed the job would fail on the first binlog row;
// with the same count (a widened type) the change would silently not be
// followed. When the source has read no chunk yet, it ends the input at
// the low watermark as at an ALTER TABLE it read (endAt), before reading
// any row: the action evolves the Paimon table to the new columns and the
// resumed source reads the table with them, as Flink CDC reads a snapshot
// with the table's current schema. A source that has read chunks of
// another table refuses it, naming the table: those chunks' binlog would
// be read with the columns of when the job resumes, and a new run reads
// the new columns. (Columns restored from a checkpoint are not checked:
// the binlog then starts at or before the checkpoint and reads any later
// ALTER.)
func (r *Reader) checkColumnsUnchanged(ctx context.Context, t *table, low position) error {
	now := &table{db: t.db, name: t.name, zone: t.zone}
	if err := now.load(ctx, r.db, r.cfg); err != nil {
		return err
	}
	list := func(cs []mysqlColumn) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.name + " " + c.columnType
		}
		return out
	}
	// The columns the action read (OptSyncColumns), which the Paimon
	// table has, else the ones this source read.
	was, ok := r.cfg.syncColumns[t.String()]
	if !ok {
		was = list(t.cols)
	}
	if slices.EqualFunc(was, list(now.cols), strings.EqualFold) {
		return nil
	}
	describe := func(cs []string) string { return strings.Join(cs, ", ") }
	if len(r.st.Chunks) == 0 {
		if r.cfg.mode != ModeSnapshot {
			if err := r.endAt(&schemaChange{Table: t.String(), At: low,
				DDL: fmt.Sprintf("columns changed before the first snapshot chunk: %s, now %s", describe(was), describe(list(now.cols)))}); err != nil {
				return err
			}
		}
		if r.schemaChange != nil {
			return nil
		}
	}
	return sql.Errorf(sql.TableException,
		"mysql-cdc: table %s changed between reading its columns (%s) and its first snapshot chunk (now %s): the ALTER TABLE lies before the binlog position the snapshot starts from and would not be followed; run the action again (it reads the new columns)",
		t, describe(was), describe(list(now.cols)))
}

// pending names the next chunk to read: its table and lower bound, or a
// nil table when the snapshot is complete.
func (r *Reader) pending() (*table, *string) {
	last := map[string]*chunk{}
	for i := range r.st.Chunks {
		last[r.st.Chunks[i].Table] = &r.st.Chunks[i]
	}
	for _, t := range r.tables {
		c, ok := last[t.String()]
		if !ok {
			return t, nil
		}
		if c.Hi != nil && t.chunkable {
			return t, c.Hi
		}
	}
	return nil, nil
}

// chunkEnd is ChunkSplitter's queryNextChunkMax: the largest chunk key of
// the next chunk-size rows after lo, or nil when none follow (the last
// chunk is unbounded above).
func (r *Reader) chunkEnd(ctx context.Context, t *table, lo *string) (*string, error) {
	k := quoteIdent(t.cols[t.chunkKey].name)
	q := fmt.Sprintf("SELECT MAX(%s) FROM (SELECT %s FROM %s", k, k, t.quoted())
	var args []any
	if lo != nil {
		q += " WHERE " + k + " > ?"
		args = append(args, *lo)
	}
	q += fmt.Sprintf(" ORDER BY %s LIMIT %d) AS T", k, r.cfg.chunkSize)
	var hi gosql.NullString
	if err := r.db.QueryRowContext(ctx, q, args...).Scan(&hi); err != nil {
		return nil, sql.Errorf(sql.IOException, "mysql-cdc: split %s into chunks: %w", t, err)
	}
	if !hi.Valid {
		return nil, nil
	}
	return &hi.String, nil
}

// selectChunk reads a chunk's rows by primary key.
func (r *Reader) selectChunk(ctx context.Context, t *table, c *chunk) (map[string][]cell, []string, error) {
	names := make([]string, len(t.cols))
	for i, col := range t.cols {
		names[i] = quoteIdent(col.name)
	}
	q := "SELECT " + strings.Join(names, ", ") + " FROM " + t.quoted()
	k := quoteIdent(t.cols[t.chunkKey].name)
	var conds []string
	var args []any
	if c.Lo != nil {
		conds, args = append(conds, k+" > ?"), append(args, *c.Lo)
	}
	if c.Hi != nil {
		conds, args = append(conds, k+" <= ?"), append(args, *c.Hi)
	}
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	rows, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, sql.Errorf(sql.IOException, "mysql-cdc: snapshot of %s: %w", t, err)
	}
	defer rows.Close()
	out := map[string][]cell{}
	var order []string
	raw := make([]any, len(t.cols))
	dest := make([]any, len(t.cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, sql.Errorf(sql.IOException, "mysql-cdc: snapshot of %s: %w", t, err)
		}
		mr := make([]cell, len(raw))
		for i, v := range raw {
			switch x := v.(type) {
			case nil:
				mr[i] = cell{null: true}
			case []byte:
				mr[i] = cell{b: append([]byte(nil), x...)}
			default:
				mr[i] = cell{b: []byte(fmt.Sprint(x))}
			}
		}
		key := t.keyOf(mr)
		if _, dup := out[key]; !dup {
			order = append(order, key)
		}
		out[key] = mr
	}
	if err := rows.Err(); err != nil {
		return nil, nil, sql.Errorf(sql.IOException, "mysql-cdc: snapshot of %s: %w", t, err)
	}
	return out, order, nil
}

// backfill merges the binlog between a chunk's low and high watermarks
// into its rows: changes of rows in the chunk's key range are applied by
// primary key (MySqlSnapshotSplitReadTask's backfill and
// SnapshotSplitReader's normalization), so the chunk is the table's
// content at the high watermark.
func (r *Reader) backfill(ctx context.Context, t *table, c *chunk, low, high position, rows map[string][]cell, order []string) ([]string, error) {
	s, err := openStream(ctx, r.cfg, low)
	if err != nil {
		return nil, err
	}
	defer s.close()
	tmaps := map[uint64]*vtmysql.TableMap{}
	apply := func(img []cell, del bool) {
		if img == nil || !c.contains(t, img[t.chunkKey].b) {
			return
		}
		k := t.keyOf(img)
		if del {
			delete(rows, k)
			return
		}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = img
	}
	timer := time.NewTimer(r.cfg.connectTimeout)
	defer timer.Stop()
	for {
		var e event
		var ok bool
		select {
		case e, ok = <-s.events:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, fmt.Errorf("mysql-cdc: the binlog of %s:%d did not reach the high watermark %s of a chunk of %s within %s",
				r.cfg.host, r.cfg.port, high, t, r.cfg.connectTimeout)
		}
		if !ok {
			return nil, s.err
		}
		if e.end.compare(high) > 0 {
			return order, nil
		}
		switch {
		case e.ev.IsTableMap():
			tm, err := e.ev.TableMap(e.format)
			if err != nil {
				return nil, fmt.Errorf("mysql-cdc: table map at %s: %w", e.start, err)
			}
			tmaps[e.ev.TableID(e.format)] = tm
		case e.ev.IsWriteRows(), e.ev.IsUpdateRows(), e.ev.IsDeleteRows():
			tm := tmaps[e.ev.TableID(e.format)]
			if tm == nil || tm.Database+"."+tm.Name != t.String() {
				break
			}
			changes, err := decodeRows(e, tm, t)
			if err != nil {
				return nil, err
			}
			for _, ch := range changes {
				if ch.before != nil && (ch.after == nil || t.keyOf(ch.before) != t.keyOf(ch.after)) {
					apply(ch.before, true)
				}
				apply(ch.after, false)
			}
		}
		if e.end.compare(high) >= 0 {
			return order, nil
		}
	}
}

// nextBinlog handles the events the binlog has now, up to a batch.
func (r *Reader) nextBinlog(ctx context.Context) ([]sql.Row, error) {
	var out []sql.Row
	timer := time.NewTimer(50 * time.Millisecond)
	defer timer.Stop()
	for len(out) < r.batchLimit {
		var e event
		var ok bool
		if len(out) == 0 {
			select {
			case e, ok = <-r.stream.events:
			case <-timer.C:
				return nil, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		} else {
			select {
			case e, ok = <-r.stream.events:
			default:
				return out, nil
			}
		}
		if !ok {
			return out, r.streamFailed(ctx)
		}
		r.failures = 0
		var err error
		if out, err = r.handle(e, out); err != nil {
			return nil, err
		}
		if r.schemaChange != nil {
			return out, nil
		}
		if r.st.Stop != nil && !r.inTx && e.end.compare(*r.st.Stop) >= 0 {
			// A snapshot-only read is at its stop: past the last
			// transaction before it (the events after a binlog rotation
			// move no transaction's end, so the stop is compared with
			// the event's).
			r.commit(e.end)
			r.stream.close()
			r.stream = nil
			return out, nil
		}
	}
	return out, nil
}

// streamFailed handles the end of the binlog stream. The rows handled so
// far are emitted and the state names where to resume, so a lost
// connection is re-opened there (connect.max-retries times, one second
// more apart each time); a position the server no longer has fails the
// job at once.
func (r *Reader) streamFailed(ctx context.Context) error {
	err := r.stream.err
	r.stream.close()
	r.stream = nil
	if errors.Is(err, errStreamClosed) {
		return ctx.Err()
	}
	var se *sqlerror.SQLError
	if errors.As(err, &se) && se.Num == sqlerror.ERMasterFatalReadingBinlog {
		return sql.Errorf(sql.IOException,
			"mysql-cdc: table %s reads the binlog from %s, which is no longer available on %s:%d (%s). The binlog was purged before the job read it: start the job anew without --resume for a new snapshot, and keep binlogs longer (binlog_expire_logs_seconds) than the job may be down.",
			r.cfg.ident, r.st.Pos, r.cfg.host, r.cfg.port, se.Message)
	}
	return r.retry(err)
}

// retry schedules a reconnect, or fails when the retries are used up.
func (r *Reader) retry(err error) error {
	r.failures++
	if r.failures > r.cfg.maxRetries {
		return sql.Errorf(sql.IOException, "%w (table %s, after %d retries; it resumes at %s from its last checkpoint)",
			err, r.cfg.ident, r.cfg.maxRetries, r.st.Pos)
	}
	r.retryAt = time.Now().Add(time.Duration(r.failures) * time.Second)
	return nil
}

// reconnect re-opens the binlog at the state's position once retryAt has
// come.
func (r *Reader) reconnect(ctx context.Context) error {
	if wait := time.Until(r.retryAt); wait > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(wait, 50*time.Millisecond)):
			return nil
		}
	}
	if err := r.openBinlog(ctx); err != nil {
		return r.retry(err)
	}
	return nil
}

// handle applies one binlog event of the binlog phase.
func (r *Reader) handle(e event, out []sql.Row) ([]sql.Row, error) {
	ev := e.ev
	switch {
	case ev.IsGTID():
		g, begin, _, _, err := ev.GTID(e.format)
		if err == nil {
			r.gtid = g.String()
			r.skipTx = r.skipped(g)
		}
		r.inTx = begin
	case ev.IsXID():
		r.commit(e.end)
	case ev.IsQuery():
		q, err := ev.Query(e.format)
		if err != nil {
			return nil, fmt.Errorf("mysql-cdc: query event at %s: %w", e.start, err)
		}
		stmt := strings.ToUpper(strings.TrimSpace(q.SQL))
		switch {
		case stmt == "BEGIN":
			r.inTx = true
		case stmt == "COMMIT":
			r.commit(e.end)
		case !r.inTx:
			if !r.before(e) && !r.skipTx {
				if err := r.checkDDL(q, e); err != nil {
					return nil, err
				}
			}
			r.commit(e.end)
		}
	case ev.IsTableMap():
		tm, err := ev.TableMap(e.format)
		if err != nil {
			return nil, fmt.Errorf("mysql-cdc: table map at %s: %w", e.start, err)
		}
		r.tmaps[ev.TableID(e.format)] = tm
	case ev.IsWriteRows(), ev.IsUpdateRows(), ev.IsDeleteRows():
		tm := r.tmaps[ev.TableID(e.format)]
		if tm == nil || r.before(e) || r.skipTx {
			break
		}
		t := r.byName[tm.Database+"."+tm.Name]
		if t == nil {
			break
		}
		changes, err := decodeRows(e, tm, t)
		if err != nil {
			return nil, err
		}
		ts := int64(ev.Timestamp()) * 1000
		for _, ch := range changes {
			r.rowIdx++
			if r.rowIdx <= r.st.Skip {
				continue // emitted before the checkpoint this job resumed from
			}
			r.st.Skip = r.rowIdx
			if out, err = r.emit(out, t, ch, e.start, ts); err != nil {
				return nil, err
			}
		}
	case ev.IsPartialUpdateRows():
		return nil, fmt.Errorf("mysql-cdc: the binlog at %s has a partial JSON update: mysql-cdc needs binlog_row_value_options=''", e.start)
	}
	return out, nil
}

// before reports whether a binlog event lies before the timestamp startup's
// second (state.Since): its rows are dropped, and a DDL in it does not
// matter, as Flink CDC drops such events. The events that only move the
// position (transactions' begin and end, table maps) are read as usual.
func (r *Reader) before(e event) bool {
	return r.st.Since > 0 && int64(e.ev.Timestamp()) < r.st.Since
}

// skipped reports whether the transaction a GTID event begins is at or
// before the GTID position a 'specific-offset' start gave for its domain
// (state.After). A domain's first later transaction ends the skipping for
// it: MariaDB's sequence numbers grow within a domain's binlog.
func (r *Reader) skipped(g vtrepl.GTID) bool {
	mg, ok := g.(vtrepl.MariadbGTID)
	if !ok || len(r.st.After) == 0 {
		return false
	}
	seq, ok := r.st.After[mg.Domain]
	switch {
	case !ok:
		return false
	case mg.Sequence <= seq:
		return true
	}
	delete(r.st.After, mg.Domain)
	if len(r.st.After) == 0 {
		r.st.After = nil
	}
	return false
}

// commit ends a transaction: the state moves past it.
func (r *Reader) commit(end position) {
	end.GTID = r.gtid
	r.st.Pos, r.st.Skip, r.rowIdx, r.inTx, r.skipTx = end, 0, 0, false, false
	if len(r.st.Chunks) > 0 && end.compare(r.maxHigh) >= 0 {
		r.st.Chunks = nil // past every chunk's high watermark
	}
}

// emit turns one row change into changelog rows, unless a snapshot chunk
// whose high watermark is later already holds it.
func (r *Reader) emit(out []sql.Row, t *table, ch rowChange, at position, ts int64) ([]sql.Row, error) {
	covered := func(img []cell) bool {
		for i := range r.st.Chunks {
			c := &r.st.Chunks[i]
			if c.Table == t.String() && c.contains(t, img[t.chunkKey].b) {
				return at.compare(c.High) < 0
			}
		}
		return false
	}
	add := func(kind sql.RowKind, img []cell) error {
		if covered(img) {
			return nil
		}
		vals, err := t.row(img, r.types)
		if err != nil {
			return err
		}
		out = append(out, sql.Row{Kind: kind, Values: r.withMeta(vals, t, kind, ts)})
		return nil
	}
	var err error
	switch {
	case ch.before == nil:
		err = add(sql.Insert, ch.after)
	case ch.after == nil:
		err = add(sql.Delete, ch.before)
	case t.keyOf(ch.before) != t.keyOf(ch.after):
		// Debezium emits a primary-key change as a delete and a create.
		if err = add(sql.Delete, ch.before); err == nil {
			err = add(sql.Insert, ch.after)
		}
	case r.cfg.syncAction:
		// Paimon's MySqlRecordParser: an update is a delete of the
		// before image and an insert of the after image.
		if covered(ch.after) {
			return out, nil
		}
		if err = add(sql.Delete, ch.before); err == nil {
			err = add(sql.Insert, ch.after)
		}
	default:
		if covered(ch.after) {
			return out, nil
		}
		if err = add(sql.UpdateBefore, ch.before); err == nil {
			err = add(sql.UpdateAfter, ch.after)
		}
	}
	return out, err
}

// checkDDL handles a statement that changes a captured table: its rows
// would no longer decode as the job's schema, and TRUNCATE has no row
// events at all, so the job fails naming the statement. The table the
// statement is about is read from the statement itself (parseDDL), so a
// DDL on another table whose name merely contains a captured table's
// does not matter. For Paimon's CDC action (OptSyncAction) an ALTER TABLE
// of a captured table ends the input instead, past the statement, and
// the action evolves the Paimon table and resumes.
func (r *Reader) checkDDL(q vtmysql.Query, e event) error {
	d := parseDDL(q.SQL)
	if d.kind == ddlNone {
		return nil
	}
	if d.kind == ddlAlter && r.cfg.syncAction {
		// The rows after the statement are read with the columns it
		// leaves.
		for _, t := range r.tables {
			if !d.names(q.Database, t) {
				continue
			}
			cols, err := alterColumns(q.SQL, t.cols)
			if err == nil {
				t.cols = cols
				err = t.bind(r.cfg)
			}
			if err != nil {
				return sql.Errorf(sql.IOException, "mysql-cdc: table %s changed at binlog position %s (%s), and sqlrun cannot follow the statement: %v",
					t, e.start, firstLine(q.SQL), err)
			}
		}
		// The other tables of `sqlrun action mysql-sync-database`'s job:
		// every source ends past the same statement, but for one the job
		// already ended at.
		for _, n := range r.cfg.syncTables {
			t := &table{db: n[0], name: n[1]}
			if !d.names(q.Database, t) {
				continue
			}
			return r.endAt(&schemaChange{Table: t.String(), At: e.start, DDL: firstLine(q.SQL)})
		}
	}
	if r.cfg.syncAction && r.cfg.newTables != nil {
		if n, ok := r.newTable(d, q.Database); ok {
			return r.endAt(&schemaChange{Table: n, At: e.start, DDL: firstLine(q.SQL)})
		}
	}
	if d.kind == ddlCreate {
		// CREATE TABLE IF NOT EXISTS of a captured table changes nothing.
		return nil
	}
	for _, t := range r.tables {
		if !d.names(q.Database, t) {
			continue
		}
		if d.kind == ddlAlter && r.cfg.syncAction {
			return r.endAt(&schemaChange{Table: t.String(), At: e.start, DDL: firstLine(q.SQL)})
		}
		return sql.Errorf(sql.IOException,
			"mysql-cdc: table %s changed at binlog position %s (%s): schema changes of captured tables are not supported yet; re-create the job with a new snapshot",
			t, e.start, firstLine(q.SQL))
	}
	return nil
}

// newTable returns the table a CREATE TABLE, CREATE OR REPLACE TABLE or
// RENAME TABLE makes that `sqlrun action mysql-sync-database --mode
// combined` synchronizes from now on (OptSyncNewTables, in a database
// of OptSyncNewTablesDatabases, not OptSyncNewTablesExcluded) and the job
// does not have yet (OptSyncTables). Paimon's combined mode reads the binlog
// of every table its source's table list matches
// (CdcActionCommonUtils.combinedModeTableList) and creates a Paimon table
// for a new one at its CREATE TABLE (RichCdcMultiplexRecordEventParser
// with NewTableSchemaBuilder); here the job ends its input there, and the
// action prepares it anew with the table and a source of its own.
//
// The new table's rows: Flink CDC's binlog reader reads a table created
// while it runs from the binlog, from its CREATE TABLE on
// (BinlogSplitReader.hasEnterPureBinlogPhase, 'scan.newly-added-table.enabled'
// false, Paimon's default); the new source reads a snapshot of the table
// when the job resumes, then the binlog from there (its incremental
// snapshot). For a table created and then written, the two are the same
// rows (every row the table has came through the binlog after its
// CREATE); the changes between the CREATE and the resume arrive as the
// snapshot's rows rather than one by one, and a table renamed into place
// brings the rows it had.
func (r *Reader) newTable(d ddl, curDB string) (string, bool) {
	switch d.kind {
	case ddlCreate, ddlReplace, ddlRename:
	default:
		return "", false
	}
	for _, n := range d.tables {
		t := &table{db: n[0], name: n[1]}
		if t.db == "" {
			t.db = curDB
		}
		name := t.db + "." + t.name
		if !r.cfg.newTables.MatchString(name) || r.cfg.newExcluded != nil && r.cfg.newExcluded.MatchString(name) ||
			r.cfg.newDatabases != nil && !r.cfg.newDatabases.MatchString(t.db) {
			continue
		}
		// Exact names: on a server with case-sensitive names another
		// case is another table (with lower_case_table_names, a name in
		// another case only stops the job for nothing).
		known := slices.Contains(r.cfg.syncTables, [2]string{t.db, t.name})
		if !known && r.hasPrimaryKey(t) {
			return name, true
		}
	}
	return "", false
}

// hasPrimaryKey reports whether a new table has a primary key now: the
// action does not synchronize a table without one (Paimon's
// NewTableSchemaBuilder skips it, logNonPkTables), so its CREATE TABLE
// does not end the input. A table gone by now has none either; when
// information_schema cannot say, the input ends and the action decides.
func (r *Reader) hasPrimaryKey(t *table) bool {
	if r.db == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.connectTimeout)
	defer cancel()
	var n int
	err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY'`, t.db, t.name).Scan(&n)
	return err != nil || n > 0
}

// endAt ends the input at an ALTER TABLE, and the job's other sources
// with it, unless the action has evolved the Paimon tables since. A
// snapshot-only read ('scan.startup.mode' = 'snapshot') fails instead:
// its job ends when the read does, so the action would not resume it
// with the new columns (Paimon's action evolves the table in place).
func (r *Reader) endAt(sc *schemaChange) error {
	if r.st.Handled != nil && sc.At.compare(*r.st.Handled) <= 0 {
		return nil
	}
	if r.cfg.mode == ModeSnapshot {
		return sql.Errorf(sql.TableException,
			"mysql-cdc: table %s changed at binlog position %s (%s) within the binlog a snapshot-only read ('%s' = '%s') reads up to %s: sqlrun's action follows a schema change by resuming its job, and this job ends with the read; run the action again (it reads the new columns)",
			sc.Table, sc.At, sc.DDL, OptStartupMode, ModeSnapshot, r.stopText())
	}
	r.schemaChange = sc
	if r.job != nil {
		r.job.raise(sc.At)
	}
	return nil
}

// stopText names where a snapshot-only read stops: its stop, or the end
// of the snapshot's chunks while they are read.
func (r *Reader) stopText() string {
	if r.st.Stop != nil {
		return r.st.Stop.String()
	}
	return "the end of its snapshot"
}

// ended notes the end of the binlog as the input ends for a schema
// change: the action prepares the job anew from the MySQL tables as they
// are from now on.
func (r *Reader) ended(ctx context.Context) error {
	p, err := r.masterPosition(ctx)
	if err != nil {
		p = r.st.Pos
	}
	if r.st.Handled == nil || p.compare(*r.st.Handled) > 0 {
		r.st.Handled = &p
	}
	return io.EOF
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// withMeta appends the metadata columns the query reads.
func (r *Reader) withMeta(vals []any, t *table, kind sql.RowKind, ts int64) []any {
	for _, k := range r.meta {
		switch k {
		case "table_name":
			vals = append(vals, t.name)
		case "database_name":
			vals = append(vals, t.db)
		case "op_ts":
			vals = append(vals, sql.TimestampData{Millis: ts})
		case "row_kind":
			vals = append(vals, kind.String())
		}
	}
	return vals
}

// Snapshot returns the position as of the rows returned so far.
func (r *Reader) Snapshot(int64) ([]byte, error) {
	if !r.active {
		return nil, nil
	}
	if r.cfg.syncAction && r.st.Phase == phaseBinlog {
		r.st.Schemas = map[string][]savedColumn{}
		for _, t := range r.tables {
			r.st.Schemas[t.String()] = saveColumns(t.cols)
		}
	}
	return json.Marshal(r.st)
}

// NotifyCheckpointComplete does nothing: the position lives in the
// checkpoint.
func (r *Reader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

// Close stops the binlog stream and the connection pool.
func (r *Reader) Close() error {
	if r.job != nil {
		r.job.leave(r.cfg)
		r.job = nil
	}
	if r.stream != nil {
		r.stream.close()
	}
	if r.db != nil {
		return r.db.Close()
	}
	return nil
}
