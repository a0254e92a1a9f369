package connectors

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// ParseMySQLText converts a MySQL value in its text-protocol form (what a
// SELECT returns over the text protocol; the MySQL CDC source decodes
// binlog row images to the same form) to the Go value row.go assigns t.
// The MySQL JDBC source and the MySQL CDC source share it, so a value reads
// the same through both. Forms: BOOLEAN from 0/1 (any integer: non-zero is
// true), true/false or one BIT(1) byte; DECIMAL rounded to the scale and
// NULL when it overflows the precision (Flink's DecimalData.fromBigDecimal);
// TIME [-]HH:MM:SS[.ffffff] as milliseconds of the day (MySQL's TIME goes
// beyond 24 hours); TIMESTAMP "yyyy-MM-dd HH:mm:ss[.f...]" or a date; a
// SET "a,b" as ARRAY<STRING>.
func ParseMySQLText(s string, t sql.DataType) (any, error) {
	switch t.Root {
	case sql.TypeBoolean:
		switch s {
		case "0", "false", "FALSE":
			return false, nil
		case "1", "true", "TRUE":
			return true, nil
		}
		if len(s) == 1 && s[0] <= 1 { // BIT(1) arrives as one byte
			return s[0] != 0, nil
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n != 0, nil
		}
		return nil, fmt.Errorf("%q is not a BOOLEAN", s)
	case sql.TypeTinyInt:
		n, err := strconv.ParseInt(s, 10, 8)
		return int8(n), err
	case sql.TypeSmallInt:
		n, err := strconv.ParseInt(s, 10, 16)
		return int16(n), err
	case sql.TypeInt:
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err
	case sql.TypeBigInt:
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err
	case sql.TypeFloat:
		f, err := strconv.ParseFloat(s, 32)
		return float32(f), err
	case sql.TypeDouble:
		f, err := strconv.ParseFloat(s, 64)
		return f, err
	case sql.TypeDecimal:
		d, err := decimal.NewFromString(s)
		if err != nil {
			return nil, err
		}
		d = d.Round(int32(t.Scale))
		if len(d.Coefficient().String()) > t.Precision && !d.IsZero() {
			return nil, nil // does not fit: NULL, as Flink's DecimalData.fromBigDecimal
		}
		return d, nil
	case sql.TypeChar, sql.TypeVarChar:
		return s, nil
	case sql.TypeBinary, sql.TypeVarBinary:
		return []byte(s), nil
	case sql.TypeDate:
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, err
		}
		return int32(d.Unix() / 86400), nil
	case sql.TypeTime:
		return parseMySQLTime(s)
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		layout := "2006-01-02 15:04:05.999999999"
		if len(s) == len("2006-01-02") {
			layout = "2006-01-02"
		}
		d, err := time.Parse(layout, s)
		if err != nil {
			return nil, err
		}
		return sql.TimestampFromTime(d), nil
	case sql.TypeArray:
		if s == "" {
			return []any{}, nil
		}
		parts := strings.Split(s, ",")
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// parseMySQLTime reads [-]HH:MM:SS[.ffffff] as milliseconds of the day.
func parseMySQLTime(s string) (any, error) {
	neg := strings.HasPrefix(s, "-")
	hms, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q is not a TIME", s)
	}
	var v [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a TIME", s)
		}
		v[i] = n
	}
	for len(frac) < 3 {
		frac += "0"
	}
	ms, _ := strconv.ParseInt(frac[:3], 10, 64)
	ms += (v[0]*3600 + v[1]*60 + v[2]) * 1000
	if neg {
		ms = -ms
	}
	if ms > math.MaxInt32 || ms < math.MinInt32 {
		return nil, fmt.Errorf("%q is out of TIME's range", s)
	}
	return int32(ms), nil
}
