package exec

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
)

// The SQL client's fixed messages (flink-sql-client CliStrings).
const (
	MsgStatementSucceeded = "[INFO] Execute statement succeeded."
	MsgErrorPrefix        = "[ERROR] Could not execute SQL statement. Reason:"
	MsgSubmitting         = "[INFO] Submitting SQL update statement to the cluster..."
	MsgSubmitted          = "[INFO] SQL update statement has been successfully submitted to the cluster:"
	MsgDMLComplete        = "[INFO] Complete execution of the SQL update statement."
	MsgExecutingFile      = "[INFO] Executing SQL from file."
	MsgEmptySet           = "Empty set"
	NullColumn            = "<NULL>"
	// MsgTableauOnly is what a query in a -f script fails with unless the
	// result mode is tableau.
	MsgTableauOnly = "In non-interactive mode, it only supports to use TABLEAU as value of sql-client.execution.result-mode when execute query. Please add 'SET sql-client.execution.result-mode=TABLEAU;' in the sql file."
)

// FormatError renders a failure as the SQL client does: the error line,
// then the root cause's exception class and message. Errors without a
// class (our own wrapped Go errors) print as java.lang.RuntimeException
// with the whole chain's message, so nothing is lost.
func FormatError(err error) string {
	var b strings.Builder
	b.WriteString(MsgErrorPrefix)
	b.WriteByte('\n')
	if rc := sql.RootCause(err); rc != nil {
		b.WriteString(string(rc.Class))
		b.WriteString(": ")
		b.WriteString(rc.Msg)
	} else {
		b.WriteString(string(sql.RuntimeException))
		b.WriteString(": ")
		b.WriteString(err.Error())
	}
	b.WriteByte('\n')
	return b.String()
}

// displayWidth is the number of terminal cells s occupies (CJK characters
// take two, as Flink's getStringDisplayWidth counts them).
func displayWidth(s string) int { return runewidth.StringWidth(s) }

// truncate cuts s to width cells, ending with "..." when cut.
func truncate(s string, width int) string {
	if displayWidth(s) <= width {
		return s
	}
	if width <= 3 {
		return strings.Repeat(".", width)
	}
	return runewidth.Truncate(s, width-3, "") + "..."
}

// Box prints rows as the SQL client's tableau style does for static
// results (SHOW, DESCRIBE, SET): a border, the right-aligned header,
// a border, the rows, a border and "N rows in set" — or "Empty set" alone
// when there are no rows. Column widths come from the content; maxWidth
// (0 = unlimited) caps them, cutting longer values with "...".
func Box(w io.Writer, header []string, rows [][]string, maxWidth int) {
	if len(rows) == 0 {
		fmt.Fprintln(w, MsgEmptySet)
		return
	}
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = displayWidth(h)
	}
	for _, r := range rows {
		for i := range widths {
			if i < len(r) && displayWidth(r[i]) > widths[i] {
				widths[i] = displayWidth(r[i])
			}
		}
	}
	if maxWidth > 0 {
		for i := range widths {
			widths[i] = min(widths[i], maxWidth)
		}
	}
	border := borderLine(widths)
	fmt.Fprintln(w, border)
	fmt.Fprintln(w, rowLine(header, widths))
	fmt.Fprintln(w, border)
	for _, r := range rows {
		fmt.Fprintln(w, rowLine(r, widths))
	}
	fmt.Fprintln(w, border)
	fmt.Fprintln(w, rowsInSet(len(rows)))
}

func rowsInSet(n int) string {
	if n == 1 {
		return "1 row in set"
	}
	return fmt.Sprintf("%d rows in set", n)
}

func borderLine(widths []int) string {
	var b strings.Builder
	b.WriteByte('+')
	for _, w := range widths {
		b.WriteString(strings.Repeat("-", w+2))
		b.WriteByte('+')
	}
	return b.String()
}

// rowLine right-aligns each cell, as Flink's TableauStyle does.
func rowLine(cells []string, widths []int) string {
	var b strings.Builder
	b.WriteByte('|')
	for i, w := range widths {
		c := ""
		if i < len(cells) {
			c = truncate(cells[i], w)
		}
		b.WriteByte(' ')
		b.WriteString(strings.Repeat(" ", w-displayWidth(c)))
		b.WriteString(c)
		b.WriteString(" |")
	}
	return b.String()
}

// ColumnWidthByType is the width Flink's PrintUtils.columnWidthsByType
// gives a streaming tableau column: wide enough for any value of the type
// (INT 11, BIGINT 20, DECIMAL(p, s) p+2, TIMESTAMP(3) 23), maxWidth for
// strings and other variable-length types, at least "<NULL>" and the
// column name.
func ColumnWidthByType(name string, t sql.DataType, maxWidth int) int {
	var n int
	switch t.Root {
	case sql.TypeTinyInt:
		n = 4
	case sql.TypeSmallInt:
		n = 6
	case sql.TypeInt:
		n = 11
	case sql.TypeBigInt:
		n = 20
	case sql.TypeDecimal:
		n = t.Precision + 2
	case sql.TypeBoolean:
		n = 5
	case sql.TypeDate:
		n = 10
	case sql.TypeTime:
		if t.Precision == 0 {
			n = 8
		} else {
			n = t.Precision + 9
		}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		if t.Precision == 0 {
			n = 19
		} else {
			n = t.Precision + 20
		}
	default:
		n = maxWidth
	}
	n = max(n, utf8.RuneCountInString(NullColumn), displayWidth(name))
	return n
}

// FormatCell renders one result value as the SQL client shows it: SQL's
// CAST(... AS STRING) spelling (TRUE, 80.00, 2024-01-02 10:00:00.000)
// and <NULL> for NULL.
func FormatCell(v any, t sql.DataType) string {
	if v == nil {
		return NullColumn
	}
	switch x := v.(type) {
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case sql.TimestampData:
		return formatSQLTimestamp(x, t.Precision)
	case int32:
		if t.Root == sql.TypeTime {
			return formatSQLTime(x, t.Precision)
		}
		if t.Root == sql.TypeIntervalYearMonth {
			// IntervalToStringCastRule: +7-00.
			return expr.Interval{Months: int64(x), Unit: "MONTH"}.String()
		}
	case int64:
		if t.Root == sql.TypeIntervalDayTime {
			// IntervalToStringCastRule: +1 10:17:36.789.
			return expr.Interval{Millis: x, Unit: "SECOND"}.String()
		}
	case []any:
		if t.Root == sql.TypeRow {
			// A ROW prints as its CAST to STRING does: (1, a).
			parts := make([]string, len(x))
			for i, f := range x {
				var ft sql.DataType
				if i < len(t.Fields) {
					ft = t.Fields[i].Type
				}
				if f == nil {
					parts[i] = "NULL"
				} else {
					parts[i] = FormatCell(f, ft)
				}
			}
			return "(" + strings.Join(parts, ", ") + ")"
		}
		if t.Root == sql.TypeArray && t.Elem != nil {
			// An ARRAY prints as its CAST to STRING does
			// (ArrayToStringCastRule): each element cast to STRING,
			// NULL for a null element: [TRUE, NULL], [(1, a)].
			parts := make([]string, len(x))
			for i, e := range x {
				if e == nil {
					parts[i] = "NULL"
				} else {
					parts[i] = FormatCell(e, *t.Elem)
				}
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
	case *sql.Map:
		if t.Root == sql.TypeMap && t.Elem != nil {
			// A MAP prints as its CAST to STRING does
			// (MapToStringCastRule): {k=v, ...}, NULL for a null key or
			// value.
			cell := func(e any, et sql.DataType) string {
				if e == nil {
					return "NULL"
				}
				return FormatCell(e, et)
			}
			parts := make([]string, len(x.Keys))
			for i := range x.Keys {
				parts[i] = cell(x.Keys[i], *t.Elem) + "=" + cell(x.Values[i], *t.Value)
			}
			return "{" + strings.Join(parts, ", ") + "}"
		}
	}
	return sql.FormatValue(v, t)
}

// formatSQLTimestamp prints yyyy-MM-dd HH:mm:ss[.fff...] with exactly
// precision fraction digits, as Flink's timestamp-to-string cast does.
func formatSQLTimestamp(ts sql.TimestampData, precision int) string {
	t := ts.Time()
	s := t.Format("2006-01-02 15:04:05")
	if precision > 0 {
		frac := fmt.Sprintf("%09d", t.Nanosecond())
		if precision > 9 {
			precision = 9
		}
		s += "." + frac[:precision]
	}
	return s
}

func formatSQLTime(millis int32, precision int) string {
	h := millis / 3600000
	m := millis / 60000 % 60
	s := millis / 1000 % 60
	out := fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	if precision > 0 {
		frac := fmt.Sprintf("%03d000000", millis%1000)
		if precision > 9 {
			precision = 9
		}
		out += "." + frac[:precision]
	}
	return out
}

// Tableau prints a streaming (or batch) query result as rows arrive, in
// the SQL client's tableau result mode.
type Tableau struct {
	w        io.Writer
	names    []string
	types    []sql.DataType
	widths   []int
	withKind bool
	border   string
	rows     int
	started  bool
}

// NewTableau prepares a tableau printer. withKind adds the leading "op"
// column (streaming mode); batch results have none.
func NewTableau(w io.Writer, schema sql.Schema, maxWidth int, withKind bool) *Tableau {
	t := &Tableau{w: w, names: schema.Names(), types: schema.Types(), withKind: withKind}
	if withKind {
		t.widths = append(t.widths, 2)
	}
	for _, c := range schema.Columns {
		t.widths = append(t.widths, ColumnWidthByType(c.Name, c.Type, maxWidth))
	}
	t.border = borderLine(t.widths)
	return t
}

// Header prints the header (once). Streaming results print it before the
// first row arrives, so the user sees the query is running.
func (t *Tableau) Header() {
	if t.started {
		return
	}
	t.started = true
	h := t.names
	if t.withKind {
		h = append([]string{"op"}, h...)
	}
	fmt.Fprintln(t.w, t.border)
	fmt.Fprintln(t.w, rowLine(h, t.widths))
	fmt.Fprintln(t.w, t.border)
}

// Rows prints a batch of rows.
func (t *Tableau) Rows(rows []sql.Row) {
	t.Header()
	for _, r := range rows {
		cells := make([]string, 0, len(t.widths))
		if t.withKind {
			cells = append(cells, r.Kind.ShortString())
		}
		for i, v := range r.Values {
			var ty sql.DataType
			if i < len(t.types) {
				ty = t.types[i]
			}
			cells = append(cells, FormatCell(v, ty))
		}
		fmt.Fprintln(t.w, rowLine(cells, t.widths))
		t.rows++
	}
}

// Footer ends the table. Streaming: "Received a total of N rows" (or
// "Query terminated, received a total of N rows" when the user cancelled)
// with the time in seconds unless timeCost is negative; batch: "N rows in
// set" or "Empty set".
func (t *Tableau) Footer(cancelled bool, seconds float64) {
	if !t.withKind {
		if t.rows == 0 {
			fmt.Fprintln(t.w, MsgEmptySet)
			return
		}
		fmt.Fprintln(t.w, t.border)
		fmt.Fprint(t.w, rowsInSet(t.rows))
	} else {
		if t.started {
			fmt.Fprintln(t.w, t.border)
		}
		prefix := "Received a total of "
		if cancelled {
			prefix = "Query terminated, received a total of "
		}
		unit := "rows"
		if t.rows <= 1 {
			unit = "row"
		}
		fmt.Fprintf(t.w, "%s%d %s", prefix, t.rows, unit)
	}
	if seconds >= 0 {
		fmt.Fprintf(t.w, " (%.2f seconds)", seconds)
	}
	fmt.Fprintln(t.w)
}
