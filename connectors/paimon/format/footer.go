package format

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/sql"
)

// The schema part of every footer sqlrun writes is encoded here, not by
// parquet-go: it is what parquet-java writes for the MessageType Paimon's
// ParquetSchemaConverter builds (ParquetMetadataConverter.toParquetSchema),
// which parquet-go cannot express: field_id 0 (its SchemaElement drops a
// zero id), MAP_KEY_VALUE on a map's key_value group, ids on nested ROW
// fields, and no type_length on columns that are not FIXED_LEN_BYTE_ARRAY.

// schemaElement is one SchemaElement as parquet-java fills it.
type schemaElement struct {
	name        string
	leaf        bool
	typ         pformat.Type // leaves
	typeLength  int32        // FIXED_LEN_BYTE_ARRAY only
	repetition  int32        // -1 for the root
	numChildren int32        // groups
	converted   int32        // -1: none
	scale, prec int32        // decimals (prec > 0)
	fieldID     int32
	hasID       bool
	logical     logicalType
}

// logicalType is the LogicalType union member parquet-java writes with a
// converted type (convertToLogicalType); 0 is none.
type logicalType struct {
	kind        int16 // union field id: 1 STRING, 2 MAP, 3 LIST, 5 DECIMAL, 6 DATE, 7 TIME, 8 TIMESTAMP, 10 INTEGER
	utc         bool  // TIME, TIMESTAMP
	unit        int16 // TIME, TIMESTAMP: 1 MILLIS, 2 MICROS
	bitWidth    int8  // INTEGER
	scale, prec int32 // DECIMAL
}

// Converted types (parquet.thrift ConvertedType).
const (
	ctUTF8            = 0
	ctMap             = 1
	ctMapKeyValue     = 2
	ctList            = 3
	ctDecimal         = 5
	ctDate            = 6
	ctTimeMillis      = 7
	ctTimestampMillis = 9
	ctTimestampMicros = 10
	ctInt8            = 15
	ctInt16           = 16
)

const (
	repRequired = 0
	repOptional = 1
	repRepeated = 2
)

// paimonSchemaElements lists the schema of a data file of columns cols as
// parquet-java writes Paimon's MessageType "paimon_schema": depth first,
// the root first.
func paimonSchemaElements(cols []Column) ([]schemaElement, error) {
	els := []schemaElement{{name: "paimon_schema", repetition: -1, converted: -1, numChildren: int32(len(cols))}}
	for _, c := range cols {
		nested := c.NestedIDs
		var err error
		if els, err = appendTypeElements(els, c.Name, c.Type, int32(c.ID), true, int32(c.ID), 0, &nested); err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return els, nil
}

// Nested ids (SpecialFields): Java int arithmetic, so wrap as int32.
func arrayElementID(id int32, depth int) int32 {
	return structuredIDBase + id*structuredIDDepth + int32(depth)
}
func mapKeyID(id int32, depth int) int32 {
	return structuredIDBase - id*structuredIDDepth - int32(depth)
}

// appendTypeElements appends the elements of a field of type t, as
// ParquetSchemaConverter.convertToParquetType(name, t, base, depth) and
// then .withId(id): list elements and map keys and values carry ids
// derived from the enclosing column's base id and the depth; nested ROW
// fields their own ids, taken from *nested (NestedIDs order).
func appendTypeElements(els []schemaElement, name string, t sql.DataType, id int32, hasID bool, base int32, depth int, nested *[]int) ([]schemaElement, error) {
	e := schemaElement{name: name, repetition: repOptional, converted: -1, fieldID: id, hasID: hasID}
	if !t.Nullable {
		e.repetition = repRequired
	}
	var err error
	switch t.Root {
	case sql.TypeArray:
		e.numChildren, e.converted, e.logical.kind = 1, ctList, 3
		els = append(els, e, schemaElement{name: "list", repetition: repRepeated, converted: -1, numChildren: 1})
		return appendTypeElements(els, "element", *t.Elem, arrayElementID(base, depth+1), true, base, depth+1, nested)
	case sql.TypeMap:
		e.numChildren, e.converted, e.logical.kind = 1, ctMap, 2
		els = append(els, e, schemaElement{name: "key_value", repetition: repRepeated, converted: ctMapKeyValue, numChildren: 2})
		if els, err = appendTypeElements(els, "key", t.Elem.NotNull(), mapKeyID(base, depth+1), true, base, depth+1, nested); err != nil {
			return nil, err
		}
		return appendTypeElements(els, "value", *t.Value, arrayElementID(base, depth+1), true, base, depth+1, nested)
	case sql.TypeRow:
		e.numChildren = int32(len(t.Fields))
		els = append(els, e)
		for _, f := range t.Fields {
			fid, ok := int32(0), len(*nested) > 0
			if ok {
				fid = int32((*nested)[0])
				*nested = (*nested)[1:]
			}
			if els, err = appendTypeElements(els, f.Name, f.Type, fid, ok, fid, 0, nested); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return els, nil
	}
	e.leaf = true
	switch t.Root {
	case sql.TypeBoolean:
		e.typ = pformat.Boolean
	case sql.TypeTinyInt, sql.TypeSmallInt:
		e.typ, e.converted, e.logical = pformat.Int32, ctInt8, logicalType{kind: 10, bitWidth: 8}
		if t.Root == sql.TypeSmallInt {
			e.converted, e.logical.bitWidth = ctInt16, 16
		}
	case sql.TypeInt:
		e.typ = pformat.Int32
	case sql.TypeBigInt:
		e.typ = pformat.Int64
	case sql.TypeFloat:
		e.typ = pformat.Float
	case sql.TypeDouble:
		e.typ = pformat.Double
	case sql.TypeChar, sql.TypeVarChar:
		e.typ, e.converted, e.logical.kind = pformat.ByteArray, ctUTF8, 1
	case sql.TypeBinary, sql.TypeVarBinary:
		e.typ = pformat.ByteArray
	case sql.TypeDecimal:
		switch {
		case t.Precision <= 9:
			e.typ = pformat.Int32
		case t.Precision <= 18:
			e.typ = pformat.Int64
		default:
			e.typ, e.typeLength = pformat.FixedLenByteArray, int32(DecimalBytes(t.Precision))
		}
		e.converted, e.scale, e.prec = ctDecimal, int32(t.Scale), int32(t.Precision)
		e.logical = logicalType{kind: 5, scale: int32(t.Scale), prec: int32(t.Precision)}
	case sql.TypeDate:
		e.typ, e.converted, e.logical.kind = pformat.Int32, ctDate, 6
	case sql.TypeTime:
		e.typ, e.converted, e.logical = pformat.Int32, ctTimeMillis, logicalType{kind: 7, utc: true, unit: 1}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		utc := t.Root == sql.TypeTimestampLTZ
		switch {
		case t.Precision <= 3:
			e.typ, e.converted, e.logical = pformat.Int64, ctTimestampMillis, logicalType{kind: 8, utc: utc, unit: 1}
		case t.Precision <= 6:
			e.typ, e.converted, e.logical = pformat.Int64, ctTimestampMicros, logicalType{kind: 8, utc: utc, unit: 2}
		default:
			e.typ = pformat.Int96
		}
	default:
		return nil, fmt.Errorf("type %s is not supported in sqlrun's Parquet data files yet", t)
	}
	return append(els, e), nil
}

// Thrift compact protocol, the few pieces the schema needs.
const (
	tcTrue   = 1
	tcFalse  = 2
	tcByte   = 3
	tcI32    = 5
	tcBinary = 8
	tcList   = 9
	tcStruct = 12
)

// fieldHeader appends a field header (ids increase within a struct and
// never jump by more than 15 here).
func fieldHeader(dst []byte, last *int16, id int16, typ byte) []byte {
	dst = append(dst, byte(id-*last)<<4|typ)
	*last = id
	return dst
}

func appendI32Field(dst []byte, last *int16, id int16, v int32) []byte {
	dst = fieldHeader(dst, last, id, tcI32)
	return binary.AppendUvarint(dst, uint64(uint32(v<<1^v>>31)))
}

func appendBoolField(dst []byte, last *int16, id int16, v bool) []byte {
	if v {
		return fieldHeader(dst, last, id, tcTrue)
	}
	return fieldHeader(dst, last, id, tcFalse)
}

func (l logicalType) appendTo(dst []byte) []byte {
	var last int16
	dst = fieldHeader(dst, &last, l.kind, tcStruct) // the union's member
	var in int16
	switch l.kind {
	case 5:
		dst = appendI32Field(dst, &in, 1, l.scale)
		dst = appendI32Field(dst, &in, 2, l.prec)
	case 7, 8:
		dst = appendBoolField(dst, &in, 1, l.utc)
		dst = fieldHeader(dst, &in, 2, tcStruct)
		var u int16
		dst = fieldHeader(dst, &u, l.unit, tcStruct)
		dst = append(dst, 0, 0) // the unit's empty struct, then TimeUnit's stop
	case 10:
		dst = fieldHeader(dst, &in, 1, tcByte)
		dst = append(dst, byte(l.bitWidth))
		dst = appendBoolField(dst, &in, 2, true)
	}
	return append(dst, 0, 0) // the member's stop, the union's stop
}

func (e *schemaElement) appendTo(dst []byte) []byte {
	var last int16
	if e.leaf {
		dst = appendI32Field(dst, &last, 1, int32(e.typ))
		if e.typeLength > 0 {
			dst = appendI32Field(dst, &last, 2, e.typeLength)
		}
	}
	if e.repetition >= 0 {
		dst = appendI32Field(dst, &last, 3, e.repetition)
	}
	dst = fieldHeader(dst, &last, 4, tcBinary)
	dst = binary.AppendUvarint(dst, uint64(len(e.name)))
	dst = append(dst, e.name...)
	if !e.leaf {
		dst = appendI32Field(dst, &last, 5, e.numChildren)
	}
	if e.converted >= 0 {
		dst = appendI32Field(dst, &last, 6, e.converted)
	}
	if e.prec > 0 {
		dst = appendI32Field(dst, &last, 7, e.scale)
		dst = appendI32Field(dst, &last, 8, e.prec)
	}
	if e.hasID {
		dst = appendI32Field(dst, &last, 9, e.fieldID)
	}
	if e.logical.kind != 0 {
		dst = fieldHeader(dst, &last, 10, tcStruct)
		dst = e.logical.appendTo(dst)
	}
	return append(dst, 0)
}

// marshalFooter encodes meta (without its Schema) with parquet-go and puts
// els in as its schema.
func marshalFooter(meta *pformat.FileMetaData, els []schemaElement) ([]byte, error) {
	m := *meta
	m.Schema = []pformat.SchemaElement{}
	b, err := thrift.Marshal(new(thrift.CompactProtocol), &m)
	if err != nil {
		return nil, fmt.Errorf("parquet footer: %w", err)
	}
	// b starts with field 1 (version, i32) and field 2 (schema, an empty
	// list of structs): 0x15 <varint> 0x19 0x0c.
	if len(b) < 2 || b[0] != 0x15 {
		return nil, fmt.Errorf("parquet footer: unexpected encoding of FileMetaData.version")
	}
	_, n := binary.Uvarint(b[1:])
	at := 1 + n
	if n <= 0 || len(b) < at+2 || b[at] != 0x19 || b[at+1] != 0x0c {
		return nil, fmt.Errorf("parquet footer: unexpected encoding of FileMetaData.schema")
	}
	out := make([]byte, 0, len(b)+64*len(els))
	out = append(out, b[:at+1]...)
	if len(els) < 15 {
		out = append(out, byte(len(els))<<4|tcStruct)
	} else {
		out = append(out, 0xf0|tcStruct)
		out = binary.AppendUvarint(out, uint64(len(els)))
	}
	for i := range els {
		out = els[i].appendTo(out)
	}
	return append(out, b[at+2:]...), nil
}
