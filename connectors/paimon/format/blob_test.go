package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// writeBlobFile lays out values as BlobFormatWriter does (nil: NULL): per
// value magic, bytes, bin length and the CRC-32 of all three; then the
// delta-zigzag-varint index of bin lengths, its length and version 1.
func writeBlobFile(values [][]byte) []byte {
	var out bytes.Buffer
	var lengths []int64
	for _, v := range values {
		if v == nil {
			lengths = append(lengths, -1)
			continue
		}
		start := out.Len()
		binary.Write(&out, binary.LittleEndian, int32(blobMagic))
		out.Write(v)
		binLen := int64(len(v) + 16)
		binary.Write(&out, binary.LittleEndian, binLen)
		binary.Write(&out, binary.LittleEndian, crc32.ChecksumIEEE(out.Bytes()[start:]))
		lengths = append(lengths, binLen)
	}
	var index []byte
	prev := int64(0)
	for i, l := range lengths {
		d := l
		if i > 0 {
			d = l - prev
		}
		index = binary.AppendVarint(index, d)
		prev = l
	}
	out.Write(index)
	binary.Write(&out, binary.LittleEndian, int32(len(index)))
	out.WriteByte(blobVersion)
	return out.Bytes()
}

func readBlobColumn(t *testing.T, data []byte) ([]any, error) {
	t.Helper()
	f, err := Open(bytes.NewReader(data), int64(len(data)), "data-x-1.blob")
	if err != nil {
		return nil, err
	}
	field := schema.Field{ID: 3, Name: "picture", Type: sql.Bytes(), Blob: true}
	it, err := f.Rows(Projection{FileFields: []schema.Field{field}, Fields: []schema.Field{field}})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var got []any
	for row := it.Next(); row != nil; row = it.Next() {
		got = append(got, row[0])
	}
	return got, it.Error()
}

// TestBlobFileRead reads blob files in BlobFormatWriter's layout: values,
// NULLs (bin length -1 in the index, no bytes in the data section), a value
// larger than a batch, and Paimon Java's own file from a fixture
// (BlobFileMeta, BlobFormatReader).
func TestBlobFileRead(t *testing.T) {
	big := bytes.Repeat([]byte{7}, blobBatchBytes+1)
	values := [][]byte{[]byte("Lily"), nil, {}, big, []byte("Alice"), nil}
	got, err := readBlobColumn(t, writeBlobFile(values))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(values) {
		t.Fatalf("%d rows, want %d", len(got), len(values))
	}
	for i, v := range values {
		if v == nil {
			if got[i] != nil {
				t.Errorf("row %d: %v, want NULL", i, got[i])
			}
			continue
		}
		if b, ok := got[i].([]byte); !ok || !bytes.Equal(b, v) {
			t.Errorf("row %d: %d bytes, want %d", i, len(b), len(v))
		}
	}

	// The fixture's blob file holds 'Lily' and 'Alice' (UPSTREAM_README).
	dir := "../../../testdata/paimon/java/blob_dense_stats/blob_data_evolution_with_dense_stats.db/blob_data_evolution_with_dense_stats/bucket-0"
	names, _ := filepath.Glob(filepath.Join(dir, "*.blob"))
	if len(names) != 1 {
		t.Fatalf("fixture blob files %v", names)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, err = readBlobColumn(t, data); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0].([]byte)) != "Lily" || string(got[1].([]byte)) != "Alice" {
		t.Fatalf("fixture values %q", got)
	}
}

// TestBlobFileCorrupt: a damaged file is refused as corrupt, naming it,
// rather than read as other bytes.
func TestBlobFileCorrupt(t *testing.T) {
	good := writeBlobFile([][]byte{[]byte("Lily"), []byte("Alice")})
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"flipped data byte", func(b []byte) []byte { b[5] ^= 1; return b }, "row 0: CRC-32 mismatch"},
		{"flipped magic", func(b []byte) []byte { b[0] ^= 1; return b }, "row 0 at offset 0 has no blob magic number"},
		{"truncated", func(b []byte) []byte { return b[10:] }, "does not fit in the data section"},
		{"index too long", func(b []byte) []byte { b[len(b)-5] = 0x7f; return b }, "index length"},
		{"short", func(b []byte) []byte { return b[:3] }, "too short"},
	} {
		_, err := readBlobColumn(t, c.damage(append([]byte(nil), good...)))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "data-x-1.blob") {
			t.Errorf("%s: got %v, want a corrupt-file error with %q", c.name, err, c.want)
		}
	}
	v2 := append([]byte(nil), good...)
	v2[len(v2)-1] = 2
	if _, err := readBlobColumn(t, v2); !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: got %v", err)
	}
}
