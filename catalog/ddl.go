package catalog

import (
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// PrimaryKeyName is the constraint name Flink generates for an unnamed
// primary key: "PK_" followed by Java's List.hashCode of the column names
// (so `PRIMARY KEY (id)` is PK_3386, exactly as SHOW CREATE TABLE prints
// it in Flink).
func PrimaryKeyName(cols []string) string {
	h := int32(1)
	for _, c := range cols {
		h = 31*h + javaStringHash(c)
	}
	return fmt.Sprintf("PK_%d", h)
}

// javaStringHash is String.hashCode: over UTF-16 code units, wrapping.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// TableFromDDL builds the descriptor a CREATE TABLE declares. With a LIKE
// clause, source is the resolved LIKE table and the two are merged as
// Flink's MergeTableLikeUtil does (default strategies: INCLUDING ALL,
// OVERWRITING OPTIONS); source is ignored otherwise.
//
// Options are not validated against the connector here: Flink checks them
// when a query uses the table, and so do we (the planner calls
// connectors.Validate).
func TableFromDDL(st *ast.CreateTable, source *Table) (*Table, error) {
	t := &Table{Comment: st.Comment, Options: map[string]string{}}
	if st.Like != nil && source != nil {
		if err := mergeLike(t, st, source); err != nil {
			return nil, err
		}
	} else {
		t.SetColumns(declared(st.Columns))
		for _, o := range st.Options {
			t.Options[o.Key] = o.Value
		}
		t.PartitionKeys = append([]string(nil), st.PartitionedBy...)
		if st.Watermark != nil {
			t.Watermark = &Watermark{Column: st.Watermark.Column, Expr: st.Watermark.Expr.String(), ExprAST: st.Watermark.Expr}
		}
		if len(st.PrimaryKey) > 0 {
			t.Schema.PrimaryKey = append([]string(nil), st.PrimaryKey...)
			t.Schema.PrimaryKeyName = st.PrimaryKeyName
		}
	}
	if err := t.resolve(); err != nil {
		return nil, err
	}
	return t, nil
}

// declared turns CREATE TABLE's column definitions into table columns,
// typed as Flink's MergeTableLikeUtil types them (FlinkTypeFactory.
// toLogicalType of the derived type: a TIME(3) column is TIME(0); see
// sql.Planned).
func declared(defs []ast.ColumnDef) []TableColumn {
	out := make([]TableColumn, len(defs))
	for i, c := range defs {
		tc := TableColumn{Column: sql.Column{Name: c.Name, Type: sql.Planned(c.Type), Comment: c.Comment}}
		switch {
		case c.Expr != nil:
			tc.Kind, tc.Expr = Computed, c.Expr
		case c.Metadata:
			tc.Kind, tc.MetadataKey, tc.Virtual = Metadata, c.MetadataKey, c.Virtual
		}
		out[i] = tc
	}
	return out
}

// resolve checks the schema as Flink's DefaultSchemaResolver does and makes
// key columns NOT NULL.
func (t *Table) resolve() error {
	seen := map[string]bool{}
	for _, c := range t.Columns() {
		if seen[c.Name] {
			return sql.Errorf(sql.ValidationException, "Schema must not contain duplicate column names. Found duplicates: [%s]", c.Name)
		}
		seen[c.Name] = true
	}
	if len(t.Schema.PrimaryKey) > 0 {
		if t.Schema.PrimaryKeyName == "" {
			t.Schema.PrimaryKeyName = PrimaryKeyName(t.Schema.PrimaryKey)
		}
		for _, k := range t.Schema.PrimaryKey {
			i := t.Schema.Index(k)
			if i < 0 || t.Schema.Columns[i].Name != k {
				for _, np := range t.NonPhysical {
					if np.Name == k {
						return sql.Errorf(sql.ValidationException,
							"Invalid primary key '%s'. Column '%s' is not a physical column.", t.Schema.PrimaryKeyName, k)
					}
				}
				return sql.Errorf(sql.ValidationException,
					"Invalid primary key '%s'. Column '%s' does not exist.", t.Schema.PrimaryKeyName, k)
			}
			t.Schema.Columns[i].Type = t.Schema.Columns[i].Type.NotNull()
		}
	}
	all := t.Columns()
	metaKeys := map[string]string{}
	for i, c := range all {
		switch c.Kind {
		case Computed:
			t.NonPhysical[nonPhysicalIndex(t, c.Name)].ExprSQL = quoteColumns(c.Expr.String(), seen)
			all[i].ExprSQL = t.NonPhysical[nonPhysicalIndex(t, c.Name)].ExprSQL
		case Metadata:
			// DefaultSchemaResolver.validateDuplicatedMetadataKeys.
			if other, dup := metaKeys[c.Key()]; dup {
				return sql.Errorf(sql.ValidationException,
					"The column `%s` and `%s` in the table are both from the same metadata key '%s'. Please specify one of the columns as the metadata column and use the computed column syntax to specify the others.",
					other, c.Name, c.Key())
			}
			metaKeys[c.Key()] = c.Name
		}
	}
	for _, p := range t.PartitionKeys {
		if !seen[p] {
			names := make([]string, len(t.Schema.Columns))
			for i, c := range t.Schema.Columns {
				names[i] = "'" + c.Name + "'"
			}
			return sql.Errorf(sql.ValidationException,
				"Partition column '%s' not defined in the table schema. Available columns: [%s]", p, strings.Join(names, ", "))
		}
	}
	if t.Watermark != nil && !seen[t.Watermark.Column] {
		names := make([]string, len(all))
		for i, c := range all {
			names[i] = c.Name
		}
		return sql.Errorf(sql.ValidationException,
			"Invalid column name '%s' for rowtime attribute in watermark declaration. Available columns are: %v",
			t.Watermark.Column, names)
	}
	if t.Watermark != nil {
		t.Watermark.Expr = quoteColumns(t.Watermark.Expr, seen)
	}
	return nil
}

func nonPhysicalIndex(t *Table, name string) int {
	for i, c := range t.NonPhysical {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// quoteColumns backticks the column names in an expression's text
// (outside string literals and existing quotes), the expanded form Flink
// stores and prints for watermark expressions: "`ts` - INTERVAL '5' SECOND".
func quoteColumns(expr string, columns map[string]bool) string {
	var b strings.Builder
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\'' || c == '`' || c == '"':
			j := i + 1
			for j < len(expr) {
				if expr[j] == c {
					if j+1 < len(expr) && expr[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j < len(expr) {
				j++
			}
			b.WriteString(expr[i:j])
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(expr) && (isIdentStart(expr[j]) || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			w := expr[i:j]
			if columns[w] && (i == 0 || expr[i-1] != '.') {
				w = sql.QuoteIdentifier(w)
			}
			b.WriteString(w)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// likeStrategy is one feature's merging strategy of a LIKE clause.
type likeStrategy string

const (
	including   likeStrategy = "INCLUDING"
	excluding   likeStrategy = "EXCLUDING"
	overwriting likeStrategy = "OVERWRITING"
)

// likeStrategies applies the LIKE options over Flink's defaults.
func likeStrategies(opts []ast.LikeOption) (map[string]likeStrategy, error) {
	s := map[string]likeStrategy{
		"OPTIONS": overwriting, "WATERMARKS": including, "GENERATED": including,
		"METADATA": including, "CONSTRAINTS": including, "PARTITIONS": including,
	}
	for _, o := range opts {
		st := likeStrategy(strings.ToUpper(o.Strategy))
		f := strings.ToUpper(o.Feature)
		if f == "ALL" {
			if st == overwriting {
				// Flink: OVERWRITING ALL is allowed and applies to
				// every feature that supports it.
				for k := range s {
					s[k] = overwriting
				}
				s["CONSTRAINTS"], s["PARTITIONS"] = including, including
				continue
			}
			for k := range s {
				s[k] = st
			}
			continue
		}
		if st == overwriting && (f == "CONSTRAINTS" || f == "PARTITIONS") {
			return nil, sql.Errorf(sql.ValidationException, "Illegal merging strategy 'OVERWRITING' for '%s' option.", f)
		}
		s[f] = st
	}
	return s, nil
}

func mergeLike(t *Table, st *ast.CreateTable, src *Table) error {
	strat, err := likeStrategies(st.Like.Options)
	if err != nil {
		return err
	}
	// Columns: the source's columns first (its computed and metadata
	// ones as the GENERATED and METADATA strategies say), then the new
	// ones.
	var all []TableColumn
	srcNames := map[string]bool{}
	for _, c := range src.Columns() {
		switch {
		case c.Kind == Computed && strat["GENERATED"] == excluding,
			c.Kind == Metadata && strat["METADATA"] == excluding:
			continue
		}
		all = append(all, c)
		srcNames[c.Name] = true
	}
	for _, c := range declared(st.Columns) {
		if srcNames[c.Name] {
			return sql.Errorf(sql.ValidationException, "A column named '%s' already exists in the base table.", c.Name)
		}
		all = append(all, c)
	}
	t.SetColumns(all)
	// Primary key.
	if strat["CONSTRAINTS"] == including && len(src.Schema.PrimaryKey) > 0 {
		if len(st.PrimaryKey) > 0 {
			return sql.Errorf(sql.ValidationException,
				"The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.")
		}
		t.Schema.PrimaryKey = append([]string(nil), src.Schema.PrimaryKey...)
		t.Schema.PrimaryKeyName = src.Schema.PrimaryKeyName
	} else if len(st.PrimaryKey) > 0 {
		t.Schema.PrimaryKey = append([]string(nil), st.PrimaryKey...)
		t.Schema.PrimaryKeyName = st.PrimaryKeyName
	}
	// Partitions.
	if strat["PARTITIONS"] == including && len(src.PartitionKeys) > 0 {
		if len(st.PartitionedBy) > 0 {
			return sql.Errorf(sql.ValidationException,
				"The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS.")
		}
		t.PartitionKeys = append([]string(nil), src.PartitionKeys...)
	} else {
		t.PartitionKeys = append([]string(nil), st.PartitionedBy...)
	}
	// Watermarks.
	switch {
	case st.Watermark != nil && src.Watermark != nil && strat["WATERMARKS"] == including:
		return sql.Errorf(sql.ValidationException,
			"There already exists a watermark spec for column '%s' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.",
			src.Watermark.Column)
	case st.Watermark != nil:
		t.Watermark = &Watermark{Column: st.Watermark.Column, Expr: st.Watermark.Expr.String(), ExprAST: st.Watermark.Expr}
	case src.Watermark != nil && strat["WATERMARKS"] != excluding:
		w := *src.Watermark
		t.Watermark = &w
	}
	// Options.
	if strat["OPTIONS"] != excluding {
		for k, v := range src.Options {
			t.Options[k] = v
		}
	}
	for _, o := range st.Options {
		if old, ok := t.Options[o.Key]; ok && strat["OPTIONS"] == including {
			return sql.Errorf(sql.ValidationException,
				"There already exists an option ['%s' -> '%s']  in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.",
				o.Key, old)
		}
		t.Options[o.Key] = o.Value
	}
	return nil
}
