package table

import (
	"errors"
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/dv"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
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
		p := fs.Join(t.Root, "index", e.FileName)
		if e.ExternalPath != nil && *e.ExternalPath != "" {
			p = *e.ExternalPath
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

// ErrDeletionVectors is wrapped when a write would have to maintain
// deletion vectors, which sqlrun reads but does not write.
var ErrDeletionVectors = errors.New("deletion vectors are not supported")

// DeletionVectorsEnabled is 'deletion-vectors.enabled'.
func (t *Table) DeletionVectorsEnabled() bool { return t.Options.DeletionVectors }

// BatchSkipLevel0 reports whether a batch scan reads only files above
// level 0: primary-key tables with deletion vectors or the first-row merge
// engine (Paimon's DataTableBatchScan: withLevelFilter(level -> level > 0)),
// whose level-0 files are not visible until compacted.
func (t *Table) BatchSkipLevel0() bool {
	return t.PrimaryKey() && (t.DeletionVectorsEnabled() || t.Spec.Engine == coreoptions.EngineFirstRow)
}

// NeedLookup is Paimon's CoreOptions.needLookup: changelog-producer
// lookup, merge-engine first-row, deletion vectors or force-lookup. A
// streaming read's full phase of such a table skips level 0.
func (t *Table) NeedLookup() bool {
	return t.PrimaryKey() && (t.Spec.NeedLookup || t.DeletionVectorsEnabled())
}
