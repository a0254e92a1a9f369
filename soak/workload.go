package soak

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"sort"
	"strings"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// order is one row of the soak's orders table.
type order struct {
	amount decimal.Decimal
	status string
}

var statuses = []string{"CREATED", "PAID", "SHIPPED", "DONE", "REFUNDED"}

// ordersSchema is the seed's orders table.
func ordersSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.BigInt()},
		{Name: "amount", Type: sql.Decimal(10, 2)},
		{Name: "status", Type: sql.String()},
	}, PrimaryKey: []string{"id"}}
}

// line is the canonical text of one row, the same for Paimon and MariaDB
// (MariaDB's CONCAT_WS(',', id, amount, status) of DECIMAL(10,2) prints two
// decimals), so counts, checksums and row diffs compare across systems.
func line(id int64, o order) string {
	return fmt.Sprintf("%d,%s,%s", id, o.amount.StringFixed(2), o.status)
}

// checksum is SUM(CRC32(line)) over the rows, as MariaDB computes it.
func checksum(lines []string) uint64 {
	var s uint64
	for _, l := range lines {
		s += uint64(crc32.ChecksumIEEE([]byte(l)))
	}
	return s
}

// writer is one committing writer of the source table, with its own commit
// user and identifiers, and the model of the keys it owns. The main writer
// owns keys [1, keys]; the conflicting second writer owns a disjoint range
// above it, so the two never race on one key (Paimon allows one writer per
// key: their sequence numbers are not ordered with each other) but do race
// on the same bucket's files when both compact.
type writer struct {
	tbl    *table.Table
	user   string
	lo, hi int64 // owned key range [lo, hi]
	skewed bool
	rng    *rand.Rand
	zipf   *rand.Zipf

	mu     sync.Mutex
	nextID int64 // next commit identifier
	model  map[int64]order
	ops    int64 // rows written
}

func newWriter(tbl *table.Table, user string, lo, hi int64, skewed bool, seed int64) *writer {
	rng := rand.New(rand.NewSource(seed))
	w := &writer{tbl: tbl, user: user, lo: lo, hi: hi, skewed: skewed, rng: rng,
		nextID: 1, model: map[int64]order{}}
	if hi > lo {
		w.zipf = rand.NewZipf(rng, 1.2, 4, uint64(hi-lo))
	}
	return w
}

// key picks a key: uniform over the range, or Zipf-skewed towards a few hot
// keys (scattered over the range so hot keys are not all neighbours).
func (w *writer) key() int64 {
	n := w.hi - w.lo + 1
	if !w.skewed || w.zipf == nil {
		return w.lo + w.rng.Int63n(n)
	}
	z := int64(w.zipf.Uint64())
	return w.lo + (z*7919)%n
}

// ops draws a batch of random changes: an absent key is inserted, a
// present one updated (+U, sometimes as -U/+U) or deleted. Several changes
// of one key in a batch are common under skew.
func (w *writer) batch(n int) []sql.Row {
	pending := map[int64]*order{}
	present := func(k int64) (order, bool) {
		if p, ok := pending[k]; ok {
			if p == nil {
				return order{}, false
			}
			return *p, true
		}
		o, ok := w.model[k]
		return o, ok
	}
	var rows []sql.Row
	for i := 0; i < n; i++ {
		k := w.key()
		old, ok := present(k)
		nw := order{amount: decimal.New(w.rng.Int63n(10_000_000), -2), status: statuses[w.rng.Intn(len(statuses))]}
		switch {
		case !ok:
			rows = append(rows, sql.Row{Kind: sql.Insert, Values: []any{k, nw.amount, nw.status}})
			pending[k] = &nw
		case w.rng.Intn(10) < 3:
			rows = append(rows, sql.Row{Kind: sql.Delete, Values: []any{k, old.amount, old.status}})
			pending[k] = nil
		default:
			if w.rng.Intn(4) == 0 {
				rows = append(rows, sql.Row{Kind: sql.UpdateBefore, Values: []any{k, old.amount, old.status}})
			}
			rows = append(rows, sql.Row{Kind: sql.UpdateAfter, Values: []any{k, nw.amount, nw.status}})
			pending[k] = &nw
		}
	}
	return rows
}

// apply folds committed rows into the model.
func (w *writer) apply(rows []sql.Row) {
	for _, r := range rows {
		k := r.Values[0].(int64)
		switch r.Kind {
		case sql.Insert, sql.UpdateAfter:
			w.model[k] = order{amount: r.Values[1].(decimal.Decimal), status: r.Values[2].(string)}
		case sql.Delete:
			delete(w.model, k)
		}
	}
	w.ops += int64(len(rows))
}

// prepare writes rows through a fresh TableWrite (restored from the latest
// snapshot, so another writer's compaction never leaves it stale) and
// returns the commit messages; full also runs a full compaction.
func (w *writer) prepare(rows []sql.Row, full bool) ([]table.CommitMessage, error) {
	// A fresh temp dir per TableWrite (removed on Close): two writers
	// must not share lookup files.
	tw, err := w.tbl.NewWrite(table.WriteOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: new write: %w", w.user, err)
	}
	defer tw.Close()
	for _, r := range rows {
		if err := tw.Write(r); err != nil {
			return nil, fmt.Errorf("%s: write: %w", w.user, err)
		}
	}
	if full {
		if err := tw.Compact(true, nil); err != nil {
			return nil, fmt.Errorf("%s: full compaction: %w", w.user, err)
		}
	}
	msgs, err := tw.PrepareCommit(true)
	if err != nil {
		return nil, fmt.Errorf("%s: prepare commit: %w", w.user, err)
	}
	return msgs, nil
}

// commit commits msgs under the writer's next identifier.
func (w *writer) commit(msgs []table.CommitMessage) error {
	if err := w.tbl.NewCommit(w.user).Commit(w.nextID, msgs, nil); err != nil {
		return fmt.Errorf("%s: commit %d: %w", w.user, w.nextID, err)
	}
	return nil
}

// step writes and commits one random batch, retrying a conflicting commit
// from a fresh writer. It returns how many conflicts it met.
func (w *writer) step(n int, full bool) (conflicts int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rows := w.batch(n)
	for attempt := 0; ; attempt++ {
		msgs, err := w.prepare(rows, full)
		if err != nil {
			return conflicts, err
		}
		err = w.commit(msgs)
		if err == nil {
			break
		}
		if !errors.Is(err, table.ErrCommitConflict) || attempt >= 20 {
			return conflicts, err
		}
		conflicts++
		// The APPEND snapshot (the batch's rows) may have landed before the
		// COMPACT one conflicted: then the rows are in and only this
		// compaction is lost, which a later one redoes. Rewriting the batch
		// would compact files the skipped APPEND never added.
		last, ok, lerr := w.tbl.NewCommit(w.user).LatestCommitted()
		if lerr != nil {
			return conflicts, fmt.Errorf("%s: after a conflict: %w", w.user, lerr)
		}
		if ok && last == w.nextID {
			break
		}
	}
	w.nextID++
	w.apply(rows)
	return conflicts, nil
}

// modelLines is the writer's model as canonical lines.
func (w *writer) modelLines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.model))
	for k, o := range w.model {
		out = append(out, line(k, o))
	}
	return out
}

// paimonLines reads the table's latest snapshot (merge-on-read) as
// canonical lines, sorted by id.
func paimonLines(path string) ([]string, error) {
	tbl, err := table.Open(fs.NewLocal(), path, nil)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s, err := tbl.ResolveSnapshot()
	if err != nil {
		return nil, fmt.Errorf("latest snapshot of %s: %w", path, err)
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	var out []string
	for _, sp := range splits {
		r, err := tbl.NewSplitReader(sp, table.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			st, _ := row.Values[2].(string)
			out = append(out, line(row.Values[0].(int64), order{amount: row.Values[1].(decimal.Decimal), status: st}))
		}
		if err := r.Error(); err != nil {
			r.Close()
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if err := r.Close(); err != nil {
			return nil, fmt.Errorf("close reader of %s: %w", path, err)
		}
	}
	sortByID(out)
	return out, nil
}

func idOf(l string) int64 {
	var id int64
	fmt.Sscanf(l, "%d,", &id)
	return id
}

func sortByID(l []string) {
	sort.Slice(l, func(i, j int) bool { return idOf(l[i]) < idOf(l[j]) })
}

// diff describes how got differs from want, by id: rows missing from got
// (lost), rows only in got (orphans or duplicates), rows with other values.
func diff(want, got []string) string {
	w := map[int64]string{}
	for _, l := range want {
		w[idOf(l)] = l
	}
	g := map[int64]string{}
	var dup []string
	for _, l := range got {
		if _, ok := g[idOf(l)]; ok {
			dup = append(dup, l)
		}
		g[idOf(l)] = l
	}
	var lost, extra, changed []string
	for id, l := range w {
		gl, ok := g[id]
		switch {
		case !ok:
			lost = append(lost, l)
		case gl != l:
			changed = append(changed, l+" ≠ "+gl)
		}
	}
	for id, l := range g {
		if _, ok := w[id]; !ok {
			extra = append(extra, l)
		}
	}
	if len(lost)+len(extra)+len(changed)+len(dup) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows expected, %d present: %d lost, %d extra, %d changed, %d duplicated",
		len(want), len(got), len(lost), len(extra), len(changed), len(dup))
	show := func(name string, l []string) {
		sortByID(l)
		if len(l) > 8 {
			l = l[:8]
		}
		for _, x := range l {
			fmt.Fprintf(&b, "\n  %s: %s", name, x)
		}
	}
	show("lost", lost)
	show("extra", extra)
	show("changed (want ≠ got)", changed)
	show("duplicated", dup)
	return b.String()
}
