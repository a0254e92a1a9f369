package operators

import (
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// Union passes the rows of all its inputs through unchanged (UNION ALL:
// connect every input to one Union vertex).
func Union() runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return union{}, nil }
}

type union struct{ runtime.Base }

func (union) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Adopt(rows)
	return nil
}

// NotNullEnforcer is the check Flink's sink runs for NOT NULL columns
// (table.exec.sink.not-null-enforcer): with Drop false a NULL in one of
// Columns fails the job with Flink's message; with Drop true the row is
// dropped silently.
func NotNullEnforcer(columns []int, names []string, drop bool) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &notNull{cols: columns, names: names, drop: drop}, nil
	}
}

type notNull struct {
	runtime.Base
	cols  []int
	names []string
	drop  bool
}

func (n *notNull) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	w := 0
	for _, r := range rows {
		ok := true
		for i, c := range n.cols {
			if r.Values[c] != nil {
				continue
			}
			if !n.drop {
				name := ""
				if i < len(n.names) {
					name = n.names[i]
				}
				return sql.Errorf(sql.TableException,
					"Column '%s' is NOT NULL, however, a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.", name)
			}
			ok = false
			break
		}
		if ok {
			rows[w] = r
			w++
		}
	}
	if w > 0 {
		out.Adopt(rows[:w:w])
	}
	return nil
}
