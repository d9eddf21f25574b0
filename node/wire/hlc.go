package wire

import (
	"math"
	"sync"
	"time"
)

// Clock is a hybrid logical clock (Kulkarni, Demirbas et al., "Logical
// Physical Clocks", 2014): timestamps stay close to physical time, never
// go backwards, and a receive is always stamped after the send it
// follows, even between machines whose clocks disagree. The trace
// aggregator orders events across nodes by these stamps. A Clock is safe
// for concurrent use.
type Clock struct {
	phys func() int64
	mu   sync.Mutex
	last HLC
}

// NewClock returns a clock reading physical time, in nanoseconds, from
// phys; nil means the wall clock (time.Now().UnixNano()). Tests inject a
// clock they control.
func NewClock(phys func() int64) *Clock {
	if phys == nil {
		phys = func() int64 { return time.Now().UnixNano() }
	}
	return &Clock{phys: phys}
}

// Now stamps a local or send event.
func (c *Clock) Now() HLC {
	pt := c.phys()
	c.mu.Lock()
	defer c.mu.Unlock()
	if pt > c.last.Wall {
		c.last = HLC{Wall: pt}
	} else {
		c.last = c.last.tick()
	}
	return c.last
}

// Update stamps the receipt of a frame stamped remote: the result is after
// both remote and every stamp this clock gave before.
func (c *Clock) Update(remote HLC) HLC {
	pt := c.phys()
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.last
	switch {
	case pt > l.Wall && pt > remote.Wall:
		c.last = HLC{Wall: pt}
	case l.Wall == remote.Wall:
		c.last = HLC{Wall: l.Wall, Logical: max(l.Logical, remote.Logical)}.tick()
	case l.Wall > remote.Wall:
		c.last = l.tick()
	default:
		c.last = remote.tick()
	}
	return c.last
}

// Last returns the latest stamp given, without advancing the clock.
func (c *Clock) Last() HLC {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// tick returns the next stamp after h. A logical counter at its maximum
// (four billion events within one nanosecond of wall time, or a hostile
// remote stamp) carries into the wall time rather than wrapping backwards.
func (h HLC) tick() HLC {
	if h.Logical == math.MaxUint32 {
		if h.Wall == math.MaxInt64 {
			return h // saturated: stand still rather than wrap into the past
		}
		return HLC{Wall: h.Wall + 1}
	}
	return HLC{Wall: h.Wall, Logical: h.Logical + 1}
}
