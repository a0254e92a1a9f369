package mysqlcdc

import (
	"context"
	gosql "database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// mariaGTID is a MariaDB GTID: domain, server and sequence number
// (domain-server-seq, as @@gtid_binlog_pos shows it).
type mariaGTID struct {
	domain, server, seq uint64
}

func (g mariaGTID) String() string { return fmt.Sprintf("%d-%d-%d", g.domain, g.server, g.seq) }

var mariaGTIDRe = regexp.MustCompile(`^(\d+)-(\d+)-(\d+)$`)

// parseMariaGTIDs reads a MariaDB GTID position: GTIDs separated by
// commas, one per replication domain. ok is false when s is not one.
func parseMariaGTIDs(s string) ([]mariaGTID, bool) {
	var out []mariaGTID
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, true
	}
	for _, f := range strings.Split(s, ",") {
		m := mariaGTIDRe.FindStringSubmatch(strings.TrimSpace(f))
		if m == nil {
			return nil, false
		}
		var g mariaGTID
		g.domain, _ = strconv.ParseUint(m[1], 10, 32)
		g.server, _ = strconv.ParseUint(m[2], 10, 32)
		g.seq, _ = strconv.ParseUint(m[3], 10, 64)
		for _, o := range out {
			if o.domain == g.domain {
				return nil, false
			}
		}
		out = append(out, g)
	}
	return out, true
}

// seqOf is the sequence number of domain d in a GTID position (0: none).
func seqOf(gs []mariaGTID, d uint64) uint64 {
	for _, g := range gs {
		if g.domain == d {
			return g.seq
		}
	}
	return 0
}

// checkGTIDOption validates 'scan.startup.specific-offset.gtid-set': sqlrun
// reads a MariaDB GTID position, one GTID per replication domain (as
// @@gtid_binlog_pos shows it). A MySQL GTID set (source_uuid:interval) is
// refused by name.
func checkGTIDOption(v string) ([]mariaGTID, error) {
	gs, ok := parseMariaGTIDs(v)
	switch {
	case !ok && strings.Contains(v, ":"):
		return nil, sql.Errorf(sql.ValidationException,
			"'%s' = '%s' is a MySQL GTID set, which sqlrun does not support yet; sqlrun reads a MariaDB GTID position (domain-server-sequence, as @@gtid_binlog_pos shows it), or give '%s' and '%s'.",
			OptOffsetGTID, v, OptOffsetFile, OptOffsetPos)
	case !ok || len(gs) == 0:
		return nil, sql.Errorf(sql.ValidationException,
			"The value of option '%s' is invalid: '%s' (a MariaDB GTID position is domain-server-sequence, one per replication domain separated by commas, e.g. '0-1-42' or '0-1-42,1-2-7').", OptOffsetGTID, v)
	}
	return gs, nil
}

// gtidStart is where a 'specific-offset' start by a MariaDB GTID position
// of one or more replication domains reads the binlog from, and what it
// skips there: the earliest of the domains' starts (gtidPosition), and
// for each domain its sequence number, so that a transaction of a domain
// at or before its GTID, met between the start and that domain's own
// start, is skipped, as a MariaDB replica connecting with that position
// (@slave_connect_state) skips it. A domain the position does not name
// is read from the start.
func gtidStart(ctx context.Context, r *Reader, gs []mariaGTID) (position, map[uint32]uint64, error) {
	var start position
	skip := map[uint32]uint64{}
	for i, g := range gs {
		p, err := gtidPosition(ctx, r, g)
		if err != nil {
			return position{}, nil, err
		}
		if i == 0 || p.compare(start) < 0 {
			start = p
		}
		skip[uint32(g.domain)] = g.seq
	}
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.String()
	}
	start.GTID = strings.Join(names, ",")
	return start, skip, nil
}

// gtidPosition is where a 'specific-offset' start by a MariaDB GTID reads
// the binlog from: the first transaction of the GTID's domain after it, as
// a MariaDB replica connecting with that GTID position
// (@slave_connect_state) starts, as a file and position. The position of
// the newest file whose starting GTID list (its Gtid_list event) is not
// past the GTID is searched (SHOW BINLOG EVENTS) for the first GTID event
// of the domain with a larger sequence number, else the next file's. When
// the GTID is the server's last one of the domain, the binlog's end is the
// start.
func gtidPosition(ctx context.Context, r *Reader, g mariaGTID) (position, error) {
	var version string
	if err := r.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return position{}, sql.Errorf(sql.IOException, "mysql-cdc: SELECT VERSION() on %s:%d: %w", r.cfg.host, r.cfg.port, err)
	}
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		return position{}, sql.Errorf(sql.ValidationException,
			"mysql-cdc: '%s' = '%s' is a MariaDB GTID position, but %s:%d is MySQL %s, whose GTID sets sqlrun does not support yet; give '%s' and '%s'.",
			OptOffsetGTID, g, r.cfg.host, r.cfg.port, version, OptOffsetFile, OptOffsetPos)
	}
	// The binlog's end first, then the GTID position it holds: a
	// transaction committed in between makes the position newer, never
	// older, than the end read.
	end, err := r.masterPosition(ctx)
	if err != nil {
		return position{}, err
	}
	var cur gosql.NullString
	if err := r.db.QueryRowContext(ctx, "SELECT @@global.gtid_binlog_pos").Scan(&cur); err != nil {
		return position{}, sql.Errorf(sql.IOException, "mysql-cdc: SELECT @@global.gtid_binlog_pos: %w", err)
	}
	curs, _ := parseMariaGTIDs(cur.String)
	switch last := seqOf(curs, g.domain); {
	case g.seq > last:
		return position{}, sql.Errorf(sql.IOException,
			"mysql-cdc: '%s' = '%s' is ahead of the binlog of %s:%d (@@gtid_binlog_pos = '%s'): no transaction of domain %d has sequence number %d yet",
			OptOffsetGTID, g, r.cfg.host, r.cfg.port, cur.String, g.domain, g.seq)
	case g.seq == last:
		end.GTID = g.String()
		return end, nil
	}
	files, err := binlogFiles(ctx, r.db)
	if err != nil {
		return position{}, err
	}
	from := -1
	for i := len(files) - 1; i >= 0; i-- {
		list, err := fileGTIDList(ctx, r.db, files[i])
		if err != nil {
			return position{}, err
		}
		if seqOf(list, g.domain) <= g.seq {
			from = i
			break
		}
	}
	if from < 0 {
		return position{}, sql.Errorf(sql.IOException,
			"mysql-cdc: '%s' = '%s': the binlog of %s:%d after that GTID was purged (its oldest file, %s, starts past it). Start the job without a GTID for a new snapshot, and keep binlogs longer (binlog_expire_logs_seconds).",
			OptOffsetGTID, g, r.cfg.host, r.cfg.port, files[0])
	}
	for _, f := range files[from:] {
		p, ok, err := firstGTIDAfter(ctx, r.db, f, g)
		if err != nil {
			return position{}, err
		}
		if ok {
			p.GTID = g.String()
			return p, nil
		}
	}
	// Only other domains' transactions since: the end read first.
	end.GTID = g.String()
	return end, nil
}

// binlogFiles are SHOW BINARY LOGS' file names, oldest first.
func binlogFiles(ctx context.Context, db *gosql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return nil, sql.Errorf(sql.IOException, "mysql-cdc: SHOW BINARY LOGS: %w", err)
	}
	defer rows.Close()
	var files []string
	for rows.Next() {
		cols, _ := rows.Columns()
		var name string
		dest := []any{&name}
		for len(dest) < len(cols) {
			dest = append(dest, new(any))
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("mysql-cdc: SHOW BINARY LOGS: %w", err)
		}
		files = append(files, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mysql-cdc: SHOW BINARY LOGS: %w", err)
	}
	if len(files) == 0 {
		return nil, sql.Errorf(sql.IOException, "mysql-cdc: no binary log files (SHOW BINARY LOGS is empty)")
	}
	return files, nil
}

// binlogEvent is one row of SHOW BINLOG EVENTS.
type binlogEvent struct {
	pos        uint64
	kind, info string
}

// scanEvents calls fn for the events of a binlog file until it returns
// false.
func scanEvents(ctx context.Context, db *gosql.DB, file string, limit int, fn func(binlogEvent) bool) error {
	q := "SHOW BINLOG EVENTS IN '" + strings.ReplaceAll(file, "'", "''") + "'"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return sql.Errorf(sql.IOException, "mysql-cdc: SHOW BINLOG EVENTS IN '%s': %w", file, err)
	}
	defer rows.Close()
	for rows.Next() {
		// Log_name, Pos, Event_type, Server_id, End_log_pos, Info
		var name, kind string
		var info gosql.NullString
		var pos, server, end uint64
		if err := rows.Scan(&name, &pos, &kind, &server, &end, &info); err != nil {
			return fmt.Errorf("mysql-cdc: SHOW BINLOG EVENTS IN '%s': %w", file, err)
		}
		if !fn(binlogEvent{pos: pos, kind: kind, info: info.String}) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql-cdc: SHOW BINLOG EVENTS IN '%s': %w", file, err)
	}
	return nil
}

// fileGTIDList is the GTID position a binlog file starts at: its
// Gtid_list event ("[0-1-9,1-2-3]").
func fileGTIDList(ctx context.Context, db *gosql.DB, file string) ([]mariaGTID, error) {
	var list []mariaGTID
	err := scanEvents(ctx, db, file, 4, func(e binlogEvent) bool {
		if e.kind != "Gtid_list" {
			return true
		}
		list, _ = parseMariaGTIDs(strings.Trim(e.info, "[] "))
		return false
	})
	return list, err
}

// firstGTIDAfter finds, in a binlog file, the first GTID event ("BEGIN
// GTID 0-1-10", "GTID 0-1-11 cid=...") of g's domain with a larger
// sequence number.
func firstGTIDAfter(ctx context.Context, db *gosql.DB, file string, g mariaGTID) (position, bool, error) {
	var p position
	found := false
	err := scanEvents(ctx, db, file, 0, func(e binlogEvent) bool {
		if e.kind != "Gtid" {
			return true
		}
		for _, f := range strings.Fields(e.info) {
			if gs, ok := parseMariaGTIDs(f); ok && len(gs) == 1 {
				if gs[0].domain == g.domain && gs[0].seq > g.seq {
					p, found = position{File: file, Pos: e.pos}, true
					return false
				}
				break
			}
		}
		return true
	})
	return p, found, err
}
