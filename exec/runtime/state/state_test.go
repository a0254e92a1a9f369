package state

import (
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

func TestRowRoundTrip(t *testing.T) {
	r := sql.Row{Kind: sql.UpdateBefore, Values: []any{nil, true, int8(-3), int16(300), int32(1001), int64(-1 << 40),
		float32(1.5), 2.25, decimal.RequireFromString("80.00"), "CREATED", []byte{1, 2},
		sql.TimestampData{Millis: 1700000000123, NanoOfMilli: 456}, []any{int32(1), "x"},
		&sql.Map{Keys: []any{"k"}, Values: []any{int64(7)}}}}
	var e Encoder
	if err := e.Row(r); err != nil {
		t.Fatal(err)
	}
	d := Decoder{Buf: e.Buf}
	got, err := d.Row()
	if err != nil || !d.Done() {
		t.Fatalf("decode: %v done=%v", err, d.Done())
	}
	if got.Kind != r.Kind || len(got.Values) != len(r.Values) {
		t.Fatalf("got %v", got)
	}
	// decimal keeps its scale: 80.00 prints as 80.00 again.
	if s := got.Values[8].(decimal.Decimal).StringFixed(2); s != "80.00" || got.Values[8].(decimal.Decimal).Exponent() != -2 {
		t.Fatalf("decimal %s exp %d", s, got.Values[8].(decimal.Decimal).Exponent())
	}
	got.Values[8], r.Values[8] = nil, nil
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, r)
	}
	// Truncations never panic and are reported.
	for i := 0; i < len(e.Buf); i++ {
		d := Decoder{Buf: e.Buf[:i]}
		if _, err := d.Row(); err == nil {
			t.Fatalf("truncated at %d decoded without error", i)
		}
	}
}

func TestKeyNormalizesDecimal(t *testing.T) {
	a, _ := KeyOf(sql.NewRow(decimal.RequireFromString("80.0"), "x"), []int{0, 1})
	b, _ := KeyOf(sql.NewRow(decimal.RequireFromString("80.00"), "x"), []int{0, 1})
	c, _ := KeyOf(sql.NewRow(decimal.RequireFromString("80.01"), "x"), []int{0, 1})
	if a != b || a == c {
		t.Fatalf("decimal keys: %q %q %q", a, b, c)
	}
}

func TestMemTableSnapshotRestore(t *testing.T) {
	tab := NewMemTable(RowCodec)
	_ = tab.Put("b", sql.NewRow(int64(2)))
	_ = tab.Put("a", sql.NewRow(int64(1)))
	_ = tab.Put("c", sql.NewRow(int64(3)))
	_ = tab.Delete("c")
	blob, err := SnapshotAll(tab)
	if err != nil {
		t.Fatal(err)
	}
	back := NewMemTable(RowCodec)
	if err := RestoreAll(blob, back); err != nil {
		t.Fatal(err)
	}
	var keys []string
	_ = back.Range(func(k string, v sql.Row) error { keys = append(keys, k+"="+sql.FormatRow(v, nil)); return nil })
	if want := []string{"a=+I[1]", "b=+I[2]"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("got %v want %v", keys, want)
	}
	if err := RestoreAll(blob[:len(blob)-1], back); err == nil {
		t.Fatal("truncated snapshot restored")
	}
}

// FuzzDecode: arbitrary bytes never panic the decoders (a corrupt or
// truncated checkpoint must be an error).
func FuzzDecode(f *testing.F) {
	var e Encoder
	_ = e.Row(sql.Row{Kind: sql.Delete, Values: []any{int64(1), "x", decimal.RequireFromString("1.50"),
		[]any{nil, true}, &sql.Map{Keys: []any{"k"}, Values: []any{float32(1)}}}})
	f.Add(e.Buf)
	blob, _ := SnapshotAll(NewMemTable(RowsCodec))
	f.Add(blob)
	f.Fuzz(func(t *testing.T, b []byte) {
		d := Decoder{Buf: b}
		_, _ = d.Row()
		_ = NewMemTable(RowCodec).Restore(b)
		_ = NewMemTable(RowsCodec).Restore(b)
		_ = RestoreAll(b, NewMemTable(RowCodec))
	})
}
