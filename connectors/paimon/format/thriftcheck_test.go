package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestCheckCompact: the footer of a file the writer made passes and is
// measured exactly; declared lengths its bytes cannot hold are refused
// before parquet-go would allocate them; so is a footer length beyond the
// file.
func TestCheckCompact(t *testing.T) {
	data := writeBench(t, benchRows(50))
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footer := data[len(data)-8-n : len(data)-8]
	if got, err := checkCompact(footer); err != nil || got != n {
		t.Fatalf("footer: %d bytes, %v; want %d", got, err, n)
	}
	if _, err := checkCompact(footer[:n/2]); !errors.Is(err, errThriftTruncated) {
		t.Fatalf("half a footer: %v", err)
	}
	// A struct whose field 1 is a list of 2^30 i32s, in 6 bytes.
	huge := []byte{0x19, 0xf5, 0x80, 0x80, 0x80, 0x04, 0x00}
	if _, err := checkCompact(huge); !errors.Is(err, errThriftTruncated) {
		t.Fatalf("huge list: %v", err)
	}
	// A binary field declaring 2^40 bytes.
	if _, err := checkCompact([]byte{0x18, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00}); !errors.Is(err, errThriftTruncated) {
		t.Fatalf("huge binary: %v", err)
	}
	// The trailer's footer length beyond the file.
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[len(bad)-8:], 0xfffffff0)
	if _, err := Open(bytes.NewReader(bad), int64(len(bad)), "data-x-0.parquet"); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("footer length beyond the file: %v", err)
	}
}
