// Package compat holds the Paimon compatibility test: tables written by
// sqlrun (every type, nested, nulls, partitions, one and several buckets,
// every changelog producer, after compaction) are read by independent
// readers — DuckDB for the Parquet data files, the Apache Avro Java library
// for the manifests — and what they see is checked against what
// parquet-java and Paimon's source say it must be. The readers are
// installed by scripts/compat/install.sh; the test skips, saying why,
// where they are missing.
package compat
