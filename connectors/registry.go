package connectors

import (
	"sort"
	"strings"
	"sync"

	"github.com/sqlrun/sqlrun/sql"
)

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register adds a factory. Connector packages call it from init(); a second
// factory for the same identifier is a programming error.
func Register(f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[f.Identifier()]; dup {
		panic("connectors: duplicate factory " + f.Identifier())
	}
	factories[f.Identifier()] = f
}

// Identifiers lists the registered identifiers, sorted.
func Identifiers() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(factories))
	for id := range factories {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Lookup finds the factory for an identifier, failing with Flink's
// FactoryUtil message that lists the available ones.
func Lookup(id string) (Factory, error) {
	mu.RLock()
	f, ok := factories[id]
	mu.RUnlock()
	if !ok {
		return nil, sql.Errorf(sql.ValidationException,
			"Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.DynamicTableFactory' in the classpath.\n\nAvailable factory identifiers are:\n\n%s",
			id, strings.Join(Identifiers(), "\n"))
	}
	return f, nil
}
