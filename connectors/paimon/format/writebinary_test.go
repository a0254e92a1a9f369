package format

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// WriteBinary and WritePacked (a write buffer's flush: values read in
// place from the serialized row, a BinaryRow or packed) must write the
// very file Write writes from decoded values, although the row it reads from is overwritten after every call:
// the page writer copies the page bounds and dictionary entries it keeps.
func TestWriteBinaryMatchesWrite(t *testing.T) {
	keys := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}}
	flat := []schema.Field{
		{ID: 0, Name: "k", Type: sql.Int().NotNull()},
		{ID: 1, Name: "s", Type: sql.String()},             // random, PLAIN after the sample
		{ID: 2, Name: "c", Type: sql.String()},             // few values: a dictionary
		{ID: 3, Name: "short", Type: sql.VarChar(5)},       // inline in the slot
		{ID: 4, Name: "b", Type: sql.BigInt()},             //
		{ID: 5, Name: "d", Type: sql.Decimal(10, 2)},       // decoded
		{ID: 6, Name: "x", Type: sql.Double()},             // decoded
		{ID: 7, Name: "bin", Type: sql.Bytes()},            // decoded
		{ID: 8, Name: "day", Type: sql.Date()},             // INT32 in place
		{ID: 9, Name: "big", Type: sql.String().NotNull()}, // past the inline size
	}
	row := func(i int) []any {
		r := []any{int32(i), fmt.Sprintf("%08x", uint32(i)*2654435761), fmt.Sprintf("c%d", i%7), fmt.Sprintf("%d", i%1000),
			int64(i) * -3, decimal.New(int64(i), -2), float64(i) / 3, []byte{byte(i), byte(i >> 8)}, int32(i / 10),
			fmt.Sprintf("%0100d", i)}
		if i%9 == 0 {
			for j := 1; j < 9; j++ {
				r[j] = nil
			}
		}
		return r
	}
	nested := append(append([]schema.Field(nil), flat...), schema.Field{ID: 10, Name: "arr", Type: sql.ArrayOf(sql.Int())})
	// fast: only the columns a packed row is read into in place.
	fast := []schema.Field{flat[0], flat[1], flat[2], flat[3], flat[4], flat[8], flat[9]}
	fastRow := func(v []any) []any { return []any{v[0], v[1], v[2], v[3], v[4], v[8], v[9]} }
	for _, c := range []struct {
		name string
		vals []schema.Field
	}{{"flat", flat}, {"nested", nested}, {"fast", fast}} {
		t.Run(c.name, func(t *testing.T) {
			types := FieldTypes(c.vals)
			const n = 50_000 // past pageRowLimit: several pages per column
			// mode 0 writes with Write, 1 with WriteBinary, 2 with
			// WritePacked (a write buffer's packed row).
			write := func(mode int) []byte {
				var buf bytes.Buffer
				w, err := NewKVWriter(&buf, keys, c.vals, WriterOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var scratch []byte
				for i := 0; i < n; i++ {
					v := row(i)
					if len(c.vals) > len(flat) {
						v = append(v, []any{int32(i), nil})
					}
					if c.name == "fast" {
						v = fastRow(v)
					}
					r := &kv.KeyValue{Key: []any{v[0]}, Seq: int64(i), Kind: sql.RowKind(i % 4), Value: v}
					if mode == 0 {
						err = w.Write(r)
					} else {
						if mode == 1 {
							scratch, err = binrow.AppendEncode(scratch[:0], types, v)
						} else {
							scratch, err = binrow.AppendPacked(scratch[:0], types, v)
						}
						if err != nil {
							t.Fatal(err)
						}
						r.Value = nil
						if mode == 1 {
							err = w.WriteBinary(r, scratch)
						} else {
							err = w.WritePacked(r, scratch)
						}
						for j := range scratch {
							scratch[j] = 0xA5 // the next record's bytes
						}
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if _, err := w.Close(); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes()
			}
			want, got, packed := write(0), write(1), write(2)
			if !bytes.Equal(got, want) {
				t.Fatalf("WriteBinary wrote %d bytes, Write %d: the files differ", len(got), len(want))
			}
			if !bytes.Equal(packed, want) {
				t.Fatalf("WritePacked wrote %d bytes, Write %d: the files differ", len(packed), len(want))
			}
		})
	}
}
