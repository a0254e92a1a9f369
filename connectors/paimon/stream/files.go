package stream

import (
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// rowIter yields rows; ok=false when exhausted or failed (see err). Rows
// are fresh and may be retained.
type rowIter interface {
	next() (sql.Row, bool)
	err() error
	close() error
}

// splitIter reads one split through the table layer's split reader:
// SplitFull is merge-on-read (+I, retracted keys dropped), SplitDelta the
// added files merged by key with RowKinds kept, SplitChangelog the
// changelog files raw; append tables read +I rows in sequence order.
type splitIter struct {
	it table.RowIterator
	// insertOnly drops retractions and stamps +I (batch incremental reads
	// of the table itself, which Paimon returns without DELETE records;
	// $audit_log keeps them).
	insertOnly bool
}

func (s *splitIter) next() (sql.Row, bool) {
	for {
		r, ok := s.it.Next()
		if !ok {
			return r, false
		}
		if s.insertOnly {
			if r.Kind.IsRetract() {
				continue
			}
			r.Kind = sql.Insert
		}
		return r, true
	}
}
func (s *splitIter) err() error   { return s.it.Error() }
func (s *splitIter) close() error { return s.it.Close() }

// tableSplit converts a split of manifest entries to the table layer's.
func tableSplit(snapshotID int64, kind table.SplitKind, sp *Split) table.Split {
	out := table.Split{SnapshotID: snapshotID, Kind: kind, Partition: []byte(sp.Key.Partition), Bucket: int(sp.Key.Bucket)}
	if kind != table.SplitChangelog {
		out.DeletionFiles = sp.DVs
	}
	for i := range sp.Files {
		out.Files = append(out.Files, sp.Files[i].File)
		out.TotalBuckets = sp.Files[i].TotalBuckets
	}
	return out
}

// keepLevel returns the split without the files keep rejects.
func keepLevel(sp Split, keep func(*manifest.ManifestEntry) bool) Split {
	out := Split{Key: sp.Key, DVs: sp.DVs}
	for i := range sp.Files {
		if keep(&sp.Files[i]) {
			out.Files = append(out.Files, sp.Files[i])
		}
	}
	return out
}

// multiIter chains the iterators of several splits, opening each lazily.
type multiIter struct {
	open func(i int) (rowIter, error)
	n, i int
	cur  rowIter
	e    error
}

func (m *multiIter) next() (sql.Row, bool) {
	for m.e == nil {
		if m.cur == nil {
			if m.i >= m.n {
				return sql.Row{}, false
			}
			if m.cur, m.e = m.open(m.i); m.e != nil {
				return sql.Row{}, false
			}
			m.i++
		}
		if r, ok := m.cur.next(); ok {
			return r, true
		}
		m.e = m.cur.err()
		m.cur.close()
		m.cur = nil
	}
	return sql.Row{}, false
}

func (m *multiIter) err() error { return m.e }
func (m *multiIter) close() error {
	if m.cur != nil {
		m.cur.close()
		m.cur = nil
	}
	return nil
}
