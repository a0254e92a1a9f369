package mergetree

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// Spec is everything the merge tree of one table needs to know, derived once
// from the table's fields, primary key and options (Paimon's CoreOptions
// names and 1.4.2 defaults). It is immutable and shared by all buckets.
type Spec struct {
	// Expire, when set, expires records at compaction
	// ('record-level.expire-time').
	Expire     *RecordExpire
	FieldNames []string
	FieldTypes []sql.DataType
	// KeyIndex are the positions of the trimmed primary key (primary key
	// minus partition keys) in the value row, in primary-key order.
	KeyIndex []int
	KeyTypes []sql.DataType
	// Key compares trimmed keys (KV.Key).
	Key *Comparator
	// Order orders versions of one key (sequence.field, then sequence number).
	Order SeqOrder

	Engine       string
	IgnoreDelete bool
	// Producer is the changelog producer.
	Producer string
	// NeedLookup is Paimon's LookupStrategy.needLookup: lookup producer,
	// first-row engine, deletion vectors or force-lookup. Such tables compact
	// level 0 after every write (ForceUpLevel0Compaction) and merge with
	// LookupMergeFunction.
	NeedLookup bool
	// DeletionVectors is deletion-vectors.enabled: compaction marks the
	// older version of a key it moves up in its file's deletion vector
	// (WriterOptions.DeletionVectors) and always drops retractions.
	DeletionVectors bool
	// LookupWait (`lookup-wait`, fallback `changelog-producer.lookup-wait`):
	// the commit waits for the lookup compaction.
	LookupWait bool
	// CommitForceCompact (`commit.force-compact`): every PrepareCommit
	// waits for the compaction its flush triggered, a normal pick (not a
	// full compaction), as MergeTreeWriter.prepareCommit does with
	// CoreOptions.commitForceCompact; the lookup-wait loop is not entered.
	CommitForceCompact bool
	// ValueEqual compares two values for changelog-producer.row-deduplicate
	// (ignoring changelog-producer.row-deduplicate-ignore-fields); nil when
	// row-deduplicate is off, so unchanged rewrites still emit -U/+U.
	ValueEqual func(a, b []any) bool

	WriteBufferSize int64 // write-buffer-size
	// WriteBufferSpillMaxDisk is write-buffer-spill.max-disk-size: a write
	// buffer whose spilled runs reach it is flushed (0: no limit).
	WriteBufferSpillMaxDisk int64
	// SortSpillThreshold is sort-spill-threshold (default
	// num-sorted-run.stop-trigger + 1, CoreOptions.sortSpillThreshold):
	// a merge of more sorted runs spills the smallest first.
	SortSpillThreshold int
	// SpillCompression ("zstd" or "none") and SpillZstdLevel are
	// spill-compression and spill-compression.zstd-level.
	SpillCompression string
	SpillZstdLevel   int
	TargetFileSize   int64 // target-file-size
	// CompactionFileSize is the size under which a non-overlapping file is
	// rewritten rather than upgraded: target-file-size / 10 * 7.
	CompactionFileSize int64
	NumLevels          int // num-levels
	CompactionTrigger  int // num-sorted-run.compaction-trigger
	StopTrigger        int // num-sorted-run.stop-trigger
	MaxSizeAmp         int // compaction.max-size-amplification-percent
	SizeRatio          int // compaction.size-ratio
	// FullCompactionDeltaCommits: every this many commits a full compaction
	// (0: never); Paimon's FlinkSink rule, see NewSpec.
	FullCompactionDeltaCommits int
	WriteOnly                  bool // write-only
	// LookupCompactMaxInterval is lookup-compact.max-interval in gentle
	// lookup-compact mode (0: radical, force level 0 up after every write).
	LookupCompactMaxInterval int
	// LookupCacheMaxMemory and LookupCacheMaxDisk bound the disk lookup
	// index (lookup.cache-max-memory-size, lookup.cache-max-disk-size; 0:
	// unbounded).
	LookupCacheMaxMemory, LookupCacheMaxDisk int64

	newEngine MergeFactory
}

// NewSpec derives a Spec. names/types are the table's columns in schema
// order; trimmedPK the primary key minus partition keys; o the table's
// parsed options (coreoptions.Parse).
func NewSpec(names []string, types []sql.DataType, trimmedPK []string, o *coreoptions.Options) (*Spec, error) {
	if len(names) != len(types) {
		return nil, fmt.Errorf("mergetree: %d field names but %d types", len(names), len(types))
	}
	if len(trimmedPK) == 0 {
		return nil, fmt.Errorf("mergetree: a merge tree needs a primary key")
	}
	s := &Spec{FieldNames: names, FieldTypes: types}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	field := func(n string) (int, error) {
		i, ok := index[strings.TrimSpace(n)]
		if !ok {
			return 0, fmt.Errorf("mergetree: field %q not found in %v", n, names)
		}
		return i, nil
	}
	for _, k := range trimmedPK {
		i, err := field(k)
		if err != nil {
			return nil, fmt.Errorf("primary key: %w", err)
		}
		s.KeyIndex = append(s.KeyIndex, i)
		s.KeyTypes = append(s.KeyTypes, types[i])
	}
	var err error
	if s.Key, err = NewComparator(s.KeyTypes); err != nil {
		return nil, fmt.Errorf("primary key: %w", err)
	}

	var seqFields []int
	if len(o.SequenceFields) > 0 {
		for _, n := range o.SequenceFields {
			i, err := field(n)
			if err != nil {
				return nil, fmt.Errorf("sequence.field: %w", err)
			}
			seqFields = append(seqFields, i)
		}
		user, err := NewFieldComparator(types, seqFields, o.SequenceDesc)
		if err != nil {
			return nil, fmt.Errorf("sequence.field: %w", err)
		}
		s.Order = SeqOrder{user: user}
	}

	s.Engine = o.MergeEngine
	s.IgnoreDelete = o.IgnoreDelete
	s.Producer = o.ChangelogProducer
	switch s.Producer {
	case coreoptions.ProducerNone, coreoptions.ProducerInput, coreoptions.ProducerLookup, coreoptions.ProducerFullCompaction:
	default:
		return nil, fmt.Errorf("mergetree: invalid changelog-producer %q (none, input, lookup or full-compaction)", s.Producer)
	}
	s.DeletionVectors = o.DeletionVectors
	s.NeedLookup = s.Producer == coreoptions.ProducerLookup || s.Engine == coreoptions.EngineFirstRow || s.DeletionVectors || o.ForceLookup
	s.LookupWait = o.LookupWait
	s.CommitForceCompact = o.CommitForceCompact
	if o.RowDeduplicate {
		ignore := map[int]bool{}
		for _, n := range o.RowDeduplicateIgnoreFields {
			i, err := field(n)
			if err != nil {
				return nil, fmt.Errorf("changelog-producer.row-deduplicate-ignore-fields: %w", err)
			}
			ignore[i] = true
		}
		s.ValueEqual = newValueEqualiser(types, ignore)
	}

	s.WriteBufferSize = o.WriteBufferSize
	s.TargetFileSize = o.TargetFileSize(true)
	s.CompactionFileSize = s.TargetFileSize / 10 * 7
	s.CompactionTrigger = o.CompactionTrigger
	s.StopTrigger = o.StopTrigger
	if s.StopTrigger == 0 && !o.Has("num-sorted-run.stop-trigger") {
		s.StopTrigger = s.CompactionTrigger + 3
	}
	s.StopTrigger = max(s.StopTrigger, s.CompactionTrigger)
	s.SortSpillThreshold = o.SortSpillThreshold
	if s.SortSpillThreshold == 0 {
		s.SortSpillThreshold = s.StopTrigger + 1
	}
	if s.SortSpillThreshold < 2 {
		return nil, fmt.Errorf("mergetree: The sort spill threshold cannot be smaller than 2.")
	}
	s.WriteBufferSpillMaxDisk = o.WriteBufferSpillMaxDisk
	s.SpillCompression, s.SpillZstdLevel = o.SpillCompression, o.SpillZstdLevel
	s.NumLevels = o.NumLevels
	if !o.Has("num-levels") {
		s.NumLevels = s.CompactionTrigger + 1
	}
	if s.NumLevels < 2 {
		return nil, fmt.Errorf("mergetree: Number of levels must be at least 2.")
	}
	s.MaxSizeAmp = o.MaxSizeAmplification
	s.SizeRatio = o.SizeRatio
	s.WriteOnly = o.WriteOnly
	// Paimon's FlinkSink: a full-compaction producer, or any table with
	// full-compaction.delta-commits, gets GlobalFullCompactionSinkWrite
	// with Math.max(deltaCommits, 1), so without the option every commit
	// compacts fully. The deprecated changelog-producer.compaction-interval
	// (deltaCommits from time) is handled by the table's writer.
	deltaCommits := o.FullCompactionDeltaCommits
	interval := o.Has("changelog-producer.compaction-interval")
	if !s.WriteOnly && (deltaCommits >= 0 || (s.Producer == coreoptions.ProducerFullCompaction && !interval)) {
		s.FullCompactionDeltaCommits = max(deltaCommits, 1)
	}
	if o.LookupCompactGentle {
		s.LookupCompactMaxInterval = o.LookupCompactMaxInterval
		if !o.Has("lookup-compact.max-interval") {
			s.LookupCompactMaxInterval = 2 * s.CompactionTrigger
		}
	}
	s.LookupCacheMaxMemory = o.LookupCacheMaxMemory
	s.LookupCacheMaxDisk = o.LookupCacheMaxDisk
	if s.newEngine, err = s.engineFactory(o, seqFields, field); err != nil {
		return nil, err
	}
	return s, nil
}

// NewMergeFunction returns the merge function reads and compactions use:
// the merge engine, wrapped in LookupMergeFunction when the table needs
// lookup (except first-row, which Paimon never wraps).
func (s *Spec) NewMergeFunction() MergeFunction {
	if s.NeedLookup && s.Engine != coreoptions.EngineFirstRow {
		return &lookupMerge{inner: s.newEngine()}
	}
	return s.newEngine()
}

// NewDiskLookup creates a DiskLookup in dir bounded by the table's
// lookup.cache-max-* options; use it as WriterOptions.NewLookup.
func (s *Spec) NewDiskLookup(dir string, store RunStore) func(*Levels) (LookupLevels, error) {
	return func(levels *Levels) (LookupLevels, error) {
		d, err := NewDiskLookup(dir, levels, store, s.Key)
		if err != nil {
			return nil, err
		}
		d.MaxMemoryBytes, d.MaxDiskBytes = s.LookupCacheMaxMemory, s.LookupCacheMaxDisk
		d.Expire = s.Expire
		return d, nil
	}
}

// NewEngineFunction returns the bare merge engine (used by the write
// buffer, whose records are all new).
func (s *Spec) NewEngineFunction() MergeFunction { return s.newEngine() }

// KeyOf extracts the trimmed primary key of a value row.
func (s *Spec) KeyOf(value []any) []any {
	k := make([]any, len(s.KeyIndex))
	for i, j := range s.KeyIndex {
		k[i] = value[j]
	}
	return k
}

func (s *Spec) engineFactory(o *coreoptions.Options, seqFields []int, field func(string) (int, error)) (MergeFactory, error) {
	nullable := make([]bool, len(s.FieldTypes))
	for i, t := range s.FieldTypes {
		nullable[i] = t.Nullable
	}
	switch s.Engine {
	case coreoptions.EngineDeduplicate:
		ig := s.IgnoreDelete
		return func() MergeFunction { return &deduplicate{ignoreDelete: ig} }, nil
	case coreoptions.EngineFirstRow:
		ig := s.IgnoreDelete
		return func() MergeFunction { return &firstRow{ignoreDelete: ig} }, nil
	case coreoptions.EngineAggregation:
		removeOnDel := o.AggregationRemoveOnDelete
		var err error
		names := make([]string, len(s.FieldNames))
		for i, n := range s.FieldNames {
			names[i], err = s.aggName(o, n, i, seqFields)
			if err != nil {
				return nil, err
			}
			if removeOnDel && o.FieldFlag(n, "ignore-retract") {
				return nil, fmt.Errorf("aggregation.remove-record-on-delete and fields.%s.ignore-retract have conflicting behavior so should not be enabled at the same time.", n)
			}
		}
		// Validate once so a bad option fails at table creation.
		if _, err := s.newAggs(o, names); err != nil {
			return nil, err
		}
		return func() MergeFunction {
			aggs, _ := s.newAggs(o, names)
			a := &aggregation{aggs: aggs, nullable: nullable, removeOnDel: removeOnDel}
			a.Reset()
			return a
		}, nil
	case coreoptions.EnginePartialUpdate:
		return s.partialUpdateFactory(o, nullable, field)
	}
	return nil, fmt.Errorf("mergetree: unknown merge-engine %q (deduplicate, partial-update, aggregation or first-row)", s.Engine)
}

// aggName picks a field's aggregate function as Paimon's getAggFuncName:
// sequence fields last_value, primary-key fields keep their value, then
// fields.<f>.aggregate-function, fields.default-aggregate-function,
// last_non_null_value.
func (s *Spec) aggName(o *coreoptions.Options, name string, i int, seqFields []int) (string, error) {
	for _, f := range seqFields {
		if f == i {
			return AggLastValue, nil
		}
	}
	for _, k := range s.KeyIndex {
		if k == i {
			return aggPrimaryKey, nil
		}
	}
	if v := o.AggregateFunction(name); v != "" {
		return v, nil
	}
	return AggLastNonNullValue, nil
}

func (s *Spec) newAggs(o *coreoptions.Options, names []string) ([]aggregator, error) {
	aggs := make([]aggregator, len(names))
	for i, n := range names {
		g, err := newAggregator(n, s.FieldNames[i], s.FieldTypes[i], o)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", s.FieldNames[i], err)
		}
		if o.FieldFlag(s.FieldNames[i], "ignore-retract") {
			g = ignoreRetract{g}
		}
		aggs[i] = g
	}
	return aggs, nil
}

func (s *Spec) partialUpdateFactory(o *coreoptions.Options, nullable []bool, field func(string) (int, error)) (MergeFactory, error) {
	removeOnDel := o.PartialUpdateRemoveOnDel
	n := len(s.FieldNames)
	groupOf := make([]*seqGroup, n)
	protected := map[int]bool{}
	hasGroups := false
	for _, sg := range o.SequenceGroups {
		k := sg.Key
		hasGroups = true
		g := &seqGroup{}
		var err error
		for _, sf := range sg.SeqFields {
			i, err := field(sf)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			g.seqFields = append(g.seqFields, i)
		}
		if g.cmp, err = NewFieldComparator(s.FieldTypes, g.seqFields, false); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		for _, f := range sg.Fields {
			i, err := field(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if groupOf[i] != nil {
				return nil, fmt.Errorf("Field %s is defined repeatedly by multiple groups: %s", s.FieldNames[i], k)
			}
			groupOf[i] = g
			protected[i] = true
		}
		for _, i := range g.seqFields {
			groupOf[i] = g
		}
	}
	removeOnGroup := map[int]bool{}
	if fs := o.PartialUpdateRemoveOnSequenceGroup; len(fs) > 0 {
		v := strings.Join(fs, ",")
		for _, f := range fs {
			i, err := field(f)
			if err != nil || groupOf[i] == nil || !isSeqField(groupOf[i], i) {
				return nil, fmt.Errorf("field '%s' defined in 'partial-update.remove-record-on-sequence-group' option must be part of sequence groups", v)
			}
			removeOnGroup[i] = true
		}
	}
	if removeOnDel && s.IgnoreDelete {
		return nil, fmt.Errorf("ignore-delete and partial-update.remove-record-on-delete have conflicting behavior so should not be enabled at the same time.")
	}
	if removeOnDel && hasGroups {
		return nil, fmt.Errorf("sequence-group and partial-update.remove-record-on-delete have conflicting behavior so should not be enabled at the same time.")
	}
	// Aggregate functions in partial-update need a sequence group, except
	// last_non_null_value (Paimon's createFieldAggregators).
	// Primary-key fields keep their value and sequence fields get no
	// function (getAggFuncName of PartialUpdateMergeFunction).
	aggNames := make([]string, n)
	for i, name := range s.FieldNames {
		if slices.Contains(s.KeyIndex, i) || (groupOf[i] != nil && isSeqField(groupOf[i], i)) {
			continue
		}
		v := o.AggregateFunction(name)
		if v == "" {
			continue
		}
		if v != AggLastNonNullValue && !protected[i] {
			return nil, fmt.Errorf("Must use sequence group for aggregation functions but not found for field %s.", name)
		}
		if _, err := newAggregator(v, name, s.FieldTypes[i], o); err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		aggNames[i] = v
	}
	ig := s.IgnoreDelete
	return func() MergeFunction {
		aggs := make([]aggregator, n)
		for i, v := range aggNames {
			if v != "" {
				g, _ := newAggregator(v, s.FieldNames[i], s.FieldTypes[i], o)
				if o.FieldFlag(s.FieldNames[i], "ignore-retract") {
					g = ignoreRetract{g}
				}
				aggs[i] = g
			}
		}
		p := &partialUpdate{nullable: nullable, ignoreDelete: ig, removeOnDel: removeOnDel,
			groupOf: groupOf, aggs: aggs, removeOnGroup: removeOnGroup, fieldSeqEnabled: hasGroups}
		p.Reset()
		return p
	}, nil
}

// newValueEqualiser compares values field by field with per-type equality
// chosen once (Paimon's generated RecordEqualiser), skipping ignored fields.
func newValueEqualiser(types []sql.DataType, ignore map[int]bool) func(a, b []any) bool {
	type eqField struct {
		i  int
		eq func(a, b any) bool
	}
	var fs []eqField
	for i, t := range types {
		if ignore[i] {
			continue
		}
		var eq func(a, b any) bool
		switch {
		case t.Root == sql.TypeDecimal:
			eq = func(a, b any) bool { return a.(decimal.Decimal).Equal(b.(decimal.Decimal)) }
		case t.IsBinary():
			eq = func(a, b any) bool { return bytes.Equal(a.([]byte), b.([]byte)) }
		case t.Root == sql.TypeArray || t.Root == sql.TypeMap || t.Root == sql.TypeRow:
			eq = reflect.DeepEqual
		default:
			eq = func(a, b any) bool { return a == b }
		}
		fs = append(fs, eqField{i, eq})
	}
	return func(a, b []any) bool {
		for _, f := range fs {
			x, y := a[f.i], b[f.i]
			if x == nil || y == nil {
				if x != y {
					return false
				}
				continue
			}
			if !f.eq(x, y) {
				return false
			}
		}
		return true
	}
}
