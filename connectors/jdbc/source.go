package jdbc

import (
	"context"
	gosql "database/sql"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Source is JdbcDynamicTableSource in scan mode: a bounded, insert-only
// read of the table (even in streaming mode, where the job's other inputs
// keep running after it finishes), optionally split into ranges of
// scan.partition.column.
type Source struct {
	cfg    *config
	fields []int // projected columns, in output order
}

var (
	_ connectors.TableSource                = (*Source)(nil)
	_ connectors.SupportsProjectionPushDown = (*Source)(nil)
)

// ChangelogMode is insert-only: a snapshot of the table.
func (s *Source) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }

// Bounded is always true: one scan, then the source is finished.
func (s *Source) Bounded() bool { return true }

// ApplyProjection selects the columns the query needs.
func (s *Source) ApplyProjection(fields []int) { s.fields = append([]int(nil), fields...) }

// Split is one BETWEEN range of the partition column, inclusive.
type Split struct{ Lo, Hi int64 }

// Splits is JdbcNumericBetweenParametersProvider: [lower, upper] cut into
// num ranges whose sizes differ by at most one, the larger ones first. A
// num larger than the number of values is reduced to it.
func Splits(lower, upper int64, num int) []Split {
	if num < 1 || upper < lower {
		return nil
	}
	count := uint64(upper-lower) + 1
	if uint64(num) > count {
		num = int(count)
	}
	size := int64(math.Ceil(float64(count) / float64(num)))
	big := int64(count) - (size-1)*int64(num)
	out := make([]Split, 0, num)
	start := lower
	for i := int64(0); i < int64(num); i++ {
		end := start + size - 1
		if i >= big {
			end--
		}
		out = append(out, Split{start, end})
		start = end + 1
	}
	return out
}

// NewReader creates subtask's reader. Splits are dealt round-robin; without
// partitioning, subtask 0 reads the whole table and the others read nothing.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	o := s.cfg.opts
	cols := make([]string, len(s.fields))
	types := make([]sql.DataType, len(s.fields))
	for i, f := range s.fields {
		cols[i] = s.cfg.schema.Columns[f].Name
		types[i] = s.cfg.schema.Columns[f].Type
	}
	r := &Reader{table: s.cfg.table, types: types, fetch: o.Int(OptScanFetchSize), src: s}
	d := dialectOf()
	if o.Has(OptScanPartitionColumn) {
		base := d.ScanSQL(s.cfg.table, cols, o.Get(OptScanPartitionColumn))
		for i, sp := range Splits(o.Int64(OptScanPartitionLower), o.Int64(OptScanPartitionUpper), o.Int(OptScanPartitionNum)) {
			if i%parallelism == subtask {
				q := strings.Replace(base, "BETWEEN ? AND ?", fmt.Sprintf("BETWEEN %d AND %d", sp.Lo, sp.Hi), 1)
				r.queries = append(r.queries, q)
			}
		}
	} else if subtask == 0 {
		r.queries = []string{d.SelectSQL(s.cfg.table, cols, nil)}
	}
	if r.fetch <= 0 {
		r.fetch = 1024
	}
	return r, nil
}

// Reader reads one subtask's queries in order. Its checkpoint state is the
// number of queries finished; a restored reader re-runs the query it was
// in (at-least-once, as Flink's input-format source).
type Reader struct {
	src     *Source
	table   string
	types   []sql.DataType
	fetch   int
	queries []string

	conn *conn
	next int // index of the query being read
	rows *gosql.Rows
	scan []any
}

// Open connects and skips the queries a restored state says are done.
func (r *Reader) Open(ctx context.Context, state []byte) error {
	if len(state) > 0 {
		n, err := strconv.Atoi(string(state))
		if err != nil {
			return fmt.Errorf("jdbc: restore scan of table '%s': bad state %q: %w", r.table, state, err)
		}
		r.next = n
	}
	if r.next >= len(r.queries) {
		return nil
	}
	c, err := newConn(r.src.cfg.conn, r.src.cfg.opts.Duration(OptMaxRetryTimeout))
	if err != nil {
		return err
	}
	r.conn = c
	if _, err := c.open(ctx); err != nil {
		return sql.Errorf(sql.IOException, "unable to open JDBC reader for table '%s' (%s): %w", r.table, r.src.cfg.conn, err)
	}
	return nil
}

// Next returns up to scan.fetch-size rows (1024 when 0); io.EOF after the
// last query. go-sql-driver streams results, so rows are never all held.
func (r *Reader) Next(ctx context.Context) ([]sql.Row, error) {
	for {
		if r.next >= len(r.queries) {
			return nil, io.EOF
		}
		if r.rows == nil {
			sc, err := r.conn.open(ctx)
			if err != nil {
				return nil, fmt.Errorf("jdbc: scan of table '%s': %w", r.table, err)
			}
			rows, err := sc.QueryContext(ctx, r.queries[r.next])
			if err != nil {
				return nil, sql.Errorf(sql.IOException, "JDBC scan of table '%s' failed: %w", r.table, err)
			}
			r.rows = rows
			r.scan = make([]any, len(r.types))
		}
		out := make([]sql.Row, 0, min(r.fetch, 4096))
		ptrs := make([]any, len(r.types))
		for i := range ptrs {
			ptrs[i] = &r.scan[i]
		}
		for len(out) < r.fetch && r.rows.Next() {
			if err := r.rows.Scan(ptrs...); err != nil {
				return nil, fmt.Errorf("jdbc: scan of table '%s': %w", r.table, err)
			}
			vals := make([]any, len(r.types))
			for i, v := range r.scan {
				cv, err := fromDriver(v, r.types[i])
				if err != nil {
					return nil, sql.Errorf(sql.IOException, "JDBC scan of table '%s': column %d: %w", r.table, i+1, err)
				}
				vals[i] = cv
			}
			out = append(out, sql.Row{Kind: sql.Insert, Values: vals})
		}
		if len(out) == r.fetch {
			return out, nil
		}
		if err := r.rows.Err(); err != nil {
			return nil, sql.Errorf(sql.IOException, "JDBC scan of table '%s' failed: %w", r.table, err)
		}
		r.rows.Close()
		r.rows = nil
		r.next++
		if len(out) > 0 {
			return out, nil
		}
	}
}

// Snapshot stores how many queries are finished.
func (r *Reader) Snapshot(int64) ([]byte, error) { return []byte(strconv.Itoa(r.next)), nil }

// NotifyCheckpointComplete does nothing.
func (r *Reader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

// Close releases the connection.
func (r *Reader) Close() error {
	if r.rows != nil {
		r.rows.Close()
		r.rows = nil
	}
	if r.conn != nil {
		err := r.conn.close()
		r.conn = nil
		return err
	}
	return nil
}

// fromDriver converts what go-sql-driver returns for a text-protocol
// column into the one Go type row.go assigns t.
func fromDriver(v any, t sql.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	var s string
	switch x := v.(type) {
	case []byte:
		if t.Root == sql.TypeVarBinary || t.Root == sql.TypeBinary {
			return append([]byte(nil), x...), nil
		}
		s = string(x)
	case string:
		s = x
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	case time.Time:
		s = x.Format("2006-01-02 15:04:05.999999999")
	default:
		return nil, fmt.Errorf("unexpected driver value %T", v)
	}
	return connectors.ParseMySQLText(s, t)
}
