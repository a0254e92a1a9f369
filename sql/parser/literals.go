package parser

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// numberLiteral types a numeric token as Calcite does: an integer is INT
// when it fits, else BIGINT, else DECIMAL(p, 0); a number with a point is
// DECIMAL(p, s) with the digits as written; one with an exponent is DOUBLE.
func (p *parser) numberLiteral(t token) *ast.Literal {
	l := &ast.Literal{Node: ast.Node{At: p.pos(t)}, Raw: t.text}
	switch {
	case strings.ContainsAny(t.text, "eE"):
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(f, 0) {
			p.failMsg(sql.SqlParserException, t, "SQL parse failed. Numeric literal '%s' out of range", t.text)
		}
		l.Kind, l.Value, l.Type = ast.LitFloat, f, sql.Double().NotNull()
	case strings.Contains(t.text, "."):
		d, err := decimal.NewFromString(t.text)
		if err != nil {
			p.fail(t)
		}
		scale := 0
		if i := strings.IndexByte(t.text, '.'); i >= 0 {
			scale = len(t.text) - i - 1
		}
		d = d.Round(int32(scale))
		prec := len(strings.TrimLeft(d.Coefficient().String(), "-"))
		if d.Coefficient().Sign() == 0 {
			prec = 1
		}
		if prec < scale {
			prec = scale
		}
		if prec > 38 {
			p.failMsg(sql.SqlParserException, t, "SQL parse failed. Numeric literal '%s' out of range", t.text)
		}
		l.Kind, l.Value, l.Type = ast.LitDecimal, d, sql.Decimal(max(prec, 1), scale).NotNull()
	default:
		if n, err := strconv.ParseInt(t.text, 10, 64); err == nil {
			if n >= math.MinInt32 && n <= math.MaxInt32 {
				l.Kind, l.Value, l.Type = ast.LitInt, int32(n), sql.Int().NotNull()
			} else {
				l.Kind, l.Value, l.Type = ast.LitInt, n, sql.BigInt().NotNull()
			}
			break
		}
		d, err := decimal.NewFromString(t.text)
		digits := len(strings.TrimLeft(t.text, "0"))
		if err != nil || digits > 38 {
			p.failMsg(sql.SqlParserException, t, "SQL parse failed. Numeric literal '%s' out of range", t.text)
		}
		l.Kind, l.Value, l.Type = ast.LitDecimal, d, sql.Decimal(digits, 0).NotNull()
	}
	return l
}

// stringLiteral types a string as CHAR(n) NOT NULL, n in characters.
func (p *parser) stringLiteral(t token) *ast.Literal {
	v := t.val
	if isUnicodeString(t.text) {
		var err error
		if v, err = unescapeUnicode(v); err != nil {
			p.failMsg(sql.SqlParserException, t, "SQL parse failed. %s", err)
		}
	}
	n := utf8.RuneCountInString(v)
	return &ast.Literal{Node: ast.Node{At: p.pos(t)}, Kind: ast.LitString, Raw: t.text, Value: v,
		Type: sql.Char(n).NotNull()}
}

// isUnicodeString reports a string token written U&'...' (or u&'...'),
// not a plain literal that starts with '&' ('&a\b').
func isUnicodeString(text string) bool {
	return len(text) > 3 && (text[0] == 'U' || text[0] == 'u') && text[1] == '&' && text[2] == '\''
}

// unescapeUnicode decodes a Unicode string literal's body (U&'...') as
// Calcite's SqlParserUtil.parseUnicodeLiteral does with the default
// escape character: \XXXX (four hex digits) is that UTF-16 code unit,
// \\ a backslash.
func unescapeUnicode(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	units := utf16.Encode([]rune(s))
	out := make([]uint16, 0, len(units))
	for i := 0; i < len(units); i++ {
		switch {
		case units[i] != '\\':
			out = append(out, units[i])
		case i+1 < len(units) && units[i+1] == '\\':
			out = append(out, '\\')
			i++
		default:
			var v uint64
			err := errors.New("short")
			if i+4 < len(units) {
				v, err = strconv.ParseUint(string(utf16.Decode(units[i+1:i+5])), 16, 16)
			}
			if err != nil {
				return "", fmt.Errorf("Unicode escape sequence starting at character %d is not exactly four hex digits", i)
			}
			out = append(out, uint16(v))
			i += 4
		}
	}
	return string(utf16.Decode(out)), nil
}

// binaryLiteral reads X'0A0B' as BINARY(n) NOT NULL.
func (p *parser) binaryLiteral(t token) *ast.Literal {
	h := strings.Join(strings.Fields(t.val), "")
	b, err := hex.DecodeString(h)
	if err != nil {
		p.failMsg(sql.SqlParserException, t, "SQL parse failed. Binary literal string must contain an even number of hexits")
	}
	return &ast.Literal{Node: ast.Node{At: p.pos(t)}, Kind: ast.LitBinary, Raw: t.text, Value: b,
		Type: sql.Binary(len(b)).NotNull()}
}

// fracPrecision counts the fractional second digits of a time string.
func fracPrecision(s string) int {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// temporalLiteral reads DATE '...', TIME '...', TIMESTAMP '...' and
// TIMESTAMP_LTZ '...' with Calcite's formats and messages.
func (p *parser) temporalLiteral(kw, str token) *ast.Literal {
	up := strings.ToUpper(kw.text)
	s := strings.TrimSpace(str.val)
	l := &ast.Literal{Node: ast.Node{At: p.pos(kw)}, Raw: up + " " + str.text}
	bad := func() {
		p.failMsg(sql.SqlParserException, kw, "SQL parse failed. Illegal %s literal '%s': not in format '%s'", up, str.val,
			map[string]string{"DATE": "yyyy-MM-dd", "TIME": "HH:mm:ss", "TIMESTAMP": "yyyy-MM-dd HH:mm:ss", "TIMESTAMP_LTZ": "yyyy-MM-dd HH:mm:ss"}[up])
	}
	switch up {
	case "DATE":
		d, err := time.Parse("2006-1-2", s)
		if err != nil {
			bad()
		}
		l.Kind, l.Value, l.Type = ast.LitDate, int32(d.Unix()/86400), sql.Date().NotNull()
	case "TIME":
		d, err := time.Parse("15:4:5.999999999", s)
		if err != nil {
			d, err = time.Parse("15:4", s)
		}
		if err != nil {
			bad()
		}
		ms := (d.Hour()*3600+d.Minute()*60+d.Second())*1000 + d.Nanosecond()/1e6
		l.Kind, l.Value, l.Type = ast.LitTime, int32(ms), sql.Time(min(fracPrecision(s), 9)).NotNull()
	default:
		var d time.Time
		var err error
		for _, layout := range []string{"2006-1-2 15:4:5.999999999", "2006-1-2 15:4", "2006-1-2T15:4:5.999999999", "2006-1-2"} {
			if d, err = time.Parse(layout, s); err == nil {
				break
			}
		}
		if err != nil {
			bad()
		}
		prec := min(fracPrecision(s), 9)
		l.Kind, l.Value = ast.LitTimestamp, sql.TimestampFromTime(d)
		if up == "TIMESTAMP" {
			l.Type = sql.Timestamp(prec).NotNull()
		} else {
			l.Type = sql.TimestampLTZ(prec).NotNull()
		}
	}
	return l
}

var intervalUnits = map[string]string{
	"YEAR": "YEAR", "YEARS": "YEAR", "MONTH": "MONTH", "MONTHS": "MONTH", "DAY": "DAY", "DAYS": "DAY",
	"HOUR": "HOUR", "HOURS": "HOUR", "MINUTE": "MINUTE", "MINUTES": "MINUTE", "SECOND": "SECOND", "SECONDS": "SECOND",
}

var unitOrder = []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"}

var unitMillis = map[string]int64{"DAY": 86400000, "HOUR": 3600000, "MINUTE": 60000, "SECOND": 1000}

// intervalLiteral reads INTERVAL [-]'n' UNIT [(p)] [TO UNIT [(p)]] starting at
// the INTERVAL token j; it returns the literal and the index after it, or
// nil and to when it fails.
func (p *parser) intervalLiteral(j, to int) (*ast.Literal, int) {
	kw := p.toks[j]
	k := j + 1
	neg := false
	if k < to && (p.toks[k].isOp("-") || p.toks[k].isOp("+")) {
		neg = p.toks[k].isOp("-")
		k++
	}
	if k >= to || (p.toks[k].kind != tString && p.toks[k].kind != tNumber) {
		p.fail(p.toks[min(k, len(p.toks)-1)])
		return nil, to
	}
	str := p.toks[k]
	val := str.val
	if str.kind == tNumber {
		val = str.text
	}
	k++
	unit := func() (string, token, bool) {
		if k >= to {
			p.fail(p.toks[min(k, len(p.toks)-1)])
			return "", token{}, false
		}
		u, ok := intervalUnits[strings.ToUpper(p.toks[k].text)]
		if !ok || p.toks[k].kind != tIdent {
			p.fail(p.toks[k])
			return "", token{}, false
		}
		ut := p.toks[k]
		k++
		if k+2 < to && p.toks[k].isOp("(") && p.toks[k+1].kind == tNumber && p.toks[k+2].isOp(")") {
			k += 3 // leading / fractional precision: accepted, not kept
		}
		return u, ut, true
	}
	from, fromTok, ok := unit()
	if !ok {
		return nil, to
	}
	toUnit := from
	qual := from
	if k < to && p.toks[k].is("TO") {
		k++
		if toUnit, _, ok = unit(); !ok {
			return nil, to
		}
		qual = from + " TO " + toUnit
	}
	fi, ti := indexOf(unitOrder, from), indexOf(unitOrder, toUnit)
	if ti < fi || (fi <= 1) != (ti <= 1) {
		p.fail(fromTok)
		return nil, to
	}
	s := strings.TrimSpace(val)
	if strings.HasPrefix(s, "-") {
		neg = !neg
		s = strings.TrimSpace(s[1:])
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ':' || r == '-' })
	illegal := func() {
		p.failMsg(sql.SqlParserException, kw, "SQL parse failed. Illegal interval literal format '%s' for INTERVAL %s", val, qual)
	}
	if len(fields) != ti-fi+1 {
		illegal()
		return nil, to
	}
	iv := ast.IntervalValue{Unit: qual}
	for n, f := range fields {
		u := unitOrder[fi+n]
		if u == "SECOND" {
			d, err := decimal.NewFromString(f)
			if err != nil || d.Sign() < 0 {
				illegal()
				return nil, to
			}
			iv.Millis += d.Mul(decimal.NewFromInt(1000)).IntPart()
			continue
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil || v < 0 || v > 1e12 {
			illegal()
			return nil, to
		}
		switch u {
		case "YEAR":
			iv.Months += v * 12
		case "MONTH":
			iv.Months += v
		default:
			iv.Millis += v * unitMillis[u]
		}
	}
	if neg {
		iv.Months, iv.Millis = -iv.Months, -iv.Millis
	}
	raw := strings.TrimSpace(p.src[kw.off:p.toks[k-1].end])
	return &ast.Literal{Node: ast.Node{At: p.pos(kw)}, Kind: ast.LitInterval, Raw: raw, Value: iv}, k
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
