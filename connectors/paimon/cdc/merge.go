package cdc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/mysqlcdc"
	"github.com/sqlrun/sqlrun/sql"
)

// merged is the MySQL tables one Paimon table is synchronized from
// (JdbcTableInfo): one table, the shards of one name in several
// databases (ShardsMergedJdbcTableInfo, the database action's
// --merge_shards) or every table the table action captures
// (AllMergedJdbcTableInfo), with their schemas merged.
type merged struct {
	srcs     []mysqlcdc.TableInfo
	fields   []sql.Column // in Paimon types
	pk       []string     // the tables' primary key when they all have the same, else none
	location string       // for messages: db.t, [db1,db2].t or {db1.a,db2.b}
	paimon   string       // the Paimon table's name (the database action)
}

// info is the merged tables as one: the first's database, name and
// comment, the merged primary key.
func (m *merged) info() mysqlcdc.TableInfo {
	t := m.srcs[0]
	t.PrimaryKey = m.pk
	return t
}

// mergeTables merges the schemas of tables, in order, as
// JdbcSchemasInfo.mergeAll / mergeShards do: shards names the location
// [db1,db2].t (the database action), else {db1.a,db2.b}.
func mergeTables(tables []mysqlcdc.TableInfo, tm typeMapping, shards bool) (*merged, error) {
	m := &merged{}
	for i, t := range tables {
		fields, err := paimonFields(t, tm)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			m.srcs, m.fields, m.pk = []mysqlcdc.TableInfo{t}, fields, slices.Clone(t.PrimaryKey)
			m.location = t.Database + "." + t.Name
			continue
		}
		other := t.Database + "." + t.Name
		if m.fields, err = mergeFields(m.location, m.fields, other, fields); err != nil {
			return nil, err
		}
		if !slices.Equal(m.pk, t.PrimaryKey) {
			m.pk = nil
		}
		m.srcs = append(m.srcs, t)
		if shards {
			dbs := make([]string, len(m.srcs))
			for j, s := range m.srcs {
				dbs[j] = s.Database
			}
			m.location = fmt.Sprintf("[%s].%s", strings.Join(dbs, ","), t.Name)
		} else {
			names := make([]string, len(m.srcs))
			for j, s := range m.srcs {
				names[j] = s.Database + "." + s.Name
			}
			m.location = "{" + strings.Join(names, ",") + "}"
		}
	}
	return m, nil
}

// paimonFields are a MySQL table's columns in Paimon types.
func paimonFields(t mysqlcdc.TableInfo, tm typeMapping) ([]sql.Column, error) {
	fields := make([]sql.Column, len(t.Columns))
	for i, c := range t.Columns {
		typ, err := paimonType(c, tm)
		if err != nil {
			return nil, fmt.Errorf("column %s of MySQL table %s.%s: %w", c.Name, t.Database, t.Name, err)
		}
		fields[i] = sql.Column{Name: c.Name, Type: typ, Comment: c.Comment}
	}
	return fields, nil
}

// mergeFields is JdbcSchemaUtils.mergeSchema: the current fields, a
// field of the other table replacing its namesake when its type is the
// same or wider (canConvert), the other table's new fields after them; a
// type of another family fails.
func mergeFields(curLoc string, cur []sql.Column, otherLoc string, other []sql.Column) ([]sql.Column, error) {
	out := slices.Clone(cur)
	for _, f := range other {
		i := slices.IndexFunc(out, func(c sql.Column) bool { return c.Name == f.Name })
		if i < 0 {
			out = append(out, f)
			continue
		}
		switch canConvert(out[i].Type, f.Type) {
		case convert:
			out[i] = f
		case exception:
			return nil, fmt.Errorf("Column %s have different types when merging schemas.\nCurrent table '%s' field: %s\nTo be merged table '%s' field: %s",
				f.Name, curLoc, columnField(out[i]), otherLoc, columnField(f))
		}
	}
	return out, nil
}

// columnField is DataField.toString of a column.
func columnField(c sql.Column) string {
	var d *string
	if c.Comment != "" {
		d = &c.Comment
	}
	return dataField(0, c.Name, c.Type, d)
}
