package format

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// paimon10Encodings are the value encodings Paimon 1.0's and 1.1's
// Parquet reader accepts (AbstractColumnReader.prepareNewPage: PLAIN, or
// PLAIN_DICTIONARY / RLE_DICTIONARY indexes; readPageV1 wants RLE
// definition levels). Anything else fails with "Unsupported encoding".
var paimon10Encodings = map[pformat.Encoding]bool{
	pformat.Plain: true, pformat.PlainDictionary: true, pformat.RLEDictionary: true, pformat.RLE: true,
}

// pageEncodings walks every page header of every column chunk of a
// Parquet file and returns, per column path, the encodings its pages use
// (value encodings of data pages, the dictionary page's encoding, and
// the level encodings of V1 pages).
func pageEncodings(t *testing.T, file []byte) map[string][]pformat.Encoding {
	t.Helper()
	f, err := Open(bytes.NewReader(file), int64(len(file)), "encodings.parquet")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]pformat.Encoding{}
	for _, rg := range f.pf.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			md := cc.MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			path := fmt.Sprint(md.PathInSchema)
			buf := file[start : start+md.TotalCompressedSize]
			for len(buf) > 0 {
				var h pformat.PageHeader
				r := bytes.NewReader(buf)
				if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&h); err != nil {
					t.Fatalf("%s: page header: %v", path, err)
				}
				n := len(buf) - r.Len()
				if d, ok := h.DataPageHeader.Get(); ok {
					out[path] = append(out[path], d.Encoding, d.DefinitionLevelEncoding, d.RepetitionLevelEncoding)
				}
				if d, ok := h.DictionaryPageHeader.Get(); ok {
					out[path] = append(out[path], d.Encoding)
				}
				if d, ok := h.DataPageHeaderV2.Get(); ok {
					out[path] = append(out[path], d.Encoding, -1) // V2 pages: refused too
				}
				buf = buf[n+int(h.CompressedPageSize):]
			}
		}
	}
	return out
}

// TestEncodingsPaimon10Reads is the regression test of issue 14's first
// problem: non-dictionary strings were DELTA_LENGTH_BYTE_ARRAY, which
// Paimon 1.0 and 1.1 refuse. By default every page of every column of a
// flat file (unique strings that never take a dictionary, repeated ones
// that do, a dictionary that falls back) and of a nested file is in an
// encoding Paimon 1.0 reads; the opt-in string encoding writes DELTA.
func TestEncodingsPaimon10Reads(t *testing.T) {
	flat := pageTestFields()
	nested := append(pageTestFields()[:2:2], schema.Field{ID: 10, Name: "arr", Type: sql.ArrayOf(sql.String())})
	write := func(fields []schema.Field, opts WriterOptions) []byte {
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fields, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(1))
		for i := 0; i < 20_000; i++ {
			row := pageTestRow(r, i)[:len(fields)]
			if len(fields) == len(nested) {
				row[2] = []any{fmt.Sprint("e", i), nil}
			}
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for name, fields := range map[string][]schema.Field{"flat": flat, "nested": nested} {
		for col, encs := range pageEncodings(t, write(fields, WriterOptions{})) {
			for _, e := range encs {
				if !paimon10Encodings[e] {
					t.Errorf("%s file, column %s: encoding %v, which Paimon 1.0's reader refuses", name, col, e)
				}
			}
		}
	}
	sawDelta := false
	for _, encs := range pageEncodings(t, write(flat, WriterOptions{StringEncoding: StringEncodingDeltaLength})) {
		for _, e := range encs {
			sawDelta = sawDelta || e == pformat.DeltaLengthByteArray
		}
	}
	if !sawDelta {
		t.Errorf("StringEncoding %q wrote no DELTA_LENGTH_BYTE_ARRAY page", StringEncodingDeltaLength)
	}
	if _, err := NewAppendWriter(new(bytes.Buffer), flat, 0, WriterOptions{StringEncoding: "delta"}); err == nil {
		t.Errorf("unknown StringEncoding accepted")
	}
}
