package compile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"

	_ "github.com/sqlrun/sqlrun/connectors/paimon"
)

// TestPaimonRoundTrip writes order 1001's story into a Paimon primary-key
// table through the planned Paimon sink and reads the merged table back
// through the planned Paimon source, both in batch mode.
func TestPaimonRoundTrip(t *testing.T) {
	dir := t.TempDir()
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "status", Type: sql.String()}}, PrimaryKey: []string{"id"}}
	if _, err := table.Create(fs.NewLocal(), dir, schema, nil, map[string]string{"bucket": "1"}, "", 0); err != nil {
		t.Fatal(err)
	}
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
	if err := e.cat.CreateTable(catalog.DefaultDatabase, "orders",
		&catalog.Table{Schema: schema, Options: map[string]string{"connector": "paimon", "path": dir}}, false); err != nil {
		t.Fatal(err)
	}
	e.ddl(t, `CREATE TABLE changes (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[["+I",1001,"80.00","CREATED"],["+I",1002,"15.00","CREATED"]]')`)
	e.ddl(t, `SET 'execution.runtime-mode' = 'batch'`)
	if out, err := e.run("INSERT INTO orders SELECT id, amount, status FROM changes", false); err != nil {
		t.Fatalf("insert: %v\n%s", err, out)
	}
	e.ddl(t, `CREATE TABLE changes2 (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[["+I",1001,"100.00","PAID"]]')`)
	if out, err := e.run("INSERT INTO orders SELECT * FROM changes2", false); err != nil {
		t.Fatalf("insert: %v\n%s", err, out)
	}
	out, err := e.run("SELECT id, amount, status FROM orders", true)
	if err != nil {
		t.Fatal(err)
	}
	want := "+I[1001, 100.00, PAID]\n+I[1002, 15.00, CREATED]\n"
	if len(out) < len(want) || out[len(out)-len(want):] != want {
		t.Fatalf("read back:\n%s\nwant rows:\n%s", out, want)
	}
}

// TestPaimonStreamingUpsert runs the seed's story as a streaming job: an
// upsert changelog (+I, +U, -D) normalized and written into Paimon, then
// read back in batch mode: order 1001 is gone, 1002 remains.
func TestPaimonStreamingUpsert(t *testing.T) {
	dir := t.TempDir()
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "status", Type: sql.String()}}, PrimaryKey: []string{"id"}}
	if _, err := table.Create(fs.NewLocal(), dir, schema, nil, map[string]string{"bucket": "2"}, "", 0); err != nil {
		t.Fatal(err)
	}
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
	if err := e.cat.CreateTable(catalog.DefaultDatabase, "orders",
		&catalog.Table{Schema: schema, Options: map[string]string{"connector": "paimon", "path": dir}}, false); err != nil {
		t.Fatal(err)
	}
	e.ddl(t, `CREATE TABLE changes (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'bounded' = 'true', 'changelog-mode' = 'I,UA,D', 'rows' = '[["+I",1001,"80.00","CREATED"],["+I",1002,"15.00","CREATED"],["+U",1001,"100.00","PAID"],["-D",1001,"100.00","PAID"]]')`)
	out, err := e.run("INSERT INTO orders SELECT id, amount, status FROM changes", false)
	if err != nil {
		t.Fatalf("insert: %v\n%s", err, out)
	}
	e.ddl(t, `SET 'execution.runtime-mode' = 'batch'`)
	out, err = e.run("SELECT id, amount, status FROM orders", true)
	if err != nil {
		t.Fatal(err)
	}
	want := "forward\n+I[1002, 15.00, CREATED]\n"
	if len(out) < len(want) || out[len(out)-len(want):] != want {
		t.Fatalf("read back:\n%s\nwant the tail:\n%s", out, want)
	}
}

// TestPaimonOverwritePartition replaces one static partition in batch
// mode and leaves the other alone.
func TestPaimonOverwritePartition(t *testing.T) {
	dir := t.TempDir()
	schema := sql.Schema{Columns: []sql.Column{{Name: "dt", Type: sql.String().NotNull()}, {Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "amount", Type: sql.Decimal(10, 2)}}, PrimaryKey: []string{"dt", "id"}}
	if _, err := table.Create(fs.NewLocal(), dir, schema, []string{"dt"}, map[string]string{"bucket": "1"}, "", 0); err != nil {
		t.Fatal(err)
	}
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
	if err := e.cat.CreateTable(catalog.DefaultDatabase, "daily",
		&catalog.Table{Schema: schema, PartitionKeys: []string{"dt"}, Options: map[string]string{"connector": "paimon", "path": dir}}, false); err != nil {
		t.Fatal(err)
	}
	e.ddl(t, `CREATE TABLE src (dt STRING, id BIGINT, amount DECIMAL(10, 2)) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[["+I","d1",1,"1.00"],["+I","d2",2,"2.00"]]')`)
	e.ddl(t, `CREATE TABLE fix (id BIGINT, amount DECIMAL(10, 2)) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[["+I",3,"3.00"]]')`)
	e.ddl(t, `SET 'execution.runtime-mode' = 'batch'`)
	for _, stmt := range []string{
		"INSERT INTO daily SELECT * FROM src",
		"INSERT OVERWRITE daily PARTITION (dt = 'd1') SELECT id, amount FROM fix",
	} {
		if out, err := e.run(stmt, false); err != nil || strings.Contains(out, "error:") {
			t.Fatalf("%s: %v\n%s", stmt, err, out)
		}
	}
	out, err := e.run("SELECT dt, id, amount FROM daily", true)
	if err != nil {
		t.Fatal(err)
	}
	want := "+I[d1, 3, 3.00]\n+I[d2, 2, 2.00]\n"
	if !strings.HasSuffix(out, want) {
		t.Fatalf("read back:\n%s\nwant the tail:\n%s", out, want)
	}
}

// TestPaimonRefusesMaterializer: a query whose upsert key differs from the
// Paimon table's key would get a SinkUpsertMaterializer, which Paimon's
// sink refuses (its merge engine reconciles changes itself).
func TestPaimonRefusesMaterializer(t *testing.T) {
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "n", Type: sql.BigInt()}}, PrimaryKey: []string{"id"}}
	if err := e.cat.CreateTable(catalog.DefaultDatabase, "pt",
		&catalog.Table{Schema: schema, Options: map[string]string{"connector": "paimon", "path": t.TempDir()}}, false); err != nil {
		t.Fatal(err)
	}
	e.ddl(t, `CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'values', 'bounded' = 'true')`)
	_, err := e.run("INSERT INTO pt SELECT MAX(v), COUNT(*) FROM src GROUP BY k", false)
	if err == nil || !strings.HasPrefix(err.Error(), "Sink materializer must not be used with Paimon sink.") {
		t.Fatalf("got %v", err)
	}
}

// TestPaimonSinkParallelism writes 200 keys into a 4-bucket table with
// 'sink.parallelism' = '2' in batch and streaming mode: the plan routes rows by
// bucket (BucketChannel, chained to the one-task values source → a channel
// edge on the channel column → 2 writers), every
// bucket is written by exactly one writer (one level-0 file per bucket
// after one commit), and the committer commits every writer's files in
// one snapshot.
func TestPaimonSinkParallelism(t *testing.T) {
	for _, mode := range []string{"batch", "streaming"} {
		t.Run(mode, func(t *testing.T) { testPaimonSinkParallelism(t, mode) })
	}
}

func testPaimonSinkParallelism(t *testing.T, mode string) {
	dir := t.TempDir()
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.BigInt()}},
		PrimaryKey: []string{"id"}}
	if _, err := table.Create(fs.NewLocal(), dir, schema, nil, map[string]string{"bucket": "4"}, "", 0); err != nil {
		t.Fatal(err)
	}
	e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{"parallelism.default": "3"}}
	if err := e.cat.CreateTable(catalog.DefaultDatabase, "pt",
		&catalog.Table{Schema: schema, Options: map[string]string{"connector": "paimon", "path": dir, "sink.parallelism": "2"}}, false); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for i := 0; i < 200; i++ {
		rows = append(rows, fmt.Sprintf(`["+I",%d,%d]`, i, i*10))
	}
	e.ddl(t, `CREATE TABLE src (id BIGINT, v BIGINT) WITH ('connector' = 'values', 'bounded' = 'true', 'rows' = '[`+strings.Join(rows, ",")+`]')`)
	e.ddl(t, `SET 'execution.runtime-mode' = '`+mode+`'`)
	out, err := e.run("INSERT INTO pt SELECT id, v FROM src", false)
	if err != nil {
		t.Fatalf("insert: %v\n%s", err, out)
	}
	for _, want := range []string{`"BucketChannel" p=1`, `"Sink: default_catalog.default_database.pt" p=2`, "channel[2]"} {
		if !strings.Contains(out, want) {
			t.Fatalf("graph lacks %q:\n%s", want, out)
		}
	}
	tb, err := table.Open(fs.NewLocal(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := tb.Snapshots.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != 1 {
		t.Fatalf("want one snapshot for one batch commit, latest is %d", latest.ID)
	}
	splits, err := tb.PlanFull(latest, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for _, sp := range splits {
		seen[sp.Bucket] += len(sp.Files)
	}
	for b := 0; b < 4; b++ {
		if seen[b] != 1 {
			t.Fatalf("bucket %d has %d files, want exactly 1 (one writer per bucket): %v", b, seen[b], seen)
		}
	}
	e.ddl(t, `SET 'execution.runtime-mode' = 'batch'`)
	got, err := e.run("SELECT COUNT(*), SUM(v) FROM pt", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "+I[200, 199000]\n") {
		t.Fatalf("read back:\n%s", got)
	}
}
