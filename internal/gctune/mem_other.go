//go:build !linux

package gctune

// totalMemory is unknown here: no default memory limit.
func totalMemory() uint64 { return 0 }
