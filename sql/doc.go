// Package sql is the vocabulary every layer of sqlrun shares: data types,
// rows and their RowKinds, changelog modes, schemas and the error classes the
// shell reports. It imports nothing else of sqlrun, so that the parser, the
// planner, the runtime and every connector can depend on it without cycles.
package sql
