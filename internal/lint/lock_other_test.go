//go:build !unix

package lint

import "testing"

// machineLock is a no-op where flock(2) is not available.
func machineLock(*testing.T, string) func() { return func() {} }
