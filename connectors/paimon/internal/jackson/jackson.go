// Package jackson re-formats JSON the way Java's Jackson DefaultPrettyPrinter
// writes Paimon's metadata files (schema, snapshot, consumer, tag):
//
//	{
//	  "version" : 3,
//	  "fields" : [ {
//	    "id" : 0
//	  } ],
//	  "partitionKeys" : [ ],
//	  "options" : { }
//	}
//
// Objects indent two spaces per object nesting level, arrays stay on one line
// ("[ a, b ]"), keys are followed by " : ". Java accepts any JSON, so this is
// about diffs and human reading being identical to Java's files, not about
// compatibility. Key order is the caller's (encoding/json keeps struct field
// order); numbers are copied verbatim so int64 values survive.
package jackson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Marshal encodes v with encoding/json, then pretty-prints it Jackson style.
func Marshal(v any) ([]byte, error) {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return Format(raw.Bytes())
}

// Format re-prints a JSON document Jackson style.
func Format(in []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var out bytes.Buffer
	if err := value(dec, &out, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("jackson: trailing data after JSON value")
	}
	return out.Bytes(), nil
}

func indent(out *bytes.Buffer, level int) {
	out.WriteByte('\n')
	for i := 0; i < level; i++ {
		out.WriteString("  ")
	}
}

func value(dec *json.Decoder, out *bytes.Buffer, level int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out.WriteByte('{')
			n := 0
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if n > 0 {
					out.WriteByte(',')
				}
				indent(out, level+1)
				writeString(out, k.(string))
				out.WriteString(" : ")
				if err := value(dec, out, level+1); err != nil {
					return err
				}
				n++
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			if n == 0 {
				out.WriteString(" }")
			} else {
				indent(out, level)
				out.WriteByte('}')
			}
		case '[':
			out.WriteString("[ ")
			n := 0
			for dec.More() {
				if n > 0 {
					out.WriteString(", ")
				}
				if err := value(dec, out, level); err != nil {
					return err
				}
				n++
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			if n == 0 {
				out.WriteByte(']')
			} else {
				out.WriteString(" ]")
			}
		default:
			return fmt.Errorf("jackson: unexpected %v", t)
		}
	case string:
		writeString(out, t)
	case json.Number:
		out.WriteString(t.String())
	case bool:
		out.WriteString(strconv.FormatBool(t))
	case nil:
		out.WriteString("null")
	}
	return nil
}

const hexDigits = "0123456789ABCDEF"

// writeString escapes as Jackson does: quote, backslash and control
// characters; non-ASCII is written as UTF-8.
func writeString(out *bytes.Buffer, s string) {
	out.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			out.WriteRune(r)
			i += n
			continue
		}
		switch c {
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		case '\n':
			out.WriteString(`\n`)
		case '\r':
			out.WriteString(`\r`)
		case '\t':
			out.WriteString(`\t`)
		case '\b':
			out.WriteString(`\b`)
		case '\f':
			out.WriteString(`\f`)
		default:
			if c < 0x20 {
				out.WriteString(`\u00`)
				out.WriteByte(hexDigits[c>>4])
				out.WriteByte(hexDigits[c&15])
			} else {
				out.WriteByte(c)
			}
		}
		i++
	}
	out.WriteByte('"')
}
