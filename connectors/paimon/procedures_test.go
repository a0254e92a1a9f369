package paimon

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func TestSystemTableNames(t *testing.T) {
	for _, c := range []struct {
		in, base, sys string
		ok            bool
	}{
		{"orders$snapshots", "orders", "snapshots", true},
		{"orders$SNAPSHOTS", "orders", "snapshots", true},
		{"orders$audit_log", "orders", "audit_log", true},
		{"orders$nope", "orders$nope", "", false},
		{"orders", "orders", "", false},
		{"$snapshots", "$snapshots", "", false},
	} {
		base, sys, ok := SystemTable(c.in)
		if base != c.base || sys != c.sys || ok != c.ok {
			t.Errorf("SystemTable(%q) = %q, %q, %v", c.in, base, sys, ok)
		}
	}
}

func TestParsePartitions(t *testing.T) {
	got, err := ParsePartitions("dt=d1,hh=10; dt=d2")
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{{"dt": "d1", "hh": "10"}, {"dt": "d2"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if p, err := ParsePartitions(" "); err != nil || p != nil {
		t.Fatalf("blank: %v %v", p, err)
	}
	if _, err := ParsePartitions("dt"); err == nil || !strings.Contains(err.Error(), "expected key=value") {
		t.Fatalf("bad spec: %v", err)
	}
}

// Row-level modifications follow Paimon's FlinkTableSink rules.
func TestRowLevelRules(t *testing.T) {
	pk := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}}, PrimaryKey: []string{"id"}}
	sink := func(s sql.Schema, opts map[string]string) *Sink {
		t.Helper()
		snk, err := Factory{}.CreateSink(&connectors.Context{Table: connectors.ObjectIdentifier{Catalog: "c", Database: "d", Name: "t"},
			Schema: s, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		return snk.(*Sink)
	}
	if err := sink(pk, map[string]string{}).ApplyRowLevelDelete(); err != nil {
		t.Errorf("deduplicate delete: %v", err)
	}
	if err := sink(pk, map[string]string{"merge-engine": "partial-update"}).ApplyRowLevelUpdate([]string{"v"}); err != nil {
		t.Errorf("partial-update update: %v", err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{sink(pk, map[string]string{}).ApplyRowLevelUpdate([]string{"v", "id"}), "Updates to primary keys are not supported, primaryKeys ([id]), updatedColumns ([v, id])"},
		{sink(pk, map[string]string{"merge-engine": "aggregation"}).ApplyRowLevelUpdate([]string{"v"}), "Merge engine aggregation can not support batch update."},
		{sink(pk, map[string]string{"merge-engine": "first-row"}).ApplyRowLevelDelete(), "Merge engine first-row can not support batch delete."},
		{sink(sql.Schema{Columns: pk.Columns}, map[string]string{}).ApplyRowLevelDelete(), "can not support delete, because there is no primary key."},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	if _, err := (Factory{}).CreateSink(&connectors.Context{Table: connectors.ObjectIdentifier{Name: "t$snapshots"}, Schema: pk,
		Options: map[string]string{}}); err == nil || !strings.Contains(err.Error(), "Readonly Table") {
		t.Errorf("system table sink: %v", err)
	}
}
