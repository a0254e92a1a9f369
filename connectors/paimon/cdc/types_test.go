package cdc

import (
	"testing"

	"github.com/sqlrun/sqlrun/connectors/mysqlcdc"
	"github.com/sqlrun/sqlrun/sql"
)

// TestPaimonType is Paimon's MySqlTypeUtils.toDataType over the columns as
// information_schema describes them (MySqlSchemaUtils reads the same
// through JDBC metadata), with the --type-mapping modes.
func TestPaimonType(t *testing.T) {
	col := func(dataType, columnType string, length, scale int64) mysqlcdc.ColumnInfo {
		return mysqlcdc.ColumnInfo{Name: "c", DataType: dataType, ColumnType: columnType, Length: length, Scale: scale, Nullable: true}
	}
	for _, c := range []struct {
		col  mysqlcdc.ColumnInfo
		mode string
		want string
	}{
		{col("tinyint", "tinyint(1)", 3, 0), "", "BOOLEAN"},
		{col("tinyint", "tinyint(1)", 3, 0), "tinyint1-not-bool", "TINYINT"},
		{col("tinyint", "tinyint(4)", 3, 0), "", "TINYINT"},
		{col("tinyint", "tinyint(3) unsigned", 3, 0), "", "SMALLINT"},
		{col("smallint", "smallint(5) unsigned", 5, 0), "", "INT"},
		{col("mediumint", "mediumint(9)", 7, 0), "", "INT"},
		{col("int", "int(10) unsigned", 10, 0), "", "BIGINT"},
		{col("bigint", "bigint(20) unsigned", 20, 0), "", "DECIMAL(20, 0)"},
		{col("bigint", "bigint(20) unsigned", 20, 0), "bigint-unsigned-to-bigint", "BIGINT"},
		{col("decimal", "decimal(10,2)", 10, 2), "", "DECIMAL(10, 2)"},
		{col("decimal", "decimal(65,2)", 65, 2), "", "STRING"},
		{col("bit", "bit(1)", 1, -1), "", "BOOLEAN"},
		{col("bit", "bit(12)", 12, -1), "", "BINARY(2)"},
		{col("datetime", "datetime(3)", 3, -1), "", "TIMESTAMP(3)"},
		{col("timestamp", "timestamp", 0, -1), "", "TIMESTAMP(0)"},
		{col("time", "time(3)", 3, -1), "", "TIME(0)"},
		{col("year", "year(4)", -1, -1), "", "INT"},
		{col("char", "char(3)", 3, -1), "", "CHAR(3)"},
		{col("varchar", "varchar(32)", 32, -1), "", "VARCHAR(32)"},
		{col("varchar", "varchar(32)", 32, -1), "char-to-string", "STRING"},
		{col("json", "longtext", 4294967295, -1), "", "STRING"},
		{col("longtext", "longtext", 4294967295, -1), "longtext-to-bytes", "BYTES"},
		{col("varbinary", "varbinary(16)", 16, -1), "", "VARBINARY(16)"},
		{col("blob", "blob", 65535, -1), "", "BYTES"},
		{col("enum", "enum('a','b')", 1, -1), "", "STRING"},
		{col("set", "set('a','b')", 3, -1), "", "ARRAY<STRING>"},
		{col("int", "int(11)", 10, 0), "to-string", "STRING"},
	} {
		tm, err := parseTypeMapping(c.mode)
		if err != nil {
			t.Fatal(err)
		}
		got, err := paimonType(c.col, tm)
		if err != nil {
			t.Errorf("%s: %v", c.col.ColumnType, err)
			continue
		}
		if s := got.String(); s != c.want {
			t.Errorf("%s (%s): %s, want %s", c.col.ColumnType, c.mode, s, c.want)
		}
	}
	nn := col("int", "int(11)", 10, 0)
	nn.Nullable = false
	if got, _ := paimonType(nn, typeMapping{}); got.Nullable {
		t.Error("NOT NULL column mapped nullable")
	}
	if got, _ := paimonType(nn, typeMapping{toNullable: true}); !got.Nullable {
		t.Error("to-nullable kept NOT NULL")
	}
}

// TestCanConvert is UpdatedDataFieldsProcessFunctionBase.canConvert.
func TestCanConvert(t *testing.T) {
	for _, c := range []struct {
		from, to sql.DataType
		want     convertAction
	}{
		{sql.Int(), sql.BigInt(), convert},
		{sql.BigInt(), sql.Int(), ignore},
		{sql.VarChar(10), sql.VarChar(20), convert},
		{sql.VarChar(20), sql.Char(10), ignore},
		{sql.Float(), sql.Double(), convert},
		{sql.Decimal(10, 2), sql.Decimal(12, 2), convert},
		{sql.Decimal(12, 2), sql.Decimal(10, 2), ignore},
		{sql.Timestamp(0), sql.Timestamp(3), convert},
		{sql.Int(), sql.String(), exception},
		{sql.Int().NotNull(), sql.Int(), convert},
	} {
		if got := canConvert(c.from, c.to); got != c.want {
			t.Errorf("%s -> %s: %d, want %d", c.from, c.to, got, c.want)
		}
	}
}
