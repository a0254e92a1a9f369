package parser

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlrun/sqlrun/sql"
)

// ParseError locates a parse failure. It is the cause wrapped by the
// *sql.Error (class SqlParserException or ValidationException) that Parse
// returns, so callers that need the place use errors.As:
//
//	var pe *parser.ParseError
//	if errors.As(err, &pe) { ... pe.ScriptLine ... }
//
// Line and Col are within the statement (as Flink reports them);
// ScriptLine and ScriptCol are within the script for ParseScript and Split
// and equal Line and Col otherwise.
type ParseError struct {
	// Msg is the message without the class, e.g.
	// `SQL parse failed. Encountered "FORM" at line 1, column 10.`
	Msg string
	// Token is the offending token's text ("<EOF>" at the end), empty for
	// errors that are not about one token.
	Token                 string
	Line, Col             int
	ScriptLine, ScriptCol int
	// Statement is the text of the statement that failed.
	Statement string
}

func (e *ParseError) Error() string { return e.Msg }

// newError wraps a ParseError into the user-facing *sql.Error.
func newError(class sql.ExceptionClass, pe *ParseError) *sql.Error {
	return &sql.Error{Class: class, Msg: pe.Msg, Err: pe}
}

// encountered builds Flink's (Calcite's) message for an unexpected token.
func encountered(tok string, line, col int) *ParseError {
	return &ParseError{
		Msg:   fmt.Sprintf("SQL parse failed. Encountered %q at line %d, column %d.", tok, line, col),
		Token: tok, Line: line, Col: col, ScriptLine: line, ScriptCol: col,
	}
}

// lexical builds Calcite's message for an unterminated token.
func lexical(what string, line, col int) *ParseError {
	return &ParseError{
		Msg:  fmt.Sprintf("SQL parse failed. Lexical error at line %d, column %d.  Encountered: <EOF> after : %q", line, col, what),
		Line: line, Col: col, ScriptLine: line, ScriptCol: col,
	}
}

// lexFailure is Calcite's lexical error for e, a failure to lex src; pos
// gives the line and column of an offset in src. An unterminated token
// ends at <EOF>; a zero-length quoted identifier fails at the character
// after its quotes (JavaCC's TokenMgrError: 'Encountered: "(" (40), after
// : "\"\""' for SELECT ""()).
func lexFailure(src string, e *lexError, pos func(off int) (int, int)) *ParseError {
	if !e.empty {
		line, col := pos(e.off)
		return lexical(src[e.off:min(len(src), e.off+20)], line, col)
	}
	quotes := src[e.off : e.off+2]
	next := e.off + 2
	if next >= len(src) {
		line, col := pos(e.off)
		return lexical(quotes, line, col)
	}
	r, _ := utf8.DecodeRuneInString(src[next:])
	line, col := pos(next)
	return &ParseError{
		Msg:  fmt.Sprintf("SQL parse failed. Lexical error at line %d, column %d.  Encountered: %q (%d), after : %q", line, col, string(r), r, quotes),
		Line: line, Col: col, ScriptLine: line, ScriptCol: col,
	}
}

// shiftError moves a statement-relative error into script coordinates: the
// statement starts at script line sl, column sc.
func shiftError(err error, sl, sc int) error {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Line == 1 {
		pe.ScriptCol = sc + pe.Col - 1
	} else {
		pe.ScriptCol = pe.Col
	}
	pe.ScriptLine = sl + pe.Line - 1
	return err
}

// tokenDisplay is how a token is named in "Encountered ...".
func tokenDisplay(t token) string {
	if t.kind == tEOF {
		return "<EOF>"
	}
	s := t.text
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.TrimSpace(s)
}

// Excerpt returns the statement line the error points at with a caret
// under its column, for showing the statement with the error:
//
//	SELECT * FORM orders
//	         ^
//
// It is empty when the error has no statement or position.
func (e *ParseError) Excerpt() string {
	if e.Statement == "" || e.Line < 1 || e.Col < 1 {
		return ""
	}
	lines := strings.Split(e.Statement, "\n")
	if e.Line > len(lines) {
		return ""
	}
	line := strings.TrimRight(lines[e.Line-1], "\r")
	var pad strings.Builder
	for i, r := range []rune(line) {
		if i >= e.Col-1 {
			break
		}
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	return line + "\n" + pad.String() + "^"
}
