package expr

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Flink's regular expression functions (REGEXP, REGEXP_REPLACE,
// REGEXP_EXTRACT) compile their patterns with java.util.regex.Pattern. Go's
// regexp (RE2) shares Java's leftmost-first matching for the constructs both
// have, and spells a few of them differently; javaRegex translates a Java
// pattern into RE2 syntax so that it matches what Java matches:
//
//   - '.' is any character but Java's line terminators (\n \r \u0085
//     \u2028 \u2029) unless (?s) is on;
//   - \s is Java's [ \t\n\x0B\f\r] (RE2's lacks \x0B), \h and \v Java's
//     horizontal and vertical whitespace;
//   - \uXXXX, \0oct, \e and \cX are written as RE2's \x{...};
//   - \p{Lower} and the other POSIX classes Java names are ASCII classes;
//     \p{L}, \p{IsL}, \p{Lu}, \p{IsLatin} and \p{Latin} are Unicode's.
//
// What Java has and RE2 does not (back references, look-around, atomic
// groups and possessive quantifiers, class unions and intersections, \G \Z
// \X, the x and d flags, counted repetitions over 1000) is refused with a
// JavaRegexError naming the construct: guessing would return rows Java would
// not. A pattern Java itself rejects (unbalanced parentheses, a dangling
// quantifier, a '{' that is no repetition, an unknown escape) is an
// invalidRegex: the functions return what Flink's do for it (NULL, or
// FALSE for REGEXP), as SqlFunctionUtils catches Java's
// PatternSyntaxException.
//
// Two differences remain and are documented (docs/differences.md): with
// (?i), RE2 folds non-ASCII letters where Java (without (?u)) folds only
// ASCII ones, and \b counts only ASCII letters and digits as word
// characters where Java counts every Unicode letter and digit. '$' matches
// only at the end of the text; where Java's would also match before a
// final line terminator (the text ends in one), the match fails with an
// error rather than differ.

// JavaRegexError is a valid Java pattern sqlrun cannot match as Java does.
type JavaRegexError struct {
	Pattern, Construct string
}

func (e *JavaRegexError) Error() string {
	return fmt.Sprintf("sqlrun cannot evaluate the regular expression '%s' as java.util.regex does: %s is not supported", e.Pattern, e.Construct)
}

// invalidRegex is a pattern Java's Pattern.compile rejects.
type invalidRegex struct{ msg string }

func (e *invalidRegex) Error() string { return e.msg }

// javaRegex is a translated pattern.
type javaRegex struct {
	re *regexp.Regexp
	// dollar: the pattern has a '$' outside multiline mode, which Java
	// also matches before a final line terminator.
	dollar bool
	// multiline: (?m), whose ^ and $ Java applies at every line
	// terminator (RE2 only at \n) and whose ^ Java does not match after a
	// final one.
	multiline bool
	// startContext: the pattern looks behind a position (findAll).
	startContext bool
	// empty: the pattern can match an empty string somewhere.
	empty bool
	// wordBoundary: \\b or \\B, whose word characters are Java's Unicode
	// letters and digits (RE2's are ASCII). foldCase: (?i), which Java
	// applies to ASCII letters only (RE2 to every letter).
	wordBoundary, foldCase bool
}

var regexCache sync.Map // string -> *javaRegex or error

// compileJavaRegex translates and compiles a Java pattern, cached by text.
func compileJavaRegex(p string) (*javaRegex, error) {
	if v, ok := regexCache.Load(p); ok {
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.(*javaRegex), nil
	}
	jr, err := translateJavaRegex(p)
	if err == nil {
		var re *regexp.Regexp
		re, err = regexp.Compile(jr.src)
		if err != nil {
			var se *syntax.Error
			if errors.As(err, &se) && se.Code == syntax.ErrInvalidRepeatSize {
				err = &JavaRegexError{Pattern: p, Construct: "a counted repetition over 1000"}
			} else {
				err = &invalidRegex{msg: err.Error()}
			}
		}
		if err == nil {
			v := &javaRegex{re: re, empty: canMatchEmpty(jr.src), dollar: jr.dollar, multiline: jr.multiline, startContext: jr.startContext,
				wordBoundary: jr.wordBoundary, foldCase: jr.foldCase}
			regexCache.Store(p, v)
			return v, nil
		}
	}
	regexCache.Store(p, err)
	return nil, err
}

// checkText refuses a text on which the pattern's '$' would match where
// Java's does and RE2's does not: before a final line terminator.
func (j *javaRegex) checkText(pattern, s string) error {
	if j.dollar {
		for _, t := range lineTerminators {
			if strings.HasSuffix(s, t) {
				return &JavaRegexError{Pattern: pattern, Construct: "'$' on a text that ends with a line terminator"}
			}
		}
	}
	if j.multiline {
		// Java's multiline ^ never matches at the end of the text.
		if s == "" || strings.HasSuffix(s, "\n") || strings.ContainsAny(s, "\r\u0085\u2028\u2029") {
			return &JavaRegexError{Pattern: pattern, Construct: "(?m) on a text with a line terminator other than \\n or at its end"}
		}
	}
	if j.wordBoundary || j.foldCase {
		for _, r := range s {
			if r < utf8.RuneSelf {
				continue
			}
			if j.wordBoundary && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) {
				return &JavaRegexError{Pattern: pattern, Construct: `\b or \B on a text with non-ASCII letters or digits`}
			}
			if j.foldCase && unicode.SimpleFold(r) != r {
				return &JavaRegexError{Pattern: pattern, Construct: "(?i) on a text with non-ASCII cased letters"}
			}
		}
	}
	return nil
}

var lineTerminators = []string{"\n", "\r", "\u0085", "\u2028", "\u2029"}

// canMatchEmpty reports whether a pattern (RE2 syntax) can match an empty
// string at some position.
func canMatchEmpty(src string) bool {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return true
	}
	var empty func(*syntax.Regexp) bool
	empty = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
			return false
		case syntax.OpCapture, syntax.OpPlus:
			return empty(r.Sub[0])
		case syntax.OpRepeat:
			return r.Min == 0 || empty(r.Sub[0])
		case syntax.OpConcat:
			for _, sub := range r.Sub {
				if !empty(sub) {
					return false
				}
			}
			return true
		case syntax.OpAlternate:
			for _, sub := range r.Sub {
				if empty(sub) {
					return true
				}
			}
			return false
		}
		return true // empty match, assertions, star, quest
	}
	return empty(re)
}

// errJavaFindAll is a replacement javaFindAll cannot make as Java does.
var errJavaFindAll = errors.New("an empty match right after a match, with ^, \\A, \\b or \\B")

// findAll lists the matches Java's Matcher.find makes one after another
// (String.replaceAll's): RE2's, and an empty match right after a
// non-empty one, which Java takes (it starts the next search where the
// match ended) and RE2 skips. Such an empty match is found by matching
// from that position on the rest of the text, which is exact unless the
// pattern looks behind a position; then it is refused.
func (j *javaRegex) findAll(s string) ([][]int, error) {
	ms := j.re.FindAllStringSubmatchIndex(s, -1)
	var out [][]int
	for k, m := range ms {
		out = append(out, m)
		e := m[1]
		if e == m[0] || k+1 < len(ms) && ms[k+1][0] == e {
			continue
		}
		if !j.empty {
			continue
		}
		if j.startContext {
			return nil, errJavaFindAll
		}
		em := j.re.FindReaderSubmatchIndex(strings.NewReader(s[e:]))
		if em == nil || em[0] != 0 || em[1] != 0 {
			continue
		}
		for i := range em {
			if em[i] >= 0 {
				em[i] += e
			}
		}
		out = append(out, em)
	}
	return out, nil
}

type translated struct {
	src                    string
	dollar, multiline      bool
	startContext           bool
	wordBoundary, foldCase bool
}

// javaDot is Java's '.' without DOTALL: anything but a line terminator.
const javaDot = `[^\n\r\x{85}\x{2028}\x{2029}]`

// javaSpace is the inside of Java's \s class.
const javaSpace = `\t\n\x0B\f\r `

// javaHSpace and javaVSpace are the insides of Java's \h and \v.
const (
	javaHSpace = `\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`
	javaVSpace = `\n\x0B\f\r\x{85}\x{2028}\x{2029}`
)

// posixClasses are Java's \p{name} POSIX classes (US-ASCII only), as RE2
// class contents.
var posixClasses = map[string]string{
	"Lower": `a-z`, "Upper": `A-Z`, "ASCII": `\x00-\x7F`, "Alpha": `a-zA-Z`, "Digit": `0-9`,
	"Alnum": `a-zA-Z0-9`, "Punct": `!-/:-@\[-` + "`" + `{-~`, "Graph": `!-~`, "Print": ` -~`,
	"Blank": ` \t`, "Cntrl": `\x00-\x1F\x7F`, "XDigit": `0-9a-fA-F`, "Space": javaSpace,
}

type regexScanner struct {
	p      string
	i      int
	out    strings.Builder
	dotAll []bool // a stack of the (?s) state per group
	multi  []bool // a stack of the (?m) state per group
	dollar bool
	// multiline: (?m) is used somewhere.
	multiline bool
	// startContext: an assertion that looks at the character before the
	// position (^, \A, \b, \B).
	startContext bool
	// wordBoundary: \b or \B; foldCase: (?i).
	wordBoundary, foldCase bool
}

func translateJavaRegex(p string) (translated, error) {
	s := &regexScanner{p: p, dotAll: []bool{false}, multi: []bool{false}}
	if err := s.run(); err != nil {
		return translated{}, err
	}
	return translated{src: s.out.String(), dollar: s.dollar, multiline: s.multiline, startContext: s.startContext,
		wordBoundary: s.wordBoundary, foldCase: s.foldCase}, nil
}

func (s *regexScanner) unsupported(what string) error {
	return &JavaRegexError{Pattern: s.p, Construct: what}
}

func (s *regexScanner) invalid(format string, args ...any) error {
	return &invalidRegex{msg: fmt.Sprintf(format, args...) + " near index " + strconv.Itoa(s.i)}
}

func (s *regexScanner) run() error {
	// atom: whether the previous item can take a quantifier.
	atom := false
	for s.i < len(s.p) {
		c := s.p[s.i]
		switch c {
		case '\\':
			if err := s.escape(false); err != nil {
				return err
			}
			atom = true
			continue
		case '[':
			if err := s.class(); err != nil {
				return err
			}
			atom = true
			continue
		case '(':
			if err := s.group(); err != nil {
				return err
			}
			atom = false
			continue
		case ')':
			if len(s.dotAll) == 1 {
				return s.invalid("Unmatched closing ')'")
			}
			s.dotAll = s.dotAll[:len(s.dotAll)-1]
			s.multi = s.multi[:len(s.multi)-1]
			s.out.WriteByte(')')
			s.i++
			atom = true
			continue
		case '.':
			if s.dotAll[len(s.dotAll)-1] {
				s.out.WriteString(`(?s:.)`)
			} else {
				s.out.WriteString(javaDot)
			}
			s.i++
			atom = true
			continue
		case '$':
			if !s.multi[len(s.multi)-1] {
				s.dollar = true
			}
			s.out.WriteByte('$')
			s.i++
			atom = false
			continue
		case '*', '+', '?', '{':
			if !atom {
				return s.invalid("Dangling meta character '%c'", c)
			}
			if err := s.quantifier(); err != nil {
				return err
			}
			atom = false
			continue
		}
		if c == '^' {
			s.startContext = true
		}
		s.out.WriteByte(c)
		s.i++
		atom = c != '|' && c != '^'
	}
	if len(s.dotAll) != 1 {
		return s.invalid("Unclosed group")
	}
	return nil
}

// quantifier copies *, +, ?, {n}, {n,}, {n,m} with a lazy '?'; a
// possessive '+' after one is refused, a '{' that is no repetition is
// Java's "Illegal repetition".
func (s *regexScanner) quantifier() error {
	start := s.i
	if s.p[s.i] == '{' {
		j := s.i + 1
		digits := func() int {
			k := j
			for j < len(s.p) && s.p[j] >= '0' && s.p[j] <= '9' {
				j++
			}
			return j - k
		}
		if digits() == 0 {
			return s.invalid("Illegal repetition")
		}
		if j < len(s.p) && s.p[j] == ',' {
			j++
			digits()
		}
		if j >= len(s.p) || s.p[j] != '}' {
			return s.invalid("Unclosed counted closure")
		}
		s.i = j + 1
	} else {
		s.i++
	}
	s.out.WriteString(s.p[start:s.i])
	if s.i < len(s.p) {
		switch s.p[s.i] {
		case '?':
			s.out.WriteByte('?')
			s.i++
		case '+':
			return s.unsupported("a possessive quantifier")
		}
	}
	if s.i < len(s.p) && (s.p[s.i] == '*' || s.p[s.i] == '+' || s.p[s.i] == '?' || s.p[s.i] == '{') {
		return s.invalid("Dangling meta character '%c'", s.p[s.i])
	}
	return nil
}

// group reads "(" and what Java allows after it.
func (s *regexScanner) group() error {
	dot, multi := s.dotAll[len(s.dotAll)-1], s.multi[len(s.multi)-1]
	rest := s.p[s.i+1:]
	if !strings.HasPrefix(rest, "?") {
		s.out.WriteByte('(')
		s.i++
		s.dotAll, s.multi = append(s.dotAll, dot), append(s.multi, multi)
		return nil
	}
	switch {
	case strings.HasPrefix(rest, "?:"):
		s.out.WriteString("(?:")
		s.i += 3
	case strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"),
		strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
		return s.unsupported("a look-around group")
	case strings.HasPrefix(rest, "?>"):
		return s.unsupported("an atomic group")
	case strings.HasPrefix(rest, "?<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return s.invalid("named capturing group is missing trailing '>'")
		}
		name := rest[2:end]
		if !validGroupName(name) {
			return s.invalid("named capturing group has invalid name")
		}
		s.out.WriteString("(?P<" + name + ">")
		s.i += 1 + end + 1
	default:
		// Flags: (?idmsux-idmsux) or (?flags:X).
		j := 1
		on := true
		var set, clear []byte
		for j < len(rest) && rest[j] != ')' && rest[j] != ':' {
			switch f := rest[j]; f {
			case '-':
				on = false
			case 'i', 'm', 's':
				if f == 'm' && on {
					s.multiline = true
				}
				if f == 'i' && on {
					s.foldCase = true
				}
				if on {
					set = append(set, f)
				} else {
					clear = append(clear, f)
				}
			case 'd', 'u', 'x', 'U':
				return s.unsupported(fmt.Sprintf("the flag (?%c)", f))
			default:
				return s.invalid("Unknown inline modifier")
			}
			j++
		}
		if j >= len(rest) {
			return s.invalid("Unknown group type")
		}
		apply := func(d, m bool) (bool, bool) {
			for _, f := range set {
				switch f {
				case 's':
					d = true
				case 'm':
					m = true
				}
			}
			for _, f := range clear {
				switch f {
				case 's':
					d = false
				case 'm':
					m = false
				}
			}
			return d, m
		}
		flags := string(set)
		if len(clear) > 0 {
			flags += "-" + string(clear)
		}
		if rest[j] == ')' {
			// (?i) changes the flags of the rest of the enclosing group.
			if flags != "" && flags != "-" {
				s.out.WriteString("(?" + flags + ")")
			}
			s.i += 1 + j + 1
			d, m := apply(dot, multi)
			s.dotAll[len(s.dotAll)-1], s.multi[len(s.multi)-1] = d, m
			return nil
		}
		if flags == "" || flags == "-" {
			s.out.WriteString("(?:")
		} else {
			s.out.WriteString("(?" + flags + ":")
		}
		s.i += 1 + j + 1
		d, m := apply(dot, multi)
		s.dotAll, s.multi = append(s.dotAll, d), append(s.multi, m)
		return nil
	}
	s.dotAll, s.multi = append(s.dotAll, dot), append(s.multi, multi)
	return nil
}

func validGroupName(n string) bool {
	if n == "" {
		return false
	}
	for i, c := range n {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// class reads a character class [...].
func (s *regexScanner) class() error {
	s.i++ // '['
	s.out.WriteByte('[')
	if s.i < len(s.p) && s.p[s.i] == '^' {
		s.out.WriteByte('^')
		s.i++
	}
	first := true
	for {
		if s.i >= len(s.p) {
			return s.invalid("Unclosed character class")
		}
		c := s.p[s.i]
		switch {
		case c == ']' && !first:
			s.out.WriteByte(']')
			s.i++
			return nil
		case c == '[':
			return s.unsupported("a character class union")
		case c == '&' && strings.HasPrefix(s.p[s.i:], "&&"):
			return s.unsupported("a character class intersection")
		case c == '\\':
			if err := s.escape(true); err != nil {
				return err
			}
		case c == ']':
			// Java reads "[]" as an empty start: the class goes on.
			s.out.WriteString(`\]`)
			s.i++
		default:
			s.out.WriteByte(c)
			s.i++
		}
		first = false
	}
}

// escape reads a backslash escape, inside a class (inClass) or not.
func (s *regexScanner) escape(inClass bool) error {
	if s.i+1 >= len(s.p) {
		return s.invalid("Unexpected internal error")
	}
	c := s.p[s.i+1]
	s.i += 2
	// wrap writes a class's inside as a class, or as part of the class
	// being read.
	wrap := func(inside string, negate bool) {
		switch {
		case inClass:
			s.out.WriteString(inside)
		case negate:
			s.out.WriteString("[^" + inside + "]")
		default:
			s.out.WriteString("[" + inside + "]")
		}
	}
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'r', 'f', 'a':
		s.out.WriteString(`\` + string(c))
	case 'b', 'B', 'A', 'z':
		if inClass {
			return s.invalid("Illegal/unsupported escape sequence")
		}
		s.startContext = s.startContext || c != 'z'
		s.wordBoundary = s.wordBoundary || c == 'b' || c == 'B'
		s.out.WriteString(`\` + string(c))
	case 's', 'S', 'h', 'H', 'v', 'V':
		inside := map[byte]string{'s': javaSpace, 'S': javaSpace, 'h': javaHSpace, 'H': javaHSpace, 'v': javaVSpace, 'V': javaVSpace}[c]
		negate := c == 'S' || c == 'H' || c == 'V'
		if negate && inClass {
			return s.unsupported(`\` + string(c) + " inside a character class")
		}
		wrap(inside, negate)
	case 'R':
		if inClass {
			return s.invalid("Illegal/unsupported escape sequence")
		}
		s.out.WriteString(`(?:\r\n|[` + javaVSpace + `])`)
	case 'G', 'Z', 'X':
		return s.unsupported(`\` + string(c))
	case 'k':
		if s.i < len(s.p) && s.p[s.i] == '<' && !inClass {
			return s.unsupported("a back reference")
		}
		return s.invalid("Illegal/unsupported escape sequence")
	case 'Q':
		end := strings.Index(s.p[s.i:], `\E`)
		lit := s.p[s.i:]
		if end >= 0 {
			lit = s.p[s.i : s.i+end]
			s.i += end + 2
		} else {
			s.i = len(s.p)
		}
		if inClass {
			for _, r := range lit {
				s.out.WriteString(regexp.QuoteMeta(string(r)))
			}
		} else {
			s.out.WriteString(regexp.QuoteMeta(lit))
		}
	case 'E':
		// A \E without \Q is ignored by Java.
	case 'e':
		s.out.WriteString(`\x1B`)
	case 'c':
		if s.i >= len(s.p) {
			return s.invalid("Illegal control escape sequence")
		}
		s.out.WriteString(fmt.Sprintf(`\x{%X}`, s.p[s.i]^64))
		s.i++
	case 'u':
		if s.i+4 > len(s.p) {
			return s.invalid("Illegal Unicode escape sequence")
		}
		v, err := strconv.ParseUint(s.p[s.i:s.i+4], 16, 32)
		if err != nil {
			return s.invalid("Illegal Unicode escape sequence")
		}
		s.out.WriteString(fmt.Sprintf(`\x{%X}`, v))
		s.i += 4
	case 'x':
		if s.i < len(s.p) && s.p[s.i] == '{' {
			end := strings.IndexByte(s.p[s.i:], '}')
			if end < 0 {
				return s.invalid("Unclosed hexadecimal escape sequence")
			}
			v, err := strconv.ParseUint(s.p[s.i+1:s.i+end], 16, 32)
			if err != nil || v > 0x10FFFF {
				return s.invalid("Illegal hexadecimal escape sequence")
			}
			s.out.WriteString(fmt.Sprintf(`\x{%X}`, v))
			s.i += end + 1
			return nil
		}
		if s.i+2 > len(s.p) {
			return s.invalid("Illegal hexadecimal escape sequence")
		}
		v, err := strconv.ParseUint(s.p[s.i:s.i+2], 16, 32)
		if err != nil {
			return s.invalid("Illegal hexadecimal escape sequence")
		}
		s.out.WriteString(fmt.Sprintf(`\x{%X}`, v))
		s.i += 2
	case '0':
		// \0n, \0nn, \0mnn (m <= 3): an octal value.
		j := s.i
		for j < len(s.p) && j-s.i < 3 && s.p[j] >= '0' && s.p[j] <= '7' {
			j++
		}
		if j-s.i == 3 && s.p[s.i] > '3' {
			j--
		}
		if j == s.i {
			return s.invalid("Illegal octal escape sequence")
		}
		v, _ := strconv.ParseUint(s.p[s.i:j], 8, 32)
		s.out.WriteString(fmt.Sprintf(`\x{%X}`, v))
		s.i = j
	case 'p', 'P':
		return s.property(c == 'P', inClass)
	default:
		switch {
		case c >= '1' && c <= '9':
			if inClass {
				return s.invalid("Illegal/unsupported escape sequence")
			}
			return s.unsupported("a back reference")
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			return s.invalid("Illegal/unsupported escape sequence")
		case c >= 0x80:
			// An escaped non-ASCII character is itself.
			s.i--
			r, n := utf8.DecodeRuneInString(s.p[s.i:])
			s.out.WriteString(regexp.QuoteMeta(string(r)))
			s.i += n
		default:
			s.out.WriteString(`\` + string(c))
		}
	}
	return nil
}

// property reads \p{name} / \P{name} (or the one-letter \pL).
func (s *regexScanner) property(negate, inClass bool) error {
	var name string
	if s.i < len(s.p) && s.p[s.i] == '{' {
		end := strings.IndexByte(s.p[s.i:], '}')
		if end < 0 {
			return s.invalid("Unclosed character family")
		}
		name = s.p[s.i+1 : s.i+end]
		s.i += end + 1
	} else if s.i < len(s.p) {
		name = s.p[s.i : s.i+1]
		s.i++
	}
	if inside, ok := posixClasses[name]; ok {
		switch {
		case !negate && inClass:
			s.out.WriteString(inside)
		case !negate:
			s.out.WriteString("[" + inside + "]")
		case inClass:
			return s.unsupported(`\P{` + name + `} inside a character class`)
		default:
			s.out.WriteString("[^" + inside + "]")
		}
		return nil
	}
	// Java takes a general category (L, Lu) as it is or after "Is", a
	// script only after "Is" (IsLatin); blocks (InGreek) and binary
	// properties (IsAlphabetic) are RE2's to lack.
	uni, isForm := strings.CutPrefix(name, "Is")
	if !isForm && len(name) > 2 {
		return s.unsupported(`the character property \p{` + name + `}`)
	}
	if _, err := syntax.Parse(`\p{`+uni+`}`, syntax.Perl); err != nil || uni == "" {
		return s.unsupported(`the character property \p{` + name + `}`)
	}
	if negate {
		s.out.WriteString(`\P{` + uni + `}`)
	} else {
		s.out.WriteString(`\p{` + uni + `}`)
	}
	return nil
}
