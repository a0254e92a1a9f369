package exec

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// call runs CALL sys.<procedure>(...), a procedure of the current catalog
// (catalog.Procedures), and prints its result as Flink prints a
// procedure's result: a one-column `result` table.
// Procedures run synchronously, as Paimon's do with table.dml-sync.
func (s *Session) call(ctx context.Context, st *ast.Call, out io.Writer) error {
	p := st.Procedure
	if isReconcile(p) {
		return s.reconcile(ctx, st, out)
	}
	// Procedures belong to the catalog (Paimon's catalog has them, the
	// in-memory default_catalog has none), as in Flink.
	var proc catalog.Procedure
	ok := false
	if cur, err := s.Catalogs.Catalog(s.Catalogs.CurrentCatalog()); err == nil {
		if ps, is := cur.(catalog.Procedures); is {
			proc, ok = ps.Procedure(strings.ToLower(p.Table))
		}
	}
	if !ok || !strings.EqualFold(p.Database, "sys") || p.Catalog != "" {
		return sql.Errorf(sql.ValidationException, "Procedure %s does not exist.", p.String())
	}
	args := map[string]string{}
	for i, e := range st.Args {
		name := ""
		if st.ArgNames != nil {
			name = strings.Trim(st.ArgNames[i], "`")
		}
		if name == "" {
			if i >= len(proc.Params) {
				return sql.Errorf(sql.ValidationException, "No match found for function signature %s: too many arguments.", p.String())
			}
			name = proc.Params[i]
		} else if !contains(proc.Params, name) {
			return sql.Errorf(sql.ValidationException, "Procedure %s has no parameter '%s' (parameters: %s).", p.String(), name, strings.Join(proc.Params, ", "))
		}
		v, err := literalArg(e)
		if err != nil {
			return fmt.Errorf("procedure %s argument %s: %w", p.String(), name, err)
		}
		args[name] = v
	}
	if contains(proc.Params, "table") && args["table"] == "" {
		return sql.Errorf(sql.ValidationException, "Procedure %s needs the 'table' argument ('database.table').", p.String())
	}
	pctx := catalog.ProcedureContext{Streaming: s.Config.Streaming(), Now: s.Now(), Table: s.procedureTable}
	if proc.CallRows != nil {
		rows, err := proc.CallRows(pctx, args)
		if err != nil {
			return err
		}
		cells := make([][]string, len(rows))
		for i, r := range rows {
			cells[i] = []string{r}
		}
		Box(out, []string{proc.Column}, cells, 0)
		return nil
	}
	res, err := proc.Call(pctx, args)
	if err != nil {
		return err
	}
	Box(out, []string{"result"}, [][]string{{res}}, 0)
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// literalArg is a procedure argument's value: procedures take literals.
func literalArg(e ast.Expr) (string, error) {
	switch x := e.(type) {
	case *ast.Literal:
		if x.Value == nil {
			return "", nil
		}
		if s, ok := x.Value.(string); ok {
			return s, nil
		}
		return fmt.Sprint(x.Value), nil
	case *ast.Unary:
		v, err := literalArg(x.X)
		if err != nil {
			return "", err
		}
		if x.Op == "-" {
			return "-" + v, nil
		}
		return v, nil
	}
	return "", sql.Errorf(sql.ValidationException, "Procedure arguments must be literals, got %s.", e)
}

// procedureTable resolves a procedure's 'database.table' (or 'table' in
// the current database) as a query would.
func (s *Session) procedureTable(name string) (*catalog.LocatedTable, error) {
	n := ast.ObjectName{Table: name}
	if db, t, ok := strings.Cut(name, "."); ok {
		n = ast.ObjectName{Database: db, Table: t}
	}
	return s.Catalogs.LocateTable(n)
}
