package mergetree

import "time"

// RecordExpire is Paimon's RecordLevelExpire ('record-level.expire-time'
// with 'record-level.time-field'): compaction drops the records whose time
// field is older than the expire time (records with a null time are
// kept), a file whose least time has expired is rewritten rather than
// upgraded (MergeTreeCompactTask.containsExpiredRecords), and a full
// compaction with only the max level left rewrites its expired files
// (CompactStrategy.pickFullCompaction). Expiry is judged at each check in
// whole seconds, as Paimon's is.
type RecordExpire struct {
	// Seconds is the expire time in whole seconds (Duration.getSeconds).
	Seconds int64
	// Field is the time field's position in KV.Value.
	Field int
	// Time converts a non-null value of the field to epoch seconds
	// (createFieldGetterAndConvertToSecond).
	Time func(v any) int64
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

func (e *RecordExpire) nowSeconds() int64 {
	if e.Now != nil {
		return e.Now().Unix()
	}
	return time.Now().Unix()
}

// keep is RecordLevelExpire.wrap's filter.
func (e *RecordExpire) keep(now int64, kv *KV) bool {
	v := kv.Value[e.Field]
	return v == nil || now <= e.Time(v)+e.Seconds
}

// FileExpired is RecordLevelExpire.isExpireFile: the file's least time
// (FileMeta.MinTime, from its value statistics) has expired. False when e
// is nil or the least time is unknown.
func (e *RecordExpire) FileExpired(f *FileMeta) bool {
	return e != nil && f.MinTime != nil && e.nowSeconds()-e.Seconds > *f.MinTime
}

// expireIter drops the expired records of one compaction input.
type expireIter struct {
	it  Iterator
	e   *RecordExpire
	now int64
}

func (x *expireIter) Next() *KV {
	for {
		r := x.it.Next()
		if r == nil || x.e.keep(x.now, r) {
			return r
		}
	}
}

func (x *expireIter) Error() error { return x.it.Error() }
func (x *expireIter) Close() error { return x.it.Close() }
