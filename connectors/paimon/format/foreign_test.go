package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

func openTestFile(t *testing.T, p, name string) *File {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)), name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const orcAppend10 = "../../../testdata/paimon/java/orc_append_10/append_10.db/append_10/f1=10/bucket-1/data-de4e972f-5cc8-49b1-844e-374191534c68-0.orc"

type posSet map[int64]bool

func (p posSet) IsDeleted(i int64) bool { return p[i] }
func (p posSet) Cardinality() int64     { return int64(len(p)) }

// TestORCProjectEvolveDelete: an ORC data file (written by Paimon Java)
// is projected and evolved by field id exactly as a Parquet one: a
// reordered projection, a renamed column (found by the file schema's
// name), DOUBLE → STRING (CastExecutors' NumericToStringCastRule), a
// column added later (null), and a deletion vector.
func TestORCProjectEvolveDelete(t *testing.T) {
	f := openTestFile(t, orcAppend10, "data-de4e972f-5cc8-49b1-844e-374191534c68-0.orc")
	if f.NumRows() != 3 || strings.Join(f.ColumnNames(), ",") != "f0,f1,f2,f3" {
		t.Fatalf("%d rows, columns %v", f.NumRows(), f.ColumnNames())
	}
	file := []schema.Field{{ID: 0, Name: "f0", Type: sql.String()}, {ID: 1, Name: "f1", Type: sql.Int()},
		{ID: 2, Name: "f2", Type: sql.Int()}, {ID: 3, Name: "f3", Type: sql.Double()}}
	want := []schema.Field{{ID: 3, Name: "price", Type: sql.String()}, {ID: 0, Name: "name", Type: sql.String()},
		{ID: 7, Name: "added", Type: sql.BigInt()}}
	it, err := f.Rows(Projection{FileFields: file, Fields: want, Deleted: posSet{1: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var got []string
	for r := it.Next(); r != nil; r = it.Next() {
		got = append(got, fmt.Sprint(r))
	}
	if it.Error() != nil || strings.Join(got, " ") != "[12.1 Bob <nil>] [14.1 Tony <nil>]" {
		t.Fatalf("%v %v", got, it.Error())
	}
	// A key field absent from a primary-key file is an error naming it.
	if _, err := f.KeyValues(file[:1], file[:1], Projection{FileFields: file, Fields: file}, 0); err == nil || !strings.Contains(err.Error(), "_SEQUENCE_NUMBER") {
		t.Fatalf("KeyValues on an append file: %v", err)
	}
	// A column whose ORC type cannot hold the schema's type fails naming
	// the file and the column.
	bad := []schema.Field{{ID: 0, Name: "f0", Type: sql.Int()}}
	if _, err := f.Rows(Projection{FileFields: bad, Fields: bad}); err == nil || !strings.Contains(err.Error(), "data-de4e972f") || !strings.Contains(err.Error(), "column f0") {
		t.Fatalf("type mismatch: %v", err)
	}
}

// TestForeignUnsupportedNamed: what the ORC and Avro readers do not read
// fails with ErrUnsupportedFormat naming the file, the feature and the
// Paimon option behind it, never as wrong rows.
func TestForeignUnsupportedNamed(t *testing.T) {
	lzo, err := os.ReadFile(filepath.Join("orc", "testdata", "apache-orc", "TestVectorOrcFile.testLzo.orc"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(bytes.NewReader(lzo), int64(len(lzo)), "data-l-0.orc")
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "data-l-0.orc") || !strings.Contains(err.Error(), "LZO") || !strings.Contains(err.Error(), "'orc.compress'") {
		t.Errorf("lzo: %v", err)
	}
	av := avroHeader(`{"type":"record","name":"record","fields":[{"name":"a","type":"int"}]}`, "bzip2")
	_, err = Open(bytes.NewReader(av), int64(len(av)), "data-b-0.avro")
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "data-b-0.avro") || !strings.Contains(err.Error(), `"bzip2"`) || !strings.Contains(err.Error(), "'avro.codec'") {
		t.Errorf("bzip2: %v", err)
	}
}

// avroHeader is an Avro container file with no blocks.
func avroHeader(schema, codec string) []byte {
	var b []byte
	str := func(s string) {
		b = binary.AppendVarint(b, int64(len(s)))
		b = append(b, s...)
	}
	b = append(b, 'O', 'b', 'j', 1)
	b = binary.AppendVarint(b, 2)
	str("avro.schema")
	str(schema)
	str("avro.codec")
	str(codec)
	b = binary.AppendVarint(b, 0)
	return append(b, make([]byte, 16)...)
}

// TestAvroFileRows reads a hand-made Avro data file with Paimon's Avro
// mapping of every flat type, nulls, an array, a string-keyed map and a
// nested record, in two blocks.
func TestAvroFileRows(t *testing.T) {
	sch := `{"type":"record","name":"record","fields":[
{"name":"b","type":["null","boolean"]},{"name":"ti","type":"int"},{"name":"si","type":"int"},{"name":"i","type":"int"},
{"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":["null","string"]},
{"name":"y","type":"bytes"},{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":20,"scale":2}},
{"name":"dt","type":{"type":"int","logicalType":"date"}},{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
{"name":"arr","type":{"type":"array","items":["null","int"]}},{"name":"m","type":{"type":"map","values":"long"}},
{"name":"r","type":["null",{"type":"record","name":"r","fields":[{"name":"x","type":"int"}]}]}]}`
	var rec []byte
	long := func(v int64) { rec = binary.AppendVarint(rec, v) }
	bs := func(s []byte) { long(int64(len(s))); rec = append(rec, s...) }
	long(1)
	rec = append(rec, 1)                                    // b = true
	long(-3)                                                // ti
	long(300)                                               // si
	long(70000)                                             // i
	long(-5_000_000_000)                                    // l
	rec = binary.LittleEndian.AppendUint32(rec, 0x3fc00000) // f = 1.5
	rec = binary.LittleEndian.AppendUint64(rec, 0xc004000000000000)
	long(1)
	bs([]byte("héllo"))
	bs([]byte{0, 1})
	bs([]byte{0xff, 0x85}) // -123 → -1.23
	long(19000)
	long(-1500) // -1.5 ms before the epoch
	long(2)
	long(1)
	long(7)
	long(0) // null element
	long(0)
	long(1)
	bs([]byte("k"))
	long(9)
	long(0)
	long(1)
	long(42)
	first := rec
	rec = nil
	long(0) // b null
	for i := 0; i < 4; i++ {
		long(0)
	}
	rec = append(rec, make([]byte, 12)...)
	long(0) // s null
	bs(nil)
	bs([]byte{0})
	long(0)
	long(0)
	long(0) // empty array
	long(0) // empty map
	long(0) // r null
	second := rec

	file := avroHeader(sch, "null")
	sync := file[len(file)-16:]
	for _, blk := range [][]byte{first, second} {
		file = binary.AppendVarint(file, 1)
		file = binary.AppendVarint(file, int64(len(blk)))
		file = append(file, blk...)
		file = append(file, sync...)
	}
	f, err := Open(bytes.NewReader(file), int64(len(file)), "data-a-0.avro")
	if err != nil {
		t.Fatal(err)
	}
	fields := []schema.Field{{ID: 0, Name: "b", Type: sql.Boolean()}, {ID: 1, Name: "ti", Type: sql.TinyInt()},
		{ID: 2, Name: "si", Type: sql.SmallInt()}, {ID: 3, Name: "i", Type: sql.Int()}, {ID: 4, Name: "l", Type: sql.BigInt()},
		{ID: 5, Name: "f", Type: sql.Float()}, {ID: 6, Name: "d", Type: sql.Double()}, {ID: 7, Name: "s", Type: sql.String()},
		{ID: 8, Name: "y", Type: sql.Bytes()}, {ID: 9, Name: "dec", Type: sql.Decimal(20, 2)}, {ID: 10, Name: "dt", Type: sql.Date()},
		{ID: 11, Name: "ts", Type: sql.Timestamp(6)}, {ID: 12, Name: "arr", Type: sql.ArrayOf(sql.Int())},
		{ID: 13, Name: "m", Type: sql.MapOf(sql.String(), sql.BigInt())},
		{ID: 14, Name: "r", Type: sql.RowOf(sql.Field{Name: "x", Type: sql.Int()})}}
	if f.NumRows() != 2 {
		t.Fatalf("%d rows", f.NumRows())
	}
	it, err := f.Rows(Projection{FileFields: fields, Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var rows [][]any
	for r := it.Next(); r != nil; r = it.Next() {
		rows = append(rows, r)
	}
	if it.Error() != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, it.Error())
	}
	r := rows[0]
	if m := r[13].(*sql.Map); fmt.Sprint(m.Keys, m.Values) != "[k] [9]" {
		t.Errorf("map %v %v", m.Keys, m.Values)
	}
	if d := r[9].(decimal.Decimal); d.String() != "-1.23" {
		t.Errorf("decimal %v", d)
	}
	r[9], r[13] = nil, nil
	if got := fmt.Sprintf("%#v", r); got != `[]interface {}{true, -3, 300, 70000, -5000000000, 1.5, -2.5, "héllo", []uint8{0x0, 0x1}, interface {}(nil), 19000, sql.TimestampData{Millis:-2, NanoOfMilli:500000}, []interface {}{7, interface {}(nil)}, interface {}(nil), []interface {}{42}}` {
		t.Errorf("row 1: %s", got)
	}
	if got := fmt.Sprintf("%#v", rows[1][:9]); got != `[]interface {}{interface {}(nil), 0, 0, 0, 0, 0, 0, interface {}(nil), []uint8{}}` {
		t.Errorf("row 2: %s", got)
	}
	if rows[1][14] != nil || len(rows[1][12].([]any)) != 0 || len(rows[1][13].(*sql.Map).Keys) != 0 {
		t.Errorf("row 2: %v", rows[1])
	}
}

// TestAvroRecursiveSchema: a recursive writer schema (Paimon never writes
// one) fails with an error instead of recursing without end.
func TestAvroRecursiveSchema(t *testing.T) {
	av := avroHeader(`{"type":"record","name":"n","fields":[{"name":"a","type":"int"},{"name":"next","type":["null","n"]}]}`, "null")
	f, err := Open(bytes.NewReader(av), int64(len(av)), "data-r-0.avro")
	if err != nil {
		t.Fatal(err)
	}
	a := []schema.Field{{ID: 0, Name: "a", Type: sql.Int()}}
	if _, err := f.Rows(Projection{FileFields: a, Fields: a}); err == nil || !strings.Contains(err.Error(), "data-r-0.avro") || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("got %v", err)
	}
}
