package exec

import (
	"fmt"
	"strings"
)

// Window queries of the differential query test: ROW_NUMBER / RANK /
// DENSE_RANK Top-N and deduplication, and OVER aggregates. They come from
// a generator of their own (diffq_test.go adds them after the seed's other
// queries, which stay the same), over the base tables. What keeps the
// engines' answers one multiset of rows:
//
//   - ROW_NUMBER and ROWS frames order by every column of the table:
//     rows tied on all of them are equal, so whichever of them comes first
//     the rows (and the frame results) are the same multiset. RANK,
//     DENSE_RANK and RANGE frames give peers one result, so any keys do.
//   - Every order key says NULLS FIRST or NULLS LAST (Flink's default for
//     ASC is FIRST, DuckDB's LAST).
//   - A RANGE frame with an offset orders by one INT column (Calcite
//     refuses a compound ORDER BY there).
//   - SUM only of INT / BIGINT columns (no overflow with the tables'
//     values), AVG only of a DOUBLE.
//   - OVER aggregates need a time attribute ORDER BY in streaming, which
//     the tables have not: those queries run in batch mode and DuckDB only
//     (dqQuery.batchOnly). The Top-N and deduplication queries run in all
//     three.
//   - Some OVER queries call over a second window, which batch mode
//     plans as a chain of OverAggregates.
//   - LEAD and LAG order by every column (a tie is two equal rows, so the
//     value read is the same), their default a constant or column of the
//     value's type (Flink's LeadLagAggFunction casts it; DuckDB rounds a
//     DECIMAL default of an INT value, Flink truncates). NTILE under a
//     ROWS frame from UNBOUNDED PRECEDING over every column is the usual
//     row numbering; under the default RANGE frame Flink's NTILEAggFunction
//     gives peers the bucket of the last of them, which DuckDB's NTILE
//     does not: the generator marks that call NTILE(/*peers*/ n) and
//     dqDuckSQL runs it as flink_ntile over COUNT(*) of the window and of
//     the partition.

// windowQuery is a Top-N / deduplication query or an OVER query.
func (g *dqGen) windowQuery() dqQuery {
	if g.chance(45) {
		return g.topNQuery()
	}
	return g.overQuery()
}

// winTable picks a base table and aliases its columns.
func (g *dqGen) winTable() (string, string, dqScope) {
	t := dqTables[g.pick(len(dqTables))]
	a := g.newAlias()
	sc := dqScope{}
	for _, c := range dqTableCols {
		sc.cols = append(sc.cols, dqCol{a + "." + c.name, c.class})
	}
	return t, a, sc
}

func (g *dqGen) nullsOrder() string {
	return []string{"ASC", "DESC"}[g.pick(2)] + " " + []string{"NULLS FIRST", "NULLS LAST"}[g.pick(2)]
}

// orderAll orders by every column (first the ones given), each with an
// explicit direction and null order.
func (g *dqGen) orderAll(sc dqScope, first ...string) string {
	var keys []string
	seen := map[string]bool{}
	for _, c := range first {
		keys = append(keys, c+" "+g.nullsOrder())
		seen[c] = true
	}
	perm := g.r.Perm(len(sc.cols))
	for _, i := range perm {
		if c := sc.cols[i].name; !seen[c] {
			keys = append(keys, c+" "+g.nullsOrder())
		}
	}
	return strings.Join(keys, ", ")
}

// winPartition is a PARTITION BY clause (or none) over the table's k, s or
// f columns.
func (g *dqGen) winPartition(a string) string {
	switch g.pick(5) {
	case 0:
		return ""
	case 1:
		return "PARTITION BY " + a + ".s "
	case 2:
		return "PARTITION BY " + a + ".k, " + a + ".f "
	}
	return "PARTITION BY " + a + ".k "
}

// topNQuery keeps each partition's first rows: ROW_NUMBER over every
// column (rn = 1 is a deduplication), or RANK / DENSE_RANK over some.
func (g *dqGen) topNQuery() dqQuery {
	t, a, sc := g.winTable()
	part := g.winPartition(a)
	fn, order := "ROW_NUMBER()", ""
	switch g.pick(4) {
	case 0:
		fn = []string{"RANK()", "DENSE_RANK()"}[g.pick(2)]
		ks := []string{a + ".a", a + ".s", a + ".b", a + ".d"}
		n := 1 + g.pick(2)
		var keys []string
		for _, i := range g.r.Perm(len(ks))[:n] {
			keys = append(keys, ks[i]+" "+g.nullsOrder())
		}
		order = strings.Join(keys, ", ")
	default:
		order = g.orderAll(sc, a+"."+[]string{"a", "b", "d", "s"}[g.pick(4)])
	}
	cond := []string{"rn = 1", "rn = 1", "rn <= 2", "rn < 3", "rn <= 1", "rn = 2", "rn BETWEEN 2 AND 3"}[g.pick(7)]
	if fn != "ROW_NUMBER()" && strings.HasPrefix(cond, "rn =") {
		cond = "rn <= 2"
	}
	q := dqQuery{classes: []dqClass{dqInt, dqInt, dqStr, dqDec}}
	cols := "k, a, s, d"
	if g.chance(40) {
		// The number itself in the result.
		cols += ", rn"
		q.classes = append(q.classes, dqInt)
	}
	where := ""
	if g.chance(30) {
		where = " WHERE " + g.pred(sc, 1)
	}
	q.sql = fmt.Sprintf("SELECT %s FROM (SELECT %s.k, %s.a, %s.s, %s.d, %s OVER (%sORDER BY %s) AS rn FROM %s AS %s%s) AS %s WHERE %s",
		cols, a, a, a, a, fn, part, order, t, a, where, g.newAlias(), cond)
	return q
}

// overQuery is an OVER window over a base table: aggregates over a ROWS
// or RANGE frame, or ranking functions without a filter.
func (g *dqGen) overQuery() dqQuery {
	t, a, sc := g.winTable()
	part := g.winPartition(a)
	q := dqQuery{batchOnly: true, classes: []dqClass{dqInt, dqInt, dqStr}}
	items := []string{a + ".k", a + ".a", a + ".s"}
	add := func(e string, c dqClass) {
		items = append(items, e)
		q.classes = append(q.classes, c)
	}
	var window string
	switch g.pick(7) {
	case 6:
		g.windowFuncs(add, a, sc, part)
		return g.overSelect(q, items, t, a, sc)
	case 0:
		// Ranking functions, unfiltered (one window: the same keys).
		order := a + ".a " + g.nullsOrder()
		if g.chance(50) {
			order += ", " + a + ".s " + g.nullsOrder()
		}
		window = part + "ORDER BY " + order
		for _, fn := range []string{"RANK()", "DENSE_RANK()"}[:1+g.pick(2)] {
			add(fn+" OVER ("+window+")", dqInt)
		}
		return g.overSelect(q, items, t, a, sc)
	case 1:
		window = part + "ORDER BY " + g.orderAll(sc)
		add("ROW_NUMBER() OVER ("+window+")", dqInt)
		return g.overSelect(q, items, t, a, sc)
	case 2:
		// ROWS frame over a total order.
		lo := []string{"UNBOUNDED PRECEDING", "1 PRECEDING", "2 PRECEDING", "CURRENT ROW", "0 PRECEDING"}[g.pick(5)]
		hi := []string{"CURRENT ROW", "1 FOLLOWING", "UNBOUNDED FOLLOWING", "2 FOLLOWING"}[g.pick(4)]
		if lo == "CURRENT ROW" && hi == "CURRENT ROW" {
			hi = "1 FOLLOWING"
		}
		window = part + "ORDER BY " + g.orderAll(sc) + " ROWS BETWEEN " + lo + " AND " + hi
	case 3:
		// RANGE frame with offsets over one INT key.
		key := a + "." + []string{"a", "k"}[g.pick(2)]
		lo := []string{"UNBOUNDED PRECEDING", "1 PRECEDING", "3 PRECEDING", "CURRENT ROW"}[g.pick(4)]
		hi := []string{"CURRENT ROW", "2 FOLLOWING", "UNBOUNDED FOLLOWING", "0 FOLLOWING"}[g.pick(4)]
		window = part + "ORDER BY " + key + " " + g.nullsOrder() + " RANGE BETWEEN " + lo + " AND " + hi
	case 4:
		// The default frame: RANGE to the current row's peers.
		window = part + "ORDER BY " + a + "." + []string{"a", "s", "d", "b"}[g.pick(4)] + " " + g.nullsOrder()
	default:
		// No ORDER BY: the whole partition.
		window = strings.TrimSpace(part)
	}
	for i := 0; i <= g.pick(3); i++ {
		var e string
		c := dqInt
		switch g.pick(7) {
		case 0:
			e = "COUNT(*)"
		case 1:
			e = "COUNT(" + a + "." + []string{"a", "s", "d", "f"}[g.pick(4)] + ")"
		case 2:
			e = "SUM(" + a + "." + []string{"a", "b", "k"}[g.pick(3)] + ")"
		case 3:
			col := []string{"a", "s", "d", "c"}[g.pick(4)]
			e = []string{"MIN", "MAX"}[g.pick(2)] + "(" + a + "." + col + ")"
			c = map[string]dqClass{"a": dqInt, "s": dqStr, "d": dqDec, "c": dqDbl}[col]
		case 4:
			e, c = "AVG("+a+".c)", dqDbl
		case 5:
			e, c = "SUM("+a+".d)", dqDec
		default:
			e = "MAX(" + a + ".b)"
		}
		add(e+" OVER ("+window+")", c)
	}
	return g.overSelect(q, items, t, a, sc)
}

// windowFuncs is LEAD, LAG, NTILE, CUME_DIST and PERCENT_RANK over one
// window.
func (g *dqGen) windowFuncs(add func(string, dqClass), a string, sc dqScope, part string) {
	switch g.pick(3) {
	case 0:
		window := part + "ORDER BY " + g.orderAll(sc)
		for i := 0; i <= g.pick(3); i++ {
			col := []string{"a", "b", "s", "d", "c", "k"}[g.pick(6)]
			class := map[string]dqClass{"a": dqInt, "b": dqInt, "k": dqInt, "s": dqStr, "d": dqDec, "c": dqDbl}[col]
			args := a + "." + col
			if g.chance(60) {
				args += fmt.Sprintf(", %d", g.pick(4))
				if g.chance(60) {
					def := map[dqClass]string{dqInt: "-1", dqStr: "'zz'", dqDec: "0", dqDbl: "0.5"}[class]
					if g.chance(40) {
						// A column of the value's type.
						def = a + "." + map[dqClass]string{dqInt: "k", dqStr: "s", dqDec: "d", dqDbl: "c"}[class]
					}
					args += ", " + def
				}
			}
			add([]string{"LEAD", "LAG"}[g.pick(2)]+"("+args+") OVER ("+window+")", class)
		}
	case 1:
		n := 1 + g.pick(5)
		if g.chance(50) {
			add(fmt.Sprintf("NTILE(%d) OVER (%sORDER BY %s ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)", n, part, g.orderAll(sc)), dqInt)
		} else {
			add(fmt.Sprintf("NTILE(/*peers*/ %d) OVER (%sORDER BY %s.%s %s)", n, part, a, []string{"a", "s", "k"}[g.pick(3)], g.nullsOrder()), dqInt)
		}
	default:
		order := a + "." + []string{"a", "s", "d", "b"}[g.pick(4)] + " " + g.nullsOrder()
		if g.chance(40) {
			order += ", " + a + ".k " + g.nullsOrder()
		}
		window := part + "ORDER BY " + order
		for _, fn := range []string{"CUME_DIST()", "PERCENT_RANK()"}[g.pick(2):] {
			add(fn+" OVER ("+window+")", dqDbl)
		}
	}
}

func (g *dqGen) overSelect(q dqQuery, items []string, t, a string, sc dqScope) dqQuery {
	if g.chance(30) {
		// A call over another window (batch mode chains the windows).
		switch g.pick(3) {
		case 0:
			items = append(items, "RANK() OVER (PARTITION BY "+a+".s ORDER BY "+a+".a "+g.nullsOrder()+")")
		case 1:
			items = append(items, "COUNT(*) OVER ("+g.winPartition(a)+")")
		default:
			items = append(items, "SUM("+a+".a) OVER (ORDER BY "+a+".b "+g.nullsOrder()+")")
		}
		q.classes = append(q.classes, dqInt)
	}
	for i := range items {
		items[i] = fmt.Sprintf("%s AS c%d", items[i], i)
	}
	where := ""
	if g.chance(25) {
		where = " WHERE " + g.pred(sc, 1)
	}
	q.sql = fmt.Sprintf("SELECT %s FROM %s AS %s%s", strings.Join(items, ", "), t, a, where)
	return q
}
