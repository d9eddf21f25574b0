package wire

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// DefaultMaxOffset is how far ahead of a receiver's physical clock a
// remote stamp may be before the receiver refuses it. It is CockroachDB's
// default --max-offset: on one machine the offset is zero, between
// machines synchronised by NTP on a LAN it is a few milliseconds, and half
// a second still admits a lab machine whose clock was set by hand to the
// second; beyond it a stamp is a broken clock or an attacker, and taking
// it would drag every clock it reaches into the future for good.
const DefaultMaxOffset = 500 * time.Millisecond

// CheckAhead returns an error wrapping ErrClock if remote's wall time is
// more than max ahead of the physical time pt (both Unix ns); max <= 0
// accepts everything.
func CheckAhead(remote HLC, pt int64, max time.Duration) error {
	if max > 0 && remote.Wall > pt && uint64(remote.Wall-pt) > uint64(max) {
		return fmt.Errorf("%w: remote time %d is %v ahead of %d, more than the maximum offset %v",
			ErrClock, remote.Wall, time.Duration(min(remote.Wall-pt, math.MaxInt64)), pt, max)
	}
	return nil
}

// Clock is a hybrid logical clock (Kulkarni, Demirbas et al., "Logical
// Physical Clocks", 2014): timestamps stay close to physical time, never
// go backwards, and a receive is always stamped after the send it
// follows, even between machines whose clocks disagree. The trace
// aggregator orders events across nodes by these stamps. A Clock is safe
// for concurrent use.
type Clock struct {
	phys func() int64
	// maxOffset, when positive, bounds how far ahead of phys a remote
	// stamp may be for Update to take it.
	maxOffset time.Duration
	mu        sync.Mutex
	last      HLC
	refused   uint64
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

// SetMaxOffset makes Update refuse remote stamps more than d ahead of
// physical time, as CockroachDB's clock does; d <= 0 accepts every stamp.
func (c *Clock) SetMaxOffset(d time.Duration) {
	c.mu.Lock()
	c.maxOffset = d
	c.mu.Unlock()
}

// Refused counts the remote stamps Update refused.
func (c *Clock) Refused() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// Update stamps the receipt of a frame stamped remote: the result is after
// both remote and every stamp this clock gave before. A remote stamp more
// than the maximum offset ahead is refused (counted in Refused): the
// receipt is stamped as a local event, so that one forged stamp cannot
// pin the clock in the future.
func (c *Clock) Update(remote HLC) HLC {
	h, _ := c.UpdateChecked(remote)
	return h
}

// UpdateChecked is Update that also says, with an error wrapping
// ErrClock, that it refused remote.
func (c *Clock) UpdateChecked(remote HLC) (HLC, error) {
	pt := c.phys()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := CheckAhead(remote, pt, c.maxOffset); err != nil {
		c.refused++
		if pt > c.last.Wall {
			c.last = HLC{Wall: pt}
		} else {
			c.last = c.last.tick()
		}
		return c.last, err
	}
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
	return c.last, nil
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
