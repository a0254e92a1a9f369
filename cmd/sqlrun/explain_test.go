package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// treeDigest lists every entry under root with its mode, size and content
// hash: two equal digests mean nothing under root changed.
func treeDigest(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		line := fmt.Sprintf("%s %v %d", rel, info.Mode(), info.Size())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// explainWarehouse creates a Paimon warehouse with table default.t (two
// rows, a tag) and returns its directory.
func explainWarehouse(t *testing.T) string {
	t.Helper()
	wh := filepath.Join(t.TempDir(), "wh")
	setup := writeScript(t, fmt.Sprintf(`SET 'table.dml-sync' = 'true';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s');
USE CATALOG p;
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL sys.create_tag('default.t', 'keep', 1);
`, wh))
	if code, out, errOut := runCLI(t, "-f", setup); code != 0 {
		t.Fatalf("setup: exit %d: %s\n%s", code, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(wh, "default.db", "t", "tag", "tag-keep")); err != nil {
		t.Fatalf("setup made no tag: %v", err)
	}
	return wh
}

// EXPLAIN must never change anything (issue 23, finding 2): `sqlrun
// explain -f` of a script that drops, recreates, alters and writes tables,
// calls procedures and deletes rows plans every statement against a
// scratch copy of the catalog and leaves the warehouse byte for byte as
// it was. Before the fix the DROP removed the table's snapshots and the
// CALL deleted the tag.
func TestExplainScriptChangesNothing(t *testing.T) {
	wh := explainWarehouse(t)
	before := treeDigest(t, wh)
	f := writeScript(t, fmt.Sprintf(`CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%[1]s');
USE CATALOG p;
CREATE DATABASE scratch;
CREATE TABLE scratch.n (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'changelog-producer' = 'lookup');
INSERT INTO scratch.n SELECT * FROM t;
CALL sys.delete_tag('default.t', 'keep');
CALL sys.compact('default.t');
DELETE FROM t WHERE id = 1;
ALTER TABLE t SET ('snapshot.num-retained.max' = '50');
DROP TABLE t;
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
INSERT INTO t SELECT id, v FROM scratch.n;
SELECT * FROM scratch.n$audit_log;
EXPLAIN PLAN FOR INSERT INTO t SELECT * FROM scratch.n;
USE CATALOG default_catalog;
CREATE TABLE byPath (id BIGINT, v STRING) WITH ('connector' = 'paimon', 'path' = '%[1]s/made_by_explain', 'auto-create' = 'true');
INSERT INTO byPath SELECT * FROM p.scratch.n;
DROP DATABASE p.scratch CASCADE;
DROP DATABASE p.`+"`default`"+` CASCADE;
`, wh))
	for _, args := range [][]string{{"explain", "-f", f}, {"explain", "--dot", "-f", f}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s\n%s", args, code, errOut, out)
		}
		if args[1] != "--dot" {
			for _, want := range []string{
				"Sink(table=[p.scratch.n]",
				"Sink(table=[p.default.t]",
				"TableSourceScan(table=[[p, scratch, n$audit_log]]",
				"Sink(table=[default_catalog.default_database.byPath]",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("%v: output lacks %q:\n%s", args, want, out)
				}
			}
		}
		if after := treeDigest(t, wh); after != before {
			t.Fatalf("%v changed the warehouse:\nbefore:\n%s\nafter:\n%s", args, before, after)
		}
	}
}

// A DROP in the explained script hides the table from the statements after
// it, as the real run would: planning against the scratch copy is faithful.
func TestExplainScriptSeesItsOwnDDL(t *testing.T) {
	wh := explainWarehouse(t)
	f := writeScript(t, fmt.Sprintf(`CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s');
USE CATALOG p;
DROP TABLE t;
SELECT * FROM t;
`, wh))
	code, out, errOut := runCLI(t, "explain", "-f", f)
	if code != 1 || !strings.Contains(out, "Object 't' not found") || !strings.Contains(errOut, f+":4:") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(wh, "default.db", "t", "snapshot")); err != nil {
		t.Fatalf("the explained DROP removed the table: %v", err)
	}
}

// EXPLAIN inside an ordinary script plans and writes nothing either: no
// table auto-created by path, no warehouse file.
func TestExplainStatementChangesNothing(t *testing.T) {
	wh := explainWarehouse(t)
	before := treeDigest(t, wh)
	f := writeScript(t, fmt.Sprintf(`CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%[1]s');
CREATE TABLE byPath (id BIGINT, v STRING) WITH ('connector' = 'paimon', 'path' = '%[1]s/made_by_explain', 'auto-create' = 'true');
EXPLAIN INSERT INTO byPath SELECT * FROM p.`+"`default`"+`.t;
EXPLAIN CHANGELOG_MODE, JSON_EXECUTION_PLAN INSERT INTO p.`+"`default`"+`.t SELECT * FROM byPath;
EXPLAIN SELECT * FROM p.`+"`default`"+`.t$audit_log;
`, wh))
	code, out, errOut := runCLI(t, "-f", f)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if after := treeDigest(t, wh); after != before {
		t.Fatalf("EXPLAIN changed the warehouse:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
