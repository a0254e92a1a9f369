package format

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"

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

// FuzzAvroData feeds damaged Avro data files to the reader (a Java-written
// one as the seed): errors are fine, panics and hangs are not.
func FuzzAvroData(f *testing.F) {
	seeds, _ := filepath.Glob("../../../testdata/paimon/java/avro_timestamps/*/*/bucket-0/*.avro")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var fields []schema.Field
	for i, n := range []string{"ts_sec", "ts_milli", "ts_micro", "ts_tz_sec", "ts_tz_milli", "ts_tz_micro"} {
		tt := sql.Timestamp(3 * (i % 3))
		if i >= 3 {
			tt = sql.TimestampLTZ(3 * (i % 3))
		}
		fields = append(fields, schema.Field{ID: i, Name: n, Type: tt})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(bytes.NewReader(data), int64(len(data)), "data-f-0.avro")
		if err != nil {
			return
		}
		it, err := file.Rows(Projection{FileFields: fields, Fields: fields})
		if err != nil {
			return
		}
		for n := 0; n < 10000 && it.Next() != nil; n++ {
		}
		it.Close()
	})
}
