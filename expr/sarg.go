package expr

import (
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// Sarg is Calcite's search argument: a set of disjoint ranges of values
// of type T, sorted, that SEARCH(x, sarg) tests x against. A Literal holds
// it as its value. Sargs here never contain NULL: SEARCH of a NULL is
// NULL, as the comparisons it replaces are.
type Sarg struct {
	Ranges []Range
	T      sql.DataType
}

// Range is one range of a Sarg; a point has equal closed bounds.
type Range struct {
	Lo, Hi Bound
}

// Bound is one end of a Range: unbounded (-∞ or +∞), or a value that the
// range includes (Closed) or not.
type Bound struct {
	Value     any
	Unbounded bool
	Closed    bool
}

func (r Range) isPoint() bool {
	return !r.Lo.Unbounded && !r.Hi.Unbounded && r.Lo.Closed && r.Hi.Closed && cmp(r.Lo.Value, r.Hi.Value) == 0
}

// cmp orders two non-NULL values of one Go type (a Sarg's bounds share
// its type).
func cmp(a, b any) int {
	n, _ := compareValues(a, b)
	return n
}

// loLess orders ranges by their lower bound.
func loLess(a, b Bound) bool {
	switch {
	case a.Unbounded:
		return !b.Unbounded
	case b.Unbounded:
		return false
	}
	n := cmp(a.Value, b.Value)
	return n < 0 || n == 0 && a.Closed && !b.Closed
}

// touches reports whether a range ending at hi and one starting at lo
// overlap or meet (so that their union is one range).
func touches(hi, lo Bound) bool {
	if hi.Unbounded || lo.Unbounded {
		return true
	}
	n := cmp(hi.Value, lo.Value)
	return n > 0 || n == 0 && (hi.Closed || lo.Closed)
}

// hiLess reports whether upper bound a is below upper bound b.
func hiLess(a, b Bound) bool {
	switch {
	case b.Unbounded:
		return !a.Unbounded
	case a.Unbounded:
		return false
	}
	n := cmp(a.Value, b.Value)
	return n < 0 || n == 0 && !a.Closed && b.Closed
}

// union merges ranges into a sorted set of disjoint ranges.
func union(rs []Range) []Range {
	rs = append([]Range(nil), rs...)
	sort.SliceStable(rs, func(i, j int) bool { return loLess(rs[i].Lo, rs[j].Lo) })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && touches(out[n-1].Hi, r.Lo) {
			if hiLess(out[n-1].Hi, r.Hi) {
				out[n-1].Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// complement is every value not in the sorted disjoint ranges rs.
func complement(rs []Range) []Range {
	var out []Range
	lo := Bound{Unbounded: true}
	for _, r := range rs {
		if !r.Lo.Unbounded {
			out = append(out, Range{Lo: lo, Hi: Bound{Value: r.Lo.Value, Closed: !r.Lo.Closed}})
		}
		if r.Hi.Unbounded {
			return out
		}
		lo = Bound{Value: r.Hi.Value, Closed: !r.Hi.Closed}
	}
	return append(out, Range{Lo: lo, Hi: Bound{Unbounded: true}})
}

// String prints the Sarg as Calcite's Sarg.printTo does: points as
// values, other ranges in Guava's notation, values as literals without
// their type: Sarg[1, 3], Sarg[(-∞..10), (20..+∞)], Sarg[_UTF-16LE'xx'].
func (s *Sarg) String() string {
	if len(s.Ranges) == 0 {
		return "Sarg[FALSE]"
	}
	var b strings.Builder
	b.WriteString("Sarg[")
	for i, r := range s.Ranges {
		if i > 0 {
			b.WriteString(", ")
		}
		if r.isPoint() {
			b.WriteString(s.valueText(r.Lo.Value))
			continue
		}
		switch {
		case r.Lo.Unbounded:
			b.WriteString("(-∞")
		case r.Lo.Closed:
			b.WriteString("[" + s.valueText(r.Lo.Value))
		default:
			b.WriteString("(" + s.valueText(r.Lo.Value))
		}
		b.WriteString("..")
		switch {
		case r.Hi.Unbounded:
			b.WriteString("+∞)")
		case r.Hi.Closed:
			b.WriteString(s.valueText(r.Hi.Value) + "]")
		default:
			b.WriteString(s.valueText(r.Hi.Value) + ")")
		}
	}
	b.WriteString("]")
	return b.String()
}

func (s *Sarg) valueText(v any) string {
	if str, ok := v.(string); ok {
		return "_UTF-16LE'" + strings.ReplaceAll(str, "'", "''") + "'"
	}
	return literalText(&Literal{Value: v, T: s.T})
}

// contains reports whether v (of type vt) is in the Sarg.
func (s *Sarg) contains(v any, vt sql.DataType) (bool, error) {
	ct, ok := CommonType(vt, s.T)
	if !ok {
		ct = s.T
	}
	for _, r := range s.Ranges {
		if !r.Lo.Unbounded {
			n, err := compareAs(v, vt, r.Lo.Value, s.T, ct)
			if err != nil {
				return false, err
			}
			if n < 0 || n == 0 && !r.Lo.Closed {
				// Ranges are sorted: v is below every later one too.
				return false, nil
			}
		}
		if r.Hi.Unbounded {
			return true, nil
		}
		n, err := compareAs(v, vt, r.Hi.Value, s.T, ct)
		if err != nil {
			return false, err
		}
		if n < 0 || n == 0 && r.Hi.Closed {
			return true, nil
		}
	}
	return false, nil
}

func evalSearch(c *Call, args []Eval) (Eval, error) {
	sarg := c.Args[1].(*Literal).Value.(*Sarg)
	vt := c.Args[0].Type()
	if err := implicitConversion(vt, sarg.T); err != nil {
		return nil, err
	}
	return strict(args[:1], func(vs []any) (any, error) { return sarg.contains(vs[0], vt) }), nil
}

// SimplifyFilter rewrites a filter condition as Calcite's RexSimplify
// does with Flink's planner, for the part that changes plans users see
// (RexSimplify.SargCollector): comparisons of one field with literals under
// an OR (or an AND) become one SEARCH(field, Sarg[...]) when that is
// simpler: a field compared more than once (a = 1 OR a = 2 becomes
// SEARCH(a, Sarg[1, 2]); a < 10 OR a > 20 becomes
// SEARCH(a, Sarg[(-∞..10), (20..+∞)])); once one field needs a Sarg, every
// field's comparisons in the same AND/OR become SEARCHes. NOT of a
// comparison is the opposite comparison and NOT of a SEARCH searches the
// complement. Conditions are boolean filters: the rewrite keeps three-
// valued logic (NULL stays NULL).
func SimplifyFilter(e Expr) Expr { return simplifyFilter(e, true) }

// simplifyFilter is SimplifyFilter in one of RexSimplify's modes:
// unknownAsFalse at the top of a filter (RexUnknownAs.FALSE), which NOT
// negates (RexSimplify.simplifyNot: unknownAs.negate(), TRUE) and a second
// NOT restores. Only in the FALSE mode may an AND whose ranges cannot
// all hold become FALSE (simplifyAnd2ForUnknownAsFalse): under a NOT,
// k > 4 AND k < 2 over a NULL k is NULL, and NOT of it NULL, not TRUE.
func simplifyFilter(e Expr, unknownAsFalse bool) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	switch c.Op {
	case "AND", "OR":
		var terms []Expr
		for _, a := range c.Args {
			s := simplifyFilter(a, unknownAsFalse)
			if sc, ok := s.(*Call); ok && sc.Op == c.Op {
				terms = append(terms, sc.Args...)
			} else {
				terms = append(terms, s)
			}
		}
		terms = collectSargs(terms, c.Op == "AND", unknownAsFalse)
		if c.Op == "AND" && unknownAsFalse {
			terms = mergeRanges(terms)
		}
		terms, done := foldBooleanLiterals(c.Op, terms, c.T)
		if done != nil {
			return done
		}
		if len(terms) == 1 {
			return terms[0]
		}
		return &Call{Op: c.Op, Args: terms, T: c.T, Written: c.Written, zone: c.zone}
	case "NOT":
		if a, ok := c.Args[0].(*Call); ok {
			switch {
			case a.Op == "NOT":
				// NOT NOT x is x.
				return simplifyFilter(a.Args[0], unknownAsFalse)
			case a.Op == "AND" || a.Op == "OR":
				// De Morgan (RexSimplify.simplifyNot's "NOT distributivity"):
				// NOT (x AND y) is NOT x OR NOT y, simplified in the same
				// mode, so NOT (k > 4 AND k < 2) is k <= 4 OR k >= 2, one
				// range holding every k: k IS NOT NULL in a filter.
				dual := &Call{Op: "OR", T: c.T}
				if a.Op == "OR" {
					dual.Op = "AND"
				}
				for _, x := range a.Args {
					dual.Args = append(dual.Args, &Call{Op: "NOT", Args: []Expr{x}, T: sql.Boolean().WithNullable(x.Type().Nullable)})
				}
				return simplifyFilter(dual, unknownAsFalse)
			case negatedPredicate[a.Op] != "":
				// SqlKind.negate: NOT x IS NULL is x IS NOT NULL, NOT x IS
				// TRUE is x IS NOT TRUE, ... (each exact on NULLs).
				return &Call{Op: negatedPredicate[a.Op], Args: a.Args, T: c.T}
			}
		}
		inner := simplifyFilter(c.Args[0], !unknownAsFalse)
		if l, ok := inner.(*Literal); ok {
			if b, ok := l.Value.(bool); ok {
				return &Literal{Value: !b, T: l.T}
			}
		}
		ic, ok := inner.(*Call)
		if !ok {
			break
		}
		if neg, ok := negatedComparison[ic.Op]; ok {
			return &Call{Op: neg, Args: ic.Args, T: c.T}
		}
		if ic.Op == "SEARCH" {
			s := ic.Args[1].(*Literal)
			sarg := s.Value.(*Sarg)
			return &Call{Op: "SEARCH", Args: []Expr{ic.Args[0], &Literal{Value: &Sarg{Ranges: complement(sarg.Ranges), T: sarg.T}, T: s.T}}, T: c.T}
		}
		return &Call{Op: "NOT", Args: []Expr{inner}, T: c.T}
	case "=", "<>", "<", ">", "<=", ">=":
		if b, ok := simplifyBooleanComparison(c); ok {
			return b
		}
	}
	return e
}

// simplifyBooleanComparison is RexSimplify.simplifyComparison's rule for
// a BOOLEAN compared with the literal TRUE or FALSE (either side): x = TRUE
// is x, x <> TRUE is NOT x, x = FALSE is NOT x, x <> FALSE is x (and >=,
// <, <=, > as TRUE > FALSE orders them); x > TRUE, x < FALSE are FALSE and
// x <= TRUE, x >= FALSE TRUE when x is NOT NULL.
func simplifyBooleanComparison(c *Call) (Expr, bool) {
	if len(c.Args) != 2 {
		return nil, false
	}
	op, x, lit := c.Op, c.Args[0], c.Args[1]
	l, ok := lit.(*Literal)
	if !ok {
		if l, ok = x.(*Literal); !ok {
			return nil, false
		}
		op, x = reversedComparison[op], lit
	}
	v, isBool := l.Value.(bool)
	if !isBool || l.Flag || x.Type().Root != sql.TypeBoolean || c.Args[0].Type().Root != sql.TypeBoolean ||
		c.Args[1].Type().Root != sql.TypeBoolean {
		return nil, false
	}
	not := func() Expr { return SimplifyFilter(&Call{Op: "NOT", Args: []Expr{x}, T: c.T}) }
	constant := func(b bool) (Expr, bool) {
		if x.Type().Nullable {
			return nil, false
		}
		return &Literal{Value: b, T: sql.Boolean().NotNull()}, true
	}
	if v {
		switch op {
		case ">=", "=":
			return x, true
		case "<", "<>":
			return not(), true
		case ">":
			return constant(false)
		case "<=":
			return constant(true)
		}
		return nil, false
	}
	switch op {
	case "=", "<=":
		return not(), true
	case "<>", ">":
		return x, true
	case ">=":
		return constant(true)
	case "<":
		return constant(false)
	}
	return nil, false
}

var negatedComparison = map[string]string{"=": "<>", "<>": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}

// negatedPredicate is SqlKind.negate: the predicates whose NOT is another
// predicate of the same operands, NULLs included.
var negatedPredicate = map[string]string{
	"IS NULL": "IS NOT NULL", "IS NOT NULL": "IS NULL",
	"IS TRUE": "IS NOT TRUE", "IS NOT TRUE": "IS TRUE",
	"IS FALSE": "IS NOT FALSE", "IS NOT FALSE": "IS FALSE",
	"IS DISTINCT FROM": "IS NOT DISTINCT FROM", "IS NOT DISTINCT FROM": "IS DISTINCT FROM",
}

var reversedComparison = map[string]string{"=": "=", "<>": "<>", "<": ">", ">": "<", "<=": ">=", ">=": "<="}

// sargBuilder gathers one field's ranges (RexSargBuilder).
type sargBuilder struct {
	ref    *InputRef
	ranges []Range
	types  []sql.DataType
	// null: an "x IS NULL" term under OR (RexSargBuilder.containsNull).
	null bool
}

// complexity is RexSargBuilder.complexity: the number of ranges, except
// that "x <> v" (two ranges around one missing point) counts one, plus
// one for a NULL that counts as TRUE.
func (b *sargBuilder) complexity() int {
	rs := b.build(false).Ranges
	n := len(rs)
	if len(rs) == 2 {
		if c := complement(rs); len(c) == 1 && c[0].isPoint() {
			n = 1
		}
	}
	if b.null {
		n++
	}
	return n
}

// collectSargs is RexSimplify.SargCollector over the terms of one AND
// (negate) or OR. Under AND the collector gathers each comparison's
// negation and the Sarg is the complement of their union. A Sarg of no
// value (a > 4 AND a < 2) is FALSE and one of every value (a < 1 OR
// a >= 1) is a IS NOT NULL only where UNKNOWN counts as FALSE (the top of
// a filter, RexUtil.simpleSarg); elsewhere (under a NOT) a NULL a makes
// the terms NULL, not FALSE, so they stay as they are.
func collectSargs(terms []Expr, negate, unknownAsFalse bool) []Expr {
	var out []Expr
	builders := map[int]*sargBuilder{}
	for _, t := range terms {
		if c, ok := t.(*Call); ok && c.Op == "IS NULL" && !negate {
			if ref, ok := c.Args[0].(*InputRef); ok {
				b := builders[ref.Index]
				if b == nil {
					b = &sargBuilder{ref: ref}
					builders[ref.Index] = b
					out = append(out, b.placeholder())
				}
				b.null = true
				continue
			}
		}
		ref, ranges, lt, ok := sargTerm(t, negate)
		if !ok {
			out = append(out, t)
			continue
		}
		b := builders[ref.Index]
		if b == nil {
			b = &sargBuilder{ref: ref}
			builders[ref.Index] = b
			out = append(out, b.placeholder())
		}
		b.ranges = append(b.ranges, ranges...)
		b.types = append(b.types, lt)
	}
	if len(builders) == 0 {
		return terms
	}
	// SargCollector.needToFix: a Sarg of complexity above one, or a single
	// resulting term whose Sarg is simple (SargCollector.simpleSarg; of
	// its forms, only points and every value are taken here: Flink's
	// plans keep k < 4 OR k < 6 as it is written).
	fix := false
	simple := len(out) == 1
	for _, b := range builders {
		if b.complexity() > 1 {
			fix = true
		}
		for _, r := range b.build(negate).Ranges {
			simple = simple && (r.isPoint() || r.Lo.Unbounded && r.Hi.Unbounded)
		}
	}
	if !fix && !simple {
		return terms
	}
	if !unknownAsFalse {
		for _, b := range builders {
			if len(b.types) == 0 {
				continue
			}
			rs := b.build(negate).Ranges
			if len(rs) == 0 || rs[0].Lo.Unbounded && rs[0].Hi.Unbounded {
				return terms
			}
		}
	}
	var fixed []Expr
	for _, t := range out {
		p, ok := t.(*placeholder)
		if !ok {
			fixed = append(fixed, t)
			continue
		}
		b := builders[p.index]
		if b.null && len(b.types) > 0 {
			if rs := b.build(negate).Ranges; len(rs) == 1 && rs[0].Lo.Unbounded && rs[0].Hi.Unbounded {
				// x IS NULL OR x < 1 OR x >= 1: Sarg[TRUE].
				fixed = append(fixed, &Literal{Value: true, T: sql.Boolean().NotNull()})
				continue
			}
		}
		if b.null {
			// Flink prints a Sarg with NULL AS TRUE as x IS NULL OR
			// SEARCH(x, Sarg[...]).
			fixed = append(fixed, &Call{Op: "IS NULL", Args: []Expr{b.ref}, T: sql.Boolean().NotNull()})
			if len(b.types) == 0 {
				continue
			}
		}
		sarg := b.build(negate)
		switch {
		case len(sarg.Ranges) == 0: // a = 1 AND a = 2
			fixed = append(fixed, &Literal{Value: false, T: sql.Boolean().NotNull()})
			continue
		case sarg.Ranges[0].Lo.Unbounded && sarg.Ranges[0].Hi.Unbounded: // a < 1 OR a >= 1
			fixed = append(fixed, &Call{Op: "IS NOT NULL", Args: []Expr{b.ref}, T: sql.Boolean().NotNull()})
			continue
		}
		fixed = append(fixed, &Call{Op: "SEARCH", Args: []Expr{b.ref, &Literal{Value: sarg, T: sarg.T}},
			T: sql.Boolean().WithNullable(b.ref.T.Nullable)})
	}
	return fixed
}

// placeholder marks where a field's SEARCH goes among the terms: where
// its first comparison was.
type placeholder struct{ index int }

func (*placeholder) Type() sql.DataType { return sql.Boolean() }

func (b *sargBuilder) placeholder() Expr { return &placeholder{index: b.ref.Index} }

// build is RexSargBuilder.build: the Sarg of the gathered ranges (their
// complement under AND), its values in the literals' common type.
func (b *sargBuilder) build(negate bool) *Sarg {
	if len(b.types) == 0 {
		return &Sarg{}
	}
	t := b.types[0]
	for _, lt := range b.types[1:] {
		if ct, ok := CommonType(t, lt); ok {
			t = ct
		}
	}
	t = t.WithNullable(true)
	conv := func(x Bound) Bound {
		if tv, ok := x.Value.(typed); ok {
			x.Value = tv.v
			// Strings keep their text (no CHAR padding to a longer
			// common length); other values take the common type.
			if !t.IsString() {
				if v, err := castValue(tv.v, tv.t, t); err == nil {
					x.Value = v
				}
			}
		}
		return x
	}
	rs := make([]Range, len(b.ranges))
	for i, r := range b.ranges {
		rs[i] = Range{Lo: conv(r.Lo), Hi: conv(r.Hi)}
	}
	rs = union(rs)
	if negate {
		rs = complement(rs)
	}
	return &Sarg{Ranges: rs, T: t}
}

// typed carries a bound's value with its literal's type until build
// converts it to the Sarg's type.
type typed struct {
	v any
	t sql.DataType
}

// sargTerm reads a term the collector takes: a comparison of a field with
// a non-NULL literal, or an earlier SEARCH; under AND (negate) it returns
// the term's negation.
func sargTerm(e Expr, negate bool) (*InputRef, []Range, sql.DataType, bool) {
	c, ok := e.(*Call)
	if !ok {
		return nil, nil, sql.DataType{}, false
	}
	if c.Op == "SEARCH" {
		l := c.Args[1].(*Literal)
		s := l.Value.(*Sarg)
		rs := s.Ranges
		if negate {
			rs = complement(rs)
		}
		out := make([]Range, len(rs))
		for i, r := range rs {
			out[i] = Range{Lo: wrap(r.Lo, s.T), Hi: wrap(r.Hi, s.T)}
		}
		return c.Args[0].(*InputRef), out, s.T, true
	}
	op, ok := reversedComparison[c.Op]
	if !ok || len(c.Args) != 2 {
		return nil, nil, sql.DataType{}, false
	}
	ref, lit := c.Args[0], c.Args[1]
	if _, isRef := ref.(*InputRef); !isRef {
		ref, lit = lit, ref
	} else {
		op = c.Op
	}
	r, isRef := ref.(*InputRef)
	l, isLit := lit.(*Literal)
	if !isRef || !isLit || l.Value == nil || l.Flag || !Comparable(r.T, l.T) || r.T.IsString() != l.T.IsString() {
		return nil, nil, sql.DataType{}, false
	}
	if _, ok := l.Value.(bool); ok {
		return nil, nil, sql.DataType{}, false
	}
	if negate {
		op = negatedComparison[op]
	}
	v := Bound{Value: typed{l.Value, l.T}, Closed: true}
	open := Bound{Value: typed{l.Value, l.T}}
	inf := Bound{Unbounded: true}
	var rs []Range
	switch op {
	case "=":
		rs = []Range{{Lo: v, Hi: v}}
	case "<>":
		rs = []Range{{Lo: inf, Hi: open}, {Lo: open, Hi: inf}}
	case "<":
		rs = []Range{{Lo: inf, Hi: open}}
	case "<=":
		rs = []Range{{Lo: inf, Hi: v}}
	case ">":
		rs = []Range{{Lo: open, Hi: inf}}
	case ">=":
		rs = []Range{{Lo: v, Hi: inf}}
	}
	return r, rs, l.T, true
}

func wrap(x Bound, t sql.DataType) Bound {
	if !x.Unbounded {
		x.Value = typed{x.Value, t}
	}
	return x
}

// NullTestsFirst moves the IS NULL terms of an OR to its head, keeping
// the order within each part, as RexSimplify.simplifyOr does when it may
// eliminate predicates (Util.moveToHead: y IS NULL OR x = 1). Calcite's
// RelBuilder.filter simplifies a filter without (simplifyFilterPredicates,
// CALCITE-2401), so a WHERE keeps its order; a condition the planner
// derives through FlinkRexUtil.simplify has them moved
// (JoinDependentConditionDerivationRule).
func NullTestsFirst(e Expr) Expr {
	c, ok := e.(*Call)
	if !ok || c.Op != "OR" {
		return e
	}
	return &Call{Op: "OR", Args: isNullFirst(c.Args), T: c.T}
}

func isNullFirst(terms []Expr) []Expr {
	var head, tail []Expr
	for _, t := range terms {
		if c, ok := t.(*Call); ok && c.Op == "IS NULL" {
			head = append(head, t)
		} else {
			tail = append(tail, t)
		}
	}
	if len(head) == 0 || len(tail) == 0 {
		return terms
	}
	return append(head, tail...)
}

// rangeTerm is one comparison of a field with a non-NULL literal that
// mergeRanges reads: the field's index, the comparison with the field on
// the left, the literal.
type rangeTerm struct {
	ref int
	op  string
	lit *Literal
}

func readRangeTerm(e Expr) (rangeTerm, bool) {
	c, ok := e.(*Call)
	if !ok || len(c.Args) != 2 {
		return rangeTerm{}, false
	}
	op, ok := reversedComparison[c.Op]
	if !ok || c.Op == "<>" {
		return rangeTerm{}, false
	}
	if r, ok := c.Args[0].(*InputRef); ok {
		if l, ok := c.Args[1].(*Literal); ok && l.Value != nil && !l.Flag {
			return rangeTerm{ref: r.Index, op: c.Op, lit: l}, true
		}
	}
	if r, ok := c.Args[1].(*InputRef); ok {
		if l, ok := c.Args[0].(*Literal); ok && l.Value != nil && !l.Flag {
			return rangeTerm{ref: r.Index, op: op, lit: l}, true
		}
	}
	return rangeTerm{}, false
}

// compareLiterals orders two literals' values when they are of one kind
// (both strings, both integers, both of one type).
func compareLiterals(a, b *Literal) (int, bool) {
	_, ai := ToInt(a.Value)
	_, bi := ToInt(b.Value)
	if !(ai && bi) && a.T.Root != b.T.Root {
		return 0, false
	}
	if _, ok := a.Value.(*Sarg); ok {
		return 0, false
	}
	if _, ok := a.Value.(Interval); ok {
		return 0, false
	}
	n, err := compareValues(a.Value, b.Value)
	return n, err == nil
}

// openRange is the range mergeRanges keeps for one field: its bounds (nil
// for none) and the terms that set them.
type openRange struct {
	lo, hi             *Literal
	loClosed, hiClosed bool
	terms              []int
}

// mergeRanges is RexSimplify.simplifyAnd2ForUnknownAsFalse's processRange
// over the terms of a filter's AND: comparisons of one field with
// literals narrow one range, and a comparison the range already implies is
// dropped (a < 12 AND a < 10 is a < 10), a stricter one replaces the
// earlier bound's term; an empty range makes the whole AND false. Only
// for filters (UNKNOWN as FALSE), as Calcite.
func mergeRanges(terms []Expr) []Expr {
	out := append([]Expr(nil), terms...)
	ranges := map[int]*openRange{}
	falseLit := []Expr{&Literal{Value: false, T: sql.Boolean().NotNull()}}
	for i, t := range terms {
		rt, ok := readRangeTerm(t)
		if !ok {
			continue
		}
		r := ranges[rt.ref]
		if r == nil {
			r = &openRange{terms: []int{i}}
			switch rt.op {
			case "=":
				r.lo, r.hi, r.loClosed, r.hiClosed = rt.lit, rt.lit, true, true
			case "<", "<=":
				r.hi, r.hiClosed = rt.lit, rt.op == "<="
			case ">", ">=":
				r.lo, r.loClosed = rt.lit, rt.op == ">="
			}
			ranges[rt.ref] = r
			continue
		}
		cmpTo := func(b *Literal) (int, bool) { return compareLiterals(rt.lit, b) }
		ok = true
		check := func(n int, good bool) int {
			ok = ok && good
			return n
		}
		var upper, lower bool
		switch rt.op {
		case "=":
			if r.lo != nil {
				n := check(cmpTo(r.lo))
				if ok && (n < 0 || n == 0 && !r.loClosed) {
					return falseLit
				}
			}
			if r.hi != nil {
				n := check(cmpTo(r.hi))
				if ok && (n > 0 || n == 0 && !r.hiClosed) {
					return falseLit
				}
			}
			if !ok {
				continue
			}
			for _, j := range r.terms {
				out[j] = nil
			}
			*r = openRange{lo: rt.lit, hi: rt.lit, loClosed: true, hiClosed: true, terms: []int{i}}
			continue
		case "<", "<=":
			n := -1
			if r.hi != nil {
				n = check(cmpTo(r.hi))
			}
			if !ok {
				continue
			}
			if n < 0 || n == 0 && rt.op == "<" {
				if r.lo != nil {
					m := check(cmpTo(r.lo))
					if !ok {
						continue
					}
					if m < 0 || m == 0 && (rt.op == "<" || !r.loClosed) {
						return falseLit
					}
				}
				r.hi, r.hiClosed, upper = rt.lit, rt.op == "<=", true
			} else {
				out[i] = nil
			}
		case ">", ">=":
			n := 1
			if r.lo != nil {
				n = check(cmpTo(r.lo))
			}
			if !ok {
				continue
			}
			if n > 0 || n == 0 && rt.op == ">" {
				if r.hi != nil {
					m := check(cmpTo(r.hi))
					if !ok {
						continue
					}
					if m > 0 || m == 0 && (rt.op == ">" || !r.hiClosed) {
						return falseLit
					}
				}
				r.lo, r.loClosed, lower = rt.lit, rt.op == ">=", true
			} else {
				out[i] = nil
			}
		}
		if upper || lower {
			var keep []int
			for _, j := range r.terms {
				prev, _ := readRangeTerm(terms[j])
				isUpper := prev.op == "<" || prev.op == "<="
				isLower := prev.op == ">" || prev.op == ">="
				if upper && isUpper || lower && isLower {
					out[j] = nil
				} else {
					keep = append(keep, j)
				}
			}
			r.terms = append(keep, i)
		}
	}
	var kept []Expr
	for _, t := range out {
		if t != nil {
			kept = append(kept, t)
		}
	}
	return kept
}

// foldBooleanLiterals drops the TRUE / FALSE literals an AND / OR's
// terms have become (a range that cannot hold is FALSE), as
// RexSimplify.simplifyAnd / simplifyOr do in every mode, since three-valued
// logic agrees: FALSE OR x is x and TRUE AND x is x, while TRUE OR x is
// TRUE and FALSE AND x is FALSE whatever x is (NULL included). done is
// the whole condition when it folds to one literal.
func foldBooleanLiterals(op string, terms []Expr, t sql.DataType) (kept []Expr, done Expr) {
	absorbing := op == "OR" // TRUE absorbs an OR, FALSE an AND
	for _, e := range terms {
		if l, ok := e.(*Literal); ok {
			if b, ok := l.Value.(bool); ok {
				if b == absorbing {
					return nil, l
				}
				continue
			}
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		return nil, &Literal{Value: !absorbing, T: t}
	}
	return kept, nil
}
