// Package filesystem is Flink's 'filesystem' connector for local paths: a
// bounded source reading every file of a directory (or one file), and a
// sink writing part files that become visible when a checkpoint completes
// (exactly-once). Formats: csv, json (insert-only) and debezium-json (a
// changelog: c/r → +I, u → -U/+U, d → -D, written back as c/d).
//
// Like Flink, files whose names start with '.' or '_' are hidden: the
// sink's in-progress files are ".part-<uuid>-<subtask>-<n>.inprogress" and
// are renamed to "part-<uuid>-<subtask>-<n>" on commit. With
// source.monitor-interval the source is unbounded and reads new files as
// they appear. Partitioned tables are not supported.
package filesystem

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/internal/fnv1a"
	"github.com/sqlrun/sqlrun/sql"
)

func init() { connectors.Register(Factory{}) }

// Factory creates filesystem sources and sinks.
type Factory struct{}

var (
	_ connectors.SourceFactory              = Factory{}
	_ connectors.FlinkPortable              = Factory{}
	_ connectors.SinkFactory                = Factory{}
	_ connectors.TableSource                = (*Source)(nil)
	_ connectors.SupportsProjectionPushDown = (*Source)(nil)
	_ connectors.NewSourceAPISource         = (*Source)(nil)
	_ connectors.TableSink                  = (*Sink)(nil)
)

// NewSourceAPI: Flink's FileSystemTableSource reads through a FileSource
// (SourceProvider).
func (*Source) NewSourceAPI() bool { return true }

// Identifier is "filesystem".
func (Factory) Identifier() string { return "filesystem" }

// Options are the connector's and its formats' options, with Flink's names
// and defaults.
func (Factory) Options() []connectors.Option {
	return []connectors.Option{
		{Key: "path", Required: true, Type: connectors.String, Description: "The path of a directory or file."},
		{Key: "format", Required: true, Type: connectors.String, Description: "csv, json or debezium-json."},
		{Key: "source.monitor-interval", Type: connectors.Duration, Description: "Interval to list the path again for new files; unset: the source is bounded."},
		{Key: "sink.rolling-policy.file-size", Default: "128 mb", Type: connectors.MemorySize, Description: "The maximum part file size before rolling."},
		{Key: "sink.parallelism", Type: connectors.Int, Description: "Parallelism of the sink."},
		{Key: "csv.field-delimiter", Default: ",", Type: connectors.String},
		{Key: "csv.quote-character", Default: `"`, Type: connectors.String},
		{Key: "csv.disable-quote-character", Default: "false", Type: connectors.Bool},
		{Key: "csv.allow-comments", Default: "false", Type: connectors.Bool},
		{Key: "csv.ignore-parse-errors", Default: "false", Type: connectors.Bool},
		{Key: "csv.null-literal", Type: connectors.String},
		{Key: "json.fail-on-missing-field", Default: "false", Type: connectors.Bool},
		{Key: "json.ignore-parse-errors", Default: "false", Type: connectors.Bool},
		{Key: "debezium-json.schema-include", Default: "false", Type: connectors.Bool},
		{Key: "debezium-json.ignore-parse-errors", Default: "false", Type: connectors.Bool},
	}
}

func (f Factory) prepare(ctx *connectors.Context) (connectors.Options, *format, error) {
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return connectors.Options{}, nil, err
	}
	o := connectors.NewOptions(f.Options(), ctx.Options)
	if len(ctx.PartitionKeys) > 0 {
		return o, nil, sql.Errorf(sql.ValidationException, "Partitioned filesystem tables are not supported by sqlrun yet (table %s).", ctx.Table)
	}
	fm, err := newFormat(o, ctx.Schema.Columns)
	return o, fm, err
}

// CreateSource builds a bounded source over path.
func (f Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	o, fm, err := f.prepare(ctx)
	if err != nil {
		return nil, err
	}
	return &Source{path: stripScheme(o.Get("path")), format: fm, monitor: o.Duration("source.monitor-interval")}, nil
}

// CreateSink builds a sink writing part files under path.
func (f Factory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	o, fm, err := f.prepare(ctx)
	if err != nil {
		return nil, err
	}
	if fm.schemaInclude {
		return nil, sql.Errorf(sql.ValidationException, "'debezium-json.schema-include' = 'true' is only supported for reading in sqlrun.")
	}
	return &Sink{path: stripScheme(o.Get("path")), format: fm, rollSize: o.MemorySize("sink.rolling-policy.file-size"),
		parallelism: o.Int("sink.parallelism")}, nil
}

func stripScheme(p string) string {
	if strings.HasPrefix(p, "file://") {
		return strings.TrimPrefix(p, "file://")
	}
	return strings.TrimPrefix(p, "file:")
}

// Source reads the files under a path.
type Source struct {
	path    string
	format  *format
	proj    []int
	monitor time.Duration
	// meta are the metadata keys read after the physical columns.
	meta []string
}

var _ connectors.MetadataSource = (*Source)(nil)

// ReadableMetadata lists what Flink's FileSystemTableSource reads
// (ReadableFileInfo): the file's path, name, size and modification time.
func (s *Source) ReadableMetadata() []connectors.MetadataKey {
	return []connectors.MetadataKey{
		{Key: "file.path", Type: sql.String().NotNull()},
		{Key: "file.name", Type: sql.String().NotNull()},
		{Key: "file.size", Type: sql.BigInt().NotNull()},
		{Key: "file.modification-time", Type: sql.TimestampLTZ(3).NotNull()},
	}
}

// ApplyReadableMetadata appends the keys' values to every row.
func (s *Source) ApplyReadableMetadata(keys []string) { s.meta = append([]string(nil), keys...) }

// SourceClass is Flink's filesystem source class.
func (s *Source) SourceClass() string {
	return "org.apache.flink.connector.file.table.FileSystemTableSource"
}

// ChangelogMode is insert-only for csv/json, all kinds for debezium-json.
func (s *Source) ChangelogMode() sql.ChangelogMode { return s.format.changelogMode() }

// Bounded is true unless source.monitor-interval is set (then new files
// are picked up as they appear).
func (s *Source) Bounded() bool { return s.monitor <= 0 }

// ApplyProjection keeps only the given columns.
func (s *Source) ApplyProjection(fields []int) { s.proj = append([]int(nil), fields...) }

// listFiles lists the visible files under path (recursing into
// directories, as Flink's non-partitioned source does).
func listFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, sql.Errorf(sql.IOException, "Cannot read path '%s': %w", path, err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	type file struct {
		path  string
		mtime int64
	}
	var found []file
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != path && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			found = append(found, file{p, info.ModTime().UnixNano()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", path, err)
	}
	// Oldest first, then by name: part files a sink wrote one after the
	// other read back in write order, which matters for changelog formats.
	sort.Slice(found, func(i, j int) bool {
		if found[i].mtime != found[j].mtime {
			return found[i].mtime < found[j].mtime
		}
		return found[i].path < found[j].path
	})
	files := make([]string, len(found))
	for i, f := range found {
		files[i] = f.path
	}
	return files, nil
}

// NewReader creates a subtask's reader; files are spread over subtasks by
// a hash of their path.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	return &reader{src: s, subtask: subtask, parallelism: parallelism}, nil
}

// position is the reader's checkpoint state: the files it finished and
// how far it is into the current one.
type position struct {
	Done    []string `json:"done,omitempty"`
	Current string   `json:"current,omitempty"`
	Records int64    `json:"records"` // records consumed in Current
}

type reader struct {
	src         *Source
	subtask     int
	parallelism int
	done        map[string]bool
	queue       []string // files of this subtask not read yet, in read order
	listed      time.Time
	pos         position
	f           *os.File
	dec         *decoder
	// metaVals are the metadata values of the file being read.
	metaVals []any
}

// mine assigns a file to a subtask by a hash of its path, so files that
// appear later (source.monitor-interval) land on a stable subtask.
func (r *reader) mine(path string) bool {
	if r.parallelism <= 1 {
		return true
	}
	return int(fnv1a.Sum32String(path)%uint32(r.parallelism)) == r.subtask
}

func (r *reader) Open(_ context.Context, st []byte) error {
	r.done = map[string]bool{}
	if len(st) > 0 {
		if err := json.Unmarshal(st, &r.pos); err != nil {
			return fmt.Errorf("filesystem source: restore position: %w", err)
		}
		for _, d := range r.pos.Done {
			r.done[d] = true
		}
	}
	return r.list()
}

// list refreshes the queue with this subtask's files not read yet; the
// file being read (restored Current) comes first.
func (r *reader) list() error {
	all, err := listFiles(r.src.path)
	if err != nil {
		return err
	}
	r.listed = time.Now()
	r.queue = r.queue[:0]
	if r.pos.Current != "" && r.dec == nil {
		r.queue = append(r.queue, r.pos.Current)
	}
	for _, p := range all {
		if r.mine(p) && !r.done[p] && p != r.pos.Current {
			r.queue = append(r.queue, p)
		}
	}
	return nil
}

// Next returns up to 1024 rows, moving through the files. A bounded
// source ends when every file is read; a monitored one lists the path
// again every source.monitor-interval.
func (r *reader) Next(ctx context.Context) ([]sql.Row, error) {
	var out []sql.Row
	for len(out) < 1024 {
		if r.dec == nil {
			if len(r.queue) == 0 {
				if len(out) > 0 {
					return r.project(out), nil
				}
				if r.src.monitor <= 0 {
					return nil, io.EOF
				}
				if time.Since(r.listed) < r.src.monitor {
					return nil, nil
				}
				if err := r.list(); err != nil {
					return nil, err
				}
				if len(r.queue) == 0 {
					return nil, nil
				}
			}
			path := r.queue[0]
			r.queue = r.queue[1:]
			f, err := os.Open(path)
			if err != nil {
				return nil, sql.Errorf(sql.IOException, "Cannot open file '%s': %w", path, err)
			}
			r.f, r.dec = f, r.src.format.newDecoder(bufio.NewReaderSize(f, 256<<10))
			if len(r.src.meta) > 0 {
				if r.metaVals, err = fileMetadata(f, path, r.src.meta); err != nil {
					return nil, err
				}
			}
			if path != r.pos.Current {
				r.pos.Current, r.pos.Records = path, 0
			}
			for i := int64(0); i < r.pos.Records; i++ { // skip what a restored checkpoint consumed
				if _, err := r.dec.next(); err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					return nil, fmt.Errorf("%s: %w", path, err)
				}
			}
		}
		rows, err := r.dec.next()
		if errors.Is(err, io.EOF) {
			r.f.Close()
			r.f, r.dec = nil, nil
			r.done[r.pos.Current] = true
			r.pos.Done = append(r.pos.Done, r.pos.Current)
			r.pos.Current, r.pos.Records = "", 0
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.pos.Current, err)
		}
		r.pos.Records++
		if len(r.metaVals) > 0 {
			for i := range rows {
				rows[i].Values = append(rows[i].Values[:len(rows[i].Values):len(rows[i].Values)], r.metaVals...)
			}
		}
		out = append(out, rows...)
	}
	return r.project(out), nil
}

// fileMetadata is the value of each key for the open file f.
func fileMetadata(f *os.File, path string, keys []string) ([]any, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, sql.Errorf(sql.IOException, "Cannot read file '%s': %w", path, err)
	}
	out := make([]any, len(keys))
	for i, k := range keys {
		switch k {
		case "file.path":
			// Flink's split.path().getPath(): the absolute path, no scheme.
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			out[i] = filepath.ToSlash(abs)
		case "file.name":
			out[i] = filepath.Base(path)
		case "file.size":
			out[i] = st.Size()
		case "file.modification-time":
			out[i] = sql.TimestampFromTime(st.ModTime().Truncate(time.Millisecond))
		}
	}
	return out, nil
}

func (r *reader) project(rows []sql.Row) []sql.Row {
	if r.src.proj == nil {
		return rows
	}
	for i, row := range rows {
		vals := make([]any, len(r.src.proj))
		for j, k := range r.src.proj {
			vals[j] = row.Values[k]
		}
		rows[i].Values = vals
	}
	return rows
}

func (r *reader) Snapshot(int64) ([]byte, error) { return json.Marshal(r.pos) }

func (r *reader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

func (r *reader) Close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}

// Sink writes part files under a directory.
type Sink struct {
	path        string
	format      *format
	rollSize    int64
	parallelism int
}

// ChangelogMode: insert-only for csv/json; debezium-json takes all kinds.
func (s *Sink) ChangelogMode(sql.ChangelogMode) (sql.ChangelogMode, error) {
	return s.format.changelogMode(), nil
}

// Parallelism is sink.parallelism.
func (s *Sink) Parallelism() int { return s.parallelism }

// NewWriter creates a subtask's writer.
func (s *Sink) NewWriter(subtask, _ int) (connectors.SinkWriter, error) {
	return &writer{sink: s, subtask: subtask, id: uuid.NewString()}, nil
}

// writerState is the sink writer's checkpoint state: the files finished
// for the checkpoint but not yet committed, and the writer id whose later
// in-progress files a restore discards.
type writerState struct {
	ID      string   `json:"id"`
	Pending []string `json:"pending"` // in-progress names, relative to path
}

type writer struct {
	sink    *Sink
	subtask int
	id      string
	count   int
	cur     *os.File
	curName string
	curSize int64
	buf     *bufio.Writer
	enc     []byte
	// finished files waiting for a checkpoint, and files per checkpoint
	// waiting for its completion.
	finished []string
	pending  map[int64][]string
}

func (w *writer) Open(_ context.Context, st []byte) error {
	if err := os.MkdirAll(w.sink.path, 0o755); err != nil {
		return sql.Errorf(sql.IOException, "Cannot create directory '%s': %w", w.sink.path, err)
	}
	w.pending = map[int64][]string{}
	if len(st) == 0 {
		return nil
	}
	var s writerState
	if err := json.Unmarshal(st, &s); err != nil {
		return fmt.Errorf("filesystem sink: restore state: %w", err)
	}
	// The restored checkpoint completed, so its files are committed now
	// (again, if the crash came after the rename: then the in-progress
	// file is gone and the committed one exists).
	keep := map[string]bool{}
	for _, p := range s.Pending {
		keep[p] = true
		if err := w.commitFile(p); err != nil {
			return err
		}
	}
	// Files the previous writer started after that checkpoint hold rows
	// that will be replayed: discard them.
	stale, _ := filepath.Glob(filepath.Join(w.sink.path, fmt.Sprintf(".part-%s-%d-*.inprogress", s.ID, w.subtask)))
	for _, p := range stale {
		if !keep[filepath.Base(p)] {
			_ = os.Remove(p)
		}
	}
	return nil
}

func finalName(inprogress string) string {
	return strings.TrimSuffix(strings.TrimPrefix(inprogress, "."), ".inprogress")
}

func (w *writer) commitFile(name string) error {
	from := filepath.Join(w.sink.path, name)
	to := filepath.Join(w.sink.path, finalName(name))
	if err := os.Rename(from, to); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if _, err2 := os.Stat(to); err2 == nil {
				return nil // committed before
			}
		}
		return sql.Errorf(sql.IOException, "Cannot commit part file '%s': %w", from, err)
	}
	return nil
}

func (w *writer) Write(_ context.Context, rows []sql.Row) error {
	for _, r := range rows {
		if w.cur == nil {
			if err := w.openPart(); err != nil {
				return err
			}
		}
		var err error
		w.enc, err = w.sink.format.encode(w.enc[:0], r)
		if err != nil {
			return err
		}
		n, err := w.buf.Write(w.enc)
		if err != nil {
			return sql.Errorf(sql.IOException, "Cannot write part file '%s': %w", w.curName, err)
		}
		w.curSize += int64(n)
		if w.sink.rollSize > 0 && w.curSize >= w.sink.rollSize {
			if err := w.closePart(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) openPart() error {
	w.curName = fmt.Sprintf(".part-%s-%d-%d.inprogress", w.id, w.subtask, w.count)
	w.count++
	f, err := os.OpenFile(filepath.Join(w.sink.path, w.curName), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return sql.Errorf(sql.IOException, "Cannot create part file: %w", err)
	}
	w.cur, w.curSize = f, 0
	if w.buf == nil {
		w.buf = bufio.NewWriterSize(f, 64<<10)
	} else {
		w.buf.Reset(f)
	}
	return nil
}

// closePart flushes, syncs and closes the current file; it becomes
// pending until the next checkpoint completes.
func (w *writer) closePart() error {
	if w.cur == nil {
		return nil
	}
	err := w.buf.Flush()
	if err == nil {
		err = w.cur.Sync()
	}
	if cerr := w.cur.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sql.Errorf(sql.IOException, "Cannot finish part file '%s': %w", w.curName, err)
	}
	w.finished = append(w.finished, w.curName)
	w.cur = nil
	return nil
}

// Snapshot rolls the current part file (every checkpoint finishes the
// files it covers) and records the pending ones.
func (w *writer) Snapshot(_ context.Context, cp int64) ([]byte, []byte, error) {
	if err := w.closePart(); err != nil {
		return nil, nil, err
	}
	w.pending[cp] = w.finished
	w.finished = nil
	var all []string
	for _, ps := range w.pending {
		all = append(all, ps...)
	}
	sort.Strings(all)
	st, err := json.Marshal(writerState{ID: w.id, Pending: all})
	return st, nil, err
}

// NotifyCheckpointComplete commits the files of checkpoints up to cp.
func (w *writer) NotifyCheckpointComplete(_ context.Context, cp int64) error {
	var ids []int64
	for id := range w.pending {
		if id <= cp {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		for _, p := range w.pending[id] {
			if err := w.commitFile(p); err != nil {
				return err
			}
		}
		delete(w.pending, id)
	}
	return nil
}

// Close releases the open file. Rows after the last checkpoint stay in
// an uncommitted in-progress file: a graceful stop or end of input takes a
// final checkpoint first, so nothing is left then.
func (w *writer) Close(context.Context) error {
	if w.cur != nil {
		_ = w.buf.Flush()
		return w.cur.Close()
	}
	return nil
}

// FlinkConnector: 'filesystem' and its csv, json and debezium-json formats
// (flink-csv, flink-json) are in Flink's distribution.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{RejectsUnknownOptions: true}
}
