package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/dv"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/sql"
)

// ErrAppendRetract is wrapped when an append table receives -U/-D.
var ErrAppendRetract = errors.New("append-only table cannot accept retractions")

// WriteOptions configure a TableWrite.
type WriteOptions struct {
	// TempDir holds the local lookup index and spilled write-buffer runs;
	// "" uses a fresh directory under os.TempDir(), removed on Close.
	TempDir string
	// IgnorePrevious starts every bucket empty instead of restoring its
	// files and hash index (INSERT OVERWRITE: Paimon's
	// withIgnorePreviousFiles).
	IgnorePrevious bool
	// Assigner routes keys to buckets in dynamic bucket mode; nil creates
	// the table's own (Table.NewAssigner). A sink shares one between its
	// writers and its channel computer.
	Assigner index.BucketAssigner
	// Parallelism is the number of writer subtasks of the job (0 counts as
	// 1): a postpone bucket table's batch write gives a partition without
	// files min(Parallelism, postpone.batch-write-fixed-bucket.max-parallelism)
	// buckets (PostponeBatchWriteOperator).
	Parallelism int
	// postponeKnown are the known bucket counts of a postpone bucket
	// table's partitions (nil: read from the latest snapshot); a sink
	// shares them between its writers and its channel computer.
	postponeKnown map[string]int
	// postponeCompact: the write is a postpone bucket table's compaction,
	// a normal (not write-only) write with exactly the bucket counts of
	// postponeKnown.
	postponeCompact bool
	// postponeFiles: a postpone bucket table's write goes into the
	// bucket-postpone directories (PostponeBucketSink: streaming, or batch
	// with 'postpone.batch-write-fixed-bucket' = false), its files named
	// after commitUser and writeID (the writer subtask).
	postponeFiles bool
	commitUser    string
	writeID       int
}

type bucketKey struct {
	part   string
	bucket int
}

// TableWrite routes rows to per-(partition, bucket) writers (Paimon's
// TableWriteImpl): merge-tree writers for primary-key tables, rolling
// append writers otherwise. Writers are restored lazily from the latest
// snapshot's files the first time a bucket is written. Not safe for
// concurrent use.
type TableWrite struct {
	t            *Table
	tmp          string
	ownTmp       bool
	ignoreDelete bool
	ignoreUB     bool
	writers      map[bucketKey]*bucketWriter
	last         *bucketWriter // the last writer writer returned
	order        []bucketKey
	scratch      []byte
	// pool lends the primary-key writers' write buffers their pages
	// (MemoryPoolFactory's pool of write-buffer-size, one per task), from
	// the first bucket writer to Close.
	pool *mergetree.MemoryPool

	// fullEvery is changelog-producer.compaction-interval (full-compaction
	// producer): a full compaction at the first commit after it elapsed.
	fullEvery time.Duration
	lastFull  time.Time
	// now is the clock of compaction-interval (tests replace it).
	now func() time.Time

	restoreID    int64
	restoreFiles map[bucketKey][]manifest.DataFileMeta
	restoreIndex map[bucketKey]manifest.IndexManifestEntry
	restoreDVs   map[bucketKey][]manifest.IndexManifestEntry
	restoreKnown bool

	// ignorePrevious: buckets start empty (INSERT OVERWRITE).
	ignorePrevious bool
	// dynamic bucket mode: the assigner, the key hash's scratch buffer and
	// the index file names (deletion vector index files too).
	assigner   index.BucketAssigner
	keyScratch []byte
	indexNames *index.Names
	// dvs: the table has deletion vectors (primary key,
	// deletion-vectors.enabled).
	dvs bool
	// keyDynamic: cross-partition upserts (KEY_DYNAMIC); global is their
	// key index, bootstrapped from the table at the first row.
	keyDynamic bool
	global     *index.GlobalIndex
	// postpone: the bucket counts of a postpone bucket table's partitions
	// (batch write into fixed buckets), nil otherwise.
	postpone *postponeBuckets
	// postponeFiles: rows go to bucket -2 (see WriteOptions).
	postponeFiles bool
	commitUser    string
	writeID       int
	// ppPool: the postpone writers buffer their records, in this pool
	// (forceBufferSpill happened, see postponebuf.go).
	ppPool *postponePool
}

type bucketWriter struct {
	part   []byte
	bucket int
	store  *bucketStore
	mt     *mergetree.Writer
	app    *appendWriter
	// hashes is the bucket's hash index in dynamic bucket mode
	// (DynamicBucketIndexMaintainer), nil otherwise.
	hashes *index.BucketHashes
	// pp writes a bucket-postpone directory (bucket -2).
	pp *postponeFileWriter
}

// NewWrite creates a TableWrite. Primary-key tables are written in fixed
// bucket mode (bucket ≥ 1), dynamic bucket mode (bucket = -1, keys routed
// by the hash index, cross-partition upserts by the key index) or
// postpone bucket mode (bucket = -2, a batch write into fixed buckets, see
// postpone.go).
func (t *Table) NewWrite(o WriteOptions) (*TableWrite, error) {
	if err := t.checkWritable(); err != nil {
		return nil, err
	}
	return t.newWrite(o, false)
}

// newCompactWrite is a TableWrite that only compacts existing buckets: it
// needs no bucket assigner, so it works on every bucket mode whose buckets
// are real (not postpone).
func (t *Table) newCompactWrite(o WriteOptions) (*TableWrite, error) {
	return t.newWrite(o, true)
}

func (t *Table) newWrite(o WriteOptions, compactOnly bool) (*TableWrite, error) {
	// Compactions commit too: options sqlrun does not honour on write
	// (automatic tags, say) refuse them as well.
	if err := coreoptions.CheckWrite(t.Root, t.Options.Raw()); err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	if _, err := t.writerOptions(); err != nil {
		return nil, err
	}
	var postpone *postponeBuckets
	if t.PostponeBucket() && o.postponeFiles {
		if err := t.checkPostponeFiles(); err != nil {
			return nil, err
		}
	} else if t.PostponeBucket() && !compactOnly {
		known := o.postponeKnown
		if known == nil {
			var err error
			if known, err = t.knownNumBuckets(); err != nil {
				return nil, err
			}
		}
		postpone = t.newPostponeBuckets(known, o.Parallelism)
		if !o.postponeCompact {
			wo, err := t.writeOnlyCopy()
			if err != nil {
				return nil, err
			}
			t = wo
		}
	}
	if err := t.checkDeletionVectorOptions(); err != nil {
		return nil, err
	}
	w := &TableWrite{t: t, tmp: o.TempDir, writers: map[bucketKey]*bucketWriter{},
		ignoreDelete: t.Options.IgnoreDelete, ignoreUB: t.Options.IgnoreUpdateBefore, now: time.Now, postpone: postpone,
		postponeFiles: o.postponeFiles, commitUser: o.commitUser, writeID: o.writeID}
	if d := t.Options.ChangelogCompactionInterval; t.Options.Has("changelog-producer.compaction-interval") && t.PrimaryKey() && t.Spec.Producer == coreoptions.ProducerFullCompaction {
		w.fullEvery, w.lastFull = d, w.now()
	}
	if t.KeyDynamic() && !compactOnly {
		if o.IgnorePrevious {
			return nil, fmt.Errorf("paimon table %s: %w", t.Root, ErrCrossPartitionOverwrite)
		}
		w.keyDynamic = true
	} else if t.DynamicBucket() && !compactOnly {
		w.ignorePrevious = o.IgnorePrevious
		w.assigner = o.Assigner
		if w.assigner == nil {
			a, err := t.NewAssigner(o.IgnorePrevious)
			if err != nil {
				return nil, err
			}
			w.assigner = a
		}
		w.indexNames = index.NewNames()
	} else if o.IgnorePrevious {
		w.ignorePrevious = true
	}
	if t.PrimaryKey() && t.DeletionVectorsEnabled() {
		w.dvs = true
		if w.indexNames == nil {
			w.indexNames = index.NewNames()
		}
	}
	if w.tmp == "" {
		w.tmp = newTempDir()
		w.ownTmp = true
	}
	return w, nil
}

// Write routes one row change to its bucket writer, which keeps the row's
// Values until the next PrepareCommit: they must not change afterwards (the
// runtime's contract for every emitted row, see runtime.Collector.Emit).
// ignore-delete drops -D and -U, ignore-update-before drops -U; append
// tables reject the remaining retractions with Paimon's message.
func (w *TableWrite) Write(row sql.Row) error {
	drop := false
	switch row.Kind {
	case sql.Delete:
		drop = w.ignoreDelete
	case sql.UpdateBefore:
		drop = w.ignoreDelete || w.ignoreUB
	}
	if drop && w.assigner == nil && !w.keyDynamic {
		return nil
	}
	if !w.t.PrimaryKey() && row.Kind.IsRetract() {
		return fmt.Errorf("%w: Append-only writer can only accept insert or update_after row kind, but current row kind is: %s. You can configure 'ignore-delete' to ignore retract records.",
			ErrAppendRetract, rowKindName(row.Kind))
	}
	if len(row.Values) != len(w.t.Schema.Fields) {
		return fmt.Errorf("paimon table %s: row has %d fields, table has %d", w.t.Root, len(row.Values), len(w.t.Schema.Fields))
	}
	vals := row.Values
	_, part, err := w.t.Partition(vals)
	if err != nil {
		return err
	}
	if w.keyDynamic {
		// GlobalIndexAssignerOperator sees every row; the writer then
		// drops the ignored retractions among what it emits.
		return w.crossPartitionRoute(row, part, w.writeTo)
	}
	var bucket int
	var hash int32
	if w.assigner != nil {
		// Paimon's assigner operator sees every row, before the writer
		// drops ignored retractions (TableWriteImpl).
		if hash, w.keyScratch, err = w.t.keyHash(vals, w.keyScratch); err != nil {
			return err
		}
		if bucket, err = w.assigner.Assign(part, hash); err != nil {
			return fmt.Errorf("paimon table %s: assign bucket: %w", w.t.Root, err)
		}
		if drop {
			return nil
		}
	} else if w.postponeFiles {
		bucket = -2
	} else if w.postpone != nil {
		if bucket, w.scratch, err = w.t.bucketOf(vals, w.postpone.numBuckets(part), w.scratch); err != nil {
			return err
		}
	} else if bucket, w.scratch, err = w.t.Bucket(vals, w.scratch); err != nil {
		return err
	}
	bw, err := w.writer(part, bucket)
	if err != nil {
		return err
	}
	if bw.hashes != nil {
		bw.hashes.Add(hash)
	}
	if bw.mt != nil {
		if err := bw.mt.Write(row.Kind, vals); err != nil {
			return fmt.Errorf("paimon table %s bucket %d: %w", w.t.Root, bucket, err)
		}
		return nil
	}
	if bw.pp != nil {
		if err := bw.pp.write(row.Kind, vals); err != nil {
			return fmt.Errorf("paimon table %s bucket-postpone: %w", w.t.Root, err)
		}
		return nil
	}
	return bw.app.write(vals)
}

// writeTo writes one row the cross-partition assigner routed to (part,
// bucket), unless ignore-delete / ignore-update-before drop its kind.
func (w *TableWrite) writeTo(row sql.Row, part []byte, bucket int) error {
	switch row.Kind {
	case sql.Delete:
		if w.ignoreDelete {
			return nil
		}
	case sql.UpdateBefore:
		if w.ignoreDelete || w.ignoreUB {
			return nil
		}
	}
	bw, err := w.writer(part, bucket)
	if err != nil {
		return err
	}
	if err := bw.mt.Write(row.Kind, row.Values); err != nil {
		return fmt.Errorf("paimon table %s bucket %d: %w", w.t.Root, bucket, err)
	}
	return nil
}

// keyHash is the hashCode of the row's trimmed primary key BinaryRow, the
// hash dynamic bucket mode routes and indexes keys by
// (HashBucketAssignerOperator, DynamicBucketIndexMaintainer).
func (t *Table) keyHash(vals []any, scratch []byte) (int32, []byte, error) {
	var arr [8]any
	key := arr[:0]
	for _, p := range t.keyIdx {
		key = append(key, vals[p])
	}
	b, err := binrow.AppendEncode(scratch[:0], t.keyTypes, key)
	if err != nil {
		return 0, scratch, fmt.Errorf("primary key of row: %w", err)
	}
	return binrow.Hash(b), b, nil
}

// rowKindName is Java's RowKind enum name.
func rowKindName(k sql.RowKind) string {
	switch k {
	case sql.Insert:
		return "INSERT"
	case sql.UpdateBefore:
		return "UPDATE_BEFORE"
	case sql.UpdateAfter:
		return "UPDATE_AFTER"
	case sql.Delete:
		return "DELETE"
	}
	return k.String()
}

// restored returns the committed files of a bucket in the latest snapshot,
// in dynamic bucket mode its HASH index file (nil: none) and with deletion
// vectors its DELETION_VECTORS index files.
func (w *TableWrite) restored(k bucketKey) ([]manifest.DataFileMeta, *manifest.IndexManifestEntry, []manifest.IndexManifestEntry, error) {
	files, idx, err := w.restoredFiles(k)
	if err != nil || !w.dvs || w.ignorePrevious {
		return files, idx, nil, err
	}
	return files, idx, w.restoreDVs[k], nil
}

func (w *TableWrite) restoredFiles(k bucketKey) ([]manifest.DataFileMeta, *manifest.IndexManifestEntry, error) {
	if w.ignorePrevious {
		return nil, nil, nil
	}
	id, ok, err := w.t.Snapshots.LatestID()
	if err != nil {
		return nil, nil, fmt.Errorf("paimon table %s: restore writer: %w", w.t.Root, err)
	}
	if !ok {
		return nil, nil, nil
	}
	if !w.restoreKnown || id != w.restoreID {
		s, err := w.t.Snapshots.Read(id)
		if err != nil {
			return nil, nil, fmt.Errorf("paimon table %s: restore writer: %w", w.t.Root, err)
		}
		es, err := w.t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
		if err != nil {
			return nil, nil, fmt.Errorf("paimon table %s: restore writer from snapshot %d: %w", w.t.Root, id, err)
		}
		m := map[bucketKey][]manifest.DataFileMeta{}
		for _, e := range es {
			bk := bucketKey{string(e.Partition), int(e.Bucket)}
			m[bk] = append(m[bk], e.File)
		}
		idx := map[bucketKey]manifest.IndexManifestEntry{}
		if w.assigner != nil {
			hs, err := w.t.indexEntries(s, index.TypeHash)
			if err != nil {
				return nil, nil, fmt.Errorf("paimon table %s: restore writer: %w", w.t.Root, err)
			}
			for _, e := range hs {
				bk := bucketKey{string(e.Partition), int(e.Bucket)}
				if _, dup := idx[bk]; dup {
					return nil, nil, fmt.Errorf("paimon table %s: snapshot %d: Find multiple hash index files for one bucket: bucket %d", w.t.Root, id, e.Bucket)
				}
				idx[bk] = e
			}
		}
		dvs := map[bucketKey][]manifest.IndexManifestEntry{}
		if w.dvs {
			es, err := w.t.indexEntries(s, manifest.IndexDeletionVectors)
			if err != nil {
				return nil, nil, fmt.Errorf("paimon table %s: restore writer: %w", w.t.Root, err)
			}
			for _, e := range es {
				bk := bucketKey{string(e.Partition), int(e.Bucket)}
				dvs[bk] = append(dvs[bk], e)
			}
		}
		w.restoreID, w.restoreFiles, w.restoreIndex, w.restoreDVs, w.restoreKnown = id, m, idx, dvs, true
	}
	if e, ok := w.restoreIndex[k]; ok {
		return w.restoreFiles[k], &e, nil
	}
	return w.restoreFiles[k], nil, nil
}

// writer is the writer of (part, bucket), created or restored on first
// use. The previous row's writer is tried first: consecutive rows mostly
// go to one bucket, and the map's key needs part as a string (an
// allocation a row).
func (w *TableWrite) writer(part []byte, bucket int) (*bucketWriter, error) {
	if l := w.last; l != nil && l.bucket == bucket && bytes.Equal(l.part, part) {
		return l, nil
	}
	bw, err := w.writerOf(part, bucket)
	if err == nil {
		w.last = bw
	}
	return bw, err
}

func (w *TableWrite) writerOf(part []byte, bucket int) (*bucketWriter, error) {
	k := bucketKey{string(part), bucket}
	if bw, ok := w.writers[k]; ok {
		return bw, nil
	}
	if err := w.t.checkPartitionTimestamp(part); err != nil {
		return nil, err
	}
	if bucket == -2 && w.postponeFiles {
		if w.ppPool == nil && len(w.writers) >= w.t.Options.WriteMaxWritersToSpill {
			// AbstractFileStoreWrite.createWriterContainer: forceBufferSpill.
			w.ppPool = newPostponePool(w.t, filepath.Join(w.tmp, "postpone"))
			for _, k := range w.order {
				if pp := w.writers[k].pp; pp != nil {
					if err := pp.toBuffered(w.ppPool); err != nil {
						return nil, err
					}
				}
			}
		}
		// PostponeBucketFileStoreWrite ignores previous files.
		pp, err := w.t.newPostponeFileWriter(part, w.commitUser, w.writeID)
		if err != nil {
			return nil, err
		}
		if w.ppPool != nil {
			if err := pp.toBuffered(w.ppPool); err != nil {
				return nil, err
			}
		}
		bw := &bucketWriter{part: part, bucket: bucket, pp: pp}
		w.writers[k] = bw
		w.order = append(w.order, k)
		return bw, nil
	}
	files, idx, dvIdx, err := w.restored(k)
	if err != nil {
		return nil, err
	}
	st, err := w.t.newBucketStore(part, bucket)
	if err != nil {
		return nil, err
	}
	// Data files past a few MiB (a full write buffer's flush, a
	// compaction's output) keep their finished pages in the write's
	// scratch directory until their row group is written, not in memory.
	st.wopts.SpillDir = filepath.Join(w.tmp, "pages")
	bw := &bucketWriter{part: part, bucket: bucket, store: st}
	if w.assigner != nil {
		var restored []int32
		if idx != nil {
			if restored, err = w.t.readHashIndex(*idx); err != nil {
				return nil, err
			}
		}
		bw.hashes = index.NewBucketHashes(restored)
	}
	if w.t.PrimaryKey() {
		metas := make([]*mergetree.FileMeta, 0, len(files))
		for _, f := range files {
			st.remember(f)
			fm, err := w.t.fileMeta(f)
			if err != nil {
				return nil, err
			}
			metas = append(metas, fm)
		}
		if w.pool == nil {
			w.pool = mergetree.NewMemoryPool(w.t.Spec.WriteBufferSize)
		}
		opts := mergetree.WriterOptions{DeleteFile: st.deleteFile, Pool: w.pool}
		if w.dvs {
			vecs, err := w.t.readDeletionVectors(dvIdx)
			if err != nil {
				return nil, err
			}
			opts.DeletionVectors = &bucketDVs{Maintainer: dv.NewMaintainer(vecs, w.t.Options.DeletionVectorsBitmap64),
				t: w.t, part: part, bucket: bucket, names: w.indexNames}
		}
		dir := filepath.Join(w.tmp, fmt.Sprintf("b%d-%d", len(w.order), bucket))
		if w.t.Spec.NeedLookup {
			opts.NewLookup = w.t.Spec.NewDiskLookup(filepath.Join(dir, "lookup"), st)
		}
		if w.t.Options.WriteBufferSpillable {
			opts.Spiller = mergetree.NewDiskSpiller(w.t.Spec, filepath.Join(dir, "spill"))
		}
		mt, err := mergetree.NewWriter(w.t.Spec, st, metas, opts)
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: restore bucket %d: %w", w.t.Root, bucket, err)
		}
		bw.mt = mt
	} else {
		var next int64
		for _, f := range files {
			next = max(next, f.MaxSequenceNumber+1)
		}
		if w.t.Options.RowTracking {
			// AppendFileStoreWrite (bucket -1, the only mode row tracking
			// allows) ignores previous files: sequence numbers start at 0,
			// which the commit replaces by the snapshot id.
			next = 0
		}
		bw.app = &appendWriter{s: st, nextSeq: next}
	}
	w.writers[k] = bw
	w.order = append(w.order, k)
	return bw, nil
}

// PrepareCommit flushes every writer and collects what to commit. With
// endOfInput, running compactions are waited for (as are lookup
// compactions of lookup-wait tables always).
func (w *TableWrite) PrepareCommit(endOfInput bool) ([]CommitMessage, error) {
	if w.fullEvery > 0 && w.now().Sub(w.lastFull) >= w.fullEvery {
		w.lastFull = w.now()
		for _, k := range w.order {
			if bw := w.writers[k]; bw.mt != nil {
				if err := bw.mt.Compact(true); err != nil {
					return nil, fmt.Errorf("paimon table %s bucket %d: full compaction: %w", w.t.Root, bw.bucket, err)
				}
			}
		}
	}
	var out []CommitMessage
	for _, k := range w.order {
		bw := w.writers[k]
		m := CommitMessage{Partition: bw.part, Bucket: bw.bucket, TotalBuckets: w.t.TotalBuckets()}
		if w.postpone != nil {
			// PostponeBatchWriteOperator.prepareCommit: the partition's
			// bucket count, not the table's -2.
			m.TotalBuckets = int32(w.postpone.known[string(bw.part)])
		}
		if bw.mt != nil {
			wait := endOfInput || (w.t.Spec.NeedLookup && w.t.Spec.LookupWait)
			inc, err := bw.mt.PrepareCommit(wait)
			if err != nil {
				return nil, fmt.Errorf("paimon table %s bucket %d: prepare commit: %w", w.t.Root, bw.bucket, err)
			}
			if err := m.fill(bw.store, inc); err != nil {
				return nil, err
			}
			if inc.DeletionIndex != nil {
				// The compaction's deletion vectors, in the COMPACT part
				// (AbstractFileStoreWrite.prepareCommit).
				m.CompactIndexFiles = append(m.CompactIndexFiles, inc.DeletionIndex.(*dvIndexFile).entry)
			}
		} else if bw.pp != nil {
			files, err := bw.pp.prepareCommit()
			if err != nil {
				return nil, fmt.Errorf("paimon table %s bucket-postpone: prepare commit: %w", w.t.Root, err)
			}
			m.NewFiles = files
		} else {
			files, err := bw.app.prepareCommit()
			if err != nil {
				return nil, err
			}
			m.NewFiles = files
		}
		if bw.hashes != nil && bw.hashes.Modified() {
			e, err := w.t.writeHashIndex(w.indexNames.Next(), bw.part, bw.bucket, bw.hashes.Hashes())
			if err != nil {
				return nil, err
			}
			bw.hashes.Written()
			m.NewIndexFiles = append(m.NewIndexFiles, e)
		}
		if !m.Empty() {
			out = append(out, m)
		}
	}
	return out, nil
}

func (m *CommitMessage) fill(st *bucketStore, inc *mergetree.CommitIncrement) error {
	var err error
	if m.NewFiles, err = st.metasOf(inc.NewFiles); err != nil {
		return err
	}
	if m.NewChangelog, err = st.metasOf(inc.NewChangelog); err != nil {
		return err
	}
	if m.CompactBefore, err = st.metasOf(inc.CompactBefore); err != nil {
		return err
	}
	if m.CompactAfter, err = st.metasOf(inc.CompactAfter); err != nil {
		return err
	}
	if m.CompactChangelog, err = st.metasOf(inc.CompactChangelog); err != nil {
		return err
	}
	return nil
}

// Compact compacts the buckets of the latest snapshot and those this write
// has opened since, whose partition passes filter (nil: all), full or normal (CALL sys.compact, sqlrun
// compact); works for write-only tables too. Call PrepareCommit afterwards
// and commit the messages.
func (w *TableWrite) Compact(full bool, partition func([]any) bool) error {
	if !w.t.PrimaryKey() {
		return nil // append compaction is not implemented; nothing to do
	}
	s, err := w.t.Snapshots.Latest()
	if err != nil || s == nil {
		return err
	}
	splits, err := w.t.PlanFull(s, &Filter{Partition: partition})
	if err != nil {
		return err
	}
	done := map[bucketKey]bool{}
	for _, sp := range splits {
		bw, err := w.writer(sp.Partition, sp.Bucket)
		if err != nil {
			return err
		}
		done[bucketKey{string(sp.Partition), sp.Bucket}] = true
		if err := bw.mt.Compact(full); err != nil {
			return fmt.Errorf("paimon table %s bucket %d: compact: %w", w.t.Root, sp.Bucket, err)
		}
	}
	// Buckets this write opened since (new keys, dynamic bucket mode) too.
	for _, k := range append([]bucketKey(nil), w.order...) {
		bw := w.writers[k]
		if done[k] || bw.mt == nil {
			continue
		}
		if partition != nil && len(w.t.PartTypes) > 0 {
			vals, err := w.t.PartitionValues(bw.part)
			if err != nil {
				return err
			}
			if !partition(vals) {
				continue
			}
		}
		if err := bw.mt.Compact(full); err != nil {
			return fmt.Errorf("paimon table %s bucket %d: compact: %w", w.t.Root, bw.bucket, err)
		}
	}
	return nil
}

// Close releases the writers. Uncommitted files stay as orphans (a
// compaction in flight is discarded and its files deleted).
func (w *TableWrite) Close() error {
	var first error
	for _, k := range w.order {
		bw := w.writers[k]
		if bw.mt != nil {
			if err := bw.mt.Close(); err != nil && first == nil {
				first = err
			}
		} else if bw.pp != nil {
			bw.pp.abort()
		} else {
			bw.app.abort()
		}
	}
	w.writers, w.order = map[bucketKey]*bucketWriter{}, nil
	if w.pool != nil {
		w.pool.Close()
		w.pool = nil
	}
	if w.ppPool != nil {
		w.ppPool.close()
		w.ppPool = nil
	}
	if w.ownTmp {
		removeTempDir(w.tmp)
	}
	return first
}

// appendWriter writes rows of one bucket of an append table into rolling
// files (target-file-size).
type appendWriter struct {
	s       *bucketStore
	nextSeq int64
	name    string
	out     io.WriteCloser
	w       *format.AppendWriter
	done    []manifest.DataFileMeta
}

func (a *appendWriter) write(row []any) error {
	if a.w == nil {
		if a.s.woptsErr != nil {
			return a.s.woptsErr
		}
		a.name = a.s.names.Data()
		out, err := a.s.t.FIO.Create(fs.Join(a.s.dir, a.name))
		if err != nil {
			return fmt.Errorf("create %s: %w", a.name, err)
		}
		w, err := format.NewAppendWriter(out, a.s.t.Schema.Fields, a.nextSeq, a.s.wopts)
		if err != nil {
			out.Close()
			return err
		}
		a.out, a.w = out, w
	}
	if err := a.w.Write(row); err != nil {
		return fmt.Errorf("write %s: %w", a.name, err)
	}
	if a.w.RowCount()%1024 == 0 {
		if a.w.BytesWritten() >= a.s.target {
			return a.roll()
		}
	}
	return nil
}

func (a *appendWriter) roll() error {
	w, out := a.w, a.out
	a.w, a.out = nil, nil
	res, err := w.Close()
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		_ = a.s.t.FIO.Delete(fs.Join(a.s.dir, a.name))
		return fmt.Errorf("finish %s: %w", a.name, err)
	}
	a.nextSeq = res.MaxSeq + 1
	m := res.DataFileMeta(a.name, a.s.t.Schema.ID, 0, manifest.SourceAppend, localMillis())
	a.done = append(a.done, m)
	return nil
}

func (a *appendWriter) prepareCommit() ([]manifest.DataFileMeta, error) {
	if a.w != nil {
		if err := a.roll(); err != nil {
			return nil, err
		}
	}
	out := a.done
	a.done = nil
	sort.SliceStable(out, func(i, j int) bool { return out[i].MinSequenceNumber < out[j].MinSequenceNumber })
	return out, nil
}

func (a *appendWriter) abort() {
	if a.w != nil {
		a.w.Close()
		a.out.Close()
		_ = a.s.t.FIO.Delete(fs.Join(a.s.dir, a.name))
		a.w, a.out = nil, nil
	}
}
