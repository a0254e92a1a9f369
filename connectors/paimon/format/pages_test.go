package format

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/delta"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestDeltaBinaryPacked checks our DELTA_BINARY_PACKED encoder against
// parquet-go's decoder: empty, single, partial blocks and miniblocks,
// constant runs (width 0), and lengths jumping up and down.
func TestDeltaBinaryPacked(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	cases := [][]int32{nil, {5}, {10, 10, 10}, make([]int32, 1000)}
	for _, n := range []int{2, 31, 32, 33, 127, 128, 129, 130, 257, 5000} {
		v := make([]int32, n)
		for i := range v {
			switch r.Intn(3) {
			case 0:
				v[i] = int32(r.Intn(20))
			case 1:
				v[i] = int32(r.Intn(1 << 20))
			default:
				if i > 0 {
					v[i] = v[i-1]
				}
			}
		}
		cases = append(cases, v)
	}
	for _, want := range cases {
		enc := appendDeltaBinaryPacked(nil, want)
		got, err := new(delta.BinaryPackedEncoding).DecodeInt32(nil, enc)
		if err != nil {
			t.Fatalf("%d values: %v", len(want), err)
		}
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d values: got %v, want %v", len(want), got[:min(len(got), 20)], want[:min(len(want), 20)])
		}
	}
}

// pageTestFields is a flat schema with every kind of column the page
// writer handles differently.
func pageTestFields() []schema.Field {
	return []schema.Field{
		{ID: 0, Name: "id", Type: sql.BigInt().NotNull()},
		{ID: 1, Name: "s", Type: sql.String()},             // variable lengths, nulls
		{ID: 2, Name: "mostly", Type: sql.String()},        // dictionary, then past 1 MiB: PLAIN
		{ID: 3, Name: "b", Type: sql.Boolean()},            // bit-packed PLAIN, nulls
		{ID: 4, Name: "n", Type: sql.Int()},                // nulls
		{ID: 5, Name: "req", Type: sql.String().NotNull()}, // no definition levels
		{ID: 6, Name: "d", Type: sql.Decimal(20, 2)},       // FIXED_LEN_BYTE_ARRAY
		{ID: 7, Name: "ts", Type: sql.Timestamp(9)},        // INT96
		{ID: 8, Name: "bin", Type: sql.VarBinary(100)},     // BYTE_ARRAY, not a string
		{ID: 9, Name: "f", Type: sql.Double()},
	}
}

func pageTestRow(r *rand.Rand, i int) []any {
	row := []any{int64(i)}
	if i%7 == 0 {
		row = append(row, nil)
	} else {
		row = append(row, strings.Repeat("x", r.Intn(40))+fmt.Sprint(i))
	}
	if i < 3000 {
		row = append(row, fmt.Sprintf("rep-%d", i%3))
	} else {
		row = append(row, fmt.Sprintf("%064d", i)) // unique: the dictionary outgrows 1 MiB
	}
	switch i % 3 {
	case 0:
		row = append(row, nil)
	case 1:
		row = append(row, true)
	default:
		row = append(row, false)
	}
	if i%5 == 0 {
		row = append(row, nil)
	} else {
		row = append(row, int32(i*3))
	}
	row = append(row, fmt.Sprint("r", i%11))
	if i%4 == 0 {
		row = append(row, nil)
	} else {
		row = append(row, decimalOf(int64(i)*101-5000, 2))
	}
	row = append(row, sql.TimestampData{Millis: int64(i) * 1000, NanoOfMilli: int32(i % 1000000)})
	if i%6 == 0 {
		row = append(row, nil)
	} else {
		row = append(row, []byte{byte(i), byte(i >> 8)})
	}
	row = append(row, float64(i)/3)
	return row
}

// TestPageWriterRoundTrip writes enough rows for several pages per column,
// a dictionary that falls back to PLAIN half way, nulls everywhere they
// may be, and (with a small row group size) several row groups; the file
// reads back exactly, through the bulk and the value-by-value paths.
func TestPageWriterRoundTrip(t *testing.T) {
	defer func(n int64) { rowGroupBytes = n }(rowGroupBytes)
	defer func(d bool) { usePageDecoder = d }(usePageDecoder)
	for _, rg := range []int64{rowGroupSize, 64 << 10} {
		rowGroupBytes = rg
		fs := pageTestFields()
		r := rand.New(rand.NewSource(1))
		const n = 50_000
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		for i := 0; i < n; i++ {
			row := pageTestRow(r, i)
			rows = append(rows, row)
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
		}
		res, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.FileSize != int64(buf.Len()) || res.RowCount != n {
			t.Fatalf("result %d bytes %d rows, file has %d bytes", res.FileSize, res.RowCount, buf.Len())
		}
		f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-pages.parquet")
		if err != nil {
			t.Fatal(err)
		}
		groups := f.pf.Metadata().RowGroups
		if rg < rowGroupSize && len(groups) < 2 {
			t.Fatalf("row group size %d: %d row groups", rg, len(groups))
		}
		// The "mostly" column starts dictionary-encoded and falls back.
		encs := groups[0].Columns[2].MetaData.Encoding
		if !reflect.DeepEqual([]pformat.Encoding(encs), []pformat.Encoding{pformat.Plain, pformat.RLE, pformat.RLEDictionary}) {
			t.Errorf("row group 0, column mostly: encodings %v", encs)
		}
		// Read with our page decoder, and with parquet-go's (a second,
		// independent decoding of what the page writer wrote).
		for _, decoder := range []bool{true, false} {
			usePageDecoder = decoder
			it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for got := it.Next(); got != nil; got = it.Next() {
				if !reflect.DeepEqual(got, rows[i]) {
					t.Fatalf("row group size %d, page decoder %v, row %d:\n got %v\nwant %v", rg, decoder, i, got, rows[i])
				}
				i++
			}
			if it.Error() != nil || i != n {
				t.Fatalf("page decoder %v: read %d rows: %v", decoder, i, it.Error())
			}
			it.Close()
		}
	}
}

// TestPageWriterAbortRow: a row that fails half way (a null in a NOT NULL
// column, a value of the wrong Go type) is dropped whole, including a
// dictionary entry it added, and the rows around it are intact.
func TestPageWriterAbortRow(t *testing.T) {
	fs := []schema.Field{{ID: 0, Name: "s", Type: sql.String()}, {ID: 1, Name: "b", Type: sql.Boolean()},
		{ID: 2, Name: "k", Type: sql.Int().NotNull()}}
	var buf bytes.Buffer
	w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want [][]any
	for i := 0; i < 3000; i++ {
		row := []any{fmt.Sprint("v", i%4), i%2 == 0, int32(i)}
		switch i % 10 {
		case 3:
			row = []any{"only-in-a-failed-row", true, nil}
		case 7:
			row = []any{nil, false, "not an int"}
		}
		if err := w.Write(row); err != nil {
			continue
		}
		want = append(want, row)
	}
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Null counts are exact: the failed rows' nulls are not counted.
	for i, n := range res.ValueStats.NullCounts {
		if n == nil || *n != 0 {
			t.Errorf("field %s: null count %v, want 0", fs[i].Name, n)
		}
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-abort.parquet")
	if err != nil {
		t.Fatal(err)
	}
	it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, r)
	}
	if it.Error() != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %d rows (want %d): %v", len(got), len(want), it.Error())
	}
	it.Close()
}

func decimalOf(unscaled int64, scale int32) decimal.Decimal { return decimal.New(unscaled, -scale) }

// heldPageBytes is what a page writer holds in memory of the finished
// pages of its current row group.
func heldPageBytes(w *pageWriter) int64 {
	var n int64
	for i := range w.cols {
		for _, p := range w.cols[i].chunk {
			n += int64(len(p.b))
		}
	}
	return n
}

// TestPageWriterSpillsPages: with a SpillDir, a writer holds at most
// pageMemory bytes of finished pages however large its row group grows
// (before, a flush's or a compaction's file was held whole: up to
// parquet.block.size, 128 MiB, per file being written); the rest wait in a
// scratch file that is gone from the directory while it is in use, and
// the file, of one or several row groups, reads back exactly.
func TestPageWriterSpillsPages(t *testing.T) {
	defer func(n, m int64) { rowGroupBytes, pageMemory = n, m }(rowGroupBytes, pageMemory)
	defer func(d bool) { usePageDecoder = d }(usePageDecoder)
	pageMemory = 512 << 10
	fs := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}}
	for i := 1; i <= 20; i++ {
		fs = append(fs, schema.Field{ID: i, Name: fmt.Sprintf("s%d", i), Type: sql.String()})
	}
	for _, rg := range []int64{rowGroupSize, 2 << 20} {
		rowGroupBytes = rg
		dir := t.TempDir()
		r := rand.New(rand.NewSource(2))
		const n = 40_000
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{SpillDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		var maxHeld, maxBuffered int64
		for i := 0; i < n; i++ {
			row := []any{int32(i)}
			for j := 1; j <= 20; j++ {
				row = append(row, fmt.Sprintf("%010x", r.Int63n(1<<40)))
			}
			rows = append(rows, row)
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
			if i%1000 == 0 {
				maxHeld = max(maxHeld, heldPageBytes(w.c.pages))
				maxBuffered = max(maxBuffered, w.c.pages.buffered)
			}
		}
		if rg == rowGroupSize && maxBuffered < 3*pageMemory {
			t.Fatalf("at most %d bytes of pages buffered; the test needs more", maxBuffered)
		}
		if maxHeld > pageMemory {
			t.Errorf("row group size %d: %d bytes of finished pages held in memory (limit %d, %d buffered)", rg, maxHeld, pageMemory, maxBuffered)
		}
		if w.c.pages.spill == nil {
			t.Fatalf("row group size %d: no page was spilled", rg)
		}
		if left, _ := os.ReadDir(dir); runtime.GOOS != "windows" && len(left) != 0 {
			t.Errorf("the spill file is visible in %s while in use: %v", dir, left)
		}
		res, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("left behind in %s: %v", dir, left)
		}
		if res.FileSize != int64(buf.Len()) || res.RowCount != n {
			t.Fatalf("result %d bytes %d rows, file has %d bytes", res.FileSize, res.RowCount, buf.Len())
		}
		f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-spilled.parquet")
		if err != nil {
			t.Fatal(err)
		}
		if groups := len(f.pf.Metadata().RowGroups); (rg < rowGroupSize) != (groups > 1) {
			t.Fatalf("row group size %d: %d row groups", rg, groups)
		}
		for _, decoder := range []bool{true, false} {
			usePageDecoder = decoder
			it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for got := it.Next(); got != nil; got = it.Next() {
				if !reflect.DeepEqual(got, rows[i]) {
					t.Fatalf("row group size %d, page decoder %v, row %d:\n got %v\nwant %v", rg, decoder, i, got, rows[i])
				}
				i++
			}
			if it.Error() != nil || i != n {
				t.Fatalf("page decoder %v: read %d rows: %v", decoder, i, it.Error())
			}
			it.Close()
		}
	}
}
