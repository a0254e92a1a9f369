package mergetree

import (
	"errors"
	"fmt"
)

// MergeFunction merges the versions of one key (Paimon's MergeFunction):
// Reset, then Add every version oldest first (SeqOrder), then Result. Result
// returns a new record (never one that was added and modified), or nil when
// no version survives (deduplicate with ignore-delete given only
// retractions). A record whose Kind is a retraction means "the key is gone";
// readers drop it, level 0 files keep it.
type MergeFunction interface {
	Reset()
	Add(r *KV) error
	Result() (*KV, error)
}

// MergeFactory creates merge functions; stateful ones are not shared.
type MergeFactory func() MergeFunction

// ErrUnsupportedRecord is wrapped by errors about records a merge engine
// refuses (deletes in first-row or partial-update without the options that
// allow them, retractions of aggregates that cannot retract). Paimon raises
// these as IllegalArgumentException / UnsupportedOperationException.
var ErrUnsupportedRecord = errors.New("unsupported record")

// deduplicate keeps the newest version (DeduplicateMergeFunction). A -U/-D
// winner stays a retraction, so the key reads as absent; with ignore-delete
// retractions are skipped.
type deduplicate struct {
	ignoreDelete bool
	latest       *KV
}

func (d *deduplicate) Reset() { d.latest = nil }

func (d *deduplicate) Add(r *KV) error {
	if d.ignoreDelete && r.Kind.IsRetract() {
		return nil
	}
	d.latest = r
	return nil
}

func (d *deduplicate) Result() (*KV, error) { return d.latest, nil }

// firstRow keeps the oldest +I/+U (FirstRowMergeFunction). Retractions are
// refused unless ignore-delete is set, in which case they are skipped.
// containsHighLevel records whether a version came from a level above 0: the
// first-row changelog wrapper uses it to know the key already existed.
type firstRow struct {
	ignoreDelete      bool
	first             *KV
	containsHighLevel bool
}

const firstRowDeleteMsg = "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE records.\n" +
	"You can config 'ignore-delete' to ignore the DELETE/UPDATE_BEFORE records."

func (f *firstRow) Reset() { f.first, f.containsHighLevel = nil, false }

func (f *firstRow) Add(r *KV) error {
	if r.Kind.IsRetract() {
		if f.ignoreDelete {
			return nil
		}
		return fmt.Errorf("%w: %s", ErrUnsupportedRecord, firstRowDeleteMsg)
	}
	if f.first == nil {
		f.first = r
	}
	if r.Level > 0 {
		f.containsHighLevel = true
	}
	return nil
}

func (f *firstRow) Result() (*KV, error) { return f.first, nil }

// lookupMerge is Paimon's LookupMergeFunction, used for reads and
// compactions of tables with the lookup changelog producer (and other
// lookup-based modes). There, every record above level 0 already holds the
// fully merged value of its key (lookup compaction merged it with the older
// value it looked up), so merging must use only the newest high-level
// record, the one at the smallest level > 0, plus all level-0 (and
// in-memory, level < 0) records; older high-level versions would otherwise be
// counted twice by aggregation or partial update.
type lookupMerge struct {
	inner      MergeFunction
	candidates []*KV
}

func (l *lookupMerge) Reset() { l.candidates = l.candidates[:0] }

func (l *lookupMerge) Add(r *KV) error {
	l.candidates = append(l.candidates, r)
	return nil
}

// containLevel0 reports whether a candidate came from level 0.
func (l *lookupMerge) containLevel0() bool {
	for _, c := range l.candidates {
		if c.Level == 0 {
			return true
		}
	}
	return false
}

// pickHighLevel returns the candidate at the smallest level above 0.
func (l *lookupMerge) pickHighLevel() *KV {
	var hl *KV
	for _, c := range l.candidates {
		if c.Level <= 0 {
			continue
		}
		if hl == nil || c.Level < hl.Level {
			hl = c
		}
	}
	return hl
}

// insertInto places a looked-up record among the candidates in SeqOrder.
func (l *lookupMerge) insertInto(r *KV, order SeqOrder) {
	i := len(l.candidates)
	for j, c := range l.candidates {
		if order.Compare(r, c) < 0 {
			i = j
			break
		}
	}
	l.candidates = append(l.candidates, nil)
	copy(l.candidates[i+1:], l.candidates[i:])
	l.candidates[i] = r
}

func (l *lookupMerge) Result() (*KV, error) {
	hl := l.pickHighLevel()
	l.inner.Reset()
	for _, c := range l.candidates {
		if c.Level <= 0 || c == hl {
			if err := l.inner.Add(c); err != nil {
				return nil, err
			}
		}
	}
	return l.inner.Result()
}

// copyValue returns a copy of a value row so merge results never alias
// their inputs.
func copyValue(v []any) []any {
	out := make([]any, len(v))
	copy(out, v)
	return out
}
