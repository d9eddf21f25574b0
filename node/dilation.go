package node

import (
	"fmt"
	"time"
)

// MaxDilation bounds Options.Dilation: a run of the scenario's duration
// lasts that many times longer on the wall clock.
const MaxDilation = 10_000

// runClock is a node process's (or the player's) run clock: the model's
// time since the run's common start. With a dilation k it advances at
// 1/k of the host's clock, and a model duration d takes k·d on it, so
// that every timer fires k times later in wall time and whatever the host
// adds (a datagram's arrival lag, the loop's wake-up) is k times shorter
// in the model (docs/node.md, "Dilated time"). k = 1 is the host's clock.
//
// It reads the host's monotonic clock since a wall-clock reading taken at
// start-up, against the common start in Unix nanoseconds: every process
// of one host agrees on it within the clock's resolution.
type runClock struct {
	base   time.Time     // the host's clock at start-up (monotonic)
	offset time.Duration // wall time from the run's start to base
	k      time.Duration // the dilation, 1 or more
	since  func(time.Time) time.Duration
}

// newRunClock starts a run clock at base for a run that starts at start
// (Unix ns; 0: at base), dilated k times (k < 1 counts as 1).
func newRunClock(base time.Time, start int64, k int) runClock {
	if start == 0 {
		start = base.UnixNano()
	}
	return runClock{base: base, offset: time.Duration(base.UnixNano() - start), k: time.Duration(max(k, 1)), since: sinceWall}
}

// checkDilation reports a dilation out of range.
func checkDilation(k int) error {
	if k < 0 || k > MaxDilation {
		return fmt.Errorf("dilation %d: want 1 to %d (0 means 1)", k, MaxDilation)
	}
	return nil
}

// start is the run's start, Unix ns.
func (c *runClock) start() int64 { return c.base.UnixNano() - int64(c.offset) }

// wallSince is the host's time since the run's start (negative before).
func (c *runClock) wallSince() time.Duration { return c.offset + c.since(c.base) }

// now is the model's time since the run's start: the wall time since it
// divided by the dilation (rounded down, also before the start, so that
// nothing is due early).
func (c *runClock) now() time.Duration {
	w := c.wallSince()
	t := w / c.k
	if w < 0 && t*c.k != w {
		t--
	}
	return t
}

// until is the wall time left until model time t.
func (c *runClock) until(t time.Duration) time.Duration { return c.wall(t) - c.wallSince() }

// wall is how long model duration d lasts on the host's clock.
func (c *runClock) wall(d time.Duration) time.Duration { return d * c.k }

// dilation is k.
func (c *runClock) dilation() int { return int(c.k) }
