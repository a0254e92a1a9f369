package parser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// seedInputs returns the inputs of the golden files, the fuzzers' corpus.
func seedInputs(f *testing.F) []string {
	files, err := filepath.Glob("../../testdata/parser/*")
	if err != nil {
		f.Fatal(err)
	}
	var out []string
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, block := range strings.Split(string(b), "\n----\n") {
			lines := strings.Split(block, "\n")
			// the input follows the last command line of the block
			for i := len(lines) - 1; i >= 0; i-- {
				switch strings.TrimSpace(lines[i]) {
				case "parse", "unparse", "split", "complete", "script":
					out = append(out, strings.Join(lines[i+1:], "\n"))
					i = -1
				}
			}
		}
	}
	return out
}

// FuzzSplit checks that Split never panics and that its pieces are the
// script itself: each piece's text sits at its offset, pieces are in order,
// and what lies between them is only blanks, comments and ';'.
func FuzzSplit(f *testing.F) {
	for _, s := range seedInputs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		pieces, err := Split(script)
		_ = IsComplete(script)
		if err != nil {
			var se *sql.Error
			if !errors.As(err, &se) || se.Class != sql.SqlParserException {
				t.Fatalf("untyped error %v", err)
			}
		}
		prev := 0
		li := newLineIndex(script)
		for _, p := range pieces {
			if p.Offset < prev || p.Offset+len(p.Text) > len(script) || script[p.Offset:p.Offset+len(p.Text)] != p.Text {
				t.Fatalf("piece %q at %d does not match the script", p.Text, p.Offset)
			}
			if l, c := li.pos(p.Offset); l != p.StartLine || c != p.StartCol {
				t.Fatalf("piece at %d: position %d:%d, want %d:%d", p.Offset, p.StartLine, p.StartCol, l, c)
			}
			checkGap(t, script[prev:p.Offset])
			prev = p.Offset + len(p.Text)
		}
		if err == nil {
			checkGap(t, script[prev:])
		}
	})
}

// checkGap asserts that text between pieces holds no statement.
func checkGap(t *testing.T, gap string) {
	toks, lexErr := lex(gap)
	if lexErr != nil {
		t.Fatalf("gap %q does not lex: %v", gap, lexErr)
	}
	for _, k := range toks {
		if k.kind != tComment && k.kind != tEOF && !k.isOp(";") {
			t.Fatalf("gap %q holds token %q", gap, k.text)
		}
	}
}

// FuzzParse checks that Parse and ParseScript never panic (the parser's
// internal recover would report "internal error"), that every failure is a
// typed *sql.Error with a position inside the text, and that a parsed tree
// can be dumped and printed.
func FuzzParse(f *testing.F) {
	for _, s := range seedInputs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			parseChecks(t, text)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("parsing %q takes more than 5s", text)
		}
	})
}

func parseChecks(t *testing.T, text string) {
	{
		st, err := Parse(text)
		if err != nil {
			checkErr(t, text, err)
		} else {
			_ = ast.Dump(st)
			if q, ok := st.(*ast.Query); ok {
				// Printing is stable: the printed query parses back to
				// the same text.
				text1 := ast.FormatQuery(q.Body)
				again, err := Parse(text1)
				if err != nil {
					t.Fatalf("%q printed as %q does not parse: %v", text, text1, err)
				}
				if text2 := ast.FormatQuery(again.(*ast.Query).Body); text2 != text1 {
					t.Fatalf("%q printed as %q, then as %q", text, text1, text2)
				}
			}
		}
		stmts, err := ParseScript(text)
		if err != nil {
			checkErr(t, text, err)
		}
		for _, s := range stmts {
			_ = ast.Dump(s)
		}
	}
}

func checkErr(t *testing.T, text string, err error) {
	t.Helper()
	var se *sql.Error
	if !errors.As(err, &se) {
		t.Fatalf("untyped error %v", err)
	}
	if strings.Contains(se.Msg, "internal error") {
		t.Fatalf("panic inside the parser for %q: %v", text, se.Msg)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		lines := strings.Count(text, "\n") + 1
		if pe.Line < 1 || pe.Col < 1 || pe.ScriptLine < 1 || pe.ScriptLine > lines {
			t.Fatalf("error %q outside the text (%d:%d, script %d:%d, %d lines)", se.Msg, pe.Line, pe.Col, pe.ScriptLine, pe.ScriptCol, lines)
		}
	}
}
