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
// each Flink sink subtask has its own java.sql.Connection) and what the
// writer needs to know about that session: how to escape strings under its
// sql_mode, and the largest statement the server accepts.
type conn struct {
	cfg   *mysql.Config
	check time.Duration // connection.max-retry-timeout: validity checks and connects

	db   *sql.DB
	c    *sql.Conn
	esc  dialect.Escaping
	maxP int // the server's max_allowed_packet
	// opens counts sessions established; all but the first are reconnects.
	opens atomic.Int64
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
	var mode string
	var maxPacket int
	if err := sc.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode, @@SESSION.max_allowed_packet").Scan(&mode, &maxPacket); err != nil {
		sc.Close()
		return nil, err
	}
	c.esc = dialect.BackslashEscapes
	if strings.Contains(strings.ToUpper(mode), "NO_BACKSLASH_ESCAPES") {
		c.esc = dialect.NoBackslashEscapes
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
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

func (c *conn) close() error {
	c.reset()
	return c.db.Close()
}

// exec runs one statement on the session.
func (c *conn) exec(ctx context.Context, stmt []byte) (int64, error) {
	sc, err := c.open(ctx)
	if err != nil {
		return 0, err
	}
	res, err := sc.ExecContext(ctx, string(stmt))
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// permanent reports server errors that a retry cannot fix: bad data, a
// violated constraint, a missing table or column, a denied privilege.
// Flink retries every SQLException max-retries times with growing sleeps
// before failing with the same cause; sqlrun fails at once for these, so a
// doomed job stops seconds earlier with the identical message. Connection
// errors, deadlocks, lock wait timeouts and read-only/shutdown states stay
// retryable.
func permanent(err error) bool {
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
