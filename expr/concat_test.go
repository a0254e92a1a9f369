package expr

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestConcatCastsAsStrings checks CONCAT, which takes a string argument as
// it is and casts only the others, against casting every argument to
// STRING (castValue) and joining them: random arguments of STRING, CHAR,
// VARCHAR, INT, BIGINT, BOOLEAN and DATE types, NULLs among them (NULL
// makes the result NULL).
func TestConcatCastsAsStrings(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	type arg struct {
		v any
		t sql.DataType
	}
	gen := []func() arg{
		func() arg { return arg{[]string{"", "a", "héllo", "ab "}[r.Intn(4)], sql.String()} },
		func() arg { return arg{[]string{"ab ", "xyz", "ab"}[r.Intn(3)], sql.Char(3)} },
		func() arg { return arg{[]string{"", "q", "0123"}[r.Intn(3)], sql.VarChar(4)} },
		func() arg { return arg{int32(r.Intn(2000) - 1000), sql.Int()} },
		func() arg { return arg{r.Int63() - 1<<62, sql.BigInt()} },
		func() arg { return arg{r.Intn(2) == 0, sql.Boolean()} },
		func() arg { return arg{int32(r.Intn(40000)), sql.Date()} },
	}
	for i := 0; i < 2000; i++ {
		var args []Expr
		var vals []arg
		for j, n := 0, 1+r.Intn(4); j < n; j++ {
			a := gen[r.Intn(len(gen))]()
			if r.Intn(10) == 0 {
				a.v = nil
			}
			vals = append(vals, a)
			args = append(args, &Literal{Value: a.v, T: a.t})
		}
		f, err := Compile(&Call{Op: "CONCAT", Args: args, T: sql.String()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := f(nil)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		var b strings.Builder
		for _, a := range vals {
			if a.v == nil {
				b.Reset()
				want = nil
				break
			}
			s, err := castValue(a.v, a.t, sql.String())
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(s.(string))
			want = b.String()
		}
		if got != want {
			t.Fatalf("CONCAT%v = %#v, want %#v", vals, got, want)
		}
	}
}
