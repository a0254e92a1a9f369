package expr

import (
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSimplifyFilter checks the Sarg rewrite on conditions over one INT
// field a ($0) and one BIGINT field b ($1), in the execution plan's form.
// The expected texts with a Flink case name are Flink 1.20's (CalcTest.xml);
// the others follow Calcite's RexSimplify.SargCollector rules.
func TestSimplifyFilter(t *testing.T) {
	a := &InputRef{Index: 0, T: sql.Int()}
	b := &InputRef{Index: 1, T: sql.BigInt()}
	lit := func(v int32) *Literal { return &Literal{Value: v, T: sql.Int().NotNull()} }
	cmp := func(op string, l, r Expr) Expr { return &Call{Op: op, Args: []Expr{l, r}, T: sql.Boolean()} }
	or := func(es ...Expr) Expr { return &Call{Op: "OR", Args: es, T: sql.Boolean()} }
	and := func(es ...Expr) Expr { return &Call{Op: "AND", Args: es, T: sql.Boolean()} }
	not := func(e Expr) Expr { return &Call{Op: "NOT", Args: []Expr{e}, T: sql.Boolean()} }
	isNull := func(e Expr) Expr { return &Call{Op: "IS NULL", Args: []Expr{e}, T: sql.Boolean().NotNull()} }
	names := []string{"a", "b"}
	for _, c := range []struct {
		name string
		in   Expr
		want string
	}{
		{"testDisjunctiveFilter", or(cmp("<", a, lit(10)), cmp(">", a, lit(20))), "SEARCH(a, Sarg[(-∞..10), (20..+∞)])"},
		{"testConjunctiveFilter", and(cmp("<", a, lit(10)), cmp(">", b, lit(20))), "((a < 10) AND (b > 20))"},
		{"testOrWithIsNullPredicate", or(cmp("=", a, lit(1)), cmp("=", a, lit(10)), isNull(a)), "(a IS NULL OR SEARCH(a, Sarg[1, 10]))"},
		{"testNotIn", not(or(cmp("=", b, lit(1)), cmp("=", b, lit(3)), cmp("=", b, lit(4)))), "SEARCH(b, Sarg[(-∞..1), (1..3), (3..4), (4..+∞)])"},
		{"literal first", or(cmp(">", lit(10), a), cmp("<=", lit(20), a)), "SEARCH(a, Sarg[(-∞..10), [20..+∞)])"},
		{"between", and(cmp(">=", a, lit(1)), cmp("<=", a, lit(7))), "SEARCH(a, Sarg[[1..7]])"},
		{"overlapping ranges merge", or(cmp("<", a, lit(10)), cmp("<", a, lit(5)), cmp("=", a, lit(20))), "SEARCH(a, Sarg[(-∞..10), 20])"},
		{"one comparison stays", or(cmp("=", a, lit(1)), cmp("=", b, lit(2))), "((a = 1) OR (b = 2))"},
		{"contradiction", and(cmp("=", a, lit(1)), cmp("=", a, lit(2))), "false"},
		{"NOT of a comparison", not(cmp("<", a, lit(1))), "(a >= 1)"},
		// PushCalcPastChangelogNormalizeRuleTest.testWithMultipleFilters: a
		// filter keeps its OR's order (RelBuilder.filter simplifies without
		// predicate elimination, which is what moves IS NULL first).
		{"IS NULL stays in place in a filter's OR", or(cmp("=", a, lit(1)), isNull(b)), "((a = 1) OR b IS NULL)"},
		// ShuffledHashJoinTest.testLeftOuterJoinWithFilter3 (a < 12 and the
		// a < 10 derived from d < 10 AND a = d): RexSimplify's processRange
		// keeps the stricter bound, in the place of the later term.
		{"stricter upper bound replaces", and(cmp("<", a, lit(12)), cmp("<", a, lit(10))), "(a < 10)"},
		{"implied upper bound goes", and(cmp("<", a, lit(10)), cmp("<", a, lit(12))), "(a < 10)"},
		{"bounds of two fields", and(cmp(">", a, lit(1)), cmp("<", b, lit(5)), cmp(">=", a, lit(3))), "((b < 5) AND (a >= 3))"},
		{"point inside a range", and(cmp("<", a, lit(10)), cmp("=", b, lit(2)), cmp("=", a, lit(3))), "((b = 2) AND (a = 3))"},
		{"empty range", and(cmp("<", a, lit(3)), cmp(">", b, lit(2)), cmp(">=", a, lit(3))), "false"},
		{"literal on the left", and(cmp(">", lit(12), a), cmp("<", a, lit(10))), "(a < 10)"},
		// RexSimplify.simplifyOr / simplifyAnd drop the FALSE / TRUE a
		// term became, and a TRUE / FALSE absorbs the whole OR / AND.
		{"an empty range leaves an OR", or(and(cmp(">=", a, lit(4)), cmp("<=", a, lit(2))), cmp("=", b, lit(1))), "(b = 1)"},
		{"an empty range empties an AND", and(and(cmp(">=", a, lit(4)), cmp("<=", a, lit(2))), cmp("=", b, lit(1))), "false"},
		{"only empty ranges", or(and(cmp(">", a, lit(4)), cmp("<", a, lit(2))), and(cmp(">", b, lit(4)), cmp("<", b, lit(2)))), "false"},
		// RexSimplify.simplifyNot pushes a NOT into an AND / OR (De Morgan)
		// and the terms are simplified at the filter's top: NOT (a >= 4 AND
		// a <= 2) is a < 4 OR a > 2, every value of a.
		{"NOT of an empty range", not(and(cmp(">=", a, lit(4)), cmp("<=", a, lit(2)))), "a IS NOT NULL"},
		{"NOT of an OR", not(or(cmp("=", a, lit(1)), cmp("=", b, lit(2)))), "((a <> 1) AND (b <> 2))"},
		{"NOT NOT", not(not(cmp("<", a, lit(1)))), "(a < 1)"},
		{"NOT of IS NULL", not(isNull(a)), "a IS NOT NULL"},
		// SargCollector.needToFix: the terms of one field whose Sarg is
		// every value (RexUtil.simpleSarg).
		{"every value", or(cmp("<", a, lit(1)), cmp(">=", a, lit(1))), "a IS NOT NULL"},
		{"every value or NULL", or(cmp("<", a, lit(1)), cmp(">=", a, lit(1)), isNull(a)), "true"},
		{"every value of one field of two", or(cmp("<", a, lit(1)), cmp(">=", a, lit(1)), cmp("=", b, lit(2))), "((a < 1) OR (a >= 1) OR (b = 2))"},
	} {
		if got := String(SimplifyFilter(c.in), names, FormatInfix); got != c.want {
			t.Errorf("%s: %s\n got %s\nwant %s", c.name, String(c.in, names, FormatInfix), got, c.want)
		}
	}
}

// TestSimplifyBooleanComparison: RexSimplify.simplifyComparison's rule for
// a BOOLEAN compared with TRUE or FALSE, on a nullable f ($0) and a NOT
// NULL g ($1) (WatermarkAssignerChangelogNormalizeTransposeRuleTest
// .testPushdownCalcNotAffectChangelogNormalizeKey: t2.f = true is f).
func TestSimplifyBooleanComparison(t *testing.T) {
	f := &InputRef{Index: 0, T: sql.Boolean()}
	g := &InputRef{Index: 1, T: sql.Boolean().NotNull()}
	tr := &Literal{Value: true, T: sql.Boolean().NotNull()}
	fa := &Literal{Value: false, T: sql.Boolean().NotNull()}
	cmp := func(op string, l, r Expr) Expr { return &Call{Op: op, Args: []Expr{l, r}, T: sql.Boolean()} }
	names := []string{"f", "g"}
	for _, c := range []struct {
		in   Expr
		want string
	}{
		{cmp("=", f, tr), "f"},
		{cmp("=", tr, f), "f"},
		{cmp(">=", f, tr), "f"},
		{cmp("<>", f, tr), "NOT(f)"},
		{cmp("<", f, tr), "NOT(f)"},
		{cmp("=", f, fa), "NOT(f)"},
		{cmp("<>", fa, f), "f"},
		{cmp(">", f, fa), "f"},
		{cmp(">", f, tr), "(f > true)"},
		{cmp(">", g, tr), "false"},
		{cmp("<=", g, tr), "true"},
		{cmp(">=", g, fa), "true"},
		{cmp("<", g, fa), "false"},
		{cmp("=", f, g), "(f = g)"},
	} {
		if got := String(SimplifyFilter(c.in), names, FormatInfix); got != c.want {
			t.Errorf("%s: got %s, want %s", String(c.in, names, FormatInfix), got, c.want)
		}
	}
	// A WHERE b = TRUE fixes no field for the projection above.
	if got := SubstituteConstants([]Expr{f}, cmp("=", f, tr)); String(got[0], names, FormatInfix) != "f" {
		t.Errorf("f = TRUE substituted f: %s", String(got[0], names, FormatInfix))
	}
}

// TestSearchEval checks SEARCH against the comparisons it replaces, for
// every value from -2 to 25 and NULL.
func TestSearchEval(t *testing.T) {
	a := &InputRef{Index: 0, T: sql.Int()}
	lit := func(v int32) *Literal { return &Literal{Value: v, T: sql.Int().NotNull()} }
	cmp := func(op string, v int32) Expr { return &Call{Op: op, Args: []Expr{a, lit(v)}, T: sql.Boolean()} }
	for _, cond := range []Expr{
		&Call{Op: "OR", Args: []Expr{cmp("<", 0), cmp("=", 5), cmp("=", 7), cmp(">=", 20)}, T: sql.Boolean()},
		&Call{Op: "AND", Args: []Expr{cmp("<>", 5), cmp("<>", 7), cmp(">", 0)}, T: sql.Boolean()},
		&Call{Op: "AND", Args: []Expr{cmp(">", 3), cmp("<=", 9)}, T: sql.Boolean()},
	} {
		simple := SimplifyFilter(cond)
		if c, ok := simple.(*Call); !ok || c.Op != "SEARCH" {
			t.Fatalf("%s did not become a SEARCH", String(cond, []string{"a"}, FormatInfix))
		}
		want, _ := Compile(cond)
		got, _ := Compile(simple)
		for v := int32(-2); v <= 25; v++ {
			w, _ := want([]any{v})
			g, _ := got([]any{v})
			if w != g {
				t.Errorf("%s at a = %d: %v, the comparisons say %v", String(simple, []string{"a"}, FormatInfix), v, g, w)
			}
		}
		if g, _ := got([]any{nil}); g != nil {
			t.Errorf("%s at a = NULL: %v, want NULL", String(simple, []string{"a"}, FormatInfix), g)
		}
	}
}

// TestNullTestsFirst: a condition the planner derives and simplifies with
// predicate elimination has its OR's IS NULL terms first
// (JoinTest.testDependentConditionDerivationInnerJoinWithNull).
func TestNullTestsFirst(t *testing.T) {
	a := &InputRef{Index: 0, T: sql.Int()}
	b := &InputRef{Index: 1, T: sql.BigInt()}
	eq := &Call{Op: "=", Args: []Expr{a, &Literal{Value: int32(1), T: sql.Int().NotNull()}}, T: sql.Boolean()}
	isNull := &Call{Op: "IS NULL", Args: []Expr{b}, T: sql.Boolean().NotNull()}
	e := NullTestsFirst(&Call{Op: "OR", Args: []Expr{eq, isNull}, T: sql.Boolean()})
	if got := String(e, []string{"a", "b"}, FormatInfix); got != "(b IS NULL OR (a = 1))" {
		t.Errorf("got %s", got)
	}
}
