package cdc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// computedColumn is one --computed-column: its name, Paimon type and the
// SQL expression over the source's columns that computes it.
type computedColumn struct {
	name string
	typ  sql.DataType
	expr string
}

// buildComputedColumns is ComputedColumnUtils.buildComputedColumns:
// 'name=func(field[, literal...])' with Paimon's Expression functions,
// computed in SQL by the job.
func buildComputedColumns(args []string, fields []sql.Column) ([]computedColumn, error) {
	var out []computedColumn
	for _, arg := range args {
		name, expr, ok := strings.Cut(arg, "=")
		name, expr = strings.TrimSpace(name), strings.TrimSpace(expr)
		if !ok || name == "" {
			return nil, fmt.Errorf("Invalid computed column argument: %s. Please use format 'column-name=expr-name(args, ...)'.", arg)
		}
		open := strings.IndexByte(expr, '(')
		if open < 0 || !strings.HasSuffix(expr, ")") {
			return nil, fmt.Errorf("Invalid expression: %s. Please use format 'expr-name(args, ...)'.", expr)
		}
		fn := strings.ToLower(strings.TrimSpace(expr[:open]))
		var params []string
		for _, p := range strings.Split(expr[open+1:len(expr)-1], ",") {
			params = append(params, strings.TrimSpace(p))
		}
		// Expression.create: the function first, then its column.
		switch {
		case !slices.Contains(strings.Split(paimonExpressions, ","), fn):
			return nil, fmt.Errorf("Unsupported expression: %s. Supported expressions are: %s", expr[:open], paimonExpressions)
		case !slices.Contains(sqlrunExpressions, fn):
			return nil, fmt.Errorf("computed column %s: '%s' is not supported by sqlrun yet", name, fn)
		}
		ref := params[0]
		lits := params[1:]
		var field *sql.Column
		for i := range fields {
			if fields[i].Name == ref {
				field = &fields[i]
			}
		}
		if field == nil {
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.Name
			}
			return nil, fmt.Errorf("Referenced field '%s' is not in given fields: [%s].", ref, strings.Join(names, ", "))
		}
		c, err := computed(name, fn, field, lits)
		if err != nil {
			return nil, fmt.Errorf("computed column %s: %w", name, err)
		}
		out = append(out, c)
	}
	return out, nil
}

var timeParts = map[string]string{"year": "yyyy", "month": "MM", "day": "dd", "hour": "HH", "minute": "mm", "second": "ss"}

func computed(name, fn string, f *sql.Column, lits []string) (computedColumn, error) {
	col := ident(f.Name)
	isTime := f.Type.Root == sql.TypeTimestamp || f.Type.Root == sql.TypeDate || f.Type.Root == sql.TypeTimestampLTZ
	asTimestamp := func() (string, error) {
		if !isTime {
			return "", fmt.Errorf("'%s' of a %s column (epoch numbers or strings) is not supported by sqlrun yet; use a DATE, DATETIME or TIMESTAMP column", fn, f.Type)
		}
		return "CAST(" + col + " AS TIMESTAMP(9))", nil
	}
	switch fn {
	case "year", "month", "day", "hour", "minute", "second":
		if len(lits) > 1 {
			return computedColumn{}, fmt.Errorf("TimeToIntConverter supports 0 or 1 argument, but found '%d'.", len(lits))
		}
		if len(lits) == 1 {
			return computedColumn{}, fmt.Errorf("'%s' with a time unit is not supported by sqlrun yet", fn)
		}
		ts, err := asTimestamp()
		if err != nil {
			return computedColumn{}, err
		}
		return computedColumn{name: name, typ: sql.Int(),
			expr: fmt.Sprintf("CAST(DATE_FORMAT(%s, '%s') AS INT)", ts, timeParts[fn])}, nil
	case "date_format":
		if len(lits) != 1 {
			if len(lits) == 2 {
				return computedColumn{}, fmt.Errorf("'date_format' with a time unit is not supported by sqlrun yet")
			}
			return computedColumn{}, fmt.Errorf("'date_format' supports 1 or 2 arguments, but found '%d'.", len(lits))
		}
		ts, err := asTimestamp()
		if err != nil {
			return computedColumn{}, err
		}
		return computedColumn{name: name, typ: sql.String(), expr: fmt.Sprintf("DATE_FORMAT(%s, %s)", ts, quote(lits[0]))}, nil
	case "substring":
		if len(lits) != 1 && len(lits) != 2 {
			return computedColumn{}, fmt.Errorf("'substring' expression supports one or two arguments, but found '%d'.", len(lits))
		}
		begin, err := strconv.Atoi(lits[0])
		end := -1
		if err == nil && len(lits) == 2 {
			end, err = strconv.Atoi(lits[1])
		}
		if err != nil {
			return computedColumn{}, fmt.Errorf("The index arguments '[%s]' contain non integer value.", strings.Join(lits, ", "))
		}
		if begin < 0 {
			return computedColumn{}, fmt.Errorf("begin index argument (%d) of 'substring' must be >= 0.", begin)
		}
		src := "CAST(" + col + " AS STRING)"
		if end < 0 {
			return computedColumn{name: name, typ: sql.String(), expr: fmt.Sprintf("SUBSTRING(%s FROM %d)", src, begin+1)}, nil
		}
		if end <= begin {
			return computedColumn{}, fmt.Errorf("end index (%d) must be larger than begin index (%d).", end, begin)
		}
		return computedColumn{name: name, typ: sql.String(), expr: fmt.Sprintf("SUBSTRING(%s FROM %d FOR %d)", src, begin+1, end-begin)}, nil
	case "truncate":
		if len(lits) != 1 {
			return computedColumn{}, fmt.Errorf("'truncate' expression supports one argument, but found '%d'.", len(lits))
		}
		w, err := strconv.Atoi(lits[0])
		if err != nil {
			return computedColumn{}, fmt.Errorf("Invalid width value for truncate function: %s, expected integer.", lits[0])
		}
		switch f.Type.Root {
		case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt:
			return computedColumn{name: name, typ: f.Type.WithNullable(true),
				expr: fmt.Sprintf("%s - MOD(MOD(%s, %d) + %d, %d)", col, col, w, w, w)}, nil
		case sql.TypeChar, sql.TypeVarChar:
			return computedColumn{name: name, typ: f.Type.WithNullable(true), expr: fmt.Sprintf("SUBSTRING(%s FROM 1 FOR %d)", col, w)}, nil
		}
		return computedColumn{}, fmt.Errorf("Unsupported field type for truncate function: %s.", f.Type)
	}
	return computedColumn{}, fmt.Errorf("'%s' is not supported by sqlrun yet", fn)
}

// paimonExpressions are the names of Paimon 1.4.1's computed column
// functions (Expression.ExpressionFunction) in the order of its
// EXPRESSION_FUNCTIONS HashMap, which its "Unsupported expression" message
// lists.
const paimonExpressions = "year,upper,lower,substring,minute,second,cast,month,hour,truncate,trim,now,date_format,day"

// sqlrunExpressions are the ones the table action computes.
var sqlrunExpressions = []string{"year", "month", "day", "hour", "minute", "second", "date_format", "substring", "truncate"}

// checkDatabaseComputed is what --computed_column of mysql_sync_database
// does in Paimon 1.4.1: SyncDatabaseActionBase.withComputedColumnArgs
// builds the columns with ComputedColumnUtils.buildComputedColumns over no
// fields at all, so a function of a column (every one but 'cast' and 'now')
// fails with "Referenced field '...' is not in given fields: []." as it
// does there. 'cast' (a constant) and 'now' are refused by name: sqlrun has
// not built them. The arguments are checked in Paimon's order: their form
// first, then each column, those another references first (DfsSort).
func checkDatabaseComputed(args []string) error {
	type col struct{ name, fn, ref string }
	var cols []col
	for _, arg := range args {
		kv := strings.Split(arg, "=")
		if len(kv) != 2 {
			return fmt.Errorf("Invalid computed column argument: %s. Please use format 'column-name=expr-name(args, ...)'.", arg)
		}
		expr := strings.TrimSpace(kv[1])
		left, right := strings.IndexByte(expr, '('), strings.IndexByte(expr, ')')
		if left <= 0 || right <= left {
			return fmt.Errorf("Invalid expression: %s. Please use format 'expr-name(args, ...)'.", expr)
		}
		ref, _, _ := strings.Cut(expr[left+1:right], ",")
		cols = append(cols, col{name: strings.TrimSpace(kv[0]), fn: strings.TrimSpace(expr[:left]), ref: strings.TrimSpace(ref)})
	}
	// The columns another one references come before it.
	byName := map[string]int{}
	for i, c := range cols {
		byName[c.name] = i
	}
	seen := make([]bool, len(cols))
	var order []col
	var visit func(i int)
	visit = func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		if j, ok := byName[cols[i].ref]; ok {
			visit(j)
		}
		order = append(order, cols[i])
	}
	for i := range cols {
		visit(i)
	}
	for _, c := range order {
		switch fn := strings.ToLower(c.fn); {
		case !slices.Contains(strings.Split(paimonExpressions, ","), fn):
			return fmt.Errorf("Unsupported expression: %s. Supported expressions are: %s", c.fn, paimonExpressions)
		case fn == "cast" || fn == "now":
			return fmt.Errorf("--computed_column '%s' of mysql_sync_database: '%s' is not supported by sqlrun yet (Paimon 1.4.1's database action computes only 'cast' and 'now', which reference no column)", c.name, fn)
		default:
			return fmt.Errorf("Referenced field '%s' is not in given fields: [].", c.ref)
		}
	}
	return nil
}

// metadataColumn is a --metadata-column: Paimon's CdcMetadataConverter
// of MySQL (CdcMetadataProcessor.MYSQL_METADATA_PROCESSOR), read from the
// 'mysql-cdc' source's metadata key of the same name.
type metadataColumn struct {
	name, key string
	typ       sql.DataType
}

// parseMetadataColumns is SyncTableActionFactoryBase's --metadata_column:
// one value is a comma-separated list; the prefix goes before each name
// (PrefixedMetadataConverter).
func parseMetadataColumns(args []string, prefix string) ([]metadataColumn, error) {
	if len(args) == 1 {
		args = strings.Split(args[0], ",")
	}
	var out []metadataColumn
	for _, k := range args {
		k = strings.TrimSpace(k)
		var t sql.DataType
		switch k {
		case "database_name", "table_name":
			t = sql.String().NotNull()
		case "op_ts":
			t = sql.TimestampLTZ(3).NotNull()
		default:
			return nil, fmt.Errorf("--metadata_column %q: MySQL's metadata columns are database_name, table_name and op_ts", k)
		}
		out = append(out, metadataColumn{name: prefix + k, key: k, typ: t})
	}
	return out, nil
}
