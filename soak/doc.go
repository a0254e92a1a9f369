// Package soak is the crash-and-fault soak of the seed 003 pipeline: a
// streaming sqlrun job `INSERT INTO mysql_orders SELECT id, amount, status
// FROM orders /*+ OPTIONS('scan.mode'='latest-full','consumer-id'='soak') */`
// copies a Paimon primary-key table into MariaDB's orders_rt while Go
// writers (the Paimon table layer, as a CDC ingestion job would) commit a
// random workload of inserts, updates and deletes over a uniform or skewed
// key distribution, and faults are injected at random:
//
//   - sigkill: kill -9 of the sqlrun process, then `sqlrun -f job.sql --resume`
//     (with producers input and lookup one in four times without --resume:
//     the consumer-id resumes);
//   - mariadb: the MariaDB server stopped for 0.5–2 s and started again
//     (the JDBC sink retries and reconnects);
//   - diskfull: the checkpoint dir's disk is "full" for about a second: the
//     running sqlrun's RLIMIT_FSIZE is set to 0 with prlimit(2), so every
//     write to a regular file fails with EFBIG (as ENOSPC would), then the
//     limit is lifted. Portable across filesystems and without mounting a
//     tmpfs; root's chmod 0500 would not stop root, a file-size limit does.
//     It hits every file the process writes: checkpoints and the Paimon
//     consumer file (the job writes nothing else to disk);
//   - conflict: a second writer (its own commit user and key range) and
//     the main writer both full-compact the same buckets from the same
//     snapshot and commit concurrently; the loser gets Paimon's commit
//     conflict and redoes its batch under the same identifier.
//
// After every fault the writers pause, the job catches up (MariaDB's row
// count and CRC32 checksum equal the Paimon table's on two polls in a
// row), and then every row of MariaDB is compared with every row of the
// Paimon table, which itself must equal the writers' model. A lost,
// duplicated, stale or orphan row fails the soak with the rows named.
package soak
