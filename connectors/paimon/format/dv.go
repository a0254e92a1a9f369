package format

// DeletionVector marks the deleted row positions (0-based, across row
// groups) of one data file. Paimon writes them for tables with
// deletion-vectors.enabled: a row whose position is marked must not be
// returned (Projection.Deleted). Package dv decodes them from their index
// files.
type DeletionVector interface {
	IsDeleted(pos int64) bool
	Cardinality() int64
}
