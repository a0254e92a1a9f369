package stream

import (
	"bytes"
	"errors"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// Table is the read side of one Paimon table directory: its snapshot,
// schema and manifest stores, the latest schema, and the table layer
// (connectors/paimon/table) whose split readers do the merge-on-read.
type Table struct {
	// TT is the table layer.
	TT        *table.Table
	FIO       fs.FileIO
	Root      string
	Snapshots *snapshot.Manager
	Schemas   *schema.Manager
	Manifests *manifest.Store
	// Schema is the latest schema with the dynamic options (hints) laid
	// over its options; reads produce its fields.
	Schema *schema.TableSchema
	// Spec is the merge-tree spec (nil for append tables).
	Spec *mergetree.Spec
}

// OpenTable opens the table at root. options override the schema's
// options (dynamic options / hints), as Paimon's copy() does.
func OpenTable(fio fs.FileIO, root string, options map[string]string) (*Table, error) {
	if fio == nil {
		fio = fs.NewLocal()
	}
	tt, err := table.Open(fio, root, options)
	if err != nil {
		return nil, err
	}
	return tableOf(tt), nil
}

// tableOf is the read side of an opened table.
func tableOf(tt *table.Table) *Table {
	fio, root := tt.FIO, tt.Root
	ts := *tt.Schema
	ts.Options = tt.Options.Raw()
	return &Table{TT: tt, FIO: fio, Root: root, Snapshots: tt.Snapshots, Schemas: tt.Schemas, Manifests: tt.Manifests,
		Schema: &ts, Spec: tt.Spec}
}

// HasPrimaryKey reports a primary-key (KeyValue) table.
func (t *Table) HasPrimaryKey() bool { return t.Spec != nil }

// Producer is the table's changelog-producer (none by default).
func (t *Table) Producer() string {
	return t.TT.Options.ChangelogProducer
}

// PartitionPath is the partition directory prefix ("dt=1/" or "") of a
// serialized partition row.
func (t *Table) PartitionPath(part []byte) (string, error) { return t.TT.PartitionPath(part) }

// PartitionValues decodes a serialized partition row.
func (t *Table) PartitionValues(part []byte) ([]any, error) {
	if len(t.TT.PartTypes) == 0 {
		return nil, nil
	}
	return binrow.Deserialize(t.TT.PartTypes, part)
}

// FilePath is where a manifest entry's file lives.
func (t *Table) FilePath(e *manifest.ManifestEntry) (string, error) {
	if e.File.ExternalPath != nil && *e.File.ExternalPath != "" {
		return *e.File.ExternalPath, nil
	}
	pp, err := t.PartitionPath(e.Partition)
	if err != nil {
		return "", err
	}
	return fs.Join(format.BucketDir(t.Root, pp, int(e.Bucket)), e.File.FileName), nil
}

// SplitKey identifies a (partition, bucket) split.
type SplitKey struct {
	Partition string // serialized partition row bytes
	Bucket    int32
}

// Owner is the subtask a split belongs to: a stable FNV-1a hash of the
// partition bytes and bucket, mod parallelism. It must not change between
// runs: a restored reader re-reads its own splits only.
func (k SplitKey) Owner(parallelism int) int {
	if parallelism <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(k.Partition))
	h.Write([]byte{byte(k.Bucket >> 24), byte(k.Bucket >> 16), byte(k.Bucket >> 8), byte(k.Bucket)})
	return int(h.Sum32() % uint32(parallelism))
}

// Split is the files of one (partition, bucket) that a scan reads, in
// manifest order.
type Split struct {
	Key   SplitKey
	Files []manifest.ManifestEntry
	// DVs are the snapshot's deletion vectors by data file name.
	DVs map[string]table.DeletionFile
}

// withDeletionFiles sets the deletion vectors of snapshot s on splits.
func (t *Table) withDeletionFiles(s *snapshot.Snapshot, splits []Split) ([]Split, error) {
	dfs, err := t.TT.DeletionFiles(s)
	if err != nil {
		return nil, err
	}
	for i := range splits {
		splits[i].DVs = dfs
	}
	return splits, nil
}

// groupSplits groups ADD entries by (partition, bucket), keeping manifest
// order inside a split and ordering splits by partition bytes then bucket.
// keep filters entries (nil keeps all ADDs); realOnly drops the files of
// a postpone-bucket table's bucket-postpone directory (bucket -2), which
// Paimon's scans do not read (table.Table.RealBucketsOnly).
func groupSplits(entries []manifest.ManifestEntry, keep func(*manifest.ManifestEntry) bool, realOnly bool) []Split {
	idx := map[SplitKey]int{}
	var out []Split
	for i := range entries {
		e := &entries[i]
		if e.Kind != manifest.Add || (keep != nil && !keep(e)) || (realOnly && e.Bucket < 0) {
			continue
		}
		k := SplitKey{Partition: string(e.Partition), Bucket: e.Bucket}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, Split{Key: k})
		}
		out[j].Files = append(out[j].Files, *e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if c := bytes.Compare([]byte(out[i].Key.Partition), []byte(out[j].Key.Partition)); c != 0 {
			return c < 0
		}
		return out[i].Key.Bucket < out[j].Key.Bucket
	})
	return out
}

// errExpired is wrapped by Paimon's OutOfRangeException message when the
// snapshot a reader needs next has been expired.
var errExpired = errors.New("snapshot expired")

// ExpiredError is Paimon's OutOfRangeException for a follow-up snapshot
// that expiration removed; the message names the way out.
func ExpiredError(id int64) error {
	return &sql.Error{Class: sql.OutOfRangeException,
		Msg: "The snapshot with id " + strconv.FormatInt(id, 10) + " has expired. You can: " +
			"1. increase the snapshot or changelog expiration time. " +
			"2. use consumer-id to ensure that unconsumed snapshots will not be expired.", Err: errExpired}
}
