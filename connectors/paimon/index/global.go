package index

import (
	"errors"
	"sort"
	"time"
)

// ErrDuplicateKey is wrapped when a key is bootstrapped twice: the table
// holds one key in two (partition, bucket)s.
var ErrDuplicateKey = errors.New("Exception in bulkLoad, the most suspicious reason is that your data contains duplicates, please check your sink table. (The likelihood of duplication is that you used multiple jobs to write the same dynamic bucket table, it only supports single write)")

// GlobalIndex is the key index of Paimon's cross-partition upsert
// (KEY_DYNAMIC bucket mode, a primary key without every partition field):
// GlobalIndexAssigner's keyIndex (trimmed primary key → partition and
// bucket), its partition id mapping and its per-partition bucket counts
// (crosspartition.BucketAssigner). Paimon keeps the key index in a RocksDB
// instance under the task's temp directory and bootstraps it from the
// table every time the job starts (IndexBootstrap); sqlrun keeps it in
// memory and bootstraps it the same way, so nothing of it is checkpointed.
// Not safe for concurrent use.
type GlobalIndex struct {
	// target is (int) dynamic-bucket.target-row-num.
	target int64
	keys   map[string]keyLoc
	parts  []string
	partID map[string]int32
	counts []*bucketCounts // by partition id
	// ttl is cross-partition-upsert.index-ttl (0: none); now its clock.
	ttl time.Duration
	now func() time.Time
}

type keyLoc struct {
	part   int32
	bucket int32
	// at is when the entry was written (unix nanoseconds), for the TTL.
	at int64
}

// NewGlobalIndex creates an empty index; targetRows is
// dynamic-bucket.target-row-num, ttl cross-partition-upsert.index-ttl (0:
// entries never expire), now the clock (nil: time.Now).
func NewGlobalIndex(targetRows int64, ttl time.Duration, now func() time.Time) *GlobalIndex {
	if now == nil {
		now = time.Now
	}
	return &GlobalIndex{target: int64(int32(targetRows)), keys: map[string]keyLoc{}, partID: map[string]int32{}, ttl: ttl, now: now}
}

// Len is the number of keys indexed (expired ones included).
func (g *GlobalIndex) Len() int { return len(g.keys) }

// partitionID is IDMapping.index.
func (g *GlobalIndex) partitionID(part []byte) int32 {
	if id, ok := g.partID[string(part)]; ok {
		return id
	}
	id := int32(len(g.parts))
	g.parts = append(g.parts, string(part))
	g.partID[string(part)] = id
	g.counts = append(g.counts, &bucketCounts{})
	return id
}

func (g *GlobalIndex) stamp() int64 {
	if g.ttl <= 0 {
		return 0
	}
	return g.now().UnixNano()
}

// Bootstrap records that key (the serialized trimmed primary key) lives in
// (part, bucket) of the table (GlobalIndexAssigner.bootstrapKey and the
// bulk load after it): the bucket counts one more key. A key seen twice
// fails as Paimon's bulk load does.
func (g *GlobalIndex) Bootstrap(key, part []byte, bucket int) error {
	if _, dup := g.keys[string(key)]; dup {
		return ErrDuplicateKey
	}
	id := g.partitionID(part)
	g.counts[id].add(bucket, 1)
	g.keys[string(key)] = keyLoc{part: id, bucket: int32(bucket), at: g.stamp()}
	return nil
}

// Get returns where key lives; ok is false for a key never seen or whose
// entry is older than the TTL (sqlrun drops it at the first read after
// it expired; RocksDB's TTL database drops it at its next compaction).
func (g *GlobalIndex) Get(key []byte) (part []byte, bucket int, ok bool) {
	l, ok := g.keys[string(key)]
	if !ok {
		return nil, 0, false
	}
	if g.ttl > 0 && g.now().UnixNano()-l.at > int64(g.ttl) {
		delete(g.keys, string(key))
		return nil, 0, false
	}
	return []byte(g.parts[l.part]), int(l.bucket), true
}

// AssignNew is GlobalIndexAssigner.processNewRecord: key gets a bucket of
// part (BucketAssigner.assignBucket with one assigner task: the lowest
// bucket holding fewer than target-row-num keys, else the lowest bucket
// id not used yet) and the index maps it there.
func (g *GlobalIndex) AssignNew(key, part []byte) int {
	id := g.partitionID(part)
	c := g.counts[id]
	b := c.assign(g.target)
	g.keys[string(key)] = keyLoc{part: id, bucket: int32(b), at: g.stamp()}
	return b
}

// Decrement is BucketAssigner.decrement: a key left (part, bucket).
func (g *GlobalIndex) Decrement(part []byte, bucket int) {
	c := g.counts[g.partitionID(part)]
	if _, ok := c.n[bucket]; !ok {
		c.add(bucket, 0) // compute(bucket, v == null ? 0 : v - 1)
		return
	}
	c.add(bucket, -1)
}

// bucketCounts is one partition's TreeMap<bucket, keys>.
type bucketCounts struct {
	buckets []int // ascending
	n       map[int]int64
}

func (c *bucketCounts) add(bucket int, d int64) {
	if c.n == nil {
		c.n = map[int]int64{}
	}
	if _, ok := c.n[bucket]; !ok {
		i := sort.SearchInts(c.buckets, bucket)
		c.buckets = append(c.buckets, 0)
		copy(c.buckets[i+1:], c.buckets[i:])
		c.buckets[i] = bucket
	}
	c.n[bucket] += d
}

func (c *bucketCounts) assign(target int64) int {
	for _, b := range c.buckets {
		if c.n[b] < target {
			c.n[b]++
			return b
		}
	}
	b := 0
	for _, used := range c.buckets { // ascending: the first gap
		if used != b {
			break
		}
		b++
	}
	c.add(b, 1)
	return b
}
