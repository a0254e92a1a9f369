package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Options are the dynamic-bucket options of an assigner (CoreOptions
// dynamic-bucket.target-row-num and dynamic-bucket.max-buckets) and its
// place among the assigners of a job (HashBucketAssignerOperator:
// numAssigners = min(dynamic-bucket.initial-buckets, assigner tasks),
// assignID = the task's index). sqlrun runs one assigner task, so
// NumAssigners is 1 and AssignID 0, as Paimon's are for one task.
type Options struct {
	TargetRows   int64
	MaxBuckets   int // -1: unlimited
	NumAssigners int
	AssignID     int
}

// isMyBucket is BucketAssigner.isMyBucket.
func (o *Options) isMyBucket(bucket int) bool {
	n := max(o.NumAssigners, 1)
	return bucket%n == o.AssignID%n
}

// LoadedBucket is one HASH index file of a partition: its bucket and
// hashes, in the order of the index manifest.
type LoadedBucket struct {
	Bucket int
	Hashes []int32
}

// Loader returns the HASH index files of a partition (serialized
// partition bytes) in the latest snapshot.
type Loader func(partition []byte) ([]LoadedBucket, error)

// Assigner is Paimon's HashBucketAssigner for one assigner task: per
// partition a PartitionIndex loaded from the latest snapshot's hash index
// the first time the partition is seen. A key hash seen before keeps its
// bucket; a new one goes to the first bucket (in the order Java's HashMap
// iterates them) that holds fewer than target-row-num keys, else to a new
// bucket (the lowest free id this assigner owns), else, past
// dynamic-bucket.max-buckets, to a random existing bucket. Not safe for
// concurrent use.
type Assigner struct {
	o     Options
	load  Loader
	parts map[string]*partitionIndex
	// maxBucketID is the largest bucket assigned in any partition (Java
	// passes the assigner-wide maximum to PartitionIndex.assign).
	maxBucketID int
}

// NewAssigner creates a HashBucketAssigner that loads partitions with load.
func NewAssigner(o Options, load Loader) *Assigner {
	if o.NumAssigners < 1 {
		o.NumAssigners = 1
	}
	return &Assigner{o: o, load: load, parts: map[string]*partitionIndex{}}
}

// Assign returns the bucket of a key hash (the trimmed primary key
// BinaryRow's hashCode) in a partition (serialized partition bytes).
func (a *Assigner) Assign(partition []byte, hash int32) (int, error) {
	p, ok := a.parts[string(partition)]
	if !ok {
		loaded, err := a.load(partition)
		if err != nil {
			return 0, err
		}
		p = a.loadIndex(loaded)
		a.parts[string(partition)] = p
	}
	b, err := p.assign(hash, &a.o, a.maxBucketID)
	if err != nil {
		return 0, err
	}
	a.maxBucketID = max(a.maxBucketID, b)
	return b, nil
}

// loadIndex is PartitionIndex.loadIndex: every hash of every index file
// maps to its file's bucket, and each bucket counts its hashes (the rows
// it holds; an empty file adds no bucket, as Java counts per hash read).
func (a *Assigner) loadIndex(files []LoadedBucket) *partitionIndex {
	p := &partitionIndex{target: a.o.TargetRows, hash2bucket: map[int32]int16{}, nonFull: newJavaIntMap()}
	for _, f := range files {
		for _, h := range f.Hashes {
			p.hash2bucket[h] = int16(f.Bucket) // one assigner task: every hash is its own
			if a.o.isMyBucket(f.Bucket) {
				p.nonFull.add(f.Bucket, 1)
			}
		}
	}
	p.total = map[int]bool{}
	for _, b := range p.nonFull.keys() {
		p.total[b] = true
		p.totalOrder = append(p.totalOrder, b)
	}
	return p
}

// partitionIndex is Paimon's PartitionIndex.
type partitionIndex struct {
	target      int64
	hash2bucket map[int32]int16
	// nonFull is nonFullBucketInformation (bucket → rows), a java.util.HashMap
	// in Java: its iteration order decides which bucket a new key joins.
	nonFull *javaIntMap
	// total/totalOrder are totalBucketSet and totalBucketArray.
	total      map[int]bool
	totalOrder []int
}

// maxShortBuckets is Short.MAX_VALUE: bucket ids are stored as shorts.
const maxShortBuckets = math.MaxInt16

func (p *partitionIndex) assign(hash int32, o *Options, maxBucketID int) (int, error) {
	// 1. a key seen before
	if b, ok := p.hash2bucket[hash]; ok {
		return int(b), nil
	}
	// 2. the first existing bucket with room; full ones leave the map
	for {
		b, rows, ok := p.nonFull.first()
		if !ok {
			break
		}
		if rows < p.target {
			p.nonFull.set(b, rows+1)
			p.hash2bucket[hash] = int16(b)
			return b, nil
		}
		p.nonFull.remove(b)
	}
	globalMax := maxShortBuckets - 1
	if o.MaxBuckets != -1 {
		globalMax = o.MaxBuckets - 1
	}
	if len(p.total) == 0 || maxBucketID < globalMax {
		// 3. a new bucket: the lowest id this assigner owns and has not used
		for i := 0; i <= globalMax; i++ {
			if o.isMyBucket(i) && !p.total[i] {
				p.nonFull.add(i, 1)
				p.total[i] = true
				p.totalOrder = append(p.totalOrder, i)
				p.hash2bucket[hash] = int16(i)
				return i, nil
			}
		}
		if o.MaxBuckets == -1 {
			return 0, fmt.Errorf("Too more bucket %d, you should increase target bucket row number %d.", maxBucketID, p.target)
		}
	}
	// 4. past dynamic-bucket.max-buckets: a random existing bucket
	if len(p.totalOrder) == 0 {
		return 0, fmt.Errorf("dynamic bucket assigner: no bucket to assign within 'dynamic-bucket.max-buckets' = %d", o.MaxBuckets)
	}
	b := p.totalOrder[rand.IntN(len(p.totalOrder))]
	p.hash2bucket[hash] = int16(b)
	return b, nil
}

// javaIntMap keeps int → int64 entries in the order a java.util.HashMap
// with Integer keys iterates them: by table slot (the key's spread hash
// masked by the capacity, which starts at 16 and doubles when the size
// passes 0.75 of it, never shrinking), and within a slot in insertion
// order (resizing splits slots but keeps their relative order). Bucket ids
// are below 2^15, so the spread hash is the key itself.
type javaIntMap struct {
	capacity int
	seq      int
	entries  []javaEntry // in iteration order
}

type javaEntry struct {
	key  int
	val  int64
	slot int
	seq  int
}

func newJavaIntMap() *javaIntMap { return &javaIntMap{capacity: 16} }

func (m *javaIntMap) find(k int) int {
	for i := range m.entries {
		if m.entries[i].key == k {
			return i
		}
	}
	return -1
}

// add adds d to k's value, inserting k with d when absent (Map.compute).
func (m *javaIntMap) add(k int, d int64) {
	if i := m.find(k); i >= 0 {
		m.entries[i].val += d
		return
	}
	m.seq++
	m.entries = append(m.entries, javaEntry{key: k, val: d, seq: m.seq})
	resort := len(m.entries) > m.capacity*3/4
	for len(m.entries) > m.capacity*3/4 {
		m.capacity *= 2
	}
	if resort {
		for i := range m.entries {
			m.entries[i].slot = m.entries[i].key & (m.capacity - 1)
		}
	} else {
		m.entries[len(m.entries)-1].slot = k & (m.capacity - 1)
	}
	sort.SliceStable(m.entries, func(i, j int) bool {
		a, b := m.entries[i], m.entries[j]
		if a.slot != b.slot {
			return a.slot < b.slot
		}
		return a.seq < b.seq
	})
}

func (m *javaIntMap) set(k int, v int64) {
	if i := m.find(k); i >= 0 {
		m.entries[i].val = v
	}
}

func (m *javaIntMap) remove(k int) {
	if i := m.find(k); i >= 0 {
		m.entries = append(m.entries[:i], m.entries[i+1:]...)
	}
}

func (m *javaIntMap) first() (int, int64, bool) {
	if len(m.entries) == 0 {
		return 0, 0, false
	}
	return m.entries[0].key, m.entries[0].val, true
}

func (m *javaIntMap) keys() []int {
	out := make([]int, len(m.entries))
	for i, e := range m.entries {
		out[i] = e.key
	}
	return out
}

// SimpleAssigner is Paimon's SimpleHashBucketAssigner, the assigner of
// INSERT OVERWRITE (the overwritten partitions start empty, so nothing is
// loaded): keys fill one bucket up to target-row-num, then the next free
// bucket id this assigner owns; past dynamic-bucket.max-buckets a random
// used bucket.
type SimpleAssigner struct {
	o           Options
	parts       map[string]*simplePartition
	maxBucketID int
}

type simplePartition struct {
	hash2bucket map[int32]int16
	rows        map[int]int64
	list        []int
	current     int
}

// NewSimpleAssigner creates a SimpleHashBucketAssigner.
func NewSimpleAssigner(o Options) *SimpleAssigner {
	if o.NumAssigners < 1 {
		o.NumAssigners = 1
	}
	return &SimpleAssigner{o: o, parts: map[string]*simplePartition{}}
}

// Assign returns the bucket of a key hash in a partition.
func (a *SimpleAssigner) Assign(partition []byte, hash int32) (int, error) {
	p, ok := a.parts[string(partition)]
	if !ok {
		p = &simplePartition{hash2bucket: map[int32]int16{}, rows: map[int]int64{}}
		if err := a.loadNewBucket(p); err != nil {
			return 0, err
		}
		a.parts[string(partition)] = p
	}
	if b, ok := p.hash2bucket[hash]; ok {
		return int(b), nil
	}
	num, ok := p.rows[p.current]
	if !ok {
		p.rows[p.current] = 0
		p.list = append(p.list, p.current)
	}
	if num >= a.o.TargetRows {
		if a.o.MaxBuckets == -1 || len(p.rows) == 0 || a.maxBucketID < a.o.MaxBuckets-1 {
			if err := a.loadNewBucket(p); err != nil {
				return 0, err
			}
		} else {
			p.current = p.list[rand.IntN(len(p.list))]
		}
	}
	p.rows[p.current]++
	p.hash2bucket[hash] = int16(p.current)
	a.maxBucketID = max(a.maxBucketID, p.current)
	return p.current, nil
}

// loadNewBucket moves to the lowest unused bucket id this assigner owns
// (staying on the current one when that id is past max-buckets, as Java
// does).
func (a *SimpleAssigner) loadNewBucket(p *simplePartition) error {
	for i := 0; i < maxShortBuckets; i++ {
		if _, used := p.rows[i]; a.o.isMyBucket(i) && !used {
			if a.o.MaxBuckets == -1 || i <= a.o.MaxBuckets-1 {
				p.current = i
			}
			return nil
		}
	}
	return fmt.Errorf("Can't find a suitable bucket to assign, all the bucket are assigned?")
}

// BucketAssigner is what a dynamic-bucket writer routes keys with.
type BucketAssigner interface {
	Assign(partition []byte, hash int32) (int, error)
}

var (
	_ BucketAssigner = (*Assigner)(nil)
	_ BucketAssigner = (*SimpleAssigner)(nil)
)
