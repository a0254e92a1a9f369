package parser

import (
	"github.com/sqlrun/sqlrun/sql"
)

// Piece is one statement of a script as written: its text without the
// terminating ';' and without surrounding whitespace and comments, and where
// it starts in the script.
type Piece struct {
	Text string
	// StartLine and StartCol are the 1-based script position of Text[0];
	// Offset is its byte offset in the script.
	StartLine, StartCol int
	Offset              int
	// Terminated is false for a final statement that had no ';'. Split
	// still returns it, as the SQL client does for a -f file (which gets
	// a final ';' if missing); the interactive shell waits for more input
	// instead (see IsComplete).
	Terminated bool
}

// Split cuts a script into statements at ';'. A ';' inside a '...' string,
// a "..." or `...` quoted identifier, a -- or /* */ comment or a /*+ hint */
// does not end a statement, and neither does a ';' inside a statement set
// (EXECUTE STATEMENT SET BEGIN ...; ...; END or BEGIN STATEMENT SET; ...;
// END), which stays one piece. Empty statements (";;", comments only) are
// skipped.
//
// An unterminated string, identifier or comment is a SqlParserException
// naming its script line and column; the pieces before it are returned with
// the error.
func Split(script string) ([]Piece, error) {
	pieces, _, err := split(script)
	return pieces, err
}

// IsComplete reports whether buffer (the shell's input so far) holds one or
// more complete statements: its last significant token is a ';' that ends a
// statement, outside quotes, comments and statement sets. The shell keeps
// reading lines (with a continuation prompt) until it is.
func IsComplete(buffer string) bool {
	pieces, open, err := split(buffer)
	return err == nil && !open && len(pieces) > 0
}

// split returns the pieces and whether a statement is still open at the
// end (has significant tokens but no terminating ';').
func split(script string) ([]Piece, bool, error) {
	toks, lexErr := lex(script)
	var pieces []Piece
	li := newLineIndex(script)

	start, last := -1, -1 // first and last significant token of the statement
	nSig := 0             // significant tokens in the statement so far
	var first [3]token    // its first three significant tokens
	block := false        // inside a statement set
	blockBody := false    // past BEGIN (EXECUTE form) or the first ';' (BEGIN form)
	subStart := false     // at the start of a statement inside the set
	endSeen := false      // the current inner statement started with END
	prevSig := -1         // the significant token before the current one

	emit := func(terminated bool) {
		if start >= 0 {
			off := toks[start].off
			line, col := li.pos(off)
			pieces = append(pieces, Piece{
				Text: script[off:toks[last].end], StartLine: line, StartCol: col,
				Offset: off, Terminated: terminated,
			})
		}
		start, last, nSig = -1, -1, 0
		block, blockBody, subStart, endSeen = false, false, false, false
	}

	for i, t := range toks {
		if t.kind == tEOF {
			break
		}
		if t.kind == tComment {
			continue
		}
		if t.isOp(";") {
			switch {
			case !block:
				emit(true)
				continue
			case !blockBody: // BEGIN STATEMENT SET;
				blockBody, subStart = true, true
			case endSeen:
				emit(true)
				continue
			default:
				subStart = true
			}
			last = i
			continue
		}
		if start < 0 {
			start = i
		}
		prevSig = last
		last = i
		if nSig < 3 {
			first[nSig] = t
		}
		nSig++
		if nSig == 3 && first[1].is("STATEMENT") && first[2].is("SET") &&
			(first[0].is("EXECUTE") || first[0].is("BEGIN")) {
			block = true
			continue
		}
		// EXPLAIN [details | PLAN FOR] [EXECUTE] STATEMENT SET BEGIN ... END.
		if !block && first[0].is("EXPLAIN") && nSig > 2 && t.is("SET") && toks[prevSig].is("STATEMENT") {
			block = true
			continue
		}
		if block && !blockBody && t.is("BEGIN") && (first[0].is("EXECUTE") || first[0].is("EXPLAIN")) {
			blockBody, subStart = true, true
			continue
		}
		if block && subStart {
			subStart = false
			endSeen = t.is("END")
		}
	}
	open := start >= 0
	if lexErr != nil {
		return pieces, open, newError(sql.SqlParserException, lexFailure(script, lexErr, li.pos))
	}
	emit(false)
	return pieces, open, nil
}
