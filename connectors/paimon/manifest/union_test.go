package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// An older Paimon writes its metadata rows with the writer schema
// ["null", record] (a nullable RowType, as the pk_09 fixture's manifest
// lists have it); Java's Avro reader resolves the record branch, and so
// must we. A null row is an error, not a zero record.
func TestNullableRecordWriterSchema(t *testing.T) {
	metas := []ManifestFileMeta{{FileName: "manifest-a-0", FileSize: 10, NumAddedFiles: 2, SchemaID: 1,
		PartitionStats: SimpleStats{MinValues: emptyRow(), MaxValues: emptyRow()}}}
	w := newOCFWriter(`["null",`+ManifestListSchema+`]`, CodecNull)
	w.block.long(1) // the record branch
	w.block.manifestFileMeta(&metas[0])
	w.endRecord()
	data, err := w.finish()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeManifestList(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].FileName != "manifest-a-0" || got[0].NumAddedFiles != 2 || got[0].SchemaID != 1 {
		t.Fatalf("got %+v", got)
	}
	want, _ := DecodeManifestList(mustEncode(t, metas))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("union %+v\nplain %+v", got, want)
	}

	w = newOCFWriter(`["null",`+ManifestListSchema+`]`, CodecNull)
	w.block.long(0) // a null row
	w.endRecord()
	data, _ = w.finish()
	if _, err := DecodeManifestList(data); err == nil || !strings.Contains(err.Error(), "null") {
		t.Fatalf("null row: %v", err)
	}
}

func mustEncode(t *testing.T, metas []ManifestFileMeta) []byte {
	t.Helper()
	b, err := EncodeManifestList(metas, CodecNull)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
