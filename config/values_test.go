package config

import (
	"testing"
	"time"
)

// TestTypedReads: every reader gets a typed value from the option spec:
// the SET value parsed as the key's type, else the declared default, a
// deprecated fallback key honoured, an enum in its declared spelling
// whatever case SET used.
func TestTypedReads(t *testing.T) {
	m := map[string]string{
		KeyDMLSync:              "TRUE",
		KeyParallelism:          " 4 ",
		KeyCheckpointInterval:   "10 s",
		KeyUpsertMaterialize:    "force",
		KeyStateTTL:             "0 s",
		KeyRestartDelay:         "250",
		KeyMaxColumnWidth:       "40",
		KeyExecutionCheckpointM: "at_least_once",
	}
	if b, err := Bool(m, KeyDMLSync); err != nil || !b {
		t.Errorf("dml-sync = %v, %v", b, err)
	}
	if b, err := Bool(m, KeyPrintTimeCost); err != nil || !b {
		t.Errorf("print-time-cost default = %v, %v", b, err)
	}
	if n, err := Int(m, KeyParallelism); err != nil || n != 4 {
		t.Errorf("parallelism = %v, %v", n, err)
	}
	if n, err := Int(m, KeyNumRetained); err != nil || n != 1 {
		t.Errorf("num-retained default = %v, %v", n, err)
	}
	if d, err := Duration(m, KeyCheckpointInterval); err != nil || d != 10*time.Second {
		t.Errorf("interval = %v, %v", d, err)
	}
	if d, err := Duration(m, KeyRestartDelay); err != nil || d != 250*time.Millisecond {
		t.Errorf("restart delay (bare number = ms) = %v, %v", d, err)
	}
	// "0 s" is no retention, as "0 ms" is: ChangelogNormalize must not
	// start forwarding duplicates for a spelling of zero.
	if d, err := Duration(m, KeyStateTTL); err != nil || d != 0 {
		t.Errorf("state ttl = %v, %v", d, err)
	}
	if e, err := Enum(m, KeyUpsertMaterialize); err != nil || e != "FORCE" {
		t.Errorf("upsert-materialize = %q, %v", e, err)
	}
	if e, err := Enum(m, KeyExecutionCheckpointM); err != nil || e != "AT_LEAST_ONCE" {
		t.Errorf("checkpointing mode = %q, %v", e, err)
	}
	if e, err := Enum(m, KeyRuntimeMode); err != nil || e != "streaming" {
		t.Errorf("runtime mode default = %q, %v", e, err)
	}
	if d, err := Duration(map[string]string{}, KeyCheckpointInterval); err != nil || d != 0 {
		t.Errorf("interval unset, no default = %v, %v", d, err)
	}
}

// TestBadValueNamesKey: a value that does not parse fails with Flink's
// ConfigOption message (ConfigurationUtils: "Could not parse value '...'
// for key '...'."), naming the key, both when SET checks it and when a
// reader reads it.
func TestBadValueNamesKey(t *testing.T) {
	for _, c := range []struct{ key, value string }{
		{KeyParallelism, "four"},
		{KeyDMLSync, "yes"},
		{KeyCheckpointInterval, "soon"},
		{KeyRuntimeMode, "turbo"},
	} {
		want := "Could not parse value '" + c.value + "' for key '" + c.key + "'."
		if err := Check(c.key, c.value); err == nil || err.Error() != want {
			t.Errorf("Check(%s, %s) = %v, want %s", c.key, c.value, err, want)
		}
		m := map[string]string{c.key: c.value}
		var err error
		switch c.key {
		case KeyParallelism:
			_, err = Int(m, c.key)
		case KeyDMLSync:
			_, err = Bool(m, c.key)
		case KeyCheckpointInterval:
			_, err = Duration(m, c.key)
		case KeyRuntimeMode:
			_, err = Enum(m, c.key)
		}
		if err == nil || err.Error() != want {
			t.Errorf("read %s = %s: %v, want %s", c.key, c.value, err, want)
		}
	}
	if err := Check("some.connector.key", "anything"); err != nil {
		t.Errorf("an unknown key is not checked: %v", err)
	}
}
