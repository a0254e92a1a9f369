package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Time travel: `FROM t FOR SYSTEM_TIME AS OF <constant>` reads t as its
// catalog had it at that time (Flink 1.18+, FLIP-308). As Flink 1.20's
// FlinkCalciteSqlValidator.registerNamespace does it: a period without a
// column reference is reduced to a constant, which must be a TIMESTAMP
// (not TIMESTAMP_LTZ), read in 'table.local-time-zone' as epoch
// milliseconds, and the table is looked up with them
// (CatalogManager.getTable(ObjectIdentifier, long), i.e. the catalog's
// Catalog.getTable(ObjectPath, long): Paimon's copies the table with
// 'scan.timestamp-millis' and the schema of that snapshot). The AST keeps
// LogicalSnapshot(period=[...]) over the scan, which the TimeTravel rule
// removes (Flink's expected plans, TimeTravelTest.xml, have none).

// hasColumnRef reports whether e reads a column (Calcite's
// SqlIdentifierFinder): such a period is a temporal join's, not time travel.
func hasColumnRef(e ast.Expr) bool {
	found := false
	walkAST(e, func(x ast.Expr) {
		if _, ok := x.(*ast.ColumnRef); ok {
			found = true
		}
	})
	return found
}

// timeTravelMillis reduces a time-travel period to epoch milliseconds and
// its TimestampString (LogicalSnapshot's period).
func (b *binder) timeTravelMillis(period ast.Expr) (int64, string, error) {
	unsupported := func() error {
		return sql.Errorf(sql.ValidationException,
			"Unsupported time travel expression: %s for the expression can not be reduced to a constant by Flink.", period.String())
	}
	e, err := b.bindExpr(period, &scope{}, nil)
	if err != nil {
		return 0, "", err
	}
	lit, ok := fold(expr.InZone(e, b.zone)).(*Literal)
	if !ok || lit.T.Root == sql.TypeTimestampLTZ {
		return 0, "", unsupported()
	}
	if lit.T.Root != sql.TypeTimestamp {
		w := len(period.String())
		return 0, "", validationErr(period.Pos(), w, "The system time period specification expects Timestamp type but is '%s'", calciteTypeName(lit.T))
	}
	ts, ok := lit.Value.(sql.TimestampData)
	if !ok {
		return 0, "", unsupported()
	}
	// The wall time in the session time zone.
	wall := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
	return expr.UTCMillis(ts.Millis, b.zone), timestampString(wall), nil
}

// timestampString is Calcite's TimestampString: "yyyy-MM-dd HH:mm:ss"
// and the fraction without trailing zeros.
func timestampString(t time.Time) string {
	s := t.Format("2006-01-02 15:04:05")
	if ns := t.Nanosecond(); ns > 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
	}
	return s
}

// calciteTypeName is SqlTypeName.getName of a literal's type.
func calciteTypeName(t sql.DataType) string {
	switch t.Root {
	case sql.TypeInt:
		return "INTEGER"
	case sql.TypeTimestampLTZ:
		return "TIMESTAMP_WITH_LOCAL_TIME_ZONE"
	case sql.TypeTime:
		return "TIME"
	}
	s := t.WithNullable(true).String()
	if i := strings.IndexAny(s, "(<"); i > 0 {
		s = s[:i]
	}
	return s
}

// bindTimeTravel binds `name FOR SYSTEM_TIME AS OF <constant>`.
func (b *binder) bindTimeTravel(x *ast.TableRef) (Node, *scope, error) {
	var period string
	at := func() (int64, error) {
		millis, p, err := b.timeTravelMillis(x.SystemTimeAsOf)
		period = p
		return millis, err
	}
	id, t, versioned, err := b.env.LookupTableAt(x.Name, at)
	if err != nil {
		return nil, nil, err
	}
	if !versioned {
		return nil, nil, asOfError(x.SystemTimeAsOf)
	}
	if t.IsView() {
		return nil, nil, sql.Errorf(sql.TableException, "%s is a view, but time travel is not supported for view.", id.String())
	}
	ref, err := b.tableRef(id, t, x.Hints)
	if err != nil {
		return nil, nil, err
	}
	rel, err := b.scanOf(ref)
	if err != nil {
		return nil, nil, err
	}
	rel = &LogicalSnapshot{base: sameRow(rel), period: period}
	q := ref.ID.Name
	if x.Alias != "" {
		q = x.Alias
	}
	return rel, scopeOf(rel, q), nil
}

// timeTravel is the TimeTravel rule: a LogicalSnapshot with a constant
// period (time travel, bindTimeTravel) is its input; a lookup or temporal
// join's ($cor0.x) stays for the LookupJoin rule.
func timeTravel(_ *binder, n Node) (Node, error) {
	s, ok := n.(*LogicalSnapshot)
	if !ok || strings.HasPrefix(s.period, "$cor") {
		return nil, nil
	}
	return s.input(), nil
}
