package plan

import (
	"reflect"
	"testing"
)

// java.util.HashMap iterates by bucket of the spread String.hashCode, not
// by insertion: {b, a} prints as {a=.., b=..}; "Aa" and "BB" collide and
// keep insertion order.
func TestJavaHashMapOrder(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"b", "a"}, []string{"a", "b"}},
		{[]string{"BB", "Aa"}, []string{"BB", "Aa"}},
		{[]string{"Aa", "BB"}, []string{"Aa", "BB"}},
		{[]string{"K2", "K1"}, []string{"K1", "K2"}},
	} {
		if got := javaHashMapOrder(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %v, want %v", c.in, got, c.want)
		}
	}
}

func TestJavaDouble(t *testing.T) {
	for in, want := range map[float64]string{1e8: "1.0E8", 3.6e9: "3.6E9", 0: "0.0", 2.5e-5: "2.5E-5"} {
		if got := javaDouble(in); got != want {
			t.Errorf("%v: %s, want %s", in, got, want)
		}
	}
}
