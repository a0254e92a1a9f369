package expr

import (
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSimplifyCoalesce: RexSimplify.simplifyCoalesce's one-operand result,
// only where the kept operand has the call's type.
func TestSimplifyCoalesce(t *testing.T) {
	ts := sql.Timestamp(3)
	notNull := &InputRef{Index: 0, T: ts.NotNull()}
	nullable := &InputRef{Index: 1, T: ts.WithNullable(true)}
	null := &Literal{T: ts.WithNullable(true)}
	intNotNull := &InputRef{Index: 2, T: sql.Int().NotNull()}
	bigNullable := &InputRef{Index: 3, T: sql.BigInt().WithNullable(true)}
	co := func(T sql.DataType, args ...Expr) *Call { return &Call{Op: "COALESCE", Args: args, T: T} }
	for _, tc := range []struct {
		in   Expr
		want string
	}{
		{co(ts.NotNull(), notNull, nullable), "$0"},
		{co(ts.NotNull(), null, notNull, nullable), "$0"},
		{co(ts.WithNullable(true), nullable, notNull), "COALESCE($1, $0)"},
		// INT beside BIGINT: the call is BIGINT, the operand would need a cast.
		{co(sql.BigInt().NotNull(), intNotNull, bigNullable), "COALESCE($2, $3)"},
		// Inside another call.
		{&Call{Op: "IS NULL", Args: []Expr{co(ts.NotNull(), notNull, nullable)}, T: sql.Boolean().NotNull()}, "IS NULL($0)"},
	} {
		if got := String(SimplifyCoalesce(tc.in), nil, FormatAST); got != tc.want {
			t.Errorf("SimplifyCoalesce(%s) = %s, want %s", String(tc.in, nil, FormatAST), got, tc.want)
		}
	}
}
