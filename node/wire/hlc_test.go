package wire

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fakeTime is a physical clock the test sets.
type fakeTime struct{ t int64 }

func (f *fakeTime) now() int64 { return f.t }

func TestClockMonotonicWhenPhysicalTimeGoesBack(t *testing.T) {
	pt := &fakeTime{t: 1000}
	c := NewClock(pt.now)
	r := rand.New(rand.NewPCG(2, 0))
	prev := c.Now()
	for i := 0; i < 10000; i++ {
		pt.t += r.Int64N(200) - 120 // drifts backwards on average
		var h HLC
		if r.IntN(3) == 0 {
			h = c.Update(HLC{Wall: pt.t + r.Int64N(400) - 200, Logical: uint32(r.IntN(5))})
		} else {
			h = c.Now()
		}
		if h.Compare(prev) <= 0 {
			t.Fatalf("step %d: %+v not after %+v", i, h, prev)
		}
		if h.Wall < pt.t {
			t.Fatalf("step %d: wall %d behind physical %d", i, h.Wall, pt.t)
		}
		prev = h
	}
}

func TestClockNow(t *testing.T) {
	pt := &fakeTime{t: 50}
	c := NewClock(pt.now)
	if h := c.Now(); h != (HLC{50, 0}) {
		t.Errorf("first stamp %+v", h)
	}
	if h := c.Now(); h != (HLC{50, 1}) {
		t.Errorf("same physical time: %+v, want logical 1", h)
	}
	pt.t = 40
	if h := c.Now(); h != (HLC{50, 2}) {
		t.Errorf("physical time went back: %+v, want {50 2}", h)
	}
	pt.t = 60
	if h := c.Now(); h != (HLC{60, 0}) {
		t.Errorf("physical time moved on: %+v, want {60 0}", h)
	}
}

func TestClockUpdateKeepsCausality(t *testing.T) {
	pt := &fakeTime{t: 1_000}
	c := NewClock(pt.now)
	c.Now()
	remote := HLC{Wall: 1_000_000_000_000, Logical: 7} // a sender far ahead
	got := c.Update(remote)
	if got.Compare(remote) <= 0 {
		t.Fatalf("receive %+v not after the send %+v", got, remote)
	}
	if got != (HLC{remote.Wall, 8}) {
		t.Errorf("receive %+v, want {%d 8}", got, remote.Wall)
	}
	// Later events stay after it although physical time lags behind.
	if n := c.Now(); n.Compare(got) <= 0 {
		t.Errorf("next event %+v not after the receive %+v", n, got)
	}
	// Equal walls: the larger logical wins, plus one.
	pt2 := &fakeTime{t: 5}
	c2 := NewClock(pt2.now)
	c2.Update(HLC{Wall: 100, Logical: 3})
	if h := c2.Update(HLC{Wall: 100, Logical: 9}); h != (HLC{100, 10}) {
		t.Errorf("equal walls: %+v, want {100 10}", h)
	}
	// A remote behind us changes nothing but the counter.
	if h := c2.Update(HLC{Wall: 20, Logical: 50}); h != (HLC{100, 11}) {
		t.Errorf("remote behind: %+v, want {100 11}", h)
	}
	// Physical time ahead of both resets the counter.
	pt2.t = 200
	if h := c2.Update(HLC{Wall: 150, Logical: 2}); h != (HLC{200, 0}) {
		t.Errorf("physical ahead: %+v, want {200 0}", h)
	}
}

func TestClockLogicalOverflowCarries(t *testing.T) {
	c := NewClock((&fakeTime{t: 0}).now)
	h := c.Update(HLC{Wall: 10, Logical: math.MaxUint32})
	if h != (HLC{11, 0}) {
		t.Errorf("overflow: %+v, want {11 0}", h)
	}
	top := HLC{Wall: math.MaxInt64, Logical: math.MaxUint32}
	if h := c.Update(top); h.Compare(top) < 0 {
		t.Errorf("saturated clock went back to %+v", h)
	}
}

func TestNewClockDefaultsToWallClock(t *testing.T) {
	if h := NewClock(nil).Now(); h.Wall < 1_600_000_000_000_000_000 {
		t.Errorf("default clock reads %d, not Unix nanoseconds", h.Wall)
	}
}
