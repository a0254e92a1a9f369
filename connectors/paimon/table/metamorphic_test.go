package table

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// The table-level metamorphic test drives a partitioned, 2-bucket table
// through TableWrite and Commit with random upserts/deletes, random commit
// points, restarts (the TableWrite is closed without committing and a new
// one restores from the latest snapshot, as after a failover), normal and
// full compactions through TableWrite.Compact, and checks after each commit
// that a batch read equals a map model of the merge engine. For changelog
// producers it also replays every changelog file a streaming reader would
// see (PlanChangelog + ReadKV) into a map, which must equal the table
// whenever the changelog is complete.

type tmEngine struct {
	name string
	opts map[string]string
	// op makes one random row change; apply folds it into the model.
	op    func(r *rand.Rand) sql.Row
	apply func(m map[string][]any, row sql.Row)
	// changelog: "" none, "commit" complete after each commit, "full"
	// complete after each full compaction.
	changelog string
}

var tmTypes = []sql.DataType{sql.Int().NotNull(), sql.String().NotNull(), sql.BigInt(), sql.String()}

func tmSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{{Name: "k", Type: tmTypes[0]}, {Name: "p", Type: tmTypes[1]},
		{Name: "v", Type: tmTypes[2]}, {Name: "s", Type: tmTypes[3]}}, PrimaryKey: []string{"k", "p"}}
}

func tmKey(v []any) string { return fmt.Sprintf("%v/%v", v[0], v[1]) }

func randRow(r *rand.Rand, kind sql.RowKind, nulls bool) sql.Row {
	var v, s any = int64(r.Intn(1000)), fmt.Sprintf("s%d", r.Intn(100))
	if nulls && r.Intn(3) == 0 {
		v = nil
	}
	if nulls && r.Intn(3) == 0 {
		s = nil
	}
	return sql.Row{Kind: kind, Values: []any{int32(r.Intn(30)), []string{"a", "b"}[r.Intn(2)], v, s}}
}

func dedupOp(r *rand.Rand) sql.Row {
	switch r.Intn(6) {
	case 0:
		return randRow(r, sql.Delete, false)
	case 1:
		return randRow(r, sql.UpdateAfter, true)
	}
	return randRow(r, sql.Insert, true)
}

func dedupApply(m map[string][]any, row sql.Row) {
	if row.Kind.IsRetract() {
		delete(m, tmKey(row.Values))
	} else {
		m[tmKey(row.Values)] = row.Values
	}
}

func tmEngines() []tmEngine {
	dedup := func(name string, opts map[string]string, cl string) tmEngine {
		return tmEngine{name: name, opts: opts, op: dedupOp, apply: dedupApply, changelog: cl}
	}
	return []tmEngine{
		dedup("deduplicate", map[string]string{}, ""),
		dedup("input", map[string]string{"changelog-producer": "input"}, "commit"),
		dedup("lookup", map[string]string{"changelog-producer": "lookup"}, "commit"),
		dedup("lookup-nowait", map[string]string{"changelog-producer": "lookup", "changelog-producer.lookup-wait": "false"}, "full"),
		dedup("full-compaction", map[string]string{"changelog-producer": "full-compaction"}, "full"),
		dedup("write-only", map[string]string{"write-only": "true", "num-sorted-run.stop-trigger": "1000"}, ""),
		{name: "first-row", opts: map[string]string{"merge-engine": "first-row"},
			op: func(r *rand.Rand) sql.Row { return randRow(r, sql.Insert, true) },
			apply: func(m map[string][]any, row sql.Row) {
				if _, ok := m[tmKey(row.Values)]; !ok {
					m[tmKey(row.Values)] = row.Values
				}
			}},
		{name: "partial-update", opts: map[string]string{"merge-engine": "partial-update"},
			op: func(r *rand.Rand) sql.Row { return randRow(r, sql.Insert, true) },
			apply: func(m map[string][]any, row sql.Row) {
				cur, ok := m[tmKey(row.Values)]
				if !ok {
					m[tmKey(row.Values)] = row.Values
					return
				}
				next := append([]any(nil), cur...)
				for i, v := range row.Values {
					if v != nil {
						next[i] = v
					}
				}
				m[tmKey(row.Values)] = next
			}},
		{name: "aggregation", opts: map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
			op: func(r *rand.Rand) sql.Row { return randRow(r, sql.Insert, true) },
			apply: func(m map[string][]any, row sql.Row) {
				cur, ok := m[tmKey(row.Values)]
				if !ok {
					m[tmKey(row.Values)] = row.Values
					return
				}
				next := append([]any(nil), cur...)
				if v := row.Values[2]; v != nil {
					if next[2] == nil {
						next[2] = v
					} else {
						next[2] = next[2].(int64) + v.(int64)
					}
				}
				if s := row.Values[3]; s != nil {
					next[3] = s
				}
				m[tmKey(row.Values)] = next
			}},
	}
}

func modelRows(m map[string][]any) string {
	var out []string
	for _, v := range m {
		out = append(out, sql.FormatRow(sql.Row{Values: v}, tmTypes))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestMetamorphic(t *testing.T) {
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for _, e := range tmEngines() {
		for seed := 1; seed <= seeds; seed++ {
			// The same workload (same seed) into a fixed-bucket table, a
			// dynamic-bucket one (bucket = -1, a new bucket every 7 keys
			// per partition) and both with deletion vectors (where Paimon
			// allows them: SchemaValidation.validateForDeletionVectors):
			// all must equal the model, and the input producer's changelog
			// must be the same per key. (The lookup producer's changelog
			// is checked against the model after each commit: how many
			// versions of a key it shows within a commit depends on when
			// the background compactions ran.)
			//
			// "postpone" is the same workload into a 'bucket' = -2 table
			// written as a streaming job writes it (bucket-postpone files,
			// PostponeBucketWriter) and compacted only by the postpone
			// compaction (CompactAction.buildForPostponeBucketCompaction)
			// at the compaction steps: after each, the table and the
			// changelog equal the model, and the input producer's
			// changelog per key is the fixed table's (the compaction
			// replays each partition's rows in their order).
			//
			// "cross" is the same workload into a table whose primary key
			// is k alone (cross-partition upserts, KEY_DYNAMIC): a key
			// moving to the other partition leaves the old one as the
			// engine's ExistingProcessor says; its model is crossApply. Its
			// input changelog is compared with its deletion-vector twin.
			modes := []string{"fixed", "dynamic"}
			if dvAllowed(e) && seed <= 2 {
				modes = append(modes, "fixed-dv", "dynamic-dv")
			}
			if postponeAllowed(e) {
				modes = append(modes, "postpone")
			}
			nSame := len(modes)
			if seed <= 2 {
				modes = append(modes, "cross")
				if dvAllowed(e) && seed == 1 {
					modes = append(modes, "cross-dv")
				}
			}
			logs := make([]map[string][]string, len(modes))
			for i, mode := range modes {
				t.Run(fmt.Sprintf("%s/%s/%d", e.name, mode, seed), func(t *testing.T) {
					logs[i] = runMetamorphic(t, e, int64(seed), tmMode{dynamic: mode == "dynamic" || mode == "dynamic-dv" || strings.HasPrefix(mode, "cross"),
						dvs: strings.HasSuffix(mode, "-dv"), cross: strings.HasPrefix(mode, "cross"), postpone: mode == "postpone"})
				})
			}
			if e.name == "input" {
				for i := 1; i < len(modes); i++ {
					j := 0
					if i >= nSame {
						j = nSame // cross-dv against cross
					}
					if i != j && logs[j] != nil && logs[i] != nil && fmt.Sprint(logs[j]) != fmt.Sprint(logs[i]) {
						t.Errorf("%s/%d: the changelog per key differs between %s and %s:\n%s: %v\n%s: %v", e.name, seed, modes[j], modes[i], modes[j], logs[j], modes[i], logs[i])
					}
				}
			}
		}
	}
}

// checkDynamicIndex checks a dynamic-bucket table's latest snapshot: each
// key lives in one bucket, and that bucket's HASH index file holds its
// hash.
func checkDynamicIndex(t *testing.T, tbl *Table) {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil || s == nil {
		t.Fatal(err)
	}
	es, err := tbl.indexEntries(s, "HASH")
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]map[int32]bool{}
	for _, e := range es {
		hs, err := tbl.readHashIndex(e)
		if err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("%x/%d", e.Partition, e.Bucket)
		if idx[k] != nil {
			t.Fatalf("two hash index files for %s", k)
		}
		idx[k] = map[int32]bool{}
		for _, h := range hs {
			idx[k][h] = true
		}
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{}
	for _, sp := range splits {
		k := fmt.Sprintf("%x/%d", sp.Partition, sp.Bucket)
		it, err := tbl.ReadKV(sp)
		if err != nil {
			t.Fatal(err)
		}
		for kv := it.Next(); kv != nil; kv = it.Next() {
			key := tmKey(kv.Value)
			if w, ok := where[key]; ok && w != k {
				t.Fatalf("key %s in %s and %s", key, w, k)
			}
			where[key] = k
			h, _, err := tbl.keyHash(kv.Value, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !idx[k][h] {
				t.Fatalf("key %s of %s is not in its hash index", key, k)
			}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// dvAllowed reports the engines Paimon allows deletion vectors on (not
// first-row, not the full-compaction producer); write-only tables are left
// out: nothing leaves level 0, so batch reads see nothing.
func dvAllowed(e tmEngine) bool {
	return e.opts["merge-engine"] != "first-row" && e.opts["changelog-producer"] != "full-compaction" && e.opts["write-only"] == ""
}

// postponeAllowed reports the engines the postpone variant runs: not the
// full-compaction producer, whose changelog only a full compaction makes
// (the postpone compaction is none), nor those whose reads lag behind
// commits (lookup-nowait) or never leave level 0 (write-only).
func postponeAllowed(e tmEngine) bool {
	return e.changelog != "full" && e.opts["write-only"] == ""
}

// tmMode is a table layout of the metamorphic test.
type tmMode struct {
	// dynamic: no 'bucket' (dynamic bucket mode); cross: primary key k
	// alone (with dynamic: KEY_DYNAMIC); dvs: deletion vectors; postpone:
	// 'bucket' = -2, written as a streaming job writes it (into
	// bucket-postpone) and compacted by CALL sys.compact's postpone
	// compaction only.
	dynamic, cross, dvs, postpone bool
}

// crossApply is the model of a cross-partition table (primary key k): a
// row for a key living in the other partition first goes through the
// engine's ExistingProcessor (GlobalIndexAssigner.processInput):
// deduplicate deletes it there (DeleteExistingProcessor), partial-update
// and aggregation apply the row there (UseOldExistingProcessor), first-row
// drops the row (SkipNewExistingProcessor).
func crossApply(e tmEngine, m map[string][]any, row sql.Row) {
	for key, v := range m {
		if v[0] != row.Values[0] || v[1] == row.Values[1] {
			continue
		}
		switch e.opts["merge-engine"] {
		case "first-row":
			return
		case "partial-update", "aggregation":
			moved := append([]any(nil), row.Values...)
			moved[1] = v[1]
			row = sql.Row{Kind: row.Kind, Values: moved}
		default:
			delete(m, key)
		}
	}
	e.apply(m, row)
}

func runMetamorphic(t *testing.T, e tmEngine, seed int64, mode tmMode) map[string][]string {
	dynamic, dvs := mode.dynamic && !mode.cross, mode.dvs
	r := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	opts := map[string]string{"bucket": "2", "write-buffer-size": "4 kb", "num-sorted-run.compaction-trigger": "3",
		"snapshot.num-retained.min": "3", "snapshot.time-retained": "1 ms"}
	if mode.dynamic {
		delete(opts, "bucket")
		opts["dynamic-bucket.target-row-num"] = "7"
	}
	if mode.postpone {
		opts["bucket"] = "-2"
		opts["postpone.default-bucket-num"] = "2"
	}
	for k, v := range e.opts {
		opts[k] = v
	}
	// Without lookup-wait a deletion-vector table shows a commit's rows
	// once a later compaction moved them out of level 0: reads are checked
	// after full compactions only.
	lagging := false
	if dvs {
		opts["deletion-vectors.enabled"] = "true"
		lagging = e.opts["changelog-producer.lookup-wait"] == "false"
	}
	sch := tmSchema()
	if mode.cross {
		sch.PrimaryKey = []string{"k"}
	}
	tbl, err := Create(fs.NewLocal(), dir, sch, []string{"p"}, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if mode.cross != tbl.KeyDynamic() {
		t.Fatalf("KEY_DYNAMIC %v", tbl.KeyDynamic())
	}
	apply := e.apply
	if mode.cross {
		apply = func(m map[string][]any, row sql.Row) { crossApply(e, m, row) }
	}
	committed := map[string][]any{}
	pending := map[string][]any{}
	copyModel := func(m map[string][]any) map[string][]any {
		c := make(map[string][]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		return c
	}
	stream := map[string][]any{}
	perKey := map[string][]string{}
	var streamNext int64 = 1
	consumer := func() {
		// A streaming reader with a consumer-id keeps its snapshots from
		// expiring: it reads every snapshot's changelog in order.
		latest, ok, err := tbl.Snapshots.LatestID()
		if err != nil || !ok {
			return
		}
		for ; streamNext <= latest; streamNext++ {
			s, err := tbl.Snapshots.Read(streamNext)
			if err != nil {
				t.Fatalf("snapshot %d: %v", streamNext, err)
			}
			splits, err := tbl.PlanChangelog(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range splits {
				it, err := tbl.ReadKV(sp)
				if err != nil {
					t.Fatal(err)
				}
				for kv := it.Next(); kv != nil; kv = it.Next() {
					r := sql.Row{Kind: kv.Kind, Values: kv.Value}
					if mode.cross {
						// A key that left a partition and came back within
						// one commit may be in another bucket of it than
						// before (BucketAssigner gives it a new one): its
						// changes in the two buckets have no order between
						// them, as for Paimon's streaming readers.
						key := fmt.Sprintf("%s#%d", tmKey(kv.Value), sp.Bucket)
						if r.Kind.IsRetract() {
							delete(stream, key)
						} else {
							stream[key] = kv.Value
						}
					} else {
						dedupApply(stream, r)
					}
					perKey[tmKey(kv.Value)] = append(perKey[tmKey(kv.Value)], sql.FormatRow(r, tmTypes))
				}
				if err := it.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := tbl.Snapshots.WriteConsumer("mm", consumerAt(streamNext)); err != nil {
			t.Fatal(err)
		}
	}
	newWrite := func() *TableWrite {
		w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir(), postponeFiles: mode.postpone, commitUser: fmt.Sprintf("user-%d", seed)})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := newWrite()
	defer func() { w.Close() }()
	user := fmt.Sprintf("user-%d", seed)
	var ident int64
	seen := map[string]int{}
	visible := committed // what batch reads show
	compactNow := false  // postpone: compact after this commit
	commit := func(full bool) {
		msgs, err := w.PrepareCommit(r.Intn(2) == 0)
		if err != nil {
			t.Fatal(err)
		}
		ident++
		c := tbl.NewCommit(user)
		c.NoExpire = mode.postpone // as Sink.Commit does
		if err := c.Commit(ident, msgs, nil); err != nil {
			t.Fatal(err)
		}
		if r.Intn(4) == 0 { // a replay of the same identifier is skipped
			if err := c.Commit(ident, msgs, nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range c.LastSnapshots {
			s, err := tbl.Snapshots.Read(id)
			if err != nil {
				t.Fatal(err)
			}
			seen[string(s.CommitKind)]++
			seen["changelog rows"] += int(snapshot.Get(s.ChangelogRecordCount))
		}
		committed = copyModel(pending)
		if mode.postpone {
			// Rows in bucket-postpone are invisible until the
			// compaction replays them into real buckets
			// (DataTableBatchScan.onlyReadRealBuckets).
			if compactNow {
				ids, err := Compact(tbl, CompactOptions{TempDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				for _, id := range ids {
					s, err := tbl.Snapshots.Read(id)
					if err != nil {
						t.Fatal(err)
					}
					seen[string(s.CommitKind)]++
					seen["changelog rows"] += int(snapshot.Get(s.ChangelogRecordCount))
				}
				visible = copyModel(committed)
			}
		} else {
			visible = committed
		}
		if got, want := mustRead(t, tbl), modelRows(visible); got != want && (!lagging || full) {
			t.Fatalf("after commit %d:\n got: %s\nwant: %s", ident, got, want)
		}
		if dvs {
			checkDeletionVectors(t, tbl)
		}
		if dynamic {
			checkDynamicIndex(t, tbl)
		}
		if mode.cross {
			noHashIndex(t, tbl)
		}
		if e.changelog != "" {
			consumer()
			if e.changelog == "commit" || (e.changelog == "full" && full) {
				if got, want := modelRows(stream), modelRows(visible); got != want {
					t.Fatalf("changelog after commit %d:\n got: %s\nwant: %s", ident, got, want)
				}
			}
		}
	}
	for step := 0; step < 60; step++ {
		switch x := r.Intn(20); {
		case x < 14:
			for i := r.Intn(40); i >= 0; i-- {
				row := e.op(r)
				if err := w.Write(row); err != nil {
					t.Fatal(err)
				}
				apply(pending, row)
			}
		case x < 17:
			commit(false)
		case x < 18:
			// failover: uncommitted changes are lost
			w.Close()
			pending = copyModel(committed)
			tbl, err = Open(fs.NewLocal(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			w = newWrite()
		default:
			full := r.Intn(2) == 0
			if mode.postpone {
				compactNow = true
				commit(full)
				compactNow = false
				continue
			}
			if err := w.Compact(full, nil); err != nil {
				t.Fatal(err)
			}
			commit(full)
		}
	}
	if mode.postpone {
		compactNow = true
	} else if err := w.Compact(true, nil); err != nil {
		t.Fatal(err)
	}
	commit(true)
	if e.changelog != "" {
		if got, want := modelRows(stream), modelRows(committed); got != want {
			t.Fatalf("final changelog:\n got: %s\nwant: %s", got, want)
		}
	}
	ids, _ := tbl.Snapshots.ListIDs()
	kinds := map[string]int{}
	for _, id := range ids {
		if s, err := tbl.Snapshots.Read(id); err == nil {
			kinds[string(s.CommitKind)]++
			if s.ChangelogManifestList != nil {
				kinds["changelog"]++
			}
		}
	}
	t.Logf("%d commits, retained %v: %v; created %v; %d rows", ident, ids, kinds, seen, len(committed))
	if seen["COMPACT"] == 0 || seen["APPEND"] == 0 || (e.changelog != "" && seen["changelog rows"] == 0) {
		t.Fatalf("weak run: %v", seen)
	}
	if dvs && dvSeen[tbl.Root] == 0 {
		t.Fatalf("weak run: no deletion vector was ever committed")
	}
	switch {
	case e.opts["write-only"] == "true":
		// Write-only commits expire nothing (AbstractFileStoreTable.newCommit).
		// A postpone bucket table's writes expire nothing either
		// (PrimaryKeyFileStoreTable.newExpireRunnable), but its
		// compactions commit through the table with a real bucket
		// number (CompactAction) and do.
		if len(ids) == 0 || ids[0] != 1 {
			t.Fatalf("a write-only table's commits expired snapshots: %v", ids)
		}
	case e.changelog == "" && len(ids) > 4:
		t.Fatalf("expiration kept %d snapshots: %v", len(ids), ids)
	}
	if mode.dynamic {
		s, _ := tbl.Snapshots.Latest()
		splits, _ := tbl.PlanFull(s, nil)
		if len(splits) < 4 {
			t.Fatalf("weak run: %d buckets in use", len(splits))
		}
	}
	return perKey
}

func consumerAt(next int64) snapshot.Consumer { return snapshot.Consumer{NextSnapshot: next} }

// dvSeen counts, per table root, the data files with a committed deletion
// vector that checkDeletionVectors saw.
var dvSeen = map[string]int{}

// checkDeletionVectors reads a deletion-vector table's latest snapshot as
// Paimon's readers do (DataTableBatchScan: level 0 skipped; the other files
// read raw, without merging, minus the rows their vectors mark) and checks
// that it shows each key at most once and no retraction, equal to the
// merged read when no level-0 file is left; that each bucket has one DELETION_VECTORS index file at
// most; and that vectors belong to live files above level 0.
func checkDeletionVectors(t *testing.T, tbl *Table) {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if s == nil {
		return
	}
	es, err := tbl.indexEntries(s, "DELETION_VECTORS")
	if err != nil {
		t.Fatal(err)
	}
	perBucket := map[string]bool{}
	for _, e := range es {
		k := fmt.Sprintf("%x/%d", e.Partition, e.Bucket)
		if perBucket[k] {
			t.Fatalf("two deletion vector index files for bucket %s", k)
		}
		perBucket[k] = true
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]int32{}
	level0 := false
	var rows []string
	seen := map[string]bool{}
	for _, sp := range splits {
		pp, err := tbl.PartitionPath(sp.Partition)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sp.Files {
			live[f.FileName] = f.Level
			if f.Level == 0 {
				level0 = true
				continue
			}
			vec, err := tbl.deletionVector(sp.DeletionFiles, f.FileName)
			if err != nil {
				t.Fatal(err)
			}
			if vec != nil {
				dvSeen[tbl.Root]++
			}
			var del format.DeletionVector
			if vec != nil {
				del = vec
			}
			it, err := tbl.openKV(format.BucketDir(tbl.Root, pp, sp.Bucket), f, int(f.Level), del)
			if err != nil {
				t.Fatal(err)
			}
			for kv := it.Next(); kv != nil; kv = it.Next() {
				if !kv.Kind.IsAdd() {
					t.Fatalf("retraction %s visible in %s at level %d", sql.FormatRow(sql.Row{Kind: kv.Kind, Values: kv.Value}, tbl.Spec.FieldTypes), f.FileName, f.Level)
				}
				k := fmt.Sprintf("%x/%v", sp.Partition, kv.Key)
				if seen[k] {
					t.Fatalf("key %s visible twice (again in %s at level %d)", k, f.FileName, f.Level)
				}
				seen[k] = true
				rows = append(rows, sql.FormatRow(sql.Row{Values: kv.Value}, tbl.Spec.FieldTypes))
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, e := range es {
		for _, r := range e.DVRanges {
			if lv, ok := live[r.DataFile]; !ok || lv == 0 {
				t.Fatalf("deletion vector of %s, which is not a live file above level 0 (level %d, live %v)", r.DataFile, lv, ok)
			}
		}
	}
	sort.Strings(rows)
	if got, want := strings.Join(rows, "\n"), mustRead(t, tbl); got != want && !level0 {
		t.Fatalf("deletion vector read without merging:\n got: %s\nwant: %s", got, want)
	}
}
