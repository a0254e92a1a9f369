package mysqlcdc

import (
	"strings"
)

// ddlKind is what a DDL statement of the binlog does to the tables it
// names.
type ddlKind int

const (
	ddlNone     ddlKind = iota // not a statement about tables' shape
	ddlAlter                   // ALTER TABLE t ...: columns, indexes, options
	ddlDrop                    // DROP TABLE, DROP DATABASE
	ddlTruncate                // TRUNCATE [TABLE] t: no row events at all
	ddlRename                  // RENAME TABLE a TO b, ALTER TABLE a RENAME [TO] b
	ddlReplace                 // CREATE OR REPLACE TABLE t
	ddlCreate                  // CREATE TABLE [IF NOT EXISTS] t ...: a table that did not exist
)

// ddl is one statement's kind and the tables it names, each as
// [database, table] ("" database: the statement's current database).
// dropDB names a dropped database.
type ddl struct {
	kind   ddlKind
	tables [][2]string
	dropDB string
}

// parseDDL reads the kind and target tables of a binlog query event's
// statement. It is a token scan that knows MySQL's and MariaDB's
// comments, quoting and the table-level DDL shapes, so `orders_archive`
// or a string literal 'orders' is never taken for the table `orders`.
func parseDDL(stmt string) ddl {
	tk := tokenize(stmt)
	kw := func(i int, words ...string) bool {
		if i >= len(tk) || tk[i].quoted {
			return false
		}
		for _, w := range words {
			if strings.EqualFold(tk[i].text, w) {
				return true
			}
		}
		return false
	}
	// name reads [db.]table at i and returns the index after it.
	name := func(i int) ([2]string, int, bool) {
		if i >= len(tk) || tk[i].punct {
			return [2]string{}, i, false
		}
		if i+2 < len(tk) && tk[i+1].punct && tk[i+1].text == "." && !tk[i+2].punct {
			return [2]string{tk[i].text, tk[i+2].text}, i + 3, true
		}
		return [2]string{"", tk[i].text}, i + 1, true
	}
	skip := func(i int, words ...string) int {
		for kw(i, words...) {
			i++
		}
		return i
	}
	var d ddl
	switch {
	case kw(0, "ALTER"):
		i := skip(1, "ONLINE", "IGNORE")
		if !kw(i, "TABLE") {
			return d
		}
		i++
		if kw(i, "IF") && kw(i+1, "EXISTS") {
			i += 2
		}
		n, j, ok := name(i)
		if !ok {
			return d
		}
		d.kind, d.tables = ddlAlter, [][2]string{n}
		// ALTER TABLE a ..., RENAME [TO|AS] b: a rename.
		for k := j; k < len(tk); k++ {
			if kw(k, "RENAME") && !kw(k+1, "COLUMN", "INDEX", "KEY") {
				m := k + 1
				if kw(m, "TO", "AS") {
					m++
				}
				if to, _, ok := name(m); ok {
					d.kind, d.tables = ddlRename, append(d.tables, to)
				}
			}
		}
	case kw(0, "DROP"):
		i := 1
		if kw(i, "TEMPORARY") {
			return d // temporary tables are never captured
		}
		if kw(i, "DATABASE", "SCHEMA") {
			i++
			if kw(i, "IF") && kw(i+1, "EXISTS") {
				i += 2
			}
			if i < len(tk) && !tk[i].punct {
				d.kind, d.dropDB = ddlDrop, tk[i].text
			}
			return d
		}
		if !kw(i, "TABLE", "TABLES") {
			return d
		}
		i++
		if kw(i, "IF") && kw(i+1, "EXISTS") {
			i += 2
		}
		for {
			n, j, ok := name(i)
			if !ok {
				break
			}
			d.tables = append(d.tables, n)
			if j >= len(tk) || tk[j].text != "," {
				break
			}
			i = j + 1
		}
		if len(d.tables) > 0 {
			d.kind = ddlDrop
		}
	case kw(0, "TRUNCATE"):
		i := 1
		if kw(i, "TABLE") {
			i++
		}
		if n, _, ok := name(i); ok {
			d.kind, d.tables = ddlTruncate, [][2]string{n}
		}
	case kw(0, "RENAME"):
		if !kw(1, "TABLE", "TABLES") {
			return d
		}
		i := 2
		for {
			from, j, ok := name(i)
			if !ok || !kw(j, "TO") {
				break
			}
			to, k, ok := name(j + 1)
			if !ok {
				break
			}
			d.tables = append(d.tables, from, to)
			if k >= len(tk) || tk[k].text != "," {
				break
			}
			i = k + 1
		}
		if len(d.tables) > 0 {
			d.kind = ddlRename
		}
	case kw(0, "CREATE"):
		i := 1
		replace := false
		if kw(i, "OR") && kw(i+1, "REPLACE") {
			replace, i = true, i+2
		}
		if kw(i, "TEMPORARY") || !kw(i, "TABLE") {
			return d
		}
		i++
		if kw(i, "IF") && kw(i+1, "NOT") && kw(i+2, "EXISTS") {
			// A no-op when the table exists: it is only created
			// when absent.
			i += 3
		}
		if n, _, ok := name(i); ok {
			d.kind, d.tables = ddlCreate, [][2]string{n}
			if replace {
				d.kind = ddlReplace
			}
		}
	}
	return d
}

type token struct {
	text   string
	quoted bool // a `quoted` identifier: never a keyword
	punct  bool
	// lit is a string literal's value (its text is "'").
	lit string
}

// tokenize splits a statement into identifiers and keywords (backticks
// removed), punctuation, and nothing for comments and string literals,
// which are skipped. MySQL's executable comments /*! ... */ and MariaDB's
// /*M! ... */ are read as code.
func tokenize(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "-- ")) || (c == '-' && strings.HasPrefix(s[i:], "--\n")):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*!") || strings.HasPrefix(s[i:], "/*M!"):
			// Executable comment: its body (after an optional version
			// number) is code; the closing */ is dropped below.
			i += 3
			if s[i-1] == 'M' {
				i++
			}
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case strings.HasPrefix(s[i:], "*/"):
			i += 2
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 4
		case c == '`':
			var b strings.Builder
			i++
			for i < len(s) {
				if s[i] == '`' {
					if i+1 < len(s) && s[i+1] == '`' {
						b.WriteByte('`')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, token{text: b.String(), quoted: true})
		case c == '\'' || c == '"':
			var b strings.Builder
			i++
			for i < len(s) {
				if s[i] == '\\' && i+1 < len(s) {
					b.WriteByte(unescape(s[i+1]))
					i += 2
					continue
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c {
						b.WriteByte(c)
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, token{text: "'", punct: true, lit: b.String()})
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			out = append(out, token{text: s[i:j]})
			i = j
		default:
			out = append(out, token{text: string(c), punct: true})
			i++
		}
	}
	return out
}

// unescape is the character a backslash escape in a MySQL string
// literal stands for.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	case 'Z':
		return 26
	case 'b':
		return '\b'
	}
	return c
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// names reports whether the statement names table t (database db when
// the statement does not say), and which of t's databases it drops.
func (d ddl) names(curDB string, t *table) bool {
	if d.dropDB != "" {
		return strings.EqualFold(d.dropDB, t.db)
	}
	for _, n := range d.tables {
		db := n[0]
		if db == "" {
			db = curDB
		}
		if strings.EqualFold(db, t.db) && strings.EqualFold(n[1], t.name) {
			return true
		}
	}
	return false
}
