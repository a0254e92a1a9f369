// Package print is Flink's 'print' connector: a sink that writes every row
// as +I[1001, 80.00, CREATED] to standard output (or standard error),
// prefixed with "<print-identifier>> " and, when parallel, the subtask
// number: "ident:2> " or "2> ".
package print

import (
	"bufio"
	"context"
	"io"
	"os"
	"sync"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func init() { connectors.Register(Factory{}) }

var (
	outMu          sync.Mutex
	stdout, stderr io.Writer = os.Stdout, os.Stderr
)

// SetOutput redirects what print sinks write (the shell routes it through
// its terminal; tests capture it). Nil restores the process's streams.
func SetOutput(out, errOut io.Writer) {
	outMu.Lock()
	defer outMu.Unlock()
	if out == nil {
		out = os.Stdout
	}
	if errOut == nil {
		errOut = os.Stderr
	}
	stdout, stderr = out, errOut
}

// Factory creates print sinks.
type Factory struct{}

var (
	_ connectors.SinkFactory   = Factory{}
	_ connectors.FlinkPortable = Factory{}
	_ connectors.TableSink     = (*Sink)(nil)
)

// Identifier is "print".
func (Factory) Identifier() string { return "print" }

// Options are Flink's print options.
func (Factory) Options() []connectors.Option {
	return []connectors.Option{
		{Key: "print-identifier", Type: connectors.String, Description: "Message that identifies print and is prefixed to the output of the value."},
		{Key: "standard-error", Default: "false", Type: connectors.Bool, Description: "True, if the format should print to standard error instead of standard out."},
		{Key: "sink.parallelism", Type: connectors.Int, Description: "Parallelism of the sink."},
	}
}

// CreateSink validates options and builds the sink.
func (f Factory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	o := connectors.NewOptions(f.Options(), ctx.Options)
	return &Sink{Identifier: o.Get("print-identifier"), StdErr: o.Bool("standard-error"),
		parallelism: o.Int("sink.parallelism"), types: ctx.Schema.Types()}, nil
}

// Sink is a print table sink.
type Sink struct {
	Identifier  string
	StdErr      bool
	parallelism int
	types       []sql.DataType
}

// ChangelogMode accepts every kind the query produces, as Flink's print.
func (s *Sink) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	return requested, nil
}

// Parallelism is sink.parallelism.
func (s *Sink) Parallelism() int { return s.parallelism }

// Prefix is what each line starts with, as Flink's PrintSinkOutputWriter
// builds it.
func Prefix(identifier string, subtask, parallelism int) string {
	p := identifier
	if parallelism > 1 {
		if p != "" {
			p += ":"
		}
		p += itoa(subtask + 1)
	}
	if p != "" {
		p += "> "
	}
	return p
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// NewWriter creates a subtask's writer.
func (s *Sink) NewWriter(subtask, parallelism int) (connectors.SinkWriter, error) {
	return &writer{prefix: Prefix(s.Identifier, subtask, parallelism), stderr: s.StdErr, types: s.types}, nil
}

type writer struct {
	prefix string
	stderr bool
	types  []sql.DataType
}

func (w *writer) Open(context.Context, []byte) error { return nil }

// Write prints a batch under one lock, so lines of parallel subtasks never
// interleave mid-line.
func (w *writer) Write(_ context.Context, rows []sql.Row) error {
	outMu.Lock()
	defer outMu.Unlock()
	dst := stdout
	if w.stderr {
		dst = stderr
	}
	bw := bufio.NewWriter(dst)
	for _, r := range rows {
		bw.WriteString(w.prefix)
		bw.WriteString(sql.FormatRow(r, w.types))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func (w *writer) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }

func (w *writer) NotifyCheckpointComplete(context.Context, int64) error { return nil }

func (w *writer) Close(context.Context) error { return nil }

// FlinkConnector: 'print' is in Flink's distribution.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{RejectsUnknownOptions: true}
}
