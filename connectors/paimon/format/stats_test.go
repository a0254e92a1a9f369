package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// chunkStatsOf returns the decoded Statistics of each column chunk of
// the first row group, by dotted column path.
func chunkStatsOf(t *testing.T, file []byte) map[string]tstruct {
	t.Helper()
	f := footerOf(t, file)
	out := map[string]tstruct{}
	rg := f[4].([]any)[0].(tstruct)
	for _, c := range rg[1].([]any) {
		md := c.(tstruct)[3].(tstruct)
		var path []byte
		for i, p := range md[3].([]any) {
			if i > 0 {
				path = append(path, '.')
			}
			path = append(path, p.([]byte)...)
		}
		st, _ := md[12].(tstruct)
		out[string(path)] = st
	}
	return out
}

func le32(x int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(x)) }
func le64(x int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(x)) }

func fixed(t *testing.T, x int64, n int) []byte {
	b, err := fixedDecimal(big.NewInt(x), n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStatisticsAsParquetJava is the regression test of issue 14's second
// problem: a DECIMAL(38) column's min and max were ordered as unsigned
// bytes in files with nested columns (min > max when a value is negative,
// so Paimon 1.4's row-group filter could skip a group holding c < 0), and
// flat files carried no min/max at all. Every column chunk's statistics
// are now parquet-java's (toParquetStatistics): DECIMAL signed, STRING and
// BINARY unsigned (only min_value/max_value), FLOAT/DOUBLE by
// Double.compare (-0.0 < 0.0), none for INT96, null counts always.
func TestStatisticsAsParquetJava(t *testing.T) {
	fields := []schema.Field{
		{ID: 0, Name: "d38", Type: sql.Decimal(38, 2)}, {ID: 1, Name: "d10", Type: sql.Decimal(10, 2)},
		{ID: 2, Name: "s", Type: sql.String()}, {ID: 3, Name: "bin", Type: sql.VarBinary(4)},
		{ID: 4, Name: "ti", Type: sql.TinyInt()}, {ID: 5, Name: "i", Type: sql.Int()}, {ID: 6, Name: "bi", Type: sql.BigInt()},
		{ID: 7, Name: "dbl", Type: sql.Double()}, {ID: 8, Name: "ts9", Type: sql.Timestamp(9)}, {ID: 9, Name: "b", Type: sql.Boolean()},
	}
	rows := [][]any{
		{decimalOf(300, 2), decimalOf(-7, 2), "z", []byte{0x01}, int8(5), int32(-2), int64(1) << 40, 1.5, sql.TimestampData{Millis: 1000}, true},
		{decimalOf(-500, 2), decimalOf(9, 2), "é", []byte{0xff}, int8(-3), int32(7), int64(-1), math.Copysign(0, -1), sql.TimestampData{Millis: 5}, false},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	type want struct{ min, max []byte }
	both := map[string]want{ // signed orders: min/max and min_value/max_value
		"d38": {fixed(t, -500, 16), fixed(t, 300, 16)},
		"d10": {le64(-7), le64(9)},
		"ti":  {le32(-3), le32(5)},
		"i":   {le32(-2), le32(7)},
		"bi":  {le64(-1), le64(1 << 40)},
		"dbl": {le64(int64(math.Float64bits(math.Copysign(0, -1)))), le64(int64(math.Float64bits(1.5)))},
		"b":   {[]byte{0}, []byte{1}},
	}
	unsigned := map[string]want{ // min_value/max_value only
		"s":   {[]byte("z"), []byte("é")},
		"bin": {[]byte{0x01}, []byte{0xff}},
	}
	nested := append(fields[:len(fields):len(fields)], schema.Field{ID: 10, Name: "arr", Type: sql.ArrayOf(sql.Int())})
	for _, fs := range [][]schema.Field{fields, nested} {
		name := "flat"
		if len(fs) > len(fields) {
			name = "nested"
		}
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if len(fs) > len(fields) {
				r = append(r[:len(r):len(r)], []any{int32(1)})
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		stats := chunkStatsOf(t, buf.Bytes())
		check := func(col string, st tstruct, id int16, want []byte) {
			got, _ := st[id].([]byte)
			if want == nil && st[id] != nil || !bytes.Equal(got, want) {
				t.Errorf("%s file, column %s: statistics field %d = %x, want %x", name, col, id, got, want)
			}
		}
		for col, w := range both {
			st := stats[col]
			check(col, st, 2, w.min)
			check(col, st, 1, w.max)
			check(col, st, 6, w.min)
			check(col, st, 5, w.max)
		}
		for col, w := range unsigned {
			st := stats[col]
			check(col, st, 2, nil)
			check(col, st, 1, nil)
			check(col, st, 6, w.min)
			check(col, st, 5, w.max)
		}
		for _, id := range []int16{1, 2, 5, 6} {
			check("ts9", stats["ts9"], id, nil)
		}
		for col, st := range stats {
			if fmt.Sprint(st[3]) != "1" && col != "arr.list.element" {
				t.Errorf("%s file, column %s: null count %v, want 1", name, col, st[3])
			}
		}
	}
}
