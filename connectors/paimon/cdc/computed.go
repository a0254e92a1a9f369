package cdc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// computedColumn is one --computed-column: its name, Paimon type and the
// SQL expression over the source's columns that computes it.
type computedColumn struct {
	name string
	typ  sql.DataType
	expr string
}

// computedArg is one parsed --computed_column: 'name=fn(args...)'.
type computedArg struct {
	name, fn string
	args     []string // as split by commas, untrimmed
}

// parseComputedArgs is ComputedColumnUtils.sortComputedColumnArgs: each
// argument's form checked, then the columns ordered so that one another
// references (by its first argument) comes before it (DfsSort). A name
// given twice keeps its first place and its last expression, as the
// LinkedHashMap there does.
func parseComputedArgs(args []string) ([]computedArg, error) {
	byName := map[string]computedArg{}
	var names []string
	ref := map[string]string{}
	for _, arg := range args {
		kv := strings.Split(arg, "=")
		if len(kv) != 2 {
			return nil, fmt.Errorf("Invalid computed column argument: %s. Please use format 'column-name=expr-name(args, ...)'.", arg)
		}
		expr := strings.TrimSpace(kv[1])
		left, right := strings.IndexByte(expr, '('), strings.IndexByte(expr, ')')
		if left <= 0 || right <= left {
			return nil, fmt.Errorf("Invalid expression: %s. Please use format 'expr-name(args, ...)'.", expr)
		}
		name := strings.TrimSpace(kv[0])
		c := computedArg{name: name, fn: expr[:left], args: strings.Split(expr[left+1:right], ",")}
		if _, ok := byName[name]; !ok {
			names = append(names, name)
		}
		byName[name], ref[name] = c, strings.TrimSpace(c.args[0])
	}
	order, err := dfsSortKeys(names, ref)
	if err != nil {
		return nil, err
	}
	out := make([]computedArg, len(order))
	for i, n := range order {
		out[i] = byName[n]
	}
	return out, nil
}

// dfsSortKeys is Paimon's DfsSort.sortKeys: keys (in insertion order) with
// the key each depends on; the keys no other key's dependency names come
// in their order after a depth-first walk from each dependent key over
// its dependents, visited in Java HashSet order, and the whole reversed.
func dfsSortKeys(keys []string, dep map[string]string) ([]string, error) {
	in := map[string]bool{}
	for _, k := range keys {
		in[k] = true
	}
	rev := map[string][]string{} // insertion order; iterated in HashSet order
	var noDeps []string
	for _, k := range keys {
		if v := dep[k]; !in[v] {
			noDeps = append(noDeps, k)
		} else {
			rev[v] = append(rev[v], k)
		}
	}
	var sorted []string
	visited, temp := map[string]bool{}, map[string]bool{}
	var dfs func(n string) error
	dfs = func(n string) error {
		if temp[n] {
			return fmt.Errorf("Cycle detected: %s", n)
		}
		if visited[n] {
			return nil
		}
		temp[n] = true
		for _, d := range javaHashOrder(rev[n]) {
			if err := dfs(d); err != nil {
				return err
			}
		}
		delete(temp, n)
		visited[n] = true
		sorted = append(sorted, n)
		return nil
	}
	for _, k := range keys {
		if !in[dep[k]] || visited[k] {
			continue
		}
		if err := dfs(k); err != nil {
			return nil, err
		}
	}
	slices.Reverse(noDeps)
	sorted = append(sorted, noDeps...)
	slices.Reverse(sorted)
	return sorted, nil
}

// javaHashOrder is the order a java.util.HashSet (or a HashMap's keySet)
// iterates distinct strings added in the given order: by bucket of the
// spread String.hashCode (HashMap.hash), in insertion order within a
// bucket, in the table as large as the insertions made it: it doubles from
// 16 slots when more than 3/4 full, and when a bucket holding 8 entries
// takes another while the table has fewer than 64 slots (treeifyBin
// resizes instead). A resize keeps each bucket's order, so only the final
// size matters. Trees (a bucket of more than 8 in a table of 64 or more)
// are not modelled.
func javaHashOrder(keys []string) []string {
	hash := func(s string) uint32 {
		var h int32
		for _, u := range utf16.Encode([]rune(s)) {
			h = 31*h + int32(u)
		}
		return uint32(h) ^ uint32(h)>>16
	}
	capacity := 16
	for i, k := range keys {
		idx := hash(k) & uint32(capacity-1)
		inBucket := 0
		for _, o := range keys[:i] {
			if hash(o)&uint32(capacity-1) == idx {
				inBucket++
			}
		}
		if inBucket >= 8 && capacity < 64 {
			capacity *= 2
		}
		if i+1 > capacity*3/4 {
			capacity *= 2
		}
	}
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b string) int {
		return int(hash(a)&uint32(capacity-1)) - int(hash(b)&uint32(capacity-1))
	})
	return out
}

// buildComputedColumns is ComputedColumnUtils.buildComputedColumns:
// 'name=func(field[, literal...])' with Paimon's Expression functions,
// computed in SQL by the job, in the order sortComputedColumnArgs gives
// them. A column may reference a physical field or a computed column
// before it.
func buildComputedColumns(args []string, fields []sql.Column) ([]computedColumn, error) {
	sorted, err := parseComputedArgs(args)
	if err != nil {
		return nil, err
	}
	// typeMapping: the physical fields, then each computed column as it
	// is built; an input is its SQL expression.
	type input struct {
		col  sql.Column
		expr string
	}
	var known []input
	for _, f := range fields {
		known = append(known, input{f, ident(f.Name)})
	}
	var out []computedColumn
	for _, a := range sorted {
		fn := strings.ToLower(strings.TrimSpace(a.fn))
		// Expression.create: the function first, then its column.
		switch {
		case !slices.Contains(strings.Split(paimonExpressions, ","), fn):
			return nil, fmt.Errorf("Unsupported expression: %s. Supported expressions are: %s", strings.TrimSpace(a.fn), paimonExpressions)
		case fn == "cast" || fn == "now":
			c, err := constantComputed(a.name, fn, a.args)
			if err != nil {
				return nil, fmt.Errorf("computed column %s: %w", a.name, err)
			}
			out = append(out, c)
			known = append(known, input{sql.Column{Name: c.name, Type: c.typ}, "(" + c.expr + ")"})
			continue
		}
		ref := strings.TrimSpace(a.args[0])
		var lits []string
		for _, l := range a.args[1:] {
			lits = append(lits, strings.TrimSpace(l))
		}
		var in *input
		for i := range known {
			if known[i].col.Name == ref {
				in = &known[i]
			}
		}
		if in == nil {
			names := make([]string, len(known))
			for i, k := range known {
				names[i] = k.col.Name
			}
			return nil, fmt.Errorf("Referenced field '%s' is not in given fields: [%s].", ref, strings.Join(javaHashOrder(names), ", "))
		}
		c, err := computed(a.name, fn, &in.col, in.expr, lits)
		if err != nil {
			return nil, fmt.Errorf("computed column %s: %w", a.name, err)
		}
		out = append(out, c)
		known = append(known, input{sql.Column{Name: c.name, Type: c.typ}, "(" + c.expr + ")"})
	}
	return out, nil
}

// constantComputed is Expression's CAST and NOW, which reference no
// column: cast(value[, type]) is the value as the type (STRING without
// one; DataTypeJsonParser.parseAtomicTypeSQLString), now() the local
// time of the row's processing as TIMESTAMP(3) (NowExpression:
// LocalDateTime.now()).
func constantComputed(name, fn string, args []string) (computedColumn, error) {
	if fn == "now" {
		return computedColumn{name: name, typ: sql.Timestamp(3), expr: "CAST(LOCALTIMESTAMP AS TIMESTAMP(3))"}, nil
	}
	if len(args) != 1 && len(args) != 2 {
		return computedColumn{}, fmt.Errorf("'cast' expression supports one or two arguments, but found '%d'.", len(args))
	}
	t := sql.String()
	if len(args) == 2 {
		var err error
		if t, err = schema.ParseTypeString(strings.TrimSpace(args[1])); err != nil {
			return computedColumn{}, fmt.Errorf("'cast' type %q: %w", strings.TrimSpace(args[1]), err)
		}
		t = t.WithNullable(true)
	}
	ts, err := sqlType(t)
	if err != nil {
		return computedColumn{}, err
	}
	return computedColumn{name: name, typ: t, expr: fmt.Sprintf("CAST(%s AS %s)", quote(args[0]), ts)}, nil
}

// javaWhitespace is what java.lang.String.trim removes from both ends:
// every character up to U+0020, control characters included, as a
// Unicode string literal (the generated script shows no control
// characters).
var javaWhitespace = func() string {
	var b strings.Builder
	b.WriteString("U&'")
	for c := 0; c <= ' '; c++ {
		fmt.Fprintf(&b, "\\%04X", c)
	}
	b.WriteString("'")
	return b.String()
}()

var timeParts = map[string]string{"year": "yyyy", "month": "MM", "day": "dd", "hour": "HH", "minute": "mm", "second": "ss"}

func computed(name, fn string, f *sql.Column, col string, lits []string) (computedColumn, error) {
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
	case "upper", "lower", "trim":
		// NoLiteralsStringExpressionBase: a VARCHAR column, no literal;
		// java.lang.String's toUpperCase / toLowerCase / trim.
		if f.Type.Root != sql.TypeVarChar {
			return computedColumn{}, fmt.Errorf("'%s' expression only supports type root of 'VARCHAR', but found '%s'.", fn, schema.RootName(f.Type))
		}
		if len(lits) != 0 {
			return computedColumn{}, fmt.Errorf("'%s' expression only supports 0 argument, but found '%d'.", fn, len(lits))
		}
		expr := fmt.Sprintf("%s(%s)", strings.ToUpper(fn), col)
		if fn == "trim" {
			expr = fmt.Sprintf("TRIM(BOTH %s FROM %s)", javaWhitespace, col)
		}
		return computedColumn{name: name, typ: sql.String(), expr: expr}, nil
	}
	return computedColumn{}, fmt.Errorf("'%s' is not supported by sqlrun yet", fn)
}

// paimonExpressions are the names of Paimon 1.4.1's computed column
// functions (Expression.ExpressionFunction) in the order of its
// EXPRESSION_FUNCTIONS HashMap, which its "Unsupported expression" message
// lists.
const paimonExpressions = "year,upper,lower,substring,minute,second,cast,month,hour,truncate,trim,now,date_format,day"

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
