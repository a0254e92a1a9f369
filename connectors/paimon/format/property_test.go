package format

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/randdata"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestRandomRoundTrip writes random schemas (atomic and nested types, NOT
// NULL and nullable, random nulls) as primary-key and append files and as
// BinaryRows, and reads back exactly what was written.
func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	for iter := 0; iter < 60; iter++ {
		n := 1 + r.Intn(8)
		vals := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}}
		for i := 1; i < n; i++ {
			vals = append(vals, schema.Field{ID: i, Name: fmt.Sprintf("c%d", i), Type: randdata.Type(r, 2)})
		}
		keys := vals[:1]
		rows := make([][]any, 1+r.Intn(300))
		for i := range rows {
			row := []any{int32(i)}
			for _, f := range vals[1:] {
				row = append(row, randdata.Value(r, f.Type))
			}
			rows[i] = row
		}
		var kbuf, abuf bytes.Buffer
		kw, err := NewKVWriter(&kbuf, keys, vals, WriterOptions{BatchRows: 1 + r.Intn(50)})
		if err != nil {
			t.Fatal(err)
		}
		aw, _ := NewAppendWriter(&abuf, vals, 0, WriterOptions{})
		types := FieldTypes(vals)
		for i, row := range rows {
			if err := kw.Write(&kv.KeyValue{Key: row[:1], Seq: int64(i), Kind: sql.RowKind(r.Intn(4)), Value: row}); err != nil {
				t.Fatalf("iter %d schema %v: %v", iter, types, err)
			}
			if err := aw.Write(row); err != nil {
				t.Fatal(err)
			}
			// BinaryRow of the same row round-trips too.
			b, err := binrow.Serialize(types, row)
			if err != nil {
				t.Fatalf("binrow %v: %v", types, err)
			}
			back, err := binrow.Deserialize(types, b)
			if err != nil || !randdata.Equal(back, row) {
				t.Fatalf("binrow %v:\n%v\n%v (%v)", types, back, row, err)
			}
		}
		if _, err := kw.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		kf, err := Open(bytes.NewReader(kbuf.Bytes()), int64(kbuf.Len()), "data-r-0.parquet")
		if err != nil {
			t.Fatal(err)
		}
		it, err := kf.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals}, 0)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for v := it.Next(); v != nil; v = it.Next() {
			if !randdata.Equal(v.Value, rows[i]) {
				t.Fatalf("iter %d kv row %d, schema %v:\n got %v\nwant %v", iter, i, types, v.Value, rows[i])
			}
			i++
		}
		if it.Error() != nil || i != len(rows) {
			t.Fatalf("iter %d: %d of %d rows: %v", iter, i, len(rows), it.Error())
		}
		af, _ := Open(bytes.NewReader(abuf.Bytes()), int64(abuf.Len()), "data-r-1.parquet")
		// Read a random projection in random order.
		perm := r.Perm(len(vals))[:1+r.Intn(len(vals))]
		var proj []schema.Field
		for _, p := range perm {
			proj = append(proj, vals[p])
		}
		rit, err := af.Rows(Projection{FileFields: vals, Fields: proj})
		if err != nil {
			t.Fatal(err)
		}
		i = 0
		for row := rit.Next(); row != nil; row = rit.Next() {
			for j, p := range perm {
				if !randdata.Equal(row[j], rows[i][p]) {
					t.Fatalf("iter %d append row %d col %s (%s): %v != %v", iter, i, vals[p].Name, vals[p].Type, row[j], rows[i][p])
				}
			}
			i++
		}
		if rit.Error() != nil || i != len(rows) {
			t.Fatalf("iter %d append: %d of %d: %v", iter, i, len(rows), rit.Error())
		}
	}
}
