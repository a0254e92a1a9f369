package exec

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/exec/gateway"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// A session with a gateway (sqlrun -f job.sql --gateway http://host:8083)
// runs nothing itself: every statement's text goes to Flink's SQL Gateway
// as the SQL client in gateway mode sends it, and the answer is printed as
// the SQL client prints it (the same [INFO] lines, boxes and tableau as a
// local run). Only the client's own commands (QUIT, HELP, CLEAR) stay
// local. Secrets the script sends (passwords in WITH options, in URLs) are
// masked in everything printed from the gateway's answers.

// UseGateway connects the session to the SQL Gateway at endpoint and opens
// a session there; from then on Execute sends statements to it.
func (s *Session) UseGateway(ctx context.Context, endpoint string) error {
	c, err := gateway.Open(ctx, endpoint, nil)
	if err != nil {
		return err
	}
	s.remote = c
	return nil
}

// CloseGateway closes the gateway session, if any.
func (s *Session) CloseGateway(ctx context.Context) error {
	if s.remote == nil {
		return nil
	}
	err := s.remote.Close(ctx)
	s.remote = nil
	return err
}

// remoteLocal reports whether a statement is the SQL client's own command,
// which the client runs itself in gateway mode too.
func remoteLocal(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.Quit, *ast.Help, *ast.Clear:
		return true
	}
	return false
}

// executeRemote sends one statement's text to the gateway, waits for its
// operation and prints its result. stmt is its parse (nil when sqlrun's
// parser does not read it: the gateway decides).
func (s *Session) executeRemote(ctx context.Context, text string, stmt ast.Statement, out io.Writer) error {
	s.secrets = append(s.secrets, SecretsIn(text)...)
	c := s.remote
	op, err := c.Execute(ctx, text)
	if err != nil {
		return s.remoteErr(err)
	}
	defer func() { _ = c.CloseOperation(context.WithoutCancel(ctx), op) }()
	status, err := c.Wait(ctx, op)
	if err != nil {
		if ctx.Err() != nil {
			_ = c.Cancel(context.WithoutCancel(ctx), op)
		}
		return s.remoteErr(err)
	}
	if status != gateway.StatusFinished && status != gateway.StatusError {
		return sql.Errorf(sql.SqlExecutionException, "The statement's operation on the SQL Gateway ended %s.", status)
	}
	// An ERROR operation answers the fetch with its exception.
	page, next, err := c.Fetch(ctx, op, 0)
	for err == nil && page.ResultType == gateway.NotReady && next >= 0 {
		// A query's job is starting: its columns come with the first page.
		if err = c.Sleep(ctx); err == nil {
			page, next, err = c.Fetch(ctx, op, next)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			_ = c.Cancel(context.WithoutCancel(ctx), op)
		}
		return s.remoteErr(err)
	}
	_, isInsert := stmt.(*ast.Insert)
	_, isSet := stmt.(*ast.StatementSet)
	if page.JobID != "" && (isInsert || isSet || (stmt == nil && !page.IsQuery)) {
		fmt.Fprintln(out, MsgSubmitting)
		if s.Config.DMLSync() {
			fmt.Fprintln(out, MsgDMLComplete)
			return nil
		}
		fmt.Fprintln(out, MsgSubmitted)
		fmt.Fprintf(out, "Job ID: %s\n\n", page.JobID)
		return nil
	}
	if page.ResultKind == "SUCCESS" || (len(page.Results.Columns) == 1 && page.Results.Columns[0].Name == "result" &&
		len(page.Results.Data) == 1 && string(page.Results.Data[0].Fields[0]) == `"OK"`) {
		if set, ok := stmt.(*ast.Set); ok && set.Key != "" {
			_ = s.Config.Set(set.Key, set.Value) // the client keeps what it prints by (result mode, dml-sync)
		}
		return s.ok(out, nil)
	}
	schema, err := remoteSchema(page.Results.Columns)
	if err != nil {
		return err
	}
	start := s.Now()
	rows := page.Results.Data
	done := page.ResultType == gateway.EOS || next < 0
	nextBatch := func() ([]sql.Row, error) {
		for {
			if len(rows) > 0 {
				batch, err := s.remoteRows(rows, schema)
				rows = nil
				return batch, err
			}
			if done {
				return nil, io.EOF
			}
			if page.ResultType == gateway.NotReady {
				if err := c.Sleep(ctx); err != nil {
					_ = c.Cancel(context.WithoutCancel(ctx), op)
					return nil, err
				}
			}
			if page, next, err = c.Fetch(ctx, op, next); err != nil {
				if ctx.Err() != nil {
					_ = c.Cancel(context.WithoutCancel(ctx), op)
					return nil, ctx.Err()
				}
				return nil, s.remoteErr(err)
			}
			rows = page.Results.Data
			done = page.ResultType == gateway.EOS || next < 0
		}
	}
	if _, ok := stmt.(*ast.Query); ok {
		return s.ShowResult(ctx, out, schema, s.Config.ResultMode(), s.Config.Streaming(), nextBatch, start)
	}
	// SHOW, DESCRIBE, EXPLAIN, CALL: a box of the whole result.
	var cells [][]string
	for {
		batch, err := nextBatch()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for _, r := range batch {
			cells = append(cells, formatCells(r, schema))
		}
	}
	if len(cells) == 0 {
		fmt.Fprintln(out, MsgEmptySet)
		return nil
	}
	Box(out, schema.Names(), cells, s.Config.MaxColumnWidth())
	return nil
}

// remoteErr turns the gateway's error answer into the root cause the SQL
// client prints, with the script's secrets masked.
func (s *Session) remoteErr(err error) error {
	var ge *gateway.Error
	if !errors.As(err, &ge) {
		return sql.Errorf(sql.SqlExecutionException, "%s", s.scrub(err.Error()))
	}
	class, msg := ge.RootCause()
	if class == "" {
		class = string(sql.SqlExecutionException)
	}
	return &sql.Error{Class: sql.ExceptionClass(class), Msg: s.scrub(msg)}
}

// scrub masks every secret the session sent to the gateway.
func (s *Session) scrub(text string) string {
	for _, sec := range s.secrets {
		if sec != "" {
			text = strings.ReplaceAll(text, sec, "******")
		}
	}
	return text
}

// remoteSchema maps the result's columns (LogicalTypeJsonSerializer's
// form) to sql types.
func remoteSchema(cols []gateway.Column) (sql.Schema, error) {
	var schema sql.Schema
	for _, c := range cols {
		t, err := remoteType(c.LogicalType)
		if err != nil {
			return schema, fmt.Errorf("column %s: %w", c.Name, err)
		}
		schema.Columns = append(schema.Columns, sql.Column{Name: c.Name, Type: t})
	}
	return schema, nil
}

func remoteType(lt gateway.LogicalType) (sql.DataType, error) {
	prec := func(def int) int {
		if lt.Precision != nil {
			return *lt.Precision
		}
		return def
	}
	var t sql.DataType
	switch lt.Type {
	case "BOOLEAN":
		t = sql.Boolean()
	case "TINYINT":
		t = sql.TinyInt()
	case "SMALLINT":
		t = sql.SmallInt()
	case "INTEGER":
		t = sql.Int()
	case "BIGINT":
		t = sql.BigInt()
	case "FLOAT":
		t = sql.Float()
	case "DOUBLE":
		t = sql.Double()
	case "DECIMAL":
		t = sql.Decimal(prec(10), lt.Scale)
	case "CHAR":
		t = sql.Char(lt.Length)
	case "VARCHAR":
		t = sql.VarChar(lt.Length)
	case "BINARY":
		t = sql.Binary(lt.Length)
	case "VARBINARY":
		t = sql.VarBinary(lt.Length)
	case "DATE":
		t = sql.Date()
	case "TIME_WITHOUT_TIME_ZONE":
		t = sql.Time(prec(0))
	case "TIMESTAMP_WITHOUT_TIME_ZONE":
		t = sql.Timestamp(prec(6))
	case "TIMESTAMP_WITH_LOCAL_TIME_ZONE":
		t = sql.TimestampLTZ(prec(6))
	case "ARRAY", "MULTISET":
		if lt.ElementType == nil {
			return t, fmt.Errorf("%s without an element type", lt.Type)
		}
		e, err := remoteType(*lt.ElementType)
		if err != nil {
			return t, err
		}
		if lt.Type == "MULTISET" {
			t = sql.MapOf(e, sql.Int().NotNull())
		} else {
			t = sql.ArrayOf(e)
		}
	case "MAP":
		if lt.KeyType == nil || lt.ValueType == nil {
			return t, fmt.Errorf("MAP without key or value type")
		}
		k, err := remoteType(*lt.KeyType)
		if err != nil {
			return t, err
		}
		v, err := remoteType(*lt.ValueType)
		if err != nil {
			return t, err
		}
		t = sql.MapOf(k, v)
	case "ROW":
		var fields []sql.Field
		for _, f := range lt.Fields {
			ft, err := remoteType(f.FieldType)
			if err != nil {
				return t, err
			}
			fields = append(fields, sql.Field{Name: f.Name, Type: ft})
		}
		t = sql.RowOf(fields...)
	default:
		t = sql.String() // RAW, STRUCTURED_TYPE, ...: shown as the gateway's text
	}
	return t.WithNullable(lt.Nullable), nil
}

// remoteRows converts rows of the JSON row format (RowDataToJsonConverters
// with ISO-8601 timestamps) to sql values.
func (s *Session) remoteRows(rows []gateway.Row, schema sql.Schema) ([]sql.Row, error) {
	out := make([]sql.Row, len(rows))
	for i, r := range rows {
		if len(r.Fields) != len(schema.Columns) {
			return nil, fmt.Errorf("SQL Gateway: a row of %d fields for %d columns", len(r.Fields), len(schema.Columns))
		}
		kind := sql.Insert
		switch r.Kind {
		case "UPDATE_BEFORE":
			kind = sql.UpdateBefore
		case "UPDATE_AFTER":
			kind = sql.UpdateAfter
		case "DELETE":
			kind = sql.Delete
		}
		vals := make([]any, len(r.Fields))
		for j, f := range r.Fields {
			v, err := remoteValue(f, schema.Columns[j].Type)
			if err != nil {
				return nil, fmt.Errorf("SQL Gateway: column %s: %w", schema.Columns[j].Name, err)
			}
			if str, ok := v.(string); ok {
				v = s.scrub(str)
			}
			vals[j] = v
		}
		out[i] = sql.Row{Kind: kind, Values: vals}
	}
	return out, nil
}

func remoteValue(raw json.RawMessage, t sql.DataType) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return convertRemote(v, t)
}

func convertRemote(v any, t sql.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) { return nil, fmt.Errorf("%v is not a %s", v, t) }
	num := func() (json.Number, bool) { n, ok := v.(json.Number); return n, ok }
	str := func() (string, bool) { s, ok := v.(string); return s, ok }
	switch t.Root {
	case sql.TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return b, nil
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt:
		n, ok := num()
		if !ok {
			return bad()
		}
		i, err := n.Int64()
		if err != nil {
			return bad()
		}
		switch t.Root {
		case sql.TypeTinyInt:
			return int8(i), nil
		case sql.TypeSmallInt:
			return int16(i), nil
		case sql.TypeInt:
			return int32(i), nil
		}
		return i, nil
	case sql.TypeFloat, sql.TypeDouble:
		n, ok := num()
		if !ok {
			if s, isStr := str(); isStr { // NaN, Infinity
				n = json.Number(s)
			} else {
				return bad()
			}
		}
		f, err := n.Float64()
		if err != nil && !strings.Contains(string(n), "Inf") && string(n) != "NaN" {
			return bad()
		}
		if t.Root == sql.TypeFloat {
			return float32(f), nil
		}
		return f, nil
	case sql.TypeDecimal:
		n, ok := num()
		if !ok {
			return bad()
		}
		d, err := decimal.NewFromString(string(n))
		if err != nil {
			return bad()
		}
		return d.Round(int32(t.Scale)), nil
	case sql.TypeChar, sql.TypeVarChar:
		if s, ok := str(); ok {
			return s, nil
		}
		b, _ := json.Marshal(v)
		return string(b), nil
	case sql.TypeBinary, sql.TypeVarBinary:
		s, ok := str()
		if !ok {
			return bad()
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return bad()
		}
		return b, nil
	case sql.TypeDate:
		s, ok := str()
		if !ok {
			return bad()
		}
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return bad()
		}
		return int32(d.Unix() / 86400), nil
	case sql.TypeTime:
		s, ok := str()
		if !ok {
			return bad()
		}
		d, err := time.Parse("15:04:05.999999999", s)
		if err != nil {
			return bad()
		}
		return int32(d.Hour()*3600000 + d.Minute()*60000 + d.Second()*1000 + d.Nanosecond()/1e6), nil
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		s, ok := str()
		if !ok {
			return bad()
		}
		layout := "2006-01-02T15:04:05.999999999"
		if t.Root == sql.TypeTimestampLTZ {
			layout += "Z07:00"
		}
		ts, err := time.Parse(layout, s)
		if err != nil {
			return bad()
		}
		return sql.TimestampFromTime(ts.UTC()), nil
	case sql.TypeArray:
		a, ok := v.([]any)
		if !ok {
			return bad()
		}
		out := make([]any, len(a))
		for i, e := range a {
			x, err := convertRemote(e, *t.Elem)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case sql.TypeMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		res := &sql.Map{}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys) // JSON objects have no order; print one
		for _, k := range keys {
			e := m[k]
			kv, err := convertRemote(k, *t.Elem)
			if err != nil {
				// A non-string key comes as its text (MapNullKeyMode.LITERAL).
				kv = k
			}
			x, err := convertRemote(e, *t.Value)
			if err != nil {
				return nil, err
			}
			res.Keys = append(res.Keys, kv)
			res.Values = append(res.Values, x)
		}
		return res, nil
	case sql.TypeRow:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			x, err := convertRemote(m[f.Name], f.Type)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	b, _ := json.Marshal(v)
	return string(b), nil
}
