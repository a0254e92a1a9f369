package exec

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// A sink with 'sink.orphans-on-full-start' = 'report' or 'delete' (sqlrun's
// own option, connectors.OrphanCleanup) asks what CALL sqlrun.reconcile
// does by hand, at the one moment it is exact: before a job that starts
// with a full read of its sources (seed 003 §十六: a stateless latest-full
// re-sync upserts every row the source has and never deletes a row the
// target has and the source no longer has).
//
// The sources' full start is pinned first (connectors.FullStartPinner:
// Paimon's latest-full becomes from-snapshot-full at the latest snapshot),
// the INSERT's query is run in batch mode over exactly that state for the
// sink's key columns, the target's keys are read, and the target's rows
// whose key the query does not produce are reported or deleted through
// the sink. Then the job starts from the pinned state: what it writes
// first is exactly the batch query's rows, so the target mirrors the query
// once that full read is written, with no window in which a row the source
// gains or loses meanwhile is missed. A job that restores a checkpoint or
// savepoint, or whose source resumes a consumer's progress, does not start
// with a full read and is not reconciled.

// maxReportedOrphans bounds the keys 'report' prints.
const maxReportedOrphans = 100

// fullStartEnv returns the env the INSERT stmt is compiled in: the
// session's, holding the plan made here so the job does not plan the
// statement again, or, when its sink asks for orphan cleanup at a full start
// and the job starts fresh, one whose sources are pinned, after the
// orphans were reported or deleted.
func (s *Session) fullStartEnv(ctx context.Context, stmt ast.Statement, jobName string, out io.Writer) (Env, error) {
	env := s.Env()
	pl, err := s.Planner.PhysicalPlan(ctx, env, stmt)
	if err != nil || pl == nil {
		return env, nil // the job's own compile reports it
	}
	// The job compiles this plan unless a full start is pinned below.
	if e, ok := env.(sessionEnv); ok {
		e.memo.stmt, e.memo.plan = stmt, pl
	}
	var sink *plan.Sink
	policy := connectors.OrphansKeep
	for _, p := range pl.Physical {
		if p.Table == nil || p.Table.Sink == nil {
			continue
		}
		oc, ok := p.Table.Sink.(connectors.OrphanCleanup)
		if !ok || oc.OrphansOnFullStart() == connectors.OrphansKeep {
			continue
		}
		if sink != nil || len(pl.Physical) > 1 {
			return nil, sql.Errorf(sql.ValidationException,
				"'sink.orphans-on-full-start' = '%s' on table %s works for a single INSERT, not in a statement set.",
				oc.OrphansOnFullStart(), p.Table.ID)
		}
		sink, policy = p, oc.OrphansOnFullStart()
	}
	ins, ok := stmt.(*ast.Insert)
	if sink == nil || !ok {
		return env, nil
	}
	target := sink.Table.ID
	skip := func(why string) (Env, error) {
		fmt.Fprintf(out, "[INFO] 'sink.orphans-on-full-start' of %s: %s; the job does not start with a full read, nothing to reconcile.\n",
			target, why)
		return env, nil
	}
	if ins.Overwrite {
		return nil, sql.Errorf(sql.ValidationException,
			"'sink.orphans-on-full-start' = '%s' on table %s does not apply to INSERT OVERWRITE.", policy, target)
	}
	cfg, err := runtime.ConfigFromMap(s.Config.Map())
	if err != nil {
		return nil, err
	}
	if cfg.RestorePath != "" {
		return skip("the job restores " + cfg.RestorePath)
	}
	if s.Resume {
		p, err := runtime.LatestCheckpoint(cfg.CheckpointDir, jobName)
		if err != nil {
			return nil, fmt.Errorf("resume job %s: %w", jobName, err)
		}
		if p != "" {
			return skip("the job restores " + p)
		}
	}

	// Pin every source's full start.
	streamPins := map[connectors.ObjectIdentifier]map[string]string{}
	batchPins := map[connectors.ObjectIdentifier]map[string]string{}
	var at []string
	var scans []*plan.TableSourceScan
	plan.Walk(sink, func(n plan.Node) {
		if sc, ok := n.(*plan.TableSourceScan); ok {
			scans = append(scans, sc)
		}
	})
	for _, sc := range scans {
		id := sc.Table.ID
		if _, done := streamPins[id]; done {
			continue
		}
		p, ok := sc.Table.Source.(connectors.FullStartPinner)
		if !ok {
			return nil, sql.Errorf(sql.ValidationException,
				"'sink.orphans-on-full-start' = '%s' on table %s needs every source to start with a full read of a state it can name again; "+
					"table %s (connector '%s') cannot.", policy, target, id, sc.Table.Factory.Identifier())
		}
		ps, err := p.PinFullStart()
		if err != nil {
			return nil, &sql.Error{Class: sql.ValidationException,
				Msg: fmt.Sprintf("'sink.orphans-on-full-start' = '%s' on table %s needs every source to start with a full read", policy, target),
				Err: err}
		}
		if ps.Resumes != "" {
			return skip(fmt.Sprintf("table %s resumes %s", id, ps.Resumes))
		}
		streamPins[id], batchPins[id] = ps.Stream, ps.Batch
		if ps.Empty {
			batchPins[id] = nil
		}
		at = append(at, fmt.Sprintf("%s at %s", id, ps.At))
	}

	// The key columns of the target, as positions of the query's row.
	schema := sink.Table.Schema
	if !schema.HasPrimaryKey() {
		return nil, sql.Errorf(sql.ValidationException, "'sink.orphans-on-full-start' needs a primary key on table %s.", target)
	}
	arity := len(schema.Columns)
	if ins.Columns != nil {
		arity = len(ins.Columns)
	}
	cols := make([]string, arity)
	for i := range cols {
		cols[i] = quoteIdent(fmt.Sprintf("c%d", i))
	}
	var keyNames []string
	var keyTypes []sql.DataType
	var items []string
	for _, k := range schema.PrimaryKey {
		pos := schema.Index(k)
		if ins.Columns != nil {
			pos = slices.IndexFunc(ins.Columns, func(c string) bool { return strings.EqualFold(c, k) })
			if pos < 0 {
				return nil, sql.Errorf(sql.ValidationException,
					"'sink.orphans-on-full-start' on table %s: the INSERT's column list has no key column '%s'.", target, k)
			}
		}
		t := schema.Columns[schema.Index(k)].Type
		keyNames = append(keyNames, k)
		keyTypes = append(keyTypes, t)
		items = append(items, fmt.Sprintf("CAST(%s AS %s)", cols[pos], t.NotNull()))
	}
	keys, err := parseQuery("SELECT " + strings.Join(items, ", ") + " FROM (SELECT 1) AS `q` (" + strings.Join(cols, ", ") + ")")
	if err != nil {
		return nil, err
	}
	from, ok := keys.Body.(*ast.Select).From.(*ast.SubqueryRef)
	if !ok {
		return nil, fmt.Errorf("sqlrun: key query of %s has no subquery", target)
	}
	from.Query = ins.Query

	r := &reconciler{s: s, targetID: target, keyNames: keyNames, keyTypes: keyTypes, targetSchema: schema,
		sourceKeys: keys, sourceEnv: sessionEnv{s: s, pinned: batchPins}}
	r.emptySource = func(targetRows int64) error {
		return sql.Errorf(sql.ValidationException,
			"'sink.orphans-on-full-start' = '%s' on table %s: the INSERT's query has no rows (%s), so every one of the %d rows of %s would be an orphan; "+
				"refusing to start. Fill the source first, or clear the target yourself.",
			policy, target, strings.Join(at, ", "), targetRows, target)
	}
	if r.dir, err = mkReconcileDir(); err != nil {
		return nil, err
	}
	defer r.close()
	dryRun := policy == connectors.OrphansReport
	res, err := r.run(ctx, dryRun, false)
	if err != nil {
		return nil, fmt.Errorf("'sink.orphans-on-full-start' of %s: %w", target, err)
	}
	verb := "deleted"
	if dryRun {
		verb = "found (report only, not deleted)"
	}
	fmt.Fprintf(out, "[INFO] 'sink.orphans-on-full-start' of %s: the job starts from %s; %d orphan row(s) %s (%d keys in the query, %d in %s).\n",
		target, strings.Join(at, ", "), res.orphans, verb, res.sourceKeys, res.targetKeys, target)
	if dryRun && len(res.orphanKeys) > 0 {
		printKeys(out, keyNames, keyTypes, res.orphanKeys, maxReportedOrphans)
	}
	return sessionEnv{s: s, pinned: streamPins}, nil
}
