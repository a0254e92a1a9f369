package filesystem

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// format is one of csv, json, debezium-json with its options.
type format struct {
	kind              string
	delim             rune
	quote             rune
	disableQuote      bool
	allowComments     bool
	nullLiteral       string
	hasNullLiteral    bool
	ignoreParseErrors bool
	failOnMissing     bool
	schemaInclude     bool
	cols              []sql.Column
}

func newFormat(o connectors.Options, cols []sql.Column) (*format, error) {
	f := &format{kind: strings.ToLower(o.Get("format")), cols: cols}
	switch f.kind {
	case "csv":
		d := o.Get("csv.field-delimiter")
		if d == `\t` {
			d = "\t"
		}
		if len([]rune(d)) != 1 {
			return nil, sql.Errorf(sql.ValidationException, "Option 'csv.field-delimiter' must be a string with single character, but was: %s", d)
		}
		f.delim = []rune(d)[0]
		q := o.Get("csv.quote-character")
		if len([]rune(q)) != 1 {
			return nil, sql.Errorf(sql.ValidationException, "Option 'csv.quote-character' must be a string with single character, but was: %s", q)
		}
		f.quote = []rune(q)[0]
		f.disableQuote = o.Bool("csv.disable-quote-character")
		f.allowComments = o.Bool("csv.allow-comments")
		f.ignoreParseErrors = o.Bool("csv.ignore-parse-errors")
		if o.Has("csv.null-literal") {
			f.nullLiteral, f.hasNullLiteral = o.Get("csv.null-literal"), true
		}
		for _, c := range cols {
			switch c.Type.Root {
			case sql.TypeArray, sql.TypeMap, sql.TypeRow:
				return nil, sql.Errorf(sql.ValidationException, "The csv format does not support column '%s' of type %s in sqlrun.", c.Name, c.Type)
			case sql.TypeIntervalYearMonth, sql.TypeIntervalDayTime:
				// Neither does Flink's (RowDataToCsvConverters,
				// CsvToRowDataConverters: "Unsupported type").
				return nil, sql.Errorf(sql.ValidationException, "The csv format does not support column '%s' of type %s.", c.Name, c.Type)
			}
		}
	case "json":
		f.ignoreParseErrors = o.Bool("json.ignore-parse-errors")
		f.failOnMissing = o.Bool("json.fail-on-missing-field")
		if f.ignoreParseErrors && f.failOnMissing {
			return nil, sql.Errorf(sql.ValidationException, "json.fail-on-missing-field and json.ignore-parse-errors shouldn't both be true.")
		}
	case "debezium-json":
		f.ignoreParseErrors = o.Bool("debezium-json.ignore-parse-errors")
		f.schemaInclude = o.Bool("debezium-json.schema-include")
	default:
		return nil, sql.Errorf(sql.ValidationException,
			"Could not find any format factory for identifier '%s' in the classpath.", o.Get("format"))
	}
	return f, nil
}

// changelogMode is what the format can carry.
func (f *format) changelogMode() sql.ChangelogMode {
	if f.kind == "debezium-json" {
		return sql.All
	}
	return sql.InsertOnly
}

// decoder reads records from one file; skip counts records already
// consumed (a restored position).
type decoder struct {
	f   *format
	csv *csv.Reader
	br  *bufio.Reader
}

func (f *format) newDecoder(r io.Reader) *decoder {
	d := &decoder{f: f}
	if f.kind == "csv" && !f.disableQuote && f.quote == '"' {
		c := csv.NewReader(r)
		c.Comma = f.delim
		c.FieldsPerRecord = -1
		c.LazyQuotes = true
		c.ReuseRecord = false
		if f.allowComments {
			c.Comment = '#'
		}
		d.csv = c
	} else {
		d.br = bufio.NewReaderSize(r, 64<<10)
	}
	return d
}

// next decodes the next record into rows (debezium "u" gives two); it
// returns io.EOF at the end of the file.
func (d *decoder) next() ([]sql.Row, error) {
	f := d.f
	if d.csv != nil {
		rec, err := d.csv.Read()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			if f.ignoreParseErrors {
				return nil, nil
			}
			return nil, fmt.Errorf("Failed to deserialize CSV row: %w", err)
		}
		return f.csvRow(rec, strings.Join(rec, string(f.delim)))
	}
	line, err := d.br.ReadBytes('\n')
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil
	}
	switch f.kind {
	case "csv": // quoting disabled or a custom quote character
		s := string(line)
		if f.allowComments && strings.HasPrefix(s, "#") {
			return nil, nil
		}
		var rec []string
		if f.disableQuote {
			rec = strings.Split(s, string(f.delim))
		} else {
			rec = splitQuoted(s, f.delim, f.quote)
		}
		return f.csvRow(rec, s)
	case "json":
		rows, err := f.jsonRow(line)
		if err != nil {
			if f.ignoreParseErrors {
				return nil, nil
			}
			return nil, fmt.Errorf("Failed to deserialize JSON '%s': %w", line, err)
		}
		return rows, nil
	default:
		rows, err := f.debeziumRows(line)
		if err != nil {
			if f.ignoreParseErrors {
				return nil, nil
			}
			return nil, fmt.Errorf("Corrupt Debezium JSON message '%s': %w", line, err)
		}
		return rows, nil
	}
}

func splitQuoted(s string, delim, quote rune) []string {
	var out []string
	var cur strings.Builder
	in := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == quote && in && i+1 < len(rs) && rs[i+1] == quote:
			cur.WriteRune(quote)
			i++
		case r == quote:
			in = !in
		case r == delim && !in:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(out, cur.String())
}

func (f *format) csvRow(rec []string, raw string) ([]sql.Row, error) {
	if len(rec) != len(f.cols) {
		if f.ignoreParseErrors {
			return nil, nil
		}
		return nil, fmt.Errorf("Failed to deserialize CSV row '%s': expected %d fields, got %d", raw, len(f.cols), len(rec))
	}
	vals := make([]any, len(rec))
	for i, s := range rec {
		c := f.cols[i]
		if f.hasNullLiteral && s == f.nullLiteral {
			continue
		}
		if s == "" && !c.Type.IsString() {
			continue // an empty field of a non-string column is NULL
		}
		v, err := connectors.ParseText(s, c.Type)
		if err != nil {
			if f.ignoreParseErrors {
				return nil, nil
			}
			return nil, fmt.Errorf("Failed to deserialize CSV row '%s': column '%s': %w", raw, c.Name, err)
		}
		vals[i] = v
	}
	return []sql.Row{{Kind: sql.Insert, Values: vals}}, nil
}

func decodeObject(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func (f *format) jsonRow(line []byte) ([]sql.Row, error) {
	obj, err := decodeObject(line)
	if err != nil {
		return nil, err
	}
	vals, err := connectors.RowFromJSONObject(obj, f.cols, f.failOnMissing)
	if err != nil {
		return nil, err
	}
	return []sql.Row{{Kind: sql.Insert, Values: vals}}, nil
}

// debeziumRows maps a Debezium change event to rows as Flink's
// debezium-json format: c/r → +I(after), u → -U(before) +U(after),
// d → -D(before). A tombstone (null payload) is skipped.
func (f *format) debeziumRows(line []byte) ([]sql.Row, error) {
	if string(bytes.TrimSpace(line)) == "null" {
		return nil, nil
	}
	obj, err := decodeObject(line)
	if err != nil {
		return nil, err
	}
	if f.schemaInclude {
		p, ok := obj["payload"].(map[string]any)
		if !ok {
			if _, hasSchema := obj["schema"]; !hasSchema {
				return nil, errors.New("'debezium-json.schema-include' is true but the message has no \"schema\" and \"payload\" fields")
			}
			return nil, nil
		}
		obj = p
	}
	image := func(name string) ([]any, error) {
		m, ok := obj[name].(map[string]any)
		if !ok {
			return nil, nil
		}
		return connectors.RowFromJSONObject(m, f.cols, false)
	}
	op, _ := obj["op"].(string)
	switch op {
	case "c", "r":
		after, err := image("after")
		if err != nil || after == nil {
			return nil, orMissing(err, "after")
		}
		return []sql.Row{{Kind: sql.Insert, Values: after}}, nil
	case "u":
		before, err := image("before")
		if err != nil {
			return nil, err
		}
		if before == nil {
			return nil, errors.New("The \"before\" field of UPDATE message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level.")
		}
		after, err := image("after")
		if err != nil || after == nil {
			return nil, orMissing(err, "after")
		}
		return []sql.Row{{Kind: sql.UpdateBefore, Values: before}, {Kind: sql.UpdateAfter, Values: after}}, nil
	case "d":
		before, err := image("before")
		if err != nil {
			return nil, err
		}
		if before == nil {
			return nil, errors.New("The \"before\" field of DELETE message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level.")
		}
		return []sql.Row{{Kind: sql.Delete, Values: before}}, nil
	}
	return nil, fmt.Errorf("Unknown \"op\" value \"%s\".", op)
}

func orMissing(err error, field string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("the \"%s\" field is missing or null", field)
}

// encode appends one row in the format, ending with a newline. Insert-only
// formats reject other kinds (the planner never sends them).
func (f *format) encode(b []byte, r sql.Row) ([]byte, error) {
	switch f.kind {
	case "csv":
		if r.Kind != sql.Insert && r.Kind != sql.UpdateAfter {
			return b, fmt.Errorf("the csv format only supports insert-only input, got %s", r.Kind)
		}
		var sb strings.Builder
		w := csv.NewWriter(&sb)
		w.Comma = f.delim
		rec := make([]string, len(r.Values))
		for i, v := range r.Values {
			if v == nil {
				if f.hasNullLiteral {
					rec[i] = f.nullLiteral
				}
				continue
			}
			rec[i] = connectors.FormatText(v, f.cols[i].Type)
		}
		if err := w.Write(rec); err != nil {
			return b, err
		}
		w.Flush()
		return append(b, sb.String()...), w.Error()
	case "json":
		if r.Kind != sql.Insert && r.Kind != sql.UpdateAfter {
			return b, fmt.Errorf("the json format only supports insert-only input, got %s", r.Kind)
		}
		b = connectors.AppendJSONObject(b, r.Values, f.cols)
		return append(b, '\n'), nil
	default:
		// Flink's debezium-json serializer: additions are "c" with after,
		// retractions are "d" with before.
		if r.Kind.IsAdd() {
			b = append(b, `{"before":null,"after":`...)
			b = connectors.AppendJSONObject(b, r.Values, f.cols)
			b = append(b, `,"op":"c"}`...)
		} else {
			b = append(b, `{"before":`...)
			b = connectors.AppendJSONObject(b, r.Values, f.cols)
			b = append(b, `,"after":null,"op":"d"}`...)
		}
		return append(b, '\n'), nil
	}
}
