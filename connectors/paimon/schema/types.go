package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// ErrUnsupportedType is wrapped when a schema uses a Paimon type sqlrun has
// no sql.DataType for (VARIANT, BLOB, MULTISET, ...).
var ErrUnsupportedType = errors.New("unsupported Paimon data type")

// TypeString renders an atomic type as Paimon's DataType.asSQLString does:
// "INT NOT NULL", "DECIMAL(10, 2)", "STRING", "TIMESTAMP(3) WITH LOCAL TIME
// ZONE". Composite types are JSON objects, see typeJSON.
func TypeString(t sql.DataType) (string, error) {
	var s string
	switch t.Root {
	case sql.TypeBoolean:
		s = "BOOLEAN"
	case sql.TypeTinyInt:
		s = "TINYINT"
	case sql.TypeSmallInt:
		s = "SMALLINT"
	case sql.TypeInt:
		s = "INT"
	case sql.TypeBigInt:
		s = "BIGINT"
	case sql.TypeFloat:
		s = "FLOAT"
	case sql.TypeDouble:
		s = "DOUBLE"
	case sql.TypeDate:
		s = "DATE"
	case sql.TypeDecimal:
		s = fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case sql.TypeChar:
		s = fmt.Sprintf("CHAR(%d)", t.Length)
	case sql.TypeVarChar:
		if t.Length == sql.MaxLength {
			s = "STRING"
		} else {
			s = fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
	case sql.TypeBinary:
		s = fmt.Sprintf("BINARY(%d)", t.Length)
	case sql.TypeVarBinary:
		if t.Length == sql.MaxLength {
			s = "BYTES"
		} else {
			s = fmt.Sprintf("VARBINARY(%d)", t.Length)
		}
	case sql.TypeTime:
		s = fmt.Sprintf("TIME(%d)", t.Precision)
	case sql.TypeTimestamp:
		s = fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	case sql.TypeTimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	default:
		return "", fmt.Errorf("%w: %s is not an atomic type", ErrUnsupportedType, t)
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s, nil
}

// ParseTypeString parses an atomic Paimon type string.
func ParseTypeString(s string) (sql.DataType, error) {
	orig := s
	s = strings.TrimSpace(s)
	nullable := true
	if u := strings.ToUpper(s); strings.HasSuffix(u, " NOT NULL") {
		nullable = false
		s = strings.TrimSpace(s[:len(s)-len(" NOT NULL")])
	} else if strings.HasSuffix(u, " NULL") {
		s = strings.TrimSpace(s[:len(s)-len(" NULL")])
	}
	u := strings.ToUpper(s)
	ltz := false
	if strings.HasSuffix(u, " WITH LOCAL TIME ZONE") {
		ltz = true
		u = strings.TrimSpace(strings.TrimSuffix(u, " WITH LOCAL TIME ZONE"))
	}
	name, args := u, []int(nil)
	if i := strings.IndexByte(u, '('); i >= 0 {
		if !strings.HasSuffix(u, ")") {
			return sql.DataType{}, fmt.Errorf("malformed type %q", orig)
		}
		name = strings.TrimSpace(u[:i])
		for _, a := range strings.Split(u[i+1:len(u)-1], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil {
				return sql.DataType{}, fmt.Errorf("malformed type %q: %w", orig, err)
			}
			args = append(args, n)
		}
	}
	arg := func(i, def int) int {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	var t sql.DataType
	switch name {
	case "BOOLEAN":
		t = sql.Boolean()
	case "TINYINT":
		t = sql.TinyInt()
	case "SMALLINT":
		t = sql.SmallInt()
	case "INT", "INTEGER":
		t = sql.Int()
	case "BIGINT":
		t = sql.BigInt()
	case "FLOAT":
		t = sql.Float()
	case "DOUBLE":
		t = sql.Double()
	case "DATE":
		t = sql.Date()
	case "STRING":
		t = sql.String()
	case "BYTES":
		t = sql.Bytes()
	case "CHAR":
		t = sql.Char(arg(0, 1))
	case "VARCHAR":
		t = sql.VarChar(arg(0, 1))
	case "BINARY":
		t = sql.Binary(arg(0, 1))
	case "VARBINARY":
		t = sql.VarBinary(arg(0, 1))
	case "DECIMAL", "NUMERIC", "DEC":
		t = sql.Decimal(arg(0, 10), arg(1, 0))
	case "TIME":
		t = sql.Time(arg(0, 0))
	case "TIMESTAMP":
		if ltz {
			t = sql.TimestampLTZ(arg(0, 6))
		} else {
			t = sql.Timestamp(arg(0, 6))
		}
	case "TIMESTAMP_LTZ":
		t = sql.TimestampLTZ(arg(0, 6))
	default:
		return sql.DataType{}, fmt.Errorf("%w: %q", ErrUnsupportedType, orig)
	}
	if ltz && t.Root != sql.TypeTimestampLTZ {
		return sql.DataType{}, fmt.Errorf("malformed type %q", orig)
	}
	return t.WithNullable(nullable), nil
}

// typeJSON is the JSON of a type: a string for atomic types, an object for
// ARRAY, MAP, MULTISET and ROW. Nested ROW fields take ids from nextID.
func typeJSON(t sql.DataType, ids *[]int, nextID func() int) (any, error) {
	nn := ""
	if !t.Nullable {
		nn = " NOT NULL"
	}
	switch t.Root {
	case sql.TypeArray:
		e, err := typeJSON(*t.Elem, ids, nextID)
		if err != nil {
			return nil, err
		}
		return orderedObj{{"type", "ARRAY" + nn}, {"element", e}}, nil
	case sql.TypeMap:
		k, err := typeJSON(*t.Elem, ids, nextID)
		if err != nil {
			return nil, err
		}
		v, err := typeJSON(*t.Value, ids, nextID)
		if err != nil {
			return nil, err
		}
		return orderedObj{{"type", "MAP" + nn}, {"key", k}, {"value", v}}, nil
	case sql.TypeRow:
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			id := nextID()
			*ids = append(*ids, id)
			ft, err := typeJSON(f.Type, ids, nextID)
			if err != nil {
				return nil, err
			}
			o := orderedObj{{"id", id}, {"name", f.Name}, {"type", ft}}
			if f.Description != "" {
				o = append(o, kv{"description", f.Description})
			}
			fields[i] = o
		}
		return orderedObj{{"type", "ROW" + nn}, {"fields", fields}}, nil
	}
	return TypeString(t)
}

// parseFieldType parses a top-level field's type: a BLOB column (only
// top-level, BlobType) reads as BYTES and is reported as blob.
func parseFieldType(raw json.RawMessage, ids *[]int) (sql.DataType, bool, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		u := strings.ToUpper(strings.TrimSpace(s))
		if u == "BLOB" || u == "BLOB NOT NULL" {
			return sql.Bytes().WithNullable(u == "BLOB"), true, nil
		}
	}
	t, err := parseTypeJSON(raw, ids)
	return t, false, err
}

// blobTypeString is BlobType.asSQLString.
func blobTypeString(nullable bool) string {
	if nullable {
		return "BLOB"
	}
	return "BLOB NOT NULL"
}

// parseTypeJSON parses a type string or object; nested ROW field ids are
// appended to ids in depth-first order.
func parseTypeJSON(raw json.RawMessage, ids *[]int) (sql.DataType, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return sql.DataType{}, err
		}
		return ParseTypeString(s)
	}
	var o struct {
		Type    string          `json:"type"`
		Element json.RawMessage `json:"element"`
		Key     json.RawMessage `json:"key"`
		Value   json.RawMessage `json:"value"`
		Fields  []struct {
			ID          int             `json:"id"`
			Name        string          `json:"name"`
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return sql.DataType{}, fmt.Errorf("type %s: %w", raw, err)
	}
	u := strings.ToUpper(strings.TrimSpace(o.Type))
	nullable := !strings.HasSuffix(u, " NOT NULL")
	u = strings.TrimSuffix(u, " NOT NULL")
	var t sql.DataType
	switch u {
	case "ARRAY":
		e, err := parseTypeJSON(o.Element, ids)
		if err != nil {
			return t, err
		}
		t = sql.ArrayOf(e)
	case "MAP":
		k, err := parseTypeJSON(o.Key, ids)
		if err != nil {
			return t, err
		}
		v, err := parseTypeJSON(o.Value, ids)
		if err != nil {
			return t, err
		}
		t = sql.MapOf(k, v)
	case "ROW":
		fs := make([]sql.Field, len(o.Fields))
		for i, f := range o.Fields {
			*ids = append(*ids, f.ID)
			ft, err := parseTypeJSON(f.Type, ids)
			if err != nil {
				return t, err
			}
			fs[i] = sql.Field{Name: f.Name, Type: ft, Description: f.Description}
		}
		t = sql.RowOf(fs...)
	default:
		return t, fmt.Errorf("%w: %q", ErrUnsupportedType, o.Type)
	}
	return t.WithNullable(nullable), nil
}

// kv and orderedObj marshal as a JSON object with keys in slice order
// (Jackson writes Paimon's types with a fixed key order).
type kv struct {
	k string
	v any
}
type orderedObj []kv

func (o orderedObj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e.v); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
