package exec

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestGroupWindowMetamorphic runs each legacy group window query (GROUP BY
// TUMBLE / HOP / SESSION(...) with TUMBLE_START, ...) and the same query
// written as a window TVF aggregation over random event-time rows with
// out-of-order and late rows (watermark = ts, emitted after every row):
// Flink's WindowOperator and its window TVF operators fire the same
// windows, drop the same late rows and compute the same aggregates, so the
// two must print the same rows (compared as multisets). On a planner that
// refuses the legacy form the first query of each pair fails.
func TestGroupWindowMetamorphic(t *testing.T) {
	const i5, i1, i2 = "INTERVAL '5' MINUTE", "INTERVAL '1' MINUTE", "INTERVAL '2' MINUTE"
	pairs := [][2]string{
		{"SELECT u, TUMBLE_START(ts, " + i5 + ") AS ws, TUMBLE_END(ts, " + i5 + ") AS we, TUMBLE_ROWTIME(ts, " + i5 + ") AS wt, COUNT(*) AS c, SUM(n) AS s, MAX(n) AS m FROM clicks GROUP BY u, TUMBLE(ts, " + i5 + ")",
			"SELECT u, window_start AS ws, window_end AS we, window_time AS wt, COUNT(*) AS c, SUM(n) AS s, MAX(n) AS m FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), " + i5 + ")) GROUP BY u, window_start, window_end, window_time"},
		{"SELECT HOP_START(ts, " + i1 + ", " + i5 + ") AS ws, HOP_END(ts, " + i1 + ", " + i5 + ") AS we, COUNT(*) AS c, SUM(n) AS s, MIN(n) AS m FROM clicks GROUP BY HOP(ts, " + i1 + ", " + i5 + ")",
			"SELECT window_start AS ws, window_end AS we, COUNT(*) AS c, SUM(n) AS s, MIN(n) AS m FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), " + i1 + ", " + i5 + ")) GROUP BY window_start, window_end"},
		{"SELECT u, SESSION_START(ts, " + i2 + ") AS ws, SESSION_END(ts, " + i2 + ") AS we, COUNT(*) AS c, SUM(n) AS s FROM clicks GROUP BY u, SESSION(ts, " + i2 + ")",
			"SELECT u, window_start AS ws, window_end AS we, COUNT(*) AS c, SUM(n) AS s FROM TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(ts), " + i2 + ")) GROUP BY u, window_start, window_end"},
		{"SELECT u, COUNT(*) AS c, AVG(n) AS a FROM clicks GROUP BY u, TUMBLE(ts, " + i5 + ") HAVING SUM(n) > 100",
			"SELECT u, COUNT(*) AS c, AVG(n) AS a FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), " + i5 + ")) GROUP BY u, window_start, window_end HAVING SUM(n) > 100"},
	}
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	for seed := int64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewSource(seed))
		var rows []string
		cur, late := time.Duration(0), 0
		for i := 0; i < 60; i++ {
			cur += time.Duration(r.Intn(90)) * time.Second
			ts := cur
			switch r.Intn(6) {
			case 0: // out of order, usually not late
				ts -= time.Duration(r.Intn(120)) * time.Second
			case 1: // far back: late for most windows
				ts -= time.Duration(r.Intn(900)) * time.Second
				late++
			}
			ts = max(ts, 0)
			rows = append(rows, fmt.Sprintf(`["+I","%c","%s",%d]`, 'a'+r.Intn(3), base.Add(ts).Format("2006-01-02 15:04:05.000"), r.Intn(100)))
		}
		ddl := "SET 'sql-client.execution.result-mode' = 'tableau';\n" +
			"SET 'sql-client.display.print-time-cost' = 'false';\n" +
			"SET 'pipeline.auto-watermark-interval' = '0 ms';\n" +
			"SET 'parallelism.default' = '1';\n" +
			"CREATE TABLE clicks (u STRING, ts TIMESTAMP(3), n INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[" +
			strings.Join(rows, ",") + "]');\n"
		for _, p := range pairs {
			legacy, tvf := runRows(t, ddl+p[0]+";\n"), runRows(t, ddl+p[1]+";\n")
			if legacy != tvf {
				t.Fatalf("seed %d (%d far-back rows): the group window and the window TVF disagree\n%s\n%s\n--- group window:\n%s--- window TVF:\n%s", seed, late, p[0], p[1], legacy, tvf)
			}
			if !strings.Contains(legacy, "| +I |") {
				t.Fatalf("seed %d: %s printed no rows: the comparison shows nothing\n%s", seed, p[0], legacy)
			}
		}
	}
}

// runRows runs script in a fresh session with the real planner and
// returns what it prints, its result rows sorted.
func runRows(t *testing.T, script string) string {
	t.Helper()
	s := newTestSession()
	s.Planner = PlanPlanner{}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.ExecuteScript(ctx, script, "test.sql", &out); err != nil {
		return fmt.Sprintf("error: %v\n%s", err, out.String())
	}
	var rows, rest []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| +I |") {
			rows = append(rows, l)
		} else {
			rest = append(rest, l)
		}
	}
	sort.Strings(rows)
	return strings.Join(rest, "\n") + strings.Join(rows, "\n") + "\n"
}
