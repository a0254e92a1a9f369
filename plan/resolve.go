package plan

import (
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// This file resolves compound identifiers (t.c.f, c.f, c.d.f and a bare
// f) as Calcite's DelegatingScope.fullyQualify and resolveInNamespace do
// under Flink's type factory. Flink's FlinkTypeFactory types a table's
// row FULLY_QUALIFIED (a column is always named) and every ROW column
// type, at any depth, PEEK_FIELDS_NO_EXPAND: a name a row does not have
// is looked for inside each of its ROW fields, so that c.e reads field e
// of row d inside row c (c.d.e) and a bare e does too (SourceWatermarkTest
// .testWatermarkOnNestedRowWithNestedProjection). A name the row has is
// never looked for deeper. When a name resolves more than one way, the
// way with no peeked step wins over one with any, then the shorter path;
// a tie is "Column '...' is ambiguous".
//
// sqlrun peeks into every ROW typed value, where Flink does not peek into
// a ROW(...) constructor's type (Calcite's createStructType makes it
// FULLY_QUALIFIED): only a query Flink rejects resolves differently.

// pathStep is one field of a resolution: its name, and whether the name
// was peeked (not written).
type pathStep struct {
	name string
	peek bool
}

// resolution is one way names resolve in a table of the scope: column
// col, then fields steps (the column's own step is peek when the column
// itself was peeked into).
type resolution struct {
	col     int
	colPeek bool
	steps   []pathStep
}

func (r resolution) peeked() bool {
	if r.colPeek {
		return true
	}
	for _, s := range r.steps {
		if s.peek {
			return true
		}
	}
	return false
}

func nameEq(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// resolveInTable resolves names among the columns cols of one table
// (Calcite's resolveInNamespace on its FULLY_QUALIFIED row type).
func (s *scope) resolveInTable(cols []int, names []string, fold bool) []resolution {
	if len(names) == 0 {
		return nil
	}
	var out []resolution
	for _, i := range cols {
		if nameEq(s.cols[i].name, names[0], fold) {
			for _, steps := range resolveInType(s.cols[i].t, names[1:], nil, fold) {
				out = append(out, resolution{col: i, steps: steps})
			}
			return out
		}
	}
	for _, i := range cols {
		if s.cols[i].t.Root == sql.TypeRow {
			for _, steps := range resolveInType(s.cols[i].t, names, nil, fold) {
				out = append(out, resolution{col: i, colPeek: true, steps: steps})
			}
		}
	}
	return out
}

// resolveInType resolves names among the fields of t (a ROW type is
// PEEK_FIELDS_NO_EXPAND), appending each way's steps after path.
func resolveInType(t sql.DataType, names []string, path []pathStep, fold bool) [][]pathStep {
	if len(names) == 0 {
		return [][]pathStep{path}
	}
	if t.Root != sql.TypeRow {
		return nil
	}
	with := func(name string, peek bool) []pathStep {
		return append(path[:len(path):len(path)], pathStep{name: name, peek: peek})
	}
	for _, f := range t.Fields {
		if nameEq(f.Name, names[0], fold) {
			return resolveInType(f.Type, names[1:], with(f.Name, false), fold)
		}
	}
	var out [][]pathStep
	for _, f := range t.Fields {
		if f.Type.Root == sql.TypeRow {
			out = append(out, resolveInType(f.Type, names, with(f.Name, true), fold)...)
		}
	}
	return out
}

// tables groups the scope's columns by their qualifier, in order.
func (s *scope) tables() (quals []string, cols map[string][]int) {
	cols = map[string][]int{}
	for i, c := range s.cols {
		if c.hidden {
			continue // a value generator's: only read qualified
		}
		if _, ok := cols[c.qualifier]; !ok {
			quals = append(quals, c.qualifier)
		}
		cols[c.qualifier] = append(cols[c.qualifier], i)
	}
	return quals, cols
}

// best picks the resolution fullyQualify keeps: fewer peeked steps (no
// peek before any), then the shorter path; ok is false on a tie.
func best(rs []resolution) (resolution, bool) {
	sort.SliceStable(rs, func(i, j int) bool {
		pi, pj := rs[i].peeked(), rs[j].peeked()
		if pi != pj {
			return !pi
		}
		return len(rs[i].steps) < len(rs[j].steps)
	})
	if len(rs) > 1 && rs[0].peeked() == rs[1].peeked() && len(rs[0].steps) == len(rs[1].steps) {
		return resolution{}, false
	}
	return rs[0], true
}

// resolvePath resolves a column reference, with the field names more of
// a longer compound identifier after it (a.b.c.d: the parser's field
// access), to a column of the scope and the ROW fields to read from it.
func (s *scope) resolvePath(ref *ast.ColumnRef, more ...string) (int, []fieldStep, error) {
	names := append(strings.Split(ref.Qualifier, "."), ref.Name)
	if ref.Qualifier == "" {
		names = []string{ref.Name}
	}
	names = append(names, more...)
	// offsets of each name in the identifier's text, for error positions
	offs := make([]int, len(names)+1)
	for i, n := range names {
		offs[i+1] = offs[i] + len(n) + 1
	}
	span := func(from, to int) (ast.Pos, int) { // names[from:to]
		at := ref.At
		at.Col += offs[from]
		return at, offs[to] - offs[from] - 1
	}
	if s.innerFrom > 0 {
		inner := &scope{cols: s.cols[s.innerFrom:]}
		i, path, err := inner.resolvePath(ref, more...)
		if err == nil {
			return i + s.innerFrom, path, nil
		}
		if strings.Contains(err.Error(), "is ambiguous") {
			return 0, nil, err
		}
		if j, opath, oerr := (&scope{cols: s.cols[:s.innerFrom]}).resolvePath(ref, more...); oerr == nil {
			return j, opath, nil
		}
		return 0, nil, err
	}
	steps := func(r resolution) []fieldStep {
		out := make([]fieldStep, len(r.steps))
		for i, st := range r.steps {
			out[i] = fieldStep{name: st.name}
		}
		return out
	}
	quals, byQual := s.tables()
	if len(names) == 1 {
		i, err := s.resolve(ref)
		if err == nil {
			// Another table that resolves the name by peeking makes it
			// ambiguous (ListScope.findQualifyingTables).
			if _, fixed := s.fixed[ref]; !fixed {
				if _, using := s.usingColumn(ref); !using {
					for _, q := range quals {
						if q != s.cols[i].qualifier && len(s.resolveInTable(byQual[q], names, false)) > 0 {
							at, w := span(0, 1)
							return 0, nil, validationErr(at, w, "Column '%s' is ambiguous", ref.Name)
						}
					}
				}
			}
			return i, nil, nil
		}
		if !strings.Contains(err.Error(), "not found in any table") {
			return 0, nil, err
		}
		var found []resolution
		tables := 0
		for _, q := range quals {
			if rs := s.resolveInTable(byQual[q], names, false); len(rs) > 0 {
				tables++
				found = rs
			}
		}
		switch {
		case tables == 0:
			return 0, nil, err
		case tables > 1:
			at, w := span(0, 1)
			return 0, nil, validationErr(at, w, "Column '%s' is ambiguous", ref.Name)
		}
		r, ok := best(found)
		if !ok {
			at, w := span(0, 1)
			return 0, nil, validationErr(at, w, "Column '%s' is ambiguous", ref.Name)
		}
		return r.col, steps(r), nil
	}
	// The longest prefix naming a table, then the rest in that table.
	var cols []int
	from := 0
	table := ""
	for k := len(names) - 1; k >= 1 && cols == nil; k-- {
		prefix := strings.Join(names[:k], ".")
		for i, c := range s.cols {
			if qualifies(c.qualifier, prefix) {
				cols = append(cols, i)
			}
		}
		from, table = k, prefix
	}
	if cols == nil {
		// No table prefix: the first name is a column of exactly one
		// table, a ROW (or only found inside one), read in that table.
		at, w := span(0, len(names)-1)
		notFound := validationErr(at, w, "Table '%s' not found", strings.Join(names[:len(names)-1], "."))
		var owner []string
		for _, q := range quals {
			if len(s.resolveInTable(byQual[q], names[:1], false)) > 0 {
				owner = append(owner, q)
			}
		}
		if len(owner) != 1 {
			return 0, nil, notFound
		}
		cols, from, table = byQual[owner[0]], 0, owner[0]
		if k := strings.LastIndexByte(table, '.'); k >= 0 {
			table = table[k+1:]
		}
		for _, i := range cols {
			if s.cols[i].name == names[0] && s.cols[i].t.Root != sql.TypeRow {
				return 0, nil, notFound
			}
		}
	}
	suffix := names[from:]
	rs := s.resolveInTable(cols, suffix, false)
	switch len(rs) {
	case 0:
		if lib := s.resolveInTable(cols, suffix, true); len(lib) > 0 {
			r := lib[0]
			last := s.cols[r.col].name
			if len(r.steps) > 0 {
				last = r.steps[len(r.steps)-1].name
			}
			at, w := span(from, len(names))
			return 0, nil, validationErr(at, w, "Column '%s' not found in table '%s'; did you mean '%s'?",
				strings.Join(suffix, "."), table, last)
		}
		// The shortest suffix that fails: "a.b" when "a" resolves.
		k := len(suffix) - 1
		for ; k > 0; k-- {
			if len(s.resolveInTable(cols, suffix[:k], false)) > 0 {
				break
			}
		}
		at, w := span(from, from+k+1)
		return 0, nil, validationErr(at, w, "Column '%s' not found in table '%s'", strings.Join(suffix[:k+1], "."), table)
	case 1:
		return rs[0].col, steps(rs[0]), nil
	}
	r, ok := best(rs)
	if !ok {
		at, w := span(from, len(names))
		return 0, nil, validationErr(at, w, "Column '%s' is ambiguous", strings.Join(suffix, "."))
	}
	return r.col, steps(r), nil
}
