package dialect

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// Escaping says how string literals are escaped, which depends on the
// session's sql_mode: with NO_BACKSLASH_ESCAPES a backslash is an ordinary
// character and only quotes are doubled. The writer reads sql_mode on every
// new connection and picks one.
type Escaping uint8

// The two escaping modes.
const (
	BackslashEscapes Escaping = iota
	NoBackslashEscapes
)

// AppendLiteral appends v, of Flink type t, as a MySQL literal. Sending
// literals in one text statement is what lets a flush be one round trip
// per statement (go-sql-driver's interpolateParams does the same); values
// are converted from the one Go type row.go assigns each type, so a value
// of another type is a bug upstream and is reported, not guessed at.
func (MySQL) AppendLiteral(b []byte, v any, t sql.DataType, esc Escaping) ([]byte, error) {
	if v == nil {
		return append(b, "NULL"...), nil
	}
	switch x := v.(type) {
	case bool:
		if x {
			return append(b, "TRUE"...), nil
		}
		return append(b, "FALSE"...), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		switch t.Root {
		case sql.TypeDate:
			return appendDate(b, x), nil
		case sql.TypeTime:
			return appendTime(b, x, t.Precision), nil
		}
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return b, fmt.Errorf("MySQL cannot store %v", x)
		}
		return strconv.AppendFloat(b, float64(x), 'g', -1, 32), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, fmt.Errorf("MySQL cannot store %v", x)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case decimal.Decimal:
		if t.Root == sql.TypeDecimal {
			return append(b, x.StringFixed(int32(t.Scale))...), nil
		}
		return append(b, x.String()...), nil
	case string:
		return appendString(b, x, esc), nil
	case []byte:
		b = append(b, "X'"...)
		b = hex.AppendEncode(b, x)
		return append(b, '\''), nil
	case sql.TimestampData:
		if t.Root == sql.TypeTimestampLTZ {
			return b, fmt.Errorf("the MySQL dialect doesn't support type: %s", t)
		}
		return appendTimestamp(b, x, t.Precision), nil
	}
	return b, fmt.Errorf("cannot write a %T value as %s", v, t)
}

// appendString quotes s. Backslash mode escapes what go-sql-driver's
// escapeBytesBackslash escapes; quote mode only doubles single quotes.
func appendString(b []byte, s string, esc Escaping) []byte {
	b = append(b, '\'')
	if esc == NoBackslashEscapes {
		for i := 0; i < len(s); i++ {
			if s[i] == '\'' {
				b = append(b, '\'')
			}
			b = append(b, s[i])
		}
		return append(b, '\'')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case 0:
			b = append(b, '\\', '0')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case 0x1a:
			b = append(b, '\\', 'Z')
		case '\'':
			b = append(b, '\\', '\'')
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		default:
			b = append(b, c)
		}
	}
	return append(b, '\'')
}

func appendDate(b []byte, days int32) []byte {
	b = append(b, '\'')
	b = time.Unix(int64(days)*86400, 0).UTC().AppendFormat(b, "2006-01-02")
	return append(b, '\'')
}

func appendTime(b []byte, millis int32, precision int) []byte {
	t := time.UnixMilli(int64(millis)).UTC()
	b = append(b, '\'')
	b = t.AppendFormat(b, "15:04:05")
	if precision > 0 && millis%1000 != 0 {
		b = fmt.Appendf(b, ".%03d", millis%1000)
	}
	return append(b, '\'')
}

func appendTimestamp(b []byte, ts sql.TimestampData, precision int) []byte {
	t := ts.Time()
	b = append(b, '\'')
	b = t.AppendFormat(b, "2006-01-02 15:04:05")
	if ns := t.Nanosecond(); ns != 0 && precision > 0 {
		// MySQL keeps at most microseconds; it rounds extra digits.
		b = fmt.Appendf(b, ".%09d", ns)
	}
	return append(b, '\'')
}

// Arg converts v, of Flink type t, to the value bound to a placeholder of
// a server-side prepared statement (the binary protocol): values never
// become SQL text, so no escaping is involved and no connection character
// set can change where a value ends. Numbers go as numbers; DECIMAL,
// FLOAT, dates and times as the same text AppendLiteral writes (the
// server converts it to the column type exactly as it converts a literal);
// strings and bytes as they are.
func (MySQL) Arg(v any, t sql.DataType) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		switch t.Root {
		case sql.TypeDate:
			return string(appendDate(nil, x)[1:11]), nil
		case sql.TypeTime:
			b := appendTime(nil, x, t.Precision)
			return string(b[1 : len(b)-1]), nil
		}
		return int64(x), nil
	case int64:
		return x, nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("MySQL cannot store %v", x)
		}
		// The shortest text that reads back as this float32 (0.1, not
		// 0.10000000149011612), as the literal had it.
		return strconv.FormatFloat(float64(x), 'g', -1, 32), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("MySQL cannot store %v", x)
		}
		return x, nil
	case decimal.Decimal:
		if t.Root == sql.TypeDecimal {
			return x.StringFixed(int32(t.Scale)), nil
		}
		return x.String(), nil
	case string:
		return x, nil
	case []byte:
		return x, nil
	case sql.TimestampData:
		if t.Root == sql.TypeTimestampLTZ {
			return nil, fmt.Errorf("the MySQL dialect doesn't support type: %s", t)
		}
		b := appendTimestamp(nil, x, t.Precision)
		return string(b[1 : len(b)-1]), nil
	}
	return nil, fmt.Errorf("cannot write a %T value as %s", v, t)
}
