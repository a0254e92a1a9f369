package parser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLargeStatements guards against quadratic behaviour: wide DDL, long
// select lists, deep nesting and an error at the end of a long statement
// all parse quickly.
func TestLargeStatements(t *testing.T) {
	var cols, items []string
	for i := 0; i < 3000; i++ {
		cols = append(cols, fmt.Sprintf("c%d DECIMAL(10, 2) COMMENT 'column %d'", i, i))
		items = append(items, fmt.Sprintf("CAST(c%d AS STRING) || 'x' AS a%d", i, i))
	}
	cases := map[string]string{
		"wide table":  "CREATE TABLE t (" + strings.Join(cols, ", ") + ") WITH ('connector' = 'paimon')",
		"long select": "SELECT " + strings.Join(items, ", ") + " FROM t WHERE c1 > 0",
		"deep nest":   "SELECT " + strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500),
		"late error":  "SELECT " + strings.Join(items, ", ") + " FROM t WHERE",
	}
	for name, text := range cases {
		start := time.Now()
		_, err := Parse(text)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(text), d)
		}
		if (err != nil) != (name == "late error") {
			t.Errorf("%s: unexpected result %v", name, err)
		}
	}
}

// BenchmarkParseSeedInsert measures the article's job statement (hints,
// pre-pass, TiDB and conversion).
func BenchmarkParseSeedInsert(b *testing.B) {
	const q = `INSERT INTO mysql_orders
SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'mysql-orders-v1') */`
	for i := 0; i < b.N; i++ {
		if _, err := Parse(q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSeedDDL measures the JDBC sink's CREATE TABLE (our own
// recursive descent only).
func BenchmarkParseSeedDDL(b *testing.B) {
	const q = `CREATE TABLE mysql_orders (id BIGINT, amount DECIMAL(10, 2), status STRING,
PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://mysql-host:3306/serving',
'table-name' = 'orders_rt', 'username' = 'flink_writer', 'password' = '******')`
	for i := 0; i < b.N; i++ {
		if _, err := Parse(q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentParse: Parse keeps no shared mutable state, so sessions may
// parse in parallel (run with -race).
func TestConcurrentParse(t *testing.T) {
	const q = "SELECT id, CAST(amount AS STRING) FROM orders /*+ OPTIONS('scan.mode'='latest-full') */ WHERE a[1] IS DISTINCT FROM b"
	done := make(chan error)
	for i := 0; i < 4; i++ {
		go func() {
			var err error
			for k := 0; k < 50 && err == nil; k++ {
				_, err = Parse(q)
			}
			done <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
