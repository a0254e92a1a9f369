package operators

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/sql"
)

// runWindowJoin runs a "window-join" case of testdata/windowjoin: each
// side's rows carry their window_end (end=(left,right), milliseconds);
// type= is inner, left, right, full, semi or anti; lkeys= and rkeys= the
// equi-join keys, the condition their equality. The case is replayed with
// a snapshot and restore after every line, on both state backends, and
// must not change.
func runWindowJoin(t *testing.T, td *datadriven.TestData) string {
	lt, rt := types(t, td, "left"), types(t, td, "right")
	kind, _ := td.Arg("type")
	jt := kind.Vals[0]
	ends := ints(t, td, "end")
	lk, rk := ints(t, td, "lkeys"), ints(t, td, "rkeys")
	spec := WindowJoinSpec{LeftEnd: ends[0], RightEnd: ends[1], Semi: jt == "semi", Anti: jt == "anti",
		Left:  JoinSideSpec{Keys: lk, Arity: len(lt), Outer: jt == "left" || jt == "full"},
		Right: JoinSideSpec{Keys: rk, Arity: len(rt), Outer: jt == "right" || jt == "full"}}
	spec.Cond = func(v []any) (any, error) {
		for i := range lk {
			a, b := v[lk[i]], v[len(lt)+rk[i]]
			if a == nil || b == nil {
				return nil, nil
			}
			if c, err := Compare(a, b); err != nil || c != 0 {
				return false, err
			}
		}
		return true, nil
	}
	outT := append([]sql.DataType(nil), lt...)
	outT[ends[0]] = sql.Timestamp(3)
	if !spec.Semi && !spec.Anti {
		outT = append(outT, rt...)
		outT[len(lt)+ends[1]] = sql.Timestamp(3)
	}
	return replayTimed(t, td, WindowJoin(spec), ends, [][]sql.DataType{lt, rt}, outT, false)
}
