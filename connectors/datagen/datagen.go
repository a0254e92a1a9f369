// Package datagen is Flink's 'datagen' connector: an insert-only source of
// generated rows, with per-field random or sequence generators.
//
// Random values follow Flink's RandomGeneratorVisitor: the same options
// per type (an option a type does not declare is rejected as unconsumed),
// the same defaults (integers over the whole type, FLOAT/DOUBLE from
// MIN_VALUE to MAX_VALUE, DECIMAL within its precision, strings of
// lowercase hex digits, 100 long for STRING), uniform over [min, max].
//
// Every value except DATE, TIME and TIMESTAMP ("now", as in Flink) is a
// pure function of the row's index (a sequence is start+index; a random
// value comes from a hash of the field and the index), so the reader's
// only state is its next index: a restored job continues exactly where
// the checkpoint left off and a re-run produces the same rows. Subtask s
// of p generates the indexes s, s+p, s+2p, ...
package datagen

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func init() { connectors.Register(Factory{}) }

// Factory creates datagen sources.
type Factory struct{}

var (
	_ connectors.SourceFactory       = Factory{}
	_ connectors.FlinkPortable       = Factory{}
	_ connectors.TableSource         = (*Source)(nil)
	_ connectors.SupportsParallelism = (*Source)(nil)
)

// Identifier is "datagen".
func (Factory) Identifier() string { return "datagen" }

// Options are Flink's datagen options.
func (Factory) Options() []connectors.Option {
	return []connectors.Option{
		{Key: "rows-per-second", Default: "10000", Type: connectors.Long, Description: "Rows per second to emit (all subtasks together)."},
		{Key: "number-of-rows", Type: connectors.Long, Description: "Total number of rows to emit; unbounded when unset."},
		{Key: "scan.parallelism", Type: connectors.Int, Description: "Parallelism of the source."},
		{Key: "fields.", Prefix: true, Description: "fields.<name>.kind|min|max|max-past|length|start|end|null-rate|var-len"},
	}
}

// Source is a datagen table source.
type Source struct {
	fields      []*field
	rps         int64
	rows        int64 // -1: unbounded
	parallelism int
	schema      sql.Schema
}

// CreateSource validates the options against the schema and builds the
// generators.
func (Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	f := Factory{}
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	opts := connectors.NewOptions(f.Options(), ctx.Options)
	s := &Source{rps: opts.Int64("rows-per-second"), rows: -1, parallelism: opts.Int("scan.parallelism"), schema: ctx.Schema}
	if opts.Has("number-of-rows") {
		s.rows = opts.Int64("number-of-rows")
		// A negative count emits nothing and ends, as in Flink's
		// DataGeneratorSource (outputSoFar < toOutput never holds); left
		// negative it would read as -1, "unbounded", and never end.
		if s.rows < 0 {
			s.rows = 0
		}
	}
	// As Flink's DataGenTableSourceFactory: build every column's generator
	// (which reads, and so consumes, exactly the options its kind and type
	// support), then reject any fields.* key that no generator consumed.
	o := &fieldOptions{all: ctx.Options, consumed: map[string]bool{}}
	for i, c := range ctx.Schema.Columns {
		fd, err := newColumn(i, c, o)
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, fd)
	}
	var unsupported []string
	for k := range ctx.Options {
		if strings.HasPrefix(k, "fields.") && !o.consumed[k] {
			unsupported = append(unsupported, k)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return nil, sql.Errorf(sql.ValidationException,
			"Unsupported options found for 'datagen'.\n\nUnsupported options:\n\n%s", strings.Join(unsupported, "\n"))
	}
	return s, nil
}

// ChangelogMode is insert-only.
func (s *Source) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }

// Bounded is true when number-of-rows is set or a field is a sequence
// (the source ends when the first sequence ends, as Flink's datagen).
func (s *Source) Bounded() bool { return s.count() >= 0 }

// Parallelism is scan.parallelism (0 = session default).
func (s *Source) Parallelism() int { return s.parallelism }

// count is the total number of rows, -1 for unbounded.
func (s *Source) count() int64 {
	n := s.rows
	for _, f := range s.fields {
		if f.sequence {
			c := f.end - f.start + 1
			if n < 0 || c < n {
				n = c
			}
		}
	}
	return n
}

// NewReader creates subtask's reader.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	// Every field is generated: Flink's DataGenTableSource does not take
	// projections (no SupportsProjectionPushDown), so a Calc above the
	// scan drops the unread columns, as in Flink's plans.
	fields := s.fields
	rate := float64(s.rps) / float64(parallelism)
	return &Reader{fields: fields, subtask: int64(subtask), parallelism: int64(parallelism),
		total: s.count(), rate: rate}, nil
}

// Reader generates one subtask's rows. Its checkpoint state is the number
// of rows it has emitted.
type Reader struct {
	fields      []*field
	subtask     int64
	parallelism int64
	total       int64
	rate        float64

	emitted int64 // rows emitted by this subtask, all runs
	base    int64 // emitted at the start of this run, for rate limiting
	started time.Time
}

// Open restores the position.
func (r *Reader) Open(_ context.Context, st []byte) error {
	if len(st) > 0 {
		v, n := binary.Varint(st)
		if n <= 0 || v < 0 {
			return fmt.Errorf("datagen: corrupt restored position")
		}
		r.emitted = v
	}
	r.base = r.emitted
	r.started = time.Now()
	return nil
}

// BatchSize bounds the rows returned by one Next.
const BatchSize = 1024

// Next generates the next batch, within the rate limit.
func (r *Reader) Next(ctx context.Context) ([]sql.Row, error) {
	n := int64(BatchSize)
	if r.total >= 0 {
		// index of this subtask's k-th row is subtask + k*parallelism
		mine := (r.total - r.subtask + r.parallelism - 1) / r.parallelism
		if r.total <= r.subtask {
			mine = 0
		}
		if r.emitted >= mine {
			return nil, io.EOF
		}
		n = min(n, mine-r.emitted)
	}
	if r.rate > 0 {
		allowed := int64(time.Since(r.started).Seconds()*r.rate) + 1 - (r.emitted - r.base)
		if allowed <= 0 {
			wait := time.Duration(float64(time.Second) / r.rate)
			select {
			case <-time.After(min(wait, 20*time.Millisecond)):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, nil
		}
		n = min(n, allowed)
	}
	rows := make([]sql.Row, n)
	nf := len(r.fields)
	backing := make([]any, int(n)*nf)
	first := r.subtask + r.emitted*r.parallelism
	// DATE, TIME and TIMESTAMP columns are "now" as in Flink (which reads
	// the clock per row); one reading per batch keeps a batch consistent
	// and the clock off the per-value path.
	now := clockAt(time.Now())
	for i, f := range r.fields {
		f.fill(backing[i:], nf, int(n), first, r.parallelism, &now)
	}
	for k := range rows {
		rows[k] = sql.Row{Kind: sql.Insert, Values: backing[k*nf : (k+1)*nf : (k+1)*nf]}
	}
	r.emitted += n
	return rows, nil
}

// Snapshot stores the number of rows emitted.
func (r *Reader) Snapshot(int64) ([]byte, error) { return binary.AppendVarint(nil, r.emitted), nil }

// NotifyCheckpointComplete does nothing.
func (r *Reader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

// Close does nothing.
func (r *Reader) Close() error { return nil }

// FlinkConnector: 'datagen' is in Flink's distribution.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{RejectsUnknownOptions: true}
}
