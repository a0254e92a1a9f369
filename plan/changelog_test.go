package plan

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

type fixedSource struct{ mode sql.ChangelogMode }

func (s fixedSource) ChangelogMode() sql.ChangelogMode { return s.mode }
func (fixedSource) Bounded() bool                      { return false }
func (fixedSource) NewReader(int, int) (connectors.SourceReader, error) {
	return nil, nil
}

type fixedSink struct{ accept sql.ChangelogMode }

func (s fixedSink) ChangelogMode(sql.ChangelogMode) (sql.ChangelogMode, error) { return s.accept, nil }
func (fixedSink) Parallelism() int                                             { return 0 }
func (fixedSink) NewWriter(int, int) (connectors.SinkWriter, error)            { return nil, nil }

func ref(name string, pk []string) *TableRef {
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}}, PrimaryKey: pk}
	return &TableRef{ID: connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: name},
		Table: &catalog.Table{Schema: s}, Schema: s}
}

// An upsert scan that (against the planner's own rules) reaches a sink
// needing -U without a normalize cannot be planned: Flink's "Can't
// generate a valid execution plan" with the plan and its traits.
func TestNoValidPlan(t *testing.T) {
	src := ref("src", []string{"id"})
	src.Source = fixedSource{mode: sql.Upsert}
	snk := ref("snk", nil)
	snk.Sink = fixedSink{accept: sql.All}
	scan := &TableSourceScan{base: row([]string{"id", "v"}, src.Schema.Types()), Table: src}
	root := &Sink{base: sameRow(scan), Table: snk}
	_, err := inferChangelog(root, map[string]string{}, false)
	want := "Can't generate a valid execution plan for the given query:\n" +
		"Sink(table=[default_catalog.default_database.snk], fields=[id, v], changelogMode=[NONE])\n" +
		"+- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v], changelogMode=[I,UB,UA,D])\n"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// The update-kind pass: a keyed upsert sink over a same-key aggregate asks
// for +U only; over a filtered aggregate it falls back to -U/+U.
func TestUpdateKindFallback(t *testing.T) {
	src := ref("src", nil)
	src.Source = fixedSource{mode: sql.InsertOnly}
	snk := ref("snk", []string{"id"})
	snk.Sink = fixedSink{accept: sql.Upsert}
	scan := &TableSourceScan{base: row([]string{"id", "v"}, src.Schema.Types()), Table: src}
	ex := &Exchange{base: sameRow(scan), Keys: []int{0}}
	agg := &GroupAggregate{base: row([]string{"id", "cnt"}, []sql.DataType{sql.BigInt().NotNull(), sql.BigInt().NotNull()}, ex),
		Group: []int{0}, Aggs: []AggCall{{Func: "COUNT", Name: "cnt", T: sql.BigInt().NotNull()}}}
	for _, c := range []struct {
		cond Expr
		want string
	}{
		{nil, "I,UA"},
		{&Call{Op: ">", Args: []Expr{&InputRef{Index: 1, T: sql.BigInt()}, &Literal{Value: int32(1), T: sql.Int().NotNull()}}, T: sql.Boolean()}, "I,UB,UA"},
	} {
		calc := &Calc{base: sameRow(agg), Exprs: identity(agg.types), Cond: c.cond}
		root := &Sink{base: sameRow(calc), Table: snk}
		out, err := inferChangelog(root, map[string]string{}, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.input().Mode().String(); got != c.want {
			t.Errorf("cond %v: calc mode %s, want %s", c.cond != nil, got, c.want)
		}
		if out.UpsertMaterialize {
			t.Errorf("cond %v: materializer on a same-key sink", c.cond != nil)
		}
		if !strings.Contains(explainTree(out, explainOpts{format: FormatPrefix}), "COUNT(*) AS cnt") {
			t.Errorf("insert-only input must not retract")
		}
	}
}
