package mysqlcdc

import (
	"fmt"
	"slices"
	"strings"
)

// The schema history of Paimon's CDC action: a row change in the binlog
// is read with its table's columns as of its place in the binlog, not as
// information_schema has them when the job starts (Debezium's
// MySqlDatabaseSchema applies each DDL of the binlog to its tables as it
// reads them, and Paimon's record parser takes the record's fields from
// there). The reader keeps each table's columns with its position in the
// checkpoint and applies an ALTER TABLE's column clauses to them when it
// reads the statement: a job that resumes past one ALTER of several reads
// the rows between them with the columns they were written with.

// savedColumn is a mysqlColumn in the checkpoint.
type savedColumn struct {
	Name       string   `json:"name"`
	DataType   string   `json:"type"`
	ColumnType string   `json:"column_type"`
	Charset    string   `json:"charset,omitempty"`
	Unsigned   bool     `json:"unsigned,omitempty"`
	Enum       []string `json:"members,omitempty"`
}

func saveColumns(cols []mysqlColumn) []savedColumn {
	out := make([]savedColumn, len(cols))
	for i, c := range cols {
		out[i] = savedColumn{Name: c.name, DataType: c.dataType, ColumnType: c.columnType, Charset: c.charset, Unsigned: c.unsigned, Enum: c.enum}
	}
	return out
}

func restoreColumns(saved []savedColumn) []mysqlColumn {
	out := make([]mysqlColumn, len(saved))
	for i, c := range saved {
		out[i] = mysqlColumn{name: c.Name, dataType: c.DataType, columnType: c.ColumnType, charset: c.Charset, unsigned: c.Unsigned, enum: c.Enum}
	}
	return out
}

// alterColumns applies the column clauses of an ALTER TABLE statement to
// cols: ADD [COLUMN] (one or a parenthesized list, FIRST / AFTER), DROP
// [COLUMN], MODIFY, CHANGE, RENAME COLUMN, with MariaDB's IF [NOT] EXISTS.
// Index, constraint, partition and table-option clauses leave the columns
// as they are. An error says the statement does not fit the columns
// (which the server would have refused): the history went wrong.
func alterColumns(stmt string, cols []mysqlColumn) ([]mysqlColumn, error) {
	tk := tokenize(stmt)
	kw := func(i int, words ...string) bool { return isKeyword(tk, i, words...) }
	i := 1 // past ALTER
	for kw(i, "ONLINE", "IGNORE") {
		i++
	}
	if !kw(i, "TABLE") {
		return cols, nil
	}
	i++
	if kw(i, "IF") && kw(i+1, "EXISTS") {
		i += 2
	}
	// The table's name.
	if i+2 < len(tk) && tk[i+1].punct && tk[i+1].text == "." {
		i += 3
	} else {
		i++
	}
	if kw(i, "WAIT") {
		i += 2
	} else if kw(i, "NOWAIT") {
		i++
	}
	out := slices.Clone(cols)
	for _, spec := range splitTop(tk[i:], 0) {
		var err error
		if out, err = alterSpec(spec, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isKeyword reports whether token i is an unquoted word equal to one of
// words, ignoring case.
func isKeyword(tk []token, i int, words ...string) bool {
	if i >= len(tk) || tk[i].quoted || tk[i].punct {
		return false
	}
	for _, w := range words {
		if strings.EqualFold(tk[i].text, w) {
			return true
		}
	}
	return false
}

// splitTop splits tokens at the commas at parenthesis depth d.
func splitTop(tk []token, d int) [][]token {
	var out [][]token
	depth, start := 0, 0
	for i, t := range tk {
		if !t.punct {
			continue
		}
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
		case ",":
			if depth == d {
				out = append(out, tk[start:i])
				start = i + 1
			}
		}
	}
	if start < len(tk) {
		out = append(out, tk[start:])
	}
	return out
}

// alterSpec applies one clause.
func alterSpec(tk []token, cols []mysqlColumn) ([]mysqlColumn, error) {
	kw := func(i int, words ...string) bool { return isKeyword(tk, i, words...) }
	find := func(name string) int {
		for i, c := range cols {
			if strings.EqualFold(c.name, name) {
				return i
			}
		}
		return -1
	}
	name := func(i int) (string, bool) {
		if i >= len(tk) || tk[i].punct {
			return "", false
		}
		return tk[i].text, true
	}
	// place puts c at the clause's position (FIRST, AFTER x; else at, or
	// the end when at < 0).
	place := func(cols []mysqlColumn, c mysqlColumn, at int) ([]mysqlColumn, error) {
		n := len(tk)
		switch {
		case n >= 1 && kw(n-1, "FIRST"):
			at = 0
		case n >= 2 && kw(n-2, "AFTER"):
			j := -1
			for k, x := range cols {
				if strings.EqualFold(x.name, tk[n-1].text) {
					j = k
				}
			}
			if j < 0 {
				return nil, fmt.Errorf("no column %s to add %s after", tk[n-1].text, c.name)
			}
			at = j + 1
		case at < 0:
			at = len(cols)
		}
		return slices.Insert(cols, at, c), nil
	}
	i := 1
	switch {
	case kw(0, "ADD"):
		if kw(i, "INDEX", "KEY", "FULLTEXT", "SPATIAL", "UNIQUE", "PRIMARY", "FOREIGN", "CONSTRAINT", "CHECK", "PARTITION", "PERIOD", "SYSTEM", "VECTOR") {
			return cols, nil
		}
		if kw(i, "COLUMN") {
			i++
		}
		ifNotExists := false
		if kw(i, "IF") && kw(i+1, "NOT") && kw(i+2, "EXISTS") {
			ifNotExists, i = true, i+3
		}
		var defs [][]token
		if i < len(tk) && tk[i].punct && tk[i].text == "(" {
			defs = splitTop(tk[i+1:len(tk)-1], 0)
		} else {
			defs = [][]token{tk[i:]}
		}
		for _, d := range defs {
			if len(d) < 2 || d[0].punct {
				return nil, fmt.Errorf("cannot read the column added")
			}
			n := d[0].text
			if find(n) >= 0 {
				if ifNotExists {
					continue
				}
				return nil, fmt.Errorf("column %s is added but exists", n)
			}
			c := columnDef(n, d[1:])
			var err error
			if len(defs) > 1 {
				cols = append(cols, c)
			} else if cols, err = place(cols, c, -1); err != nil {
				return nil, err
			}
		}
	case kw(0, "DROP"):
		if kw(i, "INDEX", "KEY", "PRIMARY", "FOREIGN", "CONSTRAINT", "CHECK", "PARTITION", "PERIOD", "SYSTEM") {
			return cols, nil
		}
		if kw(i, "COLUMN") {
			i++
		}
		ifExists := false
		if kw(i, "IF") && kw(i+1, "EXISTS") {
			ifExists, i = true, i+2
		}
		n, ok := name(i)
		if !ok {
			return nil, fmt.Errorf("cannot read the column dropped")
		}
		j := find(n)
		if j < 0 {
			if ifExists {
				return cols, nil
			}
			return nil, fmt.Errorf("column %s is dropped but does not exist", n)
		}
		cols = slices.Delete(cols, j, j+1)
	case kw(0, "MODIFY", "CHANGE"):
		change := kw(0, "CHANGE")
		if kw(i, "COLUMN") {
			i++
		}
		ifExists := false
		if kw(i, "IF") && kw(i+1, "EXISTS") {
			ifExists, i = true, i+2
		}
		old, ok := name(i)
		if !ok {
			return nil, fmt.Errorf("cannot read the column changed")
		}
		i++
		n := old
		if change {
			if n, ok = name(i); !ok {
				return nil, fmt.Errorf("cannot read the new name of column %s", old)
			}
			i++
		}
		j := find(old)
		if j < 0 {
			if ifExists {
				return cols, nil
			}
			return nil, fmt.Errorf("column %s is changed but does not exist", old)
		}
		if i >= len(tk) {
			return nil, fmt.Errorf("cannot read the new definition of column %s", old)
		}
		cols = slices.Delete(cols, j, j+1)
		return place(cols, columnDef(n, tk[i:]), j)
	case kw(0, "RENAME") && kw(1, "COLUMN"):
		old, ok1 := name(2)
		n, ok2 := name(4)
		if !ok1 || !ok2 || !kw(3, "TO") {
			return nil, fmt.Errorf("cannot read the column renamed")
		}
		j := find(old)
		if j < 0 {
			return nil, fmt.Errorf("column %s is renamed but does not exist", old)
		}
		cols = slices.Clone(cols)
		cols[j].name = n
	}
	return cols, nil
}

// typeSynonyms are the type names information_schema's DATA_TYPE spells
// otherwise.
var typeSynonyms = map[string]string{
	"integer": "int", "int1": "tinyint", "int2": "smallint", "int3": "mediumint", "int4": "int", "int8": "bigint",
	"middleint": "mediumint", "bool": "tinyint", "boolean": "tinyint", "dec": "decimal", "numeric": "decimal",
	"fixed": "decimal", "real": "double", "float4": "float", "float8": "double", "character": "char",
	"nchar": "char", "nvarchar": "varchar", "serial": "bigint", "long": "mediumtext",
}

// columnDef reads a column definition's type: the DATA_TYPE, the
// COLUMN_TYPE, UNSIGNED, the ENUM or SET members, the character set.
func columnDef(name string, tk []token) mysqlColumn {
	kw := func(i int, w string) bool {
		return i < len(tk) && !tk[i].quoted && !tk[i].punct && strings.EqualFold(tk[i].text, w)
	}
	c := mysqlColumn{name: name}
	i := 0
	typ := strings.ToLower(tk[0].text)
	i++
	switch {
	case typ == "double" && kw(i, "precision"):
		i++
	case typ == "national" && i < len(tk):
		typ = strings.ToLower(tk[i].text)
		i++
	case typ == "character" && kw(i, "varying"):
		typ = "varchar"
		i++
	case typ == "long" && kw(i, "varbinary"):
		typ = "mediumblob"
		i++
	case typ == "long" && kw(i, "varchar"):
		i++
	}
	if s, ok := typeSynonyms[typ]; ok {
		c.unsigned = typ == "serial"
		typ = s
	}
	c.dataType = typ
	var args []string
	if i < len(tk) && tk[i].punct && tk[i].text == "(" {
		for i++; i < len(tk) && tk[i].text != ")"; i++ {
			switch {
			case tk[i].punct && tk[i].text == "'":
				args = append(args, "'"+strings.ReplaceAll(tk[i].lit, "'", "''")+"'")
				c.enum = append(c.enum, tk[i].lit)
			case !tk[i].punct:
				args = append(args, tk[i].text)
			}
		}
		i++
	}
	if typ != "enum" && typ != "set" {
		c.enum = nil
	}
	for ; i < len(tk); i++ {
		switch {
		case kw(i, "unsigned"), kw(i, "zerofill"):
			c.unsigned = true
		case kw(i, "charset") && i+1 < len(tk):
			c.charset = strings.ToLower(tk[i+1].text)
		case kw(i, "character") && kw(i+1, "set") && i+2 < len(tk):
			c.charset = strings.ToLower(tk[i+2].text)
		}
	}
	switch typ {
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		c.charset = ""
	}
	c.columnType = typ
	if len(args) > 0 {
		c.columnType += "(" + strings.Join(args, ",") + ")"
	}
	if c.unsigned {
		c.columnType += " unsigned"
	}
	return c
}
