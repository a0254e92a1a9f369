package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The seed 000 order-1001 story through `sqlrun -f`, per changelog
// producer: S1 holds 1001 at 80.00; a streaming job with latest-full and a
// consumer-id prints +I[1001, 80.00, CREATED]; then the update 80 → 100
// arrives from a debezium-json file (as d+c, i.e. -D/+I, or as u, i.e.
// -U/+U) through a second sqlrun process into the Paimon table, and the
// print sink shows the producer's changelog.
//
// These tests need Paimon tables usable from SQL (needPaimon probes for it
// and skips naming the missing piece).

const (
	dbzC80  = `{"before":null,"after":{"id":1001,"amount":80.00,"status":"CREATED"},"op":"c"}`
	dbzD80  = `{"before":{"id":1001,"amount":80.00,"status":"CREATED"},"after":null,"op":"d"}`
	dbzC90  = `{"before":null,"after":{"id":1001,"amount":90.00,"status":"CREATED"},"op":"c"}`
	dbzD90  = `{"before":{"id":1001,"amount":90.00,"status":"CREATED"},"after":null,"op":"d"}`
	dbzC100 = `{"before":null,"after":{"id":1001,"amount":100.00,"status":"CREATED"},"op":"c"}`
	dbzU    = `{"before":{"id":1001,"amount":80.00,"status":"CREATED"},"after":{"id":1001,"amount":100.00,"status":"CREATED"},"op":"u"}`
)

// paimonTables declares, in the default catalog, the print sink and
// `orders` as a 'connector'='paimon' table at its warehouse path (created
// by paimonCreate through the Paimon catalog; Paimon's connector does not
// create tables by itself).
const paimonTables = `
CREATE TABLE print_orders (id BIGINT, amount DECIMAL(10, 2), status STRING)
  WITH ('connector' = 'print');
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE orders WITH ('connector' = 'paimon', 'path' = '$DIR/wh/default.db/orders')
  LIKE p.` + "`default`" + `.orders;
`

// dynamicBucket prefixes table options to create orders without a
// 'bucket' option, as the seed's DDL does: Paimon's default, dynamic
// bucket mode (bucket = -1).
const dynamicBucket = "<dynamic bucket>"

// paimonCreate creates the seed's orders table in the warehouse, with
// 'bucket' = '1' unless opts starts with dynamicBucket.
func paimonCreate(opts string) string {
	bucket := "'bucket' = '1', "
	if rest, ok := strings.CutPrefix(opts, dynamicBucket); ok {
		bucket, opts = "", rest
	}
	return `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE p.` + "`default`" + `.orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH (` + bucket + `'consumer.expiration-time' = '1 d'` + opts + `);
`
}

var printed = regexp.MustCompile(`(?m)^(?:\d+> )?([+-][IUD]\[.*\])$`)

// changelogOf returns the print sink's lines in order.
func changelogOf(out string) []string {
	var l []string
	for _, m := range printed.FindAllStringSubmatch(out, -1) {
		l = append(l, m[1])
	}
	return l
}

// paimonStory creates orders with the producer's options, writes 1001 at
// 80.00, starts the streaming print job, applies each update file in its
// own commit, and returns what the print sink showed once want lines are
// there (or fails after a timeout).
func paimonStory(t *testing.T, tableOpts string, updates [][]string, want []string) []string {
	t.Helper()
	needPaimon(t)
	return newEnv(t).paimonStory(tableOpts, updates, want)
}

func (e *env) paimonStory(tableOpts string, updates [][]string, want []string) []string {
	t := e.T
	t.Helper()
	e.paimonSetup(tableOpts, "(1001, 80.00, 'CREATED')")
	job := e.Write("job.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+paimonTables+`
INSERT INTO print_orders SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'print-v1',
                        'continuous.discovery-interval' = '100ms') */;
`)
	p := e.start("-f", job)
	p.waitLine("+I[1001, 80.00, CREATED]", 30*time.Second)
	for _, lines := range updates {
		e.paimonApply(lines)
	}
	p.waitFor(fmt.Sprintf("changelog %v", want), 30*time.Second, func() bool {
		return len(changelogOf(p.output())) >= len(want)
	})
	time.Sleep(500 * time.Millisecond) // nothing more must come
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	got := changelogOf(p.output())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("printed changelog:\n%s\nwant (seed 000):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return got
}

const (
	i80   = "+I[1001, 80.00, CREATED]"
	d80   = "-D[1001, 80.00, CREATED]"
	i100  = "+I[1001, 100.00, CREATED]"
	ub80  = "-U[1001, 80.00, CREATED]"
	ua80  = "+U[1001, 80.00, CREATED]"
	ub90  = "-U[1001, 90.00, CREATED]"
	ua90  = "+U[1001, 90.00, CREATED]"
	ua00  = "+U[1001, 100.00, CREATED]"
	d90   = "-D[1001, 90.00, CREATED]"
	i1004 = "+I[1004, 5.00, CREATED]"
	i90   = "+I[1001, 90.00, CREATED]"
)

// TestPaimonProducers is seed 000 §六 table, one row per producer and
// update shape.
func TestPaimonProducers(t *testing.T) {
	dc := [][]string{{dbzD80, dbzC100}}
	u := [][]string{{dbzU}}
	same := [][]string{{`{"before":{"id":1001,"amount":80.00,"status":"CREATED"},"after":{"id":1001,"amount":80.00,"status":"CREATED"},"op":"u"}`},
		{`{"before":null,"after":{"id":1004,"amount":5.00,"status":"CREATED"},"op":"c"}`}}
	delIns := [][]string{{"SQL:DELETE FROM orders WHERE id = 1001"}, {"SQL:INSERT INTO orders VALUES (1001, 100.00, 'CREATED')"}}
	for _, c := range []struct {
		name, opts string
		updates    [][]string
		want       []string
	}{
		// input keeps what came in, verbatim.
		{"input/-D+I", ", 'changelog-producer' = 'input'", dc, []string{i80, d80, i100}},
		{"input/-U+U", ", 'changelog-producer' = 'input'", u, []string{i80, ub80, ua00}},
		// none: the delta holds only the new value; ChangelogNormalize
		// (the print sink needs UPDATE_BEFORE) restores -U[80]/+U[100].
		{"none/-D+I", ", 'changelog-producer' = 'none'", dc, []string{i80, ub80, ua00}},
		{"none/-U+U", ", 'changelog-producer' = 'none'", u, []string{i80, ub80, ua00}},
		// lookup finds the old value: a logical update.
		{"lookup/-D+I", ", 'changelog-producer' = 'lookup'", dc, []string{i80, ub80, ua00}},
		{"lookup/-U+U", ", 'changelog-producer' = 'lookup'", u, []string{i80, ub80, ua00}},
		// full-compaction: after the next full compaction (every commit here).
		{"full-compaction/-D+I", ", 'changelog-producer' = 'full-compaction', 'full-compaction.delta-commits' = '1'", dc, []string{i80, ub80, ua00}},
		// 80 → 90 → 100 in one commit: input keeps all, none only the last.
		{"input/80-90-100", ", 'changelog-producer' = 'input'", [][]string{{dbzD80, dbzC90, dbzD90, dbzC100}}, []string{i80, d80, i90, d90, i100}},
		{"none/80-90-100", ", 'changelog-producer' = 'none'", [][]string{{dbzD80, dbzC90, dbzD90, dbzC100}}, []string{i80, ub80, ua00}},
		// full-compaction compares the top level before and after a full
		// compaction, so 90 is netted out (every commit compacts fully here;
		// a streaming writer with delta-commits > 1 is not covered yet).
		{"full-compaction/80-90-100", ", 'changelog-producer' = 'full-compaction', 'full-compaction.delta-commits' = '1'",
			[][]string{{dbzD80, dbzC90, dbzD90, dbzC100}}, []string{i80, ub80, ua00}},
		// lookup also compares before and after its compaction.
		{"lookup/80-90-100", ", 'changelog-producer' = 'lookup'", [][]string{{dbzD80, dbzC90, dbzD90, dbzC100}}, []string{i80, ub80, ua00}},
		// Two commits: lookup publishes each, -U80/+U90 then -U90/+U100.
		{"lookup/two-commits", ", 'changelog-producer' = 'lookup'", [][]string{{dbzD80, dbzC90}, {dbzD90, dbzC100}}, []string{i80, ub80, ua90, ub90, ua00}},
		// The seed's DELETE then INSERT as two statements (two commits):
		// every producer shows the delete, then the new row.
		{"input/DELETE-then-INSERT", ", 'changelog-producer' = 'input'", delIns, []string{i80, d80, i100}},
		{"none/DELETE-then-INSERT", ", 'changelog-producer' = 'none'", delIns, []string{i80, d80, i100}},
		{"lookup/DELETE-then-INSERT", ", 'changelog-producer' = 'lookup'", delIns, []string{i80, d80, i100}},
		// An unchanged rewrite of 1001 (80 → 80), then a new key as a
		// sentinel: -U/+U without row-deduplicate, nothing with it.
		{"lookup/unchanged", ", 'changelog-producer' = 'lookup'", same, []string{i80, ub80, ua80, i1004}},
		{"lookup/unchanged-dedup", ", 'changelog-producer' = 'lookup', 'changelog-producer.row-deduplicate' = 'true'", same, []string{i80, i1004}},
		{"full-compaction/unchanged-dedup", ", 'changelog-producer' = 'full-compaction', 'full-compaction.delta-commits' = '1', 'changelog-producer.row-deduplicate' = 'true'", same, []string{i80, i1004}},
		// A delete prints -D with the old row.
		{"lookup/delete", ", 'changelog-producer' = 'lookup'", [][]string{{dbzD80}}, []string{i80, d80}},
		{"input/delete", ", 'changelog-producer' = 'input'", [][]string{{dbzD80}}, []string{i80, d80}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // mostly waiting on discovery and checkpoints
			paimonStory(t, c.opts, c.updates, c.want)
		})
	}
}

// TestPaimonProducersDynamicBucket is the same walk on the table the
// seed's DDL creates (no 'bucket' option): Paimon 1.x's dynamic bucket
// mode (CoreOptions.BUCKET defaults to -1), whose writes route keys with
// the hash index (HashBucketAssigner) and commit HASH index files with the
// data. The printed changelog is the fixed-bucket one, and the table is
// what Paimon writes: no 'bucket' in schema-0, every snapshot's index
// manifest naming one HASH file of bucket 0, _TOTAL_BUCKETS -1.
//
// The dv/ cases add 'deletion-vectors.enabled' (issue 15: every producer
// Paimon allows with deletion vectors, SchemaValidation refusing
// full-compaction): each commit's lookup compaction moves level 0 up (with
// files this small, ForceUpLevel0Compaction's size ratio takes in the
// older file too, so the bucket is rewritten rather than marked; the
// deletion vectors themselves are shown by connectors/paimon/table's and
// compat's tests), and the printed changelog is still the fixed-bucket
// one.
func TestPaimonProducersDynamicBucket(t *testing.T) {
	dc := [][]string{{dbzD80, dbzC100}}
	const dv = ", 'deletion-vectors.enabled' = 'true'"
	for _, c := range []struct {
		name, opts string
		updates    [][]string
		want       []string
	}{
		{"input/-D+I", ", 'changelog-producer' = 'input'", dc, []string{i80, d80, i100}},
		{"none/-D+I", ", 'changelog-producer' = 'none'", dc, []string{i80, ub80, ua00}},
		{"lookup/-D+I", ", 'changelog-producer' = 'lookup'", dc, []string{i80, ub80, ua00}},
		{"lookup/two-commits", ", 'changelog-producer' = 'lookup'", [][]string{{dbzD80, dbzC90}, {dbzD90, dbzC100}}, []string{i80, ub80, ua90, ub90, ua00}},
		{"full-compaction/-D+I", ", 'changelog-producer' = 'full-compaction', 'full-compaction.delta-commits' = '1'", dc, []string{i80, ub80, ua00}},
		{"dv/input/-D+I", ", 'changelog-producer' = 'input'" + dv, dc, []string{i80, d80, i100}},
		{"dv/none/-D+I", ", 'changelog-producer' = 'none'" + dv, dc, []string{i80, ub80, ua00}},
		{"dv/lookup/-D+I", ", 'changelog-producer' = 'lookup'" + dv, dc, []string{i80, ub80, ua00}},
		{"dv/lookup/two-commits", ", 'changelog-producer' = 'lookup'" + dv, [][]string{{dbzD80, dbzC90}, {dbzD90, dbzC100}}, []string{i80, ub80, ua90, ub90, ua00}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			needPaimon(t)
			e := newEnv(t)
			e.paimonStory(dynamicBucket+c.opts, c.updates, c.want)
			root := filepath.Join(e.Dir, "wh", "default.db", "orders")
			schema0, err := os.ReadFile(filepath.Join(root, "schema", "schema-0"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(schema0), `"bucket"`) {
				t.Errorf("schema-0 stores a bucket:\n%s", schema0)
			}
			snaps, err := filepath.Glob(filepath.Join(root, "snapshot", "snapshot-*"))
			if err != nil || len(snaps) < 2 {
				t.Fatalf("snapshots %v %v", snaps, err)
			}
			for _, f := range snaps {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if !regexp.MustCompile(`"indexManifest" : "index-manifest-`).Match(b) {
					t.Errorf("%s has no index manifest:\n%s", filepath.Base(f), b)
				}
			}
			idx, err := os.ReadDir(filepath.Join(root, "index"))
			if err != nil || len(idx) == 0 {
				t.Errorf("no hash index files: %v", err)
			}
			hashes, vectors := 0, 0
			for _, f := range idx {
				st, err := f.Info()
				switch {
				case err != nil || !strings.HasPrefix(f.Name(), "index-"):
					t.Errorf("index file %s: %v", f.Name(), err)
				case st.Size() == 4: // one key's hash
					hashes++
				default:
					// A DELETION_VECTORS file: version byte 1, then the
					// vector (DeletionVectorsIndexFile).
					b, err := os.ReadFile(filepath.Join(root, "index", f.Name()))
					if err != nil || len(b) < 13 || b[0] != 1 {
						t.Errorf("index file %s of %d bytes is neither a one-key HASH file nor a deletion vector file: %v", f.Name(), len(b), err)
					}
					vectors++
				}
			}
			if hashes == 0 || (vectors > 0 && !strings.Contains(c.opts, dv)) {
				t.Errorf("%d HASH index files, %d deletion vector files (deletion vectors on: %v)", hashes, vectors, strings.Contains(c.opts, dv))
			}
		})
	}
}

// paimonApply writes debezium-json lines into orders through a second
// sqlrun process (one bounded job, one commit).
func (e *env) paimonApply(lines []string) {
	e.T.Helper()
	e.seq++
	i := e.seq
	if len(lines) == 1 && strings.HasPrefix(lines[0], "SQL:") {
		// A batch statement on orders (the seed's DELETE, then INSERT).
		r := e.runScript(fmt.Sprintf("upd%d.sql", i), "SET 'table.dml-sync' = 'true';\n"+paimonTables+
			"SET 'execution.runtime-mode' = 'batch';\n"+strings.TrimPrefix(lines[0], "SQL:")+";\n", time.Minute)
		if r.code != 0 {
			e.T.Fatalf("update %d: exit %d\n%s", i, r.code, r.all())
		}
		return
	}
	e.Write(fmt.Sprintf("upd%d/changes.json", i), strings.Join(lines, "\n")+"\n")
	// The source declares the key: without it the planner puts Flink's
	// SinkUpsertMaterializer before the Paimon sink, whose empty state (a
	// new job) drops the -D/-U of a row written by an earlier job and turns
	// the +U into +I — correct Flink, not the seed's story.
	r := e.runScript(fmt.Sprintf("upd%d.sql", i), "SET 'table.dml-sync' = 'true';\n"+paimonTables+fmt.Sprintf(`
CREATE TABLE changes (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$DIR/upd%d', 'format' = 'debezium-json');
INSERT INTO orders SELECT * FROM changes;
`, i), time.Minute)
	if r.code != 0 {
		e.T.Fatalf("update %d: exit %d\n%s", i, r.code, r.all())
	}
}

// paimonSetup creates orders with the producer's options and writes rows.
func (e *env) paimonSetup(opts, values string) {
	e.T.Helper()
	if r := e.runScript("create.sql", paimonCreate(opts), time.Minute); r.code != 0 {
		e.T.Fatalf("create: exit %d\n%s", r.code, r.all())
	}
	if r := e.runScript("setup.sql", "SET 'table.dml-sync' = 'true';\n"+paimonTables+"INSERT INTO orders VALUES "+values+";\n", time.Minute); r.code != 0 {
		e.T.Fatalf("setup: exit %d\n%s", r.code, r.all())
	}
}

// TestPaimonConsumerIDResume: issue 6's consumer-id story. A print job
// with consumer-id is stopped (SIGTERM: final checkpoint, consumer file
// written); the table changes while it is down; a new job — no --resume,
// no state — with the same consumer-id continues at the consumer's
// nextSnapshot: the change arrives, the 80.00 baseline is not replayed.
func TestPaimonConsumerIDResume(t *testing.T) {
	needPaimon(t)
	e := newEnv(t)
	e.paimonSetup(", 'changelog-producer' = 'input'", "(1001, 80.00, 'CREATED')")
	job := e.Write("job.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+paimonTables+`
INSERT INTO print_orders SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'print-v1',
                        'continuous.discovery-interval' = '100ms') */;
`)
	p := e.start("-f", job)
	p.waitLine(i80, 30*time.Second)
	time.Sleep(500 * time.Millisecond) // let a checkpoint complete after the row
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, p.output())
	}
	e.paimonApply([]string{dbzD80, dbzC100})

	q := e.start("-f", job) // a fresh job: only the consumer remembers
	want := []string{d80, i100}
	q.waitFor(fmt.Sprintf("changelog %v", want), 30*time.Second, func() bool { return len(changelogOf(q.output())) >= len(want) })
	time.Sleep(500 * time.Millisecond)
	q.signal(syscall.SIGTERM)
	if code := q.wait(30 * time.Second); code != 0 {
		t.Errorf("second SIGTERM: exit %d", code)
	}
	if got := changelogOf(q.output()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("restarted consumer printed:\n%s\nwant (no gap, no replay):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPaimonCatalogStory is the seed's story the way the seed writes it:
// tables of a Paimon catalog used by name (USE CATALOG), the print sink and
// the CDC file in the default catalog; producer lookup turns the -D/+I of
// one commit into -U[80]/+U[100].
func TestPaimonCatalogStory(t *testing.T) {
	needPaimonCatalog(t)
	e := newEnv(t)
	e.Write("upd/changes.json", dbzD80+"\n"+dbzC100+"\n")
	head := `
CREATE TABLE print_orders (id BIGINT, amount DECIMAL(10, 2), status STRING) WITH ('connector' = 'print');
CREATE TABLE changes (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$DIR/upd', 'format' = 'debezium-json');
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
USE CATALOG p;
`
	if r := e.runScript("setup.sql", "SET 'table.dml-sync' = 'true';\n"+head+`
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'lookup', 'consumer.expiration-time' = '1 d');
INSERT INTO orders VALUES (1001, 80.00, 'CREATED');
`, time.Minute); r.code != 0 {
		t.Fatalf("setup: exit %d\n%s", r.code, r.all())
	}
	p := e.start("-f", e.Write("job.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+head+`
INSERT INTO default_catalog.default_database.print_orders SELECT id, amount, status
FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'print-v1', 'continuous.discovery-interval' = '100ms') */;
`))
	p.waitLine(i80, 30*time.Second)
	if r := e.runScript("upd.sql", "SET 'table.dml-sync' = 'true';\n"+head+`
INSERT INTO orders SELECT * FROM default_catalog.default_database.changes;
`, time.Minute); r.code != 0 {
		t.Fatalf("update: exit %d\n%s", r.code, r.all())
	}
	want := []string{i80, ub80, ua00}
	p.waitFor(fmt.Sprintf("changelog %v", want), 30*time.Second, func() bool { return len(changelogOf(p.output())) >= len(want) })
	time.Sleep(300 * time.Millisecond)
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d", code)
	}
	if got := changelogOf(p.output()); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("printed %v, want %v", got, want)
	}
}

// TestPaimonAuditLogKeepsRetractions: Paimon's t$audit_log turns each
// row's RowKind into the leading rowkind column (its read keeps deletes),
// so a batch read of the changelog between two snapshots shows the -D rows
// the seed's troubleshooting looks for: for producer input, order 1001's
// whole life.
func TestPaimonAuditLogKeepsRetractions(t *testing.T) {
	needPaimonCatalog(t)
	e := newEnv(t)
	e.Write("upd1/c.json", dbzD80+"\n"+dbzC100+"\n")
	e.Write("upd2/c.json", `{"before":{"id":1001,"amount":100.00,"status":"CREATED"},"after":null,"op":"d"}`+"\n")
	r := e.runScript("story.sql", `
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.dml-sync' = 'true';
CREATE TABLE upd1 (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$DIR/upd1', 'format' = 'debezium-json');
CREATE TABLE upd2 (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$DIR/upd2', 'format' = 'debezium-json');
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
USE CATALOG p;
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'input');
INSERT INTO orders VALUES (1001, 80.00, 'CREATED');
INSERT INTO orders SELECT * FROM default_catalog.default_database.upd1;
INSERT INTO orders SELECT * FROM default_catalog.default_database.upd2;
SET 'execution.runtime-mode' = 'batch';
SELECT rowkind, amount FROM orders$audit_log
  /*+ OPTIONS('incremental-between' = '0,3', 'incremental-between-scan-mode' = 'changelog') */;
`, time.Minute)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	var got []string
	for _, l := range strings.Split(r.stdout[strings.LastIndex(r.stdout, "audit_log"):], "\n") {
		f := strings.Fields(strings.Trim(l, "| "))
		if len(f) == 3 && (f[0] == "+I" || f[0] == "-D" || f[0] == "-U" || f[0] == "+U") {
			got = append(got, f[0]+f[2])
		}
	}
	want := []string{"+I80.00", "-D80.00", "+I100.00", "-D100.00"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("orders$audit_log changelog between snapshots 0 and 3: %v, want %v (Paimon's audit_log keeps deletes)\n%s", got, want, r.stdout)
	}
}
