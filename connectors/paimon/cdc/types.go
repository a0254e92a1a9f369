package cdc

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/mysqlcdc"
	"github.com/sqlrun/sqlrun/sql"
)

// Type mapping modes: Paimon's TypeMapping.TypeMappingMode, given as
// --type-mapping a,b.
const (
	tinyint1NotBool        = "tinyint1-not-bool"
	toNullable             = "to-nullable"
	toString               = "to-string"
	charToString           = "char-to-string"
	longtextToBytes        = "longtext-to-bytes"
	bigintUnsignedToBigint = "bigint-unsigned-to-bigint"
)

type typeMapping map[string]bool

// parseTypeMapping is TypeMapping.parse: comma-separated modes, case
// insensitive.
func parseTypeMapping(s string) (typeMapping, error) {
	tm := typeMapping{}
	if strings.TrimSpace(s) == "" {
		return tm, nil
	}
	for _, m := range strings.Split(s, ",") {
		m = strings.ToLower(strings.TrimSpace(m))
		switch m {
		case tinyint1NotBool, toNullable, toString, charToString, longtextToBytes, bigintUnsignedToBigint:
			tm[m] = true
		default:
			return nil, fmt.Errorf("Unsupported type mapping option: %s", m)
		}
	}
	return tm, nil
}

// paimonType is MySqlTypeUtils.toDataType for one column as
// information_schema describes it (Paimon reads JDBC metadata: the same
// type name, length and scale), with the column's nullability.
func paimonType(c mysqlcdc.ColumnInfo, tm typeMapping) (sql.DataType, error) {
	t, err := mappedType(c, tm)
	if err != nil {
		return t, err
	}
	return t.WithNullable(c.Nullable || tm[toNullable]), nil
}

func mappedType(c mysqlcdc.ColumnInfo, tm typeMapping) (sql.DataType, error) {
	if tm[toString] {
		return sql.String(), nil
	}
	unsigned := strings.Contains(strings.ToLower(c.ColumnType), "unsigned")
	length := int(c.Length)
	switch c.DataType {
	case "bit":
		if length <= 1 {
			return sql.Boolean(), nil
		}
		return sql.Binary((length + 7) / 8), nil
	case "bool", "boolean":
		return sql.Boolean(), nil
	case "tinyint":
		switch {
		case unsigned:
			return sql.SmallInt(), nil
		case strings.HasPrefix(strings.ToLower(c.ColumnType), "tinyint(1)") && !tm[tinyint1NotBool]:
			return sql.Boolean(), nil
		}
		return sql.TinyInt(), nil
	case "smallint":
		if unsigned {
			return sql.Int(), nil
		}
		return sql.SmallInt(), nil
	case "mediumint", "int", "integer":
		if unsigned {
			return sql.BigInt(), nil
		}
		return sql.Int(), nil
	case "year":
		return sql.Int(), nil
	case "bigint":
		if unsigned && !tm[bigintUnsignedToBigint] {
			return sql.Decimal(20, 0), nil
		}
		return sql.BigInt(), nil
	case "float":
		return sql.Float(), nil
	case "double", "real", "double precision":
		return sql.Double(), nil
	case "decimal", "numeric", "fixed":
		if length > 0 && length <= 38 {
			return sql.Decimal(length, max(int(c.Scale), 0)), nil
		}
		return sql.String(), nil
	case "date":
		return sql.Date(), nil
	case "time":
		return sql.Time(0), nil
	case "datetime", "timestamp":
		return sql.Timestamp(max(length, 0)), nil
	case "char":
		if length == 0 || tm[charToString] {
			return sql.String(), nil
		}
		return sql.Char(length), nil
	case "varchar":
		if length == 0 || tm[charToString] {
			return sql.String(), nil
		}
		return sql.VarChar(length), nil
	case "tinytext", "text", "mediumtext", "json", "enum", "geometry", "point", "linestring",
		"polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection":
		return sql.String(), nil
	case "longtext":
		if tm[longtextToBytes] {
			return sql.Bytes(), nil
		}
		return sql.String(), nil
	case "binary", "varbinary":
		if length == 0 {
			return sql.VarBinary(1), nil
		}
		return sql.VarBinary(length), nil
	case "tinyblob", "blob", "mediumblob", "longblob":
		return sql.Bytes(), nil
	case "set":
		return sql.ArrayOf(sql.String()), nil
	}
	return sql.DataType{}, fmt.Errorf("Doesn't support MySQL type '%s' yet", strings.ToUpper(c.ColumnType))
}

// convertAction is UpdatedDataFieldsProcessFunctionBase.ConvertAction.
type convertAction int

const (
	convert   convertAction = iota // the old type can be changed to the new one
	ignore                         // same family, the old type is wider: keep it
	exception                      // different families: fail
)

// canConvert is UpdatedDataFieldsProcessFunctionBase.canConvert: whether a
// column of type from may become type to as the MySQL table's changes.
func canConvert(from, to sql.DataType) convertAction {
	if from.WithNullable(true).Equal(to.WithNullable(true)) {
		return convert
	}
	family := func(roots ...sql.TypeRoot) (int, int) {
		fi, ti := -1, -1
		for i, r := range roots {
			if from.Root == r {
				fi = i
			}
			if to.Root == r {
				ti = i
			}
		}
		return fi, ti
	}
	widerOrEqual := func(ok bool) convertAction {
		if ok {
			return convert
		}
		return ignore
	}
	if fi, ti := family(sql.TypeChar, sql.TypeVarChar); fi >= 0 && ti >= 0 {
		return widerOrEqual(from.Length <= to.Length)
	}
	if fi, ti := family(sql.TypeBinary, sql.TypeVarBinary); fi >= 0 && ti >= 0 {
		return widerOrEqual(from.Length <= to.Length)
	}
	if fi, ti := family(sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt); fi >= 0 && ti >= 0 {
		return widerOrEqual(fi <= ti)
	}
	if fi, ti := family(sql.TypeFloat, sql.TypeDouble); fi >= 0 && ti >= 0 {
		return widerOrEqual(fi <= ti)
	}
	if from.Root == sql.TypeDecimal && to.Root == sql.TypeDecimal {
		if to.Precision <= from.Precision && to.Scale <= from.Scale {
			return ignore
		}
		return convert
	}
	if from.Root == sql.TypeTimestamp && to.Root == sql.TypeTimestamp {
		return widerOrEqual(from.Precision <= to.Precision)
	}
	return exception
}
