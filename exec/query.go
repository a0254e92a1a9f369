package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// query plans a SELECT, runs it and shows its rows in the configured
// result mode until it ends or ctx is cancelled (Ctrl-C), which cancels
// the job and prints "Query terminated, ...".
func (s *Session) query(ctx context.Context, st *ast.Query, out io.Writer) error {
	mode := s.Config.ResultMode()
	if !s.Interactive && mode != "tableau" {
		return sql.Errorf(sql.SqlExecutionException, "%s", MsgTableauOnly)
	}
	qj, err := s.Planner.CompileQuery(ctx, s.Env(), st, "collect")
	if err != nil {
		return err
	}
	cfg, err := runtime.ConfigFromMap(s.Config.Map())
	if err != nil {
		return err
	}
	start := s.Now()
	job, err := runtime.Start(ctx, qj.Graph, cfg)
	if err != nil {
		return err
	}
	defer func() {
		job.Cancel()
		<-job.Done()
	}()
	zone, err := config.TimeZone(s.Config.Map())
	if err != nil {
		return err
	}
	next := func() ([]sql.Row, error) {
		rows, err := qj.Collect.Next(ctx, job)
		return localRows(rows, qj.Schema, zone), err
	}
	return s.ShowResult(ctx, out, qj.Schema, mode, s.Config.Streaming(), next, start)
}

// ShowResult prints a query result read batch by batch from next (which
// returns io.EOF at the end) in a result mode: tableau (rows as they
// arrive), changelog (the same with the op column, as the client's
// changelog view) or table (a materialized view redrawn as it changes).
// It is separate from query so tests can drive it with fixed batches.
func (s *Session) ShowResult(ctx context.Context, out io.Writer, schema sql.Schema, mode string, streaming bool,
	next func() ([]sql.Row, error), start time.Time) error {
	elapsed := func() float64 {
		if !s.Config.PrintTimeCost() {
			return -1
		}
		return s.Now().Sub(start).Seconds()
	}
	maxWidth := s.Config.MaxColumnWidth()
	if mode == "table" {
		return s.tableView(ctx, out, schema, next, maxWidth)
	}
	if !streaming && mode == "tableau" {
		var rows [][]string
		for {
			batch, err := next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return err
			}
			for _, r := range batch {
				rows = applyBatchRow(rows, r, schema)
			}
		}
		if len(rows) == 0 {
			fmt.Fprintln(out, MsgEmptySet)
			return nil
		}
		var b strings.Builder
		Box(&b, schema.Names(), rows, maxWidth)
		text := b.String()
		// Box ends with "N rows in set\n"; add the time cost.
		if sec := elapsed(); sec >= 0 {
			text = text[:len(text)-1] + fmt.Sprintf(" (%.2f seconds)\n", sec)
		}
		fmt.Fprint(out, text)
		return nil
	}
	tb := NewTableau(out, schema, maxWidth, true)
	tb.Header()
	for {
		batch, err := next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				tb.Footer(false, elapsed())
				return nil
			}
			if ctx.Err() != nil {
				tb.Footer(true, elapsed())
				return nil
			}
			return err
		}
		tb.Rows(batch)
	}
}

// applyBatchRow folds one row into a batch result. A batch result is a
// table, not a changelog: Flink's batch operators only ever emit +I, but
// some of ours run their streaming form on bounded input (a join that sees
// its probe side first emits a null-padded row, then retracts it), so a
// retraction removes the latest equal row instead of being shown.
func applyBatchRow(rows [][]string, r sql.Row, schema sql.Schema) [][]string {
	cells := formatCells(r, schema)
	if r.Kind.IsAdd() {
		return append(rows, cells)
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if slices.Equal(rows[i], cells) {
			return append(rows[:i], rows[i+1:]...)
		}
	}
	return rows
}

func formatCells(r sql.Row, schema sql.Schema) []string {
	cells := make([]string, len(r.Values))
	for i, v := range r.Values {
		var t sql.DataType
		if i < len(schema.Columns) {
			t = schema.Columns[i].Type
		}
		cells[i] = FormatCell(v, t)
	}
	return cells
}

// Terminal control for the table view: the alternate screen (as Flink's
// SQL client's full-screen views use), cursor home, clear to end of line
// and to end of screen. Redrawing with these overwrites the previous frame
// in place; nothing reaches the scrollback until the view ends.
const (
	escAltScreenOn  = "\x1b[?1049h"
	escAltScreenOff = "\x1b[?1049l"
	escHome         = "\x1b[H"
	escClearLine    = "\x1b[K"
	escClearBelow   = "\x1b[J"
)

// viewHelp is the table view's key legend: Flink's CliTableResultView
// keys for paging and leaving (N/P/L, and G here for the first page).
const viewHelp = "N next page, P previous page, G first page, L last page, Q quit"

// tableView is the table result mode: the current content of the result
// (inserts add a row, retractions remove an equal one) as a full-screen
// view on the alternate screen, redrawn in place at most every 200 ms and
// paged to the terminal's height, showing the last page as Flink's
// CliTableResultView does. When the result ends or Ctrl-C stops it, the
// view leaves the alternate screen and prints the final table once.
func (s *Session) tableView(ctx context.Context, out io.Writer, schema sql.Schema, next func() ([]sql.Row, error), maxWidth int) error {
	var view [][]any
	apply := func(r sql.Row) {
		if r.Kind.IsAdd() {
			view = append(view, r.Values)
			return
		}
		for i, v := range view {
			if reflect.DeepEqual(v, r.Values) {
				view = append(view[:i], view[i+1:]...)
				return
			}
		}
	}
	cells := func(from, to int) [][]string {
		rows := make([][]string, 0, to-from)
		for _, v := range view[from:to] {
			rows = append(rows, formatCells(sql.Row{Values: v}, schema))
		}
		return rows
	}
	height := 24
	if s.TermRows != nil {
		if h := s.TermRows(); h > 0 {
			height = h
		}
	}
	// The page: the terminal minus the status line, the box's three
	// border lines and header, and its "N rows in set" footer (and the key
	// legend, when there are keys).
	pageSize := max(height-6, 1)
	var keys <-chan byte // the typed keys, when the shell provides them
	// page is the first row shown; following means the view keeps to the
	// last page (the newest pageSize rows) as rows arrive: Flink's
	// CliTableResultView starts there, and its L key returns there.
	page, following := 0, true
	lastPage := func() int { return max(len(view)-pageSize, 0) }
	var last time.Time
	frames := 0
	draw := func() {
		if following || page > lastPage() {
			page = lastPage()
		}
		from := page
		to := min(from+pageSize, len(view))
		var b strings.Builder
		if frames == 0 {
			b.WriteString(escAltScreenOn)
		}
		frames++
		b.WriteString(escHome)
		where := "page"
		if following {
			where = "last page"
		}
		status := fmt.Sprintf("Table mode: rows %d-%d of %d (%s), updated %s. Ctrl-C stops the query.",
			min(from+1, len(view)), to, len(view), where, s.Now().Format("15:04:05"))
		var box strings.Builder
		rows := cells(from, to)
		if len(rows) == 0 {
			rows = [][]string{make([]string, len(schema.Columns))}
		}
		Box(&box, schema.Names(), rows, maxWidth)
		lines := append([]string{status}, strings.Split(strings.TrimSuffix(box.String(), "\n"), "\n")...)
		if keys != nil {
			lines = append(lines, viewHelp)
		}
		for _, line := range lines {
			b.WriteString(line + escClearLine + "\n")
		}
		b.WriteString(escClearBelow)
		fmt.Fprint(out, b.String())
	}
	finish := func() {
		if frames > 0 {
			fmt.Fprint(out, escAltScreenOff)
		}
		if len(view) == 0 {
			Box(out, schema.Names(), [][]string{make([]string, len(schema.Columns))}, maxWidth)
			return
		}
		Box(out, schema.Names(), cells(0, len(view)), maxWidth)
	}

	// The result arrives on its own goroutine so that keys redraw the view
	// while no row comes; it ends when the query does (the caller cancels
	// the job when the view returns).
	type result struct {
		batch []sql.Row
		err   error
	}
	done := make(chan struct{})
	defer close(done)
	results := make(chan result)
	go func() {
		for {
			batch, err := next()
			select {
			case results <- result{batch, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	if s.ViewKeys != nil {
		kctx, stopKeys := context.WithCancel(ctx)
		all := s.ViewKeys(kctx)
		keys = all
		// The key reader gives the terminal back before the shell's line
		// editor takes it: wait for it to close its channel.
		defer func() {
			stopKeys()
			for range all {
			}
		}()
		pageSize = max(pageSize-1, 1)
	}
	for {
		select {
		case k, ok := <-keys:
			if !ok {
				keys = nil
				continue
			}
			switch k {
			case 'q', 'Q':
				finish()
				return nil
			case 'n', 'N':
				page, following = min(page+pageSize, lastPage()), false
			case 'p', 'P':
				page, following = max(page-pageSize, 0), false
			case 'l', 'L':
				following = true
			case 'g', 'G':
				page, following = 0, false
			default:
				continue
			}
			draw()
			last = time.Now()
		case r := <-results:
			if r.err != nil {
				if errors.Is(r.err, io.EOF) || ctx.Err() != nil {
					finish()
					return nil
				}
				if frames > 0 {
					fmt.Fprint(out, escAltScreenOff)
				}
				return r.err
			}
			for _, row := range r.batch {
				apply(row)
			}
			if time.Since(last) > 200*time.Millisecond {
				draw()
				last = time.Now()
			}
		}
	}
}

// localRows shows the TIMESTAMP_LTZ values of rows as their wall clock in
// the session time zone, as the SQL client's RowDataToStringConverter
// does with 'table.local-time-zone'; the rows are copied where they change.
func localRows(rows []sql.Row, schema sql.Schema, zone *time.Location) []sql.Row {
	types := schema.Types()
	if zone == time.UTC || !slices.ContainsFunc(types, hasLTZ) {
		return rows
	}
	for i, r := range rows {
		var vals []any
		for j, v := range r.Values {
			if j >= len(types) {
				break
			}
			if lv := localValue(v, types[j], zone); vals != nil || !reflect.DeepEqual(lv, v) {
				if vals == nil {
					vals = append([]any(nil), r.Values...)
				}
				vals[j] = lv
			}
		}
		if vals != nil {
			rows[i] = sql.Row{Kind: r.Kind, Values: vals}
		}
	}
	return rows
}

// localValue is v with its TIMESTAMP_LTZ values, nested ones too, moved to
// the wall clock of zone.
func localValue(v any, t sql.DataType, zone *time.Location) any {
	switch x := v.(type) {
	case sql.TimestampData:
		if t.Root == sql.TypeTimestampLTZ {
			x.Millis = expr.LocalMillis(x.Millis, zone)
			return x
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var et sql.DataType
			switch {
			case t.Root == sql.TypeArray && t.Elem != nil:
				et = *t.Elem
			case t.Root == sql.TypeRow && i < len(t.Fields):
				et = t.Fields[i].Type
			}
			out[i] = localValue(e, et, zone)
		}
		return out
	}
	return v
}

// hasLTZ reports a TIMESTAMP_LTZ type or one that holds one.
func hasLTZ(t sql.DataType) bool {
	switch {
	case t.Root == sql.TypeTimestampLTZ:
		return true
	case t.Elem != nil && hasLTZ(*t.Elem), t.Value != nil && hasLTZ(*t.Value):
		return true
	}
	return slices.ContainsFunc(t.Fields, func(f sql.Field) bool { return hasLTZ(f.Type) })
}
