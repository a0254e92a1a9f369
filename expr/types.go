package expr

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// Type rules follow Flink's (LogicalTypeMerging, Calcite's
// SqlTypeFactoryImpl): integer arithmetic widens to the wider operand,
// DECIMAL arithmetic follows the SQL:2003 precision/scale rules Flink uses,
// and anything with FLOAT/DOUBLE becomes DOUBLE (or FLOAT for two FLOATs).

// MaxDecimalPrecision is Flink's DecimalType.MAX_PRECISION.
const MaxDecimalPrecision = 38

// intPrecision is the number of decimal digits an integer type holds, as
// Flink's LogicalTypeMerging uses when an integer meets a DECIMAL.
func intPrecision(r sql.TypeRoot) int {
	switch r {
	case sql.TypeTinyInt:
		return 3
	case sql.TypeSmallInt:
		return 5
	case sql.TypeInt:
		return 10
	case sql.TypeBigInt:
		return 19
	}
	return 0
}

// asDecimal views an exact numeric type as DECIMAL(p, s).
func asDecimal(t sql.DataType) sql.DataType {
	if t.Root == sql.TypeDecimal {
		return t
	}
	return sql.Decimal(intPrecision(t.Root), 0).WithNullable(t.Nullable)
}

func numericRank(r sql.TypeRoot) int {
	switch r {
	case sql.TypeTinyInt:
		return 1
	case sql.TypeSmallInt:
		return 2
	case sql.TypeInt:
		return 3
	case sql.TypeBigInt:
		return 4
	case sql.TypeDecimal:
		return 5
	case sql.TypeFloat:
		return 6
	case sql.TypeDouble:
		return 7
	}
	return 0
}

func boundDecimal(p, s int) (int, int) {
	if p > MaxDecimalPrecision {
		// Keep at least min(s, 6) fractional digits, as Flink's
		// LogicalTypeMerging.adjustPrecisionScale does.
		intDigits := p - s
		minScale := s
		if minScale > 6 {
			minScale = 6
		}
		s = MaxDecimalPrecision - intDigits
		if s < minScale {
			s = minScale
		}
		p = MaxDecimalPrecision
	}
	return p, s
}

// ArithmeticType is the result type of + - * / % on two numeric types.
func ArithmeticType(op string, a, b sql.DataType) sql.DataType {
	nullable := a.Nullable || b.Nullable
	if a.Root == sql.TypeDouble || b.Root == sql.TypeDouble ||
		(a.Root == sql.TypeFloat) != (b.Root == sql.TypeFloat) && (a.Root == sql.TypeFloat || b.Root == sql.TypeFloat) {
		if a.Root == sql.TypeFloat && b.Root == sql.TypeFloat {
			return sql.Float().WithNullable(nullable)
		}
		return sql.Double().WithNullable(nullable)
	}
	if a.Root == sql.TypeFloat && b.Root == sql.TypeFloat {
		return sql.Float().WithNullable(nullable)
	}
	if a.Root == sql.TypeDecimal || b.Root == sql.TypeDecimal {
		da, db := asDecimal(a), asDecimal(b)
		p1, s1, p2, s2 := da.Precision, da.Scale, db.Precision, db.Scale
		var p, s int
		switch op {
		case "+", "-":
			s = max(s1, s2)
			p = max(p1-s1, p2-s2) + s + 1
		case "*":
			// LogicalTypeMerging.findMultiplicationDecimalType.
			p, s = p1+p2+1, s1+s2
		case "/":
			s = max(6, s1+p2+1)
			p = p1 - s1 + s2 + s
		case "%":
			s = max(s1, s2)
			p = min(p1-s1, p2-s2) + s
		}
		p, s = boundDecimal(p, s)
		return sql.Decimal(p, s).WithNullable(nullable)
	}
	// Integers: the wider one (Calcite's leastRestrictive).
	t := a
	if numericRank(b.Root) > numericRank(a.Root) {
		t = b
	}
	if op == "%" {
		t = b // MOD returns the divisor's type
	}
	return t.WithNullable(nullable)
}

// CommonType is the type two operands are compared or unified in (CASE,
// COALESCE, IN, UNION), or false when they have none.
func CommonType(a, b sql.DataType) (sql.DataType, bool) {
	nullable := a.Nullable || b.Nullable
	if a.Root == sql.TypeNull {
		return b.WithNullable(true), true
	}
	if b.Root == sql.TypeNull {
		return a.WithNullable(true), true
	}
	if nested(a) || nested(b) {
		return commonNested(a, b)
	}
	switch {
	case a.IsNumeric() && b.IsNumeric():
		if a.Root == sql.TypeDecimal || b.Root == sql.TypeDecimal {
			if a.Root == sql.TypeDouble || b.Root == sql.TypeDouble || a.Root == sql.TypeFloat || b.Root == sql.TypeFloat {
				return sql.Double().WithNullable(nullable), true
			}
			da, db := asDecimal(a), asDecimal(b)
			s := max(da.Scale, db.Scale)
			p := max(da.Precision-da.Scale, db.Precision-db.Scale) + s
			p, s = boundDecimal(p, s)
			return sql.Decimal(p, s).WithNullable(nullable), true
		}
		t := a
		if numericRank(b.Root) > numericRank(a.Root) {
			t = b
		}
		return t.WithNullable(nullable), true
	case a.IsString() && b.IsString():
		// CHARs of different lengths unify as a VARCHAR (FlinkTypeSystem
		// shouldConvertRaggedUnionTypesToVarying), so that CASE, VALUES
		// and UNION do not pad the shorter ones with spaces.
		if a.Root == sql.TypeChar && b.Root == sql.TypeChar && a.Length == b.Length {
			return sql.Char(a.Length).WithNullable(nullable), true
		}
		return sql.VarChar(max(a.Length, b.Length)).WithNullable(nullable), true
	case a.IsBinary() && b.IsBinary():
		if a.Root == sql.TypeBinary && b.Root == sql.TypeBinary && a.Length == b.Length {
			return sql.Binary(a.Length).WithNullable(nullable), true
		}
		return sql.VarBinary(max(a.Length, b.Length)).WithNullable(nullable), true
	case a.Root == b.Root:
		t := a
		if b.Precision > t.Precision {
			t.Precision = b.Precision
		}
		return t.WithNullable(nullable), true
	case (a.Root == sql.TypeTimestamp || a.Root == sql.TypeDate) && (b.Root == sql.TypeTimestamp || b.Root == sql.TypeDate):
		p := max(a.Precision, b.Precision)
		return sql.Timestamp(p).WithNullable(nullable), true
	}
	return sql.DataType{}, false
}

// commonNested is the least restrictive type of two ARRAY, MAP or ROW
// types, as Calcite's SqlTypeFactoryImpl.leastRestrictive derives it
// (leastRestrictiveArrayMultisetType, leastRestrictiveMapType,
// leastRestrictiveStructuredType): of the same root, their element, key,
// value and field types unified one by one (a ROW's field names are the
// first one's), nullable if either is.
func commonNested(a, b sql.DataType) (sql.DataType, bool) {
	if a.Root != b.Root {
		return sql.DataType{}, false
	}
	nullable := a.Nullable || b.Nullable
	switch a.Root {
	case sql.TypeArray:
		e, ok := CommonType(*a.Elem, *b.Elem)
		if !ok {
			return sql.DataType{}, false
		}
		return sql.ArrayOf(e).WithNullable(nullable), true
	case sql.TypeMap:
		k, ok := CommonType(*a.Elem, *b.Elem)
		v, ok2 := CommonType(*a.Value, *b.Value)
		if !ok || !ok2 {
			return sql.DataType{}, false
		}
		return sql.MapOf(k, v).WithNullable(nullable), true
	}
	if len(a.Fields) != len(b.Fields) {
		return sql.DataType{}, false
	}
	fields := make([]sql.Field, len(a.Fields))
	for i, f := range a.Fields {
		t, ok := CommonType(f.Type, b.Fields[i].Type)
		if !ok {
			return sql.DataType{}, false
		}
		fields[i] = sql.Field{Name: f.Name, Type: t}
	}
	return sql.RowOf(fields...).WithNullable(nullable), true
}

// Comparable reports whether two types may be compared with = < > etc.
// Flink (Calcite) also compares strings with numbers and dates by an
// implicit cast; sqlrun allows the same pairs.
func Comparable(a, b sql.DataType) bool {
	if _, ok := CommonType(a, b); ok {
		return true
	}
	isTemporal := func(t sql.DataType) bool {
		return t.Root == sql.TypeDate || t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ || t.Root == sql.TypeTime
	}
	if ltzAndTimestamp(a, b) {
		// Calcite's SqlTypeFamily.TIMESTAMP holds both.
		return true
	}
	if a.IsString() && (b.IsNumeric() || isTemporal(b) || b.Root == sql.TypeBoolean) ||
		b.IsString() && (a.IsNumeric() || isTemporal(a) || a.Root == sql.TypeBoolean) {
		return true
	}
	return false
}

// SupportsImplicitCast is Flink's LogicalTypeCasts.supportsImplicitCast,
// reduced to the types sqlrun has: what an INSERT may write into a sink
// column without an explicit CAST.
func SupportsImplicitCast(from, to sql.DataType) bool {
	if from.Root == sql.TypeNull {
		return true
	}
	if from.Nullable && !to.Nullable {
		// Nullability is checked at runtime by the NOT NULL enforcer.
		from = from.NotNull()
	}
	switch {
	case from.Root == to.Root:
		switch from.Root {
		case sql.TypeArray:
			return SupportsImplicitCast(*from.Elem, *to.Elem)
		case sql.TypeMap:
			return SupportsImplicitCast(*from.Elem, *to.Elem) && SupportsImplicitCast(*from.Value, *to.Value)
		case sql.TypeRow:
			if len(from.Fields) != len(to.Fields) {
				return false
			}
			for i := range from.Fields {
				if !SupportsImplicitCast(from.Fields[i].Type, to.Fields[i].Type) {
					return false
				}
			}
		}
		return true
	case from.IsNumeric() && to.IsNumeric():
		return numericRank(from.Root) <= numericRank(to.Root) || to.Root == sql.TypeDecimal && from.Root != sql.TypeFloat && from.Root != sql.TypeDouble
	case from.IsString() && to.IsString():
		return true
	case from.IsBinary() && to.IsBinary():
		return true
	case from.Root == sql.TypeTimestamp && to.Root == sql.TypeTimestampLTZ,
		from.Root == sql.TypeTimestampLTZ && to.Root == sql.TypeTimestamp:
		return true
	}
	return false
}

// serializable prints a type as Flink's LogicalType.asSerializableString:
// STRING is VARCHAR(2147483647), BYTES is VARBINARY(2147483647).
func serializable(t sql.DataType) string {
	s := ""
	switch {
	case t.Root == sql.TypeRow:
		// Calcite's RelRecordType: RecordType(INTEGER a, VARCHAR(10) b).
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = serializable(f.Type) + " " + f.Name
		}
		return "RecordType(" + strings.Join(parts, ", ") + ")"
	case t.Root == sql.TypeVarChar && t.Length == sql.MaxLength:
		s = "VARCHAR(2147483647)"
	case t.Root == sql.TypeVarBinary && t.Length == sql.MaxLength:
		s = "VARBINARY(2147483647)"
	case t.Root == sql.TypeInt:
		// Calcite's SqlTypeName: CAST(x AS INTEGER), as Flink prints it
		// (TableScanTest.testDDLWithMetadataColumn).
		s = "INTEGER"
	default:
		return t.String()
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s
}

// CalciteType prints a type as Calcite's RelDataType digest does, which is
// what the Abstract Syntax Tree shows after a literal or a CAST:
// INTEGER, VARCHAR(2147483647) CHARACTER SET "UTF-16LE", DECIMAL(10, 2).
func CalciteType(t sql.DataType) string {
	itoa := strconv.Itoa
	var s string
	switch t.Root {
	case sql.TypeInt:
		s = "INTEGER"
	case sql.TypeVarChar:
		s = "VARCHAR(" + itoa(t.Length) + ") CHARACTER SET \"UTF-16LE\""
	case sql.TypeChar:
		s = "CHAR(" + itoa(t.Length) + ") CHARACTER SET \"UTF-16LE\""
	case sql.TypeVarBinary:
		s = "VARBINARY(" + itoa(t.Length) + ")"
	case sql.TypeFloat:
		s = "FLOAT"
	case sql.TypeTimestampLTZ:
		s = "TIMESTAMP_WITH_LOCAL_TIME_ZONE(" + itoa(t.Precision) + ")"
	case sql.TypeMultiset:
		// Calcite's MultisetSqlType: "E MULTISET".
		s = CalciteType(t.Elem.WithNullable(true)) + " MULTISET"
	case sql.TypeArray, sql.TypeMap:
		// Calcite's ArraySqlType and MapSqlType: "E ARRAY", "(K, V) MAP",
		// the members without their nullability (TableSinkTest.
		// testInsertPartColumn prints MAP<STRING NOT NULL, BIGINT NOT NULL>
		// as (VARCHAR(2147483647), BIGINT) MAP).
		if t.Elem == nil || (t.Root == sql.TypeMap && t.Value == nil) {
			s = t.WithNullable(true).String()
			break
		}
		if t.Root == sql.TypeArray {
			s = CalciteType(t.Elem.WithNullable(true)) + " ARRAY"
		} else {
			s = "(" + CalciteType(t.Elem.WithNullable(true)) + ", " + CalciteType(t.Value.WithNullable(true)) + ") MAP"
		}
	default:
		s = t.WithNullable(true).String()
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s
}
