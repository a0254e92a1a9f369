package cdc

import (
	"fmt"
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
	return computedColumn{}, fmt.Errorf("Unsupported expression: %s. Supported expressions are: year,month,day,hour,minute,second,date_format,substring,truncate", fn)
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
