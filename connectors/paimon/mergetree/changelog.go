package mergetree

import "github.com/sqlrun/sqlrun/sql"

// ChangelogWrapper merges the versions of one key during a compaction and
// says what changelog that merge produces (Paimon's
// MergeFunctionWrapper<ChangelogResult>). result is the record to keep in the
// compacted file (nil: none); changelog are the records for the changelog
// file, in order.
type ChangelogWrapper interface {
	Apply(versions []*KV) (result *KV, changelog []*KV, err error)
}

// LookupFunc finds the newest version of a key at startLevel or above (nil
// when absent). The lookup changelog producer asks it for the value before
// the change when the compaction itself holds no higher-level version.
type LookupFunc func(key []any) (*KV, error)

// LookupChangelogWrapper is Paimon's LookupChangelogMergeFunctionWrapper.
// For a key with level-0 versions:
//
//	before := the newest version above level 0 in the compaction, else the
//	          looked-up one (which then takes part in the merge)
//	after  := the merge (LookupMergeFunction) of level-0 versions and before
//
//	before absent or retract, after add      → +I(after)
//	before add, after retract                → -D(before)
//	before add, after add, values different  → -U(before), +U(after)
//	         (equal values: -U/+U as well, unless row-deduplicate says equal)
//	otherwise                                → nothing
//
// Keys without level-0 versions produce no changelog.
type LookupChangelogWrapper struct {
	mf         *lookupMerge
	lookup     LookupFunc
	valueEqual func(a, b []any) bool
	order      SeqOrder
	produce    bool
}

// NewLookupChangelogWrapper wraps the spec's merge function; produce is
// false for tables that need lookup without producing changelog (first-row
// style lookups still shape the result).
func NewLookupChangelogWrapper(spec *Spec, lookup LookupFunc, produce bool) *LookupChangelogWrapper {
	return &LookupChangelogWrapper{mf: &lookupMerge{inner: spec.NewEngineFunction()}, lookup: lookup,
		valueEqual: spec.ValueEqual, order: spec.Order, produce: produce}
}

// Apply implements ChangelogWrapper.
func (w *LookupChangelogWrapper) Apply(versions []*KV) (*KV, []*KV, error) {
	w.mf.Reset()
	for _, v := range versions {
		_ = w.mf.Add(v)
	}
	highLevel := w.mf.pickHighLevel()
	containLevel0 := w.mf.containLevel0()
	if highLevel == nil {
		found, err := w.lookup(versions[0].Key)
		if err != nil {
			return nil, nil, err
		}
		if found != nil {
			highLevel = found
			w.mf.insertInto(found, w.order)
		}
	}
	result, err := w.mf.Result()
	if err != nil {
		return nil, nil, err
	}
	if !containLevel0 || !w.produce || result == nil {
		return result, nil, nil
	}
	return result, diffChangelog(highLevel, result, w.valueEqual), nil
}

// diffChangelog turns before/after into changelog records (setChangelog of
// both Paimon wrappers). Records keep the key and sequence number of the
// version they describe.
func diffChangelog(before, after *KV, valueEqual func(a, b []any) bool) []*KV {
	if before == nil || !before.Kind.IsAdd() {
		if after.Kind.IsAdd() {
			return []*KV{withKind(after, sql.Insert)}
		}
		return nil
	}
	if !after.Kind.IsAdd() {
		return []*KV{withKind(before, sql.Delete)}
	}
	if valueEqual != nil && valueEqual(before.Value, after.Value) {
		return nil
	}
	return []*KV{withKind(before, sql.UpdateBefore), withKind(after, sql.UpdateAfter)}
}

func withKind(r *KV, k sql.RowKind) *KV {
	return &KV{Key: r.Key, Seq: r.Seq, Kind: k, Value: r.Value, Level: r.Level}
}

// FullChangelogWrapper is Paimon's FullChangelogMergeFunctionWrapper, used
// when a full compaction writes the max level: the version already at the
// max level is "before", the merge of all versions is "after", so everything
// between two full compactions is netted out. A single version is either the
// unchanged top-level record (no changelog) or a new key (+I if it adds).
// Retractions are not kept in the result (the output is the max level).
type FullChangelogWrapper struct {
	mf         MergeFunction
	maxLevel   int
	valueEqual func(a, b []any) bool
}

// NewFullChangelogWrapper wraps the spec's merge function.
func NewFullChangelogWrapper(spec *Spec, maxLevel int) *FullChangelogWrapper {
	return &FullChangelogWrapper{mf: spec.NewMergeFunction(), maxLevel: maxLevel, valueEqual: spec.ValueEqual}
}

// Apply implements ChangelogWrapper.
func (w *FullChangelogWrapper) Apply(versions []*KV) (*KV, []*KV, error) {
	var top *KV
	for _, v := range versions {
		if v.Level == w.maxLevel {
			top = v
		}
	}
	if len(versions) == 1 {
		only := versions[0]
		var cl []*KV
		if top == nil && only.Kind.IsAdd() {
			cl = []*KV{withKind(only, sql.Insert)}
		}
		return resultIfNotRetract(only), cl, nil
	}
	merged, err := reduce(w.mf, versions)
	if err != nil {
		return nil, nil, err
	}
	if merged == nil {
		if top != nil {
			return nil, []*KV{withKind(top, sql.Delete)}, nil
		}
		return nil, nil, nil
	}
	var cl []*KV
	if top == nil {
		if merged.Kind.IsAdd() {
			cl = []*KV{withKind(merged, sql.Insert)}
		}
	} else {
		cl = diffChangelog(top, merged, w.valueEqual)
	}
	return resultIfNotRetract(merged), cl, nil
}

func resultIfNotRetract(r *KV) *KV {
	if r == nil || r.Kind.IsRetract() {
		return nil
	}
	return r
}

// FirstRowChangelogWrapper is Paimon's FirstRowMergeFunctionWrapper: a key
// that already exists (a version above level 0 in the compaction, or found by
// lookup) keeps its first row and the new versions vanish without
// changelog; a key seen for the first time yields +I.
type FirstRowChangelogWrapper struct {
	mf       *firstRow
	contains func(key []any) (bool, error)
}

// NewFirstRowChangelogWrapper builds the wrapper; contains looks the key up
// above the output level.
func NewFirstRowChangelogWrapper(spec *Spec, contains func(key []any) (bool, error)) *FirstRowChangelogWrapper {
	return &FirstRowChangelogWrapper{mf: &firstRow{ignoreDelete: spec.IgnoreDelete}, contains: contains}
}

// Apply implements ChangelogWrapper.
func (w *FirstRowChangelogWrapper) Apply(versions []*KV) (*KV, []*KV, error) {
	w.mf.Reset()
	for _, v := range versions {
		if err := w.mf.Add(v); err != nil {
			return nil, nil, err
		}
	}
	result, _ := w.mf.Result()
	if w.mf.containsHighLevel {
		return result, nil, nil
	}
	if result == nil {
		return nil, nil, nil
	}
	found, err := w.contains(result.Key)
	if err != nil {
		return nil, nil, err
	}
	if found {
		return nil, nil, nil
	}
	return result, []*KV{result}, nil
}
