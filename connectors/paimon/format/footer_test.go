package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// tnode is a generically decoded Thrift compact value: a struct is a map
// from field id, a list a slice, integers int64, binary []byte.
type tstruct map[int16]any

// tdecoder decodes the Thrift compact protocol without knowing the
// schema: an independent reading of what the footer encoder wrote.
type tdecoder struct {
	b   []byte
	err error
}

func (d *tdecoder) byte1() byte {
	if len(d.b) == 0 {
		d.err = fmt.Errorf("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *tdecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *tdecoder) value(typ byte) any {
	switch typ {
	case 1:
		return true
	case 2:
		return false
	case 3:
		return int64(int8(d.byte1()))
	case 4, 5, 6:
		u := d.uvarint()
		return int64(u>>1) ^ -int64(u&1)
	case 7:
		v := d.b[:8]
		d.b = d.b[8:]
		return v
	case 8:
		n := d.uvarint()
		v := d.b[:n]
		d.b = d.b[n:]
		return v
	case 9, 10:
		h := d.byte1()
		n, et := uint64(h>>4), h&15
		if n == 15 {
			n = d.uvarint()
		}
		var l []any
		for i := uint64(0); i < n && d.err == nil; i++ {
			if et == 1 || et == 2 { // bools in lists are one byte each
				l = append(l, d.byte1() == 1)
				continue
			}
			l = append(l, d.value(et))
		}
		return l
	case 12:
		s := tstruct{}
		var last int16
		for d.err == nil {
			h := d.byte1()
			if h == 0 {
				return s
			}
			id := last + int16(h>>4)
			if h>>4 == 0 {
				u := d.uvarint()
				id = int16(u>>1) ^ -int16(u&1)
			}
			s[id] = d.value(h & 15)
			last = id
		}
		return s
	}
	d.err = fmt.Errorf("thrift type %d", typ)
	return nil
}

// footerOf decodes the footer of a Parquet file generically.
func footerOf(t *testing.T, file []byte) tstruct {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(file[len(file)-8:]))
	d := &tdecoder{b: file[len(file)-8-n : len(file)-8]}
	s, _ := d.value(12).(tstruct)
	if d.err != nil || len(d.b) != 0 {
		t.Fatalf("footer: %v (%d bytes left)", d.err, len(d.b))
	}
	return s
}

// schemaLines prints the schema elements of a decoded footer, one a line:
// name, then the fields parquet-java sets (type, type_length, repetition,
// num_children, converted_type, scale, precision, field_id, logicalType).
func schemaLines(f tstruct) []string {
	var out []string
	for _, e := range f[2].([]any) {
		el := e.(tstruct)
		var parts []string
		for _, k := range []struct {
			id   int16
			name string
		}{{1, "type"}, {2, "len"}, {3, "rep"}, {5, "children"}, {6, "conv"}, {7, "scale"}, {8, "prec"}, {9, "id"}, {10, "logical"}} {
			if v, ok := el[k.id]; ok {
				parts = append(parts, fmt.Sprintf("%s=%v", k.name, v))
			}
		}
		out = append(out, string(el[4].([]byte))+" "+strings.Join(parts, " "))
	}
	return out
}

// TestFooterSchemaAsParquetJava is the regression test of issue 14's third
// problem. The schema elements of a file with every type, nested included,
// are what parquet-java writes for Paimon's ParquetSchemaConverter
// (release-1.4.2) message: field ids on every field, 0 included, and on
// nested ROW fields (their own ids) and list elements / map keys and values
// (SpecialFields' ids); MAP_KEY_VALUE (2) on key_value; type_length only on
// the FIXED_LEN_BYTE_ARRAY decimal; converted and logical types as
// ParquetMetadataConverter.toParquetSchema sets them. Flat files (the page
// writer) and nested ones (parquet-go's writer) alike.
func TestFooterSchemaAsParquetJava(t *testing.T) {
	flat := []schema.Field{
		{ID: 0, Name: "b", Type: sql.Boolean()}, {ID: 1, Name: "ti", Type: sql.TinyInt()}, {ID: 2, Name: "si", Type: sql.SmallInt()},
		{ID: 3, Name: "i", Type: sql.Int().NotNull()}, {ID: 4, Name: "bi", Type: sql.BigInt()}, {ID: 5, Name: "f", Type: sql.Float()},
		{ID: 6, Name: "d", Type: sql.Double()}, {ID: 7, Name: "s", Type: sql.String()}, {ID: 8, Name: "bin", Type: sql.VarBinary(10)},
		{ID: 9, Name: "d9", Type: sql.Decimal(9, 2)}, {ID: 10, Name: "d18", Type: sql.Decimal(18, 3)}, {ID: 11, Name: "d38", Type: sql.Decimal(38, 4)},
		{ID: 12, Name: "dt", Type: sql.Date()}, {ID: 13, Name: "tm", Type: sql.Time(0)}, {ID: 14, Name: "ts3", Type: sql.Timestamp(3)},
		{ID: 15, Name: "ts6", Type: sql.Timestamp(6)}, {ID: 16, Name: "ts9", Type: sql.Timestamp(9)}, {ID: 17, Name: "ltz", Type: sql.TimestampLTZ(3)},
	}
	wantFlat := []string{
		"paimon_schema children=18",
		"b type=0 rep=1 id=0",
		"ti type=1 rep=1 conv=15 id=1 logical=map[10:map[1:8 2:true]]",
		"si type=1 rep=1 conv=16 id=2 logical=map[10:map[1:16 2:true]]",
		"i type=1 rep=0 id=3",
		"bi type=2 rep=1 id=4",
		"f type=4 rep=1 id=5",
		"d type=5 rep=1 id=6",
		"s type=6 rep=1 conv=0 id=7 logical=map[1:map[]]",
		"bin type=6 rep=1 id=8",
		"d9 type=1 rep=1 conv=5 scale=2 prec=9 id=9 logical=map[5:map[1:2 2:9]]",
		"d18 type=2 rep=1 conv=5 scale=3 prec=18 id=10 logical=map[5:map[1:3 2:18]]",
		"d38 type=7 len=16 rep=1 conv=5 scale=4 prec=38 id=11 logical=map[5:map[1:4 2:38]]",
		"dt type=1 rep=1 conv=6 id=12 logical=map[6:map[]]",
		"tm type=1 rep=1 conv=7 id=13 logical=map[7:map[1:true 2:map[1:map[]]]]",
		"ts3 type=2 rep=1 conv=9 id=14 logical=map[8:map[1:false 2:map[1:map[]]]]",
		"ts6 type=2 rep=1 conv=10 id=15 logical=map[8:map[1:false 2:map[2:map[]]]]",
		"ts9 type=3 rep=1 id=16",
		"ltz type=2 rep=1 conv=9 id=17 logical=map[8:map[1:true 2:map[1:map[]]]]",
	}
	// r ROW<x INT, y ROW<z STRING>> at id 1: x=2, z=3, y=4 as Paimon's
	// Schema allocates them (schema.New); then an array and a map.
	s, err := schema.New([]sql.Column{{Name: "k", Type: sql.Int()},
		{Name: "r", Type: sql.RowOf(sql.Field{Name: "x", Type: sql.Int()}, sql.Field{Name: "y", Type: sql.RowOf(sql.Field{Name: "z", Type: sql.String()})})},
		{Name: "arr", Type: sql.ArrayOf(sql.ArrayOf(sql.Int().NotNull()))},
		{Name: "m", Type: sql.MapOf(sql.String(), sql.RowOf(sql.Field{Name: "v", Type: sql.BigInt()}))}}, nil, nil, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantNested := []string{
		"paimon_schema children=4",
		"k type=1 rep=1 id=0",
		"r rep=1 children=2 id=1",
		"x type=1 rep=1 id=2",
		"y rep=1 children=1 id=4",
		"z type=6 rep=1 conv=0 id=3 logical=map[1:map[]]",
		"arr rep=1 children=1 conv=3 id=5 logical=map[3:map[]]",
		"list rep=2 children=1",
		"element rep=1 children=1 conv=3 id=536876032 logical=map[3:map[]]", // 536870911 + 5*1024 + 1
		"list rep=2 children=1",
		"element type=1 rep=0 id=536876033", // depth 2, still from arr's id
		"m rep=1 children=1 conv=1 id=6 logical=map[2:map[]]",
		"key_value rep=2 children=2 conv=2",
		"key type=6 rep=0 conv=0 id=536864766 logical=map[1:map[]]", // 536870911 - 6*1024 - 1
		"value rep=1 children=1 id=536877056",
		"v type=2 rep=1 id=7",
	}
	for _, tc := range []struct {
		name   string
		fields []schema.Field
		want   []string
	}{{"flat", flat, wantFlat}, {"nested", s.Fields, wantNested}} {
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, tc.fields, 0, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got := schemaLines(footerOf(t, buf.Bytes()))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s file schema:\n%s\nwant:\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
