package format

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

func fields(ts ...sql.DataType) []schema.Field {
	out := make([]schema.Field, len(ts))
	for i, t := range ts {
		out[i] = schema.Field{ID: i, Name: fmt.Sprintf("c%d", i), Type: t}
	}
	return out
}

var allTypes = []sql.DataType{sql.Int().NotNull(), sql.Boolean(), sql.TinyInt(), sql.SmallInt(), sql.BigInt(), sql.Float(), sql.Double(),
	sql.Decimal(5, 2), sql.Decimal(15, 3), sql.Decimal(38, 10), sql.String(), sql.Char(2), sql.Bytes(), sql.Date(), sql.Time(0),
	sql.Timestamp(3), sql.Timestamp(6), sql.Timestamp(9), sql.TimestampLTZ(3), sql.TimestampLTZ(9)}

func sampleRow(i int) []any {
	if i%3 == 2 { // nulls everywhere but the key
		r := make([]any, len(allTypes))
		r[0] = int32(i)
		return r
	}
	return []any{int32(i), i%2 == 0, int8(i), int16(-i), int64(i) << 40, float32(i) / 2, float64(i) / 3,
		decimal.New(int64(i*101), -2), decimal.New(-int64(i)*1000003, -3), decimal.RequireFromString(fmt.Sprintf("-%d1234567890123456.0123456789", i)),
		strings.Repeat("s", i%20), "ab", []byte{byte(i), 0, 1}, int32(19000 + i), int32(i * 1000),
		sql.TimestampData{Millis: int64(i) * 1001}, sql.TimestampData{Millis: -int64(i) * 7, NanoOfMilli: 123000},
		sql.TimestampData{Millis: 1700000000000 + int64(i), NanoOfMilli: 999_999}, sql.TimestampData{Millis: 5}, sql.TimestampData{Millis: -1, NanoOfMilli: 1}}
}

func TestKVRoundTrip(t *testing.T) {
	keys := []schema.Field{{ID: 0, Name: "c0", Type: sql.Int().NotNull()}}
	vals := fields(allTypes...)
	var buf bytes.Buffer
	w, err := NewKVWriter(&buf, keys, vals, WriterOptions{BatchRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	var want []*kv.KeyValue
	for i := 0; i < 100; i++ {
		r := &kv.KeyValue{Key: []any{int32(i)}, Seq: int64(1000 - i), Kind: sql.RowKind(i % 4), Value: sampleRow(i)}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if err := w.Write(&kv.KeyValue{Key: []any{int32(5)}, Value: sampleRow(5)}); err == nil {
		t.Fatal("out-of-order key accepted")
	}
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.FileSize != int64(buf.Len()) || res.RowCount != 100 || res.MinSeq != 901 || res.MaxSeq != 1000 || res.DeleteRowCount != 50 {
		t.Fatalf("result %+v (buf %d)", res, buf.Len())
	}
	kt := []sql.DataType{sql.Int().NotNull()}
	if mk, _ := binrow.Deserialize(kt, res.MinKey); mk[0] != int32(0) {
		t.Fatalf("min key %v", mk)
	}
	if mk, _ := binrow.Deserialize(kt, res.MaxKey); mk[0] != int32(99) {
		t.Fatalf("max key %v", mk)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-x-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	ids := f.FieldIDs()
	if ids["_KEY_c0"] != KeyFieldIDStart || ids[SequenceNumberField] != SequenceNumberID || ids[ValueKindField] != ValueKindID || ids["c3"] != 3 {
		t.Fatalf("field ids %v", ids)
	}
	if got := strings.Join(f.ColumnNames()[:4], ","); got != "_KEY_c0,_SEQUENCE_NUMBER,_VALUE_KIND,c0" {
		t.Fatalf("column order %s", got)
	}
	it, err := f.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for r := it.Next(); r != nil; r = it.Next() {
		w := want[n]
		if r.Seq != w.Seq || r.Kind != w.Kind || r.Level != 3 || !reflect.DeepEqual(r.Key, w.Key) {
			t.Fatalf("row %d: %+v vs %+v", n, r, w)
		}
		assertRow(t, n, r.Value, w.Value)
		n++
	}
	if it.Error() != nil || n != 100 {
		t.Fatalf("read %d rows: %v", n, it.Error())
	}
}

func assertRow(t *testing.T, n int, got, want []any) {
	t.Helper()
	for i := range want {
		if d, ok := want[i].(decimal.Decimal); ok {
			if g, ok := got[i].(decimal.Decimal); !ok || !g.Equal(d) {
				t.Fatalf("row %d field %d: %v != %v", n, i, got[i], want[i])
			}
			continue
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d field %d (%s): %#v != %#v", n, i, allTypes[i], got[i], want[i])
		}
	}
}

func TestAppendRoundTripProjectionEvolution(t *testing.T) {
	vals := fields(allTypes...)
	var buf bytes.Buffer
	w, err := NewAppendWriter(&buf, vals, 10, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if err := w.Write(sampleRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.MinSeq != 10 || res.MaxSeq != 59 || res.DeleteRowCount != 0 || res.ValueStatsCols != nil {
		t.Fatalf("result %+v", res)
	}
	// Value stats: c0 min 0 max 49; c10 strings truncated to 16 chars.
	st := manifest.NewStatsCollector(nil)
	_ = st
	nt := make([]sql.DataType, len(allTypes))
	for i, t := range allTypes {
		nt[i] = t.WithNullable(true)
	}
	min, err := binrow.Deserialize(nt, res.ValueStats.MinValues)
	if err != nil {
		t.Fatal(err)
	}
	max, _ := binrow.Deserialize(nt, res.ValueStats.MaxValues)
	if min[0] != int32(0) || max[0] != int32(49) || min[10] != "" || max[10] != strings.Repeat("s", 15)+"t" || *res.ValueStats.NullCounts[1] != 16 {
		t.Fatalf("stats min %v max %v nulls %v", min[:11], max[:11], *res.ValueStats.NullCounts[1])
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-y-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	// Evolution: current schema renames c1 (id 1) to "flag", drops c2,
	// widens c3 SMALLINT → BIGINT, adds id 99, reorders.
	cur := []schema.Field{{ID: 99, Name: "added", Type: sql.String()}, {ID: 3, Name: "c3", Type: sql.BigInt()}, {ID: 1, Name: "flag", Type: sql.Boolean()}, {ID: 0, Name: "c0", Type: sql.Int().NotNull()}}
	it, err := f.Rows(Projection{FileFields: vals, Fields: cur})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := it.Next(); r != nil; r = it.Next() {
		src := sampleRow(n)
		var c3 any
		if src[3] != nil {
			c3 = int64(src[3].(int16))
		}
		if want := []any{nil, c3, src[1], src[0]}; !reflect.DeepEqual(r, want) {
			t.Fatalf("row %d: %v want %v", n, r, want)
		}
		n++
	}
	if it.Error() != nil || n != 50 {
		t.Fatal(n, it.Error())
	}
	// All columns read back.
	it, _ = f.Rows(Projection{FileFields: vals, Fields: vals})
	for n = 0; ; n++ {
		r := it.Next()
		if r == nil {
			break
		}
		assertRow(t, n, r, sampleRow(n))
	}
	if n != 50 || it.Error() != nil {
		t.Fatal(n, it.Error())
	}
}

// TestParquetSchema checks the written schema against Paimon's converter.
func TestParquetSchema(t *testing.T) {
	var buf bytes.Buffer
	keys := []schema.Field{{ID: 0, Name: "k", Type: sql.BigInt().NotNull()}}
	vals := []schema.Field{{ID: 0, Name: "k", Type: sql.BigInt().NotNull()}, {ID: 1, Name: "d", Type: sql.Decimal(20, 2)},
		{ID: 2, Name: "ts", Type: sql.Timestamp(9)}, {ID: 3, Name: "ltz", Type: sql.TimestampLTZ(6)}, {ID: 4, Name: "t", Type: sql.TinyInt()}}
	w, _ := NewKVWriter(&buf, keys, vals, WriterOptions{})
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount != 0 {
		t.Fatal("rows")
	}
	pf, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got := pf.Schema().String()
	for _, el := range pf.Metadata().Schema {
		if (el.Name == "k" || el.Name == SequenceNumberField) && (el.LogicalType.Value != nil || el.ConvertedType.Valid) {
			t.Errorf("%s has an annotation: %v", el.Name, el.LogicalType)
		}
	}
	for _, want := range []string{"message paimon_schema", "_KEY_k (INT(64,true)) = 1073741823", "_SEQUENCE_NUMBER (INT(64,true)) = 2147483646",
		"required int32 _VALUE_KIND (INT(8,true)) = 2147483645", "optional fixed_len_byte_array(9) d (DECIMAL(20,2)) = 1",
		"optional int96 ts = 2", "optional int64 ltz (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS)) = 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("schema lacks %q:\n%s", want, got)
		}
	}
	if cc := pf.Metadata().RowGroups; len(cc) > 0 && cc[0].Columns[0].MetaData.Codec.String() != "ZSTD" {
		t.Errorf("codec %v", cc[0].Columns[0].MetaData.Codec)
	}
}

func TestUnsupportedFormats(t *testing.T) {
	for _, name := range []string{"data-1-0.csv", "data-1-0.json"} {
		_, err := Open(bytes.NewReader(nil), 0, name)
		if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "'file.format'") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// ORC and Avro files are read; a damaged one is corrupt, named.
	for _, name := range []string{"data-1-0.orc", "data-1-0.avro"} {
		_, err := Open(bytes.NewReader([]byte("garbage")), 7, name)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if FormatOf("data-x-0.zstd.parquet") != "parquet" {
		t.Error("compression infix")
	}
}

func TestPaths(t *testing.T) {
	n := NewFileNames("")
	a, b, c := n.Data(), n.Changelog(), n.Data()
	if !strings.HasPrefix(a, "data-") || !strings.HasSuffix(a, "-0.parquet") || !strings.HasPrefix(b, "changelog-") ||
		!strings.HasSuffix(b, "-1.parquet") || !strings.HasSuffix(c, "-2.parquet") || len(a) != len("data-")+36+len("-0.parquet") {
		t.Fatalf("%s %s %s", a, b, c)
	}
	if got := BucketDir("/w/db.db/t", "f1=10/", 1); got != "/w/db.db/t/f1=10/bucket-1" {
		t.Fatal(got)
	}
	if got := BucketDir("file:///w/t", "", -2); got != "file:///w/t/bucket-postpone" {
		t.Fatal(got)
	}
}

func TestFieldStatsModes(t *testing.T) {
	vals := []schema.Field{{ID: 0, Name: "a", Type: sql.Int()}, {ID: 1, Name: "s", Type: sql.String()}, {ID: 2, Name: "n", Type: sql.String()}, {ID: 3, Name: "c", Type: sql.BigInt()}}
	write := func(modes map[string]string) *Result {
		var buf bytes.Buffer
		w, _ := NewAppendWriter(&buf, vals, 0, WriterOptions{FieldStatsModes: modes})
		w.Write([]any{int32(1), "abcdefghijklmnopqrstuvwxyz", "x", int64(5)})
		w.Write([]any{int32(2), nil, "y", nil})
		r, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := write(map[string]string{"n": "none", "c": "counts", "s": "truncate(3)"})
	if strings.Join(r.ValueStatsCols, ",") != "a,s,c" {
		t.Fatalf("cols %v", r.ValueStatsCols)
	}
	nt := []sql.DataType{sql.Int(), sql.String(), sql.BigInt()}
	min, _ := binrow.Deserialize(nt, r.ValueStats.MinValues)
	max, _ := binrow.Deserialize(nt, r.ValueStats.MaxValues)
	if !reflect.DeepEqual(min, []any{int32(1), "abc", nil}) || !reflect.DeepEqual(max, []any{int32(2), "abd", nil}) ||
		*r.ValueStats.NullCounts[1] != 1 || *r.ValueStats.NullCounts[2] != 1 {
		t.Fatalf("min %v max %v", min, max)
	}
	if r := write(map[string]string{"a": "full"}); r.ValueStatsCols != nil {
		t.Fatalf("all columns kept: cols must be null, got %v", r.ValueStatsCols)
	}
	r = write(map[string]string{"a": "none", "s": "none", "n": "none", "c": "none"})
	if r.ValueStatsCols == nil || len(r.ValueStatsCols) != 0 || !bytes.Equal(r.ValueStats.MinValues, binrow.EmptyRow()) {
		t.Fatalf("all none: %+v", r)
	}
	if _, _, err := ParseStatsMode("truncate(0)"); err == nil {
		t.Fatal("truncate(0) accepted")
	}
}

// TestThinModeRead reads a primary-key file without _KEY_ columns
// (data-file.thin-mode=true): keys come from the value columns.
func TestThinModeRead(t *testing.T) {
	vals := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}, {ID: 1, Name: "v", Type: sql.String()}}
	cols := []Column{{Name: SequenceNumberField, ID: SequenceNumberID, Type: sql.BigInt().NotNull()},
		{Name: ValueKindField, ID: ValueKindID, Type: sql.TinyInt().NotNull()}, {Name: "k", ID: 0, Type: sql.Int().NotNull()}, {Name: "v", ID: 1, Type: sql.String()}}
	var buf bytes.Buffer
	c, err := newCore(&buf, cols, 2, FieldTypes(vals), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		var row []parquet.Value
		for j, v := range []any{int64(i), int8(0), int32(i * 10), fmt.Sprint(i)} {
			row, _ = c.put(row, j, v)
		}
		c.commitRow(row)
	}
	if _, err := c.close(); err != nil {
		t.Fatal(err)
	}
	f, _ := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-thin-0.parquet")
	it, err := f.KeyValues(vals[:1], vals[:1], Projection{FileFields: vals, Fields: vals}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r := it.Next()
		if r == nil || r.Key[0] != int32(i*10) || r.Seq != int64(i) || r.Value[1] != fmt.Sprint(i) {
			t.Fatalf("row %d: %+v %v", i, r, it.Error())
		}
	}
}
