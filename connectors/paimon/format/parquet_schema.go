package format

import (
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/sql"
)

// groupNode is a Parquet group whose fields keep the given order
// (parquet.Group sorts by name; Paimon writes schema order).
type groupNode struct{ fields []parquet.Field }

type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string                           { return f.name }
func (f namedField) Value(base reflect.Value) reflect.Value { return reflect.Value{} }

func (g *groupNode) ID() int                     { return 0 }
func (g *groupNode) String() string              { return "paimon_schema" }
func (g *groupNode) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g *groupNode) Optional() bool              { return false }
func (g *groupNode) Repeated() bool              { return false }
func (g *groupNode) Required() bool              { return true }
func (g *groupNode) Leaf() bool                  { return false }
func (g *groupNode) Fields() []parquet.Field     { return g.fields }
func (g *groupNode) Encoding() encoding.Encoding { return nil }
func (g *groupNode) Compression() compress.Codec { return nil }
func (g *groupNode) GoType() reflect.Type        { return reflect.TypeOf(map[string]any{}) }

// plainType is a physical type without logical annotation: Paimon writes
// INT and BIGINT as bare INT32/INT64 (parquet-go's defaults add INT(32/64)).
type plainType struct{ parquet.Type }

func (plainType) LogicalType() *format.LogicalType { return nil }

// parquetSchema builds ParquetSchemaConverter's message: name
// paimon_schema, field ids, REQUIRED for NOT NULL, Paimon's logical types.
// (Encodings are the page writer's choice, per column chunk.)
func parquetSchema(cols []Column) (*parquet.Schema, error) {
	g := &groupNode{}
	for _, c := range cols {
		n, err := typeNode(c.Type, c.ID, 0)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		g.fields = append(g.fields, namedField{Node: parquet.FieldID(n, c.ID), name: c.Name})
	}
	return parquet.NewSchema("paimon_schema", g), nil
}

// Field id scheme of nested types (SpecialFields): array elements and map
// values count up from Integer.MAX_VALUE/4, map keys count down.
const (
	structuredIDBase  = 536870911
	structuredIDDepth = 1024
)

// typeNode is the node of a column of type t (with repetition), where id is
// the top-level field id and depth the nesting depth (0 at top level).
func typeNode(t sql.DataType, id, depth int) (parquet.Node, error) {
	var n parquet.Node
	switch t.Root {
	case sql.TypeArray:
		e, err := typeNode(*t.Elem, id, depth+1)
		if err != nil {
			return nil, err
		}
		n = parquet.List(parquet.FieldID(e, structuredIDBase+id*structuredIDDepth+depth+1))
	case sql.TypeMap:
		k, err := typeNode(t.Elem.NotNull(), id, depth+1)
		if err != nil {
			return nil, err
		}
		v, err := typeNode(*t.Value, id, depth+1)
		if err != nil {
			return nil, err
		}
		n = parquet.Map(parquet.FieldID(k, structuredIDBase-id*structuredIDDepth-depth-1),
			parquet.FieldID(v, structuredIDBase+id*structuredIDDepth+depth+1))
	case sql.TypeRow:
		g := &groupNode{}
		for _, f := range t.Fields {
			c, err := typeNode(f.Type, id, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			g.fields = append(g.fields, namedField{Node: c, name: f.Name})
		}
		n = g
	default:
		var err error
		if n, err = leafNode(t); err != nil {
			return nil, err
		}
	}
	if t.Nullable {
		return parquet.Optional(n), nil
	}
	return parquet.Required(n), nil
}

// DecimalBytes is Paimon's minimum FIXED_LEN_BYTE_ARRAY length for a
// decimal precision: the smallest n with 2^(8n-1) ≥ 10^p.
func DecimalBytes(precision int) int {
	n := 1
	for math.Pow(2, float64(8*n-1)) < math.Pow(10, float64(precision)) {
		n++
	}
	return n
}

func leafNode(t sql.DataType) (parquet.Node, error) {
	switch t.Root {
	case sql.TypeBoolean:
		return parquet.Leaf(parquet.BooleanType), nil
	case sql.TypeTinyInt:
		return parquet.Int(8), nil
	case sql.TypeSmallInt:
		return parquet.Int(16), nil
	case sql.TypeInt:
		return parquet.Leaf(plainType{parquet.Int32Type}), nil
	case sql.TypeBigInt:
		return parquet.Leaf(plainType{parquet.Int64Type}), nil
	case sql.TypeFloat:
		return parquet.Leaf(parquet.FloatType), nil
	case sql.TypeDouble:
		return parquet.Leaf(parquet.DoubleType), nil
	case sql.TypeChar, sql.TypeVarChar:
		return parquet.String(), nil
	case sql.TypeBinary, sql.TypeVarBinary:
		return parquet.Leaf(parquet.ByteArrayType), nil
	case sql.TypeDecimal:
		switch {
		case t.Precision <= 9:
			return parquet.Decimal(t.Scale, t.Precision, parquet.Int32Type), nil
		case t.Precision <= 18:
			return parquet.Decimal(t.Scale, t.Precision, parquet.Int64Type), nil
		}
		return parquet.Decimal(t.Scale, t.Precision, parquet.FixedLenByteArrayType(DecimalBytes(t.Precision))), nil
	case sql.TypeDate:
		return parquet.Date(), nil
	case sql.TypeTime:
		return parquet.Time(parquet.Millisecond), nil
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		utc := t.Root == sql.TypeTimestampLTZ
		switch {
		case t.Precision <= 3:
			return parquet.TimestampAdjusted(parquet.Millisecond, utc), nil
		case t.Precision <= 6:
			return parquet.TimestampAdjusted(parquet.Microsecond, utc), nil
		}
		return parquet.Leaf(parquet.Int96Type), nil
	}
	return nil, fmt.Errorf("type %s is not supported in sqlrun's Parquet data files yet", t)
}

// fixedDecimal encodes an unscaled value as n big-endian two's complement
// bytes (sign-extended).
func fixedDecimal(x *big.Int, n int) ([]byte, error) {
	out := make([]byte, n)
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) > n || (len(b) == n && b[0]&0x80 != 0) {
			return nil, fmt.Errorf("decimal %s does not fit %d bytes", x, n)
		}
		copy(out[n-len(b):], b)
		return out, nil
	}
	// two's complement: 2^(8n) + x
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	m.Add(m, x)
	b := m.Bytes()
	if len(b) != n || b[0]&0x80 == 0 {
		return nil, fmt.Errorf("decimal %s does not fit %d bytes", x, n)
	}
	return b, nil
}

func fromFixedDecimal(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}
