// Package operators holds the runtime's SQL operators with Flink's
// changelog semantics: Calc, ChangelogNormalize, DropUpdateBefore,
// GroupAggregate, SinkUpsertMaterializer, Limit and Sort. Each constructor
// returns a runtime.OperatorFactory for Graph.AddOperator; the planner
// passes compiled closures and column indexes, never an AST.
package operators

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// Equal compares two sql values as SQL equality does for records (Flink's
// RecordEqualiser): NULL equals NULL here, decimals compare by value.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && ValuesEqual(x, y)
	case *sql.Map:
		y, ok := b.(*sql.Map)
		return ok && ValuesEqual(x.Keys, y.Keys) && ValuesEqual(x.Values, y.Values)
	}
	return a == b
}

// ValuesEqual compares rows field by field (the RowKind is not compared).
func ValuesEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Compare orders two non-null values of the same type. NULL sorts first.
func Compare(a, b any) (int, error) {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0, nil
		case a == nil:
			return -1, nil
		}
		return 1, nil
	}
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		if ok {
			switch {
			case x == y:
				return 0, nil
			case !x:
				return -1, nil
			}
			return 1, nil
		}
	case int8:
		if y, ok := b.(int8); ok {
			return cmp.Compare(x, y), nil
		}
	case int16:
		if y, ok := b.(int16); ok {
			return cmp.Compare(x, y), nil
		}
	case int32:
		if y, ok := b.(int32); ok {
			return cmp.Compare(x, y), nil
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y), nil
		}
	case float32:
		if y, ok := b.(float32); ok {
			return cmp.Compare(x, y), nil
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y), nil
		}
	case decimal.Decimal:
		if y, ok := b.(decimal.Decimal); ok {
			return x.Cmp(y), nil
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y), nil
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), nil
		}
	case sql.TimestampData:
		if y, ok := b.(sql.TimestampData); ok {
			return x.Compare(y), nil
		}
	}
	return 0, fmt.Errorf("cannot compare %T with %T", a, b)
}

func project(r sql.Row, idx []int) []any {
	out := make([]any, len(idx))
	for i, j := range idx {
		out[i] = r.Values[j]
	}
	return out
}

// newTable makes an operator's keyed table on the job's state backend
// (state.backend.type), in memory when the context names none.
func newTable[V any](ctx *runtime.Context, name string, codec state.Codec[V]) (state.Table[V], error) {
	var b *state.Backend
	if ctx != nil {
		b = ctx.State
	}
	return state.NewTable(b, name, codec)
}
