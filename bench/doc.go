// Package bench holds measurements that cross packages: they run real jobs
// through exec.Session (the planner, the runtime, the Paimon connector) on
// Paimon tables in temporary directories, and report what a user of the
// whole product would see rather than what one layer does alone.
//
//   - End-to-end latency from a Paimon commit to a streaming job's sink
//     (BenchmarkCommitToSink): p50/p99 of (arrival at the sink writer −
//     Commit returning), for changelog-producer input and none.
//   - Changelog latency of the lookup producer with
//     changelog-producer.lookup-wait true versus false
//     (BenchmarkLookupWait), side by side in one run.
//   - TestNoNormalizeState: the checkpointed state of the seed job per
//     producer, showing ChangelogNormalize's keyed state grows with the keys
//     for producer none and that input, lookup and full-compaction keep
//     none.
//
// The package has no non-test code; the measuring sink ("bench-probe") is
// registered only in its tests so the product's connector list is unchanged.
package bench
