-- Watch order 1001's changelog per producer, side by side (run
-- examples/quickstart.sql first; it leaves three snapshots in each table).
-- A streaming job never ends by itself: Ctrl-C (or SIGTERM) stops it with a
-- savepoint.
--
-- What the seed says you will see (000, sections 六 to 十一):
--   input            +I[80]  -D[80] +I[100]  -D[100]   the input, verbatim
--   none             +I[80]  -U[80] +U[100]  -D[100]   ChangelogNormalize restores -U
--   lookup           +I[80]  -U[80] +U[100]  -D[100]   Paimon looked the old value up
--   full-compaction  +I[80]  -U[80] +U[100]  -D[100]   at each full compaction
SET 'execution.checkpointing.interval' = '1s';
CREATE CATALOG qs WITH ('type' = 'paimon', 'warehouse' = './sqlrun-quickstart/warehouse');
CREATE TABLE orders_none WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_none')
  LIKE qs.`default`.orders_none;
CREATE TABLE print_none (id BIGINT, amount DECIMAL(10, 2), status STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'none');
CREATE TABLE orders_input WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_input')
  LIKE qs.`default`.orders_input;
CREATE TABLE print_input (id BIGINT, amount DECIMAL(10, 2), status STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'input');
CREATE TABLE orders_lookup WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_lookup')
  LIKE qs.`default`.orders_lookup;
CREATE TABLE print_lookup (id BIGINT, amount DECIMAL(10, 2), status STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'lookup');
CREATE TABLE orders_full WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_full')
  LIKE qs.`default`.orders_full;
CREATE TABLE print_full (id BIGINT, amount DECIMAL(10, 2), status STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'full-compaction');

-- From the first snapshot, so every change is replayed.
EXECUTE STATEMENT SET BEGIN
  INSERT INTO print_none SELECT * FROM orders_none /*+ OPTIONS('scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1') */;
  INSERT INTO print_input SELECT * FROM orders_input /*+ OPTIONS('scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1') */;
  INSERT INTO print_lookup SELECT * FROM orders_lookup /*+ OPTIONS('scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1') */;
  INSERT INTO print_full SELECT * FROM orders_full /*+ OPTIONS('scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1') */;
END;
