package expr

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlrun/sqlrun/sql"
)

// The regular expression functions, as SqlFunctionUtils computes them:
// regExp, regexpReplace and regexpExtract. A pattern Java rejects gives
// what their catch blocks return (FALSE for REGEXP, NULL for the others);
// a valid Java pattern sqlrun cannot match as Java does fails the query
// (JavaRegexError), when the job is compiled for a literal pattern.

// regexArg compiles the pattern argument i of c when it is a literal, so
// that an unsupported construct fails before the job runs; nil otherwise.
func regexArg(c *Call, i int) (*javaRegex, error) {
	l, ok := c.Args[i].(*Literal)
	if !ok || l.Value == nil {
		return nil, nil
	}
	p, _ := l.Value.(string)
	re, err := compileJavaRegex(p)
	var inv *invalidRegex
	if errors.As(err, &inv) {
		return nil, nil // evaluated per row: the function's own result
	}
	return re, regexErr(c.Op, err)
}

// regexErr turns a JavaRegexError into the query's error, naming the
// function.
func regexErr(fn string, err error) error {
	var je *JavaRegexError
	if errors.As(err, &je) {
		return sql.Errorf(sql.TableException, "%s: %w", fn, je)
	}
	return err
}

// matcher returns the compiled pattern for a row: the literal one, or the
// row's. invalid reports a pattern Java rejects.
func matcher(fn string, lit *javaRegex, p, s string) (re *javaRegex, invalid bool, err error) {
	re = lit
	if re == nil {
		re, err = compileJavaRegex(p)
		var inv *invalidRegex
		if errors.As(err, &inv) {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, regexErr(fn, err)
		}
	}
	if err := re.checkText(p, s); err != nil {
		return nil, false, regexErr(fn, err)
	}
	return re, false, nil
}

// evalRegexp is SqlFunctionUtils.regExp: whether the pattern is found in
// the string; FALSE for an empty or invalid pattern.
func evalRegexp(c *Call, args []Eval) (Eval, error) {
	lit, err := regexArg(c, 1)
	if err != nil {
		return nil, err
	}
	return strict(args, func(vs []any) (any, error) {
		s, p := vs[0].(string), vs[1].(string)
		if p == "" {
			return false, nil
		}
		re, invalid, err := matcher(c.Op, lit, p, s)
		if err != nil || invalid {
			return false, err
		}
		return re.re.MatchString(s), nil
	}), nil
}

// evalRegexpReplace is SqlFunctionUtils.regexpReplace: String.replaceAll
// with the replacement taken literally (Matcher.quoteReplacement); NULL for
// an invalid pattern.
func evalRegexpReplace(c *Call, args []Eval) (Eval, error) {
	lit, err := regexArg(c, 1)
	if err != nil {
		return nil, err
	}
	return strict(args, func(vs []any) (any, error) {
		s, p, r := vs[0].(string), vs[1].(string), vs[2].(string)
		re, invalid, err := matcher(c.Op, lit, p, s)
		if err != nil || invalid {
			return nil, err
		}
		ms, err := re.findAll(s)
		if err != nil {
			return nil, regexErr(c.Op, &JavaRegexError{Pattern: p, Construct: err.Error()})
		}
		var b strings.Builder
		last := 0
		for _, m := range ms {
			b.WriteString(s[last:m[0]])
			b.WriteString(r)
			last = m[1]
		}
		b.WriteString(s[last:])
		return b.String(), nil
	}), nil
}

// evalRegexpExtract is SqlFunctionUtils.regexpExtract: the group (0 by
// default) of the first match; NULL when nothing matches, the group did
// not take part, the index is no group's, or the pattern is invalid.
func evalRegexpExtract(c *Call, args []Eval) (Eval, error) {
	lit, err := regexArg(c, 1)
	if err != nil {
		return nil, err
	}
	return strict(args, func(vs []any) (any, error) {
		s, p := vs[0].(string), vs[1].(string)
		group := int64(0)
		if len(vs) > 2 {
			group, _ = ToInt(vs[2])
			// The int overload truncates a BIGINT index, as (int) does.
			group = int64(int32(group))
		}
		re, invalid, err := matcher(c.Op, lit, p, s)
		if err != nil || invalid {
			return nil, err
		}
		m := re.re.FindStringSubmatchIndex(s)
		if m == nil || group < 0 || group > int64(re.re.NumSubexp()) || m[2*group] < 0 {
			return nil, nil
		}
		return s[m[2*group]:m[2*group+1]], nil
	}), nil
}

func inferOverlay(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) < 3 || len(args) > 4 {
		return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting 3 arguments", name)}
	}
	for i, a := range args {
		t := a.Type()
		ok := t.Root == sql.TypeNull || (i < 2 && t.IsString()) || (i >= 2 && isIntegerType(t))
		if !ok {
			return nil, sql.DataType{}, operandTypesError(name, args, familyNames([]string{"S", "S", "I", "I"}[:len(args)]))
		}
	}
	n := args[0].Type().Length + args[1].Type().Length
	if n > sql.MaxLength || n <= 0 {
		n = sql.MaxLength
	}
	return args, sql.VarChar(n).WithNullable(anyNullable(args)), nil
}

// evalOverlay is SqlFunctionUtils.overlay: the string unchanged for a
// start outside it; the rest after start + length dropped when that passes
// the end or the length is not positive; the length defaults to the
// replacement's.
func evalOverlay(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s, r := vs[0].(string), vs[1].(string)
		start, _ := ToInt(vs[2])
		length := int64(utf8.RuneCountInString(r))
		if len(vs) > 3 {
			length, _ = ToInt(vs[3])
		}
		rs := []rune(s)
		if start <= 0 || start > int64(len(rs)) {
			return s, nil
		}
		out := string(rs[:start-1]) + r
		if start+length <= int64(len(rs)) && length > 0 {
			out += string(rs[start-1+length:])
		}
		return out, nil
	}), nil
}

// evalSimilar is SIMILAR TO as Calcite's SqlFunctions.similar computes it
// (Flink's StringCallGen.generateSimilarTo calls it): the SQL pattern,
// translated by Like.sqlToRegexSimilar, matches the whole string
// (Pattern.matches).
func evalSimilar(c *Call, args []Eval) (Eval, error) {
	var lit *javaRegex
	if l, ok := c.Args[1].(*Literal); ok && l.Value != nil && (len(c.Args) < 3 || isLiteral(c.Args[2])) {
		esc := ""
		if len(c.Args) > 2 {
			esc, _ = c.Args[2].(*Literal).Value.(string)
		}
		re, err := similarRegex(l.Value.(string), esc)
		if err != nil {
			return nil, err
		}
		lit = re
	}
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		re := lit
		if re == nil {
			esc := ""
			if len(vs) > 2 {
				esc = vs[2].(string)
			}
			var err error
			if re, err = similarRegex(vs[1].(string), esc); err != nil {
				return nil, err
			}
		}
		if err := re.checkText(vs[1].(string), s); err != nil {
			return nil, regexErr("SIMILAR TO", err)
		}
		return re.re.MatchString(s), nil
	}), nil
}

func isLiteral(e Expr) bool {
	_, ok := e.(*Literal)
	return ok
}

// similarRegex compiles a SIMILAR TO pattern: its Java translation,
// anchored at both ends as Pattern.matches requires the whole input.
func similarRegex(pattern, escape string) (*javaRegex, error) {
	rx, err := sqlToRegexSimilar(pattern, escape)
	if err != nil {
		return nil, sql.Errorf(sql.TableException, "SIMILAR TO: %w", err)
	}
	re, err := compileJavaRegex(`\A(?:` + rx + `)\z`)
	var inv *invalidRegex
	if errors.As(err, &inv) {
		return nil, sql.Errorf(sql.TableException, "SIMILAR TO: the pattern '%s' is no valid regular expression: %s", pattern, inv.msg)
	}
	return re, regexErr("SIMILAR TO", err)
}

// similarSpecials and javaRegexSpecials are Like's SQL_SIMILAR_SPECIALS
// and JAVA_REGEX_SPECIALS.
const (
	similarSpecials   = "[]()|^-+*_%?{}"
	javaRegexSpecials = "[]()|^-+*?{}$\\."
)

// similarClasses are Like's REG_CHAR_CLASSES: a character class name in
// a bracket expression and its Java form.
var similarClasses = []struct{ sql, java string }{
	{"[:ALPHA:]", `\p{Alpha}`}, {"[:alpha:]", `\p{Alpha}`}, {"[:UPPER:]", `\p{Upper}`}, {"[:upper:]", `\p{Upper}`},
	{"[:LOWER:]", `\p{Lower}`}, {"[:lower:]", `\p{Lower}`}, {"[:DIGIT:]", `\d`}, {"[:digit:]", `\d`},
	{"[:SPACE:]", " "}, {"[:space:]", " "}, {"[:WHITESPACE:]", `\s`}, {"[:whitespace:]", `\s`},
	{"[:ALNUM:]", `\p{Alnum}`}, {"[:alnum:]", `\p{Alnum}`},
}

// sqlToRegexSimilar is Calcite's Like.sqlToRegexSimilar (1.32, Flink
// 1.20's): a SQL SIMILAR TO pattern as a Java regular expression, with its
// messages for a pattern it refuses. '_' is any character, '%' any
// sequence, a bracket expression keeps its ranges and negation and takes
// the [:ALPHA:]-style class names, and every other character, '.'
// included, is the regular expression's own; '\' and '$' are literal.
func sqlToRegexSimilar(pattern, escape string) (string, error) {
	var esc rune // Calcite's escapeChar: 0 when there is none
	if escape != "" {
		if utf8.RuneCountInString(escape) != 1 {
			return "", fmt.Errorf("Invalid escape character '%s'", escape)
		}
		esc, _ = utf8.DecodeRuneInString(escape)
	}
	p := []rune(pattern)
	badEscape := func(i int) error { return fmt.Errorf("Invalid escape sequence '%s', %d", pattern, i) }
	badRegex := func(i int) error { return fmt.Errorf("Invalid regular expression '%s', index %d", pattern, i) }
	special := func(r rune) bool { return strings.ContainsRune(similarSpecials, r) }
	javaSpecial := func(r rune) bool { return strings.ContainsRune(javaRegexSpecials, r) }
	// similarEscapeRuleChecking: SQL 2003 Part 2 Section 8.6 General Rule 3.
	if esc != 0 && special(esc) {
		for i, r := range p {
			if r != esc {
				continue
			}
			if i == len(p)-1 {
				return "", badEscape(i)
			}
			if n := p[i+1]; !special(n) && n != esc {
				return "", badEscape(i)
			}
		}
	}
	if esc == ':' {
		pos := strings.Index(pattern, "[:")
		if pos >= 0 {
			pos = strings.Index(pattern, ":]")
		}
		if pos < 0 {
			return "", badEscape(pos)
		}
	}
	var b strings.Builder
	escaped := func(i int) (int, error) {
		if i == len(p)-1 {
			return 0, badEscape(i)
		}
		n := p[i+1]
		switch {
		case special(n):
			if javaSpecial(n) {
				b.WriteByte('\\')
			}
			b.WriteRune(n)
		case n == esc:
			b.WriteRune(n)
		default:
			return 0, badEscape(i)
		}
		return i + 1, nil
	}
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == esc {
			var err error
			if i, err = escaped(i); err != nil {
				return "", err
			}
			continue
		}
		switch c {
		case '_':
			b.WriteByte('.')
		case '%':
			b.WriteString("(?s:.*)")
		case '[':
			b.WriteByte('[')
			inClass = true
			// sqlSimilarRewriteCharEnumeration: up to the closing ']'.
			j := i + 1
			for ; j < len(p) && p[j] != ']'; j++ {
				r := p[j]
				switch {
				case r == esc:
					j++
					if j == len(p) {
						return "", badRegex(j)
					}
					n := p[j]
					switch {
					case special(n):
						if javaSpecial(n) {
							b.WriteByte('\\')
						}
						b.WriteRune(n)
					case n == esc:
						b.WriteRune(n)
					default:
						return "", badRegex(j)
					}
				case r == '-' || r == '^':
					b.WriteRune(r)
				case strings.HasPrefix(string(p[j:]), "[:"):
					found := false
					for _, cl := range similarClasses {
						if strings.HasPrefix(string(p[j:]), cl.sql) {
							b.WriteString(cl.java)
							j += utf8.RuneCountInString(cl.sql) - 1
							found = true
							break
						}
					}
					if !found {
						return "", badRegex(j)
					}
				case special(r):
					return "", badRegex(j)
				default:
					b.WriteRune(r)
				}
			}
			i = j - 1
		case ']':
			if !inClass {
				return "", badRegex(i)
			}
			inClass = false
			b.WriteByte(']')
		case '\\':
			b.WriteString(`\\`)
		case '$':
			b.WriteString(`\$`)
		default:
			b.WriteRune(c)
		}
	}
	if inClass {
		return "", badRegex(len(p))
	}
	return b.String(), nil
}
