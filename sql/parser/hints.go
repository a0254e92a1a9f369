package parser

import (
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// hints parses the text of a /*+ ... */ token: a comma-separated list of
// NAME or NAME(...) items. OPTIONS takes 'key' = 'value' pairs; other hints
// take plain identifiers or strings (kept in Params) or key = value pairs
// (kept in Options). Positions are those of the original statement.
func (p *parser) hints(t token) []ast.Hint {
	base := t.off + 3 // after "/*+"
	all, lexErr := lex(t.val)
	if lexErr != nil {
		pe := lexFailure(t.val, lexErr, func(off int) (int, int) { return p.li.pos(base + off) })
		pe.Statement = p.src
		if p.err == nil {
			p.err = newError(sql.SqlParserException, pe)
		}
		return nil
	}
	var toks []token
	for _, k := range all {
		if k.kind == tComment {
			continue
		}
		k.off += base
		k.end += base
		toks = append(toks, k)
	}
	// A sub-parser over the hint's tokens shares the statement's text and
	// line index, so errors point into the statement.
	hp := &parser{src: p.src, toks: toks, li: p.li}
	var out []ast.Hint
	for hp.err == nil {
		nt := hp.peek()
		if nt.kind != tIdent {
			hp.fail(nt)
			break
		}
		hp.next()
		h := ast.Hint{Node: ast.Node{At: hp.pos(nt)}, Name: strings.ToUpper(nt.text)}
		if hp.acceptOp("(") && !hp.acceptOp(")") {
			for hp.err == nil {
				at := hp.peek()
				var key string
				switch {
				case at.kind == tString:
					key = at.val
				case at.isIdent():
					key = at.name()
				default:
					hp.fail(at)
				}
				hp.next()
				// A table option may be qualified (db.t1): JoinHintsResolver
				// matches it as a dotted suffix.
				for at.isIdent() && hp.peek().isOp(".") {
					hp.next()
					part := hp.peek()
					if !part.isIdent() {
						hp.fail(part)
						break
					}
					key += "." + part.name()
					hp.next()
				}
				if hp.acceptOp("=") {
					vt := hp.peek()
					if vt.kind != tString && !vt.isIdent() && vt.kind != tNumber {
						hp.fail(vt)
					}
					hp.next()
					v := vt.text
					if vt.kind == tString || vt.kind == tQuoted {
						v = vt.val
					}
					h.Options = append(h.Options, ast.Option{Node: ast.Node{At: hp.pos(at)}, Key: key, Value: v})
				} else {
					h.Params = append(h.Params, key)
				}
				if !hp.acceptOp(",") {
					break
				}
			}
			hp.expectOp(")")
		}
		out = append(out, h)
		if !hp.acceptOp(",") {
			break
		}
	}
	if t := hp.peek(); t.kind != tEOF {
		hp.fail(t)
	}
	if hp.err != nil {
		if p.err == nil {
			p.err = hp.err
		}
		return nil
	}
	return out
}
