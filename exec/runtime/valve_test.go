package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// TestValve pins Flink's StatusWatermarkValve semantics (its
// StatusWatermarkValveTest): the output is the minimum over the active,
// aligned channels and never goes back; an idle channel stops holding it
// back; a channel that comes back below the output watermark rejoins only
// once it catches up; when every channel is idle the largest watermark is
// flushed and the output is idle.
func TestValve(t *testing.T) {
	v := newValve(3)
	var log []string
	wm := func(ch int, w int64) {
		if out, ok := v.watermark(ch, w); ok {
			log = append(log, fmt.Sprint(out))
		}
	}
	st := func(ch int, idle bool) {
		out, ok, s, sok := v.status(ch, idle)
		if ok {
			log = append(log, fmt.Sprint(out))
		}
		if sok {
			log = append(log, map[MarkKind]string{MarkIdle: "IDLE", MarkActive: "ACTIVE"}[s])
		}
	}
	wm(0, 10)
	wm(1, 5)
	wm(2, 7)  // min 5
	wm(1, 3)  // a channel's watermark does not go back
	wm(1, 20) // min 7
	wm(2, 8)  // min 8
	st(2, true)
	// channel 2 idle: min over 0 and 1 is 10
	wm(2, 30) // ignored: idle
	st(2, false)
	// channel 2 back at 8 < 10: not aligned, does not hold back
	wm(0, 25) // 20
	wm(2, 9)  // still below the output
	wm(2, 40) // aligned again, min still 20
	st(0, true)
	st(1, true) // 40: channel 2 alone
	st(2, true) // all idle
	st(1, false)
	wm(1, 50) // channel 1 alone
	// Two channels: when the last active one goes idle holding the
	// minimum, the largest watermark is flushed.
	v = newValve(2)
	wm(0, 10)
	wm(1, 60) // 10
	st(1, true)
	st(0, true) // flush 60, IDLE
	want := "5 7 8 10 20 40 IDLE ACTIVE 50 10 60 IDLE"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
