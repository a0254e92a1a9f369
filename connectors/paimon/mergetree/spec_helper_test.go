package mergetree

import (
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// newSpec parses raw options as a table does and derives the Spec.
func newSpec(names []string, types []sql.DataType, trimmedPK []string, raw map[string]string) (*Spec, error) {
	o, err := coreoptions.Parse(raw)
	if err != nil {
		return nil, err
	}
	return NewSpec(names, types, trimmedPK, o)
}
