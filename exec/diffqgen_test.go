package exec

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// The generator of the differential query test (diffq_test.go): seeded,
// deterministic tables and queries over a grammar whose meaning Flink 1.20
// and DuckDB agree on. What is left out, and why:
//
//   - "/" of INTs: Flink's DIVIDE on two INTs is an INT (truncated;
//     FlinkSqlOperatorTable.DIVIDE with ReturnTypes.QUOTIENT_NULLABLE, and
//     division by zero fails the job), DuckDB's "/" gives a DOUBLE. MOD
//     only by a literal that is not 0 (Java's %, the dividend's sign, as
//     DuckDB's).
//   - Overflow: Flink's INT / BIGINT arithmetic wraps (Java int / long, in
//     the generated code of ScalarOperatorGens.generateArithmeticOperator),
//     DuckDB's fails; values stay small (|INT| < 1000, |BIGINT| < 10^10)
//     and expressions shallow, so no sum or product overflows.
//   - AVG of an INT, BIGINT or DECIMAL: Flink's AvgAggFunction keeps the
//     argument's type (INT in, INT out, truncated; DECIMAL with
//     LogicalTypeMerging.findAvgAggType's scale), DuckDB's is a DOUBLE;
//     AVG only ever gets a DOUBLE (a DOUBLE column or CAST(... AS DOUBLE)).
//   - DOUBLE values are multiples of 1/4, so sums are exact in any order;
//     DOUBLE and DECIMAL are compared by value to 12 significant digits,
//     since the engines' DECIMAL result scales differ
//     (LogicalTypeMerging.findSumAggType / findAdditionDecimalType against
//     DuckDB's rules), not the values.
//   - String literals: Calcite types 'ab' as CHAR(2), and CASE /
//     COALESCE / set operations over CHARs of different lengths are a
//     VARCHAR, not padded (FlinkTypeSystem's
//     shouldConvertRaggedUnionTypesToVarying), as DuckDB, which has
//     VARCHAR only, has them; literals are CHAR(n) or CAST('ab' AS
//     STRING), never a CAST to CHAR(n) (which pads). Strings beyond ASCII
//     are ones whose UTF-8 bytes order them as in both engines
//     (StringData compares bytes, as DuckDB does) and whose case mappings
//     Java and DuckDB share (not 'ß').
//   - Functions whose DuckDB namesakes mean something else run in DuckDB
//     as macros with Flink's meaning (dqDuckMacros in diffq_test.go,
//     which cite Flink's rule): SUBSTR from a start of 0 or a negative
//     one, CONCAT of a NULL, DATE_FORMAT, DAYOFWEEK, the date and time
//     parts of a TIMESTAMP before 1970 (Java's / and %) and a CAST of a
//     TIMESTAMP to a DATE (marked /*ts*/), TIMESTAMPDIFF (date_sub), and
//     the variance family (Flink's reduction to SUM and COUNT, in the
//     argument's type: integer division for an INT, and the DOUBLE
//     formula's own rounding where DuckDB's var_pop is exact).
//   - Left out where the engines differ by design: REPLACE with an empty
//     search string (Java's String.replace puts the replacement between
//     characters), LPAD / RPAD with an empty pad (NULL in Flink), CAST of
//     a TIMESTAMP expression to a STRING (Flink prints the type's
//     precision, .000, and a literal's is its own; a column's cast is
//     mapped),
//     CAST of a STRING with blanks to a number (Flink's
//     BinaryStringDataUtil.toInt does not trim, DuckDB does), CEIL of a
//     DOUBLE (-0.0), DOUBLE division by anything but 2, 4 or 0.5 (-0.0,
//     inexact quotients), DECIMAL division (Flink's scale,
//     LogicalTypeMerging.findDivisionDecimalType; DuckDB's is a DOUBLE),
//     a DATE plus a time interval (Flink keeps a DATE, DuckDB a
//     TIMESTAMP), TIMESTAMPDIFF in seconds (an INTEGER in Flink, which
//     wraps past 68 years), EXTRACT(DOW) (Sunday is 1 in Flink, 0 in
//     DuckDB; DAYOFWEEK is mapped), CAST of a DECIMAL or DOUBLE to an INT
//     (Flink truncates, DuckDB rounds).
//   - DuckDB's DATE + INTERVAL is a TIMESTAMP at midnight: the DATE class
//     compares it as the date (dqCanon).
//   - No untyped NULL but a CASE's THEN after the first; a CAST to
//     STRING of an INT or DECIMAL expression (Flink keeps the scale,
//     DecimalToStringCastRule, as DuckDB does, and every DECIMAL
//     expression here has the scale of 2), of a DOUBLE or DATE column or
//     literal, of a TIMESTAMP(3) column (mapped, see above).
//   - ORDER BY only with LIMIT (a streaming ORDER BY must start with a
//     time attribute), over every output column with explicit NULLS
//     FIRST / LAST (Flink's default null order for ASC is FIRST, DuckDB's
//     LAST), so the rows a LIMIT keeps are the same multiset in every
//     engine.
//   - A global aggregate (no GROUP BY) over an input without rows yields
//     one row in batch and none in streaming (Flink's GroupAggFunction
//     emits on input only; testdata/session/agg_empty), also under a
//     scalar subquery: the streaming oracle is skipped for queries with a
//     global aggregate (dqQuery.global), and for an IN subquery under OR
//     (see subPred's caller).
//   - Scalar subqueries are aggregates without GROUP BY, so they return one
//     row (Flink fails a job whose scalar subquery returns more,
//     SingleValueAggFunction).

// dqClass is a value class: the generator keeps expressions well typed by
// class, and rows are compared by class.
type dqClass int

const (
	dqInt  dqClass = iota // INT or BIGINT
	dqDbl                 // DOUBLE
	dqDec                 // DECIMAL
	dqStr                 // STRING
	dqBool                // BOOLEAN
	dqDate                // DATE
	dqTs                  // TIMESTAMP(3)
)

// dqClasses is every class, for a COUNT's or an IS NULL's argument.
const dqClasses = 7

type dqCol struct {
	name  string
	class dqClass
}

// dqTableCols are the columns of every generated table.
var dqTableCols = []struct {
	name, flink, duck string
	class             dqClass
}{
	{"k", "INT", "INTEGER", dqInt},
	{"a", "INT", "INTEGER", dqInt},
	{"b", "BIGINT", "BIGINT", dqInt},
	{"c", "DOUBLE", "DOUBLE", dqDbl},
	{"d", "DECIMAL(10, 2)", "DECIMAL(10, 2)", dqDec},
	{"s", "STRING", "VARCHAR", dqStr},
	{"f", "BOOLEAN", "BOOLEAN", dqBool},
	{"dt", "DATE", "DATE", dqDate},
	{"ts", "TIMESTAMP(3)", "TIMESTAMP", dqTs},
}

// dqStrVals are the strings of the tables' s column and of the string
// literals: blanks at either end (TRIM), LIKE's wildcards as characters
// (ESCAPE), a regular expression's metacharacters, cases that UPPER /
// LOWER fold together, and characters beyond ASCII whose case mappings
// Java and DuckDB agree on (not 'ß': Java's upper case is "SS").
var dqStrVals = []string{"", "a", "b", "ab", "B", "ba", "abc", " ab", "ab ", "a_c", "a%", "Abc", "abcab", "b b", "a.c", "a*", "é", "Éa", "日本"}

// dqDateVals and dqTsVals are the DATE and TIMESTAMP(3) values: month and
// year ends, a leap day, a fraction of a second, the turn of a century and
// of a millennium, and before the epoch (negative days and milliseconds).
var dqDateVals = []string{"2024-01-31", "2024-02-29", "2023-12-31", "2024-03-01", "1999-12-31", "2024-02-28", "2000-01-01", "1969-12-31", "1900-03-01"}
var dqTsVals = []string{"2024-01-31 10:00:00", "2024-01-31 23:59:59.999", "2024-02-29 00:00:00.500", "2023-12-31 12:30:45.123", "2024-03-01 00:00:00",
	"1999-12-31 23:00:00", "1969-12-31 23:59:59.999", "1970-01-01 00:00:00", "1900-02-28 12:00:00.001"}

var dqTables = []string{"t1", "t2", "t3"}

// dqData is the generated tables' rows: per table, per row, the values as
// SQL literals ("NULL" for null), in dqTableCols order.
type dqData map[string][][]string

type dqGen struct {
	r     *rand.Rand
	alias int
}

func (g *dqGen) pick(n int) int    { return g.r.Intn(n) }
func (g *dqGen) chance(p int) bool { return g.r.Intn(100) < p }

func (g *dqGen) data() dqData {
	d := dqData{}
	for ti, t := range dqTables {
		n := 2 + g.pick(11)
		if ti == 2 && g.chance(15) {
			n = 0
		}
		var rows [][]string
		for i := 0; i < n; i++ {
			if i > 0 && g.chance(20) {
				// A duplicate row.
				rows = append(rows, rows[g.pick(len(rows))])
				continue
			}
			row := make([]string, len(dqTableCols))
			for ci, c := range dqTableCols {
				if g.chance(15) {
					row[ci] = "NULL"
					continue
				}
				switch c.name {
				case "k":
					row[ci] = strconv.Itoa(g.pick(6) - 1)
				case "a":
					row[ci] = strconv.Itoa(g.pick(21) - 10)
				case "b":
					vals := []string{"0", "1", "-1", "7", "3000000000", "-2500000000", "12"}
					row[ci] = vals[g.pick(len(vals))]
				case "c":
					row[ci] = strconv.FormatFloat(float64(g.pick(41)-20)/4, 'f', -1, 64)
				case "d":
					row[ci] = fmt.Sprintf("%.2f", float64(g.pick(2001)-1000)/100)
				case "s":
					row[ci] = "'" + dqStrVals[g.pick(len(dqStrVals))] + "'"
				case "dt":
					row[ci] = "DATE '" + dqDateVals[g.pick(len(dqDateVals))] + "'"
				case "ts":
					row[ci] = "TIMESTAMP '" + dqTsVals[g.pick(len(dqTsVals))] + "'"
				case "f":
					row[ci] = []string{"TRUE", "FALSE"}[g.pick(2)]
				}
			}
			rows = append(rows, row)
		}
		d[t] = rows
	}
	return d
}

// dqQuery is one generated query: its text, its output columns' classes,
// and whether it holds a global aggregate (see the note above).
type dqQuery struct {
	sql     string
	classes []dqClass
	global  bool
	// batchOnly: streaming cannot plan the query (an OVER aggregate
	// without a time attribute, diffqwin_test.go): batch and DuckDB only.
	batchOnly bool
}

type dqScope struct {
	cols []dqCol
}

func (sc dqScope) of(c dqClass) []dqCol {
	var out []dqCol
	for _, col := range sc.cols {
		if col.class == c {
			out = append(out, col)
		}
	}
	return out
}

func (g *dqGen) newAlias() string {
	g.alias++
	return "x" + strconv.Itoa(g.alias)
}

func (g *dqGen) intLit() string {
	v := g.pick(9) - 3
	if v < 0 {
		return "(" + strconv.Itoa(v) + ")"
	}
	return strconv.Itoa(v)
}

func (g *dqGen) lit(c dqClass) string {
	switch c {
	case dqInt:
		return g.intLit()
	case dqDbl:
		return "CAST(" + strconv.FormatFloat(float64(g.pick(21)-10)/4, 'f', -1, 64) + " AS DOUBLE)"
	case dqDec:
		v := fmt.Sprintf("%.2f", float64(g.pick(801)-400)/100)
		if strings.HasPrefix(v, "-") {
			return "(" + v + ")"
		}
		return v
	case dqStr:
		switch g.pick(3) {
		case 0:
			return "'" + []string{"a", "b", "B", "c"}[g.pick(4)] + "'"
		case 1:
			// A CHAR(n) (see the note above on ragged CHARs).
			return "'" + dqStrVals[g.pick(len(dqStrVals))] + "'"
		}
		return "CAST('" + dqStrVals[g.pick(len(dqStrVals))] + "' AS STRING)"
	case dqDate:
		return "DATE '" + dqDateVals[g.pick(len(dqDateVals))] + "'"
	case dqTs:
		return "TIMESTAMP '" + dqTsVals[g.pick(len(dqTsVals))] + "'"
	default:
		return []string{"TRUE", "FALSE"}[g.pick(2)]
	}
}

var dqTypeName = map[dqClass]string{dqInt: "INT", dqDbl: "DOUBLE", dqDec: "DECIMAL(10, 2)", dqStr: "STRING", dqBool: "BOOLEAN", dqDate: "DATE", dqTs: "TIMESTAMP(3)"}

func (g *dqGen) leaf(c dqClass, sc dqScope) string {
	cols := sc.of(c)
	if len(cols) > 0 && !g.chance(20) {
		return cols[g.pick(len(cols))].name
	}
	if g.chance(5) {
		return "CAST(NULL AS " + dqTypeName[c] + ")"
	}
	return g.lit(c)
}

// expr is a scalar expression of class c over the scope's columns.
func (g *dqGen) expr(c dqClass, sc dqScope, depth int) string {
	if depth <= 0 || g.chance(30) {
		if c == dqBool && (len(sc.of(dqBool)) == 0 || g.chance(70)) {
			return g.pred(sc, depth)
		}
		return g.leaf(c, sc)
	}
	// Half CASE and COALESCE / NULLIF, half the class's own forms.
	switch g.pick(6) {
	case 3:
		if g.chance(50) {
			// The simple CASE form.
			var b strings.Builder
			fmt.Fprintf(&b, "CASE %s", g.expr(dqInt, sc, depth-1))
			for i := 0; i <= g.pick(2); i++ {
				fmt.Fprintf(&b, " WHEN %s THEN %s", g.intLit(), g.expr(c, sc, depth-1))
			}
			if g.chance(60) {
				fmt.Fprintf(&b, " ELSE %s", g.expr(c, sc, depth-1))
			}
			b.WriteString(" END")
			return b.String()
		}
		fallthrough
	case 0:
		var b strings.Builder
		b.WriteString("CASE")
		for i := 0; i <= g.pick(2); i++ {
			then := g.expr(c, sc, depth-1)
			if i > 0 && g.chance(15) {
				// An untyped NULL branch, typed by the first.
				then = "NULL"
			}
			fmt.Fprintf(&b, " WHEN %s THEN %s", g.pred(sc, depth-1), then)
		}
		if g.chance(75) {
			fmt.Fprintf(&b, " ELSE %s", g.expr(c, sc, depth-1))
		}
		b.WriteString(" END")
		return b.String()
	case 1:
		if g.chance(20) && c != dqBool {
			return fmt.Sprintf("NULLIF(%s, %s)", g.expr(c, sc, depth-1), g.leaf(c, sc))
		}
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(c, sc, depth-1), g.expr(c, sc, depth-1))
	}
	switch c {
	case dqInt:
		if g.chance(30) {
			return g.intOf(sc, depth)
		}
		switch g.pick(5) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(c, sc, depth-1), g.expr(c, sc, depth-1))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(c, sc, depth-1), g.expr(c, sc, depth-1))
		case 2:
			return fmt.Sprintf("(%s * %s)", g.expr(c, sc, depth-1), g.intLit())
		case 3:
			return fmt.Sprintf("(-%s)", g.expr(c, sc, depth-1))
		default:
			return fmt.Sprintf("ABS(%s)", g.expr(c, sc, depth-1))
		}
	case dqDbl:
		switch g.pick(7) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(c, sc, depth-1), g.expr(c, sc, depth-1))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(c, sc, depth-1), g.expr(dqInt, sc, depth-1))
		case 2:
			// A positive factor: 0.0 * -1 and -1.5 * 0 are -0.0, which
			// Flink's DISTINCT, GROUP BY and set operations keep apart
			// from 0.0 (BinaryRowData compares a DOUBLE's bits) and DuckDB
			// does not.
			return fmt.Sprintf("(%s * %d)", g.expr(c, sc, depth-1), 1+g.pick(3))
		case 3:
			// A positive power of two as the divisor: exact, and no -0.0.
			return fmt.Sprintf("(%s / CAST(%s AS DOUBLE))", g.expr(c, sc, depth-1), []string{"2", "4", "0.5"}[g.pick(3)])
		case 4:
			// No CEIL: CEIL(-0.25) is -0.0 (see the factor above).
			return fmt.Sprintf("%s(%s)", []string{"ABS", "FLOOR", "SIGN"}[g.pick(3)], g.expr(c, sc, depth-1))
		default:
			return fmt.Sprintf("CAST(%s AS DOUBLE)", g.expr(dqInt, sc, depth-1))
		}
	case dqDec:
		switch g.pick(6) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(c, sc, depth-1), g.expr(c, sc, depth-1))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(c, sc, depth-1), g.expr(dqInt, sc, depth-1))
		case 2:
			if g.chance(25) {
				return fmt.Sprintf("ABS(%s)", g.expr(c, sc, depth-1))
			}
			// Cast back to the scale of 2: FLOOR / CEIL of a DECIMAL(p, s)
			// is a DECIMAL(p, 0) in both, and DuckDB's union of a
			// DECIMAL(38, 0) (its SUM) and a DECIMAL(10, 2) is a
			// DECIMAL(38, 0) that rounds the other side's values, where
			// Calcite's leastRestrictive keeps the scale (DECIMAL(38, 2));
			// DuckDB's SIGN is a TINYINT.
			return fmt.Sprintf("CAST(%s(%s) AS DECIMAL(10, 2))", []string{"FLOOR", "CEIL", "SIGN"}[g.pick(3)], g.expr(c, sc, depth-1))
		case 3:
			if g.chance(50) {
				// Rounds half up in both (DecimalDataUtils.castFrom). A
				// value too large (a BIGINT's 3000000000) is NULL in
				// Flink and fails in DuckDB: "failed in DuckDB only".
				return fmt.Sprintf("CAST(%s AS DECIMAL(10, 2))", g.expr(dqDbl, sc, depth-1))
			}
			return fmt.Sprintf("CAST(CAST(%s AS STRING) AS DECIMAL(10, 2))", g.leaf(dqDec, sc))
		default:
			return fmt.Sprintf("(%s * %s)", g.expr(c, sc, depth-1), g.intLit())
		}
	case dqStr:
		return g.strOf(sc, depth)
	case dqDate:
		switch g.pick(4) {
		case 0:
			// The comment marks it for dqDuckSQL: TimestampToDateCastRule
			// divides the epoch milliseconds as Java does (a time before
			// 1970 moves a day forward), DuckDB floors.
			return fmt.Sprintf("CAST(/*ts*/ %s AS DATE)", g.expr(dqTs, sc, depth-1))
		case 1:
			return fmt.Sprintf("CAST(CAST(%s AS STRING) AS DATE)", g.leaf(dqDate, sc))
		default:
			return fmt.Sprintf("(%s %s %s)", g.expr(c, sc, depth-1), []string{"+", "-"}[g.pick(2)], g.interval([]string{"DAY", "MONTH", "YEAR"}))
		}
	case dqTs:
		switch g.pick(4) {
		case 0:
			return fmt.Sprintf("CAST(%s AS TIMESTAMP(3))", g.expr(dqDate, sc, depth-1))
		case 1:
			return fmt.Sprintf("CAST(CAST(%s AS STRING) AS TIMESTAMP(3))", g.leaf(dqTs, sc))
		default:
			return fmt.Sprintf("(%s %s %s)", g.expr(c, sc, depth-1), []string{"+", "-"}[g.pick(2)], g.interval([]string{"SECOND", "MINUTE", "HOUR", "DAY", "MONTH"}))
		}
	default:
		return g.pred(sc, depth)
	}
}

// interval is an INTERVAL literal of one of the units.
func (g *dqGen) interval(units []string) string {
	return fmt.Sprintf("INTERVAL '%d' %s", 1+g.pick(13), units[g.pick(len(units))])
}

// intOf is an INT of another class's value.
func (g *dqGen) intOf(sc dqScope, depth int) string {
	switch g.pick(9) {
	case 6:
		return fmt.Sprintf("MOD(%s, %s)", g.expr(dqInt, sc, depth-1), []string{"2", "3", "(-3)", "7"}[g.pick(4)])
	case 7:
		return fmt.Sprintf("EXTRACT(%s FROM %s)", []string{"ISODOW", "ISOYEAR"}[g.pick(2)], g.expr(dqDate, sc, depth-1))
	case 8:
		// DuckDB's date_sub counts whole units as Flink's TIMESTAMPDIFF
		// does (Calcite's TimestampDiffConvertlet divides the difference
		// of the epoch milliseconds, towards zero); dqDuckSQL renames it.
		// Not SECOND: the convertlet's result is an INTEGER, which wraps
		// as Java's int past 68 years of seconds, where DuckDB's is a
		// BIGINT.
		return fmt.Sprintf("TIMESTAMPDIFF(%s, %s, %s)", []string{"MINUTE", "HOUR", "DAY"}[g.pick(3)], g.expr(dqTs, sc, depth-1), g.expr(dqTs, sc, depth-1))
	case 0:
		return fmt.Sprintf("CHAR_LENGTH(%s)", g.expr(dqStr, sc, depth-1))
	case 1:
		return fmt.Sprintf("POSITION(%s IN %s)", g.lit(dqStr), g.expr(dqStr, sc, depth-1))
	case 2:
		return fmt.Sprintf("EXTRACT(%s FROM %s)", []string{"YEAR", "MONTH", "DAY", "QUARTER", "DOY", "WEEK", "DECADE", "CENTURY", "MILLENNIUM"}[g.pick(9)], g.expr(dqDate, sc, depth-1))
	case 3:
		// A TIMESTAMP's date and time parts are Flink's ExtractCallGen's
		// (Java's / and % over the epoch milliseconds: a time before 1970
		// reads negative hours, and its day is the one after), DAYOFWEEK
		// is 1 on a Sunday: DuckDB runs these as the macros of
		// dqDuckMacros.
		return fmt.Sprintf("%s(%s)", []string{"YEAR", "MONTH", "DAYOFMONTH", "HOUR", "MINUTE", "SECOND", "QUARTER", "WEEK", "DAYOFYEAR", "DAYOFWEEK"}[g.pick(10)], g.expr(dqTs, sc, depth-1))
	case 4:
		// A round trip through the INT's text.
		return fmt.Sprintf("CAST(CAST(%s AS STRING) AS BIGINT)", g.expr(dqInt, sc, depth-1))
	default:
		return fmt.Sprintf("SIGN(%s)", g.expr(dqInt, sc, depth-1))
	}
}

// strOf is a STRING expression.
func (g *dqGen) strOf(sc dqScope, depth int) string {
	sub := func() string { return g.expr(dqStr, sc, depth-1) }
	switch g.pick(16) {
	case 14:
		return fmt.Sprintf("REVERSE(%s)", sub())
	case 15:
		return fmt.Sprintf("REPEAT(%s, %d)", sub(), g.pick(4))
	case 0:
		return fmt.Sprintf("UPPER(%s)", sub())
	case 1:
		return fmt.Sprintf("LOWER(%s)", sub())
	case 2:
		// SUBSTRING from a positive start, where the SQL standard's
		// meaning and Flink's agree.
		if g.chance(50) {
			return fmt.Sprintf("SUBSTRING(%s FROM %d FOR %d)", sub(), 1+g.pick(4), g.pick(4))
		}
		return fmt.Sprintf("SUBSTRING(%s FROM %d)", sub(), 1+g.pick(4))
	case 3:
		// SUBSTR from any start: DuckDB runs it as flink_substr
		// (dqDuckMacros), Flink's BinaryStringDataUtil.substringSQL.
		return fmt.Sprintf("SUBSTR(%s, %d, %d)", sub(), g.pick(9)-4, g.pick(4))
	case 4:
		return fmt.Sprintf("%s(%s)", []string{"TRIM", "LTRIM", "RTRIM"}[g.pick(3)], sub())
	case 5:
		return fmt.Sprintf("TRIM(%s %s FROM %s)", []string{"BOTH", "LEADING", "TRAILING"}[g.pick(3)], g.lit(dqStr), sub())
	case 6:
		return fmt.Sprintf("CONCAT(%s, %s)", sub(), sub())
	case 7:
		// A search string that is not empty: Flink's REPLACE is Java's
		// String.replace, which puts the replacement between every two
		// characters for an empty one, DuckDB's replaces nothing.
		return fmt.Sprintf("REPLACE(%s, %s, %s)", sub(), []string{"'a'", "'b'", "CAST('ab' AS STRING)", "' '"}[g.pick(4)], g.lit(dqStr))
	case 8:
		// A pad that is not empty (Flink's is NULL with one,
		// SqlFunctionUtils.lpad).
		return fmt.Sprintf("%s(%s, %d, %s)", []string{"LPAD", "RPAD"}[g.pick(2)], sub(), g.pick(6), []string{"'x'", "CAST('xy' AS STRING)"}[g.pick(2)])
	case 9:
		if cols := sc.of(dqTs); len(cols) > 0 && g.chance(20) {
			// A TIMESTAMP(3) column's text has three digits of fraction
			// (TimestampToStringCastRule), where DuckDB's drops zeros:
			// dqDuckSQL makes it a strftime.
			return fmt.Sprintf("CAST(/*ts*/ %s AS STRING)", cols[g.pick(len(cols))].name)
		}
		if g.chance(40) {
			// An INT's or a DECIMAL's text: every DECIMAL expression
			// keeps the scale of 2 in both engines.
			return fmt.Sprintf("CAST(%s AS STRING)", g.expr([]dqClass{dqInt, dqDec}[g.pick(2)], sc, depth-1))
		}
		return fmt.Sprintf("CAST(%s AS STRING)", g.leaf([]dqClass{dqInt, dqDec, dqDate, dqDbl}[g.pick(4)], sc))
	case 10:
		// DuckDB runs it as flink_date_format (dqDuckMacros).
		return fmt.Sprintf("DATE_FORMAT(%s, '%s')", g.expr(dqTs, sc, depth-1), []string{"yyyy-MM-dd HH:mm:ss", "yyyy/MM/dd", "HH:mm:ss.SSS"}[g.pick(3)])
	default:
		return fmt.Sprintf("(%s || %s)", sub(), sub())
	}
}

var dqCmpOps = []string{"=", "<>", "<", "<=", ">", ">="}

// pred is a boolean condition.
func (g *dqGen) pred(sc dqScope, depth int) string {
	if depth <= 0 {
		depth = 1
	}
	cmpClass := []dqClass{dqInt, dqInt, dqDbl, dqDec, dqStr, dqStr, dqDate, dqTs}[g.pick(8)]
	switch g.pick(13) {
	case 0:
		return fmt.Sprintf("(%s AND %s)", g.pred(sc, depth-1), g.pred(sc, depth-1))
	case 1:
		return fmt.Sprintf("(%s OR %s)", g.pred(sc, depth-1), g.pred(sc, depth-1))
	case 2:
		return fmt.Sprintf("(NOT %s)", g.pred(sc, depth-1))
	case 3:
		c := dqClass(g.pick(dqClasses))
		not := ""
		if g.chance(50) {
			not = "NOT "
		}
		return fmt.Sprintf("(%s IS %sNULL)", g.expr(c, sc, depth-1), not)
	case 4:
		n := 1 + g.pick(3)
		var lits []string
		for i := 0; i < n; i++ {
			if g.chance(15) {
				// A non-literal element.
				lits = append(lits, g.leaf(cmpClass, sc))
				continue
			}
			lits = append(lits, g.lit(cmpClass))
		}
		if g.chance(10) {
			lits = append(lits, "CAST(NULL AS "+dqTypeName[cmpClass]+")")
		}
		not := ""
		if g.chance(40) {
			not = "NOT "
		}
		return fmt.Sprintf("(%s %sIN (%s))", g.expr(cmpClass, sc, depth-1), not, strings.Join(lits, ", "))
	case 5:
		not := ""
		if g.chance(30) {
			not = "NOT "
		}
		lo, hi := g.lit(cmpClass), g.lit(cmpClass)
		return fmt.Sprintf("(%s %sBETWEEN %s AND %s)", g.expr(cmpClass, sc, depth-1), not, lo, hi)
	case 6:
		pats := []string{"a%", "%b", "_", "%", "a_", "%a%", "", "_b%", "ab%", "%b ", "_b_", "a%b", "%ab%", "a.c", "%.%", "_*", "é%", "%本", "__"}
		not := ""
		if g.chance(30) {
			not = "NOT "
		}
		if g.chance(15) {
			// A pattern that is not a literal (LikeCallGen's dynamic
			// LIKE): the strings hold wildcards and metacharacters.
			return fmt.Sprintf("(%s %sLIKE %s)", g.expr(dqStr, sc, depth-1), not, g.expr(dqStr, sc, depth-1))
		}
		if g.chance(25) {
			// '!' escapes a wildcard (SqlLikeUtils.sqlToRegexLike).
			pats = []string{"a!_c", "a!%", "%!%", "%!_%", "a!%%", "_!_%"}
			return fmt.Sprintf("(%s %sLIKE '%s' ESCAPE '!')", g.expr(dqStr, sc, depth-1), not, pats[g.pick(len(pats))])
		}
		return fmt.Sprintf("(%s %sLIKE '%s')", g.expr(dqStr, sc, depth-1), not, pats[g.pick(len(pats))])
	case 8:
		if g.chance(50) {
			not := ""
			if g.chance(50) {
				not = "NOT "
			}
			return fmt.Sprintf("(%s IS %sDISTINCT FROM %s)", g.expr(cmpClass, sc, depth-1), not, g.expr(cmpClass, sc, depth-1))
		}
		return fmt.Sprintf("(%s IS %s)", g.pred(sc, depth-1), []string{"TRUE", "FALSE", "NOT TRUE", "NOT FALSE"}[g.pick(4)])
	case 7:
		if cols := sc.of(dqBool); len(cols) > 0 {
			return cols[g.pick(len(cols))].name
		}
		return g.lit(dqBool)
	default:
		l := g.expr(cmpClass, sc, depth-1)
		var r string
		if g.chance(60) {
			r = g.lit(cmpClass)
		} else {
			r = g.expr(cmpClass, sc, depth-1)
		}
		// An INT compared with a DECIMAL or a DOUBLE, a DATE with a
		// TIMESTAMP (the usual implicit widening in both engines).
		if cmpClass == dqDec || cmpClass == dqDbl {
			if g.chance(20) {
				r = g.expr(dqInt, sc, depth-1)
			}
		}
		if cmpClass == dqTs && g.chance(20) {
			r = g.expr(dqDate, sc, depth-1)
		}
		return fmt.Sprintf("(%s %s %s)", l, dqCmpOps[g.pick(len(dqCmpOps))], r)
	}
}

// subPred is a predicate with a subquery: IN, NOT IN, EXISTS, NOT EXISTS
// (correlated on k or not), or a comparison with a scalar aggregate.
func (g *dqGen) subPred(sc dqScope, q *dqQuery) string {
	t := dqTables[g.pick(len(dqTables))]
	a := g.newAlias()
	inner := dqScope{}
	for _, c := range dqTableCols {
		inner.cols = append(inner.cols, dqCol{a + "." + c.name, c.class})
	}
	both := dqScope{cols: append(append([]dqCol{}, inner.cols...), sc.cols...)}
	ks := sc.of(dqInt)
	corr := ""
	if len(ks) > 0 && g.chance(60) {
		key := ks[g.pick(len(ks))].name
		corr = fmt.Sprintf("%s.k = %s AND ", a, key)
		if g.chance(20) {
			// A correlation that is not a conjunct of equalities (OR,
			// IS NULL, CASE ... of the outer row): under an aggregate,
			// Calcite's value generator, joined IS NOT DISTINCT FROM.
			corr = fmt.Sprintf("(%s.k = %s OR %s) AND ", a, key, g.pred(both, 1))
		}
	}
	where := g.pred(inner, 2)
	if corr != "" && g.chance(30) {
		// A correlated condition beyond the key.
		where = g.pred(both, 2)
	}
	src := t + " AS " + a
	if len(ks) > 0 && g.chance(35) {
		// The correlation below the subquery's top WHERE: in a derived
		// table or WITH query, under DISTINCT, beside a join.
		src, corr = g.corrSource(t, a, ks[g.pick(len(ks))].name, sc), ""
	} else if len(ks) > 0 && g.chance(10) {
		// The correlation in the ON of a join in the subquery's FROM.
		b := g.newAlias()
		src, corr = fmt.Sprintf("%s AS %s JOIN %s AS %s ON %s.k = %s.a AND %s.k = %s", t, a, dqTables[g.pick(len(dqTables))], b, a, b, []string{a, b}[g.pick(2)], ks[g.pick(len(ks))].name), ""
	}
	switch g.pick(4) {
	case 0, 1:
		c := []dqClass{dqInt, dqStr, dqDec}[g.pick(3)]
		not := ""
		if g.chance(40) {
			not = "NOT "
		}
		return fmt.Sprintf("(%s %sIN (SELECT %s FROM %s WHERE %s%s))", g.expr(c, sc, 1), not, g.expr(c, inner, 1), src, corr, where)
	case 2:
		not := ""
		if g.chance(40) {
			not = "NOT "
		}
		return fmt.Sprintf("(%sEXISTS (SELECT 1 FROM %s WHERE %s%s))", not, src, corr, where)
	default:
		q.global = true
		agg := []string{"COUNT(*)", "MAX(" + a + ".a)", "MIN(" + a + ".k)", "SUM(" + a + ".b)", "COUNT(" + a + ".s)"}[g.pick(5)]
		return fmt.Sprintf("(%s %s (SELECT %s FROM %s WHERE %s%s))", g.expr(dqInt, sc, 1), dqCmpOps[g.pick(len(dqCmpOps))], agg, src, corr, where)
	}
}

// corrSource is a subquery's FROM, named a with t's columns, whose
// correlation on the outer key sits below the subquery's WHERE: in a
// derived table (DISTINCT at times), a WITH query's, or one beside a
// join (inner, or the preserved side of a LEFT JOIN), with a condition
// of the outer row beyond the key at times.
func (g *dqGen) corrSource(t, a, key string, outer dqScope) string {
	a2 := g.newAlias()
	inner := dqScope{}
	for _, c := range dqTableCols {
		inner.cols = append(inner.cols, dqCol{a2 + "." + c.name, c.class})
	}
	where := fmt.Sprintf("%s.k = %s", a2, key)
	if g.chance(40) {
		where += " AND " + g.pred(inner, 1)
	}
	distinct := ""
	if g.chance(30) {
		distinct = "DISTINCT "
	} else if g.chance(30) {
		where += " AND " + g.pred(dqScope{cols: append(append([]dqCol{}, inner.cols...), outer.cols...)}, 1)
	}
	derived := fmt.Sprintf("SELECT %s* FROM %s AS %s WHERE %s", distinct, t, a2, where)
	src := fmt.Sprintf("(%s) AS %s", derived, a)
	if g.chance(25) {
		// A WITH query, read in the subquery's FROM.
		w := g.newAlias()
		return fmt.Sprintf("(WITH %s AS (%s) SELECT * FROM %s) AS %s", w, derived, w, a)
	}
	if g.chance(50) {
		b := g.newAlias()
		kind := []string{"JOIN", "LEFT JOIN"}[g.pick(2)]
		src = fmt.Sprintf("%s %s %s AS %s ON %s.k = %s.a", src, kind, dqTables[g.pick(len(dqTables))], b, a, b)
	}
	return src
}

// from is a FROM clause: a table, a derived table, or an equi-join of
// two or three (inner, left, right, full), with an extra condition at times.
func (g *dqGen) from(q *dqQuery, depth int) (string, dqScope) {
	item := func() (string, dqScope, string) {
		a := g.newAlias()
		sc := dqScope{}
		if depth > 0 && g.chance(25) {
			// Its first column is an INT: the key it is joined on.
			sig := append([]dqClass{dqInt}, g.sig()...)
			sub := g.query(sig, depth-1, false)
			if sub.global {
				q.global = true
			}
			for i, c := range sub.classes {
				sc.cols = append(sc.cols, dqCol{fmt.Sprintf("%s.c%d", a, i), c})
			}
			return fmt.Sprintf("(%s) AS %s", sub.sql, a), sc, a + ".c0"
		}
		t := dqTables[g.pick(len(dqTables))]
		for _, c := range dqTableCols {
			sc.cols = append(sc.cols, dqCol{a + "." + c.name, c.class})
		}
		return t + " AS " + a, sc, a + ".k"
	}
	text, sc, key := item()
	joins := 0
	if g.chance(45) {
		joins = 1
		if g.chance(20) {
			joins = 2
		}
	}
	for j := 0; j < joins; j++ {
		if ks := sc.of(dqInt); g.chance(20) && len(ks) > 0 {
			// LATERAL (SELECT ...) correlated on a column of the items
			// before it.
			lt, lsc := g.lateral(ks[g.pick(len(ks))].name, sc, j == joins-1)
			text += lt
			sc = dqScope{cols: append(append([]dqCol{}, sc.cols...), lsc.cols...)}
			continue
		}
		rt, rsc, rkey := item()
		both := dqScope{cols: append(append([]dqCol{}, sc.cols...), rsc.cols...)}
		kind := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "JOIN", "LEFT JOIN"}[g.pick(6)]
		lk := key
		if ints := sc.of(dqInt); g.chance(20) {
			lk = ints[g.pick(len(ints))].name
			if g.chance(50) {
				lk = fmt.Sprintf("(%s + %s)", lk, g.intLit())
			}
		}
		cond := fmt.Sprintf("%s = %s", lk, rkey)
		if g.chance(35) {
			cond += " AND " + g.pred(both, 1)
		}
		text = fmt.Sprintf("%s %s %s ON %s", text, kind, rt, cond)
		sc = both
	}
	return text, sc
}

// lateral is ", LATERAL (...) AS a", a CROSS JOIN LATERAL or a LEFT JOIN
// LATERAL ... ON TRUE of a table's rows whose k equals key (a column of
// sc, the items before it; last when no join follows): all of them, those passing a condition
// that may read sc too, their DISTINCT, or the first n in an order of
// every column (a Top-N per key whose ties are equal rows). Its WHERE
// always has a local condition beside the key, so that it is never the
// shape of Flink's CorrelateSortToRankRule, which keeps a NULL key's rows.
func (g *dqGen) lateral(key string, sc dqScope, last bool) (string, dqScope) {
	a, a2 := g.newAlias(), g.newAlias()
	t := dqTables[g.pick(len(dqTables))]
	inner := dqScope{}
	out := dqScope{}
	for _, c := range dqTableCols {
		inner.cols = append(inner.cols, dqCol{a2 + "." + c.name, c.class})
		out.cols = append(out.cols, dqCol{a + "." + c.name, c.class})
	}
	where := fmt.Sprintf("%s.k = %s AND %s", a2, key, g.pred(inner, 1))
	body := ""
	if g.chance(25) {
		// An aggregate without GROUP BY: one row for every outer row,
		// COUNT's 0 and NULLs for one without rows (the COUNT bug).
		// An expression over the aggregates (its value over no rows
		// computed), but beside a correlation that may hold for a NULL
		// outer value, which sqlrun refuses with one.
		last := "COALESCE(SUM(%s.a), 0) + COUNT(*)"
		if g.chance(30) {
			both := dqScope{cols: append(append([]dqCol{}, inner.cols...), sc.cols...)}
			where = fmt.Sprintf("(%s.k = %s OR %s)", a2, key, g.pred(both, 1))
			last = "COUNT(%s.s)"
		}
		out = dqScope{}
		var items []string
		for _, it := range []struct {
			agg, name string
			class     dqClass
		}{{"COUNT(*)", "n", dqInt}, {"MAX(%s.a)", "a", dqInt}, {"SUM(%s.b)", "b", dqInt}, {"MIN(%s.c)", "c", dqDbl},
			{"MAX(%s.d)", "d", dqDec}, {"MIN(%s.s)", "s", dqStr}, {last, "m", dqInt}} {
			agg := it.agg
			if strings.Contains(agg, "%s") {
				agg = fmt.Sprintf(agg, a2)
			}
			items = append(items, agg+" AS "+it.name)
			out.cols = append(out.cols, dqCol{a + "." + it.name, it.class})
		}
		body = fmt.Sprintf("SELECT %s FROM %s AS %s WHERE %s", strings.Join(items, ", "), t, a2, where)
	} else {
		body = g.lateralBody(t, a2, where, inner, sc)
	}
	switch g.pick(3) {
	case 0:
		if last {
			// Not before another join: the comma binds looser than
			// JOIN in sqlrun's parser (a, b JOIN c is a, (b JOIN c)).
			return fmt.Sprintf(", LATERAL (%s) AS %s", body, a), out
		}
		fallthrough
	case 1:
		return fmt.Sprintf(" CROSS JOIN LATERAL (%s) AS %s", body, a), out
	}
	return fmt.Sprintf(" LEFT JOIN LATERAL (%s) AS %s ON TRUE", body, a), out
}

// lateralBody is lateral's SELECT of t's rows (named a2) passing where:
// all, those passing a condition that may read sc too, their DISTINCT,
// or a Top-N.
func (g *dqGen) lateralBody(t, a2, where string, inner, sc dqScope) string {
	body := ""
	switch g.pick(4) {
	case 0:
		body = fmt.Sprintf("SELECT * FROM %s AS %s WHERE %s", t, a2, where)
	case 1:
		both := dqScope{cols: append(append([]dqCol{}, inner.cols...), sc.cols...)}
		body = fmt.Sprintf("SELECT * FROM %s AS %s WHERE %s AND %s", t, a2, where, g.pred(both, 1))
	case 2:
		body = fmt.Sprintf("SELECT DISTINCT * FROM %s AS %s WHERE %s", t, a2, where)
	default:
		var keys []string
		for _, c := range dqTableCols {
			keys = append(keys, fmt.Sprintf("%s.%s %s %s", a2, c.name, []string{"ASC", "DESC"}[g.pick(2)], []string{"NULLS FIRST", "NULLS LAST"}[g.pick(2)]))
		}
		body = fmt.Sprintf("SELECT * FROM %s AS %s WHERE %s ORDER BY %s LIMIT %d", t, a2, where, strings.Join(keys, ", "), 1+g.pick(3))
	}
	return body
}

// sig is a random output signature of 1 to 3 columns.
func (g *dqGen) sig() []dqClass {
	n := 1 + g.pick(3)
	out := make([]dqClass, n)
	for i := range out {
		out[i] = []dqClass{dqInt, dqInt, dqDbl, dqDec, dqStr, dqStr, dqBool, dqDate, dqTs}[g.pick(9)]
	}
	return out
}

// query is a query with output columns c0, c1, ... of the classes of sig.
func (g *dqGen) query(sig []dqClass, depth int, top bool) dqQuery {
	q := dqQuery{classes: sig}
	switch k := g.pick(10); {
	case k < 2 && depth > 0:
		return g.setop(sig, depth)
	case k < 5:
		q.sql = g.aggSelect(&q, sig, depth)
	default:
		q.sql = g.plainSelect(&q, sig, depth, top)
	}
	if top && g.chance(15) {
		var keys []string
		for i := range sig {
			dir := []string{"ASC", "DESC"}[g.pick(2)]
			nulls := []string{"NULLS FIRST", "NULLS LAST"}[g.pick(2)]
			keys = append(keys, fmt.Sprintf("c%d %s %s", i, dir, nulls))
		}
		limit := fmt.Sprintf("LIMIT %d", 1+g.pick(4))
		if g.chance(25) {
			limit += fmt.Sprintf(" OFFSET %d", g.pick(3))
		}
		q.sql = fmt.Sprintf("SELECT * FROM (%s) AS %s ORDER BY %s %s", q.sql, g.newAlias(), strings.Join(keys, ", "), limit)
	} else if top && g.chance(10) {
		// Top-N per partition: ROW_NUMBER over every column (ties are
		// equal rows, so the rows kept are the same multiset), or RANK /
		// DENSE_RANK over some (ties are kept together).
		var keys []string
		for i := range sig {
			keys = append(keys, fmt.Sprintf("c%d %s %s", i, []string{"ASC", "DESC"}[g.pick(2)], []string{"NULLS FIRST", "NULLS LAST"}[g.pick(2)]))
		}
		fn := "ROW_NUMBER()"
		if len(keys) > 1 && g.chance(40) {
			fn = []string{"RANK()", "DENSE_RANK()"}[g.pick(2)]
			keys = keys[1:]
		}
		part := ""
		if len(sig) > 1 && g.chance(70) {
			part = "PARTITION BY c0 "
		}
		cols := make([]string, len(sig))
		for i := range sig {
			cols[i] = fmt.Sprintf("c%d", i)
		}
		cmp := []string{"<=", "<", "="}[g.pick(3)]
		q.sql = fmt.Sprintf("SELECT %s FROM (SELECT %s, %s OVER (%sORDER BY %s) AS rn FROM (%s) AS %s) AS %s WHERE rn %s %d",
			strings.Join(cols, ", "), strings.Join(cols, ", "), fn, part, strings.Join(keys, ", "), q.sql, g.newAlias(), g.newAlias(), cmp, 1+g.pick(3))
	}
	return q
}

func (g *dqGen) plainSelect(q *dqQuery, sig []dqClass, depth int, top bool) string {
	from, sc := g.from(q, depth)
	var items []string
	for i, c := range sig {
		e := g.expr(c, sc, 2)
		if ks := sc.of(dqInt); c == dqInt && top && len(ks) > 0 && g.chance(8) {
			// A correlated scalar subquery in the projection (COUNT of no
			// rows is 0, not NULL).
			a := g.newAlias()
			corr := fmt.Sprintf("%s.k = %s", a, ks[g.pick(len(ks))].name)
			if g.chance(25) {
				// Not only equalities: Calcite's value generator.
				inner := dqScope{}
				for _, c := range dqTableCols {
					inner.cols = append(inner.cols, dqCol{a + "." + c.name, c.class})
				}
				corr = fmt.Sprintf("(%s OR %s)", corr, g.pred(dqScope{cols: append(inner.cols, sc.cols...)}, 1))
			}
			e = fmt.Sprintf("(SELECT COUNT(*) FROM %s AS %s WHERE %s)", dqTables[g.pick(3)], a, corr)
			if g.chance(30) {
				// The aggregate in a derived table the subquery selects from.
				x := g.newAlias()
				e = fmt.Sprintf("(SELECT %s.n FROM (SELECT COUNT(*) AS n FROM %s AS %s WHERE %s) AS %s)", x, dqTables[g.pick(3)], a, corr, x)
			}
		}
		items = append(items, fmt.Sprintf("%s AS c%d", e, i))
	}
	distinct := ""
	if g.chance(20) {
		distinct = "DISTINCT "
	}
	text := fmt.Sprintf("SELECT %s%s FROM %s", distinct, strings.Join(items, ", "), from)
	if g.chance(70) {
		p := g.pred(sc, 3)
		if g.chance(25) {
			sp := g.subPred(sc, q)
			if g.chance(50) {
				p = sp
			} else {
				op := []string{"AND", "OR"}[g.pick(2)]
				if op == "OR" && strings.Contains(sp, " IN (SELECT") {
					// Under OR, Calcite's SubQueryRemoveRule.rewriteIn
					// joins the subquery's global COUNT(*) on TRUE (an
					// inner join), so over an empty subquery a streaming
					// job, as Flink's, has no row to join.
					q.global = true
				}
				p = fmt.Sprintf("(%s %s %s)", p, op, sp)
			}
		}
		text += " WHERE " + p
	}
	return text
}

func (g *dqGen) aggSelect(q *dqQuery, sig []dqClass, depth int) string {
	from, sc := g.from(q, depth)
	var items, keys []string
	for i, c := range sig {
		var e string
		if c != dqBool && g.chance(35) || c == dqBool && g.chance(70) {
			// A grouping key: a column, or at times an expression of one
			// (grouped by its text).
			cols := sc.of(c)
			if len(cols) > 0 {
				e = g.keyOf(cols[g.pick(len(cols))])
				keys = append(keys, e)
			}
		}
		if e == "" {
			e = g.agg(c, sc)
		}
		items = append(items, fmt.Sprintf("%s AS c%d", e, i))
	}
	if len(keys) == 0 {
		if g.chance(60) {
			// A grouping key that is not selected.
			col := sc.cols[g.pick(len(sc.cols))].name
			keys = append(keys, col)
		} else {
			q.global = true
		}
	}
	text := fmt.Sprintf("SELECT %s FROM %s", strings.Join(items, ", "), from)
	if g.chance(50) {
		text += " WHERE " + g.pred(sc, 2)
	}
	var having []string
	if len(keys) > 0 {
		group := strings.Join(keys, ", ")
		if g.chance(15) {
			// Grouping sets (Flink's Expand): the rolled-up keys are NULL.
			// Over an input without rows, Flink's plan (Expand, then an
			// aggregate keyed by the keys and $e) has no grand-total row,
			// where the SQL standard and DuckDB have one; sqlrun follows
			// Flink. COUNT(*) > 0 drops that row and keeps every other.
			group = []string{"ROLLUP", "CUBE"}[g.pick(2)] + "(" + group + ")"
			having = append(having, "(COUNT(*) > 0)")
		}
		text += " GROUP BY " + group
	}
	if g.chance(35) {
		having = append(having, g.havingPred(sc))
	}
	if len(having) > 0 {
		text += " HAVING " + strings.Join(having, " AND ")
	}
	return text
}

// keyOf is a grouping key of col's class: col, or at times a function of
// it.
func (g *dqGen) keyOf(col dqCol) string {
	if !g.chance(25) {
		return col.name
	}
	forms := map[dqClass][]string{
		dqInt:  {"MOD(%s, 3)", "ABS(%s)"},
		dqDbl:  {"ABS(%s)", "FLOOR(%s)"},
		dqDec:  {"CAST(FLOOR(%s) AS DECIMAL(10, 2))", "ABS(%s)"},
		dqStr:  {"UPPER(%s)", "SUBSTRING(%s FROM 1 FOR 2)", "TRIM(%s)"},
		dqDate: {"(%s + INTERVAL '1' MONTH)", "(%s - INTERVAL '1' DAY)"},
		dqTs:   {"(%s + INTERVAL '1' HOUR)", "CAST(CAST(%s AS STRING) AS TIMESTAMP(3))"},
	}[col.class]
	if len(forms) == 0 {
		return col.name
	}
	return fmt.Sprintf(forms[g.pick(len(forms))], col.name)
}

// dqVarianceFuncs are the variance family's names (STDDEV and VARIANCE
// are the sample forms).
var dqVarianceFuncs = []string{"VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VARIANCE"}

// agg is an aggregate call of class c.
func (g *dqGen) agg(c dqClass, sc dqScope) string {
	switch c {
	case dqInt:
		if g.chance(10) {
			return fmt.Sprintf("%s(%s) FILTER (WHERE %s)", []string{"MIN", "MAX", "SUM", "COUNT"}[g.pick(4)], g.expr(dqInt, sc, 1), g.pred(sc, 1))
		}
		if g.chance(8) {
			// The variance family over an INT or BIGINT is one of that
			// type, computed in integer arithmetic (dqDuckMacros); MOD
			// keeps the sums' squares far from overflowing.
			return fmt.Sprintf("%s(MOD(%s, 50))", dqVarianceFuncs[g.pick(len(dqVarianceFuncs))], g.expr(dqInt, sc, 1))
		}
		switch g.pick(6) {
		case 0:
			return "COUNT(*)"
		case 1:
			return fmt.Sprintf("COUNT(%s)", g.expr(dqClass(g.pick(dqClasses)), sc, 1))
		case 2:
			return fmt.Sprintf("COUNT(DISTINCT %s)", g.expr(dqClass(g.pick(dqClasses)), sc, 1))
		case 3:
			if g.chance(30) {
				return fmt.Sprintf("SUM(DISTINCT %s)", g.expr(dqInt, sc, 1))
			}
			if g.chance(30) {
				return fmt.Sprintf("COUNT(*) FILTER (WHERE %s)", g.pred(sc, 1))
			}
			return fmt.Sprintf("SUM(%s)", g.expr(dqInt, sc, 1))
		case 4:
			return fmt.Sprintf("MIN(%s)", g.expr(dqInt, sc, 1))
		default:
			return fmt.Sprintf("MAX(%s)", g.expr(dqInt, sc, 1))
		}
	case dqDbl:
		if g.chance(12) {
			// The variance family over a DOUBLE (dqDuckMacros: Flink's
			// formula, in DOUBLE arithmetic), of quarters below 13 so that
			// the sums of squares are exact in any order.
			return fmt.Sprintf("%s(CAST(MOD(%s, 50) AS DOUBLE) / 4)", dqVarianceFuncs[g.pick(len(dqVarianceFuncs))], g.expr(dqInt, sc, 1))
		}
		switch g.pick(4) {
		case 0:
			return fmt.Sprintf("SUM(%s)", g.expr(dqDbl, sc, 1))
		case 1:
			return fmt.Sprintf("AVG(%s)", g.expr(dqDbl, sc, 1))
		case 2:
			return fmt.Sprintf("AVG(CAST(%s AS DOUBLE))", g.expr(dqInt, sc, 1))
		default:
			return fmt.Sprintf("MAX(%s)", g.expr(dqDbl, sc, 1))
		}
	case dqDec:
		switch g.pick(3) {
		case 0:
			return fmt.Sprintf("SUM(%s)", g.expr(dqDec, sc, 1))
		case 1:
			return fmt.Sprintf("MIN(%s)", g.expr(dqDec, sc, 1))
		default:
			return fmt.Sprintf("MAX(%s)", g.expr(dqDec, sc, 1))
		}
	case dqStr, dqDate, dqTs:
		return fmt.Sprintf("%s(%s)", []string{"MIN", "MAX"}[g.pick(2)], g.expr(c, sc, 1))
	default:
		return g.havingPred(sc)
	}
}

func (g *dqGen) havingPred(sc dqScope) string {
	p := fmt.Sprintf("(%s %s %s)", g.agg(dqInt, sc), dqCmpOps[g.pick(len(dqCmpOps))], g.intLit())
	if g.chance(30) {
		p = fmt.Sprintf("(%s OR (%s IS NULL))", p, g.agg(dqStr, sc))
	}
	return p
}

func (g *dqGen) setop(sig []dqClass, depth int) dqQuery {
	l := g.query(sig, depth-1, false)
	r := g.query(sig, depth-1, false)
	op := []string{"UNION ALL", "UNION", "INTERSECT", "EXCEPT", "UNION ALL"}[g.pick(5)]
	wrap := func(x dqQuery) string {
		if strings.Contains(x.sql, " UNION ") || strings.Contains(x.sql, " INTERSECT ") || strings.Contains(x.sql, " EXCEPT ") {
			return fmt.Sprintf("SELECT * FROM (%s) AS %s", x.sql, g.newAlias())
		}
		return x.sql
	}
	return dqQuery{sql: wrap(l) + " " + op + " " + wrap(r), classes: sig, global: l.global || r.global}
}

// tlp is a ternary logic partitioning case: a query, a predicate p, and
// the union of the query filtered by p, NOT p and p IS NULL.
func (g *dqGen) tlp() (whole, parts dqQuery) {
	sig := g.sig()
	var q dqQuery
	from, sc := g.from(&q, 1)
	var items []string
	for i, c := range sig {
		items = append(items, fmt.Sprintf("%s AS c%d", g.expr(c, sc, 2), i))
	}
	base := fmt.Sprintf("SELECT %s FROM %s", strings.Join(items, ", "), from)
	p := g.pred(sc, 3)
	whole = dqQuery{sql: base, classes: sig, global: q.global}
	parts = dqQuery{sql: fmt.Sprintf("%s WHERE %s UNION ALL %s WHERE NOT %s UNION ALL %s WHERE (%s) IS NULL", base, p, base, p, base, p),
		classes: sig, global: q.global}
	return whole, parts
}

// withShared is q at times with one of the tables it reads replaced, in
// every FROM (the main query's, a join's, a subquery's, a LATERAL's), by
// a WITH query of that table's filtered rows: the WITH query is then read
// by several readers, each with its own fields and filters pushed (a
// source's pushed projection once leaked from one reader to another,
// plan.binder.ownSource).
func (g *dqGen) withShared(q string) string {
	if !g.chance(25) {
		return q
	}
	var read []string
	for _, t := range dqTables {
		if strings.Contains(q, t+" AS ") {
			read = append(read, t)
		}
	}
	if len(read) == 0 {
		return q
	}
	t := read[g.pick(len(read))]
	sc := dqScope{}
	for _, c := range dqTableCols {
		sc.cols = append(sc.cols, dqCol{c.name, c.class})
	}
	body := "SELECT * FROM " + t
	if g.chance(70) {
		body += " WHERE " + g.pred(sc, 1)
	}
	w := "w_" + t
	return fmt.Sprintf("WITH %s AS (%s) %s", w, body, strings.ReplaceAll(q, t+" AS ", w+" AS "))
}
