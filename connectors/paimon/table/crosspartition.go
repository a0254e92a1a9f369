package table

import (
	"fmt"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/sql"
)

// Cross-partition upserts (Paimon's KEY_DYNAMIC bucket mode: bucket = -1
// and a primary key without every partition field). A key lives in one
// partition of the table at a time: GlobalIndexAssigner keeps the key →
// (partition, bucket) index, bootstrapped from the table when the job
// starts (IndexBootstrap), and a row whose key lives in another partition
// is handled by the merge engine's ExistingProcessor. No HASH index files
// are written (KeyValueFileStore.newWrite keeps them for HASH_DYNAMIC).

// KeyDynamic reports Paimon's KEY_DYNAMIC bucket mode
// (KeyValueFileStore.bucketMode): dynamic buckets and a cross-partition
// primary key.
func (t *Table) KeyDynamic() bool { return t.DynamicBucket() && t.CrossPartitionUpdate() }

// bootstrapGlobalIndex is IndexBootstrap.bootstrap with one assigner: the
// trimmed primary key of every row of the latest snapshot (all levels,
// merged, deletion vectors applied), with its split's partition and
// bucket. With cross-partition-upsert.index-ttl, buckets none of whose
// files was created within the TTL are skipped (IndexBootstrap.filterSplit).
func (t *Table) bootstrapGlobalIndex(now func() time.Time) (*index.GlobalIndex, error) {
	g := index.NewGlobalIndex(t.Options.DynamicBucketTargetRows, t.Options.CrossPartitionIndexTTL, now)
	s, err := t.Snapshots.Latest()
	if err != nil || s == nil {
		return g, err
	}
	splits, err := t.PlanFull(s, nil)
	if err != nil {
		return nil, err
	}
	var scratch []byte
	for _, sp := range splits {
		if ttl := t.Options.CrossPartitionIndexTTL; ttl > 0 && !recentFile(sp.Files, ttl, now()) {
			continue
		}
		it, err := t.NewSplitReader(sp, ReadOptions{Projection: t.keyIdx})
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: bootstrap the cross-partition index: %w", t.Root, err)
		}
		for {
			r, ok := it.Next()
			if !ok {
				break
			}
			if scratch, err = encodeKey(t, r.Values, scratch); err != nil {
				it.Close()
				return nil, err
			}
			if err := g.Bootstrap(scratch, sp.Partition, sp.Bucket); err != nil {
				it.Close()
				return nil, fmt.Errorf("paimon table %s: bootstrap the cross-partition index: %w", t.Root, err)
			}
		}
		err = it.Error()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: bootstrap the cross-partition index: %w", t.Root, err)
		}
	}
	return g, nil
}

// encodeKey serializes a projected trimmed primary key as its BinaryRow.
func encodeKey(t *Table, key []any, scratch []byte) ([]byte, error) {
	b, err := binrow.AppendEncode(scratch[:0], t.keyTypes, key)
	if err != nil {
		return scratch, fmt.Errorf("paimon table %s: primary key of row: %w", t.Root, err)
	}
	return b, nil
}

// recentFile is IndexBootstrap.filterSplit: some file was created within
// ttl of now (_CREATION_TIME is the writer's local wall clock).
func recentFile(files []manifest.DataFileMeta, ttl time.Duration, now time.Time) bool {
	for _, f := range files {
		if f.CreationTime == nil {
			return true // unknown: keep, as a file written just now would be
		}
		if now.UnixMilli() <= creationEpochMillis(*f.CreationTime)+ttl.Milliseconds() {
			return true
		}
	}
	return false
}

// creationEpochMillis is DataFileMeta.creationTimeEpochMillis: the stored
// local wall clock read in the process's time zone.
func creationEpochMillis(local int64) int64 {
	u := time.UnixMilli(local).UTC()
	y, mo, d := u.Date()
	h, mi, s := u.Clock()
	return time.Date(y, mo, d, h, mi, s, u.Nanosecond(), time.Local).UnixMilli()
}

// crossPartitionRoute is GlobalIndexAssigner.processInput for one row:
// emit is called for every (row, partition, bucket) to write, in order.
// A key new to the index gets a bucket of its partition; a key living in
// another partition goes through the merge engine's ExistingProcessor:
// deduplicate deletes it there (a DELETE with the new row's values and the
// old partition, DeleteExistingProcessor) and writes the row to its new
// partition; partial-update and aggregation write the row into the old
// partition (UseOldExistingProcessor); first-row drops it
// (SkipNewExistingProcessor). Row kinds do not matter here, as in Paimon.
func (w *TableWrite) crossPartitionRoute(row sql.Row, part []byte, emit func(sql.Row, []byte, int) error) error {
	if w.global == nil {
		g, err := w.t.bootstrapGlobalIndex(w.now)
		if err != nil {
			return err
		}
		w.global = g
	}
	var err error
	if _, w.keyScratch, err = w.t.keyHash(row.Values, w.keyScratch); err != nil {
		return fmt.Errorf("paimon table %s: %w", w.t.Root, err)
	}
	key := w.keyScratch
	prevPart, prevBucket, ok := w.global.Get(key)
	if ok && string(prevPart) == string(part) {
		return emit(row, part, prevBucket)
	}
	if ok {
		switch w.t.Spec.Engine {
		case coreoptions.EngineFirstRow:
			return nil
		case coreoptions.EnginePartialUpdate, coreoptions.EngineAggregation:
			moved, err := w.t.withPartition(row.Values, prevPart)
			if err != nil {
				return err
			}
			return emit(sql.Row{Kind: row.Kind, Values: moved}, prevPart, prevBucket)
		default:
			old, err := w.t.withPartition(row.Values, prevPart)
			if err != nil {
				return err
			}
			if err := emit(sql.Row{Kind: sql.Delete, Values: old}, prevPart, prevBucket); err != nil {
				return err
			}
			w.global.Decrement(prevPart, prevBucket)
		}
	}
	return emit(row, part, w.global.AssignNew(key, part))
}

// withPartition is ProjectToRowFunction: a copy of vals whose partition
// fields hold the values of the serialized partition part.
func (t *Table) withPartition(vals []any, part []byte) ([]any, error) {
	pv, err := t.PartitionValues(part)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: partition: %w", t.Root, err)
	}
	out := append([]any(nil), vals...)
	for i, p := range t.partIdx {
		out[p] = pv[i]
	}
	return out, nil
}
