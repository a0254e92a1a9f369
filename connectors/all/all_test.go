package all

import (
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
)

// TestRegistered checks that linking this package makes every built-in
// connector resolvable by its identifier.
func TestRegistered(t *testing.T) {
	for _, id := range []string{"blackhole", "datagen", "filesystem", "jdbc", "mysql-cdc", "paimon", "print", "values"} {
		if _, err := connectors.Lookup(id); err != nil {
			t.Errorf("connector %q: %v", id, err)
		}
	}
}
