package sim

import (
	"fmt"
	"testing"
	"time"

	"manetlab/protocol"
)

// probe is a test protocol exercising every way of sending: node 1 sends
// numbered unicasts to node 2 once it hears it, delivers one message to
// every other member across hops, and floods one message; everyone records
// what arrives.
type probe struct {
	env  protocol.Env
	id   protocol.NodeID
	ids  []protocol.NodeID
	seen *probeLog
	sent bool // the unicasts went out (at the first NeighborUp of node 2)
}

type probeMsg struct {
	N    int
	Mode string
}

func (m probeMsg) Kind() string { return "probe-" + m.Mode }

type probeLog struct {
	unicast   []int                     // numbers node 2 received from node 1, in order
	delivered map[protocol.NodeID][]int // node -> hops of deliveries addressed to it
	flooded   map[protocol.NodeID]int   // node -> flood copies received
	wrongDest map[protocol.NodeID]protocol.NodeID
}

var currentProbe *probeLog

func init() {
	protocol.Register(protocol.Spec{Name: "test/probe", Messages: []protocol.Message{probeMsg{}},
		New: func(c protocol.Config) (protocol.Process, error) {
			return &probe{env: c.Env, id: c.ID, ids: c.Members, seen: currentProbe}, nil
		}})
}

func (p *probe) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		if p.id == 1 {
			p.env.SetTimer(5*time.Second, "multihop", 0)
		}
	case protocol.NeighborUp:
		if p.id == 1 && e.ID == 2 && !p.sent {
			p.sent = true
			for i := 0; i < 50; i++ {
				p.env.Send(2, probeMsg{N: i, Mode: "unicast"})
			}
		}
	case protocol.Timeout:
		for _, id := range p.ids {
			if id != p.id {
				p.env.Deliver(id, probeMsg{N: int(id), Mode: "deliver"})
			}
		}
		p.env.Flood(probeMsg{Mode: "flood"})
	case protocol.Receive:
		m := e.Msg.(probeMsg)
		switch m.Mode {
		case "unicast":
			p.seen.unicast = append(p.seen.unicast, m.N)
		case "deliver":
			if protocol.NodeID(m.N) != p.id {
				p.seen.wrongDest[p.id] = protocol.NodeID(m.N)
			}
			p.seen.delivered[p.id] = append(p.seen.delivered[p.id], e.Hops)
		case "flood":
			p.seen.flooded[p.id]++
		}
	}
}

func TestUnicastDeliverAndFloodOverALossyLine(t *testing.T) {
	// Six nodes 200 m apart with a 250 m range: a line, five hops end to end.
	var list string
	for i := 1; i <= 6; i++ {
		list += fmt.Sprintf("    - {id: %d, pos: [%d, 0]}\n", i, 200*(i-1))
	}
	y := "duration: 20s\nprotocol: {name: test/probe}\nradio: {range: 250, loss: {p: 0.2}}\nnodes:\n  list:\n" + list
	for seed := 1; seed <= 5; seed++ {
		currentProbe = &probeLog{delivered: map[protocol.NodeID][]int{}, flooded: map[protocol.NodeID]int{}, wrongDest: map[protocol.NodeID]protocol.NodeID{}}
		res, err := Run(parse(t, y, fmt.Sprintf("seed=%d", seed)), Options{Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		log := currentProbe
		if len(log.unicast) != 50 {
			t.Fatalf("seed %d: %d of 50 unicasts arrived despite retransmission", seed, len(log.unicast))
		}
		for i, n := range log.unicast {
			if n != i {
				t.Fatalf("seed %d: unicast order broken at %d: %v", seed, i, log.unicast)
			}
		}
		if len(log.wrongDest) > 0 {
			t.Fatalf("seed %d: deliveries reached the wrong node: %v", seed, log.wrongDest)
		}
		for id := protocol.NodeID(2); id <= 6; id++ {
			// Loss may cut a flood short, but never duplicate it, and a
			// delivery needs at least the hop distance.
			if hops := log.delivered[id]; len(hops) > 1 || len(hops) == 1 && hops[0] < int(id-1) {
				t.Fatalf("seed %d: node %d got deliveries with hops %v (distance %d)", seed, id, hops, id-1)
			}
			if log.flooded[id] > 1 {
				t.Fatalf("seed %d: node %d got the flood %d times", seed, id, log.flooded[id])
			}
		}
		if log.flooded[1] != 0 {
			t.Fatalf("seed %d: the originator received its own flood", seed)
		}
		if res.Messages["probe-unicast"] != 50 || res.Messages["probe-deliver"] != 5 || res.Messages["probe-flood"] != 1 {
			t.Fatalf("seed %d: message counts %v", seed, res.Messages)
		}
	}
}

func TestFloodReachesEveryoneWithoutLoss(t *testing.T) {
	var list string
	for i := 1; i <= 6; i++ {
		list += fmt.Sprintf("    - {id: %d, pos: [%d, 0]}\n", i, 200*(i-1))
	}
	y := "duration: 10s\nprotocol: {name: test/probe}\nradio: {range: 250}\nnodes:\n  list:\n" + list
	currentProbe = &probeLog{delivered: map[protocol.NodeID][]int{}, flooded: map[protocol.NodeID]int{}, wrongDest: map[protocol.NodeID]protocol.NodeID{}}
	if _, err := Run(parse(t, y), Options{Out: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for id := protocol.NodeID(2); id <= 6; id++ {
		if got := currentProbe.delivered[id]; len(got) != 1 || got[0] != int(id-1) {
			t.Errorf("node %d: deliveries with hops %v, want exactly one over %d hops", id, got, id-1)
		}
		if currentProbe.flooded[id] != 1 {
			t.Errorf("node %d: flood received %d times, want 1", id, currentProbe.flooded[id])
		}
	}
}
