package cdc

import (
	"fmt"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// commitChanges commits the table's next schema, with SchemaManager's
// checks (the ones ALTER TABLE has) and the casts the reader can do.
func commitChanges(mgr *schema.Manager, ident string, changes []schema.Change) (*schema.TableSchema, error) {
	a := schema.Alter{Table: ident, TimeMillis: time.Now().UnixMilli(), CanCast: format.CanEvolve}
	return mgr.CommitChanges(a, changes...)
}

// extractSchemaChanges is UpdatedDataFieldsProcessFunctionBase.
// extractSchemaChanges with applySchemaChange's rules: a new column is
// added (nullable, with its comment); a column whose type changed is
// changed when the new type is wider in its family (canConvert), kept
// when it is narrower, and the job fails otherwise; a changed comment is
// updated. A column the MySQL table no longer has stays (NULL from then
// on).
func extractSchemaChanges(cur *schema.TableSchema, cols []sql.Column, ident string) ([]schema.Change, error) {
	var out []schema.Change
	for _, c := range cols {
		var comment *string
		if c.Comment != "" {
			cm := c.Comment
			comment = &cm
		}
		i := cur.FieldIndex(c.Name)
		if i < 0 {
			out = append(out, schema.AddColumn{Field: schema.Field{Name: c.Name, Type: c.Type.WithNullable(true), Description: comment}})
			continue
		}
		old := cur.Fields[i]
		if !old.Type.WithNullable(true).Equal(c.Type.WithNullable(true)) {
			switch canConvert(old.Type, c.Type) {
			case convert:
				out = append(out, schema.UpdateColumnType{Name: c.Name, Type: c.Type.WithNullable(old.Type.Nullable)})
			case exception:
				os, _ := schema.TypeString(old.Type)
				ns, _ := schema.TypeString(c.Type)
				return nil, fmt.Errorf("Cannot convert field %s from type %s to %s of Paimon table %s.", c.Name, os, ns, ident)
			}
		}
		if comment != nil && (old.Description == nil || *old.Description != *comment) {
			out = append(out, schema.UpdateColumnComment{Name: c.Name, Comment: comment})
		}
	}
	return out, nil
}

// describeChanges says what changes do, for the action's [INFO] line.
func describeChanges(changes []schema.Change) string {
	var parts []string
	for _, c := range changes {
		switch c := c.(type) {
		case schema.AddColumn:
			ts, _ := schema.TypeString(c.Field.Type)
			parts = append(parts, fmt.Sprintf("added column %s %s", c.Field.Name, ts))
		case schema.UpdateColumnType:
			ts, _ := schema.TypeString(c.Type)
			parts = append(parts, fmt.Sprintf("column %s is now %s", c.Name, ts))
		case schema.UpdateColumnComment:
			parts = append(parts, fmt.Sprintf("column %s has a new comment", c.Name))
		case schema.SetOption:
			parts = append(parts, fmt.Sprintf("option '%s' = '%s'", c.Key, c.Value))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}
