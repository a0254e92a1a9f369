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
		// SyncDatabaseActionBase builds computed columns over no fields:
		// a function of a column fails as in Paimon 1.4.1; one of a
		// computed column before it works.
		{append(base, "--computed_column", "y=year(ts)"), "Referenced field 'ts' is not in given fields: []."},
		{append(base, "--computed_column", "n=now()", "--computed_column", "y=year(ts)"), "Referenced field 'ts' is not in given fields: [n]."},
		{append(base, "--computed_column", "y=upper(c)", "--computed_column", "c=cast(x)"), "mysql-cdc: connect to MySQL server h:3306"},
		{append(base, "--computed_column", "y=reverse(a)"), "Unsupported expression: reverse. Supported expressions are: year,upper,lower,substring,minute,second,cast,month,hour,truncate,trim,now,date_format,day"},
		{append(base, "--computed_column", "y"), "Invalid computed column argument: y. Please use format 'column-name=expr-name(args, ...)'."},
		{append(base, "--computed_column", "y=year"), "Invalid expression: year. Please use format 'expr-name(args, ...)'."},
		{append(base, "--including-tables", "("), "--including_tables \"(\""},
		{append(base, "--excluding-dbs", "a["), "--excluding_dbs \"a[\""},
		{append(base, "--table-mapping", "orders"), "Invalid key-value string 'orders'. Please use format 'key=value'"},
		{append(base, "--multiple-table-partition-keys", "orders:dt"), "Invalid key-value string 'orders:dt'. Please use format 'key=value'"},
		{append(base, "--table-prefix-db", "shop"), "Invalid key-value string 'shop'. Please use format 'key=value'"},
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

// TestTableNameConverter is Paimon's TableNameConverterTest
// (testConvertTableNameByDBPrefix_Suffix): --table_mapping first, then the
// database's --table_prefix_db / --table_suffix_db (each over
// --table_prefix / --table_suffix on its own), the database looked up in
// lower case.
func TestTableNameConverter(t *testing.T) {
	base := []string{"--warehouse", "/tmp/wh", "--database", "ods", "--table_prefix", "pre_", "--table-suffix", "_suf",
		"--table_prefix_db", "DB_With_Prefix = db_pref_", "--table-prefix-db", "db_with_prefix_suffix=db_pref_",
		"--table_suffix_db", "db_with_suffix=_db_suf", "--table-suffix-db", "db_with_prefix_suffix=_db_suf",
		"--table-mapping", "mapped=m1", "--eager-init", "TRUE"}
	a, _, err := parseDatabaseArgs(base)
	if err != nil {
		t.Fatal(err)
	}
	if !a.eagerInit {
		t.Errorf("--eager-init TRUE: %v", a.eagerInit)
	}
	for _, c := range [][3]string{
		{"db_with_prefix", "t", "db_pref_t_suf"},
		{"db_with_suffix", "t", "pre_t_db_suf"},
		{"db_with_prefix_suffix", "t", "db_pref_t_db_suf"},
		{"DB_WITH_SUFFIX", "t", "pre_t_db_suf"},
		{"other", "t", "pre_t_suf"},
		{"db_with_prefix", "Mapped", "m1"},
	} {
		if got := a.paimonName(c[0], c[1]); got != c[2] {
			t.Errorf("%s.%s: %s, want %s", c[0], c[1], got, c[2])
		}
	}
}
