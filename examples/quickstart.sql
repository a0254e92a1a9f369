-- sqlrun quickstart: order 1001's life (80.00 -> 100.00 -> deleted) through
-- Paimon tables with each changelog producer, as in the seed articles.
--
--   go run ./cmd/sqlrun -f examples/quickstart.sql          run it (ends in seconds)
--   go run ./cmd/sqlrun -f examples/watch_changelog.sql     then watch each producer's
--                                                           changelog (Ctrl-C stops it)
--
-- It needs nothing else: the Paimon warehouse is ./sqlrun-quickstart/warehouse
-- (recreated on every run). A script outside the shell shows query results in
-- the tableau mode only, as Flink's SQL client requires.
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.dml-sync' = 'true';

-- Order 1001's changes as Paimon's MySQL CDC Action writes them: an UPDATE
-- arrives as -D (before) then +I (after). The sources declare every RowKind
-- ('I,UB,UA,D'): an upsert source ('I,UA,D') would get Flink's
-- ChangelogNormalize, whose fresh state drops the -D of a row it never saw.
CREATE TABLE s10 (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'bounded' = 'true',
      'rows' = '[["+I", 1001, "80.00", "CREATED"], ["+I", 1002, "35.50", "CREATED"]]');
CREATE TABLE s11 (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'bounded' = 'true',
      'rows' = '[["-D", 1001, "80.00", "CREATED"], ["+I", 1001, "100.00", "CREATED"]]');
CREATE TABLE s12 (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'bounded' = 'true',
      'rows' = '[["-D", 1001, "100.00", "CREATED"]]');

-- One Paimon table per changelog producer. The warehouse catalog creates
-- them; each is then declared by path (a Paimon table outside the catalog).
CREATE CATALOG qs WITH ('type' = 'paimon', 'warehouse' = './sqlrun-quickstart/warehouse');
DROP TABLE IF EXISTS qs.`default`.orders_none;
CREATE TABLE qs.`default`.orders_none (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'none', 'consumer.expiration-time' = '1 d');
CREATE TABLE orders_none WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_none')
  LIKE qs.`default`.orders_none;
DROP TABLE IF EXISTS qs.`default`.orders_input;
CREATE TABLE qs.`default`.orders_input (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'input', 'consumer.expiration-time' = '1 d');
CREATE TABLE orders_input WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_input')
  LIKE qs.`default`.orders_input;
DROP TABLE IF EXISTS qs.`default`.orders_lookup;
CREATE TABLE qs.`default`.orders_lookup (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'lookup', 'consumer.expiration-time' = '1 d');
CREATE TABLE orders_lookup WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_lookup')
  LIKE qs.`default`.orders_lookup;
DROP TABLE IF EXISTS qs.`default`.orders_full;
CREATE TABLE qs.`default`.orders_full (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'full-compaction', 'consumer.expiration-time' = '1 d',
        'full-compaction.delta-commits' = '1');
CREATE TABLE orders_full WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_full')
  LIKE qs.`default`.orders_full;

-- S1: order 1001 is created at 80.00 (and 1002 at 35.50).
EXECUTE STATEMENT SET BEGIN
  INSERT INTO orders_none SELECT * FROM s10;
  INSERT INTO orders_input SELECT * FROM s10;
  INSERT INTO orders_lookup SELECT * FROM s10;
  INSERT INTO orders_full SELECT * FROM s10;
END;

-- S2: the amount goes from 80.00 to 100.00 (-D/+I).
EXECUTE STATEMENT SET BEGIN
  INSERT INTO orders_none SELECT * FROM s11;
  INSERT INTO orders_input SELECT * FROM s11;
  INSERT INTO orders_lookup SELECT * FROM s11;
  INSERT INTO orders_full SELECT * FROM s11;
END;

-- Every producer stores the same final state...
SET 'execution.runtime-mode' = 'batch';
SELECT 'none' AS producer, id, amount, status FROM orders_none
UNION ALL SELECT 'input', id, amount, status FROM orders_input
UNION ALL SELECT 'lookup', id, amount, status FROM orders_lookup
UNION ALL SELECT 'full-compaction', id, amount, status FROM orders_full
ORDER BY producer, id;
SET 'execution.runtime-mode' = 'streaming';

-- ...but not the same changelog. The seed's job reads "full then
-- incremental" into a sink that needs UPDATE_BEFORE (print). With producer
-- none the source only promises an upsert stream, so the planner adds
-- ChangelogNormalize (keyed state in the job) to restore -U; input, lookup
-- and full-compaction declare every RowKind and need none.
CREATE TABLE print_orders (id BIGINT, amount DECIMAL(10, 2), status STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO print_orders SELECT id, amount, status
FROM orders_none /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'print-v1') */;
EXPLAIN INSERT INTO print_orders SELECT id, amount, status
FROM orders_lookup /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'print-v1') */;

-- S3: order 1001 is deleted.
EXECUTE STATEMENT SET BEGIN
  INSERT INTO orders_none SELECT * FROM s12;
  INSERT INTO orders_input SELECT * FROM s12;
  INSERT INTO orders_lookup SELECT * FROM s12;
  INSERT INTO orders_full SELECT * FROM s12;
END;

-- After the delete only order 1002 is left, whatever the producer.
SET 'execution.runtime-mode' = 'batch';
SELECT 'none' AS producer, id, amount, status FROM orders_none
UNION ALL SELECT 'input', id, amount, status FROM orders_input
UNION ALL SELECT 'lookup', id, amount, status FROM orders_lookup
UNION ALL SELECT 'full-compaction', id, amount, status FROM orders_full
ORDER BY producer, id;

-- Each producer's changelog as Paimon stored it, read in batch from the
-- t$audit_log system table: its rowkind column keeps every RowKind (Paimon's
-- audit_log read keeps deletes), and 'incremental-between' = 'start,end'
-- reads the changes of the snapshots after start up to end (see
-- t$snapshots for the ids; lookup and full-compaction add a COMPACT
-- snapshot per commit, which carries their changelog). input keeps the
-- -D/+I it was given, lookup and full-compaction turned them into
-- -U[80]/+U[100]. none has no changelog, only its delta files: the writer
-- merged S2's -D[80]/+I[100] into +I[100], so the old value is gone (a
-- streaming read of none gets its -U/+U from ChangelogNormalize).
SELECT rowkind, id, amount, status FROM qs.`default`.`orders_input$audit_log`
  /*+ OPTIONS('incremental-between' = '0,3') */;
SELECT rowkind, id, amount, status FROM qs.`default`.`orders_lookup$audit_log`
  /*+ OPTIONS('incremental-between' = '0,6') */;
SELECT rowkind, id, amount, status FROM qs.`default`.`orders_full$audit_log`
  /*+ OPTIONS('incremental-between' = '0,6') */;
SELECT rowkind, id, amount, status FROM qs.`default`.`orders_none$audit_log`
  /*+ OPTIONS('incremental-between' = '0,3') */;

-- The running total per status, over the CDC changes themselves: a SUM
-- needs the retraction of 80.00 to stay right.
SET 'execution.runtime-mode' = 'streaming';
CREATE TABLE all_changes (id BIGINT, amount DECIMAL(10, 2), status STRING)
WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'bounded' = 'true',
      'rows' = '[["+I", 1001, "80.00", "CREATED"], ["+I", 1002, "35.50", "CREATED"],
                 ["-D", 1001, "80.00", "CREATED"], ["+I", 1001, "100.00", "CREATED"],
                 ["-D", 1001, "100.00", "CREATED"]]');
SELECT status, SUM(amount) AS total FROM all_changes GROUP BY status;
