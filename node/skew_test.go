package node

import (
	"testing"
	"time"
)

// TestSkewShiftsTheWallClockOnly: with a test skew, every wall reading
// is that far off (the run clock's start, wallNS), while the time
// elapsed between readings is the host's.
func TestSkewShiftsTheWallClockOnly(t *testing.T) {
	defer func(s time.Duration) { skew = s }(skew)
	skew = 300 * time.Millisecond
	start := time.Now().UnixNano()
	c := newRunClock(wallNow(), start, 1)
	if now := c.now(); now < 300*time.Millisecond || now > 1300*time.Millisecond {
		t.Errorf("a host 300 ms ahead, at the start: run clock %v, want 300 ms ahead", now)
	}
	if d := wallNS() - time.Now().UnixNano(); d < int64(299*time.Millisecond) || d > int64(301*time.Millisecond) {
		t.Errorf("wallNS is %v off the host's clock, want 300ms", time.Duration(d))
	}
	b := wallNow()
	time.Sleep(20 * time.Millisecond)
	if e := sinceWall(b); e < 20*time.Millisecond || e > time.Second {
		t.Errorf("20 ms slept: %v elapsed", e)
	}
}
