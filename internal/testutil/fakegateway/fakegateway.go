// Package fakegateway is a stand-in for Flink's SQL Gateway in tests of
// sqlrun --gateway: the REST API v2 contract, canned answers by statement.
package fakegateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Server serves the contract of Flink's SQL Gateway REST API v2 as
// docs/static/generated/rest_v2_sql_gateway.yml (apache/flink) publishes
// it, with the JSON shapes of its serializers (ResultInfoSerializer:
// columns / rowFormat / data of {kind, fields}; LogicalTypeJsonSerializer's
// types; FetchResultsResponseBodyImpl's resultType, isQueryResult, jobID,
// resultKind, results, nextResultUri; RestServerEndpoint's {"errors": []}
// on failure). No Flink cluster can run on these machines, so this is what
// --gateway is tested against. Any request outside the spec's paths fails
// the test.
type Server struct {
	t        testing.TB
	mu       sync.Mutex
	sessions map[string]bool
	ops      map[string]string // operation -> statement
	polls    map[string]int
	log      []string
	URL      string
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

func (g *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
		op := opID(len(g.ops) + 1)
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

func (g *Server) fetch(w http.ResponseWriter, op, token string, reply func(any)) {
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

// Start serves a fake gateway until the test ends. Statements starting
// with INSERT answer a job id, SELECT a changelog of three rows (after one
// NOT_READY page), SHOW two table names; a statement naming no_such_table
// fails with a server trace holding the password s3cr3t-pw; the rest OK.
func Start(t testing.TB) *Server {
	g := &Server{t: t, sessions: map[string]bool{}, ops: map[string]string{}, polls: map[string]int{}}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// Statements are the first word of each statement received, in order.
func (g *Server) Statements() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for i := 1; i <= len(g.ops); i++ {
		out = append(out, strings.Fields(g.ops[opID(i)])[0])
	}
	return out
}

// OpenSessions is how many sessions are open.
func (g *Server) OpenSessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// Log is every request as "METHOD path".
func (g *Server) Log() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.log...)
}

func opID(i int) string { return fmt.Sprintf("0b6e3a1c-5f2d-4e8a-b7c9-%012d", i) }
