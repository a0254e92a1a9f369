package mysqlcdc

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlrun/sqlrun/sql"
)

// TableInfo is a MySQL table as Paimon's CDC actions read it
// (MySqlSchemaUtils: JDBC DatabaseMetaData's columns, primary key and
// table comment).
type TableInfo struct {
	Database, Name, Comment string
	Columns                 []ColumnInfo
	PrimaryKey              []string
}

// ColumnInfo is one column of a MySQL table, from information_schema.
type ColumnInfo struct {
	Name       string
	DataType   string // DATA_TYPE, lower case: int, varchar, ...
	ColumnType string // COLUMN_TYPE: int(10) unsigned, tinyint(1), ...
	Nullable   bool
	Comment    string
	// Length is CHARACTER_MAXIMUM_LENGTH for strings and binaries,
	// NUMERIC_PRECISION for numbers and BIT, DATETIME_PRECISION for
	// DATETIME, TIMESTAMP and TIME; -1 when the column has none.
	Length int64
	Scale  int64 // NUMERIC_SCALE, or -1
}

// SyncColumns is the value of OptSyncColumns for tables as Describe read
// them.
func SyncColumns(tables []TableInfo) string {
	m := map[string][]string{}
	for _, t := range tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name + " " + c.ColumnType
		}
		m[t.Database+"."+t.Name] = cols
	}
	b, _ := json.Marshal(m) // strings only: cannot fail
	return string(b)
}

// Describe connects with a mysql-cdc table's options (hostname, port,
// username, password, database-name and table-name as regular
// expressions matching whole names) and reads the tables they capture,
// in name order.
func Describe(ctx context.Context, conf map[string]string) ([]TableInfo, error) {
	port := 3306
	if p, ok := conf[OptPort]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key '%s'.", p, OptPort)
		}
		port = n
	}
	dbRe, err := compileRegex(OptDatabaseName, conf[OptDatabaseName])
	if err != nil {
		return nil, err
	}
	tableRe, err := compileRegex(OptTableName, conf[OptTableName])
	if err != nil {
		return nil, err
	}
	mc := mysql.NewConfig()
	mc.User, mc.Passwd = conf[OptUsername], conf[OptPassword]
	mc.Net, mc.Addr = "tcp", net.JoinHostPort(conf[OptHostname], strconv.Itoa(port))
	mc.Timeout = 30 * time.Second
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("mysql-cdc: %w", err)
	}
	db := gosql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.QueryContext(ctx, "SELECT TABLE_SCHEMA, TABLE_NAME, COALESCE(TABLE_COMMENT, '') FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME")
	if err != nil {
		return nil, sql.Errorf(sql.IOException, "mysql-cdc: connect to MySQL server %s:%d: %w", conf[OptHostname], port, err)
	}
	var out []TableInfo
	for rows.Next() {
		var t TableInfo
		if err := rows.Scan(&t.Database, &t.Name, &t.Comment); err != nil {
			rows.Close()
			return nil, fmt.Errorf("mysql-cdc: list tables: %w", err)
		}
		switch strings.ToLower(t.Database) {
		case "mysql", "information_schema", "performance_schema", "sys":
			continue
		}
		if dbRe.MatchString(t.Database) && tableRe.MatchString(t.Name) {
			out = append(out, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mysql-cdc: list tables: %w", err)
	}
	for i := range out {
		if err := out[i].load(ctx, db); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *TableInfo) load(ctx context.Context, db *gosql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_COMMENT, ''),
  COALESCE(CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, DATETIME_PRECISION, -1), COALESCE(NUMERIC_SCALE, -1)
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, t.Database, t.Name)
	if err != nil {
		return fmt.Errorf("mysql-cdc: read columns of %s.%s: %w", t.Database, t.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c ColumnInfo
		var nullable string
		if err := rows.Scan(&c.Name, &c.DataType, &c.ColumnType, &nullable, &c.Comment, &c.Length, &c.Scale); err != nil {
			return fmt.Errorf("mysql-cdc: read columns of %s.%s: %w", t.Database, t.Name, err)
		}
		c.DataType = strings.ToLower(c.DataType)
		c.Nullable = nullable != "NO"
		t.Columns = append(t.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql-cdc: read columns of %s.%s: %w", t.Database, t.Name, err)
	}
	rows.Close()
	pk, err := db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`, t.Database, t.Name)
	if err != nil {
		return fmt.Errorf("mysql-cdc: read primary key of %s.%s: %w", t.Database, t.Name, err)
	}
	defer pk.Close()
	for pk.Next() {
		var n string
		if err := pk.Scan(&n); err != nil {
			return fmt.Errorf("mysql-cdc: read primary key of %s.%s: %w", t.Database, t.Name, err)
		}
		t.PrimaryKey = append(t.PrimaryKey, n)
	}
	return pk.Err()
}
