package ring

import (
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	"manetlab/protocol/reliable"
)

// DefaultStart is how long after Start the initiators begin, so that every
// process of a real run is up before the first message.
const DefaultStart = time.Second

// DefaultCheck is how often a Tanenbaum member checks its coordinator.
const DefaultCheck = 2 * time.Second

// settings are one algorithm's parameters, parsed the same way by New and
// by the Complexity bound.
type settings struct {
	ring       *logicalring.Ring
	initiators []protocol.NodeID // ascending
	start      time.Duration
	rel        reliable.Config
	// Tanenbaum only.
	timeout time.Duration // the election timeout
	check   time.Duration // the coordinator check period
}

func (s *settings) initiator(id protocol.NodeID) bool {
	_, ok := slices.BinarySearch(s.initiators, id)
	return ok
}

// parse reads p for the algorithm: ring and channels, rto and retries,
// initiators and start; timeout and check for Tanenbaum. Errors name the
// field, and unknown keys are refused. route is protocol.Config.RouteDelay
// (0 under flooding or unknown): the channel's first wait and Tanenbaum's
// default timeout add it.
func parse(alg string, p protocol.Params, members []protocol.NodeID, seed uint64, route time.Duration) (*settings, error) {
	r := p.Reader()
	s := &settings{rel: reliable.ParamsConfig(r)}
	s.rel.RouteDelay = route
	ring, err := logicalring.FromParams(r, members, seed, alg == HirschbergSinclair)
	if err != nil {
		return nil, err
	}
	s.ring = ring
	s.initiators = r.MemberSet("initiators", members)
	s.start = r.Duration("start", DefaultStart)
	if alg == Tanenbaum {
		s.timeout = r.Duration("timeout", defaultTimeout(s.rel, len(members)))
		s.check = r.Duration("check", DefaultCheck)
		if s.check == 0 {
			r.Reject("check", "0s", `a positive duration such as "2s"`)
		}
		if s.timeout == 0 {
			r.Reject("timeout", "0s", `a positive duration such as "20s"`)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// defaultTimeout is the Tanenbaum election timeout when the scenario gives
// none: the time the reliable channel takes to declare one peer
// unreachable (rto·(2^(retries+1)-1) + the route delay: every
// retransmission doubles the wait) plus, per member, four retransmission
// timeouts and one wait for a route (under AODV each hop of the first
// election may have to find its successor), room for the election and the
// coordinator to go round with some losses repaired. With the defaults
// (200ms, 5 retries) and 8 members: 12.6s + 6.4s = 19s under flooding;
// 14.52s + 6.4s + 8·1.92s = 36.28s under AODV.
func defaultTimeout(c reliable.Config, n int) time.Duration {
	return c.GiveUp() + time.Duration(n)*(4*c.RTO()+c.RouteDelay)
}
