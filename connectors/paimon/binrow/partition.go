package binrow

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// DefaultPartitionName is the default of option partition.default-name.
const DefaultPartitionName = "__DEFAULT_PARTITION__"

// PartitionPath computes the directory of a partition exactly as Java's
// InternalRowPartitionComputer + PartitionPathUtils do: "k1=v1/k2=v2/" with a
// trailing slash, or "" for no partition keys. Java recomputes this string
// from _PARTITION when it reads, so it must be identical or files are not
// found.
//
// With legacyName (option partition.legacy-name, default true) a value is
// the Java toString() of its internal representation: DATE is the day
// number, TIME milliseconds of the day. Null, empty or blank strings become
// defaultName. Keys and values are escaped with EscapePathName.
func PartitionPath(names []string, types []sql.DataType, vals []any, defaultName string, legacyName bool) (string, error) {
	if len(names) != len(types) || len(names) != len(vals) {
		return "", fmt.Errorf("partition: %d names, %d types, %d values", len(names), len(types), len(vals))
	}
	if defaultName == "" {
		defaultName = DefaultPartitionName
	}
	var b strings.Builder
	for i, name := range names {
		s, err := PartitionValueString(types[i], vals[i], legacyName)
		if err != nil {
			return "", fmt.Errorf("partition field %s: %w", name, err)
		}
		if vals[i] == nil || strings.TrimSpace(s) == "" {
			s = defaultName
		}
		b.WriteString(EscapePathName(name))
		b.WriteByte('=')
		b.WriteString(EscapePathName(s))
		b.WriteByte('/')
	}
	return b.String(), nil
}

// PartitionValueString is the unescaped string of one partition value ("" for
// null).
func PartitionValueString(t sql.DataType, v any, legacyName bool) (string, error) {
	if v == nil {
		return "", nil
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int8, int16, int64:
		return fmt.Sprint(x), nil
	case int32:
		if !legacyName {
			switch t.Root {
			case sql.TypeDate:
				return sql.FormatDate(x), nil
			case sql.TypeTime:
				return sql.FormatTime(x, t.Precision), nil
			}
		}
		return strconv.FormatInt(int64(x), 10), nil
	case float32, float64:
		return sql.FormatValue(x, t), nil
	case decimal.Decimal:
		return x.StringFixed(int32(t.Scale)), nil
	case sql.TimestampData:
		if !legacyName {
			return castTimestampToString(x, t.Precision), nil
		}
		return sql.FormatTimestamp(x, t.Precision), nil
	}
	return "", fmt.Errorf("unsupported partition value %T", v)
}

// castTimestampToString is CAST(ts AS STRING) for partition.legacy-name =
// false: "yyyy-MM-dd HH:mm:ss" plus the fraction padded to the precision.
// (Not verified against a Java-written table; the legacy default is.)
func castTimestampToString(ts sql.TimestampData, precision int) string {
	tm := ts.Time()
	s := tm.Format("2006-01-02 15:04:05")
	if precision > 0 {
		frac := fmt.Sprintf("%09d", tm.Nanosecond())
		if precision < 9 {
			frac = frac[:precision]
		}
		s += "." + frac
	}
	return s
}

// EscapePathName is PartitionPathUtils.escapePathName: control characters,
// DEL and " # % ' * / : = ? \ { } [ ] ^ become %XX with uppercase hex; other
// characters (including non-ASCII) are kept.
func EscapePathName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && needsEscape(byte(r)) {
			fmt.Fprintf(&b, "%%%02X", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	return strings.IndexByte("\"#%'*/:=?\\{}[]^", c) >= 0
}

// PartitionPathOf computes the partition path from a serialized
// _PARTITION row (what a reader has in a manifest entry).
func PartitionPathOf(names []string, types []sql.DataType, serialized []byte, defaultName string, legacyName bool) (string, error) {
	vals, err := Deserialize(types, serialized)
	if err != nil {
		return "", fmt.Errorf("partition row: %w", err)
	}
	return PartitionPath(names, types, vals, defaultName, legacyName)
}
