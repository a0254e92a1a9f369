package expr

import (
	"testing"
	"time"
)

// TestJavaRandom compares javaRandom with java.util.Random's numbers (as
// JDK 17 prints them).
func TestJavaRandom(t *testing.T) {
	r := newJavaRandom(1)
	for i, want := range []float64{0.7308781907032909, 0.41008081149220166, 0.20771484130971707} {
		if got := r.nextDouble(); got != want {
			t.Errorf("Random(1) double %d = %v, want %v", i, got, want)
		}
	}
	if got := newJavaRandom(3).nextDouble(); got != 0.731057369148862 {
		t.Errorf("Random(3).nextDouble() = %v", got)
	}
	for _, c := range []struct {
		seed        int64
		bound, want int32
	}{{1, 10, 5}, {7, 100, 36}, {3, 44, 6}, {42, 7, 1}} {
		if got := newJavaRandom(c.seed).nextInt(c.bound); got != c.want {
			t.Errorf("Random(%d).nextInt(%d) = %d, want %d", c.seed, c.bound, got, c.want)
		}
	}
}

// TestJavaTimeZone checks javaTimeZone against java.util.TimeZone
// .getTimeZone: what CONVERT_TZ('2018-03-14 11:00:00', from, 'UTC') gives
// in JDK 17 (an unknown ID and 'UTC+8' are GMT).
func TestJavaTimeZone(t *testing.T) {
	wall := time.Date(2018, 3, 14, 11, 0, 0, 0, time.UTC).UnixMilli()
	for id, want := range map[string]string{
		"GMT+08:00": "2018-03-14 03:00", "GMT+8": "2018-03-14 03:00", "GMT-0330": "2018-03-14 14:30",
		"PST": "2018-03-14 18:00", "EST": "2018-03-14 16:00", "CTT": "2018-03-14 03:00",
		"Asia/Shanghai": "2018-03-14 03:00", "no/such-zone": "2018-03-14 11:00", "UTC+8": "2018-03-14 11:00",
	} {
		got := time.UnixMilli(UTCMillis(wall, javaTimeZone(id))).UTC().Format("2006-01-02 15:04")
		if got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
}
