package mysqlcdc

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/binlog"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// position is a place in the binary log: a file and a byte offset, and the
// MariaDB GTID of the last transaction before it (informational: sqlrun
// resumes by file and position).
type position struct {
	File string `json:"file"`
	Pos  uint64 `json:"pos"`
	GTID string `json:"gtid,omitempty"`
}

func (p position) String() string {
	if p.GTID != "" {
		return fmt.Sprintf("%s:%d (GTID %s)", p.File, p.Pos, p.GTID)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Pos)
}

// fileSeq is the number suffix of a binlog file name (binlog.000042).
func fileSeq(f string) (uint64, bool) {
	i := strings.LastIndexByte(f, '.')
	n, err := strconv.ParseUint(f[i+1:], 10, 64)
	return n, err == nil
}

// compare orders positions: by file sequence number, then offset.
func (p position) compare(q position) int {
	if p.File != q.File {
		a, ok1 := fileSeq(p.File)
		b, ok2 := fileSeq(q.File)
		switch {
		case ok1 && ok2 && a < b, (!ok1 || !ok2) && p.File < q.File:
			return -1
		default:
			return 1
		}
	}
	switch {
	case p.Pos < q.Pos:
		return -1
	case p.Pos > q.Pos:
		return 1
	}
	return 0
}

// event is one binlog event with the positions it spans.
type event struct {
	ev         mysql.BinlogEvent
	format     mysql.BinlogFormat
	start, end position
}

// stream is a replication connection reading the binlog from a position.
// A goroutine reads events into a channel so the reader can poll it.
type stream struct {
	conn   *mysql.Conn
	events chan event
	err    error // set before events is closed
	once   sync.Once
	done   chan struct{}
	// closeFn, for a subscriber of a shared binlog (subscribe), leaves
	// the hub instead.
	closeFn func()
}

// openStream connects as a replica with serverID and asks for the binlog
// from pos.
func openStream(ctx context.Context, cfg *config, pos position) (*stream, error) {
	params := &mysql.ConnParams{Host: cfg.host, Port: cfg.port, Uname: cfg.user, Pass: cfg.password,
		ConnectTimeoutMs: uint64(cfg.connectTimeout.Milliseconds())}
	conn, err := mysql.Connect(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("mysql-cdc: connect to %s:%d for the binlog: %w", cfg.host, cfg.port, err)
	}
	setup := []string{"SET @master_binlog_checksum = @@global.binlog_checksum"}
	if conn.IsMariaDB() {
		// MARIA_SLAVE_CAPABILITY_GTID: send GTID events as they are.
		setup = append(setup, "SET @mariadb_slave_capability = 4")
	}
	if cfg.heartbeat > 0 {
		setup = append(setup, fmt.Sprintf("SET @master_heartbeat_period = %d", cfg.heartbeat.Nanoseconds()))
	}
	for _, q := range setup {
		if _, err := conn.ExecuteFetch(q, 0, false); err != nil {
			conn.Close()
			return nil, fmt.Errorf("mysql-cdc: %s: %w", q, err)
		}
	}
	if err := conn.WriteComBinlogDump(cfg.serverID, pos.File, pos.Pos, 0); err != nil {
		conn.Close()
		return nil, fmt.Errorf("mysql-cdc: request the binlog from %s: %w", pos, err)
	}
	s := &stream{conn: conn, events: make(chan event, 256), done: make(chan struct{})}
	go s.run(pos)
	return s, nil
}

func (s *stream) run(pos position) {
	defer close(s.events)
	var format mysql.BinlogFormat
	file := pos.File
	for {
		ev, err := s.conn.ReadBinlogEvent()
		if err != nil {
			select {
			case <-s.done:
				s.err = errStreamClosed
			default:
				s.err = fmt.Errorf("mysql-cdc: read the binlog after %s: %w", position{File: file}, err)
			}
			return
		}
		if !ev.IsValid() {
			s.err = fmt.Errorf("mysql-cdc: invalid binlog event in %s", file)
			return
		}
		if ev.IsFormatDescription() {
			if format, err = ev.Format(); err != nil {
				s.err = fmt.Errorf("mysql-cdc: format description event of %s: %w", file, err)
				return
			}
			continue
		}
		if format.IsZero() {
			// Only the artificial Rotate comes before the format.
			if ev.IsRotate() {
				if f, _, err := ev.NextLogFile(mysql.BinlogFormat{HeaderLength: 19}); err == nil {
					file = f
				}
			}
			continue
		}
		end := ev.NextPosition()
		length := uint64(len(ev.Bytes()))
		stripped, _, err := ev.StripChecksum(format)
		if err != nil {
			s.err = fmt.Errorf("mysql-cdc: binlog event at %s:%d: %w", file, end-length, err)
			return
		}
		if stripped.IsRotate() {
			f, _, err := stripped.NextLogFile(format)
			if err != nil {
				s.err = fmt.Errorf("mysql-cdc: rotate event in %s: %w", file, err)
				return
			}
			file = f
			continue
		}
		if stripped.IsHeartbeat() || end == 0 {
			continue
		}
		e := event{ev: stripped, format: format, start: position{File: file, Pos: end - length}, end: position{File: file, Pos: end}}
		select {
		case s.events <- e:
		case <-s.done:
			s.err = errStreamClosed
			return
		}
	}
}

var errStreamClosed = errors.New("mysql-cdc: binlog stream closed")

// close stops the goroutine and the connection.
func (s *stream) close() {
	if s.closeFn != nil {
		s.once.Do(s.closeFn)
		return
	}
	s.once.Do(func() {
		close(s.done)
		s.conn.Close()
		for range s.events {
		}
	})
}

// rowChange is one row of a rows event, in text form.
type rowChange struct {
	before, after []cell // nil when absent (insert has no before, delete no after)
}

// decodeRows decodes a WRITE/UPDATE/DELETE rows event of a captured table.
func decodeRows(e event, tm *mysql.TableMap, t *table) ([]rowChange, error) {
	rows, err := e.ev.Rows(e.format, tm)
	if err != nil {
		return nil, fmt.Errorf("mysql-cdc: rows event of %s at %s: %w", t, e.start, err)
	}
	if len(tm.Types) != len(t.cols) {
		return nil, fmt.Errorf("mysql-cdc: table %s has %d columns in the binlog at %s but %d in the schema the job read (%s): the table changed in a way the job did not follow",
			t, len(tm.Types), e.start, len(t.cols), t.columnNames())
	}
	out := make([]rowChange, len(rows.Rows))
	for i := range rows.Rows {
		r := &rows.Rows[i]
		if e.ev.IsUpdateRows() || e.ev.IsDeleteRows() {
			if out[i].before, err = decodeImage(r.Identify, rows.IdentifyColumns, r.NullIdentifyColumns, tm, t, e); err != nil {
				return nil, err
			}
		}
		if e.ev.IsUpdateRows() || e.ev.IsWriteRows() {
			if out[i].after, err = decodeImage(r.Data, rows.DataColumns, r.NullColumns, tm, t, e); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

var (
	signed   = &querypb.Field{Type: querypb.Type_INT64}
	unsigned = &querypb.Field{Type: querypb.Type_UINT64}
)

func decodeImage(data []byte, present, nulls mysql.Bitmap, tm *mysql.TableMap, t *table, e event) ([]cell, error) {
	out := make([]cell, len(tm.Types))
	pos, vi := 0, 0
	for c := range tm.Types {
		if !present.Bit(c) {
			return nil, fmt.Errorf("mysql-cdc: the binlog at %s has a partial row image of %s: mysql-cdc needs binlog_row_image=FULL", e.start, t)
		}
		if nulls.Bit(vi) {
			out[c] = cell{null: true}
			vi++
			continue
		}
		vi++
		f := signed
		if t.cols[c].unsigned {
			f = unsigned
		}
		v, l, err := binlog.CellValue(data, pos, tm.Types[c], tm.Metadata[c], f, false)
		if err != nil {
			return nil, fmt.Errorf("mysql-cdc: decode column '%s' of %s at %s: %w", t.cols[c].name, t, e.start, err)
		}
		pos += l
		b := append([]byte(nil), v.Raw()...)
		if t.cols[c].enum != nil {
			b = enumText(&t.cols[c], b)
		}
		out[c] = cell{b: b}
	}
	return out, nil
}

func (t *table) columnNames() string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// seekTimestamp is where 'scan.startup.mode' = 'timestamp' starts: Flink
// CDC's DebeziumUtils.findBinlogOffset. The binlog files from the newest
// to the oldest, the first whose first event (with a timestamp) is older
// than the startup second is read from its start; when none is, the
// oldest file is (BinlogOffset.ofEarliest). The events before the
// startup second are then dropped as they are read (Reader.before).
func seekTimestamp(ctx context.Context, db *gosql.DB, cfg *config) (position, error) {
	files, err := binlogFiles(ctx, db)
	if err != nil {
		return position{}, err
	}
	for i := len(files) - 1; i >= 0; i-- {
		ts, err := firstTimestamp(ctx, cfg, files[i])
		if err != nil {
			return position{}, fmt.Errorf("mysql-cdc: Unable to seek to timestamp %d: %w", cfg.startSec*1000, err)
		}
		if ts < cfg.startSec {
			return position{File: files[i], Pos: 4}, nil
		}
	}
	return position{File: files[0], Pos: 4}, nil
}

// firstTimestamp is the timestamp (seconds) of the first event of a
// binlog file that has one (the format description's: the file's
// creation), read over a replication connection.
func firstTimestamp(ctx context.Context, cfg *config, file string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.connectTimeout+10*time.Second)
	defer cancel()
	params := &mysql.ConnParams{Host: cfg.host, Port: cfg.port, Uname: cfg.user, Pass: cfg.password,
		ConnectTimeoutMs: uint64(cfg.connectTimeout.Milliseconds())}
	conn, err := mysql.Connect(ctx, params)
	if err != nil {
		return 0, fmt.Errorf("connect to %s:%d for the binlog: %w", cfg.host, cfg.port, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, conn.Close)
	defer stop()
	if _, err := conn.ExecuteFetch("SET @master_binlog_checksum = @@global.binlog_checksum", 0, false); err != nil {
		return 0, fmt.Errorf("set the binlog checksum: %w", err)
	}
	if err := conn.WriteComBinlogDump(cfg.serverID, file, 4, 0); err != nil {
		return 0, fmt.Errorf("request the binlog file %s: %w", file, err)
	}
	for {
		ev, err := conn.ReadBinlogEvent()
		if err != nil {
			return 0, fmt.Errorf("read the first event of binlog file %s: %w", file, err)
		}
		if ev.IsValid() && ev.Timestamp() > 0 {
			return int64(ev.Timestamp()), nil
		}
	}
}
