package expr

import "github.com/sqlrun/sqlrun/sql"

// Reduce folds the calls of e whose arguments are constants into
// constants, as Flink's ReduceExpressionsRule does before the physical plan
// ('a' || 'b' becomes 'ab'). Dynamic functions (the clock) are never
// folded; a call that fails to evaluate stays as it is and fails per row.
// A folded value keeps its call's type the way Calcite's
// RexBuilder.makeLiteral with a cast does: a literal of its natural type
// (CHAR(n) for text), in a CAST when the call's type differs from it by
// more than CHAR to VARCHAR or is nullable: CAST('ab' AS
// VARCHAR(2147483647)).
//
// A TIME constant is rounded to its type's precision where the constant
// expression ends, as Flink's ExpressionReducer makes each maximal
// constant expression a literal of its type and Calcite's
// RexBuilder.makeLiteral rounds a TIME to that precision (TimeString.round,
// which truncates): TIME '12:34:56' + INTERVAL '0.5' SECOND, a TIME(0),
// reduces to 12:34:56, while the same sum cast to TIMESTAMP(3) reduces to
// 12:34:56.500.
func Reduce(e Expr) Expr {
	return roundTime(reduce(e))
}

// roundTime rounds a TIME constant to its type's precision (see Reduce).
func roundTime(e Expr) Expr {
	switch x := e.(type) {
	case *Literal:
		if ms, ok := x.Value.(int32); ok && x.T.Root == sql.TypeTime && !x.Flag {
			if r := TruncTime(ms, x.T.Precision); r != ms {
				return &Literal{Value: r, T: x.T}
			}
		}
	case *Call:
		if isReduced(x) && x.T.Root == sql.TypeTime {
			if l := x.Args[0].(*Literal); l.T.Root == sql.TypeTime {
				if ms, ok := l.Value.(int32); ok {
					if r := TruncTime(ms, x.T.Precision); r != ms {
						return &Call{Op: x.Op, Args: []Expr{&Literal{Value: r, T: l.T}}, T: x.T, Written: x.Written, zone: x.zone}
					}
				}
			}
		}
	}
	return e
}

func reduce(e Expr) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if f, ok := byOp[c.Op]; ok && f.Dynamic {
		return e
	}
	if nested(c.T) {
		// Flink's ExpressionReducer keeps calls whose result has no
		// literal form (ARRAY, MAP, ROW, MULTISET) unreduced; their
		// arguments may still fold.
		args := make([]Expr, len(c.Args))
		for i, a := range c.Args {
			args[i] = Reduce(a)
		}
		return &Call{Op: c.Op, Args: args, T: c.T, Written: c.Written, zone: c.zone}
	}
	args := make([]Expr, len(c.Args))
	allConst := true
	for i, a := range c.Args {
		if ac, ok := a.(*Call); ok && jsonNodeParent(c.Op) && jsonConstructor(ac.Op) {
			// A JSON_OBJECT or JSON_ARRAY inside another or inside
			// JSON_STRING is inserted as JSON, not as its text
			// (evalJSONConstructor): it stays a call, its arguments
			// folded, so the outer call sees it.
			args[i], allConst = reduceArgs(ac), false
			continue
		}
		args[i] = reduce(a)
		allConst = allConst && isConstant(args[i])
	}
	out := &Call{Op: c.Op, Args: args, T: c.T, Written: c.Written, zone: c.zone}
	// The arguments are constants that end here unless the call folds.
	ended := func() *Call {
		for i, a := range out.Args {
			out.Args[i] = roundTime(a)
		}
		return out
	}
	if !allConst || isReduced(out) || out.zone == nil && zoneDependent(out) {
		// A call whose value depends on the session time zone folds
		// only once the zone is bound (InZone).
		return ended()
	}
	ev, err := Compile(out)
	if err != nil {
		return ended()
	}
	v, err := ev(nil)
	if err != nil {
		return ended()
	}
	return keepQualifier(constant(v, c.T), out)
}

func jsonConstructor(op string) bool { return op == "JSON_OBJECT" || op == "JSON_ARRAY" }

// jsonNodeParent: the calls that make JSON of their arguments as Flink's
// JsonGenerateUtils.createNodeTerm does.
func jsonNodeParent(op string) bool { return jsonConstructor(op) || op == "JSON_STRING" }

// reduceArgs folds c's arguments, keeping c a call.
func reduceArgs(c *Call) *Call {
	args := make([]Expr, len(c.Args))
	for i, a := range c.Args {
		if ac, ok := a.(*Call); ok && jsonNodeParent(c.Op) && jsonConstructor(ac.Op) {
			args[i] = reduceArgs(ac)
			continue
		}
		args[i] = Reduce(a)
	}
	return &Call{Op: c.Op, Args: args, T: c.T, Written: c.Written, zone: c.zone}
}

// keepQualifier gives a folded interval product the qualifier of the
// interval it multiplies: Calcite types INTERVAL * n as its interval
// operand (ReturnTypes.ARG0_INTERVAL_NULLABLE), whose qualifier a WEEK or
// QUARTER keeps though its type is an INTERVAL DAY or MONTH, so
// TIMESTAMPADD(WEEK, 2, ts) folds to +(ts, 1209600000:INTERVAL WEEK)
// (RexBuilder.makeLiteral with the call's type).
func keepQualifier(e Expr, c *Call) Expr {
	if c.Op != "*" || len(c.Args) != 2 {
		return e
	}
	q, ok := c.Args[0].(*Literal)
	if !ok {
		return e
	}
	qiv, ok := q.Value.(Interval)
	if !ok {
		return e
	}
	l, ok := e.(*Literal)
	if !ok {
		if cast, isCall := e.(*Call); isCall && isReduced(cast) {
			l = cast.Args[0].(*Literal)
		} else {
			return e
		}
	}
	if iv, ok := l.Value.(Interval); ok {
		iv.Unit = qiv.Unit
		l.Value = iv
	}
	return e
}

// isConstant reports a literal (a symbol such as TRIM's BOTH too) or a
// reduced constant (a CAST of one).
func isConstant(e Expr) bool {
	switch x := e.(type) {
	case *Literal:
		return true
	case *Call:
		return isReduced(x)
	}
	return false
}

// isReduced reports the form constant gives: CAST of a plain literal to a
// nullable type (a NOT NULL one reduces to a literal of that type).
func isReduced(c *Call) bool {
	if c.Op != "CAST" || len(c.Args) != 1 || !c.T.Nullable {
		return false
	}
	l, ok := c.Args[0].(*Literal)
	return ok && !l.Flag && l.Value != nil
}

// constant is v as a constant of type t (see Reduce).
func constant(v any, t sql.DataType) Expr {
	if v == nil || t.Root == sql.TypeBoolean {
		// Conditions drop nullability casts (RexSimplify's
		// removeNullabilityCast), and NULL is a typed literal.
		return &Literal{Value: v, T: t}
	}
	if t.IsInterval() {
		// A reduced interval is a literal again, its qualifier the type's
		// unit (84:INTERVAL MONTH).
		iv := Interval{Unit: intervalUnitName[t.Unit]}
		if t.Root == sql.TypeIntervalYearMonth {
			iv.Months = intervalCount(v)
		} else {
			iv.Millis = intervalCount(v)
		}
		v = iv
	}
	natural := t.NotNull()
	if s, ok := v.(string); ok && t.IsString() {
		if !t.Nullable {
			return &Literal{Value: v, T: t}
		}
		natural = sql.Char(len([]rune(s))).NotNull()
	}
	if !t.Nullable {
		return &Literal{Value: v, T: t}
	}
	return &Call{Op: "CAST", Args: []Expr{&Literal{Value: v, T: natural}}, T: t}
}

// SubstituteConstants replaces, in a Calc's projections, each field that
// its (simplified) condition fixes by an equality with a literal (a = 1)
// by that literal in the field's type, as Flink's ReduceExpressionsRule
// does with the predicates it pulls up from a filter
// (RelOptPredicateList.constantMap, which reads = but not SEARCH: a field
// whose equality became SEARCH(c, Sarg['x']) stays); the condition keeps
// the equality.
// The projections are then reduced: WHERE c = 'x' makes c || 'y' the
// constant 'xy'.
func SubstituteConstants(exprs []Expr, cond Expr) []Expr {
	consts := map[int]Expr{}
	if cond != nil {
		for _, c := range Conjuncts(cond) {
			if x, ok := c.(*Call); ok {
				// RexSimplify has made b = TRUE the predicate b, which
				// fixes no field (WatermarkAssignerChangelogNormalize
				// TransposeRuleTest.testPushdownCalcNotAffectChangelogNormalizeKey).
				if b, ok := simplifyBooleanComparison(x); ok {
					c = b
				}
			}
			if x, ok := c.(*Call); ok && x.Op == "IS NULL" {
				// RexUtil.predicateConstants reads "x IS NULL" of a
				// nullable field as x = NULL: WHERE d IS NULL makes the
				// projection's d null:INTEGER.
				if ref, ok := x.Args[0].(*InputRef); ok && ref.T.Nullable {
					if _, dup := consts[ref.Index]; !dup {
						consts[ref.Index] = &Literal{Value: nil, T: ref.T}
					}
				}
				continue
			}
			ref, l, ok := fixedBy(c)
			if !ok {
				continue
			}
			if _, dup := consts[ref.Index]; dup {
				continue
			}
			v, err := castValue(l.Value, l.T, ref.T)
			if err != nil {
				continue
			}
			consts[ref.Index] = constant(v, ref.T)
			if ref.T.Nullable && l.T.IsNumeric() && ref.T.IsNumeric() {
				// Calcite casts the predicate's own literal to the
				// field's nullable type: WHERE key = 0 on a BIGINT
				// makes CAST(0 AS BIGINT), the INT literal inside
				// (JoinTest.testSelfJoinPlan).
				consts[ref.Index] = &Call{Op: "CAST", Args: []Expr{l}, T: ref.T}
			}
		}
	}
	implied := impliedComparisons(cond)
	out := make([]Expr, len(exprs))
	for i, e := range exprs {
		if len(consts) > 0 {
			e = substitute(e, consts)
		}
		if len(implied) > 0 {
			e = simplifyImplied(e, implied)
		}
		out[i] = Reduce(e)
	}
	return out
}

// impliedComparisons are the conjuncts of a Calc's condition that compare
// a field with a non-NULL literal (Calcite's RexSimplify.Comparison), by
// their text.
func impliedComparisons(cond Expr) map[string]*InputRef {
	if cond == nil {
		return nil
	}
	out := map[string]*InputRef{}
	for _, c := range Conjuncts(cond) {
		if ref, ok := comparedField(c); ok {
			out[String(c, nil, FormatAST)] = ref
		}
	}
	return out
}

// comparedField reads "field op literal" for op one of =, <>, <, <=, >,
// >= and a non-NULL literal.
func comparedField(e Expr) (*InputRef, bool) {
	c, ok := e.(*Call)
	if !ok || len(c.Args) != 2 {
		return nil, false
	}
	switch c.Op {
	case "=", "<>", "<", "<=", ">", ">=":
	default:
		return nil, false
	}
	ref, ok := c.Args[0].(*InputRef)
	l, lok := c.Args[1].(*Literal)
	if !ok || !lok || l.Value == nil {
		return nil, false
	}
	return ref, true
}

// simplifyImplied is the part of RexSimplify.simplifyUsingPredicates a
// projection over a filter needs: a comparison of a field with a literal
// that the condition itself states is satisfied by every row the Calc
// keeps, so it is "field IS NOT NULL" (TRUE for a NOT NULL field):
// SELECT ..., IS TRUE(b > 1000) ... WHERE b > 1000 projects
// IS NOT NULL(b) (WindowAggregateTest.testTumble_CalcOnTVF). Calcite also
// reads ranges implied by other comparisons of the field; only the
// comparison the condition spells is read here.
func simplifyImplied(e Expr, implied map[string]*InputRef) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if _, ok := comparedField(c); ok {
		if ref, ok := implied[String(c, nil, FormatAST)]; ok {
			if !ref.T.Nullable {
				return &Literal{Value: true, T: sql.Boolean().NotNull()}
			}
			return &Call{Op: "IS NOT NULL", Args: []Expr{ref}, T: sql.Boolean().NotNull()}
		}
		return e
	}
	args := make([]Expr, len(c.Args))
	changed := false
	for i, a := range c.Args {
		args[i] = simplifyImplied(a, implied)
		changed = changed || args[i] != a
	}
	if !changed {
		return e
	}
	if c.Op == "IS TRUE" && !args[0].Type().Nullable {
		// IS TRUE of a value never NULL is the value.
		return args[0]
	}
	return &Call{Op: c.Op, Args: args, T: c.T, Written: c.Written}
}

// fixedBy reads "field = literal" (either way round; a non-NULL literal of
// the field's type family; no floating point, where = is not identity).
func fixedBy(e Expr) (*InputRef, *Literal, bool) {
	c, ok := e.(*Call)
	if !ok || len(c.Args) != 2 {
		return nil, nil, false
	}
	switch c.Op {
	case "=":
		ref, isRef := c.Args[0].(*InputRef)
		l, isLit := c.Args[1].(*Literal)
		if !isRef || !isLit {
			ref, isRef = c.Args[1].(*InputRef)
			l, isLit = c.Args[0].(*Literal)
		}
		if !isRef || !isLit || l.Value == nil || l.Flag || ref.T.IsString() != l.T.IsString() ||
			ref.T.IsNumeric() != l.T.IsNumeric() || ref.T.Root == sql.TypeFloat || ref.T.Root == sql.TypeDouble {
			return nil, nil, false
		}
		return ref, l, true
	}
	return nil, nil, false
}

func substitute(e Expr, consts map[int]Expr) Expr {
	switch x := e.(type) {
	case *InputRef:
		if c, ok := consts[x.Index]; ok {
			return c
		}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = substitute(a, consts)
		}
		return &Call{Op: x.Op, Args: args, T: x.T, Written: x.Written, zone: x.zone}
	}
	return e
}

// SimplifyCoalesce is Calcite's RexSimplify.simplifyCoalesce where it
// leaves one operand: a COALESCE whose first operand (NULL literals
// aside) is never NULL is that operand (COALESCE(w1.window_start,
// w2.window_start) over an inner join is window_start:
// WindowAggregateTest.testInvalidRelaxFormCascadeProctimeWindow_OnWindowJoin).
// Only where the operand has the call's type: Calcite's
// simplifyPreservingType would cast it otherwise.
func SimplifyCoalesce(e Expr) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	var args []Expr
	for i, a := range c.Args {
		s := SimplifyCoalesce(a)
		if s != a && args == nil {
			args = append([]Expr(nil), c.Args...)
		}
		if args != nil {
			args[i] = s
		}
	}
	if args != nil {
		out := *c
		out.Args = args
		c = &out
	}
	if c.Op != "COALESCE" {
		if args == nil {
			return e
		}
		return c
	}
	for _, a := range c.Args {
		if l, ok := a.(*Literal); ok && l.Value == nil {
			continue
		}
		if t := a.Type(); !t.Nullable && t.Equal(c.T.WithNullable(false)) {
			return a
		}
		break
	}
	if args == nil {
		return e
	}
	return c
}
