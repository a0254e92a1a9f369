package format

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

var nestedTypes = []sql.DataType{
	sql.Int().NotNull(),
	sql.ArrayOf(sql.Int()),
	sql.MapOf(sql.String(), sql.BigInt()),
	sql.RowOf(sql.Field{Name: "a", Type: sql.Int()}, sql.Field{Name: "b", Type: sql.String()}),
	sql.ArrayOf(sql.ArrayOf(sql.String())),
	sql.ArrayOf(sql.RowOf(sql.Field{Name: "x", Type: sql.Double()}, sql.Field{Name: "tags", Type: sql.ArrayOf(sql.String().NotNull())})),
	sql.ArrayOf(sql.Int()).NotNull(),
	sql.String(),
}

func nestedRow(i int) []any {
	switch i % 4 {
	case 0:
		return []any{int32(i), nil, nil, nil, nil, nil, []any{}, nil}
	case 1:
		return []any{int32(i), []any{}, &sql.Map{}, []any{nil, nil}, []any{}, []any{}, []any{nil}, "s"}
	case 2:
		return []any{int32(i), []any{int32(1), nil, int32(3)}, &sql.Map{Keys: []any{"k1", "k2"}, Values: []any{int64(1), nil}},
			[]any{int32(7), "seven"}, []any{[]any{"a", "b"}, nil, []any{}, []any{nil, "c"}},
			[]any{[]any{1.5, []any{"t1", "t2"}}, nil, []any{nil, []any{}}}, []any{int32(i)}, fmt.Sprint(i)}
	}
	return []any{int32(i), []any{int32(i)}, &sql.Map{Keys: []any{"only"}, Values: []any{int64(i)}}, []any{int32(i), nil},
		[]any{[]any{fmt.Sprint(i)}}, []any{[]any{float64(i), nil}}, []any{int32(1), int32(2)}, nil}
}

// TestNestedRoundTrip writes ARRAY, MAP, ROW and their nestings (nulls,
// empty collections, null elements) and reads them back.
func TestNestedRoundTrip(t *testing.T) {
	vals := fields(nestedTypes...)
	keys := []schema.Field{{ID: 0, Name: "c0", Type: sql.Int().NotNull()}}
	var buf bytes.Buffer
	w, err := NewKVWriter(&buf, keys, vals, WriterOptions{BatchRows: 3})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for i := 0; i < n; i++ {
		if err := w.Write(&kv.KeyValue{Key: []any{int32(i)}, Seq: int64(i), Value: nestedRow(i)}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount != n {
		t.Fatal(res.RowCount)
	}
	pf, _ := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	sch := pf.Schema().String()
	for _, want := range []string{"optional group c1 (LIST)", "repeated group list", "optional int32 element (INT(32,true)) = 536871936", // base + 1*1024 + 1
		"optional group c2 (MAP)", "repeated group key_value", "required binary key (STRING) = 536868862", // base - 2*1024 - 1
		"optional int64 value (INT(64,true)) = 536872960", "optional group c3 = 3 {", "optional binary b (STRING);"} {
		if !strings.Contains(sch, want) {
			t.Errorf("schema lacks %q:\n%s", want, sch)
		}
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-n-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	// Projection touching nested columns out of order.
	proj := []schema.Field{vals[5], vals[0], vals[2], vals[7], vals[4], vals[1], vals[3], vals[6]}
	it, err := f.KeyValues(keys, keys, Projection{FileFields: vals, Fields: proj}, 0)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for r := it.Next(); r != nil; r = it.Next() {
		src := nestedRow(i)
		want := []any{src[5], src[0], src[2], src[7], src[4], src[1], src[3], src[6]}
		if !reflect.DeepEqual(r.Value, want) {
			t.Fatalf("row %d:\n got %s\nwant %s", i, show(r.Value), show(want))
		}
		i++
	}
	if it.Error() != nil || i != n {
		t.Fatal(i, it.Error())
	}
	// Only the flat column: nested leaves are not even opened.
	it2, _ := f.Rows(Projection{FileFields: vals, Fields: vals[7:8]})
	for i = 0; it2.Next() != nil; i++ {
	}
	if it2.Error() != nil || i != n {
		t.Fatal(i, it2.Error())
	}
}

func show(v []any) string {
	var parts []string
	for _, x := range v {
		if m, ok := x.(*sql.Map); ok {
			parts = append(parts, fmt.Sprintf("map%v=%v", m.Keys, m.Values))
			continue
		}
		parts = append(parts, fmt.Sprintf("%#v", x))
	}
	return strings.Join(parts, " | ")
}
