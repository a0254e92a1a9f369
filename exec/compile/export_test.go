package compile

// SetFuseLocalAggregates turns the local aggregate pushed into sources on
// or off and returns a function that restores the previous setting.
func SetFuseLocalAggregates(on bool) (restore func()) {
	prev := fuseLocalAggregates
	fuseLocalAggregates = on
	return func() { fuseLocalAggregates = prev }
}

// FusedAggregates counts the aggregates whose local phase ran in the
// source since the process started.
func FusedAggregates() int { return fusedAggregates }

// FilteredScans counts the Calcs whose condition ran in the source since
// the process started.
func FilteredScans() int { return filteredScans }
