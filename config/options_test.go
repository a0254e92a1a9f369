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

// execution.checkpointing.timeout is declared with Flink's default
// (CheckpointingOptions.CHECKPOINTING_TIMEOUT, 10 min), so SET checks it
// and the runtime reads it typed.
func TestCheckpointTimeoutDeclared(t *testing.T) {
	d, err := Duration(map[string]string{}, KeyCheckpointTimeout)
	if err != nil || d.Minutes() != 10 {
		t.Errorf("default: %v, %v; want 10m", d, err)
	}
	if err := Check(KeyCheckpointTimeout, "soon"); err == nil || err.Error() != "Could not parse value 'soon' for key 'execution.checkpointing.timeout'." {
		t.Errorf("SET 'execution.checkpointing.timeout' = 'soon': %v", err)
	}
}
