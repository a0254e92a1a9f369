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

// SetBoundTopN turns the bound of batch Top-N (batchTopN, the batch
// Ranks) on or off and returns a function that restores the previous
// setting.
func SetBoundTopN(on bool) (restore func()) {
	prev := boundTopN
	boundTopN = on
	return func() { boundTopN = prev }
}

// BoundedTopNs counts the batch OverAggregates and Ranks given a bound
// since the process started.
func BoundedTopNs() int { return boundedTopNs }
