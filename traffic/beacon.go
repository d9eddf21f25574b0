package traffic

import (
	"fmt"
	"slices"
	"time"

	"manetlab/protocol"
)

// BeaconName is the registered name of the one-hop broadcast generator.
const BeaconName = "traffic/beacon"

func init() {
	protocol.Register(protocol.Spec{
		Name:     BeaconName,
		Summary:  "every node broadcasts padded one-hop frames at chosen times (measures the medium: contention, collisions)",
		New:      NewBeacon,
		Messages: []protocol.Message{Beacon{}},
		Goal:     protocol.GoalNone,
	})
}

// Beacon is one broadcast: its sender's count, padded.
type Beacon struct {
	N   uint32
	Pad []byte
}

// Kind implements protocol.Message.
func (Beacon) Kind() string { return "beacon" }

// Beacons is a node's generator: count broadcasts, the first at start
// plus the node's offset, then one every period.
type Beacons struct {
	env     protocol.Env
	start   time.Duration
	spread  time.Duration
	period  time.Duration
	count   int
	size    int
	sent    int
	offset  time.Duration
	at      time.Duration     // the next broadcast's time
	sends   bool              // this node is one of the senders
	flood   bool              // Env.Flood rather than Broadcast
	poisson bool              // exponential gaps of mean period (Env.Rand)
	others  []protocol.NodeID // to random: the members but this node
	to      protocol.NodeID   // Env.Send to this node rather than Broadcast (None: broadcast)
}

// NewBeacon builds a node's generator. Parameters:
//   - start: the first broadcast (default 1s);
//   - spread: each node's first broadcast is start plus a uniform draw in
//     [0, spread) from its own stream (default 0: all at start exactly);
//   - period: between a node's broadcasts (default 1s);
//   - count: broadcasts per node (default 1);
//   - size: padding bytes in each frame (default 38: a 100-byte broadcast
//     frame on the wire, docs/wire.md; 20 for a 100-byte flood frame);
//   - from: the member IDs that send (default every node);
//   - flood: flood every beacon across the network (Env.Flood) rather
//     than broadcast it one hop (default false);
//   - arrivals: "periodic" (the default: period apart) or "poisson"
//     (exponential gaps of mean period, from the node's Env.Rand);
//   - to: a member ID: every beacon is an acknowledged one-hop unicast to
//     it (Env.Send) rather than a broadcast, and that node sends none; or
//     "random": each beacon to another member drawn from the node's
//     Env.Rand (default: none, broadcasts).
func NewBeacon(cfg protocol.Config) (protocol.Process, error) {
	r := cfg.Params.Reader()
	b := &Beacons{env: cfg.Env, sends: true}
	if _, ok := r.Any("from"); ok {
		b.sends = slices.Contains(r.MemberSet("from", cfg.Members), cfg.ID)
	}
	b.flood = r.Bool("flood", false)
	b.poisson = r.String("arrivals", "periodic", "periodic", "poisson") == "poisson"
	if v, ok := r.Any("to"); ok && v == "random" {
		for _, m := range cfg.Members {
			if m != cfg.ID {
				b.others = append(b.others, m)
			}
		}
	} else if ok {
		b.to = protocol.NodeID(r.Int("to", 0))
		if !slices.Contains(cfg.Members, b.to) {
			r.Reject("to", v, "a member's ID")
		}
		if b.to == cfg.ID {
			b.sends = false
		}
	}
	b.start = r.Duration("start", time.Second)
	b.spread = r.Duration("spread", 0)
	b.period = r.Duration("period", time.Second)
	b.count = r.Int("count", 1)
	b.size = r.Int("size", 38)
	if err := r.Err(); err != nil {
		return nil, err
	}
	switch {
	case b.start < 0:
		return nil, fmt.Errorf("protocol.params.start: must be 0 or above (got %s)", b.start)
	case b.spread < 0:
		return nil, fmt.Errorf("protocol.params.spread: must be 0 or above (got %s)", b.spread)
	case b.period <= 0:
		return nil, fmt.Errorf("protocol.params.period: must be above zero (got %s)", b.period)
	case b.count < 0:
		return nil, fmt.Errorf("protocol.params.count: must be 0 or above (got %d)", b.count)
	case b.size < 0 || b.size > 1024:
		return nil, fmt.Errorf("protocol.params.size: must be 0 to 1024 bytes (got %d)", b.size)
	case b.flood && (b.to != protocol.None || len(b.others) > 0):
		return nil, fmt.Errorf("protocol.params: flood and to exclude each other (a flood goes to every node)")
	}
	return b, nil
}

// Step implements protocol.Process.
func (b *Beacons) Step(ev protocol.Event) {
	switch ev.(type) {
	case protocol.Start:
		if !b.sends {
			return
		}
		if b.spread > 0 {
			b.offset = time.Duration(b.env.Rand().Int64N(int64(b.spread)))
		}
		b.at = b.start + b.offset
		now := b.env.Now()
		for b.at < now && b.sent < b.count { // a recovered node skips what it missed
			b.at += b.period
			b.sent++
		}
		if b.sent < b.count {
			b.env.SetTimer(b.at-now, "beacon", 0)
		}
	case protocol.Timeout:
		b.sent++
		m := Beacon{N: uint32(b.sent), Pad: make([]byte, b.size)}
		switch {
		case len(b.others) > 0:
			b.env.Send(b.others[b.env.Rand().IntN(len(b.others))], m)
		case b.to != protocol.None:
			b.env.Send(b.to, m)
		case b.flood:
			b.env.Flood(m)
		default:
			b.env.Broadcast(m)
		}
		if b.sent < b.count {
			gap := b.period
			if b.poisson {
				gap = time.Duration(b.env.Rand().ExpFloat64() * float64(b.period))
			}
			b.at += gap
			b.env.SetTimer(b.at-b.env.Now(), "beacon", 0)
		}
	}
}
