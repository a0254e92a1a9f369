package ast

import "strings"

// jsonCallString prints a SQL/JSON call back in Flink's syntax: its
// clauses are symbol arguments (TimeUnit) the parser wrote for them
// (sql/parser/json.go). ok is false for a call that is not one.
func jsonCallString(e *FuncCall) (string, bool) {
	if e.Distinct || e.Star {
		return "", false
	}
	if strings.HasPrefix(e.Name, "IS JSON ") || strings.HasPrefix(e.Name, "IS NOT JSON ") {
		if len(e.Args) != 1 {
			return "", false
		}
		return paren(e.Args[0], 5) + " " + e.Name, true
	}
	switch e.Name {
	case "JSON_VALUE", "JSON_QUERY", "JSON_EXISTS", "JSON_OBJECT", "JSON_ARRAY", "JSON_OBJECTAGG", "JSON_ARRAYAGG":
	default:
		return "", false
	}
	var b strings.Builder
	b.WriteString(e.Name + "(")
	pair := e.Name == "JSON_OBJECT" || e.Name == "JSON_OBJECTAGG"
	n := 0 // plain arguments written
	for i := 0; i < len(e.Args); i++ {
		a := e.Args[i]
		u, isSym := a.(*TimeUnit)
		if !isSym {
			switch {
			case n == 0:
			case pair && n%2 == 1:
				b.WriteString(" VALUE ")
			default:
				b.WriteString(", ")
			}
			b.WriteString(exprString(a))
			n++
			continue
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		switch u.Unit {
		case "RETURNING":
			if i+1 < len(e.Args) {
				if c, ok := e.Args[i+1].(*Cast); ok {
					b.WriteString("RETURNING " + c.Type.String())
					i++
					continue
				}
			}
			b.WriteString("RETURNING")
		case "DEFAULT":
			b.WriteString("DEFAULT")
			if i+1 < len(e.Args) {
				b.WriteString(" " + exprString(e.Args[i+1]))
				i++
			}
		case "WITHOUT_ARRAY", "WITH_CONDITIONAL_ARRAY", "WITH_UNCONDITIONAL_ARRAY":
			b.WriteString(strings.ReplaceAll(u.Unit, "_", " ") + " WRAPPER")
		default:
			b.WriteString(strings.ReplaceAll(u.Unit, "_", " "))
		}
		n = max(n, 1)
	}
	b.WriteByte(')')
	return b.String(), true
}
