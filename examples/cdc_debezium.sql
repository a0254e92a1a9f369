-- A CDC-style job fed from a debezium-json file (examples/data/orders_cdc.json):
-- order 1001 is created at 80.00, updated to 100.00 and deleted; 1002 is paid;
-- 1003 is created. Debezium's ops become RowKinds: c/r -> +I, u -> -U/+U, d -> -D.
--
--   go run ./cmd/sqlrun -f examples/cdc_debezium.sql     (from the repository root)
--
-- The changes are kept in a Paimon table (producer input keeps them verbatim)
-- under ./sqlrun-quickstart/warehouse, then read back.
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.dml-sync' = 'true';

CREATE TABLE orders_cdc (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'filesystem',
    'path' = 'examples/data/orders_cdc.json',
    'format' = 'debezium-json'
);

-- The changelog exactly as the file holds it.
SELECT * FROM orders_cdc;

-- Running totals per status: the -U rows retract the old amounts.
SELECT status, COUNT(*) AS orders, SUM(amount) AS total FROM orders_cdc GROUP BY status;

-- Into Paimon, the way a CDC ingestion job writes an ODS table.
CREATE CATALOG qs WITH ('type' = 'paimon', 'warehouse' = './sqlrun-quickstart/warehouse');
DROP TABLE IF EXISTS qs.`default`.orders_ods;
CREATE TABLE qs.`default`.orders_ods (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'input');
CREATE TABLE orders_ods WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_ods')
  LIKE qs.`default`.orders_ods;
INSERT INTO orders_ods SELECT * FROM orders_cdc;

SET 'execution.runtime-mode' = 'batch';
SELECT * FROM orders_ods ORDER BY id;
