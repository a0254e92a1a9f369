package jdbc

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	sqlrun "github.com/sqlrun/sqlrun/sql"
)

var fuzzSeq atomic.Int64

// FuzzSinkHostile (issue 25) sends hostile identifiers and values through
// the sink into the real MariaDB and compares, byte for byte, what MariaDB
// stored with what was sent: ident names a table and a column (as a user's
// DDL may quote anything), s goes to a utf8mb4 VARCHAR, b to a VARBINARY,
// and a third column 'secret' must keep its value. Identifiers MariaDB
// itself refuses at CREATE TABLE are skipped; a string that is not UTF-8
// must fail the flush with MySQL's error and change nothing. Without
// MariaDB it skips, like every test here; `go test` runs the seeds,
// `go test -fuzz FuzzSinkHostile ./connectors/jdbc/` explores.
func FuzzSinkHostile(f *testing.F) {
	for _, ident := range []string{"v", "a`b", "x` = 1, `secret", "`", "--", "é中", "?", "'", `\`, "t; DROP TABLE x"} {
		f.Add(ident, "x', `secret` = 'pwned", []byte{0xbf, 0x27})
	}
	for _, v := range hostileStrings {
		f.Add("v", v, []byte(v))
	}
	f.Add("v", "\xbf', `secret` = 'pwned", []byte{0xbf, 0x5c, 0x27})
	f.Fuzz(func(t *testing.T, ident, s string, b []byte) {
		srv := shared(t)
		if len(ident) == 0 || len(ident) > 60 || len(s) > 1000 || len(b) > 1000 {
			return
		}
		low := strings.ToLower(ident)
		if low == "id" || low == "secret" || low == "b" {
			return
		}
		db := fuzzDB(t)
		table := fmt.Sprintf("t%d%s", fuzzSeq.Add(1), ident)
		q := dialect.MySQL{}.Quote
		if _, err := srv.DB(t, db).Exec(fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL PRIMARY KEY, %s VARCHAR(1000) CHARACTER SET utf8mb4, b VARBINARY(1000), secret VARCHAR(10)) ENGINE = InnoDB",
			q(table), q(ident))); err != nil {
			return // an identifier MariaDB does not accept
		}
		srv.Exec(t, fmt.Sprintf("INSERT INTO `%s`.%s (id, secret) VALUES (1, 'keep'), (2, 'keep')", db, q(table)))
		schema := sqlrun.Schema{Columns: []sqlrun.Column{
			{Name: "id", Type: sqlrun.BigInt().NotNull()},
			{Name: ident, Type: sqlrun.String()},
			{Name: "b", Type: sqlrun.Bytes()},
			{Name: "secret", Type: sqlrun.String()},
		}, PrimaryKey: []string{"id"}}
		w := openWriter(t, newSink(t, schema, tableOptions(srv, db, "table-name", table, OptSinkInterval, "0", OptSinkMaxRetries, "0")), nil)
		err := w.Write(context.Background(), []sqlrun.Row{{Kind: sqlrun.UpdateAfter, Values: []any{int64(1), s, b, "keep"}}})
		if err == nil {
			_, _, err = w.Snapshot(context.Background(), 1)
		}
		got := srv.Query(t, fmt.Sprintf("SELECT id, HEX(%s), HEX(b), secret FROM `%s`.%s ORDER BY id", q(ident), db, q(table)))
		if len(got) != 2 || got[0][3] != "keep" || got[1][3] != "keep" || got[1][1] != "NULL" && got[1][1] != "" {
			t.Fatalf("table after writing %q / %x: %v", s, b, got)
		}
		if !utf8.ValidString(s) { // strict mode refuses it (1366), or it is stored as sent
			if err == nil && got[0][1] != strings.ToUpper(hex.EncodeToString([]byte(s))) {
				t.Fatalf("invalid UTF-8 %q stored as %s without an error", s, got[0][1])
			}
			return
		}
		if err != nil {
			t.Fatalf("writing %q / %x: %v", s, b, err)
		}
		if want := strings.ToUpper(hex.EncodeToString([]byte(s))); got[0][1] != want {
			t.Fatalf("stored %s, sent %s (%q)", got[0][1], want, s)
		}
		if want := strings.ToUpper(hex.EncodeToString(b)); got[0][2] != want {
			t.Fatalf("stored bytes %s, sent %s", got[0][2], want)
		}
	})
}

var fuzzDatabase string

func fuzzDB(t *testing.T) string {
	if fuzzDatabase == "" {
		fuzzDatabase = shared(t).NewDatabase(t)
	}
	return fuzzDatabase
}
