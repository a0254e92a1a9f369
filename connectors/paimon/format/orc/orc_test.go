package orc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// The encodings' worked examples of the ORC specification (ORCv1,
// "Run Length Encoding"), decoded.
func TestSpecExamples(t *testing.T) {
	for _, c := range []struct {
		name   string
		in     []byte
		signed bool
		v2     bool
		want   []int64
	}{
		{"v2 short repeat", []byte{0x0a, 0x27, 0x10}, false, true, []int64{10000, 10000, 10000, 10000, 10000}},
		{"v2 direct", []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}, false, true, []int64{23713, 43806, 57005, 48879}},
		{"v2 patched base", []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e,
			0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8}, false, true,
			[]int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190}},
		{"v2 delta", []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}, false, true, []int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
		{"v1 run", []byte{0x61, 0x00, 0x07}, false, false, repeat(7, 100)},
		{"v1 literals", []byte{0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b}, false, false, []int64{2, 3, 6, 7, 11}},
	} {
		got, err := readInts(&byteStream{b: c.in}, len(c.want), c.signed, c.v2)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
	b, err := readByteRLE(&byteStream{b: []byte{0x61, 0x00}}, 100)
	if err != nil || len(b) != 100 || b[99] != 0 {
		t.Errorf("byte run: %v %v", b, err)
	}
	b, err = readByteRLE(&byteStream{b: []byte{0xfe, 0x44, 0x45}}, 2)
	if err != nil || !bytes.Equal(b, []byte{0x44, 0x45}) {
		t.Errorf("byte literals: %v %v", b, err)
	}
	bs, err := readBools(&byteStream{b: []byte{0xff, 0x80}}, 8)
	if err != nil || !bs[0] || bs[1] {
		t.Errorf("booleans: %v %v", bs, err)
	}
	// A stream that ends early is an error, not a short or padded result.
	if _, err := readInts(&byteStream{b: []byte{0x0a}}, 5, false, true); err == nil {
		t.Error("truncated run read")
	}
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestReadsWholeFiles reads every row of files without expected rows:
// the zstd file of Apache ORC's examples and one written by ORC 0.12
// with zlib.
func TestReadsWholeFiles(t *testing.T) {
	for _, name := range []string{"TestVectorOrcFile.testZstd.0.12.orc", "demo-12-zlib.orc"} {
		f := openFile(t, filepath.Join("testdata", "apache-orc", name))
		n := readAll(t, f)
		if n != f.NumRows() || n == 0 {
			t.Errorf("%s: %d rows, footer %d", name, n, f.NumRows())
		}
	}
}

func readAll(t testing.TB, f *File) int64 {
	cols := make([]int, len(f.Schema().Children))
	for i := range cols {
		cols[i] = i
	}
	var n int64
	for s := 0; s < f.NumStripes(); s++ {
		_, rows, err := f.ReadStripe(s, cols)
		if err != nil {
			t.Fatal(err)
		}
		n += int64(rows)
	}
	return n
}

// TestUnsupportedNamed: LZO compression and union columns are refused
// with ErrUnsupported naming the feature, never misread.
func TestUnsupportedNamed(t *testing.T) {
	for name, feature := range map[string]string{
		"TestVectorOrcFile.testLzo.orc":         "LZO compression",
		"TestOrcFile.testUnionAndTimestamp.orc": "union type",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "apache-orc", name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(bytes.NewReader(b), int64(len(b)))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), feature) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzOpenRead feeds damaged files to the reader: errors are fine; a
// panic (reported as an internal error) or a hang is not.
func FuzzOpenRead(f *testing.F) {
	for _, p := range []string{"testdata/apache-orc/TestOrcFile.test1.orc", "testdata/apache-orc/TestOrcFile.testTimestamp.orc",
		"testdata/cpp_paimon_write_apache_orc_9.orc"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	defer func(v uint64) { maxValues = v }(maxValues)
	maxValues = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
			return
		}
		cols := make([]int, len(file.Schema().Children))
		for i := range cols {
			cols[i] = i
		}
		for s := 0; s < file.NumStripes() && s < 16; s++ {
			if _, _, err := file.ReadStripe(s, cols); err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
		}
	})
}

// TestCorruptIsSQLCorrupt: a damaged ORC file fails with the one
// corruption marker (issue 21 item 4), so callers need not know this
// package's own error to tell corruption from an I/O failure.
func TestCorruptIsSQLCorrupt(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "apache-orc", "TestOrcFile.test1.orc"))
	if err != nil {
		t.Fatal(err)
	}
	b = append([]byte(nil), b...)
	b[len(b)-1] = 0xff // the postscript's length: beyond the file
	_, err = Open(bytes.NewReader(b), int64(len(b)))
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, sql.ErrCorrupt) {
		t.Fatalf("got %v, want an error matching orc.ErrCorrupt and sql.ErrCorrupt", err)
	}
}
