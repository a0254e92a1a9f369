package expr

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// inferTypeOf types TYPEOF(input [, force_serializable]) as Flink's
// BuiltInFunctionDefinitions.TYPE_OF: any input, and a BOOLEAN literal
// (and(logical(BOOLEAN), LITERAL)) as the optional second argument; the
// result is a nullable STRING (explicit(DataTypes.STRING())).
func inferTypeOf(name string, args []Expr) ([]Expr, sql.DataType, error) {
	const signatures = "TYPEOF(input <ANY>)\nTYPEOF(input <ANY>, force_serializable [<BOOLEAN> & <LITERAL NOT NULL>])"
	switch len(args) {
	case 1:
	case 2:
		l, ok := args[1].(*Literal)
		if !ok || l.T.Root != sql.TypeBoolean || l.Value == nil {
			return nil, sql.DataType{}, invalidCall(name, args, signatures)
		}
	default:
		return nil, sql.DataType{}, invalidCall(name, args, signatures)
	}
	return args, sql.String(), nil
}

// evalTypeOf is TypeOfFunction: the input's logical type as
// LogicalType.asSummaryString prints it (INT NOT NULL, STRING,
// TIMESTAMP_LTZ(3)), or with force_serializable TRUE as
// asSerializableString does (VARCHAR(2147483647), TIMESTAMP(3) WITH LOCAL
// TIME ZONE), NULL where the type has no serializable form (a CHAR(0)).
// The string is fixed when the call is planned; the input is not read.
func evalTypeOf(c *Call, _ []Eval) (Eval, error) {
	t := c.Args[0].Type()
	var v any = t.String()
	if len(c.Args) == 2 {
		if force, _ := c.Args[1].(*Literal).Value.(bool); force {
			if s, ok := serializableString(t); ok {
				v = s
			} else {
				v = nil
			}
		}
	}
	return func([]any) (any, error) { return v, nil }, nil
}

// serializableString is Flink's LogicalType.asSerializableString: the
// summary form (sql.DataType.String) except that a STRING is
// VARCHAR(2147483647), BYTES VARBINARY(2147483647) and TIMESTAMP_LTZ(p)
// TIMESTAMP(p) WITH LOCAL TIME ZONE, nested types alike; a character or
// binary string of length 0 (the type of ” and X”) has none
// ("Zero-length character strings have no serializable string
// representation.").
func serializableString(t sql.DataType) (string, bool) {
	var s string
	switch t.Root {
	case sql.TypeChar, sql.TypeVarChar, sql.TypeBinary, sql.TypeVarBinary:
		if t.Length == 0 {
			return "", false
		}
		name := map[sql.TypeRoot]string{sql.TypeChar: "CHAR", sql.TypeVarChar: "VARCHAR", sql.TypeBinary: "BINARY", sql.TypeVarBinary: "VARBINARY"}[t.Root]
		s = fmt.Sprintf("%s(%d)", name, t.Length)
	case sql.TypeTimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case sql.TypeArray:
		e, ok := serializableString(*t.Elem)
		if !ok {
			return "", false
		}
		s = "ARRAY<" + e + ">"
	case sql.TypeMap:
		k, ok := serializableString(*t.Elem)
		if !ok {
			return "", false
		}
		v, ok := serializableString(*t.Value)
		if !ok {
			return "", false
		}
		s = "MAP<" + k + ", " + v + ">"
	case sql.TypeRow:
		var b strings.Builder
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			ft, ok := serializableString(f.Type)
			if !ok {
				return "", false
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sql.QuoteIdentifier(f.Name) + " " + ft)
			if f.Description != "" {
				b.WriteString(" '" + strings.ReplaceAll(f.Description, "'", "''") + "'")
			}
		}
		b.WriteString(">")
		s = b.String()
	default:
		return t.String(), true
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s, true
}
