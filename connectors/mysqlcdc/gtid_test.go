package mysqlcdc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// TestStartupGTID is 'scan.startup.mode' = 'specific-offset' by a MariaDB
// GTID position ('scan.startup.specific-offset.gtid-set' = '0-1-42'): the
// binlog is read from the first transaction of the domain after the GTID,
// as a MariaDB replica connecting with that position (@slave_connect_state)
// reads it, in the same binlog file or the next one; the server's last
// GTID starts at the binlog's end. A MySQL GTID set, a domain named twice
// and a GTID the server has not reached are refused by name.
func TestStartupGTID(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	gtid := func() string { return s.Query(t, "SELECT @@global.gtid_binlog_pos")[0][0] }
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (1, 1.00, 'ONE')")
	g1 := gtid()
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (2, 2.00, 'TWO')")
	s.Exec(t, "UPDATE `"+db+"`.orders SET status = 'TWO!' WHERE order_id = 2")
	g2 := gtid() // the last transaction of its binlog file
	s.Exec(t, "FLUSH BINARY LOGS")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (3, 3.00, 'THREE')")
	g3 := gtid()
	read := func(g string, n int) *run {
		t.Helper()
		u := start(t, newSource(t, s, db, "orders", ordersSchema(), map[string]string{
			"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.gtid-set": g}), nil)
		u.until("the changes after "+g, func() bool { return len(u.log) >= n })
		return u
	}
	for _, c := range []struct {
		gtid, want string
	}{
		{g1, "+I[2, 2.00, TWO]\n-U[2, 2.00, TWO]\n+U[2, 2.00, TWO!]\n+I[3, 3.00, THREE]"},
		{g2, "+I[3, 3.00, THREE]"}, // the next transaction is in the next file
	} {
		u := read(c.gtid, strings.Count(c.want, "\n")+1)
		if got := strings.Join(u.log, "\n"); got != c.want {
			t.Errorf("from GTID %s:\n%s\nwant:\n%s", c.gtid, got, c.want)
		}
		if u.r.st.Pos.GTID == "" {
			t.Errorf("from GTID %s: the position %s names no GTID", c.gtid, u.r.st.Pos)
		}
	}
	// The server's last GTID: the binlog's end; the position is in the
	// checkpoint like any other.
	u := start(t, newSource(t, s, db, "orders", ordersSchema(), map[string]string{
		"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.gtid-set": g3}), nil)
	st, err := u.r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	u.r.Close()
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (4, 4.00, 'FOUR')")
	u = start(t, newSource(t, s, db, "orders", ordersSchema(), map[string]string{
		"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.gtid-set": "0-9-1"}), st)
	u.until("the row after the last GTID", func() bool { return len(u.log) >= 1 })
	if got := strings.Join(u.log, "\n"); got != "+I[4, 4.00, FOUR]" {
		t.Errorf("from the last GTID %s:\n%s\nwant +I[4, 4.00, FOUR]", g3, got)
	}

	opts := func(g string) map[string]string {
		return map[string]string{"hostname": s.Host, "port": "1", "username": s.User, "password": s.Password,
			"database-name": db, "table-name": "orders", "scan.startup.mode": "specific-offset", "scan.startup.specific-offset.gtid-set": g}
	}
	for g, want := range map[string]string{
		"3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5": "is a MySQL GTID set, which sqlrun does not support yet",
		"0-1-5,0-1-3": "The value of option 'scan.startup.specific-offset.gtid-set' is invalid: '0-1-5,0-1-3'",
		"0-1":         "The value of option 'scan.startup.specific-offset.gtid-set' is invalid: '0-1'",
	} {
		_, err := Factory{}.CreateSource(&connectors.Context{Schema: ordersSchema(), Streaming: true, Options: opts(g)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("gtid-set %s: %v, want %q", g, err, want)
		}
	}
	ahead := newSource(t, s, db, "orders", ordersSchema(), map[string]string{
		"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.gtid-set": "0-1-999999999"})
	r, _ := ahead.NewReader(0, 1)
	defer r.Close()
	if err := r.Open(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "is ahead of the binlog") {
		t.Errorf("a GTID the server has not reached: %v", err)
	}
}

// TestStartupGTIDDomains is a 'specific-offset' start by a MariaDB GTID
// position of two replication domains whose transactions interleave in the
// binlog, as @@gtid_binlog_pos shows them after multi-source replication or
// writes with several gtid_domain_id: reading starts at the earliest
// domain's next transaction, and a transaction of a domain at or before
// its GTID met after that is skipped, as a MariaDB replica connecting with
// that position (@slave_connect_state) skips it. The skipping survives a
// checkpoint taken before it ends.
func TestStartupGTIDDomains(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	ctx := context.Background()
	conn, err := s.DB(t, db).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const other = 7 // a second replication domain
	insert := func(domain, id int) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION gtid_domain_id = %d", domain)); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d.00, 'D%d')", id, id, domain)); err != nil {
			t.Fatal(err)
		}
	}
	gtid := func() string { return s.Query(t, "SELECT @@global.gtid_binlog_pos")[0][0] }
	// The binlog: 1(d0) 2(d7) | position A | 3(d0) 4(d7) | position B | 5(d0) 6(d7)
	// 7(d0). Starting from domain 0 at A and domain 7 at B reads from 3's
	// transaction (domain 0's next after A; domain 7's next after B is 6),
	// skips 4 (domain 7 at or before B) and emits 3 5 6 7.
	insert(0, 1)
	insert(other, 2)
	posA, _ := parseMariaGTIDs(gtid())
	insert(0, 3)
	insert(other, 4)
	posB, _ := parseMariaGTIDs(gtid())
	insert(0, 5)
	insert(other, 6)
	start := fmt.Sprintf("%d-%d-%d,%d-%d-%d", 0, serverOf(posA, 0), seqOf(posA, 0), other, serverOf(posB, other), seqOf(posB, other))
	opts := map[string]string{"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.gtid-set": start}
	u := start2(t, s, db, opts, nil)
	u.until("the changes after "+start, func() bool { return len(u.log) >= 3 })
	if got, want := strings.Join(u.log, "\n"), "+I[3, 3.00, D0]\n+I[5, 5.00, D0]\n+I[6, 6.00, D7]"; got != want {
		t.Errorf("from %s:\n%s\nwant:\n%s", start, got, want)
	}
	if u.r.st.After != nil {
		t.Errorf("the skipping did not end after both domains' later transactions: %v", u.r.st.After)
	}
	u.r.Close()

	// A checkpoint taken before domain 7's skipping ends keeps it: the
	// job resumed from it skips transaction 4 still.
	u = start2(t, s, db, opts, nil)
	st, err := u.r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	u.r.Close()
	insert(0, 7)
	u = start2(t, s, db, opts, st)
	u.until("the changes after the restored position", func() bool { return len(u.log) >= 4 })
	if got, want := strings.Join(u.log, "\n"), "+I[3, 3.00, D0]\n+I[5, 5.00, D0]\n+I[6, 6.00, D7]\n+I[7, 7.00, D0]"; got != want {
		t.Errorf("restored, from %s:\n%s\nwant:\n%s", start, got, want)
	}
}

// start2 starts a source on db's orders table with the given options.
func start2(t *testing.T, s *mariadb.Server, db string, opts map[string]string, st []byte) *run {
	t.Helper()
	return start(t, newSource(t, s, db, "orders", ordersSchema(), opts), st)
}

// serverOf is the server id of domain d's GTID in a GTID position.
func serverOf(gs []mariaGTID, d uint64) uint64 {
	for _, g := range gs {
		if g.domain == d {
			return g.server
		}
	}
	return 0
}
