package table

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/dv"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/index"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// DeletionFile locates one data file's deletion vector (Paimon's
// DeletionFile): an index file, the vector's offset and recorded length.
type DeletionFile struct {
	Path        string `json:"path"`
	Offset      int64  `json:"offset"`
	Length      int64  `json:"length"`
	Cardinality *int64 `json:"cardinality,omitempty"`
}

// DeletionFiles returns the deletion vectors of snapshot s by data file
// name, from the DELETION_VECTORS entries of its index manifest; nil when
// it has none. Data file names are unique in a table (a file upgraded to
// another level keeps its name and its vector).
func (t *Table) DeletionFiles(s *snapshot.Snapshot) (map[string]DeletionFile, error) {
	if s == nil || s.IndexManifest == nil || *s.IndexManifest == "" {
		return nil, nil
	}
	es, err := t.Manifests.ReadIndexManifest(*s.IndexManifest)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d of %s: %w", s.ID, t.Root, err)
	}
	// An index manifest lists the live index files; fold DELETE entries
	// anyway (IndexManifestFileHandler combines by file name).
	live := map[string]manifest.IndexManifestEntry{}
	var order []string
	for _, e := range es {
		if e.IndexType != manifest.IndexDeletionVectors {
			continue
		}
		if e.Kind == manifest.Delete {
			delete(live, e.FileName)
			continue
		}
		if _, ok := live[e.FileName]; !ok {
			order = append(order, e.FileName)
		}
		live[e.FileName] = e
	}
	var out map[string]DeletionFile
	for _, n := range order {
		e, ok := live[n]
		if !ok {
			continue
		}
		p, err := t.indexFilePath(e)
		if err != nil {
			return nil, err
		}
		for _, r := range e.DVRanges {
			if out == nil {
				out = map[string]DeletionFile{}
			}
			out[r.DataFile] = DeletionFile{Path: p, Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: r.Cardinality}
		}
	}
	return out, nil
}

// deletionVector reads the deletion vector of data file name from dfs, or
// returns nil when the file has none.
func (t *Table) deletionVector(dfs map[string]DeletionFile, name string) (dv.Vector, error) {
	d, ok := dfs[name]
	if !ok {
		return nil, nil
	}
	f, err := t.FIO.Open(d.Path)
	if err != nil {
		return nil, fmt.Errorf("deletion vector of %s: %w", name, err)
	}
	defer f.Close()
	v, err := dv.Read(f, d.Offset, d.Length, d.Path)
	if err != nil {
		return nil, fmt.Errorf("deletion vector of %s: %w", name, err)
	}
	if d.Cardinality != nil && *d.Cardinality != v.Cardinality() {
		return nil, fmt.Errorf("deletion vector of %s in %s: %w: %d positions, the index manifest says %d", name, d.Path, dv.ErrCorrupt, v.Cardinality(), *d.Cardinality)
	}
	return v, nil
}

// attach sets the deletion files of snapshot s on splits (except
// changelog splits: changelog files have no deletion vectors).
func (t *Table) attachDeletionFiles(s *snapshot.Snapshot, splits []Split) error {
	dfs, err := t.DeletionFiles(s)
	if err != nil || dfs == nil {
		return err
	}
	for i := range splits {
		if splits[i].Kind != SplitChangelog {
			splits[i].DeletionFiles = dfs
		}
	}
	return nil
}

// DeletionVectorsEnabled is 'deletion-vectors.enabled'.
func (t *Table) DeletionVectorsEnabled() bool { return t.Options.DeletionVectors }

// BatchSkipLevel0 reports whether a batch scan reads only files above
// level 0: primary-key tables with deletion vectors or the first-row merge
// engine (Paimon's DataTableBatchScan: withLevelFilter(level -> level > 0)),
// whose level-0 files are not visible until compacted.
func (t *Table) BatchSkipLevel0() bool {
	return t.PrimaryKey() && (t.DeletionVectorsEnabled() || t.Spec.Engine == coreoptions.EngineFirstRow)
}

// readDeletionVectors reads every vector of a bucket's DELETION_VECTORS
// index files into bitmaps a writer can extend
// (BucketedDvMaintainer.Factory.create).
func (t *Table) readDeletionVectors(entries []manifest.IndexManifestEntry) (map[string]*dv.Bitmap, error) {
	out := map[string]*dv.Bitmap{}
	for _, e := range entries {
		p, err := t.indexFilePath(e)
		if err != nil {
			return nil, err
		}
		b, err := t.FIO.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("paimon table %s: read deletion vectors: %w", t.Root, err)
		}
		if len(b) == 0 || b[0] != dv.IndexFileVersion {
			v := -1
			if len(b) > 0 {
				v = int(b[0])
			}
			return nil, fmt.Errorf("paimon table %s: %s: %w: Version not match, actual version: %d, expected version: %d", t.Root, p, dv.ErrCorrupt, v, dv.IndexFileVersion)
		}
		for _, r := range e.DVRanges {
			if r.Offset < 0 || int64(r.Offset) >= int64(len(b)) {
				return nil, fmt.Errorf("paimon table %s: %s: %w: vector of %s at offset %d beyond the file", t.Root, p, dv.ErrCorrupt, r.DataFile, r.Offset)
			}
			v, err := dv.Decode(b[r.Offset:], int64(r.Length), p)
			if err != nil {
				return nil, fmt.Errorf("paimon table %s: deletion vector of %s: %w", t.Root, r.DataFile, err)
			}
			bm, err := dv.ToBitmap(v)
			if err != nil {
				return nil, err
			}
			out[r.DataFile] = bm
		}
	}
	return out, nil
}

// bucketDVs is a bucket writer's deletion-vector maintainer: dv.Maintainer
// plus the index files it writes (mergetree.DeletionVectors).
type bucketDVs struct {
	*dv.Maintainer
	t      *Table
	part   []byte
	bucket int
	names  *index.Names
}

// dvIndexFile is a DELETION_VECTORS index file not committed yet.
type dvIndexFile struct {
	t     *Table
	entry manifest.IndexManifestEntry
}

// Discard implements mergetree.IndexFile.
func (f *dvIndexFile) Discard() {
	if p, err := f.t.indexFilePath(f.entry); err == nil {
		_ = f.t.FIO.Delete(p)
	}
}

// WriteIndex implements mergetree.DeletionVectors: when the vectors
// changed, all of them go into a new index file under index/
// (DeletionVectorsIndexFile.writeSingleFile), whose manifest entry
// replaces the bucket's previous one at commit.
func (d *bucketDVs) WriteIndex() (mergetree.IndexFile, error) {
	b, ranges, ok, err := d.Encode()
	if err != nil || !ok {
		return nil, err
	}
	name := d.names.Next()
	p, err := d.t.indexPath(d.part, d.bucket, name)
	if err != nil {
		return nil, err
	}
	if err := writeWhole(d.t.FIO, p, b); err != nil {
		return nil, fmt.Errorf("paimon table %s: write deletion vectors %s: %w", d.t.Root, name, err)
	}
	e := manifest.IndexManifestEntry{Kind: manifest.Add, Partition: d.part, Bucket: int32(d.bucket),
		IndexType: manifest.IndexDeletionVectors, FileName: name, FileSize: int64(len(b)), RowCount: int64(len(ranges)),
		DVRanges: make([]manifest.DVRange, 0, len(ranges))}
	for _, r := range ranges {
		c := r.Cardinality
		e.DVRanges = append(e.DVRanges, manifest.DVRange{DataFile: r.DataFile, Offset: int32(r.Offset), Length: int32(r.Length), Cardinality: &c})
	}
	return &dvIndexFile{t: d.t, entry: e}, nil
}

// writeWhole creates path with b, deleting it again on failure.
func writeWhole(fio fs.FileIO, path string, b []byte) error {
	w, err := fio.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		_ = fio.Delete(path)
		return err
	}
	if err := w.Close(); err != nil {
		_ = fio.Delete(path)
		return err
	}
	return nil
}

// checkDeletionVectorOptions is SchemaValidation.validateForDeletionVectors
// for a write (a table created before sqlrun validated it): the producers
// and merge engines Paimon allows with deletion vectors.
func (t *Table) checkDeletionVectorOptions() error {
	if !t.PrimaryKey() || !t.DeletionVectorsEnabled() {
		return nil
	}
	if t.Spec.Producer == coreoptions.ProducerFullCompaction {
		return fmt.Errorf("paimon table %s: %w", t.Root, sql.Errorf(sql.IllegalArgumentException, "Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer now."))
	}
	if t.Spec.Engine == coreoptions.EngineFirstRow {
		return fmt.Errorf("paimon table %s: %w", t.Root, sql.Errorf(sql.IllegalArgumentException, "First row merge engine does not need deletion vectors because there is no deletion of old data in this merge engine."))
	}
	return nil
}
