package exec

import "testing"

func TestRedactSQL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CREATE TABLE t (a INT) WITH ('connector' = 'jdbc', 'password' = 'hunter2', 'username' = 'u')",
			"CREATE TABLE t (a INT) WITH ('connector' = 'jdbc', 'password' = '******', 'username' = 'u')"},
		{"SET 'fs.s3.secret-key'='it''s secret'", "SET 'fs.s3.secret-key'='******'"},
		{"SELECT * FROM t /*+ OPTIONS('password'\n  =\n'x') */", "SELECT * FROM t /*+ OPTIONS('password'\n  =\n'******') */"},
		{"SELECT 'password' = 'x'", "SELECT 'password' = '******'"},
		{"SHOW TABLES", "SHOW TABLES"},
		{"SET 'table.dml-sync' = 'true'", "SET 'table.dml-sync' = 'true'"},
	} {
		if got := RedactSQL(c.in); got != c.want {
			t.Errorf("RedactSQL(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}
