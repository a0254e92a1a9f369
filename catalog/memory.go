package catalog

import (
	"fmt"
	"sort"
	"sync"
)

// InMemory is Flink's GenericInMemoryCatalog: databases and tables that
// live as long as the session.
type InMemory struct {
	mu  sync.RWMutex
	dbs map[string]map[string]*Table
}

// NewInMemory creates a catalog holding one empty database.
func NewInMemory(defaultDB string) *InMemory {
	return &InMemory{dbs: map[string]map[string]*Table{defaultDB: {}}}
}

var _ Catalog = (*InMemory)(nil)

// ListDatabases lists databases, sorted.
func (c *InMemory) ListDatabases() ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.dbs))
	for d := range c.dbs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

// DatabaseExists reports whether db exists.
func (c *InMemory) DatabaseExists(db string) (bool, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.dbs[db]
	return ok, nil
}

// CreateDatabase adds db.
func (c *InMemory) CreateDatabase(db string, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dbs[db]; ok {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("database %s: %w", db, ErrDatabaseExists)
	}
	c.dbs[db] = map[string]*Table{}
	return nil
}

// DropDatabase removes db; a non-empty one only with cascade.
func (c *InMemory) DropDatabase(db string, ignoreIfNotExists, cascade bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tables, ok := c.dbs[db]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return fmt.Errorf("database %s: %w", db, ErrDatabaseNotExist)
	}
	if len(tables) > 0 && !cascade {
		return fmt.Errorf("database %s: %w", db, ErrDatabaseNotEmpty)
	}
	delete(c.dbs, db)
	return nil
}

func (c *InMemory) db(db string) (map[string]*Table, error) {
	tables, ok := c.dbs[db]
	if !ok {
		return nil, fmt.Errorf("database %s: %w", db, ErrDatabaseNotExist)
	}
	return tables, nil
}

// ListTables lists db's tables, sorted.
func (c *InMemory) ListTables(db string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tables, err := c.db(db)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(tables))
	for t := range tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, nil
}

// GetTable returns a copy of the descriptor.
func (c *InMemory) GetTable(db, name string) (*Table, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tables, err := c.db(db)
	if err != nil {
		return nil, err
	}
	t, ok := tables[name]
	if !ok {
		return nil, fmt.Errorf("table %s.%s: %w", db, name, ErrTableNotExist)
	}
	return t.Clone(), nil
}

// CreateTable stores a copy of t.
func (c *InMemory) CreateTable(db, name string, t *Table, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tables, err := c.db(db)
	if err != nil {
		return err
	}
	if _, ok := tables[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("table %s.%s: %w", db, name, ErrTableExists)
	}
	tables[name] = t.Clone()
	return nil
}

// DropTable removes a table.
func (c *InMemory) DropTable(db, name string, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tables, err := c.db(db)
	if err != nil {
		return err
	}
	if _, ok := tables[name]; !ok {
		if ignoreIfNotExists {
			return nil
		}
		return fmt.Errorf("table %s.%s: %w", db, name, ErrTableNotExist)
	}
	delete(tables, name)
	return nil
}

// AlterTable replaces a descriptor.
func (c *InMemory) AlterTable(db, name string, t *Table) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tables, err := c.db(db)
	if err != nil {
		return err
	}
	if _, ok := tables[name]; !ok {
		return fmt.Errorf("table %s.%s: %w", db, name, ErrTableNotExist)
	}
	tables[name] = t.Clone()
	return nil
}
