-- Seed 003: Paimon orders -> MySQL orders_rt through Flink's JDBC upsert sink.
-- Point it at your server: edit the url, username and password below, and
-- create the target table in MySQL first:
--
--   CREATE TABLE orders_rt (
--       id BIGINT NOT NULL,
--       amount DECIMAL(10, 2),
--       status VARCHAR(32),
--       PRIMARY KEY (id)          -- the real key ON DUPLICATE KEY UPDATE needs
--   ) ENGINE = InnoDB;
--
-- Then (after examples/quickstart.sql, which fills the warehouse):
--
--   go run ./cmd/sqlrun -f examples/paimon_to_mysql.sql
--
-- The job runs until Ctrl-C/SIGTERM (a final savepoint); restart it with
-- --resume to continue from there, or rely on the consumer-id: a new job with
-- the same consumer-id continues at the consumer's next snapshot.
SET 'execution.checkpointing.interval' = '10s';

CREATE CATALOG qs WITH ('type' = 'paimon', 'warehouse' = './sqlrun-quickstart/warehouse');
CREATE TABLE orders WITH ('connector' = 'paimon', 'path' = './sqlrun-quickstart/warehouse/default.db/orders_input')
  LIKE qs.`default`.orders_input;

CREATE TABLE mysql_orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'jdbc',
    'url' = 'jdbc:mysql://127.0.0.1:3306/serving',
    'table-name' = 'orders_rt',
    'username' = 'flink_writer',
    'password' = 'change-me',
    'sink.buffer-flush.max-rows' = '100',
    'sink.buffer-flush.interval' = '1s',
    'sink.max-retries' = '3'
);

INSERT INTO mysql_orders
SELECT id, amount, status
FROM orders /*+ OPTIONS(
    'scan.mode' = 'latest-full',
    'consumer-id' = 'mysql-orders-v1'
) */;
