package paimon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
)

var _ connectors.LookupSource = (*Source)(nil)

// NewLookuper opens the table for a lookup join, as Paimon's
// FileStoreLookupFunction: a local index, by the lookup keys, of the rows
// of the table's latest snapshot (the merged rows of a primary-key table,
// looked up by its key or, as Paimon's secondary index does, by other
// fields; every row of an append table), built on the first lookup and
// rebuilt when a newer snapshot has been committed, checked at most once
// per 'continuous.discovery-interval' (Paimon's refresh interval).
func (s *Source) NewLookuper(_ context.Context, keys []int) (connectors.Lookuper, error) {
	path, err := s.cfg.path()
	if err != nil {
		return nil, err
	}
	t, err := s.cfg.openForRead(path)
	if err != nil {
		return nil, fmt.Errorf("lookup paimon table %s: %w", s.cfg.id, err)
	}
	return &Lookuper{t: t, keys: keys, table: s.cfg.id.String(),
		interval: s.cfg.opts.Duration(coreoptions.OptDiscoveryInterval), Now: time.Now}, nil
}

// Lookuper is one subtask's lookup table of a Paimon table.
type Lookuper struct {
	t        *table.Table
	keys     []int
	table    string
	interval time.Duration
	// Now is the clock (tests).
	Now func() time.Time

	loaded    bool
	snapshot  int64 // the latest snapshot id when the index was built; 0: none
	nextCheck time.Time
	index     map[string][][]any
	// Loads counts the index builds.
	Loads int
}

// Lookup returns the rows whose key fields equal key.
func (l *Lookuper) Lookup(ctx context.Context, key []any) ([][]any, error) {
	if err := l.refresh(ctx); err != nil {
		return nil, fmt.Errorf("lookup paimon table %s: %w", l.table, err)
	}
	k, _ := lookupKey(key, nil)
	return l.index[k], nil
}

// refresh builds the index on first use, then again when the latest
// snapshot has changed, looking at most once per interval.
func (l *Lookuper) refresh(ctx context.Context) error {
	now := l.Now()
	if l.loaded && now.Before(l.nextCheck) {
		return nil
	}
	l.nextCheck = now.Add(l.interval)
	id, ok, err := l.t.Snapshots.LatestID()
	if err != nil {
		return err
	}
	if !ok {
		id = 0
	}
	if l.loaded && id == l.snapshot {
		return nil
	}
	idx, err := l.load(ctx)
	if err != nil {
		return err
	}
	l.index, l.snapshot, l.loaded = idx, id, true
	l.Loads++
	return nil
}

// load reads the table as a batch SELECT does (the latest snapshot,
// merged, deletion vectors applied) and indexes its rows by the keys.
func (l *Lookuper) load(ctx context.Context) (map[string][][]any, error) {
	idx := map[string][][]any{}
	src, err := stream.NewSourceTable(l.t, false, nil)
	if err != nil {
		return nil, err
	}
	r, err := src.NewReader(0, 1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := r.Open(ctx, nil); err != nil {
		return nil, err
	}
	for {
		rows, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			return idx, nil
		}
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			if !row.Kind.IsAdd() {
				continue
			}
			if k, ok := lookupKey(row.Values, l.keys); ok {
				idx[k] = append(idx[k], row.Values)
			}
		}
	}
}

// Close drops the index.
func (l *Lookuper) Close() error {
	l.index = nil
	return nil
}

// lookupKey is the index key of the fields of row (all of it when fields
// is nil); ok is false when one is NULL (a NULL key matches nothing).
func lookupKey(row []any, fields []int) (string, bool) {
	var b strings.Builder
	n := len(fields)
	if fields == nil {
		n = len(row)
	}
	for i := 0; i < n; i++ {
		v := row[i]
		if fields != nil {
			v = row[fields[i]]
		}
		if v == nil {
			return "", false
		}
		fmt.Fprintf(&b, "%T:%v\x00", v, v)
	}
	return b.String(), true
}
