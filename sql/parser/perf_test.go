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
		t.Logf("%s: %v", name, time.Since(start))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(text), d)
		}
		if (err != nil) != (name == "late error") {
			t.Errorf("%s: unexpected result %v", name, err)
		}
	}
}
