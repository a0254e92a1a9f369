package config

import "testing"

// Every key is declared once: no two Options share a key.
func TestOptionsDeclaredOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range Options {
		if seen[o.Key] {
			t.Errorf("option %q declared twice", o.Key)
		}
		seen[o.Key] = true
	}
}
