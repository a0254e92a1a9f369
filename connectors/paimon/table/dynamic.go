package table

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// Dynamic bucket mode (bucket = -1 on a primary-key table, Paimon's
// default): keys are routed to buckets by Paimon's HashBucketAssigner
// (package index) and every bucket writer keeps the HASH index file of its
// keys' hashes (DynamicBucketIndexMaintainer); the index files are
// committed in the index manifest of the same snapshot as the data.

// assignerOptions reads dynamic-bucket.target-row-num, max-buckets and
// initial-buckets. With one assigner task (sqlrun's), numAssigners is
// min(initial-buckets, 1) = 1 whatever initial-buckets says, as in
// HashBucketAssignerOperator; dynamic-bucket.assigner-parallelism only
// sets how many assigner tasks Flink runs.
func (t *Table) assignerOptions() (index.Options, error) {
	o := index.Options{TargetRows: 2_000_000, MaxBuckets: -1, NumAssigners: 1}
	o.TargetRows = t.Options.DynamicBucketTargetRows
	n := t.Options.DynamicBucketMaxBuckets
	if n != -1 && n < 1 {
		return o, sql.Errorf(sql.IllegalArgumentException, "'dynamic-bucket.max-buckets' = %d: it should either be equal to -1 (unlimited), or it must be greater than 0 (fixed upper bound).", n)
	}
	o.MaxBuckets = n
	return o, nil
}

// NewAssigner returns the bucket assigner of a write in dynamic bucket
// mode: HashBucketAssigner, loading each partition's hash index from the
// latest snapshot when first seen, or for INSERT OVERWRITE (overwrite)
// SimpleHashBucketAssigner, which starts every partition empty. The
// assigner is safe for concurrent use, so a sink's writers and its channel
// computer can share it.
func (t *Table) NewAssigner(overwrite bool) (index.BucketAssigner, error) {
	o, err := t.assignerOptions()
	if err != nil {
		return nil, err
	}
	if overwrite {
		return &lockedAssigner{a: index.NewSimpleAssigner(o)}, nil
	}
	return &lockedAssigner{a: index.NewAssigner(o, t.loadPartitionIndex)}, nil
}

type lockedAssigner struct {
	mu sync.Mutex
	a  index.BucketAssigner
}

func (l *lockedAssigner) Assign(part []byte, hash int32) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.a.Assign(part, hash)
}

// loadPartitionIndex reads the HASH index files of a partition in the
// latest snapshot (PartitionIndex.loadIndex's scan).
func (t *Table) loadPartitionIndex(part []byte) ([]index.LoadedBucket, error) {
	s, err := t.Snapshots.Latest()
	if err != nil || s == nil {
		return nil, err
	}
	es, err := t.indexEntries(s, index.TypeHash)
	if err != nil {
		return nil, err
	}
	var out []index.LoadedBucket
	for _, e := range es {
		if string(e.Partition) != string(part) {
			continue
		}
		hs, err := t.readHashIndex(e)
		if err != nil {
			return nil, err
		}
		out = append(out, index.LoadedBucket{Bucket: int(e.Bucket), Hashes: hs})
	}
	return out, nil
}

// indexEntries returns the ADD entries of one index type in snapshot s's
// index manifest (IndexFileHandler.scan).
func (t *Table) indexEntries(s *snapshot.Snapshot, typ string) ([]manifest.IndexManifestEntry, error) {
	if s == nil || s.IndexManifest == nil || *s.IndexManifest == "" {
		return nil, nil
	}
	es, err := t.Manifests.ReadIndexManifest(*s.IndexManifest)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", s.ID, err)
	}
	var out []manifest.IndexManifestEntry
	for _, e := range es {
		if e.IndexType == typ && e.Kind == manifest.Add {
			out = append(out, e)
		}
	}
	return out, nil
}

// indexFilePath is where an index file lives: its external path, else
// indexPath.
func (t *Table) indexFilePath(e manifest.IndexManifestEntry) (string, error) {
	if e.ExternalPath != nil && *e.ExternalPath != "" {
		return *e.ExternalPath, nil
	}
	return t.indexPath(e.Partition, int(e.Bucket), e.FileName)
}

// indexPath is where index file name of a partition's bucket lives:
// <table>/index/<name> (IndexPathFactory), or with
// 'index-file-in-data-file-dir' = true the bucket's data directory
// (IndexInDataFileDirPathFactory.toPath, Paimon 1.3+).
func (t *Table) indexPath(part []byte, bucket int, name string) (string, error) {
	if !t.Options.IndexInDataDir {
		return fs.Join(t.Root, "index", name), nil
	}
	dir, err := t.bucketDir(part, bucket)
	if err != nil {
		return "", fmt.Errorf("paimon table %s: index file %s: %w", t.Root, name, err)
	}
	return fs.Join(dir, name), nil
}

// readHashIndex reads the hashes of a HASH index file.
func (t *Table) readHashIndex(e manifest.IndexManifestEntry) ([]int32, error) {
	p, err := t.indexFilePath(e)
	if err != nil {
		return nil, err
	}
	b, err := t.FIO.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: hash index: %w", t.Root, err)
	}
	hs, err := index.DecodeHashes(b, p)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	if int64(len(hs)) != e.RowCount {
		return nil, fmt.Errorf("paimon table %s: %w %s: %d hashes, the index manifest says %d", t.Root, index.ErrCorrupt, p, len(hs), e.RowCount)
	}
	return hs, nil
}

// writeHashIndex writes a bucket's hashes as a new HASH index file
// (HashIndexFile.write) and returns its index manifest entry.
func (t *Table) writeHashIndex(name string, part []byte, bucket int, hashes []int32) (manifest.IndexManifestEntry, error) {
	p, err := t.indexPath(part, bucket, name)
	if err != nil {
		return manifest.IndexManifestEntry{}, err
	}
	b := index.EncodeHashes(hashes)
	w, err := t.FIO.Create(p)
	if err != nil {
		return manifest.IndexManifestEntry{}, fmt.Errorf("paimon table %s: write hash index: %w", t.Root, err)
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		_ = t.FIO.Delete(p)
		return manifest.IndexManifestEntry{}, fmt.Errorf("paimon table %s: write hash index %s: %w", t.Root, name, err)
	}
	if err := w.Close(); err != nil {
		_ = t.FIO.Delete(p)
		return manifest.IndexManifestEntry{}, fmt.Errorf("paimon table %s: write hash index %s: %w", t.Root, name, err)
	}
	return manifest.IndexManifestEntry{Kind: manifest.Add, Partition: part, Bucket: int32(bucket), IndexType: index.TypeHash,
		FileName: name, FileSize: int64(len(b)), RowCount: int64(len(hashes))}, nil
}

// combineIndex is IndexManifestFileHandler.write for bucketed index types
// (HASH, and DELETION_VECTORS of bucketed tables; other types combine by
// file name as its GlobalIndexCombiner does): the previous manifest's
// entries with, per (partition, bucket, index type), deletions applied
// first and then additions replacing what was there. Entries keep the
// previous manifest's order; new buckets follow in commit order.
func combineIndex(prev, changes []manifest.IndexManifestEntry) []manifest.IndexManifestEntry {
	id := func(e *manifest.IndexManifestEntry) string {
		if e.IndexType != index.TypeHash && e.IndexType != manifest.IndexDeletionVectors {
			return "\x01" + e.IndexType + "\x00" + e.FileName // global indexes combine by file name
		}
		return string(e.Partition) + "\x00" + strconv.Itoa(int(e.Bucket)) + "\x00" + e.IndexType
	}
	pos := map[string]int{}
	out := make([]manifest.IndexManifestEntry, 0, len(prev)+len(changes))
	for _, e := range prev {
		pos[id(&e)] = len(out)
		out = append(out, e)
	}
	gone := make([]bool, len(out), len(out)+len(changes))
	for _, e := range changes {
		if e.Kind != manifest.Delete {
			continue
		}
		if i, ok := pos[id(&e)]; ok {
			gone[i] = true
		}
	}
	for _, e := range changes {
		if e.Kind != manifest.Add {
			continue
		}
		if i, ok := pos[id(&e)]; ok {
			out[i], gone[i] = e, false
			continue
		}
		pos[id(&e)] = len(out)
		out = append(out, e)
		gone = append(gone, false)
	}
	kept := out[:0]
	for i, e := range out {
		if !gone[i] {
			kept = append(kept, e)
		}
	}
	return kept
}

// RealBucketsOnly reports whether a scan skips the files of a postpone
// bucket table's bucket-postpone directory (bucket -2, written by Paimon's
// PostponeBucketWriter and not yet assigned a bucket by its compaction):
// batch scans always (DataTableBatchScan: onlyReadRealBuckets), streaming
// scans when the table has a changelog producer (DataTableStreamScan).
func (t *Table) RealBucketsOnly(streaming bool) bool {
	if !t.PrimaryKey() || t.NumBuckets != -2 {
		return false
	}
	return !streaming || t.Spec.Producer != coreoptions.ProducerNone
}
