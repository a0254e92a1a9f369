package format

import (
	"bytes"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/sql"
)

// FuzzOpenRead feeds corrupt files to the reader: errors are fine, panics
// and hangs are not (a user may point sqlrun at a damaged warehouse).
func FuzzOpenRead(f *testing.F) {
	keys, vals := benchShape()
	var buf bytes.Buffer
	w, _ := NewKVWriter(&buf, keys, vals, WriterOptions{Compression: "none"})
	for _, r := range benchRows(20) {
		w.Write(r)
	}
	w.Write(&kv.KeyValue{Key: []any{int32(99)}, Kind: sql.Delete, Value: make([]any, 21)})
	w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(bytes.NewReader(data), int64(len(data)), "data-f-0.parquet")
		if err != nil {
			return
		}
		it, err := file.KeyValues(keys, keys, Projection{FileFields: vals, Fields: vals}, 0)
		if err != nil {
			return
		}
		for n := 0; n < 10000 && it.Next() != nil; n++ {
		}
		it.Close()
	})
}
