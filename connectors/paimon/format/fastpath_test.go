package format

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// The columnar read path (bulk.go) and the direct-to-column write path
// must give exactly what the value-by-value paths gave: these tests pin the
// cases the fast paths special-case — nulls across page and batch
// boundaries, dictionary pages, a column projected twice, an evolution
// cast (which leaves the fast path), and a row rejected half way.

func fastFields() (keys, vals []schema.Field) {
	keys = []schema.Field{{ID: 0, Name: "k", Type: sql.BigInt().NotNull()}}
	vals = []schema.Field{
		{ID: 0, Name: "k", Type: sql.BigInt().NotNull()},
		{ID: 1, Name: "s", Type: sql.String()},
		{ID: 2, Name: "i", Type: sql.Int()},
		{ID: 3, Name: "t", Type: sql.TinyInt()},
		{ID: 4, Name: "big", Type: sql.String()},
	}
	return keys, vals
}

func fastRow(i int) []any {
	r := []any{int64(i), fmt.Sprintf("v%07d", i), int32(i * 7), int8(i), nil}
	switch {
	case i%5 == 0:
		r[1], r[2], r[3] = nil, nil, nil
	case i%7 == 0:
		r[1] = "" // empty, not null
	}
	if i%1000 == 1 {
		r[4] = string(bytes.Repeat([]byte{'x'}, 5000+i%3)) // beyond the arena's inline size
	}
	return r
}

func writeFast(t *testing.T, n int, opts WriterOptions) []byte {
	t.Helper()
	keys, vals := fastFields()
	var buf bytes.Buffer
	w, err := NewKVWriter(&buf, keys, vals, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		v := fastRow(i)
		if i == n/2 {
			// A row that fails on its third value must leave no trace.
			bad := append([]any(nil), v...)
			bad[2] = "not an int"
			if err := w.Write(&kv.KeyValue{Key: []any{v[0]}, Seq: int64(i), Kind: sql.Insert, Value: bad}); err == nil {
				t.Fatal("bad row accepted")
			}
		}
		if err := w.Write(&kv.KeyValue{Key: []any{v[0]}, Seq: int64(i), Kind: sql.RowKind(i % 4), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFastPathsRoundTrip(t *testing.T) {
	const n = 5000 // several batches of 256 rows, several pages with small BatchRows
	data := writeFast(t, n, WriterOptions{BatchRows: 300})
	keys, vals := fastFields()
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-fast.parquet")
	if err != nil {
		t.Fatal(err)
	}
	it, err := f.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []*kv.KeyValue
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, r)
	}
	if it.Error() != nil {
		t.Fatal(it.Error())
	}
	it.Close()
	runtime.GC() // records must survive a collection (slab- and arena-backed values)
	if len(got) != n {
		t.Fatalf("read %d rows, want %d", len(got), n)
	}
	for i, r := range got {
		want := fastRow(i)
		if !reflect.DeepEqual(r.Value, want) || r.Key[0] != want[0] || r.Seq != int64(i) || r.Kind != sql.RowKind(i%4) || r.Level != 3 {
			t.Fatalf("row %d: got %v %v seq %d kind %v, want %v", i, r.Key, r.Value, r.Seq, r.Kind, want)
		}
		// Retained rows are independent: appending must not clobber the next.
		_ = append(r.Value, "x")
		_ = append(r.Key, "x")
	}
	for i, r := range got {
		if !reflect.DeepEqual(r.Value, fastRow(i)) {
			t.Fatalf("row %d changed after appends to other rows: %v", i, r.Value)
		}
	}

	// A column projected twice, a missing (added later) column, and a cast
	// INT -> BIGINT that leaves the fast path.
	p := Projection{FileFields: vals, Fields: []schema.Field{
		vals[1], {ID: 9, Name: "added", Type: sql.String()}, {ID: 2, Name: "i", Type: sql.BigInt()}, vals[1]}}
	rows, err := f.Rows(p)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for r := rows.Next(); r != nil; r = rows.Next() {
		w := fastRow(i)
		var wi any
		if w[2] != nil {
			wi = int64(w[2].(int32))
		}
		if want := []any{w[1], nil, wi, w[1]}; !reflect.DeepEqual(r, want) {
			t.Fatalf("projected row %d: got %v, want %v", i, r, want)
		}
		i++
	}
	if rows.Error() != nil || i != n {
		t.Fatalf("projected read: %d rows, %v", i, rows.Error())
	}
	rows.Close()
}

// TestFastPathDictionary reads a dictionary-encoded file (as Java's
// parquet-mr writes by default): values come from the boxed dictionary.
func TestFastPathDictionary(t *testing.T) {
	type rec struct {
		S *string `parquet:"s,optional,dict"`
		I int32   `parquet:"i,dict"`
		L int64   `parquet:"l,dict"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[rec](&buf, parquet.PageBufferSize(512))
	const n = 3000
	for i := 0; i < n; i++ {
		r := rec{I: int32(i % 13), L: int64(i%17) << 33}
		if i%4 != 0 {
			s := fmt.Sprintf("d%d", i%11)
			r.S = &s
		}
		if _, err := w.Write([]rec{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-dict.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pages := f.pf.RowGroups()[0].ColumnChunks()[0].Pages()
	pg, err := pages.ReadPage()
	if err != nil || pg.Dictionary() == nil {
		t.Fatalf("test file is not dictionary-encoded: %v", err)
	}
	pages.Close()
	fs := []schema.Field{{ID: 0, Name: "s", Type: sql.String()}, {ID: 1, Name: "i", Type: sql.Int().NotNull()}, {ID: 2, Name: "l", Type: sql.BigInt().NotNull()}}
	it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for r := it.Next(); r != nil; r = it.Next() {
		var s any
		if i%4 != 0 {
			s = fmt.Sprintf("d%d", i%11)
		}
		if want := []any{s, int32(i % 13), int64(i%17) << 33}; !reflect.DeepEqual(r, want) {
			t.Fatalf("row %d: got %v, want %v", i, r, want)
		}
		i++
	}
	if it.Error() != nil || i != n {
		t.Fatalf("%d rows, %v", i, it.Error())
	}
	it.Close()
}

// TestWriterDictionaryChoice: a STRING column whose first batch repeats
// values is written dictionary-encoded (parquet-mr's rule: dictionary plus
// indexes smaller than plain), unique strings and small files stay PLAIN,
// and both read back exactly.
func TestWriterDictionaryChoice(t *testing.T) {
	fs := []schema.Field{{ID: 0, Name: "rep", Type: sql.String()}, {ID: 1, Name: "uniq", Type: sql.String()}}
	for _, n := range []int{10, 3000} {
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		row := func(i int) []any {
			var rep any = fmt.Sprintf("status-%d", i%5)
			if i%9 == 0 {
				rep = nil
			}
			return []any{rep, fmt.Sprintf("unique-%08d", i)}
		}
		for i := 0; i < n; i++ {
			if err := w.Write(row(i)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		f, err := Open(bytes.NewReader(data), int64(len(data)), "data-choice.parquet")
		if err != nil {
			t.Fatal(err)
		}
		for col, wantDict := range []bool{n > dictionaryMinSample, false} {
			pages := f.pf.RowGroups()[0].ColumnChunks()[col].Pages()
			pg, err := pages.ReadPage()
			if err != nil {
				t.Fatal(err)
			}
			if got := pg.Dictionary() != nil; got != wantDict {
				t.Errorf("%d rows, column %s: dictionary %v, want %v", n, fs[col].Name, got, wantDict)
			}
			pages.Close()
		}
		it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for r := it.Next(); r != nil; r = it.Next() {
			if !reflect.DeepEqual(r, row(i)) {
				t.Fatalf("row %d: got %v, want %v", i, r, row(i))
			}
			i++
		}
		if it.Error() != nil || i != n {
			t.Fatalf("%d rows, %v", i, it.Error())
		}
		it.Close()
	}
}
