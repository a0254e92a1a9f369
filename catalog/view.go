package catalog

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// View is what CREATE VIEW declares (Flink's CatalogView): the query a
// reference to the view expands to. The view's Table.Schema holds the
// columns the query produces, resolved when it was created.
type View struct {
	Query ast.QueryExpr
	// Columns are the view's column list, empty when it has none.
	Columns []string
	// Text is the query as written (Flink's original query).
	Text string
}

// IsView reports whether the catalog entry is a view.
func (t *Table) IsView() bool { return t.View != nil }

// DropView is DROP [TEMPORARY] VIEW [IF EXISTS]: as Flink's
// CatalogManager.dropView, it drops only views.
func (m *Manager) DropView(id connectors.ObjectIdentifier, ignoreIfNotExists, temporary bool) error {
	return m.dropObject(id, ignoreIfNotExists, temporary, true)
}

// DropTable is DROP [TEMPORARY] TABLE [IF EXISTS]: it drops only tables.
func (m *Manager) DropTable(id connectors.ObjectIdentifier, ignoreIfNotExists, temporary bool) error {
	return m.dropObject(id, ignoreIfNotExists, temporary, false)
}

// dropObject is CatalogManager.dropTableInternal (permanent objects) and
// dropTemporaryTableInternal, with their messages.
func (m *Manager) dropObject(id connectors.ObjectIdentifier, ignoreIfNotExists, temporary, view bool) error {
	kind, Kind := "table", "Table"
	if view {
		kind, Kind = "view", "View"
	}
	m.mu.Lock()
	tmp, isTemp := m.temporary[id]
	if temporary {
		defer m.mu.Unlock()
		if !isTemp || tmp.IsView() != view {
			if ignoreIfNotExists {
				return nil
			}
			return &sql.Error{Class: sql.ValidationException,
				Msg: fmt.Sprintf("Temporary %s with identifier '%s' does not exist.", kind, id.String()), Err: ErrTableNotExist}
		}
		delete(m.temporary, id)
		return nil
	}
	m.mu.Unlock()
	if isTemp && tmp.IsView() == view {
		return sql.Errorf(sql.ValidationException,
			"Temporary %s with identifier '%s' exists. Drop it first before removing the permanent %s.", kind, id.String(), kind)
	}
	notExist := func() error {
		if ignoreIfNotExists {
			return nil
		}
		return &sql.Error{Class: sql.ValidationException,
			Msg: fmt.Sprintf("%s with identifier '%s' does not exist.", Kind, id.String()), Err: ErrTableNotExist}
	}
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return notExist()
	}
	if t, err := c.GetTable(id.Database, id.Name); err == nil && t.IsView() != view {
		return notExist()
	}
	if err := c.DropTable(id.Database, id.Name, ignoreIfNotExists); err != nil {
		if errorsIsNotExist(err) {
			return notExist()
		}
		return fmt.Errorf("drop %s %s: %w", kind, id, err)
	}
	return nil
}
