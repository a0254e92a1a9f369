package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the lexical class of a token.
type tokKind int

const (
	tEOF     tokKind = iota
	tIdent           // plain identifier or keyword: FROM, orders
	tQuoted          // `quoted` or "quoted" identifier; val is unquoted
	tString          // 'string' (also N'...' and U&'...'); val is unescaped (but U&'s \XXXX escapes)
	tBinary          // X'0A0B'; val is the hex digits
	tNumber          // 12, 1.5, .5, 1e3
	tParam           // ?
	tOp              // operators and punctuation: ( ) , ; . = <> <= >= != || + - * / % < > [ ] ...
	tComment         // -- line or /* block */ comment
	tHint            // /*+ ... */; val is the text between "/*+" and "*/"
)

// token is one lexeme with its byte range in the lexed text.
type token struct {
	kind tokKind
	text string // the source text of the token
	val  string // unquoted value for strings, quoted identifiers and hints
	off  int    // byte offset of the first byte
	end  int    // byte offset after the last byte
}

// is reports whether t is the plain (unquoted) keyword kw, ignoring case.
func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// isOp reports whether t is the operator or punctuation op.
func (t token) isOp(op string) bool { return t.kind == tOp && t.text == op }

// isIdent reports identifiers, plain or quoted.
func (t token) isIdent() bool { return t.kind == tIdent || t.kind == tQuoted }

// name returns an identifier's name: the text as written for a plain
// identifier (Flink keeps the case), the unquoted value for a quoted one.
func (t token) name() string {
	if t.kind == tQuoted {
		return t.val
	}
	return t.text
}

// lexError is a token that cannot be completed: an unterminated string,
// quoted identifier or comment. off is where it starts.
type lexError struct {
	off  int
	what string // the unterminated text, for the message
	// empty is a zero-length quoted identifier (`` or ""): Calcite's
	// QUOTED_IDENTIFIER and BACK_QUOTED_IDENTIFIER tokens take one
	// character or more, so its lexer stops at the character after the
	// two quotes.
	empty bool
}

func (e *lexError) Error() string { return "unterminated " + e.what }

// lex splits src into tokens, comments included, ending with a tEOF token.
// It fails only on unterminated quotes and comments.
func lex(src string) ([]token, *lexError) {
	var toks []token
	i := 0
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tEOF, off: len(src), end: len(src)})
			return toks, nil
		}
		t, err := lexOne(src, i)
		if err != nil {
			return toks, err
		}
		toks = append(toks, t)
		i = t.end
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isIdentStart(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || r >= '0' && r <= '9' || r == '$' || r > 127 && unicode.IsDigit(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexOne reads the token starting at src[i], which is not whitespace.
func lexOne(src string, i int) (token, *lexError) {
	c := src[i]
	mk := func(kind tokKind, end int, val string) token {
		return token{kind: kind, text: src[i:end], val: val, off: i, end: end}
	}
	switch {
	case c == '-' && i+1 < len(src) && src[i+1] == '-':
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			return mk(tComment, len(src), ""), nil
		}
		return mk(tComment, i+j, ""), nil
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		j := strings.Index(src[i+2:], "*/")
		if j < 0 {
			return token{}, &lexError{off: i, what: "comment"}
		}
		end := i + 2 + j + 2
		if i+2 < len(src) && src[i+2] == '+' && i+3 <= i+2+j {
			return mk(tHint, end, src[i+3:i+2+j]), nil
		}
		return mk(tComment, end, ""), nil
	case c == '\'':
		val, end, ok := readQuoted(src, i, '\'')
		if !ok {
			return token{}, &lexError{off: i, what: "string"}
		}
		return mk(tString, end, val), nil
	case (c == 'x' || c == 'X') && i+1 < len(src) && src[i+1] == '\'':
		val, end, ok := readQuoted(src, i+1, '\'')
		if !ok {
			return token{}, &lexError{off: i, what: "string"}
		}
		return mk(tBinary, end, val), nil
	case (c == 'u' || c == 'U') && i+2 < len(src) && src[i+1] == '&' && src[i+2] == '\'':
		// A Unicode string literal, U&'\0009': its escapes are decoded
		// by the parser (stringLiteral), which can say where one is bad.
		val, end, ok := readQuoted(src, i+2, '\'')
		if !ok {
			return token{}, &lexError{off: i, what: "string"}
		}
		return mk(tString, end, val), nil
	case (c == 'n' || c == 'N') && i+1 < len(src) && src[i+1] == '\'':
		val, end, ok := readQuoted(src, i+1, '\'')
		if !ok {
			return token{}, &lexError{off: i, what: "string"}
		}
		return mk(tString, end, val), nil
	case c == '`' || c == '"':
		val, end, ok := readQuoted(src, i, c)
		if !ok {
			return token{}, &lexError{off: i, what: "identifier"}
		}
		if val == "" {
			return token{}, &lexError{off: i, what: "identifier", empty: true}
		}
		return mk(tQuoted, end, val), nil
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		j := i
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		if j < len(src) && src[j] == '.' {
			j++
			for j < len(src) && isDigit(src[j]) {
				j++
			}
		}
		if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && isDigit(src[k]) {
				for k < len(src) && isDigit(src[k]) {
					k++
				}
				j = k
			}
		}
		return mk(tNumber, j, ""), nil
	case c == '?':
		return mk(tParam, i+1, ""), nil
	}
	r, size := utf8.DecodeRuneInString(src[i:])
	if isIdentStart(r) {
		j := i + size
		for j < len(src) {
			r, s := utf8.DecodeRuneInString(src[j:])
			if !isIdentPart(r) {
				break
			}
			j += s
		}
		return mk(tIdent, j, ""), nil
	}
	if i+1 < len(src) {
		switch src[i : i+2] {
		case "<>", "<=", ">=", "!=", "||", "=>":
			return mk(tOp, i+2, ""), nil
		}
	}
	return mk(tOp, i+size, ""), nil
}

// readQuoted reads a quoted run starting at src[i] == q, where a doubled
// quote stands for one. It returns the unescaped value and the end offset.
func readQuoted(src string, i int, q byte) (string, int, bool) {
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		k := strings.IndexByte(src[j:], q)
		if k < 0 {
			return "", 0, false
		}
		b.WriteString(src[j : j+k])
		j += k + 1
		if j < len(src) && src[j] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j, true
	}
	return "", 0, false
}

// lineIndex converts byte offsets of a text into 1-based line and column
// numbers, columns counted in characters as Flink (Java) counts them. It
// answers in O(log lines), so that positions of every node of a large
// statement stay cheap.
type lineIndex struct {
	src    string
	starts []int
	// runes[i] counts the characters before byte i; nil for ASCII text,
	// where bytes and characters coincide.
	runes []int32
}

func newLineIndex(src string) *lineIndex {
	li := &lineIndex{src: src, starts: []int{0}}
	ascii := true
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			li.starts = append(li.starts, i+1)
		}
		if src[i] >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii {
		li.runes = make([]int32, len(src)+1)
		n := int32(0)
		for i := 0; i < len(src); i++ {
			li.runes[i] = n
			if !utf8.RuneStart(src[i]) {
				continue
			}
			n++
		}
		// bytes inside a character count as the character's start
		for i := 0; i < len(src); i++ {
			if !utf8.RuneStart(src[i]) && i > 0 {
				li.runes[i] = li.runes[i-1]
			}
		}
		li.runes[len(src)] = n
	}
	return li
}

// pos returns the line and column of byte offset off.
func (li *lineIndex) pos(off int) (line, col int) {
	if off > len(li.src) {
		off = len(li.src)
	}
	if off < 0 {
		off = 0
	}
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if li.runes == nil {
		return lo + 1, off - li.starts[lo] + 1
	}
	return lo + 1, int(li.runes[off]-li.runes[li.starts[lo]]) + 1
}

// offset returns the byte offset of a 1-based line and character column,
// clamped to the text.
func (li *lineIndex) offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(li.starts) {
		return len(li.src)
	}
	off := li.starts[line-1]
	for n := 1; n < col && off < len(li.src) && li.src[off] != '\n'; n++ {
		_, s := utf8.DecodeRuneInString(li.src[off:])
		off += s
	}
	return off
}
