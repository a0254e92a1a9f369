package values

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

var schema = sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.Int()}, {Name: "amount", Type: sql.Decimal(10, 2)},
	{Name: "status", Type: sql.String()}}, PrimaryKey: []string{"id"}}

func read(t *testing.T, opts map[string]string) ([]string, connectors.TableSource) {
	t.Helper()
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := src.NewReader(0, 1)
	_ = r.Open(context.Background(), nil)
	var out []string
	for {
		rows, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rows == nil {
			break // unbounded and idle
		}
		for _, row := range rows {
			out = append(out, sql.FormatRow(row, schema.Types()))
		}
	}
	return out, src
}

func TestRowsJSONAndCSV(t *testing.T) {
	want := "+I[1001, 80.00, CREATED] -U[1001, 80.00, CREATED] +U[1001, 100.00, CREATED] -D[1001, 100.00, null]"
	got, src := read(t, map[string]string{"changelog-mode": "I,UB,UA,D", "bounded": "true",
		"rows": `[["+I", 1001, "80.00", "CREATED"], ["-U", 1001, 80, "CREATED"], ["+U", 1001, 100, "CREATED"], ["-D", 1001, 100, null]]`})
	if strings.Join(got, " ") != want {
		t.Fatalf("json rows: %v", got)
	}
	if src.ChangelogMode() != sql.All || !src.Bounded() {
		t.Fatalf("mode %s bounded %v", src.ChangelogMode(), src.Bounded())
	}
	got, src = read(t, map[string]string{"changelog-mode": "I,UB,UA,D",
		"rows": "+I,1001,80.00,CREATED\n-U,1001,80,CREATED\n+U,1001,100,CREATED\n-D,1001,100,null"})
	if strings.Join(got, " ") != want || src.Bounded() {
		t.Fatalf("csv rows: %v", got)
	}
}

func TestRowsRejected(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"rows": `[["-D", 1, 1, "x"]]`}, "has a -D row but its changelog-mode is [I]"},
		{map[string]string{"rows": `[["+I", 1, 1]]`}, "row 1 has 2 values, the table has 3 columns"},
		{map[string]string{"rows": `[["+X", 1, 1, "x"]]`}, `unknown row kind "+X"`},
		{map[string]string{"data-id": "x", "bogus": "1"}, "Unsupported options found for 'values'."},
	} {
		_, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.opts, err, c.want)
		}
	}
}

func TestSinkModesAndResults(t *testing.T) {
	ClearResults()
	id := connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: "t"}
	mk := func(opts map[string]string) connectors.TableSink {
		s, err := Factory{}.CreateSink(&connectors.Context{Table: id, Schema: schema, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if m, _ := mk(nil).ChangelogMode(sql.All); m != sql.InsertOnly {
		t.Fatalf("default %s", m)
	}
	if m, _ := mk(map[string]string{"sink-insert-only": "false"}).ChangelogMode(sql.All); m != sql.Upsert {
		t.Fatalf("with a primary key %s", m)
	}
	if m, _ := mk(map[string]string{"sink-changelog-mode-enforced": "I,D"}).ChangelogMode(sql.All); m.String() != "I,D" {
		t.Fatalf("enforced %s", m)
	}
	w, _ := mk(nil).NewWriter(0, 1)
	_ = w.Write(context.Background(), []sql.Row{sql.NewRow(int32(1), nil, "a")})
	if got := Results(id.String(), schema.Types()); len(got) != 1 || got[0] != "+I[1, null, a]" {
		t.Fatalf("results %v", got)
	}
}

// TestReadableMetadata: 'readable-metadata' declares keys sorted
// alphabetically (TestValuesTableFactory.convertToMetadataMap); each row
// carries their values after the physical columns, and the scan produces
// the physical columns and then the applied keys' values, projected.
func TestReadableMetadata(t *testing.T) {
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: map[string]string{
		"bounded": "true", "readable-metadata": "zone:STRING, originTime:BIGINT NOT NULL",
		"rows": `[["+I", 1, "1.00", "A", 1700000000000, "eu"], ["+I", 2, null, "B", 1700000001000, null]]`}})
	if err != nil {
		t.Fatal(err)
	}
	ms := src.(connectors.MetadataSource)
	var keys []string
	for _, k := range ms.ReadableMetadata() {
		keys = append(keys, k.Key+" "+k.Type.String())
	}
	if got := strings.Join(keys, ", "); got != "originTime BIGINT NOT NULL, zone STRING" {
		t.Fatalf("readable metadata %q", got)
	}
	// LogicalTypeParser's defaults: VARCHAR is VARCHAR(1), STRING stays.
	v, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: map[string]string{
		"readable-metadata": "a:VARCHAR, b:VARCHAR(3), c:VARBINARY NOT NULL, d:STRING"}})
	if err != nil {
		t.Fatal(err)
	}
	keys = nil
	for _, k := range v.(connectors.MetadataSource).ReadableMetadata() {
		keys = append(keys, k.Key+" "+k.Type.String())
	}
	if got := strings.Join(keys, ", "); got != "a VARCHAR(1), b VARCHAR(3), c VARBINARY(1) NOT NULL, d STRING" {
		t.Fatalf("readable metadata %q", got)
	}
	if got := ms.SourceClass(); got != "org.apache.flink.table.planner.factories.TestValuesTableFactory$TestValuesScanLookupTableSource" {
		t.Fatalf("source class %q", got)
	}
	scan := func(types ...sql.DataType) []string {
		r, _ := src.NewReader(0, 1)
		_ = r.Open(context.Background(), nil)
		rows, _ := r.Next(context.Background())
		var out []string
		for _, row := range rows {
			out = append(out, sql.FormatRow(row, types))
		}
		return out
	}
	types := schema.Types()
	if got := strings.Join(scan(types...), " "); got != "+I[1, 1.00, A] +I[2, null, B]" {
		t.Fatalf("no metadata applied: %s", got)
	}
	ms.ApplyReadableMetadata([]string{"zone"})
	if got := strings.Join(scan(append(types, sql.String())...), " "); got != "+I[1, 1.00, A, eu] +I[2, null, B, null]" {
		t.Fatalf("zone applied: %s", got)
	}
	// Both keys in the readable order, then a projection whose indexes
	// count the metadata fields after the physical ones.
	ms.ApplyReadableMetadata([]string{"originTime", "zone"})
	src.(connectors.SupportsProjectionPushDown).ApplyProjection([]int{4, 0, 3})
	if got := strings.Join(scan(sql.String(), sql.Int(), sql.BigInt()), " "); got != "+I[eu, 1, 1700000000000] +I[null, 2, 1700000001000]" {
		t.Fatalf("projected: %s", got)
	}
}

func TestReadableMetadataRejected(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"readable-metadata": "m:BIGINT", "rows": `[["+I", 1, 1, "x"]]`},
			"row 1 has 3 values, the table has 3 columns and 1 readable metadata keys (plus the kind)"},
		{map[string]string{"readable-metadata": "m:BIGINT", "rows": "+I,1,1,x"},
			"line 1 has 3 values, the table has 3 columns and 1 readable metadata keys (plus the kind)"},
		{map[string]string{"readable-metadata": "m:BIGINT", "rows": `[["+I", 1, 1, "x", "y"]]`},
			"row 1, column metadata key m:"},
		{map[string]string{"readable-metadata": "m"}, "Could not parse value 'm' for key 'readable-metadata'."},
		{map[string]string{"readable-metadata": "m:NUMBERS"}, "Invalid type 'NUMBERS' of metadata key 'm' in 'readable-metadata'"},
	} {
		_, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.opts, err, c.want)
		}
	}
	for opts, want := range map[string]string{
		"enable-projection-push-down=false":                   "TestValuesScanTableSourceWithoutProjectionPushDown",
		"disable-lookup=true":                                 "TestValuesScanTableSource",
		"disable-lookup=true,enable-watermark-push-down=true": "TestValuesScanTableSourceWithWatermarkPushDown",
	} {
		m := map[string]string{}
		for _, kv := range strings.Split(opts, ",") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		src, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: m})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.(connectors.MetadataSource).SourceClass(); !strings.HasSuffix(got, "$"+want) {
			t.Errorf("%s: class %s, want %s", opts, got, want)
		}
	}
}
