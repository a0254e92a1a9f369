package jdbc

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	sqlrun "github.com/sqlrun/sqlrun/sql"
)

var (
	fuzzSeq  atomic.Int64
	fuzzOnce sync.Once
	fuzzDB   string
	fuzzSets []string
	fuzzH    *sql.DB
)

// FuzzSinkHostile (issue 25) sends hostile identifiers, values and
// character sets through the sink into the real MariaDB and compares, byte
// for byte, what MariaDB stored with what was sent: ident names a table
// and a column (as a user's DDL may quote anything); s goes to a column
// whose character set is the cs-th of SHOW CHARACTER SET (VARBINARY for
// binary); b goes to a VARBINARY; the column 'secret' must keep its value
// and no other row may change. The stored bytes must equal the server's
// own encoding of s in that charset (HEX(CONVERT(? USING cs)) with s bound
// as a parameter); a string the charset cannot represent (or that is not
// UTF-8) must fail the flush with MySQL's error instead. Identifiers
// MariaDB itself refuses at CREATE TABLE are skipped. Without MariaDB it
// skips like every test here; `go test` runs the seeds, `go test -run '^$'
// -fuzz FuzzSinkHostile ./connectors/jdbc/` explores.
func FuzzSinkHostile(f *testing.F) {
	for _, ident := range []string{"v", "a`b", "x` = 1, `secret", "`", "--", "é中", "?", "'", `\`, "t; DROP TABLE x"} {
		f.Add(ident, "x', `secret` = 'pwned", []byte{0xbf, 0x27}, uint8(0))
	}
	for i, v := range hostileStrings {
		f.Add("v", v, []byte(v), uint8(i*7))
	}
	f.Add("v", "\xbf', `secret` = 'pwned", []byte{0xbf, 0x5c, 0x27}, uint8(18))
	f.Fuzz(func(t *testing.T, ident, s string, b []byte, csi uint8) {
		srv := shared(t)
		if len(ident) == 0 || len(ident) > 60 || len(s) > 300 || len(b) > 1000 {
			return
		}
		low := strings.ToLower(ident)
		if low == "id" || low == "secret" || low == "b" {
			return
		}
		fuzzOnce.Do(func() {
			fuzzDB = srv.NewDatabase(t)
			for _, r := range srv.Query(t, "SHOW CHARACTER SET") {
				fuzzSets = append(fuzzSets, r[0])
			}
			h, err := sql.Open("mysql", srv.DSN(fuzzDB))
			if err != nil {
				t.Fatal(err)
			}
			fuzzH = h // kept for the whole fuzz run
		})
		cs := fuzzSets[int(csi)%len(fuzzSets)]
		col := "VARCHAR(300) CHARACTER SET " + cs
		if cs == "binary" {
			col = "VARBINARY(1200)"
		}
		table := fmt.Sprintf("t%d%s", fuzzSeq.Add(1), ident)
		q := dialect.MySQL{}.Quote
		if _, err := fuzzH.Exec(fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL PRIMARY KEY, %s %s, b VARBINARY(1000), secret VARCHAR(10)) ENGINE = InnoDB",
			q(table), q(ident), col)); err != nil {
			return // an identifier MariaDB does not accept
		}
		if _, err := fuzzH.Exec("INSERT INTO " + q(table) + " (id, secret) VALUES (1, 'keep'), (2, 'keep')"); err != nil {
			t.Fatal(err)
		}
		// The server's encoding of s in cs, and whether it reads back as s;
		// s is a parameter of a prepared statement here too.
		conv, err := fuzzH.Prepare("SELECT HEX(CONVERT(? USING " + cs + ")), HEX(CONVERT(CONVERT(? USING " + cs + ") USING utf8mb4)), HEX(?)")
		if err != nil {
			t.Fatal(err)
		}
		var inCS, back, sent sql.NullString
		err = conv.QueryRow(s, s, s).Scan(&inCS, &back, &sent)
		conv.Close()
		if err != nil {
			t.Fatal(err)
		}
		exact := cs == "binary" || back.String == sent.String
		schema := sqlrun.Schema{Columns: []sqlrun.Column{
			{Name: "id", Type: sqlrun.BigInt().NotNull()},
			{Name: ident, Type: sqlrun.String()},
			{Name: "b", Type: sqlrun.Bytes()},
			{Name: "secret", Type: sqlrun.String()},
		}, PrimaryKey: []string{"id"}}
		w := openWriter(t, newSink(t, schema, tableOptions(srv, fuzzDB, "table-name", table, OptSinkInterval, "0", OptSinkMaxRetries, "0")), nil)
		err = w.Write(context.Background(), []sqlrun.Row{{Kind: sqlrun.UpdateAfter, Values: []any{int64(1), s, b, "keep"}}})
		if err == nil {
			_, _, err = w.Snapshot(context.Background(), 1)
		}
		got := srv.Query(t, fmt.Sprintf("SELECT id, HEX(%s), HEX(b), secret FROM `%s`.%s ORDER BY id", q(ident), fuzzDB, q(table)))
		if len(got) != 2 || got[0][3] != "keep" || got[1][3] != "keep" || got[1][1] != "NULL" && got[1][1] != "" {
			t.Fatalf("%s column: table after writing %q / %x: %v", cs, s, b, got)
		}
		if !exact {
			if err == nil && got[0][1] != inCS.String {
				t.Fatalf("%q (not representable in %s) stored as %s without an error, server encodes %s", s, cs, got[0][1], inCS.String)
			}
			return
		}
		if err != nil {
			t.Fatalf("writing %q / %x into a %s column: %v", s, b, cs, err)
		}
		want := inCS.String
		if cs == "binary" {
			want = strings.ToUpper(hex.EncodeToString([]byte(s)))
		}
		if got[0][1] != want {
			t.Fatalf("%s column: stored %s, the server encodes %q as %s", cs, got[0][1], s, want)
		}
		if want := strings.ToUpper(hex.EncodeToString(b)); got[0][2] != want {
			t.Fatalf("stored bytes %s, sent %s", got[0][2], want)
		}
	})
}
