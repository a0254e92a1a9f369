package mergetree

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// Comparator orders rows field by field, the way Paimon orders primary keys
// in data files: numbers numerically, strings by unsigned UTF-8 bytes,
// binaries bytewise, NULL before any value. The per-field functions are
// chosen once from the schema, so comparing rows costs no reflection.
type Comparator struct {
	fields []fieldCompare
}

// fieldCompare compares two non-nil values of one field.
type fieldCompare struct {
	idx  int
	fn   func(a, b any) int
	desc bool
}

// NewComparator builds a comparator for rows whose fields have the given
// types, comparing all of them in order.
func NewComparator(types []sql.DataType) (*Comparator, error) {
	idx := make([]int, len(types))
	for i := range idx {
		idx[i] = i
	}
	return NewFieldComparator(types, idx, false)
}

// NewFieldComparator compares rows (of the given full row types) on the
// fields at idx, in that order; desc reverses the order (Paimon's
// sequence.field.sort-order=descending).
func NewFieldComparator(types []sql.DataType, idx []int, desc bool) (*Comparator, error) {
	c := &Comparator{}
	for _, i := range idx {
		if i < 0 || i >= len(types) {
			return nil, fmt.Errorf("mergetree: comparator field %d out of range (row has %d fields)", i, len(types))
		}
		fn, err := compareFunc(types[i])
		if err != nil {
			return nil, err
		}
		c.fields = append(c.fields, fieldCompare{idx: i, fn: fn, desc: desc})
	}
	return c, nil
}

// Compare returns -1, 0 or 1. NULL sorts first.
func (c *Comparator) Compare(a, b []any) int {
	for _, f := range c.fields {
		x, y := a[f.idx], b[f.idx]
		var r int
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			r = -1
		case y == nil:
			r = 1
		default:
			r = f.fn(x, y)
		}
		if r != 0 {
			if f.desc {
				return -r
			}
			return r
		}
	}
	return 0
}

// compareFunc returns the comparison of two non-nil values of one type; it
// is the building block of Comparator and of the min/max aggregate
// functions.
func compareFunc(t sql.DataType) (func(a, b any) int, error) {
	switch t.Root {
	case sql.TypeBoolean:
		return func(a, b any) int {
			x, y := a.(bool), b.(bool)
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}, nil
	case sql.TypeTinyInt:
		return func(a, b any) int { return cmp.Compare(a.(int8), b.(int8)) }, nil
	case sql.TypeSmallInt:
		return func(a, b any) int { return cmp.Compare(a.(int16), b.(int16)) }, nil
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		return func(a, b any) int { return cmp.Compare(a.(int32), b.(int32)) }, nil
	case sql.TypeBigInt:
		return func(a, b any) int { return cmp.Compare(a.(int64), b.(int64)) }, nil
	case sql.TypeFloat:
		return func(a, b any) int { return cmp.Compare(a.(float32), b.(float32)) }, nil
	case sql.TypeDouble:
		return func(a, b any) int { return cmp.Compare(a.(float64), b.(float64)) }, nil
	case sql.TypeDecimal:
		return func(a, b any) int { return a.(decimal.Decimal).Cmp(b.(decimal.Decimal)) }, nil
	case sql.TypeChar, sql.TypeVarChar:
		// Go compares strings bytewise, which is Paimon's unsigned UTF-8 order.
		return func(a, b any) int { return cmp.Compare(a.(string), b.(string)) }, nil
	case sql.TypeBinary, sql.TypeVarBinary:
		return func(a, b any) int { return bytes.Compare(a.([]byte), b.([]byte)) }, nil
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return func(a, b any) int { return a.(sql.TimestampData).Compare(b.(sql.TimestampData)) }, nil
	}
	return nil, fmt.Errorf("mergetree: type %s cannot be compared (not allowed in a primary key or sequence field)", t)
}

// SeqOrder orders the versions of one key: by the user-defined sequence
// fields (sequence.field) when there are any, then by sequence number.
// Paimon's SortMergeReader and SortBufferWriteBuffer use this order.
type SeqOrder struct {
	user *Comparator // nil without sequence.field
}

// Compare orders two versions of the same key, oldest first.
func (o SeqOrder) Compare(a, b *KV) int {
	if o.user != nil {
		if r := o.user.Compare(a.Value, b.Value); r != 0 {
			return r
		}
	}
	return cmp.Compare(a.Seq, b.Seq)
}
