package format

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/dv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// dvIndexFile builds a deletion-vector index file as Paimon lays it out: a
// version byte, then [len BE][magic BE][roaring32 (one array container)]
// [crc BE]. It returns the file and the DV's offset and length.
func dvIndexFile(positions []uint16) ([]byte, int64, int64) {
	var bm []byte
	bm = binary.LittleEndian.AppendUint32(bm, 12346) // no-run cookie
	bm = binary.LittleEndian.AppendUint32(bm, 1)     // one container
	bm = binary.LittleEndian.AppendUint16(bm, 0)     // key
	bm = binary.LittleEndian.AppendUint16(bm, uint16(len(positions)-1))
	bm = binary.LittleEndian.AppendUint32(bm, 16) // offset header
	for _, p := range positions {
		bm = binary.LittleEndian.AppendUint16(bm, p)
	}
	data := binary.BigEndian.AppendUint32(nil, dv.Magic32)
	data = append(data, bm...)
	file := []byte{1}
	file = binary.BigEndian.AppendUint32(file, uint32(len(data)))
	file = append(file, data...)
	file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(data))
	return file, 1, int64(len(data))
}

func TestDeletionVector(t *testing.T) {
	idx, off, length := dvIndexFile([]uint16{0, 3, 4, 99})
	vec, err := dv.Read(bytes.NewReader(idx), off, length, "index-x-0")
	if err != nil {
		t.Fatal(err)
	}
	// Apply to an append file of 100 rows: positions 0, 3, 4, 99 vanish.
	f := []schema.Field{{ID: 0, Name: "i", Type: sql.Int()}}
	var buf bytes.Buffer
	w, _ := NewAppendWriter(&buf, f, 0, WriterOptions{})
	for i := 0; i < 100; i++ {
		w.Write([]any{int32(i)})
	}
	w.Close()
	file, _ := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-d-0.parquet")
	it, _ := file.Rows(Projection{FileFields: f, Fields: f, Deleted: vec})
	var got []int32
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, r[0].(int32))
	}
	if len(got) != 96 || got[0] != 1 || got[1] != 2 || got[2] != 5 || got[95] != 98 || it.Error() != nil {
		t.Fatalf("rows after DV: %d %v %v", len(got), got[:3], it.Error())
	}
}
