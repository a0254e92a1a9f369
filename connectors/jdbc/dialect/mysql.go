// Package dialect holds the SQL dialects of the JDBC connector. MySQL is the
// only one: identifier quoting, the statements flink-connector-jdbc's
// MySqlDialect and AbstractDialect generate (insert, upsert, delete, update,
// select, row-exists), the multi-row forms a Go writer sends instead of a
// JDBC batch (what rewriteBatchedStatements=true makes Connector/J send),
// type validation with the connector's messages, type mapping in both
// directions, and SQL literals for values.
package dialect

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// MySQL is the MySQL (and MariaDB) dialect.
type MySQL struct{}

// Name is the dialect name used in messages ("The MySQL dialect ...").
func (MySQL) Name() string { return "MySQL" }

// Quote quotes one identifier with backticks. The table name is quoted as
// ONE identifier, as Flink does: 'table-name' = 'db.t' becomes `db.t`, not
// `db`.`t`. Unlike Flink, a backtick inside the name is doubled, so odd
// names give valid SQL instead of a syntax error.
func (MySQL) Quote(ident string) string {
	return "`" + strings.ReplaceAll(ident, "`", "``") + "`"
}

func (d MySQL) quoteList(cols []string, suffix string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = d.Quote(c) + suffix
	}
	return strings.Join(parts, ", ")
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// InsertSQL is AbstractDialect.getInsertIntoStatement:
// INSERT INTO `t`(`a`, `b`) VALUES (?, ?).
func (d MySQL) InsertSQL(table string, cols []string) string {
	return "INSERT INTO " + d.Quote(table) + "(" + d.quoteList(cols, "") + ") VALUES (" + placeholders(len(cols)) + ")"
}

// UpsertClause is the ON DUPLICATE KEY UPDATE tail of MySqlDialect's
// upsert: every column, including the key, set to VALUES(col).
func (d MySQL) UpsertClause(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		q := d.Quote(c)
		parts[i] = q + "=VALUES(" + q + ")"
	}
	return " ON DUPLICATE KEY UPDATE " + strings.Join(parts, ", ")
}

// GuardedUpsertClause is sqlrun's upsert tail for a versioned table
// ('sink.version-column'): every column is replaced only when the incoming
// version is not older than the stored one, or the stored one is NULL.
// MySQL applies ON DUPLICATE KEY UPDATE assignments left to right, each
// seeing the columns already assigned, so the version column goes last.
func (d MySQL) GuardedUpsertClause(cols []string, version string) string {
	q := d.Quote(version)
	newer := "(" + q + " IS NULL OR VALUES(" + q + ") >= " + q + ")"
	parts := make([]string, 0, len(cols))
	for _, c := range cols {
		if c == version {
			continue
		}
		qc := d.Quote(c)
		parts = append(parts, qc+"=IF("+newer+", VALUES("+qc+"), "+qc+")")
	}
	parts = append(parts, q+"=IF("+newer+", VALUES("+q+"), "+q+")")
	return " ON DUPLICATE KEY UPDATE " + strings.Join(parts, ", ")
}

// UpsertSQL is MySqlDialect.getUpsertStatement.
func (d MySQL) UpsertSQL(table string, cols []string) string {
	return d.InsertSQL(table, cols) + d.UpsertClause(cols)
}

func (d MySQL) conditions(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = d.Quote(c) + " = ?"
	}
	return strings.Join(parts, " AND ")
}

// DeleteSQL is AbstractDialect.getDeleteStatement:
// DELETE FROM `t` WHERE `k1` = ? AND `k2` = ?.
func (d MySQL) DeleteSQL(table string, keys []string) string {
	return "DELETE FROM " + d.Quote(table) + " WHERE " + d.conditions(keys)
}

// UpdateSQL is AbstractDialect.getUpdateStatement.
func (d MySQL) UpdateSQL(table string, cols, keys []string) string {
	return "UPDATE " + d.Quote(table) + " SET " + d.quoteList(cols, " = ?") + " WHERE " + d.conditions(keys)
}

// SelectSQL is AbstractDialect.getSelectFromStatement: the lookup query
// with conditions, the scan query without.
func (d MySQL) SelectSQL(table string, cols, conds []string) string {
	s := "SELECT " + d.quoteList(cols, "") + " FROM " + d.Quote(table)
	if len(conds) > 0 {
		s += " WHERE " + d.conditions(conds)
	}
	return s
}

// RowExistsSQL is AbstractDialect.getRowExistsStatement.
func (d MySQL) RowExistsSQL(table string, conds []string) string {
	return "SELECT 1 FROM " + d.Quote(table) + " WHERE " + d.conditions(conds)
}

// ScanSQL is the partitioned scan query: the select plus
// WHERE (`col` BETWEEN ? AND ?), as JdbcDynamicTableSource builds it.
func (d MySQL) ScanSQL(table string, cols []string, partitionCol string) string {
	s := d.SelectSQL(table, cols, nil)
	if partitionCol != "" {
		s += " WHERE (" + d.Quote(partitionCol) + " BETWEEN ? AND ?)"
	}
	return s
}

// Validate is AbstractDialect.validate with MySqlDialect's ranges: it
// rejects types the dialect cannot write and out-of-range precisions at
// query time, with the connector's messages.
func (d MySQL) Validate(schema sql.Schema) error {
	for _, c := range schema.Columns {
		t := c.Type
		if !supported(t) {
			return sql.Errorf(sql.ValidationException, "The %s dialect doesn't support type: %s.", d.Name(), t)
		}
		switch t.Root {
		case sql.TypeDecimal:
			if t.Precision < minDecimalPrecision || t.Precision > maxDecimalPrecision {
				return sql.Errorf(sql.ValidationException,
					"The precision of field '%s' is out of the DECIMAL precision range [%d, %d] supported by %s dialect.",
					c.Name, minDecimalPrecision, maxDecimalPrecision, d.Name())
			}
		case sql.TypeTimestamp:
			if t.Precision < minTimestampPrecision || t.Precision > maxTimestampPrecision {
				return sql.Errorf(sql.ValidationException,
					"The precision of field '%s' is out of the TIMESTAMP precision range [%d, %d] supported by %s dialect.",
					c.Name, minTimestampPrecision, maxTimestampPrecision, d.Name())
			}
		}
	}
	return nil
}

// MySqlDialect's ranges: DECIMAL(65, 30) is MySQL's widest decimal, and
// DATETIME keeps at most microseconds.
const (
	minDecimalPrecision   = 1
	maxDecimalPrecision   = 65
	minTimestampPrecision = 0
	maxTimestampPrecision = 6
)

// supported is MySqlDialect.supportedTypes, plus Flink's rule that
// VARBINARY is only accepted as BYTES (VARBINARY(2147483647)).
func supported(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeChar, sql.TypeVarChar, sql.TypeBoolean, sql.TypeDecimal, sql.TypeTinyInt,
		sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble,
		sql.TypeDate, sql.TypeTime, sql.TypeTimestamp:
		return true
	case sql.TypeVarBinary:
		return t.Length == sql.MaxLength
	}
	return false
}

// ColumnType maps a Flink type to the MySQL column type a table for it
// would declare (the direction JdbcCatalog's CREATE TABLE would need; used
// by tests and tooling to create targets).
func (d MySQL) ColumnType(t sql.DataType) (string, error) {
	if !supported(t) {
		return "", sql.Errorf(sql.ValidationException, "The %s dialect doesn't support type: %s.", d.Name(), t)
	}
	var s string
	switch t.Root {
	case sql.TypeBoolean:
		s = "BOOLEAN"
	case sql.TypeTinyInt:
		s = "TINYINT"
	case sql.TypeSmallInt:
		s = "SMALLINT"
	case sql.TypeInt:
		s = "INT"
	case sql.TypeBigInt:
		s = "BIGINT"
	case sql.TypeFloat:
		s = "FLOAT"
	case sql.TypeDouble:
		s = "DOUBLE"
	case sql.TypeDecimal:
		s = fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case sql.TypeChar:
		s = fmt.Sprintf("CHAR(%d)", t.Length)
	case sql.TypeVarChar:
		if t.Length > 16383 { // utf8mb4 VARCHAR limit within a 64 KiB row
			s = "LONGTEXT"
		} else {
			s = fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
	case sql.TypeVarBinary:
		s = "LONGBLOB"
	case sql.TypeDate:
		s = "DATE"
	case sql.TypeTime:
		s = fmt.Sprintf("TIME(%d)", min(t.Precision, 6))
	case sql.TypeTimestamp:
		s = fmt.Sprintf("DATETIME(%d)", t.Precision)
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s, nil
}

// FlinkType maps a MySQL column type, as INFORMATION_SCHEMA.COLUMNS'
// COLUMN_TYPE spells it (e.g. "int(10) unsigned", "decimal(10,2)",
// "tinyint(1)", "datetime(3)"), to the Flink type MySqlTypeMapper gives it.
// column names the column in the error for unsupported types.
func (d MySQL) FlinkType(columnType, column string, nullable bool) (sql.DataType, error) {
	ct := strings.ToLower(strings.TrimSpace(columnType))
	unsigned := strings.Contains(ct, "unsigned")
	ct = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(ct, "unsigned", ""), "zerofill", ""))
	name, args := ct, []int(nil)
	if i := strings.IndexByte(ct, '('); i >= 0 && strings.HasSuffix(ct, ")") {
		name = ct[:i]
		for _, a := range strings.Split(ct[i+1:len(ct)-1], ",") {
			var n int
			if _, err := fmt.Sscanf(strings.TrimSpace(a), "%d", &n); err == nil {
				args = append(args, n)
			}
		}
	}
	arg := func(i, def int) int {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	var t sql.DataType
	switch name {
	case "bit":
		if arg(0, 1) == 1 {
			t = sql.Boolean()
		} else {
			t = sql.Bytes()
		}
	case "bool", "boolean":
		t = sql.Boolean()
	case "tinyint":
		switch {
		case arg(0, 4) == 1:
			t = sql.Boolean()
		case unsigned:
			t = sql.SmallInt()
		default:
			t = sql.TinyInt()
		}
	case "smallint":
		t = sql.SmallInt()
		if unsigned {
			t = sql.Int()
		}
	case "mediumint":
		t = sql.Int()
	case "int", "integer":
		t = sql.Int()
		if unsigned {
			t = sql.BigInt()
		}
	case "bigint":
		t = sql.BigInt()
		if unsigned {
			t = sql.Decimal(20, 0)
		}
	case "float":
		t = sql.Float()
	case "double", "real", "double precision":
		t = sql.Double()
	case "decimal", "numeric":
		p, s := arg(0, 10), arg(1, 0)
		if unsigned && p < maxDecimalPrecision {
			p++
		}
		t = sql.Decimal(p, s)
	case "char":
		t = sql.Char(arg(0, 1))
	case "varchar":
		t = sql.VarChar(arg(0, 1))
	case "tinytext", "text", "mediumtext", "longtext", "json", "enum", "set":
		t = sql.String()
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		t = sql.Bytes()
	case "date":
		t = sql.Date()
	case "time":
		t = sql.Time(arg(0, 0))
	case "datetime", "timestamp":
		t = sql.Timestamp(arg(0, 0))
	case "year":
		t = sql.Int()
	default:
		return sql.DataType{}, sql.Errorf(sql.UnsupportedOperation,
			"Doesn't support MySQL type '%s' on column '%s' yet.", strings.ToUpper(columnType), column)
	}
	return t.WithNullable(nullable), nil
}
