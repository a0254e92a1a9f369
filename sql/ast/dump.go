package ast

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// Dump prints a node (a statement, query, table expression or expression)
// as an indented tree, one field per line, leaving out zero-valued fields.
// It is the canonical form the parser's golden tests compare and what
// EXPLAIN shows as the "Abstract Syntax Tree" of a statement we do not plan.
// Positions print as "@line:col".
func Dump(n any) string {
	var b strings.Builder
	d := dumper{b: &b}
	d.value(reflect.ValueOf(n), 0)
	return b.String()
}

type dumper struct{ b *strings.Builder }

var (
	posType      = reflect.TypeOf(Pos{})
	nodeType     = reflect.TypeOf(Node{})
	stmtBaseType = reflect.TypeOf(StmtBase{})
	dataTypeType = reflect.TypeOf(sql.DataType{})
	objNameType  = reflect.TypeOf(ObjectName{})
)

// inline renders values that fit on the line of their field name; ok is
// false for structured values that need their own lines.
func (d dumper) inline(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return "nil", true
		}
		if v.Kind() == reflect.Pointer && (v.Elem().Kind() != reflect.Struct || v.Elem().Type() == objNameType) {
			return d.inline(v.Elem())
		}
		if lit, ok := v.Interface().(*Literal); ok {
			return fmt.Sprintf("Literal %s %s %s%s", lit.Kind, lit.Raw, literalValue(lit), at(lit.At)), true
		}
		if c, ok := v.Interface().(*ColumnRef); ok {
			return "ColumnRef " + c.String() + at(c.At), true
		}
		if p, ok := v.Interface().(*Param); ok {
			return fmt.Sprintf("Param %d%s", p.Index, at(p.At)), true
		}
		return "", false
	case reflect.String:
		return fmt.Sprintf("%q", v.String()), true
	case reflect.Bool, reflect.Int, reflect.Int64, reflect.Int32:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return s.String(), true
		}
		return fmt.Sprint(v.Interface()), true
	case reflect.Struct:
		switch v.Type() {
		case dataTypeType:
			return v.Interface().(sql.DataType).String(), true
		case objNameType:
			n := v.Interface().(ObjectName)
			return n.String() + at(n.At), true
		case posType:
			return at(v.Interface().(Pos)), true
		}
		if v.Type() == reflect.TypeOf(Option{}) {
			o := v.Interface().(Option)
			return QuoteString(o.Key) + " = " + QuoteString(o.Value) + at(o.At), true
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			s := make([]string, v.Len())
			for i := range s {
				s[i] = v.Index(i).String()
			}
			return "[" + strings.Join(s, ", ") + "]", true
		}
	}
	return "", false
}

func literalValue(l *Literal) string {
	switch v := l.Value.(type) {
	case nil:
		return "<nil>"
	case []byte:
		return fmt.Sprintf("[]byte(%X) %s", v, l.Type)
	case string:
		return fmt.Sprintf("string(%q) %s", v, l.Type)
	case decimal.Decimal:
		return fmt.Sprintf("decimal(%s) %s", v.StringFixed(max(0, -v.Exponent())), l.Type)
	case IntervalValue:
		return fmt.Sprintf("interval(months=%d, millis=%d, %s)", v.Months, v.Millis, v.Unit)
	default:
		return fmt.Sprintf("%T(%v)", v, v) + " " + l.Type.String()
	}
}

func at(p Pos) string {
	if !p.IsValid() {
		return ""
	}
	return fmt.Sprintf(" @%d:%d", p.Line, p.Col)
}

func (d dumper) indent(depth int) { d.b.WriteString(strings.Repeat("  ", depth)) }

// value writes a structured value at depth: its type name and position on
// the current line, then its fields below.
func (d dumper) value(v reflect.Value, depth int) {
	if s, ok := d.inline(v); ok {
		d.b.WriteString(s + "\n")
		return
	}
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() == reflect.Slice {
		d.b.WriteString("list\n")
		for j := 0; j < v.Len(); j++ {
			d.indent(depth + 1)
			d.b.WriteString("- ")
			d.value(v.Index(j), depth+1)
		}
		return
	}
	if v.Kind() != reflect.Struct {
		fmt.Fprintf(d.b, "%v\n", v.Interface())
		return
	}
	t := v.Type()
	d.b.WriteString(t.Name())
	if p, ok := structPos(v); ok {
		d.b.WriteString(at(p))
	}
	d.b.WriteString("\n")
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fv := v.Field(i)
		// Kind is printed even when zero: SHOW CATALOGS is ShowKind 0.
		if f.Type == nodeType || f.Type == stmtBaseType || !f.IsExported() || fv.IsZero() && f.Name != "Kind" {
			continue
		}
		d.indent(depth + 1)
		d.b.WriteString(f.Name + ":")
		if s, ok := d.inline(fv); ok {
			d.b.WriteString(" " + s + "\n")
			continue
		}
		if fv.Kind() == reflect.Slice {
			d.b.WriteString("\n")
			for j := 0; j < fv.Len(); j++ {
				d.indent(depth + 2)
				d.b.WriteString("- ")
				d.value(fv.Index(j), depth+2)
			}
			continue
		}
		d.b.WriteString(" ")
		d.value(fv, depth+1)
	}
}

func structPos(v reflect.Value) (Pos, bool) {
	if f := v.FieldByName("Node"); f.IsValid() && f.Type() == nodeType {
		return f.Interface().(Node).At, true
	}
	if f := v.FieldByName("StmtBase"); f.IsValid() && f.Type() == stmtBaseType {
		return f.Interface().(StmtBase).At, true
	}
	return Pos{}, false
}
