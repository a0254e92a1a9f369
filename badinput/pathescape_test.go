package badinput

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestPathEscape runs every name-bearing statement and option with names
// that try to leave their directory ("../", "/", ".", "..") through the
// sqlrun binary, and checks after each that no file outside the warehouse
// — and no file of another table — was created, changed or deleted (issue
// 25, finding 2: `CREATE TABLE `../../t“ wrote outside the warehouse,
// `DROP DATABASE `../victim` CASCADE` deleted a foreign directory,
// `CALL sys.delete_tag` deleted another table's snapshot file).
//
// Layout under $DIR:
//
//	outer/wh/            the warehouse (tables default.t, default.other, default.p)
//	outer/victim.db/     a non-Paimon directory next to the warehouse (DROP DATABASE `../victim`)
//	outer/victim/        a Paimon table outside the warehouse ('path' table)
//	keep/                a non-Paimon directory with a file
func TestPathEscape(t *testing.T) {
	e := newEnv(t)
	wh := filepath.Join(e.Dir, "outer", "wh")
	e.Write("outer/victim.db/keep.txt", "not paimon's\n")
	e.Write("keep/keep.txt", "not paimon's\n")
	const catalog = "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '$DIR/outer/wh');\nUSE CATALOG lake;\nSET 'table.dml-sync' = 'true';\nSET 'sql-client.execution.result-mode' = 'tableau';\n"
	e.Write("setup.sql", `
CREATE TABLE victim (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = '$DIR/outer/victim', 'bucket' = '1', 'auto-create' = 'true');
SET 'table.dml-sync' = 'true';
INSERT INTO victim VALUES (1, 'victim');
`+catalog+`
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
CREATE TABLE other (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
CREATE TABLE p (id BIGINT, k STRING, PRIMARY KEY (id, k) NOT ENFORCED) PARTITIONED BY (k) WITH ('bucket' = '1');
INSERT INTO t VALUES (1, 't');
INSERT INTO other VALUES (1, 'other');
`)
	if r := e.run(time.Minute, "-f", "setup.sql"); r.code != 0 {
		t.Fatalf("setup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	type tc struct {
		stmt string
		// ok: the statement is legitimate (it may change the warehouse,
		// never anything outside it nor table `other`); else it must fail
		// naming wantErr and change nothing at all.
		ok      bool
		wantErr string
	}
	cases := []tc{
		// databases
		{stmt: "CREATE DATABASE `../escaped_db`;", wantErr: "Database name '../escaped_db' must not contain '/'"},
		{stmt: "CREATE DATABASE IF NOT EXISTS `a/b`;", wantErr: "Database name 'a/b'"},
		{stmt: "CREATE DATABASE `/tmp/abs`;", wantErr: "Database name '/tmp/abs'"},
		{stmt: "DROP DATABASE `../victim` CASCADE;", wantErr: "Database name '../victim'"},
		{stmt: "DROP DATABASE IF EXISTS `../victim` CASCADE;", wantErr: "Database name '../victim'"},
		{stmt: "ALTER DATABASE `../victim` SET ('k' = 'v');", wantErr: "ALTER DATABASE"},
		{stmt: "USE `../victim`;", wantErr: "Database name '../victim'"},
		// tables
		{stmt: "CREATE TABLE `../../escaped_table` (id INT);", wantErr: "Table name '../../escaped_table'"},
		{stmt: "CREATE TABLE `..` (id INT);", wantErr: "Table name '..'"},
		{stmt: "CREATE TABLE `.` (id INT);", wantErr: "Table name '.'"},
		{stmt: "CREATE TABLE `x/y` (id INT);", wantErr: "Table name 'x/y'"},
		{stmt: "CREATE TABLE `../../escaped_like` LIKE t;", wantErr: "Table name '../../escaped_like'"},
		{stmt: "CREATE TABLE `../../escaped_ctas` AS SELECT * FROM t;", wantErr: "Table name '../../escaped_ctas'"},
		{stmt: "DROP TABLE `../../victim`;", wantErr: "Table name '../../victim'"},
		{stmt: "DROP TABLE IF EXISTS `..`;", wantErr: "Table name '..'"},
		{stmt: "ALTER TABLE `../../victim` SET ('k' = 'v');", wantErr: "Table name '../../victim'"},
		{stmt: "ALTER TABLE t RENAME TO `../../escaped_rename`;", wantErr: "RENAME"},
		{stmt: "INSERT INTO `../../victim` VALUES (2, 'x');", wantErr: "Table name '../../victim'"},
		{stmt: "SELECT * FROM `../../victim`;", wantErr: "Table name '../../victim'"},
		// the 'path' option: Paimon's filesystem catalog refuses it at
		// CREATE TABLE, and a 'path' hint never moves a catalog table
		{stmt: "CREATE TABLE escaped_path (id INT) WITH ('path' = '$DIR/keep/escaped_path');",
			wantErr: "The current catalog FileSystemCatalog does not support specifying the table path when creating a table."},
		{stmt: "INSERT INTO t /*+ OPTIONS('path' = '$DIR/outer/victim') */ VALUES (2, 'hint');", ok: true},
		// tags
		{stmt: "CALL sys.create_tag('default.t', 'x/../../../../../escaped_tag');", wantErr: "Tag name 'x/../../../../../escaped_tag'"},
		{stmt: "CALL sys.create_tag('default.t', '../../../../victim/tag');", wantErr: "Tag name '../../../../victim/tag'"},
		{stmt: "CALL sys.create_tag(`table` => 'default.t', tag => '..');", wantErr: "Tag name '..'"},
		{stmt: "CALL sys.delete_tag('default.t', 'x/../../../other/snapshot/snapshot-1');", wantErr: "Tag name 'x/../../../other/snapshot/snapshot-1'"},
		{stmt: "CALL sys.delete_tag('default.t', 'ok,../../other/snapshot/snapshot-1');", wantErr: "Tag name '../../other/snapshot/snapshot-1'"},
		{stmt: "CALL sys.rollback_to('default.t', '../../other/snapshot/snapshot-1');", wantErr: "rollback_to"},
		{stmt: "CALL sys.create_branch('default.t', '../../../escaped_branch');", wantErr: "create_branch"},
		{stmt: "CALL sys.delete_branch('default.t', '../../other');", wantErr: "delete_branch"},
		{stmt: "CALL sys.reset_consumer('default.t', '../../../escaped_consumer');", wantErr: "reset_consumer"},
		{stmt: "SELECT * FROM t /*+ OPTIONS('scan.tag-name' = 'x/../../../other/snapshot/snapshot-1') */;", wantErr: "Tag name 'x/../../../other/snapshot/snapshot-1'"},
		// consumers: refused while planning, before a job starts
		{stmt: "SET 'execution.runtime-mode' = 'streaming';\nSET 'execution.checkpointing.interval' = '100ms';\n" +
			"INSERT INTO other SELECT * FROM t /*+ OPTIONS('consumer-id' = '../../../../escaped_consumer', 'consumer.expiration-time' = '1 h') */;",
			wantErr: "Consumer id name '../../../../escaped_consumer'"},
		// partitions: values are escaped into one directory element
		{stmt: "INSERT INTO p VALUES (1, '../../../../escaped_part'), (2, 'a/b'), (3, '..'), (4, '.'), (5, '/abs');", ok: true},
		// catalogs: the catalog name is no path; 'default-database' is a name
		{stmt: "CREATE CATALOG `../escaped_catalog` WITH ('type' = 'paimon', 'warehouse' = '$DIR/outer/wh');", ok: true},
		{stmt: "CREATE CATALOG c2 WITH ('type' = 'paimon', 'warehouse' = '$DIR/outer/wh', 'default-database' = '../escaped_default');",
			wantErr: "Database name '../escaped_default'"},
	}
	for _, c := range cases {
		stmt := e.Expand(c.stmt)
		e.Write("job.sql", catalog+c.stmt+"\n")
		before := tree(t, e.Dir, wh)
		beforeWH := tree(t, wh, "")
		beforeOther := tree(t, filepath.Join(wh, "default.db", "other"), "")
		r := e.runAllowHang(30*time.Second, true, "-f", "job.sql")
		out := r.stdout + r.stderr
		after := tree(t, e.Dir, wh)
		if d := diffTrees(before, after); d != "" {
			t.Errorf("%s\nchanged files outside the warehouse:\n%s\noutput:\n%s", stmt, d, out)
		}
		if d := diffTrees(beforeOther, tree(t, filepath.Join(wh, "default.db", "other"), "")); d != "" {
			t.Errorf("%s\nchanged files of table `other`:\n%s\noutput:\n%s", stmt, d, out)
		}
		if r.timedOut {
			t.Errorf("%s: still running after 30 s\noutput:\n%s", stmt, out)
			continue
		}
		if c.ok {
			if r.code != 0 {
				t.Errorf("%s: exit %d\n%s", stmt, r.code, out)
			}
			continue
		}
		if r.code == 0 || !strings.Contains(out, c.wantErr) {
			t.Errorf("%s: exit %d, want a failure naming %q\noutput:\n%s", stmt, r.code, c.wantErr, out)
		}
		if d := diffTrees(beforeWH, tree(t, wh, "")); d != "" {
			t.Errorf("%s: refused, yet it changed the warehouse:\n%s", stmt, d)
		}
	}
	// `sqlrun compact` names its table with flags.
	for _, args := range [][]string{
		{"compact", "--warehouse", wh, "--database", "default", "--table", "../../victim"},
		{"compact", "--warehouse", wh, "--database", "../outer", "--table", "victim"},
	} {
		before := tree(t, e.Dir, "")
		r := e.run(time.Minute, args...)
		if d := diffTrees(before, tree(t, e.Dir, "")); d != "" {
			t.Errorf("sqlrun %v changed files:\n%s", args, d)
		}
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "name '../") {
			t.Errorf("sqlrun %v: exit %d, want a refusal naming the name\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	// The legitimate statements landed where they belong.
	for _, p := range []string{
		"default.db/p/k=..%2F..%2F..%2F..%2Fescaped_part",
		"default.db/p/k=a%2Fb",
		"default.db/p/k=..",
		"default.db/p/k=.",
		"default.db/p/k=%2Fabs",
	} {
		if _, err := os.Stat(filepath.Join(wh, p)); err != nil {
			t.Errorf("partition directory: %v", err)
		}
	}
	r := e.run(time.Minute, "-e", e.Expand(catalog+"SET 'execution.runtime-mode' = 'batch';\nSELECT id, v FROM t ORDER BY id;"))
	if !strings.Contains(r.stdout, "hint") {
		t.Errorf("the row inserted with a 'path' hint is not in table t:\n%s%s", r.stdout, r.stderr)
	}
}

// tree is every file and directory under root (except the skip subtree
// and the scripts) with a hash of its content.
func tree(t *testing.T, root, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if p == skip && d.IsDir() {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		if strings.HasSuffix(p, ".sql") && filepath.Dir(p) == root {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(h[:8])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(a, b map[string]string) string {
	var lines []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			lines = append(lines, "deleted  "+k)
		} else if w != v {
			lines = append(lines, "changed  "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			lines = append(lines, "created  "+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
