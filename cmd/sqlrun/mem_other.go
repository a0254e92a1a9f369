//go:build !linux

package main

// totalMemory is unknown here: no default memory limit.
func totalMemory() uint64 { return 0 }
