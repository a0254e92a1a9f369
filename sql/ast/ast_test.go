package ast

import (
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

func TestExprString(t *testing.T) {
	amount := &ColumnRef{Name: "amount"}
	two := &Literal{Kind: LitInt, Raw: "2", Value: int32(2)}
	cases := []struct {
		e    Expr
		want string
	}{
		{&FuncCall{Name: "SUM", Args: []Expr{amount}}, "SUM(amount)"},
		{&FuncCall{Name: "COUNT", Star: true}, "COUNT(*)"},
		{&Binary{Op: OpMul, L: &Binary{Op: OpAdd, L: amount, R: two}, R: two}, "(amount + 2) * 2"},
		{&Binary{Op: OpSub, L: amount, R: &Binary{Op: OpSub, L: two, R: two}}, "amount - (2 - 2)"},
		{&Cast{X: amount, Type: sql.String(), Try: true}, "TRY_CAST(amount AS STRING)"},
		{&Unary{Op: OpNot, X: &IsNull{X: &ColumnRef{Qualifier: "o", Name: "order id"}}}, "NOT o.`order id` IS NULL"},
		{&Binary{Op: OpConcat, L: &Literal{Kind: LitString, Value: "a'b"}, R: amount}, "'a''b' || amount"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestDump(t *testing.T) {
	s := &Query{StmtBase: StmtBase{At: Pos{1, 1}, Text: "VALUES (1)"}, Body: &Values{
		Node: Node{At: Pos{1, 1}},
		Rows: [][]Expr{{&Literal{Node: Node{At: Pos{1, 9}}, Kind: LitInt, Raw: "1", Value: int32(1), Type: sql.Int().NotNull()}}},
	}}
	want := `Query @1:1
  Body: Values @1:1
    Rows:
      - list
        - Literal Int 1 int32(1) INT NOT NULL @1:9
`
	if got := Dump(s); got != want {
		t.Errorf("Dump:\n%s\nwant:\n%s", got, want)
	}
	if got := (ObjectName{Catalog: "c", Database: "my db", Table: "t"}).String(); got != "c.`my db`.t" {
		t.Errorf("ObjectName.String = %q", got)
	}
}
