// Package traffic holds traffic generators: protocols that elect nothing
// and send application packets between chosen nodes, so that the network
// stack's routing can be measured (docs/routing.md) and compared with
// other simulators on the same setup.
//
// It is a protocol family: it imports only manetlab/protocol and the
// standard library.
package traffic

import (
	"fmt"
	"math/rand/v2"
	"time"

	"manetlab/protocol"
)

// Name is the registered name of the constant-rate generator.
const Name = "traffic/cbr"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "constant-rate flows between pairs of nodes over Env.Deliver (measures routing: trace report's routing section)",
		New:      New,
		Messages: []protocol.Message{Packet{}},
		Goal:     protocol.GoalNone,
	})
}

// Packet is one application packet of flow Flow, number N, padded to the
// flow's size.
type Packet struct {
	Flow uint32
	N    uint32
	Pad  []byte
}

// Kind implements protocol.Message.
func (Packet) Kind() string { return "packet" }

// Flow is a source, a destination and what it has sent.
type Flow struct {
	From, To protocol.NodeID
}

// CBR is a node's generator: it sends the packets of the flows it is the
// source of, every interval from start (plus the flow's phase) until stop.
type CBR struct {
	env      protocol.Env
	id       protocol.NodeID
	flows    []Flow
	interval time.Duration
	start    time.Duration
	stop     time.Duration // 0: until the run ends
	phase    []time.Duration
	size     int
	sent     []uint32
	poisson  bool // exponential gaps of mean interval (Env.Rand) rather than periodic
	oneHop   bool // Env.Send, one hop without route discovery, rather than Deliver
}

// New builds a node's generator. Parameters:
//   - flows: a list of [source, destination] pairs of member IDs (a
//     destination per node, or several), or "random N" for N pairs of
//     distinct members drawn from the seed (each source and destination
//     different; a pair may repeat), or "random" (every member sends to
//     another member drawn for it), or "permutation" (every member sends
//     to another, each member the destination of exactly one: a random
//     permutation without fixed points), both drawn from the seed; default
//     [lowest, highest];
//   - interval: time between two packets of a flow (default 1s), the mean
//     time with arrivals poisson;
//   - arrivals: "periodic" (the default) or "poisson" (exponential gaps
//     of mean interval, each drawn from the source's Env.Rand);
//   - hop: "route" (Env.Deliver: routed, the default) or "one" (Env.Send:
//     a one-hop acknowledged unicast, no route discovery; a destination
//     out of range loses the packet, "no-ack");
//   - start, stop: when flows begin and end (default 1s and never);
//   - phase: "zero" (every flow at start, the default) or "random" (each
//     flow at start plus a uniform draw in [0, interval) from the seed);
//   - size: padding bytes in each packet (default 64).
func New(cfg protocol.Config) (protocol.Process, error) {
	r := cfg.Params.Reader()
	c := &CBR{env: cfg.Env, id: cfg.ID}
	c.interval = r.Duration("interval", time.Second)
	c.start = r.Duration("start", time.Second)
	c.stop = r.Duration("stop", 0)
	c.size = r.Int("size", 64)
	phase := r.String("phase", "zero", "zero", "random")
	c.poisson = r.String("arrivals", "periodic", "periodic", "poisson") == "poisson"
	c.oneHop = r.String("hop", "route", "route", "one") == "one"
	flows, bad := parseFlows(r, cfg.Members, cfg.Seed)
	if err := r.Err(); err != nil {
		return nil, err
	}
	switch {
	case bad != "":
		return nil, fmt.Errorf("protocol.params.flows: %s", bad)
	case c.interval <= 0:
		return nil, fmt.Errorf("protocol.params.interval: must be above zero (got %s)", c.interval)
	case c.start < 0 || c.stop < 0 || c.stop != 0 && c.stop <= c.start:
		return nil, fmt.Errorf("protocol.params.start, stop: want 0 <= start < stop (got %s, %s)", c.start, c.stop)
	case c.size < 0 || c.size > 1024:
		return nil, fmt.Errorf("protocol.params.size: must be 0 to 1024 bytes (got %d)", c.size)
	}
	c.flows = flows
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636272)) // the same phases at every node
	for range flows {
		p := time.Duration(0)
		if phase == "random" {
			p = time.Duration(rng.Int64N(int64(c.interval)))
		}
		c.phase = append(c.phase, p)
	}
	c.sent = make([]uint32, len(flows))
	return c, nil
}

// parseFlows reads the flows parameter; bad says what is wrong.
func parseFlows(r *protocol.ParamReader, members []protocol.NodeID, seed uint64) ([]Flow, string) {
	if len(members) < 2 {
		return nil, "needs at least two members"
	}
	v, ok := r.Any("flows")
	if !ok {
		return []Flow{{members[0], members[len(members)-1]}}, ""
	}
	isMember := map[protocol.NodeID]bool{}
	for _, m := range members {
		isMember[m] = true
	}
	switch x := v.(type) {
	case string:
		switch x {
		case "random":
			return randomFlows(members, seed), ""
		case "permutation":
			return permutationFlows(members, seed), ""
		}
		var n int
		if _, err := fmt.Sscanf(x, "random %d", &n); err != nil || n < 1 || n > 10000 {
			return nil, fmt.Sprintf("%q is not \"random N\" (N from 1 to 10000), \"random\" or \"permutation\"", x)
		}
		rng := rand.New(rand.NewPCG(seed, 0x666c6f77))
		flows := make([]Flow, n)
		for i := range flows {
			a := rng.IntN(len(members))
			b := rng.IntN(len(members) - 1)
			if b >= a {
				b++
			}
			flows[i] = Flow{members[a], members[b]}
		}
		return flows, ""
	case []any:
		var flows []Flow
		for i, p := range x {
			pair, ok := p.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Sprintf("entry %d is not a [source, destination] pair", i)
			}
			var ids [2]protocol.NodeID
			for j, v := range pair {
				n, ok := v.(int)
				if !ok || n <= 0 || !isMember[protocol.NodeID(n)] {
					return nil, fmt.Sprintf("entry %d: %v is not a member ID", i, v)
				}
				ids[j] = protocol.NodeID(n)
			}
			if ids[0] == ids[1] {
				return nil, fmt.Sprintf("entry %d: source and destination are both %d", i, ids[0])
			}
			flows = append(flows, Flow{ids[0], ids[1]})
		}
		if len(flows) == 0 {
			return nil, "an empty list"
		}
		return flows, ""
	}
	return nil, fmt.Sprintf("%v is not a list of [source, destination] pairs or \"random N\"", v)
}

// Step implements protocol.Process.
func (c *CBR) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		now := c.env.Now()
		for i, f := range c.flows {
			if f.From != c.id {
				continue
			}
			at := c.start + c.phase[i]
			if c.poisson {
				at = c.start + time.Duration(c.env.Rand().ExpFloat64()*float64(c.interval))
			}
			for at < now { // a recovered node resumes at its next slot
				at += c.interval
			}
			c.env.SetTimer(at-now, "send", int64(i))
		}
	case protocol.Timeout:
		i := int(e.Arg)
		now := c.env.Now()
		if c.stop != 0 && now >= c.stop {
			return
		}
		c.sent[i]++
		p := Packet{Flow: uint32(i), N: c.sent[i], Pad: make([]byte, c.size)}
		if c.oneHop {
			c.env.Send(c.flows[i].To, p)
		} else {
			c.env.Deliver(c.flows[i].To, p)
		}
		gap := c.interval
		if c.poisson {
			gap = time.Duration(c.env.Rand().ExpFloat64() * float64(c.interval))
		}
		c.env.SetTimer(gap, "send", e.Arg)
	}
}

// randomFlows gives every member a flow to another member drawn for it
// from the seed (the same at every node).
func randomFlows(members []protocol.NodeID, seed uint64) []Flow {
	rng := rand.New(rand.NewPCG(seed, 0x72616e64))
	flows := make([]Flow, len(members))
	for i, m := range members {
		j := rng.IntN(len(members) - 1)
		if j >= i {
			j++
		}
		flows[i] = Flow{m, members[j]}
	}
	return flows
}

// permutationFlows gives every member a flow to another member, each
// member the destination of one flow: a uniform random derangement
// (shuffles drawn from the seed until none has a fixed point; about e
// tries on average).
func permutationFlows(members []protocol.NodeID, seed uint64) []Flow {
	rng := rand.New(rand.NewPCG(seed, 0x7065726d))
	n := len(members)
	perm := make([]int, n)
	for {
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		fixed := false
		for i, p := range perm {
			fixed = fixed || p == i
		}
		if !fixed {
			break
		}
	}
	flows := make([]Flow, n)
	for i, m := range members {
		flows[i] = Flow{m, members[perm[i]]}
	}
	return flows
}
