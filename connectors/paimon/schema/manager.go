package schema

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
)

// Prefix is the file name prefix of schema files.
const Prefix = "schema-"

// Manager lists, reads and creates the schema files of one table.
type Manager struct {
	fio  fs.FileIO
	root string
}

// NewManager returns the manager of the table at root.
func NewManager(fio fs.FileIO, root string) *Manager { return &Manager{fio: fio, root: root} }

// Dir is <table>/schema.
func (m *Manager) Dir() string { return fs.Join(m.root, "schema") }

// Path is the file of schema id.
func (m *Manager) Path(id int64) string { return fs.Join(m.Dir(), Prefix+strconv.FormatInt(id, 10)) }

// ListIDs returns the ids of all schema files, ascending.
func (m *Manager) ListIDs() ([]int64, error) {
	ents, err := m.fio.List(m.Dir())
	if err != nil {
		return nil, fmt.Errorf("list schemas of %s: %w", m.root, err)
	}
	var ids []int64
	for _, e := range ents {
		if !strings.HasPrefix(e.Name, Prefix) {
			continue
		}
		if id, err := strconv.ParseInt(e.Name[len(Prefix):], 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// Read reads schema id.
func (m *Manager) Read(id int64) (*TableSchema, error) {
	b, err := m.fio.ReadFile(m.Path(id))
	if err != nil {
		return nil, fmt.Errorf("read schema %d: %w", id, err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path(id), err)
	}
	return s, nil
}

// Latest returns the schema with the highest id, or (nil, nil) when the
// table has none (it does not exist).
func (m *Manager) Latest() (*TableSchema, error) {
	ids, err := m.ListIDs()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return m.Read(ids[len(ids)-1])
}

// Commit writes s as schema-<s.ID> if and only if that file does not exist
// yet. The error wraps fs.ErrExist when another writer created it first; the
// caller re-reads the latest schema and retries (as Java's SchemaManager
// does for ALTER TABLE).
func (m *Manager) Commit(s *TableSchema) error {
	// Paimon validates every schema it commits (SchemaManager.createTable
	// and commitChanges call SchemaValidation.validateTableSchema).
	if err := s.ValidateTable(); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	b, err := s.Marshal()
	if err != nil {
		return fmt.Errorf("encode schema %d: %w", s.ID, err)
	}
	if err := m.fio.WriteFileAtomic(m.Path(s.ID), b); err != nil {
		return fmt.Errorf("commit schema %d: %w", s.ID, err)
	}
	return nil
}

// CommitNext assigns s the id after the latest schema (0 for a new table)
// and commits it, retrying on lost races up to 10 times. It returns the
// schema as committed.
func (m *Manager) CommitNext(s *TableSchema) (*TableSchema, error) {
	for attempt := 0; ; attempt++ {
		ids, err := m.ListIDs()
		if err != nil {
			return nil, err
		}
		c := *s
		c.ID = 0
		if len(ids) > 0 {
			c.ID = ids[len(ids)-1] + 1
		}
		err = m.Commit(&c)
		if err == nil {
			return &c, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt >= 10 {
			return nil, err
		}
	}
}

// CommitChanges applies changes to the latest schema and commits the
// result as the next schema file, as SchemaManager.commitChanges does:
// when another writer committed that id first, it starts again from the
// new latest schema (up to 10 times).
func (m *Manager) CommitChanges(a Alter, changes ...Change) (*TableSchema, error) {
	for attempt := 0; ; attempt++ {
		cur, err := m.Latest()
		if err != nil {
			return nil, err
		}
		if cur == nil {
			return nil, fmt.Errorf("table %s has no schema", m.root)
		}
		next, err := cur.Apply(a, changes...)
		if err != nil {
			return nil, err
		}
		err = m.Commit(next)
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt >= 10 {
			return nil, err
		}
	}
}
