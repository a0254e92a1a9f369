package exec

import (
	"errors"
	"io"
	"strings"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// createView runs CREATE [TEMPORARY] VIEW: the query is validated and its
// columns resolved now, as Flink's SqlCreateViewConverter does, and the
// view is stored beside the tables (one namespace, as Flink's catalogs).
func (s *Session) createView(st *ast.CreateView) error {
	id := s.Catalogs.Qualify(st.Name)
	schema, err := plan.New(s.Env()).ViewSchema(st.Query, st.Columns)
	if err != nil {
		return err
	}
	t := &catalog.Table{Schema: schema, Comment: st.Comment, Options: map[string]string{},
		View: &catalog.View{Query: st.Query, Columns: st.Columns, Text: queryText(st)}}
	err = s.Catalogs.CreateTable(id, t, st.IfNotExists, st.Temporary)
	if st.Temporary && errors.Is(err, catalog.ErrTableExists) {
		return sql.Errorf(sql.ValidationException, "Temporary view '%s' already exists", catalog.Serializable(id))
	}
	return err
}

// queryText is the text of a CREATE VIEW's query as written: the
// statement's text from the query's position on (the whole statement when
// the position is unknown).
func queryText(st *ast.CreateView) string {
	text, at := st.SQL(), st.Query.Pos()
	line, col := st.Pos().Line, st.Pos().Col
	if !at.IsValid() || !st.Pos().IsValid() {
		return text
	}
	for i, r := range text {
		if line == at.Line && col == at.Col {
			return strings.TrimSpace(text[i:])
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return text
}

// showViews lists the views of the current database, temporary ones
// included.
func (s *Session) showViews(st *ast.Show, out io.Writer) error {
	names, err := s.Catalogs.ListTables("", "")
	if err != nil {
		return err
	}
	var views []string
	for _, n := range names {
		rt, err := s.Catalogs.GetTable(s.Catalogs.Qualify(ast.ObjectName{Table: n}))
		if err == nil && rt.Table.IsView() {
			views = append(views, n)
		}
	}
	Box(out, []string{"view name"}, filterLike(views, st), 0)
	return nil
}
