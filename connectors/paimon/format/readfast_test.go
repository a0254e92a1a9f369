package format

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

// The page decoder (readfast.go) must read exactly what parquet-go reads.
// These tests write files with parquet-go's own writer in the layouts the
// decoder claims (V1 and V2 pages, every codec, PLAIN, DELTA_LENGTH and
// dictionary encodings, nulls, pages and row groups cut small) plus
// columns it hands back to parquet-go (DELTA_BYTE_ARRAY,
// DELTA_BINARY_PACKED), and compare both read paths with the rows
// written.

type diffCol struct {
	name string
	typ  sql.DataType
	node parquet.Node
	gen  func(r *rand.Rand, i int) any
}

func diffCols() []diffCol {
	str := func(r *rand.Rand, i int) any {
		switch r.IntN(10) {
		case 0:
			return nil
		case 1:
			return ""
		case 2:
			return strings.Repeat("y", 3000+r.IntN(3000)) // past an arena chunk's share
		}
		b := make([]byte, r.IntN(40))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	few := func(r *rand.Rand, i int) any {
		if r.IntN(6) == 0 {
			return nil
		}
		return fmt.Sprintf("cat-%d", r.IntN(7))
	}
	opt := func(g func(r *rand.Rand, i int) any) func(r *rand.Rand, i int) any {
		return func(r *rand.Rand, i int) any {
			if r.IntN(5) == 0 {
				return nil
			}
			return g(r, i)
		}
	}
	return []diffCol{
		{"a_k", sql.BigInt().NotNull(), parquet.Encoded(parquet.Int(64), &parquet.Plain),
			func(r *rand.Rand, i int) any { return int64(i) }},
		{"b_i", sql.Int(), parquet.Optional(parquet.Encoded(parquet.Int(32), &parquet.Plain)),
			opt(func(r *rand.Rand, i int) any { return int32(r.Uint32()) })},
		{"c_s", sql.String(), parquet.Optional(parquet.Encoded(parquet.String(), &parquet.DeltaLengthByteArray)), str},
		{"d_d", sql.String(), parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary)), few},
		{"e_p", sql.String().NotNull(), parquet.Encoded(parquet.String(), &parquet.Plain),
			func(r *rand.Rand, i int) any {
				if s, _ := str(r, i).(string); s != "" {
					return s
				}
				return "z"
			}},
		{"f_t", sql.TinyInt(), parquet.Optional(parquet.Encoded(parquet.Int(32), &parquet.RLEDictionary)),
			opt(func(r *rand.Rand, i int) any { return int8(r.IntN(200) - 100) })},
		{"g_x", sql.String(), parquet.Optional(parquet.Encoded(parquet.String(), &parquet.DeltaByteArray)), str},
		{"h_l", sql.BigInt(), parquet.Optional(parquet.Encoded(parquet.Int(64), &parquet.DeltaBinaryPacked)),
			opt(func(r *rand.Rand, i int) any { return int64(r.Uint64()) })},
		{"i_s", sql.String(), parquet.Optional(parquet.Encoded(parquet.String(), &parquet.Plain)), str},
	}
}

// writeDiff writes n random rows with parquet-go's writer and returns the
// file and the rows.
func writeDiff(t *testing.T, n int, codec compress.Codec, opts ...parquet.WriterOption) ([]byte, [][]any) {
	t.Helper()
	cols := diffCols()
	g := parquet.Group{}
	for _, c := range cols {
		g[c.name] = parquet.Compressed(c.node, codec)
	}
	sch := parquet.NewSchema("diff", g)
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, append([]parquet.WriterOption{sch, parquet.PageBufferSize(2048),
		parquet.MaxRowsPerRowGroup(700)}, opts...)...)
	r := rand.New(rand.NewPCG(7, uint64(n)))
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, len(cols))
		prow := make(parquet.Row, len(cols))
		for j, c := range cols {
			v := c.gen(r, i)
			row[j] = v
			def := 0
			if c.node.Optional() {
				def = 1
			}
			switch x := v.(type) {
			case nil:
				prow[j] = parquet.Value{}.Level(0, 0, j)
			case int8:
				prow[j] = parquet.Int32Value(int32(x)).Level(0, def, j)
			default:
				prow[j] = parquet.ValueOf(x).Level(0, def, j)
			}
		}
		rows[i] = row
		if _, err := w.WriteRows([]parquet.Row{prow}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), rows
}

func diffFields() []schema.Field {
	var fs []schema.Field
	for i, c := range diffCols() {
		fs = append(fs, schema.Field{ID: i, Name: c.name, Type: c.typ})
	}
	return fs
}

// readAll reads every row of data, with the page decoder on or off.
func readAll(t *testing.T, data []byte, fields []schema.Field, decoder bool) [][]any {
	return readAllMode(t, data, fields, decoder, false)
}

// readAllMode is readAll, with the lean reader (KVIterator.Lean) if lean.
func readAllMode(t *testing.T, data []byte, fields []schema.Field, decoder, lean bool) [][]any {
	t.Helper()
	defer func(old bool) { usePageDecoder = old }(usePageDecoder)
	usePageDecoder = decoder
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	it, err := f.Rows(Projection{FileFields: diffFields(), Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	it.rr.lean = lean
	var out [][]any
	for r := it.Next(); r != nil; r = it.Next() {
		out = append(out, r)
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPageDecoderMatchesParquetGo(t *testing.T) {
	codecs := map[string]compress.Codec{"zstd": &zstd.Codec{}, "snappy": &snappy.Codec{}, "none": &uncompressed.Codec{}}
	for _, version := range []int{1, 2} {
		for cname, codec := range codecs {
			t.Run(fmt.Sprintf("v%d/%s", version, cname), func(t *testing.T) {
				data, want := writeDiff(t, 2500, codec, parquet.DataPageVersion(version))
				// The decoder must actually take the columns it claims.
				f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
				if err != nil {
					t.Fatal(err)
				}
				md := f.pf.Metadata()
				if len(md.RowGroups) < 3 {
					t.Fatalf("want several row groups, got %d", len(md.RowGroups))
				}
				for j, c := range diffCols() {
					got := newChunkReader(f.pf, &md.RowGroups[0].Columns[j].MetaData, md.RowGroups[0].NumRows, c.node.Type().Kind()) != nil
					if wantFast := c.name != "g_x" && c.name != "h_l"; got != wantFast {
						t.Errorf("column %s: page decoder used %v, want %v", c.name, got, wantFast)
					}
				}
				fast := readAll(t, data, diffFields(), true)
				slow := readAll(t, data, diffFields(), false)
				lean := readAllMode(t, data, diffFields(), true, true)
				if len(fast) != len(want) || len(slow) != len(want) || len(lean) != len(want) {
					t.Fatalf("rows: fast %d slow %d lean %d want %d", len(fast), len(slow), len(lean), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(fast[i], want[i]) || !reflect.DeepEqual(slow[i], want[i]) || !reflect.DeepEqual(lean[i], want[i]) {
						t.Fatalf("row %d:\nfast %v\nslow %v\nlean %v\nwant %v", i, fast[i], slow[i], lean[i], want[i])
					}
				}
				// A projection in another order, with a column twice.
				fs := diffFields()
				proj := []schema.Field{fs[4], fs[2], fs[0], fs[2], fs[5]}
				got := readAll(t, data, proj, true)
				for i := range want {
					w := []any{want[i][4], want[i][2], want[i][0], want[i][2], want[i][5]}
					if !reflect.DeepEqual(got[i], w) {
						t.Fatalf("projected row %d: got %v want %v", i, got[i], w)
					}
				}
			})
		}
	}
}

// TestPageDecoderRowsStayValid: rows handed out must not change when the
// reader moves on (callers retain them), whichever page buffer they came
// from.
func TestPageDecoderRowsStayValid(t *testing.T) {
	for _, lean := range []bool{false, true} {
		testRowsStayValid(t, lean)
	}
}

// testRowsStayValid: with lean, pages are decoded into reused buffers
// (KVIterator.Lean), so a value that pointed into one would change.
func testRowsStayValid(t *testing.T, lean bool) {
	data, want := writeDiff(t, 3000, &zstd.Codec{})
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-d-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	it, err := f.Rows(Projection{FileFields: diffFields(), Fields: diffFields()})
	if err != nil {
		t.Fatal(err)
	}
	it.rr.lean = lean
	var kept [][]any
	for r := it.Next(); r != nil; r = it.Next() {
		kept = append(kept, r)
	}
	it.Close()
	// Churn the heap so a page buffer freed too early would be reused.
	var junk [][]byte
	for i := 0; i < 2000; i++ {
		junk = append(junk, bytes.Repeat([]byte{0xEE}, 4096))
	}
	_ = junk
	if !reflect.DeepEqual(kept, want) {
		t.Fatalf("retained rows changed after the reader moved on (lean %v)", lean)
	}
}

// TestPageDecoderCorruptPages flips bytes inside the column chunks of a
// valid file: every read must end (an error or rows), quickly, without a
// panic escaping.
func TestPageDecoderCorruptPages(t *testing.T) {
	for _, codec := range []compress.Codec{&uncompressed.Codec{}, &zstd.Codec{}} {
		data, _ := writeDiff(t, 300, codec, parquet.DataPageVersion(1+len(codec.String())%2))
		r := rand.New(rand.NewPCG(3, 4))
		bad := 0
		for iter := 0; iter < 400; iter++ {
			d := append([]byte(nil), data...)
			for k := 0; k < 1+r.IntN(4); k++ {
				// Stay clear of the footer: corrupt pages, not metadata.
				d[4+r.IntN(len(d)/2)] ^= byte(1 + r.IntN(255))
			}
			f, err := Open(bytes.NewReader(d), int64(len(d)), "data-c-0.parquet")
			if err != nil {
				continue
			}
			it, err := f.Rows(Projection{FileFields: diffFields(), Fields: diffFields()})
			if err != nil {
				continue
			}
			for n := 0; it.Next() != nil; n++ {
				if n > 10000 {
					t.Fatal("read does not end")
				}
			}
			if it.Error() != nil {
				bad++
			}
			it.Close()
		}
		if bad == 0 {
			t.Errorf("%s: no corruption was detected", codec)
		}
	}
}

func TestDecodeHelpers(t *testing.T) {
	// Delta lengths as the page writer encodes them, over block and
	// miniblock boundaries and with wide deltas.
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 2, 31, 32, 33, 128, 129, 1000} {
		lens := make([]int32, n)
		for i := range lens {
			switch i % 3 {
			case 0:
				lens[i] = 10
			case 1:
				lens[i] = int32(r.IntN(1 << 20))
			}
		}
		enc := appendDeltaBinaryPacked(nil, lens)
		enc = append(enc, "tail"...)
		offs := make([]uint32, n+1)
		rest, err := decodeDeltaLengths(enc, offs)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if string(rest) != "tail" {
			t.Fatalf("n=%d: rest %q", n, rest)
		}
		var sum uint32
		for i, l := range lens {
			if offs[i] != sum {
				t.Fatalf("n=%d: offset %d is %d, want %d", n, i, offs[i], sum)
			}
			sum += uint32(l)
		}
		if offs[n] != sum {
			t.Fatalf("n=%d: end %d want %d", n, offs[n], sum)
		}
	}
	// Negative lengths and short input are errors, not panics.
	if _, err := decodeDeltaLengths(appendDeltaBinaryPacked(nil, []int32{5, -3}), make([]uint32, 3)); !errors.Is(err, errPageFormat) {
		t.Errorf("negative length: %v", err)
	}
	enc := appendDeltaBinaryPacked(nil, []int32{1, 900, 3, 70000})
	for cut := 0; cut < len(enc); cut++ {
		if _, err := decodeDeltaLengths(enc[:cut], make([]uint32, 5)); err == nil {
			t.Errorf("cut at %d: no error", cut)
		}
	}
	// Definition levels: an RLE run, bit-packed groups, and the writer's
	// own encoding.
	defs := make([]byte, 1000)
	for i := range defs {
		defs[i] = byte(r.IntN(2))
	}
	lv := appendDefLevels(nil, defs)
	got := make([]byte, len(defs))
	if err := decodeLevels(lv[4:], 1, got); err != nil || !bytes.Equal(got, defs) {
		t.Fatalf("levels: %v", err)
	}
	// Dictionary indexes of every width the writer picks.
	for _, dictN := range []int{1, 2, 3, 200, 70000} {
		idx := make([]int32, 777)
		for i := range idx {
			idx[i] = int32(r.IntN(dictN))
		}
		b := appendDictIndexes(nil, idx, dictN)
		out := make([]int32, len(idx))
		if err := decodeIndexes(b[1:], int(b[0]), out); err != nil || !reflect.DeepEqual(out, idx) {
			t.Fatalf("dict of %d: %v", dictN, err)
		}
	}
}

// BenchmarkReadPlainStrings reads the benchmark shape (k + 20 random
// 10-character strings, 100k rows, zstd) written the way parquet-mr writes
// high-cardinality strings once its dictionary gives up: PLAIN pages, as
// Java-written Paimon files have them.
func BenchmarkReadPlainStrings(b *testing.B) {
	g := parquet.Group{"k": parquet.Compressed(parquet.Encoded(parquet.Int(32), &parquet.Plain), &zstd.Codec{})}
	fs := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}}
	for i := 1; i <= 20; i++ {
		name := fmt.Sprintf("f%02d", i)
		g[name] = parquet.Optional(parquet.Compressed(parquet.Encoded(parquet.String(), &parquet.Plain), &zstd.Codec{}))
		fs = append(fs, schema.Field{ID: i, Name: name, Type: sql.String()})
	}
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.NewSchema("bench", g))
	r := rand.New(rand.NewPCG(1, 2))
	const hex = "0123456789abcdef"
	for i := 0; i < benchN; i++ {
		row := parquet.Row{parquet.Int32Value(int32(i)).Level(0, 0, 0)}
		for j := 1; j <= 20; j++ {
			s := make([]byte, 10)
			x := r.Uint64()
			for k := range s {
				s[k] = hex[x&15]
				x >>= 4
			}
			row = append(row, parquet.ByteArrayValue(s).Level(0, 1, j))
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ResetTimer()
	cpu := cpuSeconds()
	defer func() { reportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		f, err := Open(bytes.NewReader(data), int64(len(data)), "data-p-0.parquet")
		if err != nil {
			b.Fatal(err)
		}
		it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for row := it.Next(); row != nil; row = it.Next() {
			n++
		}
		if it.Error() != nil || n != benchN {
			b.Fatal(n, it.Error())
		}
		it.Close()
	}
}

// TestReadAllocations pins the read path's allocation profile on the
// benchmark shape: per page and per batch, never per value (a regression
// to one allocation per string shows as 20 per row).
func TestReadAllocations(t *testing.T) {
	const n = 20000
	data := writeBench(t, benchRows(n))
	keys, vals := benchShape()
	read := func() {
		f, err := Open(bytes.NewReader(data), int64(len(data)), "data-b-0.parquet")
		if err != nil {
			t.Fatal(err)
		}
		it, err := f.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals}, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for r := it.Next(); r != nil; r = it.Next() {
			got++
		}
		if it.Error() != nil || got != n {
			t.Fatal(got, it.Error())
		}
		it.Close()
	}
	perRow := testing.AllocsPerRun(3, read) / n
	t.Logf("%.4f allocations per row", perRow)
	if perRow > 0.1 {
		t.Errorf("%.4f allocations per row, want < 0.1", perRow)
	}
}

// TestPageDecoderJavaFiles reads every flat INT32/INT64/BYTE_ARRAY column
// of every Parquet file of the Java-written fixtures with the page decoder
// and through parquet-go: parquet-mr's layouts (PLAIN_DICTIONARY pages,
// dictionary fallback, its level encodings) must give the same values.
func TestPageDecoderJavaFiles(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(fixtures.PaimonDir(t), "*", "*.db", "*", "*", "*.parquet"))
	more, _ := filepath.Glob(filepath.Join(fixtures.PaimonDir(t), "*", "*.db", "*", "*", "*", "*.parquet"))
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Skip("no Parquet files under the fixtures")
	}
	decoded := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(bytes.NewReader(data), int64(len(data)), filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		var fs []schema.Field
		for i, fl := range f.pf.Schema().Fields() {
			if !fl.Leaf() || fl.Repeated() {
				continue
			}
			var typ sql.DataType
			switch fl.Type().Kind() {
			case parquet.Int32:
				typ = sql.Int()
			case parquet.Int64:
				typ = sql.BigInt()
			case parquet.ByteArray:
				typ = sql.String()
			default:
				continue
			}
			fs = append(fs, schema.Field{ID: i, Name: fl.Name(), Type: typ})
			md := f.pf.Metadata()
			for _, rg := range md.RowGroups {
				if newChunkReader(f.pf, &rg.Columns[f.leafBase[i]].MetaData, rg.NumRows, fl.Type().Kind()) != nil {
					decoded++
				}
			}
		}
		read := func(decoder bool) [][]any {
			defer func(old bool) { usePageDecoder = old }(usePageDecoder)
			usePageDecoder = decoder
			f, err := Open(bytes.NewReader(data), int64(len(data)), filepath.Base(p))
			if err != nil {
				t.Fatal(err)
			}
			it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			var out [][]any
			for r := it.Next(); r != nil; r = it.Next() {
				out = append(out, r)
			}
			if err := it.Error(); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			return out
		}
		fast, slow := read(true), read(false)
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: page decoder read\n%v\nparquet-go read\n%v", filepath.Base(p), fast, slow)
		}
	}
	t.Logf("%d files, %d column chunks through the page decoder", len(paths), decoded)
	if decoded == 0 {
		t.Error("no fixture column chunk went through the page decoder")
	}
}

// TestLevelsBitPacked: the deprecated BIT_PACKED level encoding (most
// significant bit first, no length prefix), which old parquet-mr writers
// name in page headers.
func TestLevelsBitPacked(t *testing.T) {
	want := []byte{1, 0, 1, 1, 0, 0, 1, 1, 1, 0}
	body := append([]byte{0xB3, 0x80}, "rest"...)
	var c chunkReader
	var p pageData
	rest, err := c.levels(&p, body, len(want), 1, pformat.BitPacked, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.defs, want) || string(rest) != "rest" || p.nonNull(1) != 6 {
		t.Fatalf("defs %v rest %q non-null %d", p.defs, rest, p.nonNull(1))
	}
	// All set: no definition levels are kept.
	rest, err = c.levels(&p, []byte{0xFF, 0xC0}, 10, 1, pformat.BitPacked, true)
	if err != nil || p.defs != nil || len(rest) != 0 {
		t.Fatalf("all set: defs %v rest %v err %v", p.defs, rest, err)
	}
	if _, err := c.levels(&p, []byte{0xFF}, 10, 1, pformat.BitPacked, true); !errors.Is(err, errPageFormat) {
		t.Fatalf("short: %v", err)
	}
}

// TestBatchSizesSameRows is metamorphic: the rows of a file are the same
// whatever the reader's batch size (a batch is decoded column by column,
// and rows within a batch are stepped without decoding) and whatever the
// projection, its order and its repeats, on every codec and page version.
func TestBatchSizesSameRows(t *testing.T) {
	fs := diffFields()
	projs := [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8}, {4}, {8, 0}, {2, 2, 7, 3}, {}}
	for _, version := range []int{1, 2} {
		for _, codec := range []compress.Codec{&zstd.Codec{}, &uncompressed.Codec{}} {
			data, want := writeDiff(t, 1500, codec, parquet.DataPageVersion(version))
			for _, proj := range projs {
				var fields []schema.Field
				for _, i := range proj {
					fields = append(fields, fs[i])
				}
				for _, k := range []int{1, 2, 7, 64, 256, 1000} {
					f, err := Open(bytes.NewReader(data), int64(len(data)), "data-b-0.parquet")
					if err != nil {
						t.Fatal(err)
					}
					it, err := f.Rows(Projection{FileFields: fs, Fields: fields})
					if err != nil {
						t.Fatal(err)
					}
					it.rr.batchK = k
					n := 0
					for r := it.Next(); r != nil; r = it.Next() {
						if n >= len(want) {
							t.Fatalf("v%d %s %v batch %d: more rows than written", version, codec, proj, k)
						}
						w := make([]any, len(proj))
						for j, i := range proj {
							w[j] = want[n][i]
						}
						if !reflect.DeepEqual(r, w) {
							t.Fatalf("v%d %s %v batch %d, row %d: got %v want %v", version, codec, proj, k, n, r, w)
						}
						n++
					}
					if err := it.Error(); err != nil || n != len(want) {
						t.Fatalf("v%d %s %v batch %d: %d rows of %d: %v", version, codec, proj, k, n, len(want), err)
					}
					it.Close()
				}
			}
		}
	}
}
