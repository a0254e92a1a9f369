package parser

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// dataType reads a Flink SQL type with its nullability. Defaults follow
// Flink (FlinkTypeSystem.getDefaultPrecision and Calcite's defaults, as
// SqlDdlToOperationConverterTest.testCreateTableWithFullDataTypes shows):
// DECIMAL → (10, 0), CHAR → CHAR(1), BINARY → BINARY(1), VARCHAR (and CHAR
// VARYING) → VARCHAR(MaxLength) = STRING, VARBINARY (and BINARY VARYING) →
// VARBINARY(MaxLength) = BYTES, TIME → 0, TIMESTAMP and TIMESTAMP_LTZ → 6.
// Parameters out of range fail with Flink's ValidationException messages.
func (p *parser) dataType() sql.DataType {
	t := p.baseType()
	for p.peek().is("ARRAY") { // "INT ARRAY" (the SQL-standard suffix form)
		p.next()
		t = sql.ArrayOf(t)
		t = p.nullability(t)
	}
	return t
}

// nullability reads an optional NOT NULL or NULL after a type.
func (p *parser) nullability(t sql.DataType) sql.DataType {
	if p.peek().is("NOT") && p.peekAt(1).is("NULL") {
		p.next()
		p.next()
		return t.NotNull()
	}
	if p.accept("NULL") {
		return t.WithNullable(true)
	}
	return t
}

// typeParam reads one integer parameter.
func (p *parser) typeParam() (int, token) {
	t := p.peek()
	if t.kind != tNumber || strings.ContainsAny(t.text, ".eE") {
		p.fail(t)
	}
	p.next()
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil || n > sql.MaxLength {
		n = sql.MaxLength + 1 // out of every range: the checks below report it
	}
	return int(n), t
}

// optParam reads an optional "(n)".
func (p *parser) optParam(def int) (int, token) {
	if p.acceptOp("(") {
		n, t := p.typeParam()
		p.expectOp(")")
		return n, t
	}
	return def, p.peek()
}

func (p *parser) lengthCheck(n int, t token, what string) {
	if n < 1 || n > sql.MaxLength {
		p.failMsg(sql.ValidationException, t, "%s string length must be between 1 and %d (both inclusive).", what, sql.MaxLength)
	}
}

func (p *parser) precisionCheck(n int, t token, what string) {
	if n < 0 || n > 9 {
		p.failMsg(sql.ValidationException, t, "%s precision must be between 0 and 9 (both inclusive).", what)
	}
}

func (p *parser) baseType() sql.DataType {
	t := p.peek()
	if t.kind != tIdent {
		p.fail(t)
	}
	p.next()
	var dt sql.DataType
	switch strings.ToUpper(t.text) {
	case "BOOLEAN", "BOOL":
		dt = sql.Boolean()
	case "TINYINT":
		dt = sql.TinyInt()
	case "SMALLINT":
		dt = sql.SmallInt()
	case "INT", "INTEGER":
		dt = sql.Int()
	case "BIGINT":
		dt = sql.BigInt()
	case "FLOAT", "REAL":
		dt = sql.Float()
	case "DOUBLE":
		p.accept("PRECISION")
		dt = sql.Double()
	case "DECIMAL", "DEC", "NUMERIC":
		prec, scale := 10, 0
		pt, st := p.peek(), p.peek()
		if p.acceptOp("(") {
			prec, pt = p.typeParam()
			if p.acceptOp(",") {
				scale, st = p.typeParam()
			}
			p.expectOp(")")
		}
		if prec < 1 || prec > 38 {
			p.failMsg(sql.ValidationException, pt, "Decimal precision must be between 1 and 38 (both inclusive).")
		}
		if scale < 0 || scale > prec {
			p.failMsg(sql.ValidationException, st, "Decimal scale must be between 0 and the precision %d (both inclusive).", prec)
		}
		dt = sql.Decimal(prec, scale)
	case "CHAR", "CHARACTER":
		if p.accept("VARYING") {
			n, nt := p.optParam(sql.MaxLength)
			p.lengthCheck(n, nt, "Character")
			dt = sql.VarChar(n)
			break
		}
		n, nt := p.optParam(1)
		p.lengthCheck(n, nt, "Character")
		dt = sql.Char(n)
	case "VARCHAR":
		n, nt := p.optParam(sql.MaxLength)
		p.lengthCheck(n, nt, "Character")
		dt = sql.VarChar(n)
	case "STRING":
		dt = sql.String()
	case "BINARY":
		if p.accept("VARYING") {
			n, nt := p.optParam(sql.MaxLength)
			p.lengthCheck(n, nt, "Binary")
			dt = sql.VarBinary(n)
			break
		}
		n, nt := p.optParam(1)
		p.lengthCheck(n, nt, "Binary")
		dt = sql.Binary(n)
	case "VARBINARY":
		n, nt := p.optParam(sql.MaxLength)
		p.lengthCheck(n, nt, "Binary")
		dt = sql.VarBinary(n)
	case "BYTES":
		dt = sql.Bytes()
	case "DATE":
		dt = sql.Date()
	case "TIME":
		n, nt := p.optParam(0)
		p.precisionCheck(n, nt, "Time")
		p.withoutTimeZone()
		dt = sql.Time(n)
	case "TIMESTAMP":
		n, nt := p.optParam(6)
		p.precisionCheck(n, nt, "Timestamp")
		dt = sql.Timestamp(n)
		if p.peek().is("WITH") && p.peekAt(1).is("LOCAL") {
			p.next()
			p.next()
			p.expect("TIME")
			p.expect("ZONE")
			dt = sql.TimestampLTZ(n)
		} else {
			p.withoutTimeZone()
		}
	case "TIMESTAMP_LTZ":
		n, nt := p.optParam(6)
		p.precisionCheck(n, nt, "Timestamp")
		dt = sql.TimestampLTZ(n)
	case "INTERVAL":
		dt = p.intervalType()
	case "ARRAY":
		p.expectOp("<")
		elem := p.dataType()
		p.expectOp(">")
		dt = sql.ArrayOf(elem)
	case "MAP":
		p.expectOp("<")
		k := p.dataType()
		p.expectOp(",")
		v := p.dataType()
		p.expectOp(">")
		dt = sql.MapOf(k, v)
	case "ROW":
		closer := ">"
		if p.acceptOp("<>") { // ROW<>: lexed as the not-equals operator
			dt = sql.RowOf()
			break
		}
		if p.acceptOp("(") {
			closer = ")"
		} else {
			p.expectOp("<")
		}
		var fields []sql.Field
		if !p.acceptOp(closer) {
			for p.err == nil {
				name, _ := p.ident()
				f := sql.Field{Name: name, Type: p.dataType()}
				if p.peek().kind == tString {
					f.Description = p.next().val
				}
				fields = append(fields, f)
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(closer)
		}
		dt = sql.RowOf(fields...)
	default:
		p.fail(t)
	}
	return p.nullability(dt)
}

// withoutTimeZone reads an optional WITHOUT TIME ZONE.
func (p *parser) withoutTimeZone() {
	if p.accept("WITHOUT") {
		p.expect("TIME")
		p.expect("ZONE")
	}
}

// intervalType reads the qualifier of an INTERVAL type after the INTERVAL
// keyword: a unit with an optional leading precision (SECOND's also a
// fractional one), then optionally TO and a finer unit (SECOND with an
// optional fractional precision). The type is the one Flink's planner
// keeps for the qualifier (sql.Interval). As FlinkTypeFactory.toLogicalType
// does, a qualifier ending in SECOND with a leading precision above 3 is
// refused.
func (p *parser) intervalType() sql.DataType {
	unit := func() (string, token) {
		t := p.peek()
		u := strings.ToUpper(t.text)
		switch u {
		case "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND":
		default:
			p.fail(t)
		}
		p.next()
		return u, t
	}
	from, fromTok := unit()
	lead := 2
	if p.acceptOp("(") {
		lead, _ = p.typeParam()
		if from == "SECOND" && p.acceptOp(",") {
			p.typeParam()
		}
		p.expectOp(")")
	}
	to := ""
	if p.accept("TO") {
		var toTok token
		to, toTok = unit()
		if to == "SECOND" {
			p.optParam(6)
		}
		if _, ok := sql.Interval(from, to); !ok {
			p.fail(toTok)
		}
	}
	dt, ok := sql.Interval(from, to)
	if !ok {
		p.fail(fromTok)
	}
	if dt.Unit == sql.IntervalSecond && lead > 3 {
		p.failMsg(sql.TableException, fromTok, "DAY_INTERVAL_TYPES precision is not supported: %d", lead)
	}
	return dt
}

// ParseDataType reads one data type written in SQL, such as "BIGINT" or
// "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL", as a connector option
// declaring a type does (Flink's LogicalTypeParser; the values connector's
// 'readable-metadata' = 'originTime:BIGINT'). Defaults are the DDL's.
func ParseDataType(text string) (t sql.DataType, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = sql.Errorf(sql.SqlParserException, "SQL parse failed. internal error: %v", r)
		}
	}()
	text = strings.ToValidUTF8(text, "\uFFFD")
	if err := checkSize(text); err != nil {
		return sql.DataType{}, err
	}
	toks, lexErr := lex(text)
	li := newLineIndex(text)
	if lexErr != nil {
		pe := lexFailure(text, lexErr, li.pos)
		pe.Statement = text
		return sql.DataType{}, newError(sql.SqlParserException, pe)
	}
	p := newParser(text, toks, li)
	if p.checkNesting(); p.err != nil {
		return sql.DataType{}, p.err
	}
	t = p.dataType()
	if tok := p.peek(); tok.kind != tEOF {
		p.fail(tok)
	}
	if p.err != nil {
		return sql.DataType{}, p.err
	}
	return t, nil
}
