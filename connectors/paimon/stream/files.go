package stream

import (
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

var (
	_ table.RowIterator = (*splitIter)(nil)
	_ table.RowIterator = (*multiIter)(nil)
)

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

func (s *splitIter) Next() (sql.Row, bool) {
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
func (s *splitIter) Error() error { return s.it.Error() }
func (s *splitIter) Close() error { return s.it.Close() }

// keepLevel returns the split without the files keep rejects.
func keepLevel(sp table.Split, keep func(*manifest.DataFileMeta) bool) table.Split {
	out := sp
	out.Files = nil
	for i := range sp.Files {
		if keep(&sp.Files[i]) {
			out.Files = append(out.Files, sp.Files[i])
		}
	}
	return out
}

// multiIter chains the iterators of several splits, opening each lazily.
type multiIter struct {
	open func(i int) (table.RowIterator, error)
	n, i int
	cur  table.RowIterator
	e    error
	// opened and done, when set, are told when split i is opened and
	// when it has been read to its end.
	opened, done func(i int)
}

func (m *multiIter) Next() (sql.Row, bool) {
	for m.e == nil {
		if m.cur == nil {
			if m.i >= m.n {
				return sql.Row{}, false
			}
			if m.cur, m.e = m.open(m.i); m.e != nil {
				return sql.Row{}, false
			}
			m.i++
			if m.opened != nil {
				m.opened(m.i - 1)
			}
		}
		if r, ok := m.cur.Next(); ok {
			return r, true
		}
		m.e = m.cur.Error()
		m.cur.Close()
		m.cur = nil
		if m.e == nil && m.done != nil {
			m.done(m.i - 1)
		}
	}
	return sql.Row{}, false
}

func (m *multiIter) Error() error { return m.e }
func (m *multiIter) Close() error {
	if m.cur != nil {
		m.cur.Close()
		m.cur = nil
	}
	return nil
}
