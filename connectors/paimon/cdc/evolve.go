package cdc

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// applyChanges is the next schema after changes.
func applyChanges(cur *schema.TableSchema, timeMillis int64, changes []schema.Change) (*schema.TableSchema, error) {
	return cur.Apply(timeMillis, changes...)
}

// updateColumnType is the schema change that widens a column's type.
func updateColumnType(name string, from, to sql.DataType, ident string) (schema.Change, error) {
	fs, _ := schema.TypeString(from)
	ts, _ := schema.TypeString(to)
	return nil, fmt.Errorf("the MySQL table widened column %s from %s to %s: changing the type of a column of Paimon table %s is not supported by sqlrun yet", name, fs, ts, ident)
}

func describeChange(c schema.Change) string { return fmt.Sprintf("%+v", c) }
