// Package gateway is a client of Flink's SQL Gateway REST API, version 2
// and later (Flink 1.17+; docs/static/generated/rest_v2_sql_gateway.yml in
// apache/flink): open a session, execute a statement, follow its
// operation's status, fetch its results page by page in the JSON row
// format, cancel and close. It knows the protocol only; exec decides what
// to send and prints what comes back as the SQL client does.
package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to one SQL Gateway in one session.
type Client struct {
	base    string // http://host:port, no trailing slash
	version string // "v2", "v3", ...
	session string
	http    *http.Client
	// Poll is the wait between status polls and NOT_READY fetches.
	Poll time.Duration
}

// Error is a request the gateway answered with an error status; Errors is
// the REST endpoint's "errors" list (a summary, then the server's stack
// trace).
type Error struct {
	Op     string
	Status int
	Errors []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("SQL Gateway %s: HTTP %d: %s", e.Op, e.Status, strings.Join(e.Errors, "\n"))
}

// RootCause is the innermost exception of the server's stack trace: its
// class and message ("org.apache.flink.table.api.ValidationException",
// "..."), from the last "Caused by:" line, or the trace's first line.
func (e *Error) RootCause() (class, msg string) {
	var line string
	for _, text := range e.Errors {
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if c, ok := strings.CutPrefix(l, "Caused by: "); ok {
				line = c
			} else if line == "" && strings.Contains(l, "Exception") && !strings.HasPrefix(l, "at ") {
				line = l
			}
		}
	}
	if line == "" {
		if len(e.Errors) > 0 {
			return "", e.Errors[0]
		}
		return "", fmt.Sprintf("HTTP %d", e.Status)
	}
	class, msg, ok := strings.Cut(line, ": ")
	if !ok || strings.ContainsAny(class, " \t") {
		return "", line
	}
	return class, msg
}

// Open negotiates the REST API version and opens a session with the given
// session properties (SET keys).
func Open(ctx context.Context, endpoint string, props map[string]string) (*Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--gateway %q: want http(s)://host:port", endpoint)
	}
	c := &Client{base: strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/"), http: &http.Client{}, Poll: 100 * time.Millisecond}
	var versions struct {
		Versions []string `json:"versions"`
	}
	if err := c.do(ctx, "get API versions", http.MethodGet, "/api_versions", nil, &versions); err != nil {
		return nil, err
	}
	for _, v := range versions.Versions {
		v = strings.ToLower(v)
		if len(v) >= 2 && v[0] == 'v' && v != "v0" && v != "v1" && (c.version == "" || v > c.version) {
			c.version = v
		}
	}
	if c.version == "" {
		return nil, fmt.Errorf("the SQL Gateway at %s speaks REST API versions %v; sqlrun needs V2 or later (Flink 1.17+)", c.base, versions.Versions)
	}
	var opened struct {
		SessionHandle string `json:"sessionHandle"`
	}
	body := map[string]any{"sessionName": "sqlrun"}
	if len(props) > 0 {
		body["properties"] = props
	}
	if err := c.do(ctx, "open session", http.MethodPost, "/"+c.version+"/sessions", body, &opened); err != nil {
		return nil, err
	}
	if opened.SessionHandle == "" {
		return nil, fmt.Errorf("SQL Gateway at %s: open session: no sessionHandle in the answer", c.base)
	}
	c.session = opened.SessionHandle
	return c, nil
}

// Endpoint is the gateway's base URL.
func (c *Client) Endpoint() string { return c.base }

// Version is the negotiated REST API version ("v2", ...).
func (c *Client) Version() string { return c.version }

// Close closes the session.
func (c *Client) Close(ctx context.Context) error {
	return c.do(ctx, "close session", http.MethodDelete, c.sessionPath(""), nil, nil)
}

func (c *Client) sessionPath(rest string) string {
	return "/" + c.version + "/sessions/" + url.PathEscape(c.session) + rest
}

func (c *Client) opPath(op, rest string) string {
	return c.sessionPath("/operations/" + url.PathEscape(op) + rest)
}

// Execute submits one statement and returns its operation handle.
func (c *Client) Execute(ctx context.Context, statement string) (string, error) {
	var r struct {
		OperationHandle string `json:"operationHandle"`
	}
	if err := c.do(ctx, "execute statement", http.MethodPost, c.sessionPath("/statements"), map[string]any{"statement": statement}, &r); err != nil {
		return "", err
	}
	if r.OperationHandle == "" {
		return "", fmt.Errorf("SQL Gateway at %s: execute statement: no operationHandle in the answer", c.base)
	}
	return r.OperationHandle, nil
}

// Operation statuses (OperationStatus).
const (
	StatusFinished = "FINISHED"
	StatusError    = "ERROR"
	StatusCanceled = "CANCELED"
	StatusClosed   = "CLOSED"
	StatusTimeout  = "TIMEOUT"
)

// Wait polls the operation's status until it is no longer INITIALIZED,
// PENDING or RUNNING, and returns it.
func (c *Client) Wait(ctx context.Context, op string) (string, error) {
	for {
		var r struct {
			Status string `json:"status"`
		}
		if err := c.do(ctx, "operation status", http.MethodGet, c.opPath(op, "/status"), nil, &r); err != nil {
			return "", err
		}
		switch r.Status {
		case "INITIALIZED", "PENDING", "RUNNING":
		default:
			return r.Status, nil
		}
		if err := sleep(ctx, c.Poll); err != nil {
			return "", err
		}
	}
}

// Cancel cancels a running operation.
func (c *Client) Cancel(ctx context.Context, op string) error {
	return c.do(ctx, "cancel operation", http.MethodPost, c.opPath(op, "/cancel"), nil, nil)
}

// CloseOperation releases an operation's resources on the gateway.
func (c *Client) CloseOperation(ctx context.Context, op string) error {
	return c.do(ctx, "close operation", http.MethodDelete, c.opPath(op, "/close"), nil, nil)
}

// LogicalType is a column type as LogicalTypeJsonSerializer writes it.
type LogicalType struct {
	Type        string        `json:"type"`
	Nullable    bool          `json:"nullable"`
	Length      int           `json:"length"`
	Precision   *int          `json:"precision"`
	Scale       int           `json:"scale"`
	ElementType *LogicalType  `json:"elementType"`
	KeyType     *LogicalType  `json:"keyType"`
	ValueType   *LogicalType  `json:"valueType"`
	Fields      []RowTypeItem `json:"fields"`
}

// RowTypeItem is one field of a ROW type.
type RowTypeItem struct {
	Name      string      `json:"name"`
	FieldType LogicalType `json:"fieldType"`
}

// Column is one result column.
type Column struct {
	Name        string      `json:"name"`
	LogicalType LogicalType `json:"logicalType"`
}

// Row is one result row: its RowKind name (INSERT, UPDATE_BEFORE,
// UPDATE_AFTER, DELETE) and its fields in the JSON row format.
type Row struct {
	Kind   string            `json:"kind"`
	Fields []json.RawMessage `json:"fields"`
}

// Result types of a fetch (ResultType).
const (
	NotReady = "NOT_READY"
	Payload  = "PAYLOAD"
	EOS      = "EOS"
)

// Page is one fetched batch of results (FetchResultsResponseBody).
type Page struct {
	ResultType string `json:"resultType"`
	IsQuery    bool   `json:"isQueryResult"`
	JobID      string `json:"jobID"`
	ResultKind string `json:"resultKind"`
	NextURI    string `json:"nextResultUri"`
	Results    struct {
		Columns []Column `json:"columns"`
		Data    []Row    `json:"data"`
	} `json:"results"`
}

// Fetch fetches the results page at token (0 first) in the JSON row
// format. Next is the token of the page after it, from nextResultUri, or
// -1 at the end.
func (c *Client) Fetch(ctx context.Context, op string, token int64) (page *Page, next int64, err error) {
	p := &Page{}
	path := c.opPath(op, fmt.Sprintf("/result/%d?rowFormat=JSON", token))
	if err := c.do(ctx, "fetch results", http.MethodGet, path, nil, p); err != nil {
		return nil, -1, err
	}
	next = -1
	if p.NextURI != "" {
		u, err := url.Parse(p.NextURI)
		if err != nil {
			return nil, -1, fmt.Errorf("SQL Gateway at %s: bad nextResultUri %q", c.base, p.NextURI)
		}
		seg := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
		if _, err := fmt.Sscan(seg, &next); err != nil || next < 0 {
			return nil, -1, fmt.Errorf("SQL Gateway at %s: bad nextResultUri %q", c.base, p.NextURI)
		}
	}
	return p, next, nil
}

// Sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Sleep is the client's poll wait (for a NOT_READY page).
func (c *Client) Sleep(ctx context.Context) error { return sleep(ctx, c.Poll) }

// do sends one request with a JSON body (nil: none) and decodes a JSON
// answer into out (nil: ignored). Numbers are kept as json.Number.
func (c *Client) do(ctx context.Context, op, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("SQL Gateway at %s: %s: %w", c.base, op, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("SQL Gateway at %s: %s: %w", c.base, op, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &Error{Op: op, Status: resp.StatusCode}
		var eb struct {
			Errors []string `json:"errors"`
		}
		if json.Unmarshal(b, &eb) == nil && len(eb.Errors) > 0 {
			e.Errors = eb.Errors
		} else if len(b) > 0 {
			e.Errors = []string{strings.TrimSpace(string(b))}
		}
		return e
	}
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("SQL Gateway at %s: %s: bad answer: %w", c.base, op, err)
	}
	return nil
}
