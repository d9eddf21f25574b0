package bully

import (
	"fmt"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// The defaults of the parameters that do not scale with rto.
const (
	DefaultStart = time.Second     // the initiators' first election, after Start
	DefaultCheck = 2 * time.Second // the failure detectors' period
)

// settings are one form's parameters, parsed the same way by New and by
// the Complexity bound.
type settings struct {
	initiators []protocol.NodeID // ascending
	detectors  []protocol.NodeID // ascending
	start      time.Duration
	timeout    time.Duration // an election waits this long for answers from higher IDs
	leader     time.Duration // leader-timeout: for the coordinator after an answer; Garcia-Molina's Timeout
	check      time.Duration // 0: no failure detection
	rel        reliable.Config
}

func (s *settings) initiator(id protocol.NodeID) bool {
	_, ok := slices.BinarySearch(s.initiators, id)
	return ok
}

func (s *settings) detector(id protocol.NodeID) bool {
	_, ok := slices.BinarySearch(s.detectors, id)
	return ok
}

// parse reads p for the form: rto and retries, initiators, detectors,
// start, timeout, leader-timeout and check. Errors name the field, and
// unknown keys are refused.
func parse(form string, p protocol.Params, members []protocol.NodeID) (*settings, error) {
	return parseWith(form, p, members, 0, 0)
}

// parseWith is parse knowing the scenario's hop delay and route delay
// (protocol.Config; 0: unknown or none): legal timeouts shorter than a
// one-hop round trip, or than the wait for a route, come back as a
// protocol.Warning with the figures, beside the settings.
func parseWith(form string, p protocol.Params, members []protocol.NodeID, hop, route time.Duration) (*settings, error) {
	r := p.Reader()
	s := &settings{rel: reliable.ParamsConfig(r)}
	s.rel.RouteDelay = route
	s.initiators = r.MemberSet("initiators", members)
	s.detectors = r.MemberSet("detectors", members)
	s.start = r.Duration("start", DefaultStart)
	s.check = r.Duration("check", DefaultCheck)
	rt := s.rel.RTO()
	// An election waits for four transmissions of its messages (0, 1, 3
	// and 7 rto after the first, each after the wait for a route under
	// AODV: the channel's first wait is rto + route) and their answers: on
	// a lossy multi-hop network a shorter wait takes a live node's delayed
	// answer for silence, and a lower node wins.
	def := 10*rt + route
	s.timeout = r.Duration("timeout", def)
	if s.timeout < 2*rt {
		r.Reject("timeout", s.timeout, fmt.Sprintf("at least 2·rto = %v: an election waits for answers that the channel may have to retransmit "+
			"(and rto must exceed a round trip: 2·hops·radio.delay)", 2*rt))
		s.timeout = def
	}
	def = 3 * s.timeout
	if form == GarciaMolina && s.check > 0 {
		// A member's Timeout waits for the coordinator's next Check.
		def = 2*s.check + s.timeout
	}
	s.leader = r.Duration("leader-timeout", def)
	if s.leader <= s.timeout {
		r.Reject("leader-timeout", s.leader, fmt.Sprintf("longer than timeout (%v): the coordinator answers after its own election's timeout", s.timeout))
		s.leader = def
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", form, err)
	}
	if rtt := 2 * hop; hop > 0 && (rt < rtt || s.timeout < rtt) {
		return s, &protocol.Warning{Text: fmt.Sprintf("%s: protocol.params.rto %v and timeout %v, but a round trip over one hop takes %v at a hop time of %v (radio.delay, or the DCF medium's exchange) "+
			"(each further hop adds %v): answers from live nodes will come too late, so lower nodes win elections and the channel retransmits for nothing",
			form, rt, s.timeout, rtt, hop, rtt)}
	}
	if route > 0 && s.timeout < route+rt {
		return s, &protocol.Warning{Text: fmt.Sprintf("%s: protocol.params.timeout %v, but under routing.protocol aodv a first message to a node "+
			"beyond routing.aodv.ttl_threshold hops waits %v for its route, and its answer a round trip more: live higher nodes will answer too "+
			"late and lower nodes win elections; give a timeout of at least %v, the wait plus rto (docs/routing.md)", form, s.timeout, route, route+rt)}
	}
	return s, nil
}
