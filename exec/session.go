// Package exec runs statements: the Session holds the catalogs, the
// current catalog and database, the SET configuration and the jobs it
// submitted, executes parsed statements, and prints their results in the
// Flink SQL client's formats. Planning (EXPLAIN, INSERT, SELECT) goes
// through the Planner seam to plan/ and exec/compile; running goes to
// exec/runtime.
//
// exec knows no connector: table paths, system tables ("t$snapshots") and
// default connectors are the catalog manager's to resolve (catalog.Manager,
// asking the catalogs and connectors through the interfaces they
// declare); DELETE and UPDATE run as Flink's row-level modifications on
// sinks that take them (rowlevel.go, connectors.RowLevelFactory); CALL
// runs the current catalog's procedures (procedures.go,
// catalog.Procedures).
//
// Output is part of the contract: a Flink user's scripts and habits
// (grepping for "[ERROR]", reading "Job ID:") keep working, so every
// message here is the SQL client's, character for character, unless a
// comment says why not.
package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/gateway"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// ErrQuit is returned by Execute for QUIT / EXIT: the shell leaves.
var ErrQuit = errors.New("quit")

// Session executes statements against one set of catalogs and one
// configuration, as a Flink SQL client session does. Statements run one
// at a time (Execute holds a lock); the jobs they start run in the
// background until they finish or are stopped.
type Session struct {
	// remote, when set, is the Flink SQL Gateway every statement goes to
	// (remote.go); secrets are the secret values sent to it, masked in
	// what it answers.
	remote  *gateway.Client
	secrets []string

	Catalogs *catalog.Manager
	Config   *Config
	Jobs     *Jobs
	Planner  Planner
	// Interactive is true in the shell. A non-interactive session (-f,
	// -e) requires the tableau result mode for queries, as Flink does.
	Interactive bool
	// Resume makes every INSERT job restore from the latest checkpoint
	// or savepoint of its name (sqlrun --resume), unless
	// execution.savepoint.path says otherwise.
	Resume bool
	// ResumeAllowFresh lets a --resume job that has no checkpoint or
	// savepoint start from scratch (sqlrun --resume --allow-fresh);
	// without it such a job is refused, since starting over re-reads its
	// sources and may write their rows twice.
	ResumeAllowFresh bool
	// Now is the clock for time costs; tests pin it.
	Now func() time.Time
	// JobContext bounds the life of submitted jobs (the process's).
	JobContext context.Context
	// Echo, when set, makes ExecuteScript print each statement after
	// these prompts before running it, and a blank line after its
	// output, as Flink's SQL client does for -f: the log of a script run
	// reads like a shell session. Sensitive option values are echoed as
	// ****** (RedactSQL).
	Echo *EchoPrompts
	// TermRows reports the terminal's height for the table result mode's
	// page (nil or 0: 24 lines).
	TermRows func() int
	// ViewKeys, when set, delivers the keys typed while the table result
	// mode's view is up (the shell reads them from its terminal until ctx
	// ends, then closes the channel once the terminal is restored); nil:
	// no keys, the view follows the last page.
	ViewKeys func(ctx context.Context) <-chan byte
	// DryRun makes the session change nothing outside itself (see
	// NewDryRunSession): statements that only act are skipped.
	DryRun bool

	mu       sync.Mutex
	jobNames map[string]int
	// origin is "file:line" of the statement ExecuteScript runs, recorded
	// with the jobs it starts so their failures can name it.
	origin string

	metrics     *http.Server
	metricsAddr string
}

// NewSession creates a session with default_catalog.default_database
// current, Flink's default configuration and DefaultPlanner.
func NewSession() *Session {
	return &Session{
		Catalogs:   catalog.NewManager(),
		Config:     NewConfig(),
		Jobs:       &Jobs{},
		Planner:    DefaultPlanner,
		Now:        time.Now,
		JobContext: context.Background(),
		jobNames:   map[string]int{},
	}
}

// Env returns the session as the planner's environment for one
// statement: the tables it resolves are kept for that statement.
func (s *Session) Env() Env { return sessionEnv{s: s, memo: &statementMemo{}} }

// EchoPrompts are the prompts ExecuteScript echoes statements with: the
// first line after Prompt, the others after Continuation.
type EchoPrompts struct {
	Prompt, Continuation string
}

func (s *Session) echo(out io.Writer, text string) {
	if s.Echo == nil {
		return
	}
	for i, line := range strings.Split(RedactSQL(text)+";", "\n") {
		p := s.Echo.Prompt
		if i > 0 {
			p = s.Echo.Continuation
		}
		fmt.Fprintln(out, p+line)
	}
}

// StatementError is a failure of one statement of a script, with where
// the statement starts (file line) so -f can name it.
type StatementError struct {
	File string
	Line int
	Err  error
}

func (e *StatementError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *StatementError) Unwrap() error { return e.Err }

// ExecuteScript splits and runs every statement of text, printing each
// result and, for a failure, the SQL client's error block; it stops at
// the first failure and returns it as a *StatementError (file names the
// script in it). QUIT returns ErrQuit.
func (s *Session) ExecuteScript(ctx context.Context, text, file string, out io.Writer) error {
	pieces, splitErr := parser.Split(text)
	for _, p := range pieces {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.echo(out, p.Text)
		stmt, err := parser.Parse(p.Text)
		if s.remote != nil && (err != nil || !remoteLocal(stmt)) {
			err = s.executeRemote(ctx, p.Text, stmt, out)
		} else if err == nil {
			s.origin = fmt.Sprintf("%s:%d", file, p.StartLine)
			err = s.Execute(ctx, stmt, out)
			s.origin = ""
			if errors.Is(err, ErrQuit) {
				return err
			}
		}
		if s.Echo != nil && err == nil {
			fmt.Fprintln(out)
		}
		if err != nil {
			fmt.Fprint(out, FormatError(err))
			line := p.StartLine
			var pe *parser.ParseError
			if errors.As(err, &pe) && pe.Line > 0 {
				line = p.StartLine + pe.Line - 1
			}
			return &StatementError{File: file, Line: line, Err: err}
		}
	}
	if splitErr != nil {
		fmt.Fprint(out, FormatError(splitErr))
		line := 0
		var pe *parser.ParseError
		if errors.As(splitErr, &pe) {
			line = pe.ScriptLine
		}
		return &StatementError{File: file, Line: line, Err: splitErr}
	}
	return nil
}

// Execute runs one statement and prints its result to out. A failure is
// returned, not printed: the caller prints FormatError (the shell) or
// stops (a script).
func (s *Session) Execute(ctx context.Context, stmt ast.Statement, out io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.DryRun && dryRunSkips(stmt) {
		return nil
	}
	switch st := stmt.(type) {
	case *ast.CreateTable:
		if st.AsQuery != nil {
			return s.createTableAs(ctx, st, out)
		}
		return s.ok(out, s.createTable(st))
	case *ast.DropTable:
		return s.ok(out, s.Catalogs.DropTable(s.Catalogs.Qualify(st.Name), st.IfExists, st.Temporary))
	case *ast.CreateView:
		return s.ok(out, s.createView(st))
	case *ast.DropView:
		return s.ok(out, s.Catalogs.DropView(s.Catalogs.Qualify(st.Name), st.IfExists, st.Temporary))
	case *ast.AlterTableSet:
		return s.ok(out, s.alterTable(st.Name, func(t *catalog.Table) error {
			for _, o := range st.Options {
				t.Options[o.Key] = o.Value
			}
			return nil
		}))
	case *ast.AlterTableReset:
		return s.ok(out, s.alterTable(st.Name, func(t *catalog.Table) error {
			for _, k := range st.Keys {
				if strings.EqualFold(k, "connector") {
					return sql.Errorf(sql.ValidationException, "ALTER TABLE RESET does not support changing 'connector'")
				}
				delete(t.Options, k)
			}
			return nil
		}))
	case *ast.AlterTableRename:
		return s.ok(out, s.renameTable(st))
	case *ast.AlterTableAddColumns:
		return s.ok(out, s.alterColumns(st.Name, st))
	case *ast.AlterTableModifyColumns:
		return s.ok(out, s.alterColumns(st.Name, st))
	case *ast.AlterTableDropColumns:
		return s.ok(out, s.alterColumns(st.Name, st))
	case *ast.AlterTableRenameColumn:
		return s.ok(out, s.alterColumns(st.Name, st))
	case *ast.CreateCatalog:
		return s.ok(out, s.Catalogs.CreateCatalog(st.Name, optionMap(st.Options), st.IfNotExists))
	case *ast.DropCatalog:
		return s.ok(out, s.Catalogs.DropCatalog(st.Name, st.IfExists))
	case *ast.UseCatalog:
		return s.ok(out, s.Catalogs.UseCatalog(st.Name))
	case *ast.CreateDatabase:
		return s.ok(out, s.Catalogs.CreateDatabase(st.Catalog, st.Name, st.IfNotExists))
	case *ast.DropDatabase:
		return s.ok(out, s.Catalogs.DropDatabase(st.Catalog, st.Name, st.IfExists, st.Cascade))
	case *ast.UseDatabase:
		return s.ok(out, s.Catalogs.UseDatabase(st.Catalog, st.Name))
	case *ast.Show:
		return s.show(ctx, st, out)
	case *ast.Describe:
		return s.describe(st.Name, out)
	case *ast.Set:
		if st.Key == "" {
			rows := [][]string{}
			for _, e := range s.Config.Entries() {
				rows = append(rows, []string{e[0], e[1]})
			}
			Box(out, []string{"key", "value"}, rows, 0)
			return nil
		}
		if err := s.Config.Set(st.Key, st.Value); err != nil {
			return err
		}
		if st.Key == config.KeyPromPort {
			if err := s.startMetrics(st.Value); err != nil {
				s.Config.Reset(st.Key)
				return err
			}
		}
		return s.ok(out, nil)
	case *ast.Reset:
		s.Config.Reset(st.Key)
		if st.Key == "" || st.Key == config.KeyPromPort {
			s.stopMetrics()
		}
		return s.ok(out, nil)
	case *ast.Explain:
		text, err := s.Planner.Explain(ctx, s.Env(), st)
		if err != nil {
			return err
		}
		fmt.Fprint(out, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(out)
		}
		return nil
	case *ast.Insert:
		return s.insert(ctx, st, out)
	case *ast.StatementSet:
		if len(st.Inserts) == 0 {
			return sql.Errorf(sql.TableException, "No operators defined in streaming topology. Cannot generate StreamGraph.")
		}
		return s.insert(ctx, st, out)
	case *ast.Query:
		return s.query(ctx, st, out)
	case *ast.StopJob:
		return s.stopJob(ctx, st, out)
	case *ast.Delete, *ast.Update:
		return s.rowLevel(ctx, st, out)
	case *ast.Call:
		return s.call(ctx, st, out)
	case *ast.Quit:
		return ErrQuit
	case *ast.Help:
		fmt.Fprint(out, HelpText)
		return nil
	case *ast.Clear:
		fmt.Fprint(out, "\x1b[H\x1b[2J")
		return nil
	}
	return sql.Errorf(sql.TableException, "Unsupported SQL statement: %s", stmt.SQL())
}

// ok prints the success line of a statement that has no result, or
// returns its failure.
func (s *Session) ok(out io.Writer, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintln(out, MsgStatementSucceeded)
	return nil
}

func optionMap(opts []ast.Option) map[string]string {
	m := make(map[string]string, len(opts))
	for _, o := range opts {
		m[o.Key] = o.Value
	}
	return m
}

func (s *Session) createTable(st *ast.CreateTable) error {
	if st.Distribution != nil {
		// Parsed (sql/parser) but not applied: refuse rather than drop it.
		return sql.Errorf(sql.TableException, "sqlrun does not support DISTRIBUTED BY / DISTRIBUTED INTO yet, at %s", st.Distribution.At.String())
	}
	id := s.Catalogs.Qualify(st.Name)
	var source *catalog.Table
	if st.Like != nil {
		srcID := s.Catalogs.Qualify(st.Like.Source)
		rt, err := s.Catalogs.GetTable(srcID)
		if err != nil {
			if errors.Is(err, catalog.ErrTableNotExist) {
				return sql.Errorf(sql.ValidationException, "Source table '%s' of the LIKE clause not found in the catalog, at %s",
					srcID.String(), st.Like.Source.Pos().String())
			}
			return err
		}
		source = rt.Table
	}
	t, err := catalog.TableFromDDL(st, source)
	if err != nil {
		return err
	}
	if err := plan.ResolveComputedColumns(t); err != nil {
		return err
	}
	// EXPLAIN of a script (a dry run) plans without touching the path,
	// so a job meant for a cluster's hdfs:// can still be explained.
	if !s.DryRun {
		if err := connectors.CheckPathScheme(t.Options["path"], "option 'path' of table "+id.String()); err != nil {
			return err
		}
	}
	return s.Catalogs.CreateTable(id, t, st.IfNotExists, st.Temporary)
}

func (s *Session) alterTable(name ast.ObjectName, change func(*catalog.Table) error) error {
	id := s.Catalogs.Qualify(name)
	rt, err := s.Catalogs.GetTable(id)
	if err != nil || rt.Temporary {
		if err != nil && !errors.Is(err, catalog.ErrTableNotExist) {
			return err
		}
		return sql.Errorf(sql.ValidationException, "Table %s doesn't exist or is a temporary table.", catalog.Serializable(id))
	}
	if err := change(rt.Table); err != nil {
		return err
	}
	return s.Catalogs.AlterTable(id, rt.Table)
}

// alterColumns runs ALTER TABLE ADD / MODIFY / DROP / RENAME of columns:
// Flink's checks (catalog.AlterColumns), then the catalog applies the
// changes (a Paimon table gets a new schema version).
func (s *Session) alterColumns(name ast.ObjectName, st ast.Statement) error {
	id := s.Catalogs.Qualify(name)
	rt, err := s.Catalogs.GetTable(id)
	if err != nil || rt.Temporary || rt.Table.IsView() {
		if err != nil && !errors.Is(err, catalog.ErrTableNotExist) {
			return err
		}
		return sql.Errorf(sql.ValidationException, "Table %s doesn't exist or is a temporary table.", catalog.Serializable(id))
	}
	nt, changes, err := catalog.AlterColumns(rt.Table, st)
	if err != nil {
		return err
	}
	return s.Catalogs.AlterColumns(id, nt, changes)
}

func (s *Session) renameTable(st *ast.AlterTableRename) error {
	id := s.Catalogs.Qualify(st.Name)
	rt, err := s.Catalogs.GetTable(id)
	if err != nil || rt.Temporary {
		if err != nil && !errors.Is(err, catalog.ErrTableNotExist) {
			return err
		}
		return sql.Errorf(sql.ValidationException, "Table %s doesn't exist or is a temporary table.", catalog.Serializable(id))
	}
	to := s.Catalogs.Qualify(st.NewName)
	if to.Catalog != id.Catalog {
		return sql.Errorf(sql.ValidationException, "The catalog name of the new table name '%s' must equal to the catalog name of the old table name '%s'.", to.String(), id.String())
	}
	if err := s.Catalogs.CreateTable(to, rt.Table, false, false); err != nil {
		return err
	}
	return s.Catalogs.DropTable(id, false, false)
}

func (s *Session) lookupForShow(name ast.ObjectName, notFound func(connectors.ObjectIdentifier) error) (*catalog.ResolvedTable, error) {
	id := s.Catalogs.Qualify(name)
	rt, err := s.Catalogs.GetTable(id)
	if err != nil {
		if errors.Is(err, catalog.ErrTableNotExist) {
			return nil, notFound(id)
		}
		return nil, err
	}
	return rt, nil
}

// describe prints DESCRIBE's name|type|null|key|extras|watermark table
// (+comment when any column has one).
func (s *Session) describe(name ast.ObjectName, out io.Writer) error {
	rt, err := s.lookupForShow(name, func(id connectors.ObjectIdentifier) error {
		// A system table (orders$snapshots) is no catalog entry.
		if st, ok, serr := s.Catalogs.GetSystemTable(id); ok {
			if serr != nil {
				return serr
			}
			return &sysTableFound{st}
		}
		return sql.Errorf(sql.ValidationException, "Tables or views with the identifier '%s' doesn't exist.", id.String())
	})
	var found *sysTableFound
	if errors.As(err, &found) {
		rt, err = &catalog.ResolvedTable{Table: found.t}, nil
	}
	if err != nil {
		return err
	}
	Box(out, describeHeader(rt.Table), describeRows(rt.Table), 0)
	return nil
}

// sysTableFound carries a resolved system table out of lookupForShow's
// not-found callback.
type sysTableFound struct{ t *catalog.Table }

func (*sysTableFound) Error() string { return "system table" }

func hasComments(t *catalog.Table) bool {
	for _, c := range t.Columns() {
		if c.Comment != "" {
			return true
		}
	}
	return false
}

func describeHeader(t *catalog.Table) []string {
	h := []string{"name", "type", "null", "key", "extras", "watermark"}
	if hasComments(t) {
		h = append(h, "comment")
	}
	return h
}

func describeRows(t *catalog.Table) [][]string {
	var pk string
	if len(t.Schema.PrimaryKey) > 0 {
		pk = "PRI(" + strings.Join(t.Schema.PrimaryKey, ", ") + ")"
	}
	inPK := map[string]bool{}
	for _, k := range t.Schema.PrimaryKey {
		inPK[k] = true
	}
	comments := hasComments(t)
	var rows [][]string
	for _, c := range t.Columns() {
		typ := c.Type.WithNullable(true).String()
		wm := ""
		switch {
		case t.Watermark != nil && t.Watermark.Column == c.Name:
			typ += " *ROWTIME*"
			wm = t.Watermark.Expr
		case c.IsProctime():
			typ += " *PROCTIME*"
		}
		null := "TRUE"
		if !c.Type.Nullable {
			null = "FALSE"
		}
		key := ""
		if inPK[c.Name] {
			key = pk
		}
		r := []string{c.Name, typ, null, key, c.Extras(), wm}
		if comments {
			r = append(r, c.Comment)
		}
		rows = append(rows, r)
	}
	return rows
}

// show runs the SHOW statements.
func (s *Session) show(ctx context.Context, st *ast.Show, out io.Writer) error {
	switch st.Kind {
	case ast.ShowCatalogs:
		Box(out, []string{"catalog name"}, filterLike(s.Catalogs.ListCatalogs(), st), 0)
	case ast.ShowCurrentCatalog:
		Box(out, []string{"current catalog name"}, [][]string{{s.Catalogs.CurrentCatalog()}}, 0)
	case ast.ShowCurrentDatabase:
		Box(out, []string{"current database name"}, [][]string{{s.Catalogs.CurrentDatabase()}}, 0)
	case ast.ShowDatabases:
		dbs, err := s.Catalogs.ListDatabases()
		if err != nil {
			return err
		}
		Box(out, []string{"database name"}, filterLike(dbs, st), 0)
	case ast.ShowTables:
		// SHOW TABLES FROM [cat.]db keeps the database in Table and its
		// catalog in Database.
		tables, err := s.Catalogs.ListTables(st.Table.Database, st.Table.Table)
		if err != nil {
			return err
		}
		Box(out, []string{"table name"}, filterLike(tables, st), 0)
	case ast.ShowViews:
		return s.showViews(st, out)
	case ast.ShowFunctions:
		if st.User {
			Box(out, []string{"function name"}, nil, 0)
			return nil
		}
		Box(out, []string{"function name"}, filterLike(expr.FunctionNames(), st), 0)
	case ast.ShowColumns:
		rt, err := s.lookupForShow(st.Table, func(id connectors.ObjectIdentifier) error {
			return sql.Errorf(sql.ValidationException, "Tables or views with the identifier '%s' doesn't exist.", id.String())
		})
		if err != nil {
			return err
		}
		rows := describeRows(rt.Table)
		if st.Like != "" {
			var kept [][]string
			for _, r := range rows {
				if likeMatch(r[0], st.Like, st.ILike) != st.NotLike {
					kept = append(kept, r)
				}
			}
			rows = kept
		}
		Box(out, describeHeader(rt.Table), rows, 0)
	case ast.ShowCreateTable:
		rt, err := s.lookupForShow(st.Table, func(id connectors.ObjectIdentifier) error {
			return sql.Errorf(sql.ValidationException,
				"Could not execute SHOW CREATE TABLE. Table with identifier %s does not exist.", catalog.Serializable(id))
		})
		if err != nil {
			return err
		}
		if rt.Table.IsView() {
			return sql.Errorf(sql.TableException,
				"SHOW CREATE TABLE is only supported for tables, but %s is a view. Please use SHOW CREATE VIEW instead.", catalog.Serializable(rt.ID))
		}
		fmt.Fprint(out, ShowCreateTable(rt))
	case ast.ShowCreateView:
		rt, err := s.lookupForShow(st.Table, func(id connectors.ObjectIdentifier) error {
			return sql.Errorf(sql.ValidationException,
				"Could not execute SHOW CREATE VIEW. View with identifier %s does not exist.", catalog.Serializable(id))
		})
		if err != nil {
			return err
		}
		if !rt.Table.IsView() {
			return sql.Errorf(sql.TableException,
				"SHOW CREATE VIEW is only supported for views, but %s is a table. Please use SHOW CREATE TABLE instead.", catalog.Serializable(rt.ID))
		}
		text := ShowCreateView(rt)
		if !strings.HasSuffix(text, "\n") {
			// The client ends the printed row with a line break.
			text += "\n"
		}
		fmt.Fprint(out, text)
	case ast.ShowJobs:
		var rows [][]string
		for _, j := range s.Jobs.List() {
			rows = append(rows, []string{j.ID, j.Name, j.Status().String(),
				j.StartTime.UTC().Format("2006-01-02T15:04:05.000Z")})
		}
		Box(out, []string{"job id", "job name", "status", "start time"}, rows, 0)
	default:
		return sql.Errorf(sql.TableException, "Unsupported SHOW statement: %s", st.SQL())
	}
	return nil
}

// filterLike applies SHOW's [NOT] LIKE / ILIKE and makes one-column rows.
func filterLike(names []string, st *ast.Show) [][]string {
	var rows [][]string
	for _, n := range names {
		if st.Like != "" && likeMatch(n, st.Like, st.ILike) == st.NotLike {
			continue
		}
		rows = append(rows, []string{n})
	}
	return rows
}

// likeMatch is SQL LIKE: % any run, _ one character, \ escapes.
func likeMatch(s, pattern string, fold bool) bool {
	if fold {
		s, pattern = strings.ToLower(s), strings.ToLower(pattern)
	}
	sr, pr := []rune(s), []rune(pattern)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for j < len(pr) {
			switch pr[j] {
			case '%':
				for k := i; k <= len(sr); k++ {
					if match(k, j+1) {
						return true
					}
				}
				return false
			case '_':
				if i >= len(sr) {
					return false
				}
			case '\\':
				if j+1 < len(pr) {
					j++
				}
				fallthrough
			default:
				if i >= len(sr) || sr[i] != pr[j] {
					return false
				}
			}
			i++
			j++
		}
		return i == len(sr)
	}
	return match(0, 0)
}

// ShowCreateView renders SHOW CREATE VIEW as Flink 1.20's
// ShowCreateUtil.buildShowCreateViewRow: CREATE [TEMPORARY] VIEW, the
// identifier, the column names, " as", a line break and the query, then
// " COMMENT '...'" and a line break when the view has a comment. Flink
// prints the query as Calcite expanded it (names fully qualified); sqlrun
// prints the query as written (docs/differences.md).
func ShowCreateView(rt *catalog.ResolvedTable) string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if rt.Temporary {
		b.WriteString("TEMPORARY ")
	}
	var cols []string
	for _, c := range rt.Table.Columns() {
		cols = append(cols, sql.QuoteIdentifier(c.Name))
	}
	b.WriteString("VIEW " + catalog.Serializable(rt.ID) + "(" + strings.Join(cols, ", ") + ") as\n" + rt.Table.View.Text)
	if rt.Table.Comment != "" {
		b.WriteString(" COMMENT " + ast.QuoteString(rt.Table.Comment) + "\n")
	}
	return b.String()
}

// ShowCreateTable renders SHOW CREATE TABLE as Flink's ShowCreateUtil
// does (types in their serializable spelling, options sorted), with
// sensitive option values shown as ******.
func ShowCreateTable(rt *catalog.ResolvedTable) string {
	t := rt.Table
	var b strings.Builder
	b.WriteString("CREATE ")
	if rt.Temporary {
		b.WriteString("TEMPORARY ")
	}
	b.WriteString("TABLE " + catalog.Serializable(rt.ID) + " (\n")
	for i, c := range t.Columns() {
		if i > 0 {
			b.WriteString(",\n")
		}
		if c.Kind == catalog.Computed {
			// ShowCreateUtil: a computed column prints as `c` AS expr.
			b.WriteString("  " + sql.QuoteIdentifier(c.Name) + " " + c.Extras())
		} else {
			b.WriteString("  " + sql.QuoteIdentifier(c.Name) + " " + SerializableType(c.Type))
			if c.Kind == catalog.Metadata {
				b.WriteString(" " + c.Extras())
			}
		}
		if c.Comment != "" {
			b.WriteString(" COMMENT " + ast.QuoteString(c.Comment))
		}
	}
	if t.Watermark != nil {
		b.WriteString(",\n  WATERMARK FOR " + sql.QuoteIdentifier(t.Watermark.Column) + " AS " + t.Watermark.Expr)
	}
	if len(t.Schema.PrimaryKey) > 0 {
		name := t.Schema.PrimaryKeyName
		if name == "" {
			name = catalog.PrimaryKeyName(t.Schema.PrimaryKey)
		}
		cols := make([]string, len(t.Schema.PrimaryKey))
		for i, k := range t.Schema.PrimaryKey {
			cols[i] = sql.QuoteIdentifier(k)
		}
		b.WriteString(",\n  CONSTRAINT " + sql.QuoteIdentifier(name) + " PRIMARY KEY (" + strings.Join(cols, ", ") + ") NOT ENFORCED")
	}
	b.WriteString("\n)\n")
	if t.Comment != "" {
		b.WriteString("COMMENT " + ast.QuoteString(t.Comment) + "\n")
	}
	if len(t.PartitionKeys) > 0 {
		cols := make([]string, len(t.PartitionKeys))
		for i, k := range t.PartitionKeys {
			cols[i] = sql.QuoteIdentifier(k)
		}
		b.WriteString("PARTITIONED BY (" + strings.Join(cols, ", ") + ")\n")
	}
	if len(t.Options) > 0 {
		opts := connectors.MaskOptions(t.Options)
		keys := make([]string, 0, len(opts))
		for k := range opts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("WITH (\n")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString("  " + ast.QuoteString(k) + " = " + ast.QuoteString(opts[k]))
		}
		b.WriteString("\n)\n")
	}
	return b.String()
}

// SerializableType prints a type as Flink's LogicalType.asSerializableString:
// STRING is VARCHAR(2147483647), TIMESTAMP_LTZ(p) is TIMESTAMP(p) WITH
// LOCAL TIME ZONE, NOT NULL is kept.
func SerializableType(t sql.DataType) string {
	var s string
	switch t.Root {
	case sql.TypeVarChar:
		s = fmt.Sprintf("VARCHAR(%d)", t.Length)
	case sql.TypeVarBinary:
		s = fmt.Sprintf("VARBINARY(%d)", t.Length)
	case sql.TypeTimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case sql.TypeArray:
		s = "ARRAY<" + SerializableType(*t.Elem) + ">"
	case sql.TypeMap:
		s = "MAP<" + SerializableType(*t.Elem) + ", " + SerializableType(*t.Value) + ">"
	case sql.TypeRow:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = sql.QuoteIdentifier(f.Name) + " " + SerializableType(f.Type)
			if f.Description != "" {
				parts[i] += " " + ast.QuoteString(f.Description)
			}
		}
		s = "ROW<" + strings.Join(parts, ", ") + ">"
	default:
		return t.String()
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s
}

// jobName is the name of the next job: pipeline.name when set, else
// Flink's default "insert-into_<sink>[,<sink>...]". A name already used
// in this session gets "-2", "-3", ... so --resume can tell jobs apart;
// the names are stable across runs of the same script.
func (s *Session) jobName(stmt ast.Statement) string {
	var name string
	if v := s.Config.Get(config.KeyPipelineName); v != "" {
		name = v
	} else {
		var sinks []string
		switch st := stmt.(type) {
		case *ast.Insert:
			sinks = append(sinks, s.Catalogs.Qualify(st.Table).String())
		case *ast.StatementSet:
			for _, in := range st.Inserts {
				sinks = append(sinks, s.Catalogs.Qualify(in.Table).String())
			}
		case *ast.Delete:
			sinks = append(sinks, s.Catalogs.Qualify(st.Table).String())
		case *ast.Update:
			sinks = append(sinks, s.Catalogs.Qualify(st.Table).String())
		}
		name = "insert-into_" + strings.Join(sinks, ",")
	}
	s.jobNames[name]++
	if n := s.jobNames[name]; n > 1 {
		name = fmt.Sprintf("%s-%d", name, n)
	}
	return name
}

// runtimeConfig builds the job configuration, applying --resume when
// resume is set: the job restores its newest checkpoint or savepoint and
// out says which (id and path); with none the job is refused unless
// ResumeAllowFresh, and out says it starts from scratch.
func (s *Session) runtimeConfig(name string, resume bool, out io.Writer) (runtime.Config, error) {
	cfg, err := runtime.ConfigFromMap(s.Config.Map())
	if err != nil {
		return cfg, err
	}
	if !resume || cfg.RestorePath != "" {
		return cfg, nil
	}
	p, err := runtime.LatestCheckpoint(cfg.CheckpointDir, name)
	if err != nil {
		return cfg, fmt.Errorf("resume job %s: %w", name, err)
	}
	if p == "" {
		where := filepath.Join(cfg.CheckpointDir, runtime.SanitizeJobName(name))
		if !s.ResumeAllowFresh {
			return cfg, sql.Errorf(sql.SqlExecutionException,
				"--resume: job '%s' has no completed checkpoint or savepoint under %s. Starting it from scratch would read its sources again and may write their rows twice; run without --resume, or add --allow-fresh to start jobs that have nothing to resume from scratch.",
				name, where)
		}
		fmt.Fprintf(out, "[INFO] --resume: job '%s' has no checkpoint or savepoint under %s; starting from scratch (--allow-fresh).\n", name, where)
		return cfg, nil
	}
	// chk-N names its id; a savepoint's is in its metadata, which
	// LatestCheckpoint has read already. A damaged checkpoint is the
	// restore's to report, naming the file.
	kind, id := "checkpoint", strings.TrimPrefix(filepath.Base(p), "chk-")
	if strings.HasPrefix(filepath.Base(p), "savepoint-") {
		kind, id = "savepoint", "?"
		if cp, err := runtime.ReadCheckpoint(p); err == nil {
			id = strconv.FormatInt(cp.ID, 10)
		}
	}
	fmt.Fprintf(out, "[INFO] --resume: job '%s' restores %s %s from %s\n", name, kind, id, p)
	cfg.RestorePath = p
	return cfg, nil
}

// insert plans and submits an INSERT or a statement set.
func (s *Session) insert(ctx context.Context, stmt ast.Statement, out io.Writer) error {
	_, err := s.insertStarted(ctx, stmt, out)
	return err
}

// insertStarted is insert that also reports whether the job started (see
// runGraphStarted).
func (s *Session) insertStarted(ctx context.Context, stmt ast.Statement, out io.Writer) (bool, error) {
	return s.runGraphStarted(ctx, stmt, out, func(name string) (*runtime.Graph, error) {
		env, err := s.fullStartEnv(ctx, stmt, name, out)
		if err != nil {
			return nil, err
		}
		return s.Planner.CompileInsert(ctx, env, stmt, name)
	})
}

// runGraph compiles and submits a modifying statement's job and prints
// what the SQL client prints for it (waiting with table.dml-sync).
func (s *Session) runGraph(ctx context.Context, stmt ast.Statement, out io.Writer, compile func(name string) (*runtime.Graph, error)) error {
	_, err := s.runGraphStarted(ctx, stmt, out, compile)
	return err
}

// runGraphStarted is runGraph that also reports whether the job started:
// an error with started false is a job refused before it ran.
func (s *Session) runGraphStarted(ctx context.Context, stmt ast.Statement, out io.Writer, compile func(name string) (*runtime.Graph, error)) (started bool, err error) {
	name := s.jobName(stmt)
	g, err := compile(name)
	if err != nil {
		return false, err
	}
	// A row-level modification (DELETE, UPDATE) reads the table as it is
	// now; it never restores an INSERT's checkpoint of the same name.
	resume := s.Resume
	switch stmt.(type) {
	case *ast.Delete, *ast.Update:
		resume = false
	}
	cfg, err := s.runtimeConfig(g.Name, resume, out)
	if err != nil {
		return false, err
	}
	fmt.Fprintln(out, MsgSubmitting)
	job, err := runtime.Start(s.JobContext, g, cfg)
	if err != nil {
		return false, err
	}
	s.Jobs.Add(job)
	if s.origin != "" {
		s.Jobs.SetOrigin(job.ID, s.origin)
	}
	if !s.Config.DMLSync() {
		fmt.Fprintln(out, MsgSubmitted)
		fmt.Fprintf(out, "Job ID: %s\n\n", job.ID)
		return true, nil
	}
	if err := job.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			job.Cancel()
			<-job.Done()
		}
		return true, err
	}
	fmt.Fprintln(out, MsgDMLComplete)
	return true, nil
}

// stopJob is STOP JOB 'id' [WITH SAVEPOINT]: a graceful stop with a final
// checkpoint; WITH SAVEPOINT prints the savepoint's path.
func (s *Session) stopJob(ctx context.Context, st *ast.StopJob, out io.Writer) error {
	job, err := s.Jobs.Get(st.ID)
	if err != nil {
		return sql.Errorf(sql.SqlExecutionException, "Could not stop job %s: %w", st.ID, err)
	}
	path, err := job.Stop(ctx, st.WithSavepoint)
	if err != nil {
		return &sql.Error{Class: sql.SqlExecutionException, Msg: fmt.Sprintf("Could not stop job %s", st.ID), Err: err}
	}
	// Stop replies once the final checkpoint is taken; the job then winds
	// down. Report success when it has ended, so SHOW JOBS agrees.
	select {
	case <-job.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	if st.WithSavepoint {
		Box(out, []string{"savepoint path"}, [][]string{{path}}, 0)
		return nil
	}
	fmt.Fprintln(out, MsgStatementSucceeded)
	return nil
}

// HelpText is what HELP prints: the statements sqlrun understands.
const HelpText = `The following commands are available:

CLEAR		Clears the current terminal.
CREATE TABLE		Create table under current catalog and database.
DROP TABLE		Drop table with optional catalog and database. Syntax: "DROP TABLE [IF EXISTS] <name>;"
CREATE VIEW		Creates a virtual table from a SQL query. Syntax: "CREATE VIEW <name> AS <query>;"
DESCRIBE		Describes the schema of a table with the given name.
DROP VIEW		Deletes a previously created virtual table. Syntax: "DROP VIEW <name>;"
EXIT		Exits the SQL CLI client.
EXPLAIN		Describes the execution plan of a query or table with the given name.
HELP		Prints the available commands.
INSERT INTO		Inserts the results of a SQL SELECT query into a declared table sink.
INSERT OVERWRITE		Inserts the results of a SQL SELECT query into a declared table sink and overwrite existing data.
QUIT		Quits the SQL CLI client.
RESET		Resets a session configuration property. Syntax: "RESET '<key>';". Use "RESET;" for reset all session properties.
SELECT		Executes a SQL SELECT query on the Flink cluster.
SET		Sets a session configuration property. Syntax: "SET '<key>'='<value>';". Use "SET;" for listing all properties.
SHOW CATALOGS / DATABASES / TABLES / JOBS / CREATE TABLE		Lists catalogs, databases, tables, jobs; prints a table's DDL.
STOP JOB		Stops a running job. Syntax: "STOP JOB '<job id>' [WITH SAVEPOINT];"
USE CATALOG		Sets the current catalog. Syntax: "USE CATALOG <name>;"
USE		Sets the current default database. Syntax: "USE <name>;"

Hint: Make sure that a statement ends with ";" for finalizing (multi-line) statements.
`
