package sql

import (
	"fmt"
	"strings"
)

// TypeRoot identifies a logical type family, as Flink's LogicalTypeRoot does.
type TypeRoot uint8

// The type roots sqlrun supports. Their Go value types are listed in row.go.
const (
	TypeNull TypeRoot = iota // the type of an untyped NULL literal
	TypeBoolean
	TypeTinyInt
	TypeSmallInt
	TypeInt
	TypeBigInt
	TypeFloat
	TypeDouble
	TypeDecimal
	TypeChar
	TypeVarChar
	TypeBinary
	TypeVarBinary
	TypeDate
	TypeTime
	TypeTimestamp
	TypeTimestampLTZ
	TypeArray
	TypeMap
	TypeRow
	// TypeIntervalDayTime is a day-time INTERVAL (INTERVAL '5' SECOND,
	// INTERVAL DAY TO SECOND(3)); DataType.Unit says which.
	TypeIntervalDayTime
	// TypeIntervalYearMonth is a year-month INTERVAL (INTERVAL '2' MONTH,
	// INTERVAL YEAR); DataType.Unit says which.
	TypeIntervalYearMonth
	// TypeMultiset is MULTISET<elem>, the type of COLLECT's result. sqlrun
	// plans it (EXPLAIN) but holds no value of it: a job that would is
	// refused.
	TypeMultiset
)

// IntervalUnit is the resolution of an INTERVAL type as Flink's planner
// keeps it. Flink reads every interval type of SQL (a CAST target, a
// column, a literal's type) through FlinkTypeFactory.toLogicalType, which
// keeps only six: INTERVAL YEAR(2) for YEAR, INTERVAL MONTH for YEAR TO
// MONTH and MONTH, INTERVAL DAY(2) for DAY, INTERVAL HOUR for DAY TO HOUR
// and HOUR, INTERVAL MINUTE for the qualifiers that end in MINUTE, and
// INTERVAL SECOND(3) for those that end in SECOND. The value is the same
// whatever the unit: months (int32) or milliseconds (int64); the unit
// decides how it prints (Flink's YearMonthIntervalPeriodConverter and
// DayTimeIntervalDurationConverter).
type IntervalUnit uint8

// The interval units, in Flink's order from coarse to fine.
const (
	IntervalNone IntervalUnit = iota
	IntervalYear
	IntervalMonth
	IntervalDay
	IntervalHour
	IntervalMinute
	IntervalSecond
)

var intervalUnitNames = map[string]IntervalUnit{
	"YEAR": IntervalYear, "MONTH": IntervalMonth, "DAY": IntervalDay,
	"HOUR": IntervalHour, "MINUTE": IntervalMinute, "SECOND": IntervalSecond,
}

// Interval is the type Flink's planner gives the interval qualifier
// "from [TO to]" (to empty for a single unit), as toLogicalType maps it:
// INTERVAL YEAR(2) for YEAR alone, INTERVAL MONTH for the other year-month
// qualifiers, and a day-time type named by the qualifier's last unit
// (DAY alone is INTERVAL DAY(2)). It reports false for a qualifier that is
// no interval's.
func Interval(from, to string) (DataType, bool) {
	f, ok := intervalUnitNames[strings.ToUpper(from)]
	if !ok {
		return DataType{}, false
	}
	e := f
	if to != "" {
		if e, ok = intervalUnitNames[strings.ToUpper(to)]; !ok || e < f {
			return DataType{}, false
		}
	}
	if (f <= IntervalMonth) != (e <= IntervalMonth) {
		return DataType{}, false
	}
	switch {
	case f == IntervalYear && e == IntervalYear:
		return DataType{Root: TypeIntervalYearMonth, Nullable: true, Unit: IntervalYear, Precision: 2}, true
	case e <= IntervalMonth:
		return DataType{Root: TypeIntervalYearMonth, Nullable: true, Unit: IntervalMonth}, true
	case e == IntervalDay:
		return DataType{Root: TypeIntervalDayTime, Nullable: true, Unit: IntervalDay, Precision: 2}, true
	case e == IntervalSecond:
		return DataType{Root: TypeIntervalDayTime, Nullable: true, Unit: IntervalSecond, Precision: 2, Scale: 3}, true
	}
	return DataType{Root: TypeIntervalDayTime, Nullable: true, Unit: e}, true
}

// IsInterval reports the two INTERVAL families.
func (t DataType) IsInterval() bool {
	return t.Root == TypeIntervalDayTime || t.Root == TypeIntervalYearMonth
}

// MaxLength is the length Flink gives STRING (VARCHAR) and BYTES (VARBINARY).
const MaxLength = 2147483647

// Field is one named member of a ROW type.
type Field struct {
	Name        string
	Type        DataType
	Description string
}

// DataType is a logical type with its nullability and parameters. It is a
// value type; composite types point to their element types.
type DataType struct {
	Root     TypeRoot
	Nullable bool
	// Length of CHAR, VARCHAR, BINARY, VARBINARY (MaxLength for STRING/BYTES).
	Length int
	// Precision of DECIMAL, TIME, TIMESTAMP and TIMESTAMP_LTZ.
	Precision int
	// Scale of DECIMAL.
	Scale int
	// Elem is the element type of ARRAY and the key type of MAP.
	Elem *DataType
	// Value is the value type of MAP.
	Value *DataType
	// Fields are the members of ROW.
	Fields []Field
	// Unit is an INTERVAL type's resolution (IntervalNone otherwise).
	Unit IntervalUnit
}

// Constructors for the common types; all nullable, as in Flink DDL.
func Boolean() DataType        { return DataType{Root: TypeBoolean, Nullable: true} }
func TinyInt() DataType        { return DataType{Root: TypeTinyInt, Nullable: true} }
func SmallInt() DataType       { return DataType{Root: TypeSmallInt, Nullable: true} }
func Int() DataType            { return DataType{Root: TypeInt, Nullable: true} }
func BigInt() DataType         { return DataType{Root: TypeBigInt, Nullable: true} }
func Float() DataType          { return DataType{Root: TypeFloat, Nullable: true} }
func Double() DataType         { return DataType{Root: TypeDouble, Nullable: true} }
func Date() DataType           { return DataType{Root: TypeDate, Nullable: true} }
func String() DataType         { return DataType{Root: TypeVarChar, Nullable: true, Length: MaxLength} }
func Bytes() DataType          { return DataType{Root: TypeVarBinary, Nullable: true, Length: MaxLength} }
func Char(n int) DataType      { return DataType{Root: TypeChar, Nullable: true, Length: n} }
func VarChar(n int) DataType   { return DataType{Root: TypeVarChar, Nullable: true, Length: n} }
func Binary(n int) DataType    { return DataType{Root: TypeBinary, Nullable: true, Length: n} }
func VarBinary(n int) DataType { return DataType{Root: TypeVarBinary, Nullable: true, Length: n} }
func Decimal(p, s int) DataType {
	return DataType{Root: TypeDecimal, Nullable: true, Precision: p, Scale: s}
}
func Time(p int) DataType      { return DataType{Root: TypeTime, Nullable: true, Precision: p} }
func Timestamp(p int) DataType { return DataType{Root: TypeTimestamp, Nullable: true, Precision: p} }
func TimestampLTZ(p int) DataType {
	return DataType{Root: TypeTimestampLTZ, Nullable: true, Precision: p}
}
func Null() DataType { return DataType{Root: TypeNull, Nullable: true} }

// ArrayOf builds ARRAY<elem>.
func ArrayOf(elem DataType) DataType {
	return DataType{Root: TypeArray, Nullable: true, Elem: &elem}
}

// MultisetOf builds MULTISET<elem>.
func MultisetOf(elem DataType) DataType {
	return DataType{Root: TypeMultiset, Nullable: true, Elem: &elem}
}

// MapOf builds MAP<key, value>.
func MapOf(key, value DataType) DataType {
	return DataType{Root: TypeMap, Nullable: true, Elem: &key, Value: &value}
}

// RowOf builds ROW<fields...>.
func RowOf(fields ...Field) DataType {
	return DataType{Root: TypeRow, Nullable: true, Fields: fields}
}

// NotNull returns t without nullability.
func (t DataType) NotNull() DataType { t.Nullable = false; return t }

// WithNullable returns t with the given nullability.
func (t DataType) WithNullable(n bool) DataType { t.Nullable = n; return t }

// MaxPlannerTimePrecision is the largest TIME precision Calcite's type
// system keeps in an expression's type (RelDataTypeSystemImpl.getMaxPrecision:
// SqlTypeName.MAX_DATETIME_PRECISION, which FlinkTypeSystem leaves as it
// is): SqlTypeFactoryImpl.createSqlType clamps CAST(x AS TIME(9)) and
// TIME '12:34:56.123456' to TIME(3).
const MaxPlannerTimePrecision = 3

// Planned is t as Flink 1.20's planner types a column or a result: every
// TIME, nested ones included, is TIME(0). FlinkTypeFactory.toLogicalType
// maps Calcite's TIME of any precision to new TimeType() ("the planner
// supports precision 3, but for consistency with old planner, we set it to
// 0", FLINK-17224), and createFieldTypeFromLogicalType reads a catalog's
// TIME(p) back as Calcite's TIME, precision 0. DDL column types
// (MergeTableLikeUtil, AlterSchemaConverter), a computed column's type, a
// query's result schema and a table's scan row all pass through one of
// them. The value is not changed: a TIME holds milliseconds of the day
// whatever its precision, and TIME(0) prints them without a fraction.
func Planned(t DataType) DataType {
	switch t.Root {
	case TypeTime:
		t.Precision = 0
	case TypeArray, TypeMap, TypeMultiset:
		if t.Elem != nil {
			e := Planned(*t.Elem)
			t.Elem = &e
		}
		if t.Value != nil {
			v := Planned(*t.Value)
			t.Value = &v
		}
	case TypeRow:
		fields := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = Planned(f.Type)
			fields[i] = f
		}
		t.Fields = fields
	}
	return t
}

// IsNumeric reports the exact and approximate numeric types.
func (t DataType) IsNumeric() bool {
	switch t.Root {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeDecimal:
		return true
	}
	return false
}

// IsIntegral reports TINYINT, SMALLINT, INT and BIGINT.
func (t DataType) IsIntegral() bool {
	switch t.Root {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt:
		return true
	}
	return false
}

// IsString reports CHAR and VARCHAR (STRING).
func (t DataType) IsString() bool { return t.Root == TypeChar || t.Root == TypeVarChar }

// IsBinary reports BINARY and VARBINARY (BYTES).
func (t DataType) IsBinary() bool { return t.Root == TypeBinary || t.Root == TypeVarBinary }

// Equal compares types structurally, nullability included.
func (t DataType) Equal(o DataType) bool {
	if t.Root != o.Root || t.Nullable != o.Nullable || t.Length != o.Length ||
		t.Precision != o.Precision || t.Scale != o.Scale || t.Unit != o.Unit || len(t.Fields) != len(o.Fields) {
		return false
	}
	if (t.Elem == nil) != (o.Elem == nil) || (t.Value == nil) != (o.Value == nil) {
		return false
	}
	if t.Elem != nil && !t.Elem.Equal(*o.Elem) {
		return false
	}
	if t.Value != nil && !t.Value.Equal(*o.Value) {
		return false
	}
	for i := range t.Fields {
		if t.Fields[i].Name != o.Fields[i].Name || !t.Fields[i].Type.Equal(o.Fields[i].Type) {
			return false
		}
	}
	return true
}

// String prints the type as Flink's asSummaryString does, which is what
// DESCRIBE and SHOW CREATE TABLE show: "INT NOT NULL", "STRING",
// "DECIMAL(10, 2)", "TIMESTAMP_LTZ(3)", "ROW<`a` INT>".
func (t DataType) String() string {
	s := t.baseString()
	if !t.Nullable && t.Root != TypeNull {
		s += " NOT NULL"
	}
	return s
}

func (t DataType) baseString() string {
	switch t.Root {
	case TypeNull:
		return "NULL"
	case TypeBoolean:
		return "BOOLEAN"
	case TypeTinyInt:
		return "TINYINT"
	case TypeSmallInt:
		return "SMALLINT"
	case TypeInt:
		return "INT"
	case TypeBigInt:
		return "BIGINT"
	case TypeFloat:
		return "FLOAT"
	case TypeDouble:
		return "DOUBLE"
	case TypeDecimal:
		return fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case TypeChar:
		return fmt.Sprintf("CHAR(%d)", t.Length)
	case TypeVarChar:
		if t.Length == MaxLength {
			return "STRING"
		}
		return fmt.Sprintf("VARCHAR(%d)", t.Length)
	case TypeBinary:
		return fmt.Sprintf("BINARY(%d)", t.Length)
	case TypeVarBinary:
		if t.Length == MaxLength {
			return "BYTES"
		}
		return fmt.Sprintf("VARBINARY(%d)", t.Length)
	case TypeDate:
		return "DATE"
	case TypeTime:
		return fmt.Sprintf("TIME(%d)", t.Precision)
	case TypeTimestamp:
		return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	case TypeTimestampLTZ:
		return fmt.Sprintf("TIMESTAMP_LTZ(%d)", t.Precision)
	case TypeIntervalDayTime:
		// DayTimeIntervalType.asSummaryString for the units Flink keeps.
		switch t.Unit {
		case IntervalDay:
			return fmt.Sprintf("INTERVAL DAY(%d)", t.Precision)
		case IntervalHour:
			return "INTERVAL HOUR"
		case IntervalMinute:
			return "INTERVAL MINUTE"
		}
		return fmt.Sprintf("INTERVAL SECOND(%d)", t.Scale)
	case TypeIntervalYearMonth:
		if t.Unit == IntervalYear {
			return fmt.Sprintf("INTERVAL YEAR(%d)", t.Precision)
		}
		return "INTERVAL MONTH"
	case TypeArray:
		return "ARRAY<" + t.Elem.String() + ">"
	case TypeMultiset:
		return "MULTISET<" + t.Elem.String() + ">"
	case TypeMap:
		return "MAP<" + t.Elem.String() + ", " + t.Value.String() + ">"
	case TypeRow:
		var b strings.Builder
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdentifier(f.Name))
			b.WriteByte(' ')
			b.WriteString(f.Type.String())
			if f.Description != "" {
				b.WriteString(" '" + strings.ReplaceAll(f.Description, "'", "''") + "'")
			}
		}
		b.WriteString(">")
		return b.String()
	}
	return fmt.Sprintf("UNKNOWN(%d)", t.Root)
}

// QuoteIdentifier quotes a name with backticks as Flink SQL does, doubling
// any backtick inside it.
func QuoteIdentifier(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
