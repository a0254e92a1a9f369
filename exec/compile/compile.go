// Package compile translates a planned statement (plan.Plan) into the
// runtime's job graph: one vertex per physical node that does work (an
// Exchange is not a vertex but the partitioning of the edge across it),
// compiled closures for Calc, and Flink's changelog operators configured
// from the changelog modes the planner inferred.
//
// Vertex UIDs are derived from the node's place in the plan (sink index,
// path from the sink, node kind), so the same statement gets the same UIDs
// on every run and a restored checkpoint finds its state.
package compile

import (
	"fmt"
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Options configure the translation.
type Options struct {
	// JobName is the graph's name (pipeline.name).
	JobName string
	// Config is the session configuration (parallelism.default,
	// table.exec.state.ttl, table.exec.sink.not-null-enforcer, ...).
	Config map[string]string
	// Collect receives a query's rows; required for a SELECT plan.
	Collect *runtime.Collect
}

type builder struct {
	g         *runtime.Graph
	opts      Options
	defaultP  int
	streaming bool
	// reuse numbers the sub-plans EXPLAIN shows as reused
	// (plan.ReusedSubplans); built holds the edge of each one built, which
	// every later consumer of the same number connects to.
	reuse map[plan.Node]int
	built map[int]edge
	// queryStart is the epoch millisecond a batch job's time functions
	// read (expr.AtQueryStart): the time the job's plan is translated, as
	// Flink's planner sets TABLE_QUERY_START_EPOCH_TIME.
	queryStart int64
	// zone is the session time zone ('table.local-time-zone') every
	// compiled expression evaluates in (expr.InZone).
	zone *time.Location
	// topN bounds the batch OverAggregate built at a path by the Calc
	// above it (batchTopN).
	topN map[string]*operators.BatchTopN
}

// atStart binds an expression to the session time zone and a batch job's
// time functions to the query's start; a streaming job's read the clock
// per record (expr.CompileCalc).
func (b *builder) atStart(e plan.Expr) plan.Expr {
	if e == nil {
		return e
	}
	e = expr.InZone(e, b.zone)
	if b.streaming {
		return e
	}
	return expr.AtQueryStart(e, b.queryStart)
}

func (b *builder) atStartAll(es []plan.Expr) []plan.Expr {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		out[i] = b.atStart(e)
	}
	return out
}

// edge is how a built subtree connects to its consumer.
type edge struct {
	vertex int
	p      int
	part   runtime.Partitioning
	// exchanged marks an explicit Exchange (hash/single) below the
	// consumer; otherwise the edge is forward (or, when the parallelism
	// differs, rebalance or a hash on orderKeys).
	exchanged bool
	// orderKeys, set for a changelog, are the columns every change of
	// one row shares (its upsert key, or all its columns): the key that
	// spreads it over more subtasks without reordering a row's changes.
	orderKeys []int
}

// Graph builds the job graph of a plan.
func Graph(pl *plan.Plan, opts Options) (g *runtime.Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, sql.Errorf(sql.TableException, "internal error translating the plan: %v", r)
		}
	}()
	if err := pl.CheckTranslation(); err != nil {
		return nil, err
	}
	b := &builder{g: runtime.NewGraph(opts.JobName), opts: opts, defaultP: 1, streaming: pl.Streaming,
		reuse: plan.ReusedSubplans(pl), built: map[int]edge{}, queryStart: time.Now().UnixMilli()}
	if b.zone, err = config.TimeZone(opts.Config); err != nil {
		return nil, err
	}
	if b.defaultP, err = config.Int(opts.Config, config.KeyParallelism); err != nil {
		return nil, err
	} else if b.defaultP < 1 {
		return nil, sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key '%s'.", opts.Config[config.KeyParallelism], config.KeyParallelism)
	}
	if _, err := config.Enum(opts.Config, config.KeyNotNullEnforcer); err != nil {
		return nil, err
	}
	for i, root := range pl.Physical {
		if err := b.sink(root, strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	if err := b.g.Validate(); err != nil {
		return nil, fmt.Errorf("translate plan: %w", err)
	}
	return b.g, nil
}

// consumerP is the parallelism of an operator reading in: its input's,
// or after an Exchange the default one (1 for a single one), as Flink's
// ExecNodes take inputTransform.getParallelism() and StreamExecExchange
// sets its partition's.
func (b *builder) consumerP(in edge) int {
	if !in.exchanged {
		return in.p
	}
	if in.part.Kind == runtime.Global {
		return 1
	}
	return b.defaultP
}

func uid(path string, n plan.Node) string { return path + "-" + n.Name() }

// connect wires in into vertex to running with parallelism p.
func (b *builder) connect(in edge, to, p int) {
	part := in.part
	if !in.exchanged {
		part = runtime.Partitioning{Kind: runtime.Forward}
		switch {
		case in.p == p:
		case p > 1 && len(in.orderKeys) > 0:
			// Round-robin batches would let a row's -D and its +I take
			// two subtasks and reach a later hash exchange through two
			// channels, the -D first: every change of one row must
			// travel one path (what Flink's exchanges keep per channel).
			part = runtime.Partitioning{Kind: runtime.Hash, Keys: in.orderKeys}
		default:
			// Insert-only, or into one subtask: Flink's
			// RebalancePartitioner (StreamGraph's edge between two
			// parallelisms without a partitioner).
			part = runtime.Partitioning{Kind: runtime.Rebalance}
		}
	}
	b.g.Connect(in.vertex, to, part)
}

func (b *builder) sink(n *plan.Sink, path string) error {
	in, err := b.build(n.Inputs()[0], path+".0")
	if err != nil {
		return err
	}
	if n.Collect {
		if b.opts.Collect == nil {
			return fmt.Errorf("translate plan: a query needs a collect sink")
		}
		v := b.g.AddSink(uid(path, n), "Sink: collect", b.opts.Collect, 1)
		b.connect(in, v, 1)
		return nil
	}
	t := n.Table
	p := t.Sink.Parallelism()
	if p < 0 {
		// Flink's CommonExecSink check. (A configured 0 reads as unset
		// here: the connectors report 0 for both.)
		return sql.Errorf(sql.TableException, "Invalid configured parallelism %d for table '%s'.", p, t.ID.String())
	}
	if p <= 0 {
		p = in.p
	}
	// The NOT NULL enforcer (table.exec.sink.not-null-enforcer ERROR|DROP).
	if enf := b.notNullEnforcer(n); enf != nil {
		v := b.g.AddOperator(path+"-ConstraintEnforcer", "ConstraintEnforcer", operators.Calc(enf), in.p)
		b.connect(in, v, in.p)
		in = edge{vertex: v, p: in.p}
	}
	pk := t.Schema.PrimaryKeyIndexes()
	changelog := !n.Inputs()[0].Mode().IsInsertOnly()
	router, routed := t.Sink.(connectors.BucketRouter)
	routed = routed && p > 1
	if p != in.p && !in.exchanged && !routed {
		switch {
		case len(pk) > 0:
			// table.exec.sink.keyed-shuffle AUTO.
			in.part, in.exchanged = runtime.Partitioning{Kind: runtime.Hash, Keys: pk}, true
		case changelog:
			return sql.Errorf(sql.TableException,
				"The sink for table '%s' has a configured parallelism of %d, while the input parallelism is %d. Since the configured parallelism is different from the input's parallelism and the changelog mode is not insert-only, a primary key is required but could not be found.",
				t.ID, p, in.p)
		}
	}
	if r, ok := t.Sink.(connectors.MaterializerRefuser); ok && n.UpsertMaterialize {
		return r.RefuseMaterializer()
	}
	if n.UpsertMaterialize {
		var upsertKey []int
		if ks := n.Inputs()[0].UpsertKeys(); len(ks) > 0 {
			upsertKey = ks[0]
		}
		m := b.g.AddOperator(path+"-SinkUpsertMaterializer", "SinkUpsertMaterializer",
			operators.SinkUpsertMaterializer(operators.MaterializerSpec{Keys: pk, UpsertKey: upsertKey}), p)
		b.g.Connect(in.vertex, m, runtime.Partitioning{Kind: runtime.Hash, Keys: pk})
		in = edge{vertex: m, p: p}
	}
	if routed {
		// Paimon: each bucket has exactly one writer subtask; the
		// committer gets every writer's committable of a checkpoint.
		in, err = b.bucketRoute(in, router, path, len(t.Schema.Columns), p)
		if err != nil {
			return err
		}
		v := b.g.AddSink(uid(path, n), "Sink: "+t.ID.String(), routedSink{t.Sink}, p)
		if c, ok := t.Sink.(connectors.Committer); ok {
			b.g.Vertices[v].Committer = c
		}
		b.connect(in, v, p)
		return nil
	}
	v := b.g.AddSink(uid(path, n), "Sink: "+t.ID.String(), t.Sink, p)
	b.connect(in, v, p)
	return nil
}

func (b *builder) notNullEnforcer(n *plan.Sink) operators.CalcFunc {
	// Every NOT NULL column of the sink is checked, whatever the input's
	// type says, as CommonExecSink's getNotNullFieldIndices takes them from
	// the sink's physical row type: a type that claims NOT NULL for a
	// column that can be null must not let a null through silently.
	var cols []int
	nIn := len(n.Types())
	for i, c := range n.Table.Schema.Columns {
		if !c.Type.Nullable && i < nIn {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	enforcer, _ := config.Enum(b.opts.Config, config.KeyNotNullEnforcer) // Graph checked it
	drop := enforcer == "DROP"
	names := n.Table.Schema.Names()
	return func(r sql.Row) (sql.Row, bool, error) {
		for _, c := range cols {
			if r.Values[c] == nil {
				if drop {
					return r, false, nil
				}
				return r, false, sql.Errorf(sql.TableException,
					"Column '%s' is NOT NULL, however, a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.", names[c])
			}
		}
		return r, true, nil
	}
}

// build builds n's subtree, or returns the edge of the sub-plan already
// built that n is a reuse of: as Flink's SubplanReuser, a reused sub-plan
// runs once and its output goes to each consumer (a source is read once).
func (b *builder) build(n plan.Node, path string) (edge, error) {
	id := b.reuse[n]
	if id == 0 {
		e, err := b.buildNode(n, path)
		e.orderKeys = orderKeys(n)
		return e, err
	}
	if e, ok := b.built[id]; ok {
		return e, nil
	}
	e, err := b.buildNode(n, path)
	e.orderKeys = orderKeys(n)
	if err == nil {
		b.built[id] = e
	}
	return e, err
}

// orderKeys are the columns to hash n's changelog on when it changes
// parallelism without an exchange (connect): its upsert key, whose changes
// then stay in one channel in order, or else all its columns, which a
// row's +I, -U, +U and -D of one value share. An insert-only stream has
// none (its rows may go round-robin).
func orderKeys(n plan.Node) []int {
	if n.Mode().IsInsertOnly() {
		return nil
	}
	if ks := n.UpsertKeys(); len(ks) > 0 && len(ks[0]) > 0 {
		return ks[0]
	}
	all := make([]int, len(n.Types()))
	for i := range all {
		all[i] = i
	}
	return all
}

func (b *builder) buildNode(n plan.Node, path string) (edge, error) {
	switch n := n.(type) {
	case *plan.Exchange:
		in, err := b.build(n.Inputs()[0], path+".0")
		if err != nil {
			return edge{}, err
		}
		in.exchanged = true
		switch {
		case n.Broadcast:
			in.part = runtime.Partitioning{Kind: runtime.Broadcast}
		case n.Single:
			in.part = runtime.Partitioning{Kind: runtime.Global}
		default:
			in.part = runtime.Partitioning{Kind: runtime.Hash, Keys: n.Keys}
		}
		return in, nil
	case *plan.TableSourceScan:
		return b.scan(n, n.Table.Source, path)
	case *plan.Values:
		rows, err := b.valuesRows(n)
		if err != nil {
			return edge{}, err
		}
		v := b.g.AddSource(uid(path, n), "Source: Values", &runtime.ValuesSource{Rows: rows}, 1)
		return edge{vertex: v, p: 1}, nil
	case *plan.Join:
		return b.join(n, path)
	case *plan.IntervalJoin:
		return b.intervalJoin(n, path)
	case *plan.WindowJoin:
		return b.windowJoin(n, path)
	case *plan.TemporalJoin:
		return b.temporalJoin(n, path)
	case *plan.Union:
		if rows, ok, err := b.valuesUnion(n); ok || err != nil {
			if err != nil {
				return edge{}, err
			}
			v := b.g.AddSource(uid(path, n), "Source: Values", &runtime.ValuesSource{Rows: rows}, 1)
			return edge{vertex: v, p: 1}, nil
		}
		// The union runs at its first input's parallelism, as Flink's
		// UnionTransformation (inputs.get(0).getParallelism()) and the
		// operators after it that keep their input's; the other inputs
		// reach it forward or, at another parallelism, as connect
		// says. (The vertex is added first so that the graph's order
		// stays the plan's.)
		v := b.g.AddOperator(uid(path, n), "Union", func(int, int) (runtime.Operator, error) { return &union{}, nil }, 1)
		p := 1
		for i, in := range n.Inputs() {
			e, err := b.build(in, path+"."+strconv.Itoa(i))
			if err != nil {
				return edge{}, err
			}
			if i == 0 {
				p = b.consumerP(e)
				b.g.Vertices[v].Parallelism = p
			}
			b.connect(e, v, p)
		}
		return edge{vertex: v, p: p}, nil
	case *plan.FinalAggregate:
		return b.batchAggregate(n, path)
	case *plan.BatchOverAggregate:
		return b.batchOver(n, path)
	case *plan.BatchRank:
		return b.batchRank(n, path)
	case *plan.LocalAggregate:
		if len(n.Aggs) > 0 {
			break
		}
		// The local distinct a SEMI or ANTI join reads its build side
		// through (BatchPhysicalJoinRuleBase.addLocalDistinctAgg) only
		// only makes that side smaller: a SEMI or ANTI join's result
		// is the same with the duplicates, so the rows pass as they are.
		return b.build(n.Inputs()[0], path+".0")
	case *plan.WatermarkAssigner:
		return b.watermarkAssigner(n, path)
	case *plan.WindowAggregate:
		return b.windowAggregate(n, path)
	case *plan.GlobalGroupAggregate:
		// A mini-batch of one row: the one-phase aggregate gives the
		// final rows of the local and global phases.
		if err := checkMiniBatchSize(b.opts.Config); err != nil {
			return edge{}, err
		}
		return b.build(n.OnePhase(), path)
	case *plan.MiniBatchAssigner:
		// Rows pass through as they arrive (a mini-batch of one row).
		return b.build(n.Inputs()[0], path+".0")
	case *plan.Calc:
		if e, ok, err := b.filteredScan(n, path); ok || err != nil {
			return e, err
		}
		b.batchTopN(n, path+".0")
	}
	in, err := b.build(n.Inputs()[0], path+".0")
	if err != nil {
		return edge{}, err
	}
	p := b.consumerP(in)
	var f runtime.OperatorFactory
	name := n.Name()
	switch n := n.(type) {
	case *plan.Calc:
		if expr.ReadsWatermark(append([]plan.Expr{n.Cond}, n.Exprs...)...) {
			f = calcWithWatermark(b.atStartAll(n.Exprs), b.atStart(n.Cond))
			break
		}
		cf, err := plan.CompileCalc(b.atStartAll(n.Exprs), b.atStart(n.Cond))
		if err != nil {
			return edge{}, err
		}
		f = operators.Calc(operators.CalcFunc(cf))
		if expr.ReadsProctime(append([]plan.Expr{n.Cond}, n.Exprs...)...) {
			// PROCTIME_MATERIALIZE reads the Calc's own clock
			// (ProctimeMaterializeCallGen), and so does the PROCTIME() a
			// source Calc stamps rows with.
			exprs, cond := b.atStartAll(n.Exprs), b.atStart(n.Cond)
			f = operators.CalcWithClock(func(now func() time.Time) (operators.CalcFunc, error) {
				ps := make([]plan.Expr, len(exprs))
				for i, e := range exprs {
					ps[i] = expr.WithProctimeClock(e, now)
				}
				var c plan.Expr
				if cond != nil {
					c = expr.WithProctimeClock(cond, now)
				}
				cf, err := plan.CompileCalc(ps, c)
				return operators.CalcFunc(cf), err
			})
		}
	case *plan.ChangelogNormalize:
		ttl, err := config.Duration(b.opts.Config, config.KeyStateTTL)
		if err != nil {
			return edge{}, err
		}
		f = operators.ChangelogNormalize(operators.NormalizeSpec{Keys: n.Keys,
			GenerateUpdateBefore: n.Mode().Contains(sql.UpdateBefore), EmitDuplicates: ttl > 0})
	case *plan.DropUpdateBefore:
		f = operators.DropUpdateBefore()
	case *plan.Correlate:
		f, err = unnestOperator(b, n)
		if err != nil {
			return edge{}, err
		}
	case *plan.Expand:
		projects := make([]operators.CalcFunc, len(n.Projects))
		for i, p := range n.Projects {
			cf, err := plan.CompileCalc(b.atStartAll(p), nil)
			if err != nil {
				return edge{}, err
			}
			projects[i] = operators.CalcFunc(cf)
		}
		f = operators.Expand(projects)
	case *plan.WindowTableFunction:
		spec := windowSpec(n.Window, n.TimeCol)
		spec.ProcTime = n.Window.ProcTime
		f = operators.WindowTableFunction(spec)
		if n.Window.Func == "SESSION" {
			spec.GroupKeys = n.Window.Partition
			f = operators.SessionTableFunction(spec)
		}
	case *plan.GroupAggregate:
		if b.streaming {
			if err := checkMiniBatchSize(b.opts.Config); err != nil {
				return edge{}, err
			}
		}
		spec := operators.AggregateSpec{GroupKeys: n.Group, GenerateUpdateBefore: n.Mode().Contains(sql.UpdateBefore),
			EmitOnFinish: !b.streaming}
		for _, a := range n.Aggs {
			s, err := aggSpec(a)
			if err != nil {
				return edge{}, err
			}
			spec.Aggs = append(spec.Aggs, s)
		}
		f = operators.GroupAggregate(spec)
	case *plan.Deduplicate:
		f = operators.Deduplicate(operators.DeduplicateSpec{Keys: n.Keys, KeepLast: n.KeepLast,
			GenerateUpdateBefore: n.Mode().Contains(sql.UpdateBefore), GenerateInsert: true,
			Rowtime: n.Rowtime, TimeField: n.TimeField})
	case *plan.Rank:
		if f, err = rankOperator(n); err != nil {
			return edge{}, err
		}
	case *plan.WindowRank:
		// Processing time and RANK() / DENSE_RANK() were refused by
		// plan.CheckTranslation, as StreamExecWindowRank refuses them.
		keys := make([]operators.SortKey, len(n.Order))
		for i, k := range n.Order {
			keys[i] = operators.SortKey{Index: k.Field, Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
		f = operators.WindowRank(operators.WindowRankSpec{StartCol: n.WinStart, EndCol: n.WinEnd, Partition: n.Partition,
			Order: keys, Start: n.Start, End: n.End, OutputNumber: n.OutputNumber, Zone: n.Window.Zone})
	case *plan.WindowDeduplicate:
		f = operators.WindowRank(operators.WindowRankSpec{StartCol: n.WinStart, EndCol: n.WinEnd, Partition: n.Keys,
			Start: 1, End: 1, Dedup: true, KeepLast: n.KeepLast, TimeCol: n.TimeField, Zone: n.Window.Zone})
	case *plan.OverAggregate:
		if f, err = overOperator(n); err != nil {
			return edge{}, err
		}
	case *plan.LookupJoin:
		if f, err = lookupJoin(n, b.atStart); err != nil {
			return edge{}, err
		}
	case *plan.Limit:
		f = limitOperator(n)
	case *plan.TemporalSort:
		spec := operators.TemporalSortSpec{TimeCol: n.Order[0].Field, Rowtime: n.Rowtime}
		for _, k := range n.Order[1:] {
			spec.Keys = append(spec.Keys, operators.SortKey{Index: k.Field, Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		f = operators.TemporalSort(spec)
	case *plan.SortLimit:
		keys := make([]operators.SortKey, len(n.Order))
		for i, k := range n.Order {
			keys[i] = operators.SortKey{Index: k.Field, Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
		f = sortLimitOperator(n, keys)
	default:
		return edge{}, sql.Errorf(sql.TableException, "sqlrun cannot run %s yet", n.Name())
	}
	v := b.g.AddOperator(uid(path, n), name, f, p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
}

func aggSpec(a plan.AggCall) (operators.AggSpec, error) {
	// The plan's MIN/MAX (not MIN_RETRACT/MAX_RETRACT) keep only the extreme.
	s := operators.AggSpec{Distinct: a.Distinct, ResultType: a.T, InsertOnly: !a.Retract, Filtered: a.Filtered, Filter: a.Filter}
	if len(a.Args) > 0 {
		s.Arg = a.Args[0]
	}
	switch a.Func {
	case "COUNT":
		s.Kind = operators.Count
		if len(a.Args) == 0 {
			s.Kind = operators.CountStar
		}
		if len(a.Args) > 1 {
			return s, sql.Errorf(sql.TableException, "sqlrun cannot run COUNT with %d arguments yet", len(a.Args))
		}
	case "SUM", "SUM0":
		s.Kind = operators.Sum
	case "$SUM0":
		s.Kind, s.EmptyIsZero = operators.Sum, true
	case "MIN":
		s.Kind = operators.Min
	case "MAX":
		s.Kind = operators.Max
	case "AVG":
		s.Kind = operators.Avg
	case "FIRST_VALUE":
		s.Kind = operators.FirstValue
	case "LAST_VALUE":
		s.Kind = operators.LastValue
	case "SINGLE_VALUE":
		s.Kind = operators.SingleValue
	case "LISTAGG":
		s.Kind = operators.ListAgg
		if len(a.Args) == 2 {
			s.HasSep, s.SepArg = true, a.Args[1]
		}
	case "JSON_OBJECTAGG_NULL_ON_NULL", "JSON_OBJECTAGG_ABSENT_ON_NULL":
		// JsonObjectAggFunction(key, JSON_STRING(value)).
		if len(a.Args) != 2 {
			return s, sql.Errorf(sql.TableException, "%s takes 2 arguments, got %d", a.Func, len(a.Args))
		}
		s.Kind, s.KeyArg, s.Arg = operators.JsonObjectAgg, a.Args[0], a.Args[1]
		s.SkipNulls = a.Func == "JSON_OBJECTAGG_ABSENT_ON_NULL"
	case "JSON_ARRAYAGG_NULL_ON_NULL", "JSON_ARRAYAGG_ABSENT_ON_NULL":
		s.Kind = operators.JsonArrayAgg
		s.SkipNulls = a.Func == "JSON_ARRAYAGG_ABSENT_ON_NULL"
	default:
		return s, sql.Errorf(sql.TableException, "sqlrun cannot run aggregate %s yet", a.Func)
	}
	return s, nil
}

// union forwards every input unchanged (Flink's Union is not an operator
// but a merge of streams; the runtime needs a vertex to merge them).
type union struct{ runtime.Base }

func (union) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Adopt(rows)
	return nil
}

func (union) Close() error { return nil }

// batchAggregate runs a two-phase batch aggregate (Local*Aggregate →
// Exchange → *Aggregate, with Sorts for the sort variant) as one
// GroupAggregate that emits at end of input: the runtime's aggregate keeps
// a hash table, so neither the pre-aggregation nor the sorts are needed
// for the same result.
func (b *builder) batchAggregate(n *plan.FinalAggregate, path string) (edge, error) {
	var exchange *plan.Exchange
	for in := n.Inputs()[0]; ; in = in.Inputs()[0] {
		if ex, ok := in.(*plan.Exchange); ok {
			exchange = ex
		}
		if _, ok := in.(*plan.LocalAggregate); ok {
			break
		}
	}
	local := n.Local()
	src := local.Inputs()[0]
	if s, ok := src.(*plan.Sort); ok {
		src = s.Inputs()[0]
	}
	spec := operators.AggregateSpec{GroupKeys: local.Group, EmitOnFinish: true}
	in, fused, err := b.fusedLocalAggregate(n, src, path+".0", &spec)
	if err != nil {
		return edge{}, err
	}
	if !fused {
		if in, err = b.build(src, path+".0"); err != nil {
			return edge{}, err
		}
		for _, a := range n.Aggs {
			s, err := aggSpec(a)
			if err != nil {
				return edge{}, err
			}
			spec.Aggs = append(spec.Aggs, s)
		}
	}
	in.exchanged = true
	p := b.defaultP
	if exchange == nil || exchange.Single || len(local.Group) == 0 {
		in.part = runtime.Partitioning{Kind: runtime.Global}
		p = 1
	} else {
		in.part = runtime.Partitioning{Kind: runtime.Hash, Keys: spec.GroupKeys}
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.GroupAggregate(spec), p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
}

// scan adds the source vertex of a TableSourceScan reading src.
func (b *builder) scan(n *plan.TableSourceScan, src connectors.TableSource, path string) (edge, error) {
	p := b.defaultP
	if sp, ok := src.(connectors.SupportsParallelism); ok && sp.Parallelism() > 0 {
		p = sp.Parallelism()
	} else if ok && sp.Parallelism() < 0 {
		// Flink's CommonExecTableSourceScan check.
		return edge{}, sql.Errorf(sql.TableException, "Invalid configured parallelism %d for table '%s'.", sp.Parallelism(), n.Table.ID.String())
	}
	v := b.g.AddSource(uid(path, n), "Source: "+n.Table.ID.String(), src, p)
	if n.Watermark != nil {
		return b.pushedWatermark(n, edge{vertex: v, p: p}, path)
	}
	return edge{vertex: v, p: p}, nil
}

// fusedLocalAggregate runs a batch aggregate's local phase in the source
// when the plan allows (issue 24): an aggregate of COUNT, MIN, MAX and
// integer SUM and AVG, global or grouped by columns, directly over a
// TableSourceScan, or over a Calc that only filters (conjuncts
// connectors.LocalPredicate expresses) and picks fields, whose source
// takes the calls (connectors.SupportsLocalAggregate; Paimon computes
// them column by column from the pages of files it reads raw, the filter
// per batch of rows). The source then yields partial aggregates and spec
// gets the calls that merge them: SUM of the COUNTs, MIN of the MINs, MAX
// of the MAXes, SUM of the SUMs (integer sums wrap as the row path's do,
// so their order does not matter), AVG of the BIGINT sums and counts, by the keys when there are any (the
// partial rows' first fields). EXPLAIN is unchanged: Flink chains the
// local aggregate (and the Calc) to the source in the same way. Anything
// else (false) reads rows.
func (b *builder) fusedLocalAggregate(n *plan.FinalAggregate, src plan.Node, path string, spec *operators.AggregateSpec) (edge, bool, error) {
	var calc *plan.Calc
	if c, ok := src.(*plan.Calc); ok {
		calc, src = c, c.Inputs()[0]
	}
	scan, ok := src.(*plan.TableSourceScan)
	group := n.Local().Group
	if !ok || !fuseLocalAggregates || b.streaming || len(n.Aggs) == 0 {
		return edge{}, false, nil
	}
	for _, a := range n.Aggs {
		if a.Filtered {
			// A call's FILTER column is computed per row: read rows.
			return edge{}, false, nil
		}
	}
	la, ok := scan.Table.Source.(connectors.SupportsLocalAggregate)
	if !ok {
		return edge{}, false, nil
	}
	// field maps a field of the aggregate's input to the scan's.
	field := func(i int) (int, bool) { return i, true }
	var filter []connectors.LocalPredicate
	if calc != nil {
		if filter, ok = localFilter(calc.Cond, scan.Types()); !ok {
			return edge{}, false, nil
		}
		field = func(i int) (int, bool) {
			switch e := calc.Exprs[i].(type) {
			case *expr.InputRef:
				return e.Index, true
			case *expr.Literal:
				// A field the condition fixes (c = 1) is projected as the
				// constant (expr.SubstituteConstants): read the field.
				return fixedField(e, filter, scan.Types())
			case *expr.Call:
				// CAST(1):TINYINT, the constant of a TINYINT field.
				if lit, ok := e.Args[0].(*expr.Literal); ok && e.Op == "CAST" && len(e.Args) == 1 {
					return fixedField(&expr.Literal{Value: lit.Value, T: e.T}, filter, scan.Types())
				}
			}
			return 0, false
		}
	}
	types := scan.Types()
	var calls []connectors.LocalAggCall
	for _, g := range group {
		// The partial rows start with the keys; the merge groups by them.
		f, ok := field(g)
		if !ok || !columnar(types[f], false) {
			return edge{}, false, nil
		}
		calls = append(calls, connectors.LocalAggCall{Kind: connectors.LocalGroupKey, Arg: f})
	}
	merge := make([]operators.AggSpec, len(n.Aggs))
	for i, a := range n.Aggs {
		if a.Distinct || a.Filtered || a.Retract || len(a.Args) > 1 {
			return edge{}, false, nil
		}
		merge[i] = operators.AggSpec{Arg: len(calls), ResultType: a.T, InsertOnly: true}
		calls = append(calls, connectors.LocalAggCall{})
		c := &calls[len(calls)-1]
		if len(a.Args) == 1 && calc != nil && (a.Func == "COUNT" || a.Func == "MIN" || a.Func == "MAX") {
			c.Concat = concatFields(calc.Exprs[a.Args[0]], types)
		}
		if len(a.Args) == 1 && c.Concat == nil {
			if c.Arg, ok = field(a.Args[0]); !ok {
				return edge{}, false, nil
			}
			if !columnar(types[c.Arg], a.Func == "SUM" || a.Func == "SUM0" || a.Func == "$SUM0" || a.Func == "AVG") {
				return edge{}, false, nil
			}
		}
		switch a.Func {
		case "COUNT":
			c.Kind, merge[i].Kind = connectors.LocalCount, operators.Sum
			if len(a.Args) == 0 {
				c.Kind = connectors.LocalCountStar
			}
		case "MIN":
			c.Kind, merge[i].Kind = connectors.LocalMin, operators.Min
		case "MAX":
			c.Kind, merge[i].Kind = connectors.LocalMax, operators.Max
		case "SUM", "SUM0":
			c.Kind, merge[i].Kind = connectors.LocalSum, operators.Sum
		case "$SUM0":
			// SUM that is 0 over no value (the planner's reduced SUM and
			// AVG: CASE(COUNT(x) = 0, NULL, $SUM0(x))).
			c.Kind, merge[i].Kind, merge[i].EmptyIsZero = connectors.LocalSum, operators.Sum, true
		case "AVG":
			// Partial_AVG AS (sum, count): the sum in a BIGINT, as Flink's
			// IntAvgAggFunction and its kin keep it, and the count of the
			// same values; the merge divides the totals.
			c.Kind = connectors.LocalSumBigInt
			merge[i].Kind, merge[i].FromPartials, merge[i].CountArg = operators.Avg, true, len(calls)
			calls = append(calls, connectors.LocalAggCall{Kind: connectors.LocalCount, Arg: c.Arg})
		default:
			return edge{}, false, nil
		}
	}
	fused, ok := la.LocalAggregate(calls, filter)
	if !ok {
		return edge{}, false, nil
	}
	in, err := b.scan(scan, fused, path)
	if err != nil {
		return edge{}, false, err
	}
	spec.Aggs = merge
	spec.GroupKeys = nil
	for i := range group {
		spec.GroupKeys = append(spec.GroupKeys, i)
	}
	fusedAggregates++
	return in, true, nil
}

// concatFields are the fields of the scan that e concatenates, when e is
// CONCAT or || of VARCHAR fields only (the argument of a local aggregate
// that the source computes over its column vectors); nil otherwise.
func concatFields(e expr.Expr, types []sql.DataType) []int {
	c, ok := e.(*expr.Call)
	if !ok || (c.Op != "CONCAT" && c.Op != "||") || len(c.Args) == 0 {
		return nil
	}
	fields := make([]int, len(c.Args))
	for i, a := range c.Args {
		r, ok := a.(*expr.InputRef)
		if !ok || types[r.Index].Root != sql.TypeVarChar {
			return nil
		}
		fields[i] = r.Index
	}
	return fields
}

// fusedAggregates counts the aggregates fusedLocalAggregate took (tests
// check that the shapes they compare are fused).
var fusedAggregates int

// filteredScan runs a batch Calc's condition in the source it reads when
// the plan allows (issue 24): a Calc directly over a TableSourceScan of a
// source that implements connectors.SupportsLocalFilter, whose every
// conjunct is a connectors.LocalPredicate (localFilter). The source then
// yields only the rows that pass (Paimon skips files and row groups by
// their statistics and tests the rest a batch at a time, before it makes
// rows of them), and the Calc only projects. EXPLAIN is unchanged: Flink
// chains the Calc to the source. Anything else (false) filters in the Calc.
func (b *builder) filteredScan(n *plan.Calc, path string) (edge, bool, error) {
	scan, ok := n.Inputs()[0].(*plan.TableSourceScan)
	if !ok || !fuseLocalAggregates || b.streaming || n.Cond == nil || expr.ReadsProctime(n.Exprs...) {
		// A Calc reading the processing-time clock runs as its own
		// operator (CalcWithClock).
		return edge{}, false, nil
	}
	lf, ok := scan.Table.Source.(connectors.SupportsLocalFilter)
	if !ok {
		return edge{}, false, nil
	}
	filter, ok := localFilter(n.Cond, scan.Types())
	if !ok {
		return edge{}, false, nil
	}
	src, ok := lf.LocalFilter(filter)
	if !ok {
		return edge{}, false, nil
	}
	cf, err := plan.CompileCalc(b.atStartAll(n.Exprs), nil)
	if err != nil {
		return edge{}, false, err
	}
	in, err := b.scan(scan, src, path+".0")
	if err != nil {
		return edge{}, false, err
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.Calc(operators.CalcFunc(cf)), in.p)
	b.connect(in, v, in.p)
	filteredScans++
	return edge{vertex: v, p: in.p}, true, nil
}

// filteredScans counts the Calcs filteredScan took.
var filteredScans int

// localFilter is a Calc's condition as the conjuncts a source's local
// aggregate tests (nil for none), or false when one is not: IS [NOT] NULL
// of a field, a comparison (=, <>, <, <=, >, >=) of a field with a
// non-null literal, or SEARCH(field, Sarg), over a TINYINT, INT or BIGINT
// field compared as an integer, a DATE or TIME field compared with a
// literal of its type (days, milliseconds: the int32 the row path
// compares), or a CHAR or VARCHAR field compared with strings that the
// comparison's common type leaves as they are (byte order of the values as
// stored, as the row path compares them): a VARCHAR; a CHAR(n) against a
// literal of another length or a VARCHAR (their common type is a VARCHAR,
// FlinkTypeSystem's ragged union), not against a CHAR(n) literal.
func localFilter(cond expr.Expr, types []sql.DataType) ([]connectors.LocalPredicate, bool) {
	if cond == nil {
		return nil, true
	}
	var out []connectors.LocalPredicate
	for _, c := range expr.Conjuncts(cond) {
		if call, ok := c.(*expr.Call); ok && call.Op == "OR" {
			// An OR across columns (one column's are a SEARCH): every
			// disjunct must be a test the source makes.
			var p connectors.LocalPredicate
			for _, d := range disjuncts(call) {
				q, ok := localPred(d, types)
				if !ok {
					return nil, false
				}
				p.Or = append(p.Or, q)
			}
			out = append(out, p)
			continue
		}
		p, ok := localPred(c, types)
		if !ok {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// disjuncts are the arguments of an OR, nested ORs flattened.
func disjuncts(call *expr.Call) []expr.Expr {
	var out []expr.Expr
	for _, a := range call.Args {
		if c, ok := a.(*expr.Call); ok && c.Op == "OR" {
			out = append(out, disjuncts(c)...)
			continue
		}
		out = append(out, a)
	}
	return out
}

// localPred is one test of localFilter (a conjunct, or a disjunct of an
// OR), or false.
func localPred(c expr.Expr, types []sql.DataType) (connectors.LocalPredicate, bool) {
	call, ok := c.(*expr.Call)
	if !ok || len(call.Args) == 0 {
		return connectors.LocalPredicate{}, false
	}
	ref, ok := call.Args[0].(*expr.InputRef)
	op := call.Op
	if !ok && len(call.Args) == 2 {
		// 10 < a is a > 10.
		ref, ok = call.Args[1].(*expr.InputRef)
		op = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
		call = &expr.Call{Op: op, Args: []expr.Expr{ref, call.Args[0]}, T: call.T}
	}
	if !ok || ref.Index >= len(types) {
		return connectors.LocalPredicate{}, false
	}
	t := types[ref.Index]
	switch t.Root {
	case sql.TypeTinyInt, sql.TypeInt, sql.TypeBigInt, sql.TypeChar, sql.TypeVarChar, sql.TypeDate, sql.TypeTime:
	default:
		return connectors.LocalPredicate{}, false
	}
	p := connectors.LocalPredicate{Field: ref.Index}
	if t.Root == sql.TypeChar && op != "IS NULL" && op != "IS NOT NULL" {
		if rs, handled, ok := charPaddedRanges(op, call, t); handled {
			p.Ranges = rs
			return p, ok
		}
	}
	switch op {
	case "IS NULL":
		p.IsNull = true
	case "IS NOT NULL":
		p.Ranges = []connectors.LocalRange{{Lo: connectors.LocalBound{Unbounded: true}, Hi: connectors.LocalBound{Unbounded: true}}}
	case "SEARCH":
		lit, ok := call.Args[1].(*expr.Literal)
		if !ok {
			return connectors.LocalPredicate{}, false
		}
		sarg, ok := lit.Value.(*expr.Sarg)
		if !ok {
			return connectors.LocalPredicate{}, false
		}
		for _, r := range sarg.Ranges {
			lo, ok1 := localBound(r.Lo, t, sarg.T)
			hi, ok2 := localBound(r.Hi, t, sarg.T)
			if !ok1 || !ok2 {
				return connectors.LocalPredicate{}, false
			}
			p.Ranges = append(p.Ranges, connectors.LocalRange{Lo: lo, Hi: hi})
		}
	case "=", "<>", "<", "<=", ">", ">=":
		lit, ok := call.Args[1].(*expr.Literal)
		if !ok {
			return connectors.LocalPredicate{}, false
		}
		v, ok := localBound(expr.Bound{Value: lit.Value, Closed: true}, t, lit.T)
		if !ok {
			return connectors.LocalPredicate{}, false
		}
		open := v
		open.Closed = false
		inf := connectors.LocalBound{Unbounded: true}
		switch op {
		case "=":
			p.Ranges = []connectors.LocalRange{{Lo: v, Hi: v}}
		case "<>":
			p.Ranges = []connectors.LocalRange{{Lo: inf, Hi: open}, {Lo: open, Hi: inf}}
		case "<":
			p.Ranges = []connectors.LocalRange{{Lo: inf, Hi: open}}
		case "<=":
			p.Ranges = []connectors.LocalRange{{Lo: inf, Hi: v}}
		case ">":
			p.Ranges = []connectors.LocalRange{{Lo: open, Hi: inf}}
		case ">=":
			p.Ranges = []connectors.LocalRange{{Lo: v, Hi: inf}}
		}
	default:
		return connectors.LocalPredicate{}, false
	}
	return p, true
}

// charPaddedRanges is localPred's ranges for a CHAR(n) field compared
// with CHAR(n) literals (= and <> with one, SEARCH of points or of the
// complement of points: IN, NOT IN): their common type is the CHAR(n), so
// the row path compares both sides cast to it (expr's fitString, Flink's
// CharVarCharTrimPadCastRule: cut to n characters, padded with spaces to
// n), and the source, which tests values as stored, takes the stored
// values whose cast equals a literal's: handled is false when the common
// type is not a CHAR (a VARCHAR: localBound's stored-value comparison),
// ok false for what it does not take (orderings: padding does not keep
// the byte order of values below a space).
func charPaddedRanges(op string, call *expr.Call, t sql.DataType) (rs []connectors.LocalRange, handled, ok bool) {
	lit, isLit := call.Args[1].(*expr.Literal)
	if !isLit {
		return nil, false, false
	}
	lt := lit.T
	sarg, isSarg := lit.Value.(*expr.Sarg)
	if isSarg {
		lt = sarg.T
	}
	ct, cok := expr.CommonType(t, lt)
	if !cok || ct.Root != sql.TypeChar || !lt.IsString() {
		return nil, false, false
	}
	n := ct.Length
	if n <= 0 || n >= sql.MaxLength {
		return nil, true, false
	}
	var points []string
	negate := false
	switch {
	case op == "=" || op == "<>":
		s, isStr := lit.Value.(string)
		if !isStr {
			return nil, true, false
		}
		points, negate = []string{s}, op == "<>"
	case op == "SEARCH" && isSarg:
		points, negate, ok = sargPoints(sarg)
		if !ok {
			return nil, true, false
		}
	default:
		return nil, true, false
	}
	for _, s := range points {
		prs, pok := charPaddedPoint(s, n)
		if !pok {
			return nil, true, false
		}
		rs = append(rs, prs...)
	}
	// The points' sets are disjoint (a value casts to one string):
	// sorted by their lower ends, the ranges are sorted and disjoint.
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo.Value.(string) < rs[j].Lo.Value.(string) })
	if negate {
		rs = complementRanges(rs)
	}
	return rs, true, true
}

// charPaddedPoint is the set of stored strings that cast to CHAR(n) equal
// the literal s cast to CHAR(n) (P: s cut to n characters and padded with
// spaces to n), as sorted disjoint ranges: P without trailing spaces
// followed by fewer spaces than P has (each padded to P), and every
// string that begins with P's bytes (P itself, and longer ones, cut to P).
func charPaddedPoint(s string, n int) ([]connectors.LocalRange, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n])
	}
	p := s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
	var rs []connectors.LocalRange
	for b := strings.TrimRight(p, " "); len(b) < len(p); b += " " {
		v := connectors.LocalBound{Value: b, Closed: true}
		rs = append(rs, connectors.LocalRange{Lo: v, Hi: v})
	}
	last := p[len(p)-1]
	if last == 0xff {
		return nil, false
	}
	succ := p[:len(p)-1] + string([]byte{last + 1}) // the least string above every one beginning with p
	rs = append(rs, connectors.LocalRange{Lo: connectors.LocalBound{Value: p, Closed: true}, Hi: connectors.LocalBound{Value: succ}})
	return rs, true
}

// sargPoints returns the values of a Sarg of points (IN), or of the
// complement of points (NOT IN, negate), or false.
func sargPoints(sarg *expr.Sarg) (points []string, negate, ok bool) {
	point := func(r expr.Range) (string, bool) {
		s, isStr := r.Lo.Value.(string)
		h, hStr := r.Hi.Value.(string)
		return s, isStr && hStr && s == h && !r.Lo.Unbounded && !r.Hi.Unbounded && r.Lo.Closed && r.Hi.Closed
	}
	all := true
	for _, r := range sarg.Ranges {
		s, isPoint := point(r)
		if !isPoint {
			all = false
			break
		}
		points = append(points, s)
	}
	if all && len(points) > 0 {
		return points, false, true
	}
	// (-inf, a) (a, b) ... (z, +inf): the complement of a, b, ..., z.
	rs := sarg.Ranges
	if len(rs) < 2 || !rs[0].Lo.Unbounded || !rs[len(rs)-1].Hi.Unbounded {
		return nil, false, false
	}
	points = points[:0]
	for i := 0; i+1 < len(rs); i++ {
		hi, lo := rs[i].Hi, rs[i+1].Lo
		s, isStr := hi.Value.(string)
		l, lStr := lo.Value.(string)
		if !isStr || !lStr || s != l || hi.Unbounded || lo.Unbounded || hi.Closed || lo.Closed {
			return nil, false, false
		}
		points = append(points, s)
	}
	return points, true, true
}

// complementRanges is the complement of sorted disjoint bounded ranges
// among the non-null values.
func complementRanges(rs []connectors.LocalRange) []connectors.LocalRange {
	flip := func(b connectors.LocalBound) connectors.LocalBound {
		b.Closed = !b.Closed
		return b
	}
	var out []connectors.LocalRange
	lo := connectors.LocalBound{Unbounded: true}
	for _, r := range rs {
		out = append(out, connectors.LocalRange{Lo: lo, Hi: flip(r.Lo)})
		lo = flip(r.Hi)
	}
	return append(out, connectors.LocalRange{Lo: lo, Hi: connectors.LocalBound{Unbounded: true}})
}

// fixedField is the field whose value a conjunct of filter fixes to the
// literal lit (a point, or NULL by IS NULL), of lit's type, or false.
func fixedField(lit *expr.Literal, filter []connectors.LocalPredicate, types []sql.DataType) (int, bool) {
	for _, p := range filter {
		t := types[p.Field]
		if t.Root != lit.T.Root || p.Or != nil {
			continue
		}
		if lit.Value == nil && p.IsNull {
			return p.Field, true // c IS NULL: the field is a typed NULL
		}
		if len(p.Ranges) != 1 {
			continue
		}
		r := p.Ranges[0]
		v, ok := localBound(expr.Bound{Value: lit.Value, Closed: true}, t, lit.T)
		if ok && r.Lo == v && r.Hi == v {
			return p.Field, true
		}
	}
	return 0, false
}

// localBound is b, a bound of type bt compared with a field of type t, as
// a LocalBound (int64 or string), or false when the comparison would not
// be the integer or byte order of the field's values: a literal of another
// family, or a string whose common type with the field would cut or pad
// either.
func localBound(b expr.Bound, t, bt sql.DataType) (connectors.LocalBound, bool) {
	out := connectors.LocalBound{Unbounded: b.Unbounded, Closed: b.Closed}
	if b.Unbounded {
		return out, true
	}
	if t.Root == sql.TypeVarChar || t.Root == sql.TypeChar {
		s, ok := b.Value.(string)
		ct, cok := expr.CommonType(t, bt)
		if !ok || !cok || !bt.IsString() || ct.Length < t.Length || utf8.RuneCountInString(s) > ct.Length {
			return out, false
		}
		// Neither side may be cut or padded: the field's values as stored
		// against the literal's string. Against a CHAR(n) literal a
		// CHAR(n) field is compared as a CHAR(n), its value padded with
		// spaces to n characters first ('ab' = 'ab ' is TRUE for a value
		// stored unpadded): that stays in the Calc.
		if ct.Root != sql.TypeVarChar {
			return out, false
		}
		out.Value = s
		return out, true
	}
	switch v := b.Value.(type) {
	case int8:
		out.Value = int64(v)
	case int16:
		out.Value = int64(v)
	case int32:
		out.Value = int64(v)
	case int64:
		out.Value = v
	default:
		return out, false
	}
	if t.Root == sql.TypeDate || t.Root == sql.TypeTime {
		// Days or milliseconds, of a literal of the same type only.
		_, ok := b.Value.(int32)
		return out, ok && bt.Root == t.Root
	}
	switch bt.Root {
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt:
		return out, true
	}
	return out, false
}

// fuseLocalAggregates switches fusedLocalAggregate on; tests turn it off
// to run the same queries on rows and compare.
var fuseLocalAggregates = true

// columnar reports an argument type the column path of a local aggregate
// reads (integers, DATE, TIME and strings; only integers for SUM): others
// would be read row by row, each row a partial of its own, which costs
// more than the aggregate reading the rows.
func columnar(t sql.DataType, sum bool) bool {
	switch t.Root {
	case sql.TypeTinyInt, sql.TypeInt, sql.TypeBigInt:
		return true
	case sql.TypeDate, sql.TypeTime, sql.TypeChar, sql.TypeVarChar:
		return !sum
	}
	return false
}

// join wires both inputs (through their hash or single Exchanges) into
// the join operator: input 0 is the left side, input 1 the right.
func (b *builder) join(n *plan.Join, path string) (edge, error) {
	jp, err := b.joinParts(n, n.LeftKeys, n.RightKeys, n.JoinType, n.Cond, path)
	if err != nil {
		return edge{}, err
	}
	l, r, p := jp.l, jp.r, jp.p
	spec := operators.JoinSpec{Cond: jp.cond, Semi: n.IsSemi(), Anti: n.IsAnti(), Left: jp.left, Right: jp.right}
	spec.Left.NullSafe, spec.Right.NullSafe = n.NullSafe, n.NullSafe
	for i, side := range []*operators.JoinSideSpec{&spec.Left, &spec.Right} {
		kind, uk := n.JoinInputSide(i == 1)
		switch kind {
		case "JoinKeyContainsUniqueKey":
			side.Kind = operators.JoinKeyContainsUniqueKey
		case "HasUniqueKey":
			side.Kind, side.UniqueKey = operators.HasUniqueKey, uk
		}
	}
	f := operators.StreamingJoin(spec)
	if n.Strategy != "" {
		f = batchJoin(n, spec)
		// The build side of a nested-loop or broadcast join reaches every
		// task; a FULL nested-loop join reads both inputs on one task.
		p = b.defaultP
		if ex, ok := n.Inputs()[0].(*plan.Exchange); ok && ex.Single {
			p = 1
		}
		if broadcastsPreservedSide(n) {
			p = 1
		}
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), f, p)
	b.connect(l, v, p)
	b.connect(r, v, p)
	return edge{vertex: v, p: p}, nil
}

// broadcastsPreservedSide reports a batch join that broadcasts the input
// its outer join keeps unmatched rows of: a NEST_LOOP hint naming the left
// of a LEFT JOIN (or the right of a RIGHT JOIN) plans it so, as Flink's
// BatchPhysicalNestedLoopJoinRule does. Each task would pad the build rows
// no probe row of its own share matched, so such a join runs on one task,
// where the whole probe side meets the build side once.
func broadcastsPreservedSide(n *plan.Join) bool {
	side := -1
	switch n.JoinType {
	case ast.LeftJoin:
		side = 0
	case ast.RightJoin:
		side = 1
	default:
		return false
	}
	ex, ok := n.Inputs()[side].(*plan.Exchange)
	return ok && ex.Broadcast
}

// batchJoin is the operator of a batch HashJoin, SortMergeJoin or
// NestedLoopJoin over the inputs spec describes.
func batchJoin(n *plan.Join, spec operators.JoinSpec) runtime.OperatorFactory {
	bs := operators.BatchJoinSpec{Type: operators.BatchInner, LeftKeys: spec.Left.Keys, RightKeys: spec.Right.Keys,
		LeftArity: spec.Left.Arity, RightArity: spec.Right.Arity, Cond: spec.Cond, LeftIsBuild: n.LeftIsBuild}
	switch n.Strategy {
	case plan.StrategySortMerge:
		bs.Strategy = operators.SortMergeJoin
	case plan.StrategyNestedLoop:
		bs.Strategy = operators.NestedLoopJoin
	}
	switch {
	case n.IsSemi():
		bs.Type = operators.BatchSemi
	case n.IsAnti():
		bs.Type = operators.BatchAnti
	case n.JoinType == ast.LeftJoin:
		bs.Type = operators.BatchLeft
	case n.JoinType == ast.RightJoin:
		bs.Type = operators.BatchRight
	case n.JoinType == ast.FullJoin:
		bs.Type = operators.BatchFull
	}
	return operators.BatchJoin(bs)
}

func isString(t sql.DataType) bool { return t.Root == sql.TypeChar || t.Root == sql.TypeVarChar }

// rankOperator is StreamExecRank: only ROW_NUMBER runs on a stream.
func rankOperator(n *plan.Rank) (runtime.OperatorFactory, error) {
	if n.Func != "ROW_NUMBER" {
		return nil, sql.Errorf(sql.TableException, "%s() on streaming table is not supported currently", n.Func)
	}
	spec := operators.RankSpec{Partition: n.Partition, Start: n.Start, End: n.End, OutputNumber: n.OutputNumber,
		GenerateUpdateBefore: n.Mode().Contains(sql.UpdateBefore)}
	for _, k := range n.Order {
		spec.Order = append(spec.Order, operators.SortKey{Index: k.Field, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	spec.Strategy, spec.RowKey = rankStrategy(n.Strategy, n.StrategyKey)
	return operators.TopN(spec), nil
}

// rankStrategy is the runtime's Top-N strategy for a plan's Rank or
// SortLimit strategy (RankProcessStrategy), with UpdateFast's row key.
func rankStrategy(strategy string, key []int) (operators.RankStrategy, []int) {
	switch strategy {
	case "AppendFastStrategy":
		return operators.AppendFast, nil
	case "UpdateFastStrategy":
		return operators.UpdateFast, key
	}
	return operators.Retract, nil
}

// limitOperator compiles a Limit. Over an updating input it is Flink's
// StreamExecLimit with a RetractStrategy: a Top-N of one partition
// without sort keys (RetractableTopNFunction), which keeps every row so
// that a retracted row's place goes to the next one; the plain Limit,
// which counts rows, is for insert-only input.
func limitOperator(n *plan.Limit) runtime.OperatorFactory {
	if n.Batch || n.Inputs()[0].Mode().IsInsertOnly() {
		return operators.Limit(n.Offset, n.Fetch)
	}
	end := int64(math.MaxInt64)
	if n.Fetch >= 0 {
		end = n.Offset + n.Fetch
	}
	return operators.TopN(operators.RankSpec{Start: n.Offset + 1, End: end, Strategy: operators.Retract,
		GenerateUpdateBefore: n.Mode().Contains(sql.UpdateBefore)})
}

// sortLimitOperator compiles a SortLimit. A batch one sorts its bounded
// input at its end. A streaming one is Flink's StreamExecSortLimit: a
// Top-N of one partition over the ranks Offset+1 to Offset+Fetch without
// the rank number, which emits as rows arrive (-D of the row pushed out,
// +I of the one that came in) instead of once at the end of an input that
// may never end. Its strategy is the plan's, as a Rank's: over an updating
// input Retract keeps every row so that a retracted row's rank goes to the
// next one, UpdateFast (a sort key that only improves, by an upsert key)
// keeps the top rows.
func sortLimitOperator(n *plan.SortLimit, keys []operators.SortKey) runtime.OperatorFactory {
	if n.Batch {
		return operators.Sort(keys, n.Offset, n.Fetch)
	}
	end := int64(math.MaxInt64) // OFFSET without LIMIT: fetch=[unlimited]
	if n.Fetch >= 0 {
		end = n.Offset + n.Fetch
	}
	spec := operators.RankSpec{Order: keys, Start: n.Offset + 1, End: end,
		GenerateUpdateBefore: n.Mode().Contains(sql.UpdateBefore)}
	spec.Strategy, spec.RowKey = rankStrategy(n.Strategy, n.StrategyKey)
	return operators.TopN(spec)
}

// lookupJoin compiles a LookupJoin: the dim's row and its condition as
// one Calc over the source's physical row, the join condition over the
// output row.
func lookupJoin(n *plan.LookupJoin, atStart func(plan.Expr) plan.Expr) (runtime.OperatorFactory, error) {
	src, ok := n.Table.Source.(connectors.LookupSource)
	if !ok {
		return nil, sql.Errorf(sql.TableException, "table %s cannot be looked up", n.Table.ID)
	}
	dims := make([]plan.Expr, len(n.DimExprs))
	for i, e := range n.DimExprs {
		dims[i] = atStart(e)
	}
	dim, err := plan.CompileCalc(dims, atStart(n.Where))
	if err != nil {
		return nil, err
	}
	spec := operators.LookupJoinSpec{Source: src, Dim: operators.CalcFunc(dim), Select: n.Select,
		Left: n.JoinType == ast.LeftJoin, Table: n.Table.ID.String()}
	for _, k := range n.Keys {
		spec.KeyFields = append(spec.KeyFields, k.DimField)
		lk := operators.LookupKey{Field: k.Left}
		switch {
		case k.Expr != nil:
			ev, err := plan.Compile(atStart(k.Expr))
			if err != nil {
				return nil, err
			}
			lk.Eval = ev
		case k.Left < 0:
			lk.Const = k.Const.Value
		}
		spec.Keys = append(spec.Keys, lk)
	}
	if n.JoinCond != nil {
		ev, err := plan.Compile(atStart(n.JoinCond))
		if err != nil {
			return nil, err
		}
		spec.JoinCond = func(r sql.Row) (bool, error) {
			v, err := ev(r.Values)
			if err != nil {
				return false, err
			}
			b, _ := v.(bool)
			return b, nil
		}
	}
	return operators.LookupJoin(spec), nil
}

// checkMiniBatchSize is AggregateUtil.createMiniBatchTrigger's check,
// which Flink's mini-batch group aggregates make when the job is built.
func checkMiniBatchSize(cfg map[string]string) error {
	on, err := config.Bool(cfg, config.KeyMiniBatchEnabled)
	if err != nil || !on {
		return err
	}
	size, err := config.Int(cfg, config.KeyMiniBatchSize)
	if err != nil {
		return err
	}
	if size <= 0 {
		return sql.Errorf(sql.IllegalArgumentException, "Key: '%s' , default: -1 (fallback keys: []) must be > 0.", config.KeyMiniBatchSize)
	}
	return nil
}

// valuesUnion runs a UNION ALL of constant rows as one source that emits
// them in the order they are written, where every input of the union is a
// Values or a Calc over one: the shape Calcite gives a VALUES list with a
// non-literal item (a Calc over the one-row Values(tuples=[[{ 0 }]]) per
// row). Flink runs that plan as one chained task: the reused Values source
// hands its row to each Calc in turn, so the rows reach the sink in
// written order, and an upsert sink given (1, 'a'), (1, CAST(NULL AS
// STRING)) keeps the second. Separate tasks per input would race and let
// either row win. The rows are evaluated here, as a Values node's are.
func (b *builder) valuesUnion(n *plan.Union) ([]sql.Row, bool, error) {
	for _, in := range n.Inputs() {
		switch in := in.(type) {
		case *plan.Values:
		case *plan.Calc:
			if _, ok := in.Inputs()[0].(*plan.Values); !ok {
				return nil, false, nil
			}
			if expr.ReadsProctime(append([]plan.Expr{in.Cond}, in.Exprs...)...) {
				return nil, false, nil
			}
		default:
			return nil, false, nil
		}
	}
	var out []sql.Row
	for _, in := range n.Inputs() {
		calc, _ := in.(*plan.Calc)
		values, _ := in.(*plan.Values)
		if calc != nil {
			values = calc.Inputs()[0].(*plan.Values)
		}
		rows, err := b.valuesRows(values)
		if err != nil {
			return nil, true, err
		}
		if calc == nil {
			out = append(out, rows...)
			continue
		}
		cf, err := plan.CompileCalc(b.atStartAll(calc.Exprs), b.atStart(calc.Cond))
		if err != nil {
			return nil, true, err
		}
		for _, r := range rows {
			o, keep, err := cf(r)
			if err != nil {
				return nil, true, fmt.Errorf("evaluate VALUES: %w", err)
			}
			if keep {
				out = append(out, o)
			}
		}
	}
	return out, true, nil
}

// valuesRows evaluates a Values node's rows.
func (b *builder) valuesRows(n *plan.Values) ([]sql.Row, error) {
	rows := make([]sql.Row, len(n.Rows))
	for i, tuple := range n.Rows {
		vals := make([]any, len(tuple))
		for j, e := range tuple {
			ev, err := plan.Compile(b.atStart(e))
			if err != nil {
				return nil, err
			}
			v, err := ev(nil)
			if err != nil {
				return nil, fmt.Errorf("evaluate VALUES: %w", err)
			}
			vals[j] = v
		}
		rows[i] = sql.Row{Kind: sql.Insert, Values: vals}
	}
	return rows, nil
}

// unnestOperator compiles a Correlate of $UNNEST_ROWS$1 (its collection
// over the input row, its condition over the element's columns) or of
// ReplicateRows (its count and values over the input row).
func unnestOperator(b *builder, n *plan.Correlate) (runtime.OperatorFactory, error) {
	arg, err := plan.CompileCalc(b.atStartAll(n.Args), nil)
	if err != nil {
		return nil, err
	}
	spec := operators.UnnestSpec{Arg: operators.CalcFunc(arg), Map: n.Elem.Root == sql.TypeMap,
		Width: len(n.ElemTypes), Left: n.JoinType == ast.LeftJoin, Replicate: n.Replicate}
	if !n.Replicate && n.Elem.Root == sql.TypeArray && n.Elem.Elem != nil && n.Elem.Elem.Root == sql.TypeRow {
		spec.RowArity = len(n.Elem.Elem.Fields)
	}
	if n.Cond != nil {
		c, err := plan.CompileCalc(nil, b.atStart(n.Cond))
		if err != nil {
			return nil, err
		}
		spec.Cond = operators.CalcFunc(c)
	}
	return operators.Unnest(spec), nil
}
