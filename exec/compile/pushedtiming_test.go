package compile

import (
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
)

// TestPushedTiming: a pushed-down generator with Paimon's default on-event
// strategy is never marked idle by table.exec.source.idle-timeout, as in
// Flink, where Paimon's OnEventWatermarkStrategy wraps the planner's
// WatermarksWithIdleness and never calls its onPeriodicEmit (the only
// place it marks a split idle). The old code gave it the timeout, so a
// Paimon source without rows went idle and let the watermark of a join
// or union below pass it.
func TestPushedTiming(t *testing.T) {
	const iv, idle = 200 * time.Millisecond, 5 * time.Second
	for _, c := range []struct {
		emit     connectors.WatermarkEmit
		perRow   bool
		interval time.Duration
		idle     time.Duration
	}{
		{connectors.WatermarkBeforeRow, true, 0, 0},
		{connectors.WatermarkAfterRow, false, 0, 0},
		{connectors.WatermarkPeriodic, false, iv, idle},
	} {
		perRow, gotIv, gotIdle := pushedTiming(c.emit, iv, idle)
		if perRow != c.perRow || gotIv != c.interval || gotIdle != c.idle {
			t.Errorf("emit %d: got (%v, %v, %v), want (%v, %v, %v)", c.emit, perRow, gotIv, gotIdle, c.perRow, c.interval, c.idle)
		}
	}
}
