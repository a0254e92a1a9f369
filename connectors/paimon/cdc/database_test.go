package cdc

import (
	"context"
	"strings"
	"testing"
)

// TestSyncDatabaseRefusals: what mysql_sync_database refuses before it
// connects, with Paimon's messages where Paimon has one
// (SyncJobHandler.checkRequiredOption, MultiTablesSinkMode.fromString), and
// what sqlrun has not built, by name.
func TestSyncDatabaseRefusals(t *testing.T) {
	base := []string{"--warehouse", "/tmp/wh", "--database", "ods", "--mysql-conf", "hostname=h",
		"--mysql-conf", "username=u", "--mysql-conf", "password=p", "--mysql-conf", "database-name=shop"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--warehouse", "w"}, "--database is required"},
		{append(base, "--mode", "split"), "Unsupported mode: split"},
		{append(base, "--computed_column", "y=year(ts)"), "--computed_column of mysql_sync_database is not supported by sqlrun yet"},
		{append(base, "--including-tables", "("), "--including_tables \"(\""},
		{append(base, "--excluding-dbs", "a["), "--excluding_dbs \"a[\""},
		{append(base, "--table-mapping", "orders"), "Invalid key-value string 'orders'. Please use format 'key=value'"},
		{append(base, "--multiple-table-partition-keys", "orders:dt"), "Invalid key-value string 'orders:dt'. Please use format 'key=value'"},
		{append(base, "--eager_init", "true"), "--eager_init (--mode combined's committer of every table from the start) is not supported by sqlrun yet"},
		{append(base, "--mysql-conf", "table-name=orders"), "table-name cannot be set for mysql_sync_database. If you want to sync several MySQL tables into one Paimon table, use mysql_sync_table instead."},
		{[]string{"--warehouse", "w", "--database", "d", "--mysql-conf", "hostname=h", "--mysql-conf", "username=u", "--mysql-conf", "password=p"}, "mysql_conf [database-name] must be specified."},
	} {
		a, _, err := parseDatabaseArgs(c.args)
		if err == nil {
			_, _, err = prepareDatabase(context.Background(), a, false)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	a, _, err := parseDatabaseArgs(append(base, "--merge_shards", "FALSE", "--ignore-incompatible", "true", "--mode", "DIVIDED",
		"--table-mapping", "Orders=o", "--table_mapping", "items = i", "--including-dbs", "shop|ods", "--eager-init", "false"))
	if err != nil || a.mergeShards || !a.ignoreIncompatible || a.tableMapping["orders"] != "o" || a.tableMapping["items"] != "i" ||
		!a.includingDBs.MatchString("ods") || a.includingDBs.MatchString("shop2") {
		t.Errorf("flags: %+v, %v", a, err)
	}
	if a, _, err := parseDatabaseArgs(append(base, "--mode", "Combined")); err != nil || !a.combined {
		t.Errorf("--mode Combined: %+v, %v", a, err)
	}
}
