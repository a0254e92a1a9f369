package binrow

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestGolden renders rows declared in testdata/rows: their manifest bytes
// (arity prefix, null bits, slots, var part), Murmur3 hash and buckets, and
// the partition path Java computes for them. Input: one "name TYPE = value"
// per line; values are literals (NULL, numbers, 'strings', days for DATE,
// millis[+nanos] for TIMESTAMP).
func TestGolden(t *testing.T) {
	datadriven.RunTest(t, "testdata/rows", func(t *testing.T, d *datadriven.TestData) string {
		var names []string
		var types []sql.DataType
		var vals []any
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			decl, lit, ok := strings.Cut(line, " = ")
			if !ok {
				return "bad line: " + line
			}
			name, typ, _ := strings.Cut(strings.TrimSpace(decl), " ")
			dt, err := schema.ParseTypeString(typ)
			if err != nil {
				return err.Error()
			}
			v, err := parseLiteral(dt, strings.TrimSpace(lit))
			if err != nil {
				return err.Error()
			}
			names, types, vals = append(names, name), append(types, dt), append(vals, v)
		}
		b, err := Serialize(types, vals)
		if err != nil {
			return err.Error()
		}
		var out strings.Builder
		fmt.Fprintf(&out, "arity:  %s\n", hex.EncodeToString(b[:4]))
		nb := NullBitsSize(len(types))
		fmt.Fprintf(&out, "nulls:  %s\n", hex.EncodeToString(b[4:4+nb]))
		for i := range types {
			s := 4 + nb + 8*i
			fmt.Fprintf(&out, "slot %d: %s\n", i, hex.EncodeToString(b[s:s+8]))
		}
		if v := b[4+nb+8*len(types):]; len(v) > 0 {
			fmt.Fprintf(&out, "var:    %s\n", hex.EncodeToString(v))
		}
		h := Hash(b[4:])
		fmt.Fprintf(&out, "hash:   %d buckets(2,3,4,16)=%d,%d,%d,%d\n", h, Bucket(b[4:], 2), Bucket(b[4:], 3), Bucket(b[4:], 4), Bucket(b[4:], 16))
		for _, legacy := range []bool{true, false} {
			p, err := PartitionPath(names, types, vals, "", legacy)
			if err != nil {
				p = err.Error()
			}
			fmt.Fprintf(&out, "path(legacy=%v): %s\n", legacy, p)
		}
		return out.String()
	})
}

func parseLiteral(t sql.DataType, s string) (any, error) {
	if s == "NULL" {
		return nil, nil
	}
	if strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") {
		str := strings.ReplaceAll(s[1:len(s)-1], `\n`, "\n")
		if t.IsBinary() {
			return []byte(str), nil
		}
		return str, nil
	}
	switch t.Root {
	case sql.TypeBoolean:
		return strconv.ParseBool(s)
	case sql.TypeTinyInt:
		n, err := strconv.ParseInt(s, 10, 8)
		return int8(n), err
	case sql.TypeSmallInt:
		n, err := strconv.ParseInt(s, 10, 16)
		return int16(n), err
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err
	case sql.TypeBigInt:
		return strconv.ParseInt(s, 10, 64)
	case sql.TypeFloat:
		f, err := strconv.ParseFloat(s, 32)
		return float32(f), err
	case sql.TypeDouble:
		return strconv.ParseFloat(s, 64)
	case sql.TypeDecimal:
		return decimal.NewFromString(s)
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		ms, ns, _ := strings.Cut(s, "+")
		m, err := strconv.ParseInt(ms, 10, 64)
		if err != nil {
			return nil, err
		}
		n, _ := strconv.Atoi(ns)
		return sql.TimestampData{Millis: m, NanoOfMilli: int32(n)}, nil
	}
	return nil, fmt.Errorf("cannot parse %q as %s", s, t)
}
