package mysqlcdc

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
)

// TestStartupGTID is 'scan.startup.mode' = 'specific-offset' by a MariaDB
// GTID position ('scan.startup.specific-offset.gtid-set' = '0-1-42'): the
// binlog is read from the first transaction of the domain after the GTID,
// as a MariaDB replica connecting with that position (@slave_connect_state)
// reads it, in the same binlog file or the next one; the server's last
// GTID starts at the binlog's end. A MySQL GTID set, several domains and a
// GTID the server has not reached are refused by name.
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
	if strings.Contains(g3, ",") {
		t.Skipf("the server has several GTID domains (%s)", g3)
	}
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
		"0-1-5,1-1-3": "names 2 replication domains; sqlrun supports a GTID position of one domain yet",
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
