package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGateway serves the contract of Flink's SQL Gateway REST API v2 as
// docs/static/generated/rest_v2_sql_gateway.yml (apache/flink) publishes
// it, with the JSON shapes of its serializers (ResultInfoSerializer:
// columns / rowFormat / data of {kind, fields}; LogicalTypeJsonSerializer's
// types; FetchResultsResponseBodyImpl's resultType, isQueryResult, jobID,
// resultKind, results, nextResultUri; RestServerEndpoint's {"errors": []}
// on failure). No Flink cluster can run on these machines, so this is what
// --gateway is tested against. Any request outside the spec's paths fails
// the test.
type fakeGateway struct {
	t        *testing.T
	mu       sync.Mutex
	sessions map[string]bool
	ops      map[string]string // operation -> statement
	polls    map[string]int
	log      []string
}

var gatewayPaths = []struct {
	method string
	re     *regexp.Regexp
}{
	{"GET", regexp.MustCompile(`^/api_versions$`)},
	{"POST", regexp.MustCompile(`^/v2/sessions$`)},
	{"DELETE", regexp.MustCompile(`^/v2/sessions/([^/]+)$`)},
	{"POST", regexp.MustCompile(`^/v2/sessions/([^/]+)/statements$`)},
	{"GET", regexp.MustCompile(`^/v2/sessions/([^/]+)/operations/([^/]+)/status$`)},
	{"GET", regexp.MustCompile(`^/v2/sessions/([^/]+)/operations/([^/]+)/result/([0-9]+)$`)},
	{"POST", regexp.MustCompile(`^/v2/sessions/([^/]+)/operations/([^/]+)/cancel$`)},
	{"DELETE", regexp.MustCompile(`^/v2/sessions/([^/]+)/operations/([^/]+)/close$`)},
}

const fakeSession = "9f5c4a2e-0d1b-4c7e-9a55-3f0e6d8b1c22"

func (g *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log = append(g.log, r.Method+" "+r.URL.Path)
	var m []string
	for _, p := range gatewayPaths {
		if p.method == r.Method {
			if m = p.re.FindStringSubmatch(r.URL.Path); m != nil {
				break
			}
		}
	}
	if m == nil {
		g.t.Errorf("fake gateway: %s %s is not in the v2 REST API", r.Method, r.URL.Path)
		http.Error(w, `{"errors":["Not found: `+r.URL.Path+`"]}`, http.StatusNotFound)
		return
	}
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	if len(m) > 1 && !g.sessions[m[1]] {
		http.Error(w, `{"errors":["Internal server error.","org.apache.flink.table.gateway.api.utils.SqlGatewayException: Session '`+m[1]+`' does not exist."]}`, 500)
		return
	}
	switch {
	case r.URL.Path == "/api_versions":
		reply(map[string]any{"versions": []string{"V1", "V2"}})
	case r.URL.Path == "/v2/sessions":
		var body struct {
			SessionName string            `json:"sessionName"`
			Properties  map[string]string `json:"properties"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			g.t.Errorf("open session body: %v", err)
		}
		g.sessions[fakeSession] = true
		reply(map[string]any{"sessionHandle": fakeSession})
	case r.Method == "DELETE" && len(m) == 2:
		delete(g.sessions, m[1])
		reply(map[string]any{"status": "CLOSED"})
	case strings.HasSuffix(r.URL.Path, "/statements"):
		var body struct {
			Statement string `json:"statement"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Statement == "" {
			g.t.Errorf("execute statement body: %v %q", err, body.Statement)
		}
		op := fmt.Sprintf("0b6e3a1c-5f2d-4e8a-b7c9-%012d", len(g.ops)+1)
		g.ops[op] = body.Statement
		reply(map[string]any{"operationHandle": op})
	case strings.HasSuffix(r.URL.Path, "/status"):
		// RUNNING once, then the final status.
		g.polls[m[2]]++
		status := "RUNNING"
		if g.polls[m[2]] > 1 {
			status = "FINISHED"
			if strings.Contains(g.ops[m[2]], "no_such_table") {
				status = "ERROR"
			}
		}
		reply(map[string]any{"status": status})
	case strings.Contains(r.URL.Path, "/result/"):
		if r.URL.Query().Get("rowFormat") != "JSON" {
			g.t.Errorf("fetch without rowFormat=JSON: %s", r.URL)
		}
		g.fetch(w, m[2], m[3], reply)
	default:
		reply(map[string]any{"status": "CLOSED"})
	}
}

func (g *fakeGateway) fetch(w http.ResponseWriter, op, token string, reply func(any)) {
	stmt := g.ops[op]
	varchar := map[string]any{"type": "VARCHAR", "nullable": true, "length": 2147483647}
	next := func(n int) string {
		return fmt.Sprintf("/v2/sessions/%s/operations/%s/result/%d?rowFormat=JSON", fakeSession, op, n)
	}
	switch {
	case strings.Contains(stmt, "no_such_table"):
		// The password of the script's DDL comes back in the server's trace.
		http.Error(w, `{"errors":["Internal server error.","org.apache.flink.table.gateway.api.utils.SqlGatewayException: Failed to fetchResults.\n\tat org.apache.flink.table.gateway.rest.handler.statement.FetchResultsHandler.handleRequest(FetchResultsHandler.java:83)\nCaused by: org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 15 to line 1, column 27: Object 'no_such_table' not found (connection jdbc:mysql://db:3306/shop?password=s3cr3t-pw)\n\tat org.apache.flink.table.planner.calcite.FlinkPlannerImpl.validate(FlinkPlannerImpl.scala:200)"]}`, 500)
	case strings.HasPrefix(stmt, "INSERT"):
		reply(map[string]any{"resultType": "EOS", "isQueryResult": false, "jobID": "6c1a8d3e4f5b6a7c8d9e0f1a2b3c4d5e", "resultKind": "SUCCESS_WITH_CONTENT",
			"results": map[string]any{"columns": []any{map[string]any{"name": "job id", "logicalType": varchar, "comment": nil}}, "rowFormat": "JSON",
				"data": []any{map[string]any{"kind": "INSERT", "fields": []any{"6c1a8d3e4f5b6a7c8d9e0f1a2b3c4d5e"}}}}})
	case strings.HasPrefix(stmt, "SELECT"):
		cols := []any{
			map[string]any{"name": "id", "logicalType": map[string]any{"type": "BIGINT", "nullable": false}, "comment": nil},
			map[string]any{"name": "amount", "logicalType": map[string]any{"type": "DECIMAL", "nullable": true, "precision": 10, "scale": 2}, "comment": nil},
			map[string]any{"name": "status", "logicalType": varchar, "comment": nil},
			map[string]any{"name": "ts", "logicalType": map[string]any{"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "nullable": true, "precision": 3}, "comment": nil},
		}
		g.polls[op+"/fetch"]++
		switch {
		case token == "0" && g.polls[op+"/fetch"] == 1: // the job is still starting
			reply(map[string]any{"resultType": "NOT_READY", "isQueryResult": true, "resultKind": "SUCCESS_WITH_CONTENT",
				"results": map[string]any{"columns": []any{}, "rowFormat": "JSON", "data": []any{}}, "nextResultUri": next(0)})
		case token == "0":
			reply(map[string]any{"resultType": "PAYLOAD", "isQueryResult": true, "resultKind": "SUCCESS_WITH_CONTENT",
				"results": map[string]any{"columns": cols, "rowFormat": "JSON", "data": []any{
					map[string]any{"kind": "INSERT", "fields": []any{1001, json.Number("80.00"), "CREATED", "2024-01-01T10:00:00.5"}},
					map[string]any{"kind": "UPDATE_BEFORE", "fields": []any{1001, json.Number("80.00"), "CREATED", "2024-01-01T10:00:00.5"}},
				}}, "nextResultUri": next(1)})
		default:
			reply(map[string]any{"resultType": "EOS", "isQueryResult": true, "resultKind": "SUCCESS_WITH_CONTENT",
				"results": map[string]any{"columns": cols, "rowFormat": "JSON", "data": []any{
					map[string]any{"kind": "UPDATE_AFTER", "fields": []any{1001, json.Number("100.00"), nil, "2024-01-01T10:05:00"}},
				}}})
		}
	case strings.HasPrefix(stmt, "SHOW"):
		reply(map[string]any{"resultType": "EOS", "isQueryResult": false, "resultKind": "SUCCESS_WITH_CONTENT",
			"results": map[string]any{"columns": []any{map[string]any{"name": "table name", "logicalType": varchar, "comment": nil}}, "rowFormat": "JSON",
				"data": []any{map[string]any{"kind": "INSERT", "fields": []any{"mysql_orders"}}, map[string]any{"kind": "INSERT", "fields": []any{"orders"}}}}})
	default: // SET, CREATE, USE, ...: OK
		reply(map[string]any{"resultType": "EOS", "isQueryResult": false, "resultKind": "SUCCESS",
			"results": map[string]any{"columns": []any{map[string]any{"name": "result", "logicalType": varchar, "comment": nil}}, "rowFormat": "JSON",
				"data": []any{map[string]any{"kind": "INSERT", "fields": []any{"OK"}}}}})
	}
}

// TestGatewayScript runs a script through `sqlrun -f --gateway` against
// the fake gateway: every statement goes to the gateway in order (the
// shell's own commands excepted), results print as the SQL client prints
// them (an INSERT's Job ID, a query's tableau with its changelog, a SHOW's
// box), the failing statement prints the server's root cause with the
// script's password masked and exits 1 naming the line, and the session is
// closed.
func TestGatewayScript(t *testing.T) {
	g := &fakeGateway{t: t, sessions: map[string]bool{}, ops: map[string]string{}, polls: map[string]int{}}
	srv := httptest.NewServer(g)
	defer srv.Close()
	e := newEnv(t)
	addSecret("s3cr3t-pw")
	script := e.Write("job.sql", `SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE mysql_orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://db:3306/shop', 'table-name' = 'orders_rt',
      'username' = 'app', 'password' = 's3cr3t-pw');
SHOW TABLES;
INSERT INTO mysql_orders SELECT id, amount, status FROM orders;
SELECT id, amount, status, ts FROM orders;
SELECT * FROM no_such_table;
SHOW TABLES;
`)
	r := e.run(time.Minute, "-f", script, "--gateway", srv.URL)
	out := r.all()
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the failing SELECT)\n%s", r.code, out)
	}
	for _, want := range []string{
		"[INFO] Execute statement succeeded.",
		"|   table name |\n+--------------+\n| mysql_orders |",
		"[INFO] Submitting SQL update statement to the cluster...\n[INFO] SQL update statement has been successfully submitted to the cluster:\nJob ID: 6c1a8d3e4f5b6a7c8d9e0f1a2b3c4d5e",
		"| +I |                 1001 |        80.00 |                        CREATED | 2024-01-01 10:00:00.500 |\n" +
			"| -U |                 1001 |        80.00 |                        CREATED | 2024-01-01 10:00:00.500 |\n" +
			"| +U |                 1001 |       100.00 |                         <NULL> | 2024-01-01 10:05:00.000 |\n",
		"Received a total of 3 rows",
		"[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 15 to line 1, column 27: Object 'no_such_table' not found (connection jdbc:mysql://db:3306/shop?password=******)",
		"job.sql:8: statement failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	assertNoSecret(t, out)
	g.mu.Lock()
	defer g.mu.Unlock()
	var stmts []string
	for i := 1; i <= len(g.ops); i++ {
		stmts = append(stmts, strings.Fields(g.ops[fmt.Sprintf("0b6e3a1c-5f2d-4e8a-b7c9-%012d", i)])[0])
	}
	if got := strings.Join(stmts, " "); got != "SET CREATE SHOW INSERT SELECT SELECT" {
		t.Errorf("statements sent: %s (the script stops at the failure)", got)
	}
	if len(g.sessions) != 0 {
		t.Errorf("session left open; requests:\n%s", strings.Join(g.log, "\n"))
	}
}
