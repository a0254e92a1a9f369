package format

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/pagecheck"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestTruncateAsBinaryTruncator checks the bounds cut to parquet-java's
// column index truncate length (64, BinaryTruncator's DEFAULT_UTF8_TRUNCATOR):
// valid UTF-8 is cut on a character boundary and the max's last character
// incremented; other bytes are cut at 64 and incremented with carry; a max
// that cannot be incremented stays whole.
func TestTruncateAsBinaryTruncator(t *testing.T) {
	a70 := strings.Repeat("a", 70)
	e40 := strings.Repeat("é", 40) // 80 bytes
	split := strings.Repeat("a", 63) + "é" + "zz"
	del := strings.Repeat("\x7f", 70)
	top := strings.Repeat("\U0010FFFF", 17)
	ff := strings.Repeat("\xff", 70)
	b80 := strings.Repeat("\x80", 70)
	for _, c := range []struct{ in, min, max string }{
		{"short", "short", "short"},
		{strings.Repeat("a", 64), strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{a70, a70[:64], a70[:63] + "b"},
		{e40, e40[:64], e40[:62] + "ê"},
		{split, split[:63], split[:62] + "b"},
		{del, del[:64], del}, // 0x7f+1 is not UTF-8 anywhere: the max stays whole
		{top, top[:64], top},
		{ff, ff[:64], ff}, // not UTF-8: the increment overflows
		{b80, b80[:64], b80[:63] + "\x81"},
	} {
		if got := string(truncateMin([]byte(c.in))); got != c.min {
			t.Errorf("truncateMin(%q) = %q, want %q", c.in, got, c.min)
		}
		if got := string(truncateMax([]byte(c.in))); got != c.max {
			t.Errorf("truncateMax(%q) = %q, want %q", c.in, got, c.max)
		}
	}
}

// TestPageIndexes is issue 14's column and offset indexes: every column
// chunk of a file sqlrun writes, flat or nested, has them as parquet-java
// writes them by default, checked against the pages parquet-go reads back.
// The columns' pages are ascending (id), descending (a negative DECIMAL(38),
// whose order is signed), unordered, of nulls only (n's last page), and
// of strings and bytes longer than the truncate length.
func TestPageIndexes(t *testing.T) {
	fields := []schema.Field{
		{ID: 0, Name: "id", Type: sql.Int()}, {ID: 1, Name: "dn", Type: sql.Decimal(38, 2)},
		{ID: 2, Name: "s", Type: sql.String()}, {ID: 3, Name: "bin", Type: sql.Bytes()},
		{ID: 4, Name: "n", Type: sql.BigInt()}, {ID: 5, Name: "b", Type: sql.Boolean()},
		{ID: 6, Name: "dbl", Type: sql.Double()}, {ID: 7, Name: "ts9", Type: sql.Timestamp(9)},
		{ID: 8, Name: "d9", Type: sql.Decimal(9, 2)},
	}
	const rows = 45_000
	row := func(i int) []any {
		var n any
		if i < 30_000 {
			n = int64(i * 3 % 1000)
		}
		s := fmt.Sprintf("%s%05d", strings.Repeat("é", 33), i*7919%rows) // 71 bytes: cut
		if i%5 == 0 {
			s = "short"
		}
		return []any{int32(i), decimalOf(-int64(i), 2), s, bytes.Repeat([]byte{0xff, byte(i)}, 40), n, i%3 == 0,
			float64(i%17) - 8, sql.TimestampData{Millis: int64(i)}, decimalOf(int64(min(i, 50_000-i)), 2)}
	}
	nested := append(fields[:len(fields):len(fields)], schema.Field{ID: 9, Name: "arr", Type: sql.ArrayOf(sql.Int())})
	defer func(n int) { nestedPageSize = n }(nestedPageSize)
	nestedPageSize = 64 << 10 // several pages of every column
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
		for i := 0; i < rows; i++ {
			r := row(i)
			if len(fs) > len(fields) {
				var arr any
				if i%4 != 0 {
					arr = []any{int32(i), nil, int32(-i)}
				}
				r = append(r, arr)
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		orders, errs := pagecheck.Check(name, buf.Bytes())
		for _, err := range errs {
			t.Error(err)
		}
		for col, want := range map[string]pformat.BoundaryOrder{"id": pformat.Ascending, "dn": pformat.Descending, "d9": pformat.Unordered} {
			if orders[col] != want {
				t.Errorf("%s file: column %s boundary order %v, want %v", name, col, orders[col], want)
			}
		}
	}
}

// TestPageIndexEmptyStringMin: a page whose least value is the empty
// string has that bound in its column index, not null_pages true. The
// writers took an empty min (kept as a nil slice) for a page of nulls
// only, and a reader that prunes pages by the index (parquet-java's
// ColumnIndexFilter, the column path's page skipping) dropped the page:
// a filter s = ” or s < 'b' lost its rows. Flat and nested files.
func TestPageIndexEmptyStringMin(t *testing.T) {
	flat := []schema.Field{{ID: 0, Name: "s", Type: sql.String()}, {ID: 1, Name: "k", Type: sql.Int()}}
	nested := append(flat[:2:2], schema.Field{ID: 2, Name: "arr", Type: sql.ArrayOf(sql.Int())})
	defer func(n int) { nestedPageSize = n }(nestedPageSize)
	nestedPageSize = 8 << 10
	for _, fs := range [][]schema.Field{flat, nested} {
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 45_000; i++ {
			s := []string{"", "a", "b"}[i%3]
			r := []any{s, int32(i)}
			if len(fs) > len(flat) {
				r = append(r, []any{int32(i)})
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_, errs := pagecheck.Check("empty", buf.Bytes())
		for _, err := range errs {
			t.Errorf("%d columns: %v", len(fs), err)
		}
		f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-e-0.parquet")
		if err != nil {
			t.Fatal(err)
		}
		ci := f.columnIndex(0, 0)
		if ci == nil || len(ci.NullPages) < 2 {
			t.Fatalf("%d columns: column index of s %+v, want several pages", len(fs), ci)
		}
		for i, null := range ci.NullPages {
			if null || len(ci.MinValues[i]) != 0 || string(ci.MaxValues[i]) != "b" {
				t.Errorf("%d columns: page %d null %v, bounds %q %q, want \"\" \"b\"", len(fs), i, null, ci.MinValues[i], ci.MaxValues[i])
			}
		}
	}
}
