package exec

import (
	"strings"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// NewDryRunSession returns a session that changes nothing outside itself:
// `sqlrun explain -f` plans a whole script with it. DDL runs against a
// scratch copy of the catalog state — a Paimon catalog is opened over a
// copy-on-write overlay of its warehouse (reads fall through to the disk,
// writes and deletes stay in memory), so a table the script creates or
// alters plans as it would after the real statement, and a DROP hides the
// table from later statements without touching a file. Statements that
// only act (INSERT, queries, CALL, DELETE, UPDATE, STOP JOB) are not run:
// see Session.DryRun.
func NewDryRunSession() *Session {
	s := NewSession()
	s.DryRun = true
	s.Catalogs.Open = openDryRunCatalog
	return s
}

// openDryRunCatalog builds a CREATE CATALOG's catalog for a dry run. Only
// catalog types whose writes can be kept in memory are opened; any other
// type is refused rather than risk a change.
func openDryRunCatalog(name string, options map[string]string) (catalog.Catalog, error) {
	switch options["type"] {
	case "generic_in_memory", "":
		return catalog.NewCatalog(name, options)
	}
	// A scratch factory checks the 'warehouse' path's scheme (Paimon's does).
	if c, ok, err := catalog.NewScratchCatalog(name, options); ok {
		return c, err
	}
	var types []string
	for _, t := range catalog.ScratchTypes() {
		types = append(types, "'"+t+"'")
	}
	return nil, sql.Errorf(sql.ValidationException,
		"EXPLAIN of a script cannot open catalog type '%s' without changing it; only %s and 'generic_in_memory' catalogs are opened (over a scratch copy)",
		options["type"], strings.Join(types, ", "))
}

// dryRunSkips reports whether a statement only acts (runs a job, calls a
// procedure, stops a job, serves metrics): a dry run prints nothing for it
// and does nothing.
func dryRunSkips(stmt ast.Statement) bool {
	switch st := stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query, *ast.Delete, *ast.Update, *ast.Call, *ast.StopJob:
		return true
	case *ast.Set:
		return st.Key == config.KeyPromPort
	}
	return false
}
