// Package mergetree is the LSM logic of one Paimon primary-key bucket,
// independent of file formats: key comparison, merge functions (the merge
// engines), the write buffer, levels and sorted runs, universal compaction,
// merge-on-read and the lookup and full-compaction changelog producers.
//
// Everything here works over kv.KeyValue. Files are described by FileMeta and
// read and written through the RunStore interface, which the table layer
// backs with Parquet files and tests back with MemStore. The package follows
// Paimon 1.4.2 (paimon-core org.apache.paimon.mergetree); its rules are
// restated in the comments next to the code that implements them, so a
// reader can check them without the Java source.
//
// Iterators follow one contract (see Iterator): Next returns the next record
// or nil when exhausted or failed, Error reports the failure, Close must be
// called and releases what the iterator holds. Records returned by Next stay
// valid after the next call (they are never reused), so callers may keep them.
package mergetree
