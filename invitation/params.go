package invitation

import (
	"fmt"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// The values of protocol.params.reach.
const (
	// ReachMultiHop: messages go by Env.Deliver, across hops, to any member.
	ReachMultiHop = "multi-hop"
	// ReachOneHop: messages go by Env.Send to radio neighbours only; a
	// node that is not a neighbour (protocol.NeighborUp/NeighborDown) is
	// unreachable.
	ReachOneHop = "one-hop"
)

// The values of protocol.params.accept.
const (
	// AcceptHigher: a node in Normal accepts an invitation its own
	// coordinator forwards, and otherwise only one from a coordinator
	// higher than both itself and its coordinator; it declines the rest
	// (the seed: the invited coordinator "may accept or decline"). Every
	// group's coordinator stays its highest member, so a stable component
	// ends led by its highest live ID.
	AcceptHigher = "higher"
	// AcceptAny: Garcia-Molina's Invitation procedure as written: a node in
	// Normal accepts every invitation. The lower coordinator's wait in
	// proportion to the ID gap usually lets the higher merge first, but a
	// lower coordinator whose wait runs out first takes the higher ones
	// into its group and keeps them.
	AcceptAny = "any"
)

// The defaults of the parameters.
// answer and window add protocol.Config.RouteDelay (parseWith).
const (
	DefaultCheck  = 2 * time.Second        // a coordinator's Check period
	DefaultProbe  = 2 * time.Second        // a member's AreYouThere period
	DefaultAnswer = 500 * time.Millisecond // how long Check waits for answers, plus the route delay
	DefaultWindow = 500 * time.Millisecond // how long Merge waits for accepts, plus the route delay
)

// settings are the parameters, parsed the same way by New and by the
// Complexity bound.
type settings struct {
	reach  string
	accept string
	check  time.Duration // Check period (coordinators)
	probe  time.Duration // AreYouThere period (members)
	answer time.Duration // Check collects AreYouCoordinator answers this long at most
	window time.Duration // Merge collects accepts this long ("sleep(seconds)" in the seed)
	gap    time.Duration // per unit of ID gap, the lower coordinator's wait before it merges
	// timeout is how long a member waits for the answer to AreYouThere,
	// and an invited node for its accept's answer and the Ready, before it
	// gives the group up (Recovery). By default twice the channel's
	// give-up time (the question and the answer may each take that long),
	// and at least three probe periods.
	timeout time.Duration
	rel     reliable.Config
}

// parse reads p: reach, accept, check, probe, answer, window, gap,
// timeout, rto and retries. Errors name the field; unknown keys are
// refused.
func parse(p protocol.Params) (*settings, error) {
	return parseWith(p, 0)
}

// parseWith is parse knowing the scenario's route delay
// (protocol.Config.RouteDelay; 0 under flooding or unknown): with reach
// multi-hop, the defaults of answer and window, and the channel's first
// wait, add it (a question or an accept to a node the sender has no route
// to waits that long for one), and an answer or window given below it
// comes back as a protocol.Warning with the figures, beside the settings.
// With reach one-hop messages go to radio neighbours and wait for no
// route.
func parseWith(p protocol.Params, route time.Duration) (*settings, error) {
	r := p.Reader()
	s := &settings{rel: reliable.ParamsConfig(r)}
	s.reach = r.String("reach", ReachMultiHop, ReachMultiHop, ReachOneHop)
	if s.reach == ReachOneHop {
		route = 0
	}
	s.rel.RouteDelay = route
	s.accept = r.String("accept", AcceptHigher, AcceptHigher, AcceptAny)
	s.check = positive(r, "check", DefaultCheck)
	s.probe = positive(r, "probe", DefaultProbe)
	s.answer = positive(r, "answer", DefaultAnswer+route)
	s.window = positive(r, "window", DefaultWindow+route)
	s.gap = r.Duration("gap", s.check+s.answer)
	s.timeout = positive(r, "timeout", max(2*s.rel.GiveUp(), 3*s.probe))
	if err := r.Err(); err != nil {
		return nil, err
	}
	if route > 0 && (s.answer < route || s.window < route) {
		return s, &protocol.Warning{Text: fmt.Sprintf("%s: protocol.params.answer %v and window %v, but under routing.protocol aodv a first message to a node "+
			"beyond routing.aodv.ttl_threshold hops waits %v for its route: coordinators' answers and accepts will come after Check and Merge stopped "+
			"waiting, and groups merge in several steps; give both at least %v, the wait plus 500ms (docs/routing.md)", Name, s.answer, s.window, route, route+DefaultAnswer)}
	}
	return s, nil
}

// hopWarning warns, with the figures, when s's waits are shorter than a
// few hop times (hop is protocol.Config.HopDelay: radio.delay on the ideal
// medium, the DCF medium's exchange): the channel's rto
// (reliable.HopWarning), and answer and window, each of which waits for a
// round trip to every member that answers, below reliable.WarnHops hop
// times. Nil when hop is unknown (zero) or every wait is long enough, as
// the defaults always are.
func hopWarning(s *settings, hop time.Duration) *protocol.Warning {
	var waits *protocol.Warning
	if least := reliable.WarnHops * hop; hop > 0 && (s.answer < least || s.window < least) {
		waits = &protocol.Warning{Text: fmt.Sprintf("%s: protocol.params.answer %v and window %v, but a round trip over one hop takes %v at a hop time of %v "+
			"(radio.delay, or the DCF medium's exchange), and both should be at least %d hop times (%v): answers and accepts from live nodes "+
			"will come after Check and Merge stopped waiting, and groups split", Name, s.answer, s.window, 2*hop, hop, reliable.WarnHops, least)}
	}
	return protocol.JoinWarnings(reliable.HopWarning(Name, s.rel, hop), waits)
}

func positive(r *protocol.ParamReader, key string, def time.Duration) time.Duration {
	d := r.Duration(key, def)
	if d == 0 {
		r.Reject(key, "0s", `a positive duration such as "1s"`)
		return def
	}
	return d
}
