// Package all links every built-in connector into a binary: importing it
// for its side effects registers the factories of blackhole, datagen,
// filesystem, jdbc, mysql-cdc, paimon, print and values, so that 'connector' = 'x'
// resolves, and the Paimon warehouse catalog ('type' = 'paimon' in CREATE
// CATALOG), and Paimon's MySQL CDC action (`sqlrun action mysql-sync-table`). cmd/sqlrun imports it; tests that need real connectors may too.
package all

import (
	_ "github.com/sqlrun/sqlrun/connectors/blackhole"
	_ "github.com/sqlrun/sqlrun/connectors/datagen"
	_ "github.com/sqlrun/sqlrun/connectors/filesystem"
	_ "github.com/sqlrun/sqlrun/connectors/jdbc"
	_ "github.com/sqlrun/sqlrun/connectors/mysqlcdc"
	_ "github.com/sqlrun/sqlrun/connectors/paimon"
	_ "github.com/sqlrun/sqlrun/connectors/paimon/cdc"
	_ "github.com/sqlrun/sqlrun/connectors/paimon/warehouse"
	_ "github.com/sqlrun/sqlrun/connectors/print"
	_ "github.com/sqlrun/sqlrun/connectors/values"
)
