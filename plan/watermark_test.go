package plan

import (
	"testing"
	"time"
)

// TestJavaDuration: the watermarkAlignment=[...] digest prints durations
// as java.time.Duration.toString does.
func TestJavaDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                          "PT0S",
		time.Second:                "PT1S",
		20 * time.Second:           "PT20S",
		90 * time.Second:           "PT1M30S",
		500 * time.Millisecond:     "PT0.5S",
		1250 * time.Millisecond:    "PT1.25S",
		time.Hour:                  "PT1H",
		25*time.Hour + time.Minute: "PT25H1M",
	} {
		if got := javaDuration(d); got != want {
			t.Errorf("javaDuration(%s) = %s, want %s", d, got, want)
		}
	}
}
