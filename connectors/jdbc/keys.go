package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	sqlrun "github.com/sqlrun/sqlrun/sql"
)

// OptAllowOtherUniqueKeys is sqlrun's own sink option: see checkKeys.
const OptAllowOtherUniqueKeys = "sink.allow-other-unique-keys"

// checkKeys reads the MySQL table's unique indexes (SHOW INDEX) and
// refuses to open the sink when
//
//   - none of them is exactly the declared primary key: INSERT ... ON
//     DUPLICATE KEY UPDATE would never find the old row, and every update
//     would add one (seed 003 §十五); or
//   - another unique key exists (unless sink.allow-other-unique-keys):
//     ON DUPLICATE KEY UPDATE updates the row that collides on ANY unique
//     key, so a row whose other key matches a different row's overwrites
//     that row — a different primary key, silently. Flink's sink behaves
//     the same and does not check; sqlrun refuses by default.
//
// A unique key with an AUTO_INCREMENT column the sink does not write (a
// surrogate id) cannot collide with an insert and is not counted.
func (w *Writer) checkKeys(ctx context.Context, sc *sql.Conn) error {
	openErr := func(err error) error {
		return sqlrun.Errorf(sqlrun.IOException, "unable to open JDBC writer for table '%s' (%s): %w", w.table, w.connStr, err)
	}
	unique, err := w.uniqueIndexes(ctx, sc)
	if err != nil {
		return openErr(err)
	}
	auto, err := w.autoIncrementColumns(ctx, sc)
	if err != nil {
		return openErr(err)
	}
	declared := make([]string, len(w.keys))
	for i, k := range w.keys {
		declared[i] = w.cols[k]
	}
	written := map[string]bool{}
	for _, c := range w.cols {
		written[strings.ToLower(c)] = true
	}
	matched := false
	var others []string
	names := make([]string, 0, len(unique))
	for n := range unique {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		cols := unique[name]
		if sameColumns(cols, declared) {
			matched = true
			continue
		}
		surrogate := false
		for _, c := range cols {
			surrogate = surrogate || (auto[c] && !written[c])
		}
		if !surrogate {
			others = append(others, fmt.Sprintf("%s (%s)", name, strings.Join(cols, ", ")))
		}
	}
	if !matched {
		return sqlrun.Errorf(sqlrun.ValidationException,
			"JDBC sink table '%s' (%s) has no PRIMARY KEY or UNIQUE index on the declared primary key (%s): upserts would add rows instead of updating them. Give the MySQL table that key, or declare the sink's PRIMARY KEY to match the table's.",
			w.table, w.connStr, strings.Join(declared, ", "))
	}
	if len(others) > 0 && !w.opts.AllowOtherUniqueKeys {
		return sqlrun.Errorf(sqlrun.ValidationException,
			"JDBC sink table '%s' (%s) has unique keys besides the declared primary key (%s): %s. INSERT ... ON DUPLICATE KEY UPDATE updates the row that collides on any unique key, so a row that matches another row on one of these keys would silently overwrite that row. Drop those keys from the MySQL table, or set '%s' = 'true' to accept it.",
			w.table, w.connStr, strings.Join(declared, ", "), strings.Join(others, "; "), OptAllowOtherUniqueKeys)
	}
	return nil
}

func sameColumns(cols, declared []string) bool {
	if len(cols) != len(declared) {
		return false
	}
	for _, d := range declared {
		found := false
		for _, c := range cols {
			found = found || c == strings.ToLower(d)
		}
		if !found {
			return false
		}
	}
	return true
}

// uniqueIndexes maps each unique index of the table to its columns
// (lower case, in index order).
func (w *Writer) uniqueIndexes(ctx context.Context, sc *sql.Conn) (map[string][]string, error) {
	unique := map[string][]string{}
	err := scanNamed(ctx, sc, "SHOW INDEX FROM "+w.d.Quote(w.table), []string{"non_unique", "key_name", "column_name"}, func(v []string) {
		if v[0] == "0" {
			unique[v[1]] = append(unique[v[1]], strings.ToLower(v[2]))
		}
	})
	return unique, err
}

// autoIncrementColumns is the set of the table's AUTO_INCREMENT columns
// (lower case).
func (w *Writer) autoIncrementColumns(ctx context.Context, sc *sql.Conn) (map[string]bool, error) {
	auto := map[string]bool{}
	err := scanNamed(ctx, sc, "SHOW COLUMNS FROM "+w.d.Quote(w.table), []string{"field", "extra"}, func(v []string) {
		if strings.Contains(strings.ToLower(v[1]), "auto_increment") {
			auto[strings.ToLower(v[0])] = true
		}
	})
	return auto, err
}

// scanNamed runs a SHOW statement and calls f with the named columns of
// each row (as text).
func scanNamed(ctx context.Context, sc *sql.Conn, query string, want []string, f func([]string)) error {
	rows, err := sc.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	pos := make([]int, len(want))
	for i, wn := range want {
		pos[i] = -1
		for j, n := range names {
			if strings.EqualFold(n, wn) {
				pos[i] = j
			}
		}
		if pos[i] < 0 {
			return fmt.Errorf("%s: no column %s", query, wn)
		}
	}
	vals := make([]any, len(names))
	for i := range vals {
		vals[i] = new(sql.RawBytes)
	}
	out := make([]string, len(want))
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return err
		}
		for i, p := range pos {
			out[i] = string(*vals[p].(*sql.RawBytes))
		}
		f(out)
	}
	return rows.Err()
}
