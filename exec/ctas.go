package exec

import (
	"context"
	"fmt"
	"io"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// createTableAs runs CREATE TABLE ... AS SELECT as Flink 1.20 does: the
// table takes the query's columns (names, types and nullability) and the
// WITH options, is created in the catalog, and the query is then submitted
// as an INSERT INTO the new table (Flink's CreateTableASOperation: a
// create followed by a SinkModifyOperation, so the job is named
// insert-into_<table>). Flink 1.20's SqlCreateTableAs.validate refuses a
// temporary table, explicit columns, a watermark, partition keys and a
// primary key (FLIP-463 allows them from Flink 2.0 on); sqlrun refuses
// them with the same messages rather than create a table Flink would not.
func (s *Session) createTableAs(ctx context.Context, st *ast.CreateTable, out io.Writer) error {
	refuse := func(what string) error {
		return sql.Errorf(sql.ValidationException, "CREATE TABLE AS SELECT syntax does not support %s yet.", what)
	}
	switch {
	case st.Temporary:
		return refuse("to create temporary table")
	case len(st.Columns) > 0:
		return refuse("to specify explicit columns")
	case st.Watermark != nil:
		return refuse("to specify explicit watermark")
	case len(st.PartitionedBy) > 0:
		return refuse("to create partitioned table")
	case len(st.PrimaryKey) > 0:
		return refuse("primary key constraints")
	case st.Distribution != nil:
		return sql.Errorf(sql.TableException, "sqlrun does not support DISTRIBUTED BY / DISTRIBUTED INTO yet, at %s", st.Distribution.At.String())
	}
	query := &ast.Query{StmtBase: ast.StmtBase{At: st.AsQuery.Pos(), Text: st.SQL()}, Body: st.AsQuery}
	pl, err := s.Planner.PhysicalPlan(ctx, s.Env(), query)
	if err != nil {
		return err
	}
	t := &catalog.Table{Schema: resultSchema(pl), Comment: st.Comment, Options: optionMap(st.Options)}
	for _, c := range t.Schema.Columns {
		if hasMultiset(c.Type) {
			// COLLECT's MULTISET is a planner type only: no connector
			// stores it and the job would be refused after the table
			// exists.
			return sql.Errorf(sql.TableException, "sqlrun does not support a column of type %s yet: column %s of %s", c.Type, c.Name, st.Name)
		}
	}
	id := s.Catalogs.Qualify(st.Name)
	if !s.DryRun {
		if err := connectors.CheckPathScheme(t.Options["path"], "option 'path' of table "+id.String()); err != nil {
			return err
		}
	}
	existed := false
	if st.IfNotExists {
		_, err := s.Catalogs.GetTable(id)
		existed = err == nil
	}
	if err := s.Catalogs.CreateTable(id, t, st.IfNotExists, false); err != nil {
		return err
	}
	if s.DryRun {
		// `sqlrun explain` creates the table in its overlay, so that later
		// statements plan against it, and runs nothing.
		return nil
	}
	// The INSERT compiles against the table, so the table is created
	// first; a job refused before it starts (sink options, a changelog the
	// sink cannot take) drops the table this statement created, so that a
	// refused CTAS leaves no catalog entry and no table directory, as
	// Flink's atomic CTAS (SupportsStaging) leaves nothing when the job
	// does not start. A job that started keeps its table.
	started, err := s.insertStarted(ctx, ctasInsert(st), out)
	if err != nil && !started && !existed {
		if derr := s.Catalogs.DropTable(id, true, false); derr != nil {
			return fmt.Errorf("%w (and dropping table %s again failed: %v)", err, id, derr)
		}
	}
	return err
}

// ctasInsert is the INSERT a CREATE TABLE ... AS SELECT runs once its table
// exists.
func ctasInsert(st *ast.CreateTable) *ast.Insert {
	return &ast.Insert{StmtBase: ast.StmtBase{At: st.Pos(), Text: st.SQL()}, Table: st.Name, Query: st.AsQuery}
}

// isCTAS reports whether stmt is CREATE TABLE ... AS SELECT.
func isCTAS(stmt ast.Statement) bool {
	ct, ok := stmt.(*ast.CreateTable)
	return ok && ct.AsQuery != nil
}

// hasMultiset reports a MULTISET type in t, nested ones included.
func hasMultiset(t sql.DataType) bool {
	if t.Root == sql.TypeMultiset {
		return true
	}
	if t.Elem != nil && hasMultiset(*t.Elem) || t.Value != nil && hasMultiset(*t.Value) {
		return true
	}
	for _, f := range t.Fields {
		if hasMultiset(f.Type) {
			return true
		}
	}
	return false
}
