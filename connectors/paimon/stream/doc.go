// Package stream reads Paimon tables as Flink's Paimon source does: a
// starting scan chosen by 'scan.mode' (the full phase: the merged rows of
// one snapshot), then, for streaming reads, follow-up scanning that picks up
// snapshot N+1, N+2, ... every 'continuous.discovery-interval' and emits the
// rows those snapshots added with their RowKinds (the incremental phase).
//
// Which files an incremental snapshot contributes depends on the table's
// 'changelog-producer' (paimon-format.md §8, flink-semantics.md §4):
//   - none: the delta files of APPEND snapshots, raw (+I/+U/-D as written;
//     Flink's ChangelogNormalize turns that upsert stream into a changelog);
//     COMPACT snapshots are skipped because they only rewrite data;
//   - input, lookup, full-compaction: the changelog files of any snapshot that
//     has a changelogManifestList, raw; others are skipped.
//
// OVERWRITE snapshots are skipped unless 'streaming-read-overwrite'.
//
// Readers are split per (partition, bucket); a split belongs to subtask
// hash(partition, bucket) mod parallelism, so every subtask reads the same
// snapshots but only its own buckets, and the order of rows per key is the
// order they were written in. A reader's position is (phase, snapshot id,
// rows emitted inside that snapshot): re-reading a snapshot is
// deterministic, so a restored reader re-opens the snapshot and skips the
// rows it had already emitted — exactly-once without storing file offsets.
//
// 'consumer-id' progress is written to consumer/consumer-<id> only when a
// checkpoint completes, as {"nextSnapshot": N}; a new job with the same id
// resumes incrementally at N.
package stream
