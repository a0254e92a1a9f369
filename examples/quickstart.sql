-- sqlrun quickstart: order 1001's story (80.00 -> 100.00 -> deleted) in one file.
--
--   sqlrun -f examples/quickstart.sql          run it (Ctrl-C stops with a savepoint)
--   sqlrun explain -f examples/quickstart.sql  see the plan and its changelog modes
--   sqlrun -i examples/quickstart.sql          set the tables up, then open the shell
--
-- A script outside the shell shows query results in the tableau mode only,
-- as Flink's SQL client requires.
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.dml-sync' = 'true';

-- The order's changelog, as a CDC source would deliver it.
CREATE TABLE order_changes (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'values',
    'changelog-mode' = 'I,UB,UA,D',
    'bounded' = 'true',
    'rows' = '[["+I", 1001, "80.00", "CREATED"],
               ["-U", 1001, "80.00", "CREATED"],
               ["+U", 1001, "100.00", "PAID"],
               ["+I", 1002, "35.50", "CREATED"],
               ["-D", 1001, "100.00", "PAID"]]'
);

-- Print every change the job sees, as Flink's print connector does.
CREATE TABLE order_log (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING
) WITH ('connector' = 'print', 'print-identifier' = 'orders');

DESCRIBE order_changes;
SHOW CREATE TABLE order_changes;

-- The running total per status follows the updates and the delete.
SELECT status, SUM(amount) AS total FROM order_changes GROUP BY status;

INSERT INTO order_log SELECT id, amount, status FROM order_changes;
