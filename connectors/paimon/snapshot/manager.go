package snapshot

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
)

// File name constants.
const (
	Prefix         = "snapshot-"
	LatestHint     = "LATEST"
	EarliestHint   = "EARLIEST"
	ConsumerPrefix = "consumer-"
	TagPrefix      = "tag-"
)

// ErrNotFound is wrapped when a snapshot, tag or consumer does not exist.
var ErrNotFound = errors.New("not found")

// Manager reads and commits the snapshots of one table.
type Manager struct {
	fio  fs.FileIO
	root string
	// listedEarliest is the earliest id the last listing found (0: none
	// yet): EarliestID's candidate when there is no EARLIEST hint.
	listedEarliest atomic.Int64
}

// NewManager returns the manager of the table at root.
func NewManager(fio fs.FileIO, root string) *Manager { return &Manager{fio: fio, root: root} }

// Dir is <table>/snapshot.
func (m *Manager) Dir() string { return fs.Join(m.root, "snapshot") }

// Path is the file of snapshot id.
func (m *Manager) Path(id int64) string { return fs.Join(m.Dir(), Prefix+strconv.FormatInt(id, 10)) }

// Exists reports whether snapshot id exists.
func (m *Manager) Exists(id int64) (bool, error) {
	ok, err := m.fio.Exists(m.Path(id))
	if err != nil {
		return false, fmt.Errorf("check snapshot %d: %w", id, err)
	}
	return ok, nil
}

// Read reads snapshot id; a missing one wraps ErrNotFound.
func (m *Manager) Read(id int64) (*Snapshot, error) {
	b, err := m.fio.ReadFile(m.Path(id))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("snapshot %d of %s: %w", id, m.root, ErrNotFound)
		}
		return nil, fmt.Errorf("read snapshot %d: %w", id, err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path(id), err)
	}
	return s, nil
}

// ListIDs returns the ids of all snapshot files, ascending.
func (m *Manager) ListIDs() ([]int64, error) {
	return listIDs(m.fio, m.Dir(), Prefix)
}

func listIDs(fio fs.FileIO, dir, prefix string) ([]int64, error) {
	ents, err := fio.List(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var ids []int64
	for _, e := range ents {
		if !strings.HasPrefix(e.Name, prefix) {
			continue
		}
		if id, err := strconv.ParseInt(e.Name[len(prefix):], 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

func (m *Manager) readHint(name string) (int64, bool) {
	b, err := m.fio.ReadFile(fs.Join(m.Dir(), name))
	if err != nil {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// LatestID returns the latest snapshot id; ok is false for a table without
// snapshots. LATEST is trusted only if snapshot-(LATEST+1) does not exist
// (the hint is written after the commit and may lag); otherwise the
// directory is listed.
func (m *Manager) LatestID() (id int64, ok bool, err error) {
	if h, found := m.readHint(LatestHint); found {
		next, err := m.Exists(h + 1)
		if err != nil {
			return 0, false, err
		}
		if !next {
			if cur, err := m.Exists(h); err != nil {
				return 0, false, err
			} else if cur {
				return h, true, nil
			}
		}
	}
	ids, err := m.ListIDs()
	if err != nil || len(ids) == 0 {
		return 0, false, err
	}
	return ids[len(ids)-1], true, nil
}

// EarliestID returns the earliest snapshot id: EARLIEST if that snapshot
// exists, else the smallest listed (Paimon's HintFileUtils.findEarliest).
// EARLIEST is only written by expiration, so until a table's first
// expiration every call listed the snapshot directory, a cost that grew with
// every commit (each commit asks twice: for its own latest snapshot and for
// expiration). The id a listing found is kept: while snapshot id exists and
// id-1 does not, id is still the earliest, since snapshot ids are
// contiguous from the earliest to the latest (expiration deletes from the
// oldest up, rollback from the newest down, and either writes EARLIEST
// when it moves the bottom).
func (m *Manager) EarliestID() (id int64, ok bool, err error) {
	if h, found := m.readHint(EarliestHint); found {
		if ex, err := m.Exists(h); err != nil {
			return 0, false, err
		} else if ex {
			return h, true, nil
		}
	}
	if c := m.listedEarliest.Load(); c > 0 {
		ex, err := m.Exists(c)
		if err != nil {
			return 0, false, err
		}
		below := false
		if ex && c > 1 {
			if below, err = m.Exists(c - 1); err != nil {
				return 0, false, err
			}
		}
		if ex && !below {
			return c, true, nil
		}
	}
	ids, err := m.ListIDs()
	if err != nil || len(ids) == 0 {
		return 0, false, err
	}
	m.listedEarliest.Store(ids[0])
	return ids[0], true, nil
}

// Latest reads the latest snapshot; (nil, nil) when there is none.
func (m *Manager) Latest() (*Snapshot, error) {
	id, ok, err := m.LatestID()
	if err != nil || !ok {
		return nil, err
	}
	return m.Read(id)
}

// Earliest reads the earliest snapshot; (nil, nil) when there is none.
func (m *Manager) Earliest() (*Snapshot, error) {
	id, ok, err := m.EarliestID()
	if err != nil || !ok {
		return nil, err
	}
	return m.Read(id)
}

// EarlierOrEqualTime returns the latest snapshot whose timeMillis ≤ t
// (scan.timestamp-millis), or (nil, nil) if every snapshot is newer.
func (m *Manager) EarlierOrEqualTime(t int64) (*Snapshot, error) {
	ids, err := m.ListIDs()
	if err != nil {
		return nil, err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		s, err := m.Read(ids[i])
		if err != nil {
			if errors.Is(err, ErrNotFound) { // expired concurrently
				continue
			}
			return nil, err
		}
		if s.TimeMillis <= t {
			return s, nil
		}
	}
	return nil, nil
}

// Commit creates snapshot-<s.ID> if and only if it does not exist. Losing
// the race returns an error wrapping fs.ErrExist: the caller re-reads the
// latest snapshot, checks whether its own commit already landed and
// retries. Commit does not touch the LATEST hint (see CommitLatestHint).
func (m *Manager) Commit(s *Snapshot) error {
	b, err := s.Marshal()
	if err != nil {
		return fmt.Errorf("encode snapshot %d: %w", s.ID, err)
	}
	if err := m.fio.WriteFileAtomic(m.Path(s.ID), b); err != nil {
		return fmt.Errorf("commit snapshot %d: %w", s.ID, err)
	}
	return nil
}

// CommitLatestHint overwrites LATEST (decimal, no newline). Best effort for
// callers: a stale hint is corrected by LatestID.
func (m *Manager) CommitLatestHint(id int64) error {
	return m.fio.Overwrite(fs.Join(m.Dir(), LatestHint), []byte(strconv.FormatInt(id, 10)))
}

// CommitEarliestHint overwrites EARLIEST, after expiration.
func (m *Manager) CommitEarliestHint(id int64) error {
	return m.fio.Overwrite(fs.Join(m.Dir(), EarliestHint), []byte(strconv.FormatInt(id, 10)))
}

// Delete removes snapshot id (expiration).
func (m *Manager) Delete(id int64) error { return m.fio.Delete(m.Path(id)) }

// ConsumerPath is <table>/consumer/consumer-<id>; an id that is not one
// path element is refused (fs.ConsumerPath).
func (m *Manager) ConsumerPath(id string) (string, error) { return fs.ConsumerPath(m.root, id) }

// ReadConsumer reads a consumer; a missing one wraps ErrNotFound.
func (m *Manager) ReadConsumer(id string) (Consumer, error) {
	p, err := m.ConsumerPath(id)
	if err != nil {
		return Consumer{}, err
	}
	b, err := m.fio.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Consumer{}, fmt.Errorf("consumer %s: %w", id, ErrNotFound)
		}
		return Consumer{}, fmt.Errorf("read consumer %s: %w", id, err)
	}
	return ParseConsumer(b)
}

// WriteConsumer overwrites a consumer's next snapshot.
func (m *Manager) WriteConsumer(id string, c Consumer) error {
	p, err := m.ConsumerPath(id)
	if err != nil {
		return err
	}
	b, err := c.Marshal()
	if err != nil {
		return err
	}
	if err := m.fio.Overwrite(p, b); err != nil {
		return fmt.Errorf("write consumer %s: %w", id, err)
	}
	return nil
}

// Consumers returns every consumer by id.
func (m *Manager) Consumers() (map[string]Consumer, error) {
	dir := fs.Join(m.root, "consumer")
	ents, err := m.fio.List(dir)
	if err != nil {
		return nil, fmt.Errorf("list consumers: %w", err)
	}
	out := map[string]Consumer{}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name, ConsumerPrefix) {
			continue
		}
		id := e.Name[len(ConsumerPrefix):]
		c, err := m.ReadConsumer(id)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return nil, err
		}
		out[id] = c
	}
	return out, nil
}

// TagPath is <table>/tag/tag-<name>; a name that is not one path element
// is refused (fs.TagPath).
func (m *Manager) TagPath(name string) (string, error) { return fs.TagPath(m.root, name) }

// ReadTag reads a tag; a missing one wraps ErrNotFound.
func (m *Manager) ReadTag(name string) (*Tag, error) {
	p, err := m.TagPath(name)
	if err != nil {
		return nil, err
	}
	b, err := m.fio.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tag %q: %w", name, ErrNotFound)
		}
		return nil, fmt.Errorf("read tag %q: %w", name, err)
	}
	t, err := ParseTag(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return t, nil
}

// TagNames lists the tags, sorted by name.
func (m *Manager) TagNames() ([]string, error) {
	ents, err := m.fio.List(fs.Join(m.root, "tag"))
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name, TagPrefix) {
			out = append(out, e.Name[len(TagPrefix):])
		}
	}
	return out, nil
}

// TagModTimes are the tag files' modification times by tag name.
func (m *Manager) TagModTimes() (map[string]time.Time, error) {
	ents, err := m.fio.List(fs.Join(m.root, "tag"))
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	out := map[string]time.Time{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name, TagPrefix) {
			out[e.Name[len(TagPrefix):]] = e.ModTime
		}
	}
	return out, nil
}

// CreateTag writes a tag file if it does not exist yet.
func (m *Manager) CreateTag(name string, t *Tag) error {
	p, err := m.TagPath(name)
	if err != nil {
		return err
	}
	b, err := t.Marshal()
	if err != nil {
		return err
	}
	if err := m.fio.WriteFileAtomic(p, b); err != nil {
		return fmt.Errorf("create tag %q: %w", name, err)
	}
	return nil
}

// DeleteTag removes a tag file (a missing one is not an error).
func (m *Manager) DeleteTag(name string) error {
	p, err := m.TagPath(name)
	if err != nil {
		return err
	}
	if err := m.fio.Delete(p); err != nil {
		return fmt.Errorf("delete tag %q: %w", name, err)
	}
	return nil
}
