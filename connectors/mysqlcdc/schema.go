package mysqlcdc

import (
	"context"
	gosql "database/sql"
	"encoding/binary"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// cell is one MySQL value in its text form (what the text protocol sends;
// binlog images are decoded to the same form); null marks SQL NULL.
type cell struct {
	b    []byte
	null bool
}

// mysqlColumn is one column of a captured MySQL table.
type mysqlColumn struct {
	name       string
	dataType   string // information_schema DATA_TYPE, lower case: int, varchar, ...
	columnType string // COLUMN_TYPE: int(10) unsigned, enum('a','b'), ...
	charset    string
	unsigned   bool
	enum       []string // ENUM and SET members
}

// table is a captured MySQL table and how its columns map to the declared
// schema.
type table struct {
	db, name string
	cols     []mysqlColumn
	// restored: cols come from a checkpoint, not from the server.
	restored bool
	pk       []int // MySQL primary-key column indexes
	pkNames  []string
	chunkKey int // the chunk key's index in cols
	// chunkable is false when the chunk key's type cannot be compared
	// outside MySQL (strings under a collation): the table is one chunk.
	chunkable bool
	// declared[i] is the cols index of declared column i (-1: a column
	// the MySQL table no longer has, NULL for Paimon's CDC action).
	declared []int
	// zone is the source's server-time-zone (convert).
	zone *time.Location
}

func (t *table) String() string { return t.db + "." + t.name }

// quoted is the table's name for SQL.
func (t *table) quoted() string { return quoteIdent(t.db) + "." + quoteIdent(t.name) }

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// discover lists the tables the regular expressions capture, with their
// columns, in name order. want are tables (db.table) that must be among
// them: for Paimon's CDC action (OptSyncAction) the job runs again right
// after a schema change, and a later ALTER TABLE that copies a table
// renames the copy into place at its end, so for that moment
// information_schema has no such table: the list is read again for a
// while (30 s, as the action waits before it), until it has them (or
// any table when want is empty).
func discover(ctx context.Context, db *gosql.DB, cfg *config, want []string) ([]*table, error) {
	out, err := listTables(ctx, db, cfg)
	for wait := 0; cfg.syncAction && err == nil && !hasTables(out, want) && wait < 300; wait++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		out, err = listTables(ctx, db, cfg)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, sql.Errorf(sql.ValidationException,
			"No tables of MySQL server %s:%d match '%s' = '%s' and '%s' = '%s' (table %s).",
			cfg.host, cfg.port, OptDatabaseName, cfg.dbRegex.String()[4:len(cfg.dbRegex.String())-2],
			OptTableName, cfg.tableRegex.String()[4:len(cfg.tableRegex.String())-2], cfg.ident)
	}
	for _, t := range out {
		if err := t.load(ctx, db, cfg); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hasTables: tables has every one of want, and some table.
func hasTables(tables []*table, want []string) bool {
	have := map[string]bool{}
	for _, t := range tables {
		have[t.String()] = true
	}
	for _, n := range want {
		if !have[n] {
			return false
		}
	}
	return len(tables) > 0
}

// listTables lists the tables the regular expressions capture.
func listTables(ctx context.Context, db *gosql.DB, cfg *config) ([]*table, error) {
	rows, err := db.QueryContext(ctx, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME")
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var out []*table
	for rows.Next() {
		var d, n string
		if err := rows.Scan(&d, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list tables: %w", err)
		}
		switch strings.ToLower(d) {
		case "mysql", "information_schema", "performance_schema", "sys":
			continue
		}
		if cfg.dbRegex.MatchString(d) && cfg.tableRegex.MatchString(n) {
			out = append(out, &table{db: d, name: n, zone: cfg.serverZone})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	return out, nil
}

// load reads a table's columns and primary key and maps the declared
// columns onto them by name.
func (t *table) load(ctx context.Context, db *gosql.DB, cfg *config) error {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COALESCE(CHARACTER_SET_NAME, '')
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, t.db, t.name)
	if err != nil {
		return fmt.Errorf("read columns of %s: %w", t, err)
	}
	t.cols = nil
	for rows.Next() {
		var c mysqlColumn
		if err := rows.Scan(&c.name, &c.dataType, &c.columnType, &c.charset); err != nil {
			rows.Close()
			return fmt.Errorf("read columns of %s: %w", t, err)
		}
		c.dataType = strings.ToLower(c.dataType)
		c.unsigned = strings.Contains(strings.ToLower(c.columnType), "unsigned")
		if c.dataType == "enum" || c.dataType == "set" {
			c.enum = parseMembers(c.columnType)
		}
		t.cols = append(t.cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read columns of %s: %w", t, err)
	}
	pkRows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`, t.db, t.name)
	if err != nil {
		return fmt.Errorf("read primary key of %s: %w", t, err)
	}
	t.pkNames = nil
	for pkRows.Next() {
		var n string
		if err := pkRows.Scan(&n); err != nil {
			pkRows.Close()
			return fmt.Errorf("read primary key of %s: %w", t, err)
		}
		t.pkNames = append(t.pkNames, n)
	}
	pkRows.Close()
	if len(t.pkNames) == 0 {
		// ChunkUtils.getChunkKeyColumn.
		return sql.Errorf(sql.ValidationException,
			"Incremental snapshot for tables requires primary key, but table %s doesn't have primary key.", t)
	}
	for _, c := range t.cols {
		switch c.charset {
		case "", "utf8mb4", "utf8", "utf8mb3", "ascii", "binary":
		default:
			return sql.Errorf(sql.ValidationException,
				"Column '%s' of MySQL table %s has character set %s: sqlrun's mysql-cdc reads utf8mb4, utf8mb3, ascii and binary columns only.",
				c.name, t, c.charset)
		}
	}
	return t.bind(cfg)
}

// bind maps the primary key, the chunk key and the declared columns onto
// the table's columns by name (again when the columns change: an ALTER
// TABLE read from the binlog, or the columns restored from a checkpoint).
func (t *table) bind(cfg *config) error {
	t.pk = nil
	for _, n := range t.pkNames {
		j := t.index(n)
		if j < 0 {
			return sql.Errorf(sql.IOException, "mysql-cdc: table %s has no primary-key column '%s' at this place of the binlog", t, n)
		}
		t.pk = append(t.pk, j)
	}
	t.chunkKey = t.pk[0]
	if cfg.chunkKey != "" && t.index(cfg.chunkKey) >= 0 {
		t.chunkKey = t.index(cfg.chunkKey)
	}
	t.chunkable = false
	switch t.cols[t.chunkKey].dataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "numeric",
		"date", "datetime", "timestamp":
		t.chunkable = true
	}
	t.declared = make([]int, len(cfg.schema.Columns))
	for i, dc := range cfg.schema.Columns {
		j := t.index(dc.Name)
		if j < 0 && cfg.syncAction {
			// Paimon's CDC action keeps a column the MySQL table dropped:
			// NULL from then on.
			t.declared[i] = -1
			continue
		}
		if j < 0 {
			return sql.Errorf(sql.ValidationException,
				"Column '%s' of table %s does not exist in MySQL table %s.", dc.Name, cfg.ident, t)
		}
		t.declared[i] = j
	}
	return nil
}

// index finds a column by name, exactly, then case-insensitively as MySQL
// column names are.
func (t *table) index(name string) int {
	for i, c := range t.cols {
		if c.name == name {
			return i
		}
	}
	for i, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// parseMembers reads the members of enum('a','b') or set('x','y').
func parseMembers(colType string) []string {
	open := strings.IndexByte(colType, '(')
	if open < 0 {
		return nil
	}
	s := colType[open+1:]
	var out []string
	for len(s) > 0 && s[0] == '\'' {
		var b strings.Builder
		i := 1
		for i < len(s) {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
			i++
		}
		out = append(out, b.String())
		s = s[min(i+1, len(s)):]
		s = strings.TrimPrefix(s, ",")
	}
	return out
}

// keyOf is a row's primary key as a map key.
func (t *table) keyOf(r []cell) string {
	var b strings.Builder
	for _, i := range t.pk {
		if r[i].null {
			b.WriteString("\x01N")
		} else {
			b.WriteByte(0)
			b.Write(r[i].b)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// compareKey orders two chunk-key values of a chunkable table as MySQL
// does: numerically for numbers, as text for the fixed-width date forms.
func (t *table) compareKey(a, b []byte) int {
	switch t.cols[t.chunkKey].dataType {
	case "date", "datetime", "timestamp":
		return strings.Compare(string(a), string(b))
	}
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	if !ok1 || !ok2 {
		return strings.Compare(string(a), string(b))
	}
	return x.Cmp(y)
}

// row converts a MySQL row to the declared columns' values.
func (t *table) row(r []cell, types []sql.DataType) ([]any, error) {
	out := make([]any, len(t.declared))
	for i, j := range t.declared {
		if j < 0 {
			continue
		}
		v, err := convert(r[j], &t.cols[j], types[i], t.zone)
		if err != nil {
			return nil, sql.Errorf(sql.IOException, "mysql-cdc: table %s column '%s' (%s) to %s: %w",
				t, t.cols[j].name, t.cols[j].columnType, types[i], err)
		}
		out[i] = v
	}
	return out, nil
}

// checkDeclaredType refuses declared types the MySQL type mapping has no
// counterpart for.
func checkDeclaredType(c sql.Column) error {
	switch c.Type.Root {
	case sql.TypeBoolean, sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt,
		sql.TypeFloat, sql.TypeDouble, sql.TypeDecimal, sql.TypeChar, sql.TypeVarChar,
		sql.TypeBinary, sql.TypeVarBinary, sql.TypeDate, sql.TypeTime, sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return nil
	case sql.TypeArray:
		if c.Type.Elem != nil && (c.Type.Elem.Root == sql.TypeVarChar || c.Type.Elem.Root == sql.TypeChar) {
			return nil // MySQL SET
		}
	}
	return sql.Errorf(sql.ValidationException, "Column '%s' has type %s, which no MySQL type maps to in mysql-cdc.", c.Name, c.Type)
}

// convert is Flink CDC's RowDataDebeziumDeserializeSchema converter for
// one value: the MySQL value in its text form to the declared type.
//
// A MySQL TIMESTAMP (an instant; the session reads it in UTC) into a
// TIMESTAMP column becomes its wall clock in zone, as convertToTimestamp
// does with a ZonedTimestamp (Instant.atZone(serverTimeZone)); into
// TIMESTAMP_LTZ it stays the instant. DATETIME has no zone.
func convert(c cell, col *mysqlColumn, t sql.DataType, zone *time.Location) (any, error) {
	if c.null {
		return nil, nil
	}
	s := string(c.b)
	switch col.dataType {
	case "date", "datetime", "timestamp":
		if strings.HasPrefix(s, "0000-00-00") {
			return nil, nil // a zero date reads as NULL, as Debezium's
		}
	case "bit":
		// BIT(n) arrives as big-endian bytes.
		var n uint64
		for _, x := range c.b {
			n = n<<8 | uint64(x)
		}
		switch t.Root {
		case sql.TypeBoolean:
			return n != 0, nil
		case sql.TypeBinary, sql.TypeVarBinary:
			// Debezium gives BIT(n>1) as little-endian bytes.
			b := make([]byte, len(c.b))
			for i := range c.b {
				b[i] = c.b[len(c.b)-1-i]
			}
			return b, nil
		}
		s = strconv.FormatUint(n, 10)
	}
	v, err := connectors.ParseMySQLText(s, t)
	if ts, ok := v.(sql.TimestampData); ok && err == nil && col.dataType == "timestamp" && t.Root == sql.TypeTimestamp && zone != nil {
		l := ts.Time().In(zone)
		return sql.TimestampFromTime(time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)), nil
	}
	return v, err
}

// enumText turns a binlog ENUM index or SET bitmask into the member text
// the text protocol would send.
func enumText(col *mysqlColumn, raw []byte) []byte {
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		// Some servers send the little-endian bytes.
		var buf [8]byte
		copy(buf[:], raw)
		n = binary.LittleEndian.Uint64(buf[:])
	}
	if col.dataType == "enum" {
		if n == 0 || int(n) > len(col.enum) {
			return []byte{}
		}
		return []byte(col.enum[n-1])
	}
	var parts []string
	for i, m := range col.enum {
		if n&(1<<uint(i)) != 0 {
			parts = append(parts, m)
		}
	}
	return []byte(strings.Join(parts, ","))
}
