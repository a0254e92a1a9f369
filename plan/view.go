package plan

import (
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// maxViewDepth bounds view expansion: a view dropped and created again
// over a view that reads it would otherwise expand forever.
const maxViewDepth = 64

// ViewSchema validates a CREATE VIEW's query as Flink does when it
// creates the view, and returns the view's columns: the query's, renamed
// by the column list when there is one.
func (p *Planner) ViewSchema(q ast.QueryExpr, columns []string) (sql.Schema, error) {
	b := p.binder()
	r, err := b.bindQuery(q)
	if err != nil {
		return sql.Schema{}, err
	}
	names := r.Names()
	if len(columns) > 0 {
		if len(columns) != len(names) {
			return sql.Schema{}, sql.Errorf(sql.ValidationException,
				"VIEW definition and input fields not match:\n\tDef fields: [%s].\n\tInput fields: [%s].",
				strings.Join(columns, ", "), strings.Join(names, ", "))
		}
		names = columns
	}
	var s sql.Schema
	for i, n := range names {
		// The view's ResolvedSchema: toLogicalType of the query's row type
		// (a TIME(p) column is TIME(0), sql.Planned).
		s.Columns = append(s.Columns, sql.Column{Name: n, Type: sql.Planned(r.Types()[i])})
	}
	return s, nil
}

// bindView expands a view: its query, bound without the CTEs of the query
// that reads it, renamed by its column list.
func (b *binder) bindView(name string, v *catalog.View) (Node, error) {
	if b.viewDepth >= maxViewDepth {
		return nil, sql.Errorf(sql.ValidationException, "View %s expands into itself (more than %d nested views).", name, maxViewDepth)
	}
	saved := b.ctes
	b.ctes, b.viewDepth = nil, b.viewDepth+1
	r, err := b.bindQuery(v.Query)
	b.ctes, b.viewDepth = saved, b.viewDepth-1
	if err != nil {
		return nil, err
	}
	if len(v.Columns) > 0 && len(v.Columns) == len(r.Names()) && !slices.Equal(v.Columns, r.Names()) {
		r = renamed(r, v.Columns)
	}
	return r, nil
}
