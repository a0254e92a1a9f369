package stream

import (
	"bytes"
	"errors"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// owner is the subtask a split belongs to: a stable FNV-1a hash of the
// partition bytes and bucket, mod parallelism. It must not change between
// runs: a restored reader re-reads its own splits only.
func owner(partition []byte, bucket int32, parallelism int) int {
	if parallelism <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write(partition)
	h.Write([]byte{byte(bucket >> 24), byte(bucket >> 16), byte(bucket >> 8), byte(bucket)})
	return int(h.Sum32() % uint32(parallelism))
}

// withDeletionFiles sets the deletion vectors of snapshot s on splits.
func withDeletionFiles(t *table.Table, s *snapshot.Snapshot, splits []table.Split) ([]table.Split, error) {
	dfs, err := t.DeletionFiles(s)
	if err != nil {
		return nil, err
	}
	for i := range splits {
		splits[i].DeletionFiles = dfs
	}
	return splits, nil
}

// groupSplits groups ADD entries by (partition, bucket) into the table
// layer's splits (snapshot and kind are set when one is read), keeping
// manifest order inside a split and ordering splits by partition bytes then
// bucket. keep filters entries (nil keeps all ADDs); realOnly drops the
// files of a postpone-bucket table's bucket-postpone directory (bucket -2),
// which Paimon's scans do not read (table.Table.RealBucketsOnly).
func groupSplits(entries []manifest.ManifestEntry, keep func(*manifest.ManifestEntry) bool, realOnly bool) []table.Split {
	type key struct {
		partition string
		bucket    int32
	}
	idx := map[key]int{}
	var out []table.Split
	for i := range entries {
		e := &entries[i]
		if e.Kind != manifest.Add || (keep != nil && !keep(e)) || (realOnly && e.Bucket < 0) {
			continue
		}
		k := key{partition: string(e.Partition), bucket: e.Bucket}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, table.Split{Partition: e.Partition, Bucket: int(e.Bucket)})
		}
		out[j].Files = append(out[j].Files, e.File)
		out[j].TotalBuckets = e.TotalBuckets
	}
	sort.SliceStable(out, func(i, j int) bool {
		if c := bytes.Compare(out[i].Partition, out[j].Partition); c != 0 {
			return c < 0
		}
		return out[i].Bucket < out[j].Bucket
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
