//go:build !unix

package runtime

// processAlive cannot probe here: every working store counts as in use.
func processAlive(int) bool { return true }
