package mergetree

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// The metamorphic test drives a bucket Writer with random upserts, deletes
// and updates, random flushes (by a tiny write buffer), commits with and
// without waiting, forced full compactions and restarts from the committed
// files, and checks after each commit that merge-on-read equals a map model
// of the engine. For changelog producers it also applies every changelog
// file a streaming reader would see to an empty map and checks that it ends
// equal to the table (for lookup after each waited commit, for
// full-compaction after each full compaction, for all at the end).

type mmEngine struct {
	name  string
	opts  map[string]string
	model func() mmModel
	// changelogComplete says when the applied changelog must equal the
	// table: "commit" (each waited commit), "full" (each full compaction).
	changelogComplete string
	// disk uses a DiskLookup with tiny blocks and bounds, so eviction and
	// rebuilding happen all the time.
	disk bool
}

// mmModel is the expected table state under one merge engine.
type mmModel interface {
	// op returns the records a writer receives for one random operation.
	op(r *rand.Rand) [][2]any // pairs of (sql.RowKind, []any)
	rows() map[int32]string
	clone() mmModel
}

var mmTypes = []sql.DataType{sql.Int().NotNull(), sql.BigInt(), sql.String(), sql.BigInt()}
var mmNames = []string{"id", "v", "s", "ts"}

const mmKeys = 40

func fmtRow(v []any) string { return sql.FormatRow(sql.Row{Values: v}, mmTypes) }

func randS(r *rand.Rand) any {
	if r.Intn(5) == 0 {
		return nil
	}
	return fmt.Sprintf("s%02d", r.Intn(100))
}

// dedupModel: newest wins; with seqField the version with the greatest
// (ts, arrival) wins.
//
// With sequence.field, Paimon drops a winning delete at a full compaction, so
// a later version with a smaller ts would come back to life depending on
// compaction timing. The generator avoids that ambiguity: a delete carries
// the greatest ts seen for its key, and later versions never go below it.
type dedupModel struct {
	seqField bool
	cur      map[int32][]any
	best     map[int32][2]any // (ts, kind) of the winning version, seqField only
	floor    map[int32]int64  // ts of the last delete, seqField only
	maxTs    map[int32]int64
}

func newDedup(seqField bool) func() mmModel {
	return func() mmModel {
		return &dedupModel{seqField: seqField, cur: map[int32][]any{}, best: map[int32][2]any{},
			floor: map[int32]int64{}, maxTs: map[int32]int64{}}
	}
}

func (m *dedupModel) op(r *rand.Rand) [][2]any {
	k := int32(r.Intn(mmKeys))
	ts := m.floor[k] + int64(r.Intn(50))
	old, exists := m.cur[k]
	if m.seqField && exists && r.Intn(2) == 0 {
		ts = old[3].(int64) + int64(r.Intn(5)) // an update that wins
	}
	nv := []any{k, int64(r.Intn(1000)), randS(r), ts}
	var recs [][2]any
	switch c := r.Intn(10); {
	case c < 5: // upsert
		recs = [][2]any{{sql.Insert, nv}}
	case c < 7 && exists && !m.seqField: // update as -U/+U
		recs = [][2]any{{sql.UpdateBefore, old}, {sql.UpdateAfter, nv}}
	case c < 8 && exists && !m.seqField: // update as -D/+I (MySQL CDC action)
		recs = [][2]any{{sql.Delete, old}, {sql.Insert, nv}}
	case c < 8:
		recs = [][2]any{{sql.Insert, nv}}
	default: // delete (maybe of a missing key)
		dv := []any{k, int64(0), nil, ts}
		if exists {
			dv = copyValue(old)
		}
		if m.seqField {
			dv[3] = m.maxTs[k]
			m.floor[k] = m.maxTs[k]
		}
		recs = [][2]any{{sql.Delete, dv}}
	}
	for _, rec := range recs {
		m.apply(rec[0].(sql.RowKind), rec[1].([]any))
	}
	return recs
}

func (m *dedupModel) apply(kind sql.RowKind, v []any) {
	k := v[0].(int32)
	m.maxTs[k] = max(m.maxTs[k], v[3].(int64))
	if m.seqField {
		// Versions are ordered by ts, then arrival: a version with a smaller
		// ts than the winner never wins.
		if b, ok := m.best[k]; ok && v[3].(int64) < b[0].(int64) {
			return
		}
		m.best[k] = [2]any{v[3].(int64), kind}
	}
	if kind.IsAdd() {
		m.cur[k] = v
	} else {
		delete(m.cur, k)
	}
}

func (m *dedupModel) rows() map[int32]string {
	out := map[int32]string{}
	for k, v := range m.cur {
		out[k] = fmtRow(v)
	}
	return out
}

func (m *dedupModel) clone() mmModel {
	c := &dedupModel{seqField: m.seqField, cur: map[int32][]any{}, best: map[int32][2]any{},
		floor: map[int32]int64{}, maxTs: map[int32]int64{}}
	for k, v := range m.cur {
		c.cur[k] = v
	}
	for k, v := range m.floor {
		c.floor[k] = v
	}
	for k, v := range m.maxTs {
		c.maxTs[k] = v
	}
	for k, v := range m.best {
		c.best[k] = v
	}
	return c
}

// partialModel: non-null fields overwrite; -D (with NULL values) removes
// the row (partial-update.remove-record-on-delete). Paimon merges a -D
// followed by a partial +I into a +I that no longer carries the delete, so
// when the older full row is merged later (another compaction, a lookup)
// its fields come back; a deleted key is therefore never written again
// here (only deleted again), which keeps the expected state well defined.
type partialModel struct {
	cur  map[int32][]any
	dead map[int32]bool
}

func (m *partialModel) op(r *rand.Rand) [][2]any {
	k := int32(r.Intn(mmKeys))
	if r.Intn(8) == 0 || m.dead[k] {
		delete(m.cur, k)
		m.dead[k] = true
		return [][2]any{{sql.Delete, []any{k, nil, nil, nil}}}
	}
	nv := []any{k, nil, randS(r), nil}
	if r.Intn(2) == 0 {
		nv[1] = int64(r.Intn(1000))
	}
	if r.Intn(2) == 0 {
		nv[3] = int64(r.Intn(1000))
	}
	row, ok := m.cur[k]
	if !ok {
		row = []any{k, nil, nil, nil}
	}
	row = copyValue(row)
	for i, x := range nv {
		if x != nil {
			row[i] = x
		}
	}
	m.cur[k] = row
	return [][2]any{{sql.Insert, nv}}
}

func (m *partialModel) rows() map[int32]string {
	out := map[int32]string{}
	for k, v := range m.cur {
		out[k] = fmtRow(v)
	}
	return out
}

func (m *partialModel) clone() mmModel {
	c := &partialModel{cur: map[int32][]any{}, dead: map[int32]bool{}}
	for k, v := range m.cur {
		c.cur[k] = v
	}
	for k := range m.dead {
		c.dead[k] = true
	}
	return c
}

// aggModel: v and ts are sums, s last_non_null_value (no retraction of s:
// retracted records carry NULL s). Only earlier adds are retracted.
type aggModel struct {
	sum   map[int32][2]int64
	last  map[int32]any
	added map[int32][][]any
}

func (m *aggModel) op(r *rand.Rand) [][2]any {
	k := int32(r.Intn(mmKeys))
	if adds := m.added[k]; len(adds) > 0 && r.Intn(4) == 0 {
		i := r.Intn(len(adds))
		old := adds[i]
		m.added[k] = append(adds[:i:i], adds[i+1:]...)
		s := m.sum[k]
		s[0] -= old[1].(int64)
		s[1] -= old[3].(int64)
		m.sum[k] = s
		kind := sql.UpdateBefore
		if r.Intn(2) == 0 {
			kind = sql.Delete
		}
		return [][2]any{{kind, []any{k, old[1], nil, old[3]}}}
	}
	nv := []any{k, int64(r.Intn(100)), randS(r), int64(1)}
	m.added[k] = append(m.added[k], nv)
	s := m.sum[k]
	s[0] += nv[1].(int64)
	s[1]++
	m.sum[k] = s
	if nv[2] != nil {
		m.last[k] = nv[2]
	} else if _, ok := m.last[k]; !ok {
		m.last[k] = nil
	}
	return [][2]any{{sql.Insert, nv}}
}

func (m *aggModel) rows() map[int32]string {
	out := map[int32]string{}
	for k, s := range m.sum {
		out[k] = fmtRow([]any{k, s[0], m.last[k], s[1]})
	}
	return out
}

func (m *aggModel) clone() mmModel {
	c := &aggModel{sum: map[int32][2]int64{}, last: map[int32]any{}, added: map[int32][][]any{}}
	for k, v := range m.sum {
		c.sum[k] = v
	}
	for k, v := range m.last {
		c.last[k] = v
	}
	for k, v := range m.added {
		c.added[k] = append([][]any(nil), v...)
	}
	return c
}

// firstRowModel: the first insert wins; deletes are ignored (ignore-delete).
type firstRowModel struct{ cur map[int32][]any }

func (m *firstRowModel) op(r *rand.Rand) [][2]any {
	k := int32(r.Intn(mmKeys))
	nv := []any{k, int64(r.Intn(1000)), randS(r), int64(0)}
	if r.Intn(5) == 0 {
		return [][2]any{{sql.Delete, nv}}
	}
	if _, ok := m.cur[k]; !ok {
		m.cur[k] = nv
	}
	return [][2]any{{sql.Insert, nv}}
}

func (m *firstRowModel) rows() map[int32]string {
	out := map[int32]string{}
	for k, v := range m.cur {
		out[k] = fmtRow(v)
	}
	return out
}

func (m *firstRowModel) clone() mmModel {
	c := &firstRowModel{cur: map[int32][]any{}}
	for k, v := range m.cur {
		c.cur[k] = v
	}
	return c
}

func mmEngines() []mmEngine {
	agg := func() mmModel {
		return &aggModel{sum: map[int32][2]int64{}, last: map[int32]any{}, added: map[int32][][]any{}}
	}
	aggOpts := func(producer string) map[string]string {
		return map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
			"fields.ts.aggregate-function": "sum", "changelog-producer": producer}
	}
	partial := func() mmModel { return &partialModel{cur: map[int32][]any{}, dead: map[int32]bool{}} }
	partialOpts := func(producer string) map[string]string {
		return map[string]string{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true",
			"changelog-producer": producer}
	}
	first := func() mmModel { return &firstRowModel{cur: map[int32][]any{}} }
	return []mmEngine{
		{name: "deduplicate", opts: map[string]string{}, model: newDedup(false)},
		{name: "deduplicate-input", opts: map[string]string{"changelog-producer": "input"}, model: newDedup(false), changelogComplete: "commit"},
		{name: "deduplicate-lookup", opts: map[string]string{"changelog-producer": "lookup"}, model: newDedup(false), changelogComplete: "commit"},
		{name: "deduplicate-full", opts: map[string]string{"changelog-producer": "full-compaction"}, model: newDedup(false), changelogComplete: "full"},
		{name: "sequence-field", opts: map[string]string{"sequence.field": "ts"}, model: newDedup(true)},
		{name: "sequence-field-lookup", opts: map[string]string{"sequence.field": "ts", "changelog-producer": "lookup"}, model: newDedup(true), changelogComplete: "commit"},
		{name: "partial-update", opts: partialOpts("none"), model: partial},
		{name: "partial-update-lookup", opts: partialOpts("lookup"), model: partial, changelogComplete: "commit"},
		{name: "partial-update-full", opts: partialOpts("full-compaction"), model: partial, changelogComplete: "full"},
		{name: "aggregation", opts: aggOpts("none"), model: agg},
		{name: "aggregation-lookup", opts: aggOpts("lookup"), model: agg, changelogComplete: "commit"},
		{name: "aggregation-full", opts: aggOpts("full-compaction"), model: agg, changelogComplete: "full"},
		{name: "first-row", opts: map[string]string{"merge-engine": "first-row", "ignore-delete": "true"}, model: first},
		{name: "deduplicate-lookup-disk", opts: map[string]string{"changelog-producer": "lookup"}, model: newDedup(false), changelogComplete: "commit", disk: true},
		{name: "aggregation-lookup-disk", opts: aggOpts("lookup"), model: agg, changelogComplete: "commit", disk: true},
		{name: "first-row-lookup", opts: map[string]string{"merge-engine": "first-row", "ignore-delete": "true", "changelog-producer": "lookup"}, model: first, changelogComplete: "commit"},
		// deletion-vectors.enabled with the producers Paimon allows on it
		// (SchemaValidation.validateForDeletionVectors: none, input, lookup).
		{name: "deduplicate-dv", opts: withDV(map[string]string{}), model: newDedup(false)},
		{name: "deduplicate-dv-input", opts: withDV(map[string]string{"changelog-producer": "input"}), model: newDedup(false), changelogComplete: "commit"},
		{name: "deduplicate-dv-lookup", opts: withDV(map[string]string{"changelog-producer": "lookup"}), model: newDedup(false), changelogComplete: "commit"},
		{name: "deduplicate-dv-lookup-disk", opts: withDV(map[string]string{"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"}), model: newDedup(false), changelogComplete: "commit", disk: true},
		{name: "sequence-field-dv-lookup", opts: withDV(map[string]string{"sequence.field": "ts", "changelog-producer": "lookup"}), model: newDedup(true), changelogComplete: "commit"},
		{name: "partial-update-dv-lookup", opts: withDV(partialOpts("lookup")), model: partial, changelogComplete: "commit"},
		{name: "aggregation-dv", opts: withDV(aggOpts("none")), model: agg},
		{name: "aggregation-dv-lookup", opts: withDV(aggOpts("lookup")), model: agg, changelogComplete: "commit"},
	}
}

func withDV(o map[string]string) map[string]string {
	o["deletion-vectors.enabled"] = "true"
	return o
}

func TestMetamorphic(t *testing.T) {
	seeds := 12
	ops := 400
	if testing.Short() {
		seeds, ops = 3, 200
	}
	for _, e := range mmEngines() {
		t.Run(e.name, func(t *testing.T) {
			var st mmStats
			for seed := int64(1); seed <= int64(seeds); seed++ {
				runMetamorphic(t, e, seed, ops, &st)
			}
			t.Logf("%+v", st)
			// The full run must have exercised what it claims to test.
			if testing.Short() {
				return
			}
			if st.Rewritten == 0 || st.Upgraded == 0 || st.Restarts == 0 || st.Commits == 0 {
				t.Errorf("too little coverage: %+v", st)
			}
			if e.changelogComplete != "" && st.ChangelogChecks == 0 {
				t.Errorf("changelog never checked: %+v", st)
			}
			if strings.Contains(e.name, "-dv") && (st.DVReads == 0 || st.DVIndexes == 0) {
				t.Errorf("deletion vectors never exercised: %+v", st)
			}
		})
	}
}

// mmStats counts what a metamorphic run exercised.
type mmStats struct {
	Commits, Restarts, Rewritten, Upgraded, ChangelogRecords, ChangelogChecks, ReadChecks int
	// DVReads counts reads checked as a deletion-vector reader reads;
	// DVIndexes the deletion vector index files committed.
	DVReads, DVIndexes int
}

type mmRun struct {
	t      *testing.T
	e      mmEngine
	seed   int64
	spec   *Spec
	store  *MemStore
	w      *Writer
	spill  Spiller
	cl     map[int32]string // changelog applied to a map
	events []string
	st     *mmStats
	// dvs is the writer's deletion vector maintainer (deletion vector
	// tables); committedDVs the vectors of the last committed index file.
	dvs          *memDVs
	committedDVs map[string]map[int64]bool
}

func runMetamorphic(t *testing.T, e mmEngine, seed int64, ops int, st *mmStats) {
	r := rand.New(rand.NewSource(seed))
	opts := map[string]string{
		"num-sorted-run.compaction-trigger": fmt.Sprint(2 + r.Intn(4)),
		"write-buffer-size":                 fmt.Sprintf("%d b", 1000+r.Intn(3000)),
		"target-file-size":                  fmt.Sprintf("%d b", 600+r.Intn(2000)),
		// Merges of more runs than this spill the smallest (spillMerge).
		"sort-spill-threshold": fmt.Sprint(2 + r.Intn(4)),
		"spill-compression":    []string{"zstd", "none"}[r.Intn(2)],
	}
	for k, v := range e.opts {
		opts[k] = v
	}
	spec, err := newSpec(mmNames, mmTypes, []string{"id"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := &mmRun{t: t, e: e, seed: seed, spec: spec, store: NewMemStore(spec.Key, spec.TargetFileSize), cl: map[int32]string{}, st: st}
	switch r.Intn(3) {
	case 0:
		m.spill = &MemSpiller{}
	case 1:
		m.spill = NewDiskSpiller(spec, t.TempDir())
	}
	m.restart(nil)
	defer func() { m.w.Close() }()
	model := e.model()
	committed := model.clone()
	var committedFiles []*FileMeta
	for i := 0; i < ops; i++ {
		switch c := r.Intn(100); {
		case c < 85:
			for _, rec := range model.op(r) {
				m.events = append(m.events, fmt.Sprintf("%s %s", rec[0], fmtRow(rec[1].([]any))))
				if err := m.w.Write(rec[0].(sql.RowKind), rec[1].([]any)); err != nil {
					m.fatalf("write: %v", err)
				}
			}
		case c < 93:
			wait := r.Intn(3) > 0
			m.commit(wait, false)
			committed, committedFiles = model.clone(), m.w.Levels().AllFiles()
			m.checkRead(model)
			if wait && e.changelogComplete == "commit" && (spec.NeedLookup || spec.Producer == coreoptions.ProducerInput) {
				m.checkChangelog(model)
			}
		case c < 96:
			m.commit(true, true)
			committed, committedFiles = model.clone(), m.w.Levels().AllFiles()
			m.checkRead(model)
			if e.changelogComplete != "" {
				m.checkChangelog(model)
			}
		default:
			// Restart from the last commit: uncommitted writes are lost.
			m.events = append(m.events, "restart")
			m.st.Restarts++
			if err := m.w.Close(); err != nil {
				m.fatalf("close: %v", err)
			}
			m.restart(committedFiles)
			model = committed.clone()
			m.checkRead(model)
		}
	}
	m.commit(true, true)
	m.checkRead(model)
	if e.changelogComplete != "" {
		m.checkChangelog(model)
	}
}

func (m *mmRun) fatalf(format string, args ...any) {
	m.t.Helper()
	tail := m.events
	if len(tail) > 30 {
		tail = tail[len(tail)-30:]
	}
	m.t.Fatalf("seed %d: %s\nlast events:\n%s\nlevels:\n%s", m.seed, fmt.Sprintf(format, args...), strings.Join(tail, "\n"), m.w.Levels())
}

func (m *mmRun) restart(files []*FileMeta) {
	opts := WriterOptions{Spiller: m.spill}
	if m.spec.DeletionVectors {
		m.dvs = newMemDVs(m.committedDVs)
		opts.DeletionVectors = m.dvs
	}
	if m.e.disk {
		dir := m.t.TempDir()
		opts.NewLookup = func(levels *Levels) (LookupLevels, error) {
			d, err := NewDiskLookup(dir, levels, m.store, m.spec.Key)
			if err != nil {
				return nil, err
			}
			d.BlockSize, d.MaxMemoryBytes, d.MaxDiskBytes = 200, 3000, 6000
			return d, nil
		}
	}
	w, err := NewWriter(m.spec, m.store, files, opts)
	if err != nil {
		m.t.Fatal(err)
	}
	m.w = w
}

func (m *mmRun) commit(wait, full bool) {
	m.events = append(m.events, fmt.Sprintf("commit wait=%v full=%v", wait, full))
	if full {
		if err := m.w.Compact(true); err != nil {
			m.fatalf("full compaction: %v", err)
		}
	}
	inc, err := m.w.PrepareCommit(wait)
	if err != nil {
		m.fatalf("prepare commit: %v", err)
	}
	m.st.Commits++
	if inc.DeletionIndex != nil {
		idx := inc.DeletionIndex.(*memIndex)
		if idx.discarded {
			m.fatalf("commit carries a discarded deletion vector index")
		}
		m.committedDVs = idx.vecs
		m.st.DVIndexes++
	}
	before := map[string]bool{}
	for _, f := range inc.CompactBefore {
		before[f.Name] = true
	}
	for _, f := range inc.CompactAfter {
		if before[f.Name] {
			m.st.Upgraded++
		} else {
			m.st.Rewritten++
		}
	}
	for _, group := range [][]*FileMeta{inc.NewChangelog, inc.CompactChangelog} {
		for _, f := range group {
			for _, r := range m.store.Records(f.Name) {
				m.st.ChangelogRecords++
				k := r.Key[0].(int32)
				if r.Kind.IsAdd() {
					m.cl[k] = fmtRow(r.Value)
				} else {
					delete(m.cl, k)
				}
			}
		}
	}
}

func (m *mmRun) checkRead(model mmModel) {
	m.t.Helper()
	if m.spec.DeletionVectors && m.w.CompactManager().Running() {
		// The running compaction marks deletion vectors of rows whose new
		// versions are not in the levels until it is collected.
		return
	}
	m.st.ReadChecks++
	recs, err := Collect(m.w.NewReader())
	if err != nil {
		m.fatalf("read: %v", err)
	}
	got := map[int32]string{}
	var prev []any
	for _, r := range recs {
		if prev != nil && m.spec.Key.Compare(prev, r.Key) >= 0 {
			m.fatalf("read not sorted by key: %v then %v", prev, r.Key)
		}
		prev = r.Key
		got[r.Key[0].(int32)] = fmtRow(r.Value)
	}
	if d := diffMaps(model.rows(), got); d != "" {
		m.fatalf("read differs from model (want/got):\n%s", d)
	}
	if m.spec.DeletionVectors && len(m.w.Levels().Level0()) == 0 {
		m.st.DVReads++
		got, err := dvRead(m.store, m.w.Levels(), m.dvs)
		if err != nil {
			m.fatalf("deletion vector read: %v", err)
		}
		if d := diffMaps(model.rows(), got); d != "" {
			m.fatalf("deletion vector read differs from model (want/got):\n%s", d)
		}
	}
}

func (m *mmRun) checkChangelog(model mmModel) {
	m.t.Helper()
	m.st.ChangelogChecks++
	if d := diffMaps(model.rows(), m.cl); d != "" {
		m.fatalf("changelog applied to an empty map differs from the table (want/got):\n%s", d)
	}
}

func diffMaps(want, got map[int32]string) string {
	var keys []int
	seen := map[int32]bool{}
	for k := range want {
		seen[k] = true
	}
	for k := range got {
		seen[k] = true
	}
	for k := range seen {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	var b strings.Builder
	for _, k := range keys {
		w, g := want[int32(k)], got[int32(k)]
		if w != g {
			fmt.Fprintf(&b, "  key %d: %q / %q\n", k, w, g)
		}
	}
	return b.String()
}
