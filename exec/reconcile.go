package exec

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// CALL sqlrun.reconcile(source => 'orders', target => 'mysql_orders'
// [, dry_run => true] [, allow_empty_source => true]) — sqlrun's own
// procedure (Flink and Paimon have none such) for seed 003 §十六: a
// stateless `latest-full` re-sync upserts every row the source has, but
// never deletes a row the target still has and the source no longer has
// ("orphan rows"). Reconcile deletes exactly those, or with dry_run lists
// them.
//
// It reads both tables' primary keys in batch mode (the source's cast to
// the target's key types, so 1001 INT and 1001 BIGINT are one key),
// partitions both key streams by hash into spill files, and compares one
// partition at a time: memory holds one partition of the source's keys,
// not both tables. The orphans are then deleted through the target's own
// sink (-D rows carrying the key), with its flush and retry rules.
const (
	reconcileProcedure = "reconcile"
	// reconcilePartitions bounds memory: one partition of the source's
	// keys is in memory at a time.
	reconcilePartitions = 64
)

var reconcileParams = []string{"source", "target", "dry_run", "allow_empty_source"}

// isReconcile reports whether CALL names sqlrun.reconcile.
func isReconcile(p ast.ObjectName) bool {
	return p.Catalog == "" && strings.EqualFold(p.Database, "sqlrun") && strings.EqualFold(p.Table, reconcileProcedure)
}

func (s *Session) reconcile(ctx context.Context, st *ast.Call, out io.Writer) error {
	args := map[string]string{}
	for i, e := range st.Args {
		name := ""
		if st.ArgNames != nil {
			name = strings.Trim(st.ArgNames[i], "`")
		}
		if name == "" {
			if i >= len(reconcileParams) {
				return sql.Errorf(sql.ValidationException, "No match found for function signature sqlrun.reconcile: too many arguments.")
			}
			name = reconcileParams[i]
		} else if !contains(reconcileParams, name) {
			return sql.Errorf(sql.ValidationException, "Procedure sqlrun.reconcile has no parameter '%s' (parameters: %s).",
				name, strings.Join(reconcileParams, ", "))
		}
		v, err := literalArg(e)
		if err != nil {
			return fmt.Errorf("procedure sqlrun.reconcile argument %s: %w", name, err)
		}
		args[name] = v
	}
	for _, p := range []string{"source", "target"} {
		if strings.TrimSpace(args[p]) == "" {
			return sql.Errorf(sql.ValidationException, "Procedure sqlrun.reconcile needs the '%s' argument (a table name).", p)
		}
	}
	boolArg := func(name string) (bool, error) {
		v, ok := args[name]
		if !ok || v == "" {
			return false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, sql.Errorf(sql.ValidationException, "Procedure sqlrun.reconcile: '%s' must be true or false, not '%s'.", name, v)
		}
		return b, nil
	}
	dryRun, err := boolArg("dry_run")
	if err != nil {
		return err
	}
	allowEmpty, err := boolArg("allow_empty_source")
	if err != nil {
		return err
	}
	r, err := s.newReconciler(ctx, args["source"], args["target"])
	if err != nil {
		return err
	}
	defer r.close()
	res, err := r.run(ctx, dryRun, allowEmpty)
	if err != nil {
		return err
	}
	if dryRun {
		printKeys(out, r.keyNames, r.keyTypes, res.orphanKeys, len(res.orphanKeys))
	}
	verb := "deleted from"
	if dryRun {
		verb = "found (dry run) in"
	}
	Box(out, []string{"result"}, [][]string{{fmt.Sprintf("%d orphan row(s) %s %s (%d keys in %s, %d in %s)",
		res.orphans, verb, r.targetID.Name, res.sourceKeys, r.sourceID.Name, res.targetKeys, r.targetID.Name)}}, 0)
	return nil
}

type reconciler struct {
	s                  *Session
	sourceID, targetID connectors.ObjectIdentifier
	keyNames           []string
	keyTypes           []sql.DataType
	targetSchema       sql.Schema
	dir                string
	// sourceKeys, when set, is the query of the source's keys (a pinned
	// full start's), planned in sourceEnv; otherwise the source table's
	// key columns are read.
	sourceKeys *ast.Query
	sourceEnv  Env
	// emptySource, when set, is the error for a source without rows.
	emptySource func(targetRows int64) error
}

// quoteIdent quotes one identifier with backticks.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// quoteID quotes a full table identifier.
func quoteID(id connectors.ObjectIdentifier) string {
	return quoteIdent(id.Catalog) + "." + quoteIdent(id.Database) + "." + quoteIdent(id.Name)
}

// parseQuery parses an internal query's text.
func parseQuery(text string) (*ast.Query, error) {
	stmt, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	q, ok := stmt.(*ast.Query)
	if !ok {
		return nil, fmt.Errorf("not a query: %s", text)
	}
	return q, nil
}

func (s *Session) newReconciler(ctx context.Context, source, target string) (*reconciler, error) {
	tn, err := objectName(target)
	if err != nil {
		return nil, fmt.Errorf("procedure sqlrun.reconcile target: %w", err)
	}
	sn, err := objectName(source)
	if err != nil {
		return nil, fmt.Errorf("procedure sqlrun.reconcile source: %w", err)
	}
	tid, tt, err := s.Catalogs.LookupTable(tn)
	if err != nil {
		return nil, err
	}
	sid, st, err := s.Catalogs.LookupTable(sn)
	if err != nil {
		return nil, err
	}
	if !tt.Schema.HasPrimaryKey() {
		return nil, sql.Errorf(sql.ValidationException,
			"sqlrun.reconcile: target table %s has no primary key; orphan rows are found and deleted by key.", tid)
	}
	r := &reconciler{s: s, sourceID: sid, targetID: tid, targetSchema: tt.Schema}
	for _, k := range tt.Schema.PrimaryKey {
		if st.Schema.Index(k) < 0 {
			return nil, sql.Errorf(sql.ValidationException,
				"sqlrun.reconcile: source table %s has no column '%s' of target %s's primary key.", sid, k, tid)
		}
		r.keyNames = append(r.keyNames, k)
		r.keyTypes = append(r.keyTypes, tt.Schema.Columns[tt.Schema.Index(k)].Type)
	}
	if r.dir, err = mkReconcileDir(); err != nil {
		return nil, err
	}
	return r, nil
}

// mkReconcileDir makes the spill directory of one reconcile.
func mkReconcileDir() (string, error) {
	dir, err := os.MkdirTemp("", "sqlrun-reconcile-")
	if err != nil {
		return "", fmt.Errorf("sqlrun.reconcile: spill directory: %w", err)
	}
	return dir, nil
}

func (r *reconciler) close() { _ = os.RemoveAll(r.dir) }

// objectName splits a [catalog.][database.]table argument; parts may be
// quoted with backticks.
func objectName(s string) (ast.ObjectName, error) {
	q, err := parser.Parse("SELECT * FROM " + s)
	if err != nil {
		return ast.ObjectName{}, sql.Errorf(sql.ValidationException, "'%s' is not a table name", s)
	}
	query, ok := q.(*ast.Query)
	if !ok {
		return ast.ObjectName{}, sql.Errorf(sql.ValidationException, "'%s' is not a table name", s)
	}
	if sel, ok := query.Body.(*ast.Select); ok {
		if t, ok := sel.From.(*ast.TableRef); ok && len(t.Hints) == 0 && t.Alias == "" && t.SystemTimeAsOf == nil {
			return t.Name, nil
		}
	}
	return ast.ObjectName{}, sql.Errorf(sql.ValidationException, "'%s' is not a table name", s)
}

type reconcileResult struct {
	sourceKeys, targetKeys, orphans int64
	orphanKeys                      [][]any // dry run only
}

// run spills both key sets, diffs them partition by partition and deletes
// (or lists) the orphans.
func (r *reconciler) run(ctx context.Context, dryRun, allowEmpty bool) (*reconcileResult, error) {
	var srcCols, tgtCols []string
	for i, k := range r.keyNames {
		q := quoteIdent(k)
		srcCols = append(srcCols, fmt.Sprintf("CAST(%s AS %s)", q, r.keyTypes[i].NotNull()))
		tgtCols = append(tgtCols, q)
	}
	src := r.sourceKeys
	if src == nil {
		q, err := parseQuery("SELECT " + strings.Join(srcCols, ", ") + " FROM " + quoteID(r.sourceID))
		if err != nil {
			return nil, err
		}
		src = q
	}
	tgt, err := parseQuery("SELECT " + strings.Join(tgtCols, ", ") + " FROM " + quoteID(r.targetID))
	if err != nil {
		return nil, err
	}
	res := &reconcileResult{}
	if res.sourceKeys, err = r.spill(ctx, "source", src, r.sourceEnv); err != nil {
		return nil, err
	}
	if res.targetKeys, err = r.spill(ctx, "target", tgt, nil); err != nil {
		return nil, err
	}
	if res.sourceKeys == 0 && res.targetKeys > 0 && !allowEmpty {
		if r.emptySource != nil {
			return nil, r.emptySource(res.targetKeys)
		}
		return nil, sql.Errorf(sql.ValidationException,
			"sqlrun.reconcile: source %s has no rows, so every one of the %d rows of %s would be deleted; "+
				"if that is meant, pass allow_empty_source => true", r.sourceID, res.targetKeys, r.targetID)
	}
	var del *orphanDeleter
	if !dryRun {
		if del, err = r.deleter(ctx); err != nil {
			return nil, err
		}
		defer del.close(ctx)
	}
	for p := range reconcilePartitions {
		keys := map[string]struct{}{}
		if err := readSpill(r.path("source", p), func(key string, _ []any) error {
			keys[key] = struct{}{}
			return nil
		}); err != nil {
			return nil, err
		}
		err := readSpill(r.path("target", p), func(key string, vals []any) error {
			if _, ok := keys[key]; ok {
				return nil
			}
			res.orphans++
			if dryRun {
				res.orphanKeys = append(res.orphanKeys, vals)
				return nil
			}
			return del.delete(ctx, vals)
		})
		if err != nil {
			return nil, err
		}
	}
	if del != nil {
		if err := del.finish(ctx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// printKeys prints keys, sorted, as a box of at most max rows, and how many
// more there are.
func printKeys(out io.Writer, names []string, types []sql.DataType, keys [][]any, max int) {
	slices.SortFunc(keys, compareKeys)
	shown := keys[:min(len(keys), max)]
	rows := make([][]string, len(shown))
	for i, k := range shown {
		cells := make([]string, len(k))
		for j, v := range k {
			cells[j] = sql.FormatValue(v, types[j])
		}
		rows[i] = cells
	}
	Box(out, names, rows, 0)
	if n := len(keys) - len(shown); n > 0 {
		fmt.Fprintf(out, "... and %d more\n", n)
	}
}

// compareKeys orders dry-run keys: numbers and strings by value, other
// types by their text.
func compareKeys(a, b []any) int {
	for i := range a {
		var c int
		switch x := a[i].(type) {
		case int64:
			c = cmp.Compare(x, b[i].(int64))
		case int32:
			c = cmp.Compare(x, b[i].(int32))
		case int16:
			c = cmp.Compare(x, b[i].(int16))
		case int8:
			c = cmp.Compare(x, b[i].(int8))
		case string:
			c = strings.Compare(x, b[i].(string))
		default:
			c = strings.Compare(fmt.Sprint(a[i]), fmt.Sprint(b[i]))
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (r *reconciler) path(side string, p int) string {
	return filepath.Join(r.dir, fmt.Sprintf("%s-%02d", side, p))
}

// spill runs query in batch mode (planned in env, or the session's when
// nil) and writes its rows (the key values) to reconcilePartitions files
// by the hash of their normalized key.
func (r *reconciler) spill(ctx context.Context, side string, query *ast.Query, env Env) (int64, error) {
	files := make([]*bufio.Writer, reconcilePartitions)
	handles := make([]*os.File, reconcilePartitions)
	defer func() {
		for _, f := range handles {
			if f != nil {
				f.Close()
			}
		}
	}()
	for p := range files {
		f, err := os.Create(r.path(side, p))
		if err != nil {
			return 0, fmt.Errorf("sqlrun.reconcile: spill file: %w", err)
		}
		handles[p] = f
		files[p] = bufio.NewWriterSize(f, 32<<10)
	}
	var n int64
	var key, rec sql.Encoder
	err := r.s.batchRows(ctx, query, env, func(rows []sql.Row) error {
		for _, row := range rows {
			if row.Kind != sql.Insert {
				continue // a batch scan is insert-only
			}
			key.Buf = key.Buf[:0]
			for _, v := range row.Values {
				if v == nil {
					return sql.Errorf(sql.ValidationException, "sqlrun.reconcile: %s has a row with a NULL key: %s",
						side, sql.FormatRow(row, r.keyTypes))
				}
				if err := key.Key(v); err != nil {
					return err
				}
			}
			rec.Buf = rec.Buf[:0]
			rec.String(string(key.Buf))
			if err := rec.Values(row.Values); err != nil {
				return err
			}
			h := fnv.New64a()
			_, _ = h.Write(key.Buf)
			w := files[h.Sum64()%reconcilePartitions]
			var hdr [binary.MaxVarintLen64]byte
			if _, err := w.Write(hdr[:binary.PutUvarint(hdr[:], uint64(len(rec.Buf)))]); err != nil {
				return err
			}
			if _, err := w.Write(rec.Buf); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlrun.reconcile: reading the keys of the %s: %w", side, err)
	}
	for p, w := range files {
		if err := w.Flush(); err != nil {
			return 0, fmt.Errorf("sqlrun.reconcile: spill file: %w", err)
		}
		if err := handles[p].Close(); err != nil {
			return 0, fmt.Errorf("sqlrun.reconcile: spill file: %w", err)
		}
		handles[p] = nil
	}
	return n, nil
}

// readSpill calls fn with each record's normalized key and values.
func readSpill(path string, fn func(key string, vals []any) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sqlrun.reconcile: spill file: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 32<<10)
	var buf []byte
	for {
		n, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil // between records
		}
		if err != nil {
			return fmt.Errorf("sqlrun.reconcile: spill file %s: %w", path, err)
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("sqlrun.reconcile: spill file %s: %w", path, err)
		}
		d := sql.Decoder{Buf: buf}
		key, err := d.String()
		if err != nil {
			return err
		}
		vals, err := d.Values()
		if err != nil {
			return err
		}
		if err := fn(key, vals); err != nil {
			return err
		}
	}
}

// batchRows runs q in batch mode, planned in env (the session's when
// nil), and hands its result to fn batch by batch.
func (s *Session) batchRows(ctx context.Context, q *ast.Query, env Env, fn func([]sql.Row) error) error {
	if env == nil {
		env = s.Env()
	}
	restore := s.withConfig(config.KeyRuntimeMode, "batch")
	defer restore()
	qj, err := s.Planner.CompileQuery(ctx, env, q, "sqlrun-reconcile")
	if err != nil {
		return err
	}
	cfg, err := runtime.ConfigFromMap(s.Config.Map())
	if err != nil {
		return err
	}
	job, err := runtime.Start(ctx, qj.Graph, cfg)
	if err != nil {
		return err
	}
	defer func() {
		job.Cancel()
		<-job.Done()
	}()
	for {
		rows, err := qj.Collect.Next(ctx, job)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rows); err != nil {
			return err
		}
	}
}

// withConfig sets key for the duration of one internal statement and
// returns what puts the session's value back.
func (s *Session) withConfig(key, value string) func() {
	old, was := s.Config.set[key]
	s.Config.set[key] = value
	return func() {
		if was {
			s.Config.set[key] = old
		} else {
			delete(s.Config.set, key)
		}
	}
}

// orphanDeleter writes -D rows with the key values into the target's own
// sink writer.
type orphanDeleter struct {
	w    connectors.SinkWriter
	idx  []int // key positions in the target's rows
	n    int
	rows []sql.Row
}

func (r *reconciler) deleter(ctx context.Context) (*orphanDeleter, error) {
	restore := r.s.withConfig(config.KeyRuntimeMode, "batch")
	defer restore()
	var cols []string
	for _, c := range r.targetSchema.Columns {
		cols = append(cols, "`"+strings.ReplaceAll(c.Name, "`", "``")+"`")
	}
	id := r.targetID
	text := fmt.Sprintf("INSERT INTO `%s`.`%s`.`%s` SELECT %s FROM `%s`.`%s`.`%s`", id.Catalog, id.Database, id.Name,
		strings.Join(cols, ", "), id.Catalog, id.Database, id.Name)
	stmt, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	pl, err := r.s.Planner.PhysicalPlan(ctx, r.s.Env(), stmt)
	if err != nil {
		return nil, err
	}
	if len(pl.Physical) != 1 || pl.Physical[0].Table == nil || pl.Physical[0].Table.Sink == nil {
		return nil, fmt.Errorf("sqlrun.reconcile: %s is not writable", id)
	}
	w, err := pl.Physical[0].Table.Sink.NewWriter(0, 1)
	if err != nil {
		return nil, err
	}
	if err := w.Open(ctx, nil); err != nil {
		_ = w.Close(ctx)
		return nil, err
	}
	d := &orphanDeleter{w: w}
	for _, k := range r.keyNames {
		d.idx = append(d.idx, r.targetSchema.Index(k))
	}
	d.n = len(r.targetSchema.Columns)
	return d, nil
}

func (d *orphanDeleter) delete(ctx context.Context, key []any) error {
	vals := make([]any, d.n)
	for i, p := range d.idx {
		vals[p] = key[i]
	}
	d.rows = append(d.rows, sql.Row{Kind: sql.Delete, Values: vals})
	if len(d.rows) < 1024 {
		return nil
	}
	return d.flushRows(ctx)
}

func (d *orphanDeleter) flushRows(ctx context.Context) error {
	err := d.w.Write(ctx, d.rows)
	clear(d.rows)
	d.rows = d.rows[:0]
	return err
}

// finish writes the last rows and flushes the writer (its checkpoint
// flush).
func (d *orphanDeleter) finish(ctx context.Context) error {
	if err := d.flushRows(ctx); err != nil {
		return err
	}
	_, _, err := d.w.Snapshot(ctx, 1)
	return err
}

func (d *orphanDeleter) close(ctx context.Context) { _ = d.w.Close(ctx) }
