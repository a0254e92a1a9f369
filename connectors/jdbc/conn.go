package jdbc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
)

// The driver logs connection trouble to stderr by itself; every such
// failure is also returned to the writer, which retries or reports it with
// context, so the raw log lines would only be noise in the shell.
func init() { _ = mysql.SetLogger(log.New(io.Discard, "", 0)) }

// conn is one subtask's MySQL connection: Flink's SimpleJdbcConnectionProvider.
// It holds a single dedicated session (each writer subtask has its own, as
// each Flink sink subtask has its own java.sql.Connection), the largest
// packet the server accepts, and the session's prepared statements.
type conn struct {
	cfg   *mysql.Config
	check time.Duration // connection.max-retry-timeout: validity checks and connects

	db   *sql.DB
	c    *sql.Conn
	maxP int // the server's max_allowed_packet
	// stmts are the session's server-side prepared statements by shape;
	// they die with the session (reset).
	stmts map[stmtKey]*sql.Stmt
	// opens counts sessions established; all but the first are reconnects.
	opens atomic.Int64
}

// stmtKey is a prepared statement's shape: its kind and how many rows (or
// keys) it has placeholders for.
type stmtKey struct {
	kind byte // 'I' insert, 'U' upsert, 'D' delete
	n    int
}

// maxCachedStmts bounds the prepared statements kept per session: full
// chunks repeat, odd-sized tails mostly do not.
const maxCachedStmts = 8

// CharsetError is a session whose character_set_client is not UTF-8:
// sqlrun's strings are UTF-8 and travel as they are, so under another
// client character set the server would read them as that charset's text
// and store other characters than were sent. No retry can fix it.
type CharsetError struct {
	Variable, Charset string
}

func (e *CharsetError) Error() string {
	return fmt.Sprintf("the session's %s is '%s', but sqlrun sends UTF-8 text (Connector/J's characterEncoding=UTF-8): "+
		"remove %s from the URL's sessionVariables or the server's init_connect (the target columns may use any character set; MySQL converts to it)",
		e.Variable, e.Charset, e.Variable)
}

func newConn(c *dialect.Connection, check time.Duration) (*conn, error) {
	connector, err := mysql.NewConnector(c.Config)
	if err != nil {
		return nil, fmt.Errorf("jdbc: connection %s: %w", c, err)
	}
	db := sql.OpenDB(connector)
	// One session per subtask; a closed *sql.Conn is discarded, not pooled,
	// so a reconnect always dials afresh.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(0)
	return &conn{cfg: c.Config, check: check, db: db}, nil
}

// open establishes the session (or returns the established one).
func (c *conn) open(ctx context.Context) (*sql.Conn, error) {
	if c.c != nil {
		return c.c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.check)
	defer cancel()
	sc, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var maxPacket int
	var client, connection string
	if err := sc.QueryRowContext(ctx, "SELECT @@SESSION.max_allowed_packet, @@SESSION.character_set_client, @@SESSION.character_set_connection").
		Scan(&maxPacket, &client, &connection); err != nil {
		sc.Close()
		return nil, err
	}
	for _, v := range [][2]string{{"character_set_client", client}, {"character_set_connection", connection}} {
		switch strings.ToLower(v[1]) {
		case "utf8mb4", "utf8mb3", "utf8":
		default:
			sc.Close()
			return nil, &CharsetError{Variable: v[0], Charset: v[1]}
		}
	}
	c.maxP = maxPacket
	c.c = sc
	c.opens.Add(1)
	return sc, nil
}

// valid is Connection.isValid(timeout): a ping within
// connection.max-retry-timeout.
func (c *conn) valid(ctx context.Context) bool {
	if c.c == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, c.check)
	defer cancel()
	return c.c.PingContext(ctx) == nil
}

// reset drops the session; the next open dials a new one.
func (c *conn) reset() {
	c.closeStmts()
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

func (c *conn) close() error {
	c.reset()
	return c.db.Close()
}

// evictStmts closes the cached statements except the largest of each
// kind: the full chunks that every busy flush reuses, while odd-sized
// tails come and go.
func (c *conn) evictStmts() {
	keep := map[byte]int{}
	for k := range c.stmts {
		keep[k.kind] = max(keep[k.kind], k.n)
	}
	for k, st := range c.stmts {
		if keep[k.kind] != k.n {
			_ = st.Close()
			delete(c.stmts, k)
		}
	}
}

func (c *conn) closeStmts() {
	for k, st := range c.stmts {
		_ = st.Close() // COM_STMT_CLOSE; on a dead session there is nothing to close
		delete(c.stmts, k)
	}
}

// execPrepared runs the prepared statement of shape key (preparing it with
// text(key.n) on first use in this session) with args, in the binary
// protocol: the values are never part of any SQL text.
func (c *conn) execPrepared(ctx context.Context, key stmtKey, text func(n int) string, args []any) error {
	sc, err := c.open(ctx)
	if err != nil {
		return err
	}
	st := c.stmts[key]
	if st == nil {
		if st, err = sc.PrepareContext(ctx, text(key.n)); err != nil {
			return err
		}
		if len(c.stmts) >= maxCachedStmts {
			c.evictStmts()
		}
		if c.stmts == nil {
			c.stmts = map[stmtKey]*sql.Stmt{}
		}
		c.stmts[key] = st
	}
	_, err = st.ExecContext(ctx, args...)
	if errors.Is(err, mysql.ErrPktTooLarge) {
		// The driver's message names its Config.MaxAllowedPacket; the
		// knob a user can turn is the server's variable.
		return &PacketError{Table: "", RowBytes: -1, MaxPacket: c.maxP}
	}
	return err
}

// permanent reports server errors that a retry cannot fix: bad data, a
// violated constraint, a missing table or column, a denied privilege.
// Flink retries every SQLException max-retries times with growing sleeps
// before failing with the same cause; sqlrun fails at once for these, so a
// doomed job stops seconds earlier with the identical message. Connection
// errors, deadlocks, lock wait timeouts and read-only/shutdown states stay
// retryable.
func permanent(err error) bool {
	var ce *CharsetError
	var pe *PacketError
	if errors.As(err, &ce) || errors.As(err, &pe) {
		return true
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1048, // Column cannot be null
		1054, // Unknown column
		1062, // Duplicate entry (a unique key other than the one upserted on)
		1064, // Syntax error
		1142, // Command denied
		1146, // Table doesn't exist
		1264, // Out of range value
		1265, // Data truncated
		1292, // Incorrect datetime value
		1364, // Field doesn't have a default value
		1366, // Incorrect value
		1406, // Data too long
		1451, // Cannot delete a parent row (foreign key)
		1452, // Cannot add a child row (foreign key)
		3819, // Check constraint violated (MySQL)
		4025: // CONSTRAINT failed (MariaDB check constraint)
		return true
	}
	return false
}

// broken reports errors that mean the session is gone, so the next attempt
// must reconnect even before the validity check says so.
func broken(err error) bool {
	if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
