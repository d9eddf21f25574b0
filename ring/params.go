package ring

import (
	"fmt"
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
// field, and unknown keys are refused.
func parse(alg string, p protocol.Params, members []protocol.NodeID, seed uint64) (*settings, error) {
	r := p.Reader()
	s := &settings{rel: reliable.ParamsConfig(r)}
	ring, err := logicalring.FromParams(r, members, seed, alg == HirschbergSinclair)
	if err != nil {
		return nil, err
	}
	s.ring = ring
	s.initiators = readInitiators(r, members)
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
// unreachable (rto·(2^(retries+1)-1): every retransmission doubles the
// wait) plus four retransmission timeouts per member, room for the
// election and the coordinator to go round with some losses repaired.
// With the defaults (200ms, 5 retries) and 8 members: 12.6s + 6.4s = 19s.
func defaultTimeout(c reliable.Config, n int) time.Duration {
	rto := c.Timeout
	if rto <= 0 {
		rto = reliable.DefaultTimeout
	}
	retries := c.Retries
	switch {
	case retries == 0:
		retries = reliable.DefaultRetries
	case retries < 0:
		retries = 0
	}
	detect := rto * time.Duration(1<<(min(retries, 20)+1)-1)
	return detect + 4*time.Duration(n)*rto
}

const initiatorsWant = "all, one or a list of node IDs"

// readInitiators reads "initiators": "all" (the default), "one" (the
// lowest ID) or a list of member IDs (a single ID is a list of one).
func readInitiators(r *protocol.ParamReader, members []protocol.NodeID) []protocol.NodeID {
	v, ok := r.Any("initiators")
	if !ok {
		return slices.Clone(members)
	}
	var raw []any
	switch x := v.(type) {
	case string:
		switch x {
		case "all":
			return slices.Clone(members)
		case "one":
			return members[:min(1, len(members)):min(1, len(members))]
		}
		r.Reject("initiators", fmt.Sprintf("%q", x), initiatorsWant)
		return slices.Clone(members)
	case []any:
		raw = x
	case []int:
		for _, i := range x {
			raw = append(raw, i)
		}
	case []protocol.NodeID:
		for _, i := range x {
			raw = append(raw, i)
		}
	default:
		if _, isID := protocol.NodeIDOf(v); !isID {
			r.Reject("initiators", v, initiatorsWant)
			return slices.Clone(members)
		}
		raw = []any{v}
	}
	if len(raw) == 0 {
		r.Reject("initiators", "an empty list", initiatorsWant+" (at least one)")
		return slices.Clone(members)
	}
	ids := make([]protocol.NodeID, 0, len(raw))
	for _, e := range raw {
		id, isID := protocol.NodeIDOf(e)
		if !isID {
			r.Reject("initiators", v, initiatorsWant)
			return slices.Clone(members)
		}
		if _, member := slices.BinarySearch(members, id); !member {
			r.Reject("initiators", fmt.Sprintf("node %d", id), fmt.Sprintf("a member (members: %s)", logicalring.Describe(members)))
			return slices.Clone(members)
		}
		if slices.Contains(ids, id) {
			r.Reject("initiators", fmt.Sprintf("node %d", id), "listed once (it appears twice)")
			return slices.Clone(members)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
