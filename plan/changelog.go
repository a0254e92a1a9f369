package plan

import (
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Changelog inference re-implements Flink's
// FlinkChangelogModeInferenceProgram in its two passes:
//
//  1. ModifyKindSet: which of INSERT, UPDATE, DELETE each node may emit,
//     bottom-up, checked against what each sink accepts. A sink that cannot
//     take what its input emits fails with "... doesn't support consuming
//     update changes which is produced by node ...".
//  2. UpdateKind, top-down: whether a consumer needs the -U image
//     (BEFORE_AND_AFTER) or can do with +U only (ONLY_UPDATE_AFTER). An
//     upsert sink whose primary key equals an upsert key of its input asks
//     for ONLY_UPDATE_AFTER first; aggregates always need -U from an
//     updating input; a filtering Calc never satisfies ONLY_UPDATE_AFTER
//     (FLINK-9528). A source with -U asked for +U only gets DropUpdateBefore.
//
// Modify kinds are carried in a sql.ChangelogMode where UpdateAfter stands
// for "UPDATE".

type updateKind int

const (
	ukNone updateKind = iota
	ukOnlyUA
	ukBA
)

func kindsOf(m sql.ChangelogMode) sql.ChangelogMode {
	var out sql.ChangelogMode
	if m.Contains(sql.Insert) {
		out = out.With(sql.Insert)
	}
	if m.Contains(sql.UpdateAfter) || m.Contains(sql.UpdateBefore) {
		out = out.With(sql.UpdateAfter)
	}
	if m.Contains(sql.Delete) {
		out = out.With(sql.Delete)
	}
	return out
}

func hasUpdates(k sql.ChangelogMode) bool { return k.Contains(sql.UpdateAfter) }

// modifyKinds computes pass 1 for a node (memoized in mk).
func modifyKinds(n Node, mk map[Node]sql.ChangelogMode) sql.ChangelogMode {
	if k, ok := mk[n]; ok {
		return k
	}
	var k sql.ChangelogMode
	switch n := n.(type) {
	case *TableSourceScan:
		k = kindsOf(n.Table.Source.ChangelogMode())
	case *Values:
		k = sql.InsertOnly
	case *ChangelogNormalize:
		modifyKinds(n.input(), mk)
		k = kindsOf(sql.All)
	case *GroupAggregate:
		in := modifyKinds(n.input(), mk)
		k = sql.ModeOf(sql.Insert, sql.UpdateAfter)
		if !in.IsInsertOnly() {
			k = k.With(sql.Delete)
		}
	case *WindowAggregate:
		// A window aggregate fires each window once; its local phase,
		// too, emits insert-only accumulators
		// (TwoStageOptimizedWindowAggregateRule: INSERT_ONLY).
		modifyKinds(n.input(), mk)
		k = sql.InsertOnly
		if n.Window.Legacy && n.Window.Emit.ProduceUpdates(n.Window.ProcTime) {
			// A GroupWindowAggregate that fires a window more than once
			// (early / late firing) updates its result.
			k = k.With(sql.UpdateAfter)
		}
	case *SortLimit, *Rank:
		modifyKinds(n.input(), mk)
		k = kindsOf(sql.All)
	case *Sort:
		// StreamPhysicalSort consumes any changes and emits inserts (at
		// the end of its input).
		modifyKinds(n.input(), mk)
		k = sql.InsertOnly
	case *Deduplicate:
		modifyKinds(n.input(), mk)
		// Only the first row on processing time never changes
		// (ProcTimeDeduplicateKeepFirstRowFunction).
		// Every other deduplication provides all changes, deletes among
		// them, though it never emits one (FlinkChangelogModeInferenceProgram:
		// ModifyKindSetTrait.ALL_CHANGES; GroupWindowTest's
		// testWindowAggregateOnRetractStream: Deduplicate(keep=[LastRow],
		// ...) changelogMode=[I,UB,UA,D]).
		k = kindsOf(sql.All)
		if !n.KeepLast && !n.Rowtime {
			k = sql.InsertOnly
		}
	case *Limit:
		in := modifyKinds(n.input(), mk)
		k = sql.InsertOnly
		if !in.IsInsertOnly() {
			k = kindsOf(sql.All)
		}
	case *Union:
		for _, in := range n.inputs {
			k = k.Union(modifyKinds(in, mk))
		}
	case *IntervalJoin, *WindowJoin:
		for _, in := range n.Inputs() {
			modifyKinds(in, mk)
		}
		k = sql.InsertOnly
	case *WindowTableFunction, *WindowRank, *WindowDeduplicate:
		modifyKinds(n.Inputs()[0], mk)
		k = sql.InsertOnly
	case *TemporalJoin:
		// The left input's changes pass through; the right input is a
		// versioned table in any changelog mode.
		k = modifyKinds(n.inputs[0], mk)
		modifyKinds(n.inputs[1], mk)
	case *Join:
		for _, in := range n.inputs {
			k = k.Union(modifyKinds(in, mk))
		}
		if n.JoinType != ast.InnerJoin && n.JoinType != semiJoin {
			// An outer join retracts its null-padded rows, an anti join the
			// rows a new match hides (FlinkChangelogModeInferenceProgram).
			k = kindsOf(sql.All)
		}
	case *Sink:
		modifyKinds(n.input(), mk)
		k = sql.NoChanges
	default: // Calc, Exchange, DropUpdateBefore forward.
		k = modifyKinds(n.input(), mk)
	}
	mk[n] = k
	return k
}

// toMode expands modify kinds into a changelog mode under an update kind.
func toMode(k sql.ChangelogMode, uk updateKind) sql.ChangelogMode {
	var m sql.ChangelogMode
	if k.Contains(sql.Insert) {
		m = m.With(sql.Insert)
	}
	if hasUpdates(k) {
		m = m.With(sql.UpdateAfter)
		if uk == ukBA {
			m = m.With(sql.UpdateBefore)
		}
	}
	if k.Contains(sql.Delete) {
		m = m.With(sql.Delete)
	}
	return m
}

// upsertKeys derives FlinkRelMdUpsertKeys for every node, bottom-up.
func upsertKeys(n Node) [][]int {
	for _, in := range n.Inputs() {
		upsertKeys(in)
	}
	var keys [][]int
	switch n := n.(type) {
	case *TableSourceScan:
		if pk := pkIndexes(n); len(pk) > 0 && len(pk) == len(n.Table.Schema.PrimaryKey) {
			keys = [][]int{pk}
		}
	case *ChangelogNormalize:
		keys = [][]int{n.Keys}
	case *Calc:
		keys = projectKeys(n.input().UpsertKeys(), n.Exprs)
	case *Exchange:
		for _, k := range n.input().UpsertKeys() {
			if n.Single || containsAll(k, n.Keys) {
				keys = append(keys, k)
			}
		}
	case *GroupAggregate:
		// The group keys; a global aggregate has the empty key (it emits
		// one row), which is within any sink primary key.
		g := make([]int, len(n.Group))
		for i := range g {
			g[i] = i
		}
		keys = [][]int{g}
	case *WindowAggregate:
		if n.Window.Legacy && n.Window.Props {
			// FlinkRelMdUniqueKeys.getUniqueKeysOnWindowAgg: the group
			// keys with any one window property (w$start, w$end,
			// w$rowtime) (GroupWindowTest.testMultiHopWindowsJoin:
			// JoinKeyContainsUniqueKey on w$end).
			for p := len(n.Group) + len(n.Aggs); p < len(n.Names()); p++ {
				k := make([]int, 0, len(n.Group)+1)
				for i := range n.Group {
					k = append(k, i)
				}
				keys = append(keys, append(k, p))
			}
		}
	case *DropUpdateBefore, *Limit, *SortLimit, *TemporalSort, *WatermarkAssigner, *OverAggregate:
		keys = n.input().UpsertKeys()
	case *Rank:
		keys = rankUpsertKeys(n)
	case *Deduplicate:
		keys = [][]int{append([]int{}, n.Keys...)}
	case *Join:
		keys = joinUpsertKeys(n)
	case *LookupJoin:
		keys = lookupUpsertKeys(n)
	case *TemporalJoin:
		// One output row per left row.
		keys = n.input().UpsertKeys()
	}
	n.head().upsertKeys = keys
	return keys
}

func containsAll(set, sub []int) bool {
	for _, s := range sub {
		found := false
		for _, x := range set {
			if x == s {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func sameSet(a, b []int) bool { return len(a) == len(b) && containsAll(a, b) && containsAll(b, a) }

type inference struct {
	mk     map[Node]sql.ChangelogMode
	config map[string]string
}

// inferChangelog runs both passes over one sink tree and decides the
// sink's upsert materializer. explainQuery marks a query root planned for
// EXPLAIN, which tries ONLY_UPDATE_AFTER first; a query run by the client
// needs BEFORE_AND_AFTER.
func inferChangelog(root *Sink, config map[string]string, explainQuery bool) (*Sink, error) {
	inf := &inference{mk: map[Node]sql.ChangelogMode{}, config: config}
	upsertKeys(root)
	modifyKinds(root, inf.mk)
	in := root.input()
	inKinds := inf.mk[in]
	requested := toMode(inKinds, ukBA)
	accepted := requested
	var requirements []updateKind
	if root.Collect {
		requirements = []updateKind{ukBA}
		if explainQuery {
			requirements = []updateKind{ukOnlyUA, ukBA}
		}
	} else {
		var err error
		accepted, err = root.Table.Sink.ChangelogMode(requested)
		if err != nil {
			return nil, err
		}
		missing := sql.NoChanges
		if hasUpdates(inKinds) && !accepted.Contains(sql.UpdateAfter) && !accepted.Contains(sql.UpdateBefore) {
			missing = missing.With(sql.UpdateAfter)
		}
		if inKinds.Contains(sql.Delete) && !accepted.Contains(sql.Delete) {
			missing = missing.With(sql.Delete)
		}
		if missing != sql.NoChanges {
			return nil, inf.consumeError("Table sink '"+root.Table.ID.String()+"'", in, missing)
		}
		switch {
		case !hasUpdates(inKinds):
			requirements = []updateKind{ukNone}
		case accepted.Contains(sql.UpdateAfter) && !accepted.Contains(sql.UpdateBefore):
			requirements = []updateKind{ukBA}
			pk := root.Table.Schema.PrimaryKeyIndexes()
			for _, k := range in.UpsertKeys() {
				if len(pk) > 0 && sameSet(k, pk) {
					requirements = []updateKind{ukOnlyUA, ukBA}
				}
			}
		default:
			requirements = []updateKind{ukBA}
		}
	}
	var newIn Node
	for _, req := range requirements {
		if r, ok := inf.visit(in, req); ok {
			newIn = r
			break
		}
	}
	if newIn == nil {
		// Flink prints the plan with the traits pass 1 derived.
		Walk(root, func(n Node) { n.head().mode = toMode(inf.mk[n], ukBA) })
		root.mode = sql.NoChanges
		return nil, sql.Errorf(sql.TableException, "Can't generate a valid execution plan for the given query:\n%s",
			explainTree(printable(root), explainOpts{format: FormatPrefix, changelog: true}))
	}
	upsertKeys(newIn)
	out := *root
	out.inputs = []Node{newIn}
	out.mode = sql.NoChanges
	if !root.Collect {
		out.UpsertMaterialize = inf.materialize(&out, newIn)
	}
	return &out, nil
}

// materialize decides SinkUpsertMaterializer per
// table.exec.sink.upsert-materialize (AUTO by default).
func (inf *inference) materialize(sink *Sink, in Node) bool {
	pk := sink.Table.Schema.PrimaryKeyIndexes()
	mode, _ := config.Enum(inf.config, config.KeyUpsertMaterialize) // SET checked it
	switch mode {
	case "FORCE":
		return len(pk) > 0
	case "NONE":
		return false
	}
	if len(pk) == 0 || in.Mode().IsInsertOnly() {
		return false
	}
	accepted, err := sink.Table.Sink.ChangelogMode(in.Mode())
	if err != nil || accepted.IsInsertOnly() {
		return false
	}
	for _, k := range in.UpsertKeys() {
		if containsAll(pk, k) {
			return false
		}
	}
	return true
}

// consumeError builds Flink's "doesn't support consuming" error, naming
// the node that introduces the offending kinds.
func (inf *inference) consumeError(requester string, n Node, missing sql.ChangelogMode) error {
	culprit := inf.culprit(n, missing)
	var what string
	switch {
	case missing.Contains(sql.UpdateAfter) && missing.Contains(sql.Delete):
		what = "update and delete"
	case missing.Contains(sql.UpdateAfter):
		what = "update"
	default:
		what = "delete"
	}
	return sql.Errorf(sql.TableException, "%s doesn't support consuming %s changes which is produced by node %s",
		requester, what, nodeDescription(culprit, FormatPrefix))
}

// culprit is the node below n (through Calcs, Exchanges and Unions) that
// introduces the missing kinds.
func (inf *inference) culprit(n Node, missing sql.ChangelogMode) Node {
	culprit := n
	for {
		var next Node
		switch c := culprit.(type) {
		case *Calc, *Exchange, *DropUpdateBefore, *WatermarkAssigner, *Correlate:
			next = c.input()
		case *Union:
			for _, in := range c.inputs {
				if inf.mk[in]&missing != 0 {
					next = in
					break
				}
			}
		}
		if next == nil || inf.mk[next]&missing == 0 {
			break
		}
		culprit = next
	}
	return culprit
}

// visit is pass 2: it returns a copy of n whose subtree provides req, or
// false when n cannot.
func (inf *inference) visit(n Node, req updateKind) (Node, bool) {
	k := inf.mk[n]
	out := n.WithInputs(n.Inputs()...)
	h := out.head()
	setMode := func(uk updateKind) { h.mode = toMode(k, uk) }
	if !hasUpdates(k) {
		req = ukNone
	}
	child := func(i int, r updateKind) bool {
		c, ok := inf.visit(n.Inputs()[i], r)
		if ok {
			h.inputs = append([]Node(nil), h.inputs...)
			h.inputs[i] = c
		}
		return ok
	}
	needBA := func(i int) updateKind {
		if hasUpdates(inf.mk[n.Inputs()[i]]) {
			return ukBA
		}
		return ukNone
	}
	switch x := n.(type) {
	case *TableSourceScan:
		src := x.Table.Source.ChangelogMode()
		h.mode = src
		provided := ukNone
		if src.Contains(sql.UpdateBefore) {
			provided = ukBA
		} else if src.Contains(sql.UpdateAfter) {
			provided = ukOnlyUA
		}
		switch {
		case provided == req:
			return out, true
		case provided == ukBA && req == ukOnlyUA:
			drop := &DropUpdateBefore{base: sameRow(out)}
			drop.mode, drop.upsertKeys = src.Without(sql.UpdateBefore), x.upsertKeys
			return drop, true
		}
		return nil, false
	case *Values:
		h.mode = sql.InsertOnly
		return out, true
	case *ChangelogNormalize:
		if !child(0, ukOnlyUA) {
			return nil, false
		}
		if req == ukNone {
			req = ukOnlyUA
		}
		setMode(req)
		return out, true
	case *Calc:
		if req == ukOnlyUA && nonUpsertKeyCondition(x) {
			return nil, false
		}
		if !child(0, req) {
			return nil, false
		}
		setMode(req)
		return out, true
	case *SortLimit:
		if x.Batch {
			if !child(0, needBA(0)) {
				return nil, false
			}
			setMode(req)
			return out, true
		}
		// FlinkChangelogModeInferenceProgram: a StreamPhysicalSortLimit's
		// strategies are a Rank's without partition keys
		// (RankProcessStrategy.analyzeRankProcessStrategies).
		sl := out.(*SortLimit)
		if !inf.visitRankStrategies(x.input(), nil, x.Order, func(s string, k []int) {
			sl.Strategy, sl.StrategyKey = s, k
		}, child) {
			return nil, false
		}
		setMode(req)
		return out, true
	case *GroupAggregate, *Limit, *Sort:
		if !child(0, needBA(0)) {
			return nil, false
		}
		if agg, ok := out.(*GroupAggregate); ok {
			retract := hasUpdates(inf.mk[x.input()]) || inf.mk[x.input()].Contains(sql.Delete)
			agg.Aggs = append([]AggCall(nil), agg.Aggs...)
			for i := range agg.Aggs {
				agg.Aggs[i].Retract = retract && needsRetraction(agg, i)
			}
		}
		setMode(req)
		return out, true
	case *WindowAggregate:
		if !x.Window.Legacy {
			// StreamPhysicalWindowAggregate (Flink 1.19+, FLINK-20281)
			// asks an updating input for -U as an aggregate does
			// (beforeAfterOrNone); its calls retract (set when it was
			// planned, convertWindowAggregate). A global phase reads its
			// local phase's insert-only output.
			if !child(0, needBA(0)) {
				return nil, false
			}
			setMode(req)
			return out, true
		}
		// StreamPhysicalGroupWindowAggregateBase: -U from an updating
		// input, whose rows every aggregate call retracts
		// (StreamExecGroupWindowAggregate's needRetraction); it gives
		// whichever update kind is asked for.
		if !child(0, needBA(0)) {
			return nil, false
		}
		in := inf.mk[x.input()]
		agg := out.(*WindowAggregate)
		agg.Aggs = append([]AggCall(nil), agg.Aggs...)
		for i := range agg.Aggs {
			agg.Aggs[i].Retract = !in.IsInsertOnly()
		}
		setMode(req)
		return out, true
	case *Deduplicate:
		if !child(0, ukNone) {
			return nil, false
		}
		setMode(req)
		return out, true
	case *Rank:
		if !inf.visitRank(x, out.(*Rank), req, child) {
			return nil, false
		}
		setMode(req)
		return out, true
	case *Union:
		for i, in := range x.inputs {
			r := req
			if !hasUpdates(inf.mk[in]) {
				r = ukNone
			}
			if !child(i, r) {
				return nil, false
			}
		}
		setMode(req)
		return out, true
	case *IntervalJoin, *WindowJoin:
		for i := range out.Inputs() {
			if !child(i, ukNone) {
				return nil, false
			}
		}
		setMode(req)
		return out, true
	case *TemporalJoin:
		// The left input gives what the parent asks for; the right one
		// only +U if it can (FlinkChangelogModeInferenceProgram).
		if !child(0, req) {
			return nil, false
		}
		// An event-time join's upsert versioned scan has no
		// ChangelogNormalize (snapshotScan) and so cannot give
		// update-before rows: a filter on its non-key field fails here,
		// as in Flink (TemporalJoinTest.testTemporalJoinUpsertSourceWithPreFilter).
		if !child(1, ukOnlyUA) && !child(1, ukBA) {
			return nil, false
		}
		setMode(req)
		return out, true
	case *Join:
		for i, in := range x.inputs {
			if !hasUpdates(inf.mk[in]) {
				if !child(i, ukNone) {
					return nil, false
				}
				continue
			}
			r := ukBA
			if req == ukOnlyUA {
				keys := x.LeftKeys
				if i == 1 {
					keys = x.RightKeys
				}
				if !uniqueKeyContains(in.UpsertKeys(), keys) {
					return nil, false
				}
				r = ukOnlyUA
			}
			if !child(i, r) {
				return nil, false
			}
		}
		setMode(req)
		return out, true
	default: // Exchange, DropUpdateBefore
		if !child(0, req) {
			return nil, false
		}
		setMode(req)
		return out, true
	}
}

// nonUpsertKeyCondition reports a Calc condition that reads a field outside
// every upsert key of the Calc's input. Such a filter cannot work on +U
// alone (FLINK-9528: a row leaving the filter must be retracted); a filter
// on key fields only drops all versions of a key alike, so it can.
func nonUpsertKeyCondition(calc *Calc) bool {
	if calc.Cond == nil {
		return false
	}
	used := map[int]bool{}
	refs(calc.Cond, used)
	for _, k := range calc.input().UpsertKeys() {
		inKey := true
		for f := range used {
			if !containsAll(k, []int{f}) {
				inKey = false
			}
		}
		if inKey {
			return false
		}
	}
	return true
}

// uniqueKeyContains reports an upsert key that contains the join key
// (FlinkChangelogModeInferenceProgram's inputUniqueKeyContainsJoinKey):
// then +U alone identifies the join rows it replaces.
func uniqueKeyContains(keys [][]int, joinKey []int) bool {
	for _, k := range keys {
		if len(k) > 0 && containsAll(k, joinKey) {
			return true
		}
	}
	return false
}

// joinUpsertKeys follows FlinkRelMdUpsertKeys for a join: a left key and a
// right key together are unique; a side's key alone stays unique when the
// other side is unique on its join key (at most one partner), unless that
// side is the null-padded one of an outer join.
func joinUpsertKeys(n *Join) [][]int {
	l, r := n.inputs[0], n.inputs[1]
	if isSemiAnti(n.JoinType) {
		return l.UpsertKeys()
	}
	nl := len(l.Names())
	uniqueOn := func(keys [][]int, joinKey []int) bool {
		for _, k := range keys {
			if len(k) > 0 && containsAll(joinKey, k) {
				return true
			}
		}
		return false
	}
	var out [][]int
	shift := func(k []int) []int {
		s := make([]int, len(k))
		for i, x := range k {
			s[i] = x + nl
		}
		return s
	}
	for _, lk := range l.UpsertKeys() {
		for _, rk := range r.UpsertKeys() {
			out = append(out, append(append([]int(nil), lk...), shift(rk)...))
		}
	}
	if uniqueOn(r.UpsertKeys(), n.RightKeys) && n.JoinType != ast.RightJoin && n.JoinType != ast.FullJoin {
		out = append(out, l.UpsertKeys()...)
	}
	if uniqueOn(l.UpsertKeys(), n.LeftKeys) && n.JoinType != ast.LeftJoin && n.JoinType != ast.FullJoin {
		for _, rk := range r.UpsertKeys() {
			out = append(out, shift(rk))
		}
	}
	return out
}
