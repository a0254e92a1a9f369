package mergetree

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// aggregator is one field's aggregate function (Paimon's FieldAggregator).
// agg folds a new input into the accumulator, retract takes one back. Both
// receive and return nil for NULL. Aggregators with state (first_value) are
// reset per key.
type aggregator interface {
	agg(acc, in any) any
	// aggReversed folds an input that is older than the accumulator (used by
	// partial-update sequence groups); by default agg(in, acc).
	aggReversed(acc, in any) any
	retract(acc, in any) (any, error)
	reset()
}

// noRetract provides the default retract of Paimon's FieldAggregator.
type noRetract struct{ name string }

func (n noRetract) retract(acc, in any) (any, error) {
	return nil, fmt.Errorf("%w: Aggregate function '%s' does not support retraction,"+
		" If you allow this function to ignore retraction messages,"+
		" you can configure 'fields.${field_name}.ignore-retract'='true'.", ErrUnsupportedRecord, n.name)
}

func (noRetract) reset() {}

// Aggregate function names, as in `fields.<f>.aggregate-function`.
const (
	AggSum               = "sum"
	AggProduct           = "product"
	AggMax               = "max"
	AggMin               = "min"
	AggLastValue         = "last_value"
	AggLastNonNullValue  = "last_non_null_value"
	AggFirstValue        = "first_value"
	AggFirstNonNullValue = "first_non_null_value"
	AggBoolAnd           = "bool_and"
	AggBoolOr            = "bool_or"
	AggListagg           = "listagg"
	aggPrimaryKey        = "primary-key"
)

// newAggregator creates the aggregate function name for a field of type t.
// Paimon 1.4 has no "count" function (its documentation tells users to sum
// a CASE expression), so "count" is rejected with Paimon's own message, as
// is any other unknown name. opts carries fields.<f>.list-agg-delimiter and
// fields.<f>.distinct for listagg.
func newAggregator(name, field string, t sql.DataType, o *coreoptions.Options) (aggregator, error) {
	switch name {
	case AggSum, AggProduct:
		if !t.IsNumeric() {
			return nil, fmt.Errorf("Data type for %s column must be 'NumericType' but was '%s'.", name, t)
		}
		if name == AggSum {
			return sumAgg{noRetract{name}, t.Root}, nil
		}
		return productAgg{noRetract{name}, t.Root}, nil
	case AggMax, AggMin:
		fn, err := compareFunc(t)
		if err != nil || t.Root == sql.TypeBoolean || t.IsBinary() {
			return nil, fmt.Errorf("type %s not support in %s aggregate function", t, name)
		}
		return minMaxAgg{noRetract{name}, fn, name == AggMax}, nil
	case AggLastValue:
		return lastValueAgg{noRetract{name}}, nil
	case AggLastNonNullValue:
		return lastNonNullAgg{noRetract{name}}, nil
	case AggFirstValue:
		return &firstValueAgg{noRetract: noRetract{name}}, nil
	case AggFirstNonNullValue, "first_not_null_value":
		return &firstValueAgg{noRetract: noRetract{name}, nonNull: true}, nil
	case AggBoolAnd, AggBoolOr:
		if t.Root != sql.TypeBoolean {
			return nil, fmt.Errorf("Data type for %s column must be 'BooleanType' but was '%s'.", name, t)
		}
		return boolAgg{noRetract{name}, name == AggBoolAnd}, nil
	case AggListagg:
		if !t.IsString() {
			return nil, fmt.Errorf("Data type for list agg column must be 'VarCharType' but was '%s'.", t)
		}
		delim, ok := o.Field(field, "list-agg-delimiter")
		if !ok {
			delim = ","
		}
		return listaggAgg{noRetract{name}, delim, o.FieldFlag(field, "distinct")}, nil
	case aggPrimaryKey:
		return primaryKeyAgg{}, nil
	}
	return nil, fmt.Errorf("Use unsupported aggregation: %s or spell aggregate function incorrectly!", name)
}

// sumAgg adds; retraction subtracts, and retracting from NULL yields the
// negated input (FieldSumAgg). Integer overflow wraps as in Java.
type sumAgg struct {
	noRetract
	root sql.TypeRoot
}

func (s sumAgg) agg(acc, in any) any {
	if acc == nil || in == nil {
		if acc == nil {
			return in
		}
		return acc
	}
	return arith(acc, in, '+')
}

func (s sumAgg) aggReversed(acc, in any) any { return s.agg(in, acc) }

func (s sumAgg) retract(acc, in any) (any, error) {
	if acc == nil || in == nil {
		if acc == nil {
			return negate(in), nil
		}
		return acc, nil
	}
	return arith(acc, in, '-'), nil
}

// productAgg multiplies; retraction divides (FieldProductAgg).
type productAgg struct {
	noRetract
	root sql.TypeRoot
}

func (p productAgg) agg(acc, in any) any {
	if acc == nil || in == nil {
		if acc == nil {
			return in
		}
		return acc
	}
	return arith(acc, in, '*')
}

func (p productAgg) aggReversed(acc, in any) any { return p.agg(in, acc) }

func (p productAgg) retract(acc, in any) (any, error) {
	if acc == nil || in == nil {
		return acc, nil
	}
	if isZero(in) {
		return nil, fmt.Errorf("%w: product retraction divides by zero", ErrUnsupportedRecord)
	}
	return arith(acc, in, '/'), nil
}

func isZero(v any) bool {
	switch x := v.(type) {
	case int8:
		return x == 0
	case int16:
		return x == 0
	case int32:
		return x == 0
	case int64:
		return x == 0
	case decimal.Decimal:
		return x.IsZero()
	}
	return false
}

// arith applies op to two values of the same numeric Go type.
func arith(a, b any, op byte) any {
	switch x := a.(type) {
	case int8:
		return arithInt(x, b.(int8), op)
	case int16:
		return arithInt(x, b.(int16), op)
	case int32:
		return arithInt(x, b.(int32), op)
	case int64:
		return arithInt(x, b.(int64), op)
	case float32:
		return arithFloat(x, b.(float32), op)
	case float64:
		return arithFloat(x, b.(float64), op)
	case decimal.Decimal:
		y := b.(decimal.Decimal)
		switch op {
		case '+':
			return x.Add(y)
		case '-':
			return x.Sub(y)
		case '*':
			return x.Mul(y).Round(-x.Exponent())
		default:
			return x.DivRound(y, -x.Exponent())
		}
	}
	return a
}

func arithInt[T int8 | int16 | int32 | int64](a, b T, op byte) T {
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	}
	return a / b
}

func arithFloat[T float32 | float64](a, b T, op byte) T {
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	}
	return a / b
}

func negate(v any) any {
	switch x := v.(type) {
	case int8:
		return -x
	case int16:
		return -x
	case int32:
		return -x
	case int64:
		return -x
	case float32:
		return -x
	case float64:
		return -x
	case decimal.Decimal:
		return x.Neg()
	}
	return v
}

// minMaxAgg keeps the smallest or largest non-null value.
type minMaxAgg struct {
	noRetract
	cmp   func(a, b any) int
	isMax bool
}

func (m minMaxAgg) agg(acc, in any) any {
	if acc == nil || in == nil {
		if acc == nil {
			return in
		}
		return acc
	}
	c := m.cmp(acc, in)
	if m.isMax {
		if c < 0 {
			return in
		}
		return acc
	}
	if c < 0 {
		return acc
	}
	return in
}

func (m minMaxAgg) aggReversed(acc, in any) any { return m.agg(in, acc) }

// lastValueAgg takes every input, NULL included; retraction yields NULL.
type lastValueAgg struct{ noRetract }

func (lastValueAgg) agg(acc, in any) any              { return in }
func (l lastValueAgg) aggReversed(acc, in any) any    { return l.agg(in, acc) }
func (lastValueAgg) retract(acc, in any) (any, error) { return nil, nil }

// lastNonNullAgg takes non-null inputs; retracting a non-null value yields
// NULL, retracting NULL keeps the accumulator (the default for non-key
// fields of the aggregation engine).
type lastNonNullAgg struct{ noRetract }

func (lastNonNullAgg) agg(acc, in any) any {
	if in == nil {
		return acc
	}
	return in
}
func (l lastNonNullAgg) aggReversed(acc, in any) any { return l.agg(in, acc) }
func (lastNonNullAgg) retract(acc, in any) (any, error) {
	if in != nil {
		return nil, nil
	}
	return acc, nil
}

// firstValueAgg keeps the first input (first_value) or first non-null input
// (first_non_null_value) seen since reset.
type firstValueAgg struct {
	noRetract
	nonNull     bool
	initialized bool
}

func (f *firstValueAgg) agg(acc, in any) any {
	if !f.initialized && (!f.nonNull || in != nil) {
		f.initialized = true
		return in
	}
	return acc
}
func (f *firstValueAgg) aggReversed(acc, in any) any { return f.agg(in, acc) }
func (f *firstValueAgg) reset()                      { f.initialized = false }

// boolAgg is bool_and / bool_or over non-null inputs.
type boolAgg struct {
	noRetract
	and bool
}

func (b boolAgg) agg(acc, in any) any {
	if acc == nil || in == nil {
		if acc == nil {
			return in
		}
		return acc
	}
	if b.and {
		return acc.(bool) && in.(bool)
	}
	return acc.(bool) || in.(bool)
}
func (b boolAgg) aggReversed(acc, in any) any { return b.agg(in, acc) }

// listaggAgg concatenates non-empty strings with a delimiter (default ",");
// with fields.<f>.distinct tokens already present are skipped.
type listaggAgg struct {
	noRetract
	delim    string
	distinct bool
}

func (l listaggAgg) agg(acc, in any) any {
	if acc == nil || in == nil {
		if acc == nil {
			return in
		}
		return acc
	}
	a, s := acc.(string), in.(string)
	if s == "" {
		return a
	}
	if a == "" {
		return s
	}
	if !l.distinct {
		return a + l.delim + s
	}
	seen := map[string]bool{}
	for _, t := range splitWhole(a, l.delim) {
		seen[t] = true
	}
	var b strings.Builder
	b.WriteString(a)
	for _, t := range splitWhole(s, l.delim) {
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		b.WriteString(l.delim)
		b.WriteString(t)
	}
	return b.String()
}
func (l listaggAgg) aggReversed(acc, in any) any { return l.agg(in, acc) }

func splitWhole(s, sep string) []string {
	if sep == "" {
		return []string{s}
	}
	return strings.Split(s, sep)
}

// primaryKeyAgg keeps the input for primary-key fields (they are equal for
// all versions of a key) and also on retraction.
type primaryKeyAgg struct{}

func (primaryKeyAgg) agg(acc, in any) any              { return in }
func (primaryKeyAgg) aggReversed(acc, in any) any      { return in }
func (primaryKeyAgg) retract(acc, in any) (any, error) { return in, nil }
func (primaryKeyAgg) reset()                           {}

// ignoreRetract wraps an aggregator for fields.<f>.ignore-retract=true:
// retractions leave the accumulator unchanged.
type ignoreRetract struct{ aggregator }

func (i ignoreRetract) retract(acc, in any) (any, error) { return acc, nil }
