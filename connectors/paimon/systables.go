package paimon

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/systable"
	"github.com/sqlrun/sqlrun/sql"
)

// SystemTable splits a table name such as "orders$snapshots" into its base
// table and a known Paimon system table; ok is false for other names
// (including an unknown suffix, which then resolves, and fails, as an
// ordinary table name, as in Paimon's catalog).
func SystemTable(name string) (base, sys string, ok bool) {
	base, sys, ok = systable.Split(name)
	if !ok {
		return name, "", false
	}
	for _, n := range systable.Names() {
		if n == sys {
			return base, sys, true
		}
	}
	return name, "", false
}

// SplitSystemTable is SystemTable (connectors.SystemTableFactory).
func (Factory) SplitSystemTable(name string) (base, sys string, ok bool) { return SystemTable(name) }

// SystemTableSchema opens the Paimon table at the 'path' of opts (the base
// table's options) and returns the schema of its system table sys
// (connectors.SystemTableFactory).
func (Factory) SystemTableSchema(sys string, opts map[string]string) (sql.Schema, error) {
	path := strings.TrimSpace(opts["path"])
	if path == "" {
		return sql.Schema{}, ErrNoPath
	}
	return SystemTableSchema(tableFS(path), path, sys, opts)
}

// SystemTableSchema opens the Paimon table at path through fio and
// returns the schema of its system table sys (columns as Paimon 1.4 gives
// them). opts are the base table's options; the data system tables
// ($audit_log, $ro) take their columns from the table's latest schema.
// The warehouse catalog calls it with its own file system (a dry run's
// overlay).
func SystemTableSchema(fio fs.FileIO, path, sys string, opts map[string]string) (sql.Schema, error) {
	if s, ok := systable.FixedSchema(sys); ok {
		return s, nil
	}
	t, ok, err := systable.Lookup(fio, trimFileScheme(path), sys, dynamicOf(opts), false, nil)
	if err != nil {
		return sql.Schema{}, fmt.Errorf("paimon system table %s: %w", sys, err)
	}
	if !ok {
		return sql.Schema{}, fmt.Errorf("paimon system table %s: unknown", sys)
	}
	return t.Schema, nil
}

// SystemSource reads a Paimon system table (Paimon's SystemTableSource):
// insert-only; bounded except a streaming $audit_log; projections are
// pushed down as Paimon's FlinkTableSource takes them.
type SystemSource struct {
	cfg        *tableConfig
	sys        string
	projection []int

	once    sync.Once
	t       *systable.Table
	openErr error
}

var (
	_ connectors.TableSource                = (*SystemSource)(nil)
	_ connectors.SupportsProjectionPushDown = (*SystemSource)(nil)
)

// ChangelogMode is insert-only: $audit_log carries the RowKind as its
// rowkind column and every row arrives as +I.
func (s *SystemSource) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }

// Bounded is false only for $audit_log read in streaming mode.
func (s *SystemSource) Bounded() bool {
	return !(s.sys == systable.AuditLog && s.cfg.streaming && !s.cfg.opts.Bool(coreoptions.OptScanBounded))
}

// ApplyProjection records the system table's fields the query reads.
func (s *SystemSource) ApplyProjection(fields []int) { s.projection = append([]int(nil), fields...) }

// Projection is the pushed-down field list, nil for all fields.
func (s *SystemSource) Projection() []int { return s.projection }

// SystemTable is the system table's name ("snapshots", ...).
func (s *SystemSource) SystemTable() string { return s.sys }

// NewReader opens the system table on first use.
func (s *SystemSource) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	s.once.Do(func() {
		path, err := s.cfg.path()
		if err != nil {
			s.openErr = err
			return
		}
		proj := s.projection
		if s.sys == systable.AuditLog {
			// The stream source projects table fields after its rowkind
			// column; project the audit row here instead.
			proj = nil
		}
		t, ok, err := systable.Lookup(tableFS(path), path, s.sys, s.cfg.dynamic(), s.cfg.streaming, proj)
		switch {
		case err != nil:
			s.openErr = err
		case !ok:
			s.openErr = fmt.Errorf("unknown system table %q", s.sys)
		default:
			s.t = t
		}
	})
	if s.openErr != nil {
		return nil, fmt.Errorf("read paimon table %s: %w", s.cfg.id, s.openErr)
	}
	r, err := s.t.NewReader(subtask, parallelism)
	if err != nil {
		return nil, fmt.Errorf("read paimon table %s: %w", s.cfg.id, err)
	}
	if s.sys == systable.AuditLog && s.projection != nil {
		return &projectingReader{SourceReader: r, proj: s.projection}, nil
	}
	return r, nil
}

// projectingReader keeps the projected fields of every row.
type projectingReader struct {
	connectors.SourceReader
	proj []int
}

func (p *projectingReader) Next(ctx context.Context) ([]sql.Row, error) {
	rows, err := p.SourceReader.Next(ctx)
	for i, r := range rows {
		v := make([]any, len(p.proj))
		for j, k := range p.proj {
			v[j] = r.Values[k]
		}
		rows[i].Values = v
	}
	return rows, err
}

func trimFileScheme(p string) string {
	if len(p) > 7 && p[:7] == "file://" {
		return p[7:]
	}
	return p
}

// dynamicOf drops the connector's own keys from table options.
func dynamicOf(opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		if k == "connector" || k == "path" {
			continue
		}
		out[k] = v
	}
	return out
}
