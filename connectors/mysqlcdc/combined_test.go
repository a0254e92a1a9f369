package mysqlcdc

import (
	"strings"
	"testing"
)

// TestNewTable: the statements that make a table `sqlrun action
// mysql-sync-database --mode combined` adds to its job (the tables its
// source's table list matches, CdcActionCommonUtils.combinedModeTableList,
// that the job does not have yet), and the ones that do not.
func TestNewTable(t *testing.T) {
	inc, _ := compileRegex(OptSyncNewTables, `(?:shop)\.(?:orders|items.*)`)
	exc, _ := compileRegex(OptSyncNewTablesExcluded, `[^.]*\.(?:items_tmp)`)
	r := &Reader{cfg: &config{newTables: inc, newExcluded: exc, syncTables: [][2]string{{"shop", "orders"}, {"shop", "items"}}}}
	for _, c := range []struct {
		stmt, cur, want string
	}{
		{"CREATE TABLE items_2 (id INT PRIMARY KEY)", "shop", "shop.items_2"},
		{"CREATE TABLE IF NOT EXISTS `shop`.`items_3` (id INT PRIMARY KEY)", "other", "shop.items_3"},
		{"CREATE TABLE items_4 LIKE items", "shop", "shop.items_4"},
		{"CREATE OR REPLACE TABLE items_5 (id INT PRIMARY KEY)", "shop", "shop.items_5"},
		{"RENAME TABLE staging TO items_6", "shop", "shop.items_6"},
		{"ALTER TABLE staging RENAME TO items_7", "shop", "shop.items_7"},
		{"CREATE TABLE IF NOT EXISTS items (id INT PRIMARY KEY)", "shop", ""}, // the job has it
		{"CREATE TABLE items_tmp (id INT PRIMARY KEY)", "shop", ""},           // excluded
		{"CREATE TABLE customers (id INT PRIMARY KEY)", "shop", ""},           // not included
		{"CREATE TABLE items_8 (id INT PRIMARY KEY)", "archive", ""},          // another database
		{"CREATE TEMPORARY TABLE items_9 (id INT)", "shop", ""},
		{"ALTER TABLE items_10 ADD COLUMN x INT", "shop", ""},
		{"DROP TABLE items_11", "shop", ""},
	} {
		got, ok := r.newTable(parseDDL(c.stmt), c.cur)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s (in %s): %q %v, want %q", c.stmt, c.cur, got, ok, c.want)
		}
	}
}

// TestStateOfAnotherTable: a source refuses a binlog state taken for
// tables it does not capture (the job of `sqlrun action
// mysql-sync-database` restores a source's state by its statement's
// place), and takes one of a table it does.
func TestStateOfAnotherTable(t *testing.T) {
	db, _ := compileRegex(OptDatabaseName, "shop")
	tb, _ := compileRegex(OptTableName, "items")
	r := &Reader{cfg: &config{dbRegex: db, tableRegex: tb}}
	r.st.Schemas = map[string][]savedColumn{"shop.orders": nil}
	err := r.checkStateTables()
	if err == nil || !strings.Contains(err.Error(), "the checkpoint holds the binlog state of shop.orders, none of which 'database-name' and 'table-name' capture") {
		t.Errorf("state of shop.orders: %v", err)
	}
	r.st.Schemas["shop.items"] = nil
	if err := r.checkStateTables(); err != nil {
		t.Errorf("state of shop.items: %v", err)
	}
}
