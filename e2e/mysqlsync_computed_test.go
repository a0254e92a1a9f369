package e2e

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMySQLSyncComputedColumns runs every --computed_column function of
// Paimon 1.4.1's Expression over real MariaDB rows, snapshot and binlog:
// year and date_format of a DATETIME, upper / lower / trim of a VARCHAR
// (java.lang.String's, so 'ß' uppers to 'SS' and trim drops a tab),
// substring, truncate, cast with and without a type, now(), and a column
// computed from another computed column. The Paimon table's computed
// columns come in the order ComputedColumnUtils.sortComputedColumnArgs
// gives them (DfsSort: tu, which reads tr, last).
func TestMySQLSyncComputedColumns(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT NOT NULL PRIMARY KEY, created DATETIME(3), name VARCHAR(32)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1001, '2024-03-05 10:20:30.000', ' Straße\\t'), (1002, '1999-12-31 23:59:59.999', 'hello')")
	e := newEnv(t)
	action := e.start(syncArgs(e, srv, src, "--table-conf", "bucket=1",
		"--computed_column", "tu=upper(tr)",
		"--computed_column", "y=year(created)", "--computed_column", "d=date_format(created, yyyy-MM-dd)",
		"--computed_column", "up=upper(name)", "--computed_column", "lo=lower(name)", "--computed_column", "tr=trim(name)",
		"--computed_column", "sub=substring(name, 1, 3)", "--computed_column", "bucket_id=truncate(id, 100)",
		"--computed_column", "kc=cast(fixed)", "--computed_column", "n=cast(7, INT)", "--computed_column", "t=now()")...)
	// (up and lo keep the tab, which tableau would print: their lengths
	// are compared)
	const query = "SELECT id, y, d, CHAR_LENGTH(up), up LIKE ' STRASSE_', CHAR_LENGTH(lo), lo LIKE ' straße_', tr, CHAR_LENGTH(tr), tu, sub, bucket_id, kc, n, t IS NOT NULL FROM orders ORDER BY id"
	want := "1001, 2024, 2024-03-05, 9, TRUE, 8, TRUE, Straße, 6, STRASSE, St, 1000, fixed, 7, TRUE\n" +
		"1002, 1999, 1999-12-31, 5, FALSE, 5, FALSE, hello, 5, HELLO, el, 1000, fixed, 7, TRUE\n"
	var got string
	action.waitFor("the snapshot in Paimon", time.Minute, func() bool {
		got = e.paimonSelect(query)
		return got == want
	})
	// Field order and types of the Paimon table.
	schema := e.schemaFile(0)
	var fields []string
	for _, m := range regexp.MustCompile(`"name" : "([^"]+)",\s*"type" : "([^"]+)"`).FindAllStringSubmatch(schema, -1) {
		fields = append(fields, m[1]+" "+m[2])
	}
	if got, want := strings.Join(fields, ", "), "id BIGINT NOT NULL, created TIMESTAMP(3), name VARCHAR(32), y INT, d STRING, up STRING, lo STRING, tr STRING, sub STRING, bucket_id BIGINT, kc STRING, n INT, t TIMESTAMP(3), tu STRING"; got != want {
		t.Errorf("Paimon schema fields:\n%s\nwant:\n%s", got, want)
	}
	// A change through the binlog is computed the same way.
	srv.Exec(t, "UPDATE `"+src+"`.orders SET name = 'ΟΔΟΣ', created = '2025-01-02 03:04:05.000' WHERE id = 1002")
	want = strings.Replace(want, "1002, 1999, 1999-12-31, 5, FALSE, 5, FALSE, hello, 5, HELLO, el,", "1002, 2025, 2025-01-02, 4, FALSE, 4, FALSE, ΟΔΟΣ, 4, ΟΔΟΣ, ΔΟ,", 1)
	action.waitFor("the update in Paimon", time.Minute, func() bool {
		got = e.paimonSelect(query)
		return got == want
	})
	action.signal(syscall.SIGTERM)
	if code := action.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, action.output())
	}
	assertNoSecret(t, action.output())
}
