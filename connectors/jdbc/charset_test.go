package jdbc

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	sqlrun "github.com/sqlrun/sqlrun/sql"
)

// hostileStrings try to end a string literal early, in every way an
// escaping bug or a character-set mismatch would let them. 縗 is 0xbf5c in
// GBK: a literal escaper that doubles the backslash of "縗'" under a GBK
// connection leaves the quote free (issue 25's attack).
var hostileStrings = []string{
	"'", `\`, `\'`, `''`, `"`, "`",
	"x', `secret` = 'pwned", "x\\', `secret` = 'pwned",
	"縗', `secret` = 'pwned' -- ", "縗\\', `secret` = 'pwned' -- ",
	"'); DROP TABLE t; -- ", "\x00", "a\x00b'c", "\n\r\x1a\t", "%_?",
	"?, ?", "/*", "*/ ;", "é ü 中文 日本語 한국어 😀", "\u00bf\\", "\u00bf'",
}

// hostileBytes are raw bytes (BYTES / VARBINARY), including sequences that
// are not UTF-8 at all: 0xbf 0x27 is the GBK trick's input before escaping.
var hostileBytes = [][]byte{
	{0xbf, 0x27}, {0xbf, 0x5c, 0x27}, {0x00, 0x27, 0x5c}, {0xff, 0xfe, 0x27, 0x22}, []byte("x', `secret` = 'pwned"),
}

func charsets(t *testing.T, s *mariadb.Server) []string {
	var out []string
	for _, r := range s.Query(t, "SHOW CHARACTER SET") {
		out = append(out, r[0])
	}
	if len(out) < 20 {
		t.Fatalf("SHOW CHARACTER SET listed only %v", out)
	}
	return out
}

// TestEveryServerCharset (issue 25 finding 1) goes over every character
// set the server lists in SHOW CHARACTER SET:
//
//   - as the session's character set (sessionVariables): the sink refuses
//     to open unless it is UTF-8, because it sends UTF-8 and the server
//     would read the bytes as that charset (and, with the literal SQL the
//     sink used to build, a GBK session let 縗' end the literal);
//   - as the target column's character set: over a UTF-8 session, every
//     hostile string the charset can represent is stored exactly as the
//     server encodes that string in that charset (HEX of the stored value
//     equals HEX(CONVERT(value USING cs)) with the value bound as a
//     parameter), and the row's other column is never touched.
//
// Values travel as placeholders of server-side prepared statements, so no
// value is ever part of SQL text.
func TestEveryServerCharset(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	sets := charsets(t, s)
	t.Logf("%d character sets: %s", len(sets), strings.Join(sets, " "))
	schema := sqlrun.Schema{Columns: []sqlrun.Column{
		{Name: "id", Type: sqlrun.BigInt().NotNull()},
		{Name: "v", Type: sqlrun.String()},
		{Name: "secret", Type: sqlrun.String()},
	}, PrimaryKey: []string{"id"}}

	for _, cs := range sets {
		t.Run("session="+cs, func(t *testing.T) {
			opts := tableOptions(s, db, "table-name", "t_session")
			opts["url"] += "?sessionVariables=character_set_client=" + cs + ",character_set_connection=" + cs
			w, err := newSink(t, schema, opts).NewJDBCWriter(0, 1, ExecutionOptions{BatchSize: 100})
			if err != nil {
				t.Fatal(err)
			}
			err = w.Open(context.Background(), nil)
			defer w.Close(context.Background())
			utf8 := cs == "utf8mb4" || cs == "utf8mb3" || cs == "utf8"
			var ce *CharsetError
			switch {
			case utf8 && err != nil && !strings.Contains(err.Error(), "doesn't exist"):
				t.Fatalf("a UTF-8 session was refused: %v", err)
			case !utf8 && err == nil:
				t.Fatalf("the sink opened a %s session; it sends UTF-8", cs)
			case !utf8 && !errors.As(err, &ce) && !strings.Contains(err.Error(), "can't be set to the value of"):
				t.Fatalf("refused with %v; want the charset named", err)
			case ce != nil && (ce.Charset != cs || !strings.Contains(err.Error(), "sessionVariables")):
				t.Fatalf("message: %v", err)
			}
		})
	}

	for _, cs := range sets {
		t.Run("column="+cs, func(t *testing.T) {
			table := "t_" + cs
			col := "VARCHAR(200) CHARACTER SET " + cs
			if cs == "binary" {
				col = "VARBINARY(800)"
			}
			s.Exec(t, fmt.Sprintf("CREATE TABLE `%s`.`%s` (id BIGINT NOT NULL PRIMARY KEY, v %s, secret VARCHAR(50)) ENGINE = InnoDB", db, table, col))
			conv, err := h.Prepare("SELECT HEX(CONVERT(? USING " + cs + ")), HEX(CONVERT(CONVERT(? USING " + cs + ") USING utf8mb4)), HEX(?)")
			if err != nil {
				t.Fatal(err)
			}
			defer conv.Close()
			want := map[int64]string{}
			var rows []sqlrun.Row
			for i, v := range hostileStrings {
				var inCS, back, sent string
				if err := conv.QueryRow(v, v, v).Scan(&inCS, &back, &sent); err != nil {
					t.Fatal(err)
				}
				if back != sent && cs != "binary" {
					continue // not representable in cs: MySQL would refuse it (strict mode)
				}
				id := int64(i + 1)
				s.Exec(t, fmt.Sprintf("INSERT INTO `%s`.`%s` VALUES (?, NULL, 'keep')", db, table), id)
				want[id] = inCS
				rows = append(rows, sqlrun.Row{Kind: sqlrun.UpdateAfter, Values: []any{id, v, "keep"}})
			}
			w := openWriter(t, newSink(t, schema, tableOptions(s, db, "table-name", table, OptSinkInterval, "0")), nil)
			if err := w.Write(context.Background(), rows); err != nil {
				t.Fatal(err)
			}
			if _, _, err := w.Snapshot(context.Background(), 1); err != nil {
				t.Fatalf("flush into a %s column: %v", cs, err)
			}
			got := s.Query(t, fmt.Sprintf("SELECT id, HEX(v), secret FROM `%s`.`%s` ORDER BY id", db, table))
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for _, r := range got {
				var id int64
				fmt.Sscan(r[0], &id)
				if r[1] != want[id] || r[2] != "keep" {
					t.Errorf("id %d: stored %s (secret %q), want %s (secret \"keep\")", id, r[1], r[2], want[id])
				}
			}
			if len(want) < 10 {
				t.Errorf("only %d hostile strings representable in %s", len(want), cs)
			}
		})
	}
}

// TestHostileBytesStoredExactly: BYTES values, including bytes that are
// not UTF-8 (0xbf 0x27 ...), land in VARBINARY byte for byte.
func TestHostileBytesStoredExactly(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.`b` (id BIGINT NOT NULL PRIMARY KEY, v VARBINARY(100), secret VARCHAR(50)) ENGINE = InnoDB")
	schema := sqlrun.Schema{Columns: []sqlrun.Column{
		{Name: "id", Type: sqlrun.BigInt().NotNull()},
		{Name: "v", Type: sqlrun.Bytes()},
		{Name: "secret", Type: sqlrun.String()},
	}, PrimaryKey: []string{"id"}}
	w := openWriter(t, newSink(t, schema, tableOptions(s, db, "table-name", "b", OptSinkInterval, "0")), nil)
	var rows []sqlrun.Row
	var want strings.Builder
	for i, v := range hostileBytes {
		rows = append(rows, sqlrun.Row{Kind: sqlrun.Insert, Values: []any{int64(i + 1), v, "keep"}})
		fmt.Fprintf(&want, "%d, %s, keep\n", i+1, strings.ToUpper(hex.EncodeToString(v)))
	}
	write(t, w, rows...)
	snapshot(t, w, 1)
	var got strings.Builder
	for _, r := range s.Query(t, "SELECT id, HEX(v), secret FROM `"+db+"`.`b` ORDER BY id") {
		got.WriteString(strings.Join(r, ", ") + "\n")
	}
	eq(t, "stored bytes", got.String(), want.String())
}
