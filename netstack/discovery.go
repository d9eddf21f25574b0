package netstack

import (
	"cmp"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// helloTick sends this node's hello, declares down the neighbours not
// heard for longer than the timeout (in ascending member index order,
// which the protocol sees) and sets the next tick.
func (s *Stack) helloTick() {
	var ev trace.Event
	if s.cfg.TraceHello {
		ev = trace.Event{Ev: trace.EvSend, Kind: "hello"}
	}
	s.transmitNew(s.scratch(Frame{Type: Hello, To: -1}), ev)
	now := s.now()
	gone := s.down[:0]
	kept := s.nbrs[:0]
	for _, nb := range s.nbrs {
		if now-nb.Last > s.cfg.Timeout {
			gone = append(gone, nb.Index)
		} else {
			kept = append(kept, nb)
		}
	}
	s.nbrs, s.down = kept, gone
	for _, j := range gone {
		s.neighborEvent(j, false)
		if s.stopped {
			return
		}
		if s.cfg.Routing == RoutingAODV && !s.cfg.AODV.hellos() {
			s.linkBroken(j) // with hellos, AODV's own neighbour table says
		}
	}
	next := s.cfg.Hello
	if s.cfg.MAC != nil {
		// On the DCF medium every period is shortened by a jitter of up
		// to a quarter period (RFC 5148, periodic messages): with the
		// period fixed, two hidden terminals whose hellos (or a hello and
		// a protocol's periodic frame) once overlap at a common
		// neighbour overlap there at every period for ever.
		next -= time.Duration(s.rng.Int64N(int64(s.cfg.Hello)/4 + 1))
	}
	s.d.SetTimer(next, Timer{Kind: TimerHello})
}

// WarmNeighbors reads where heardHello's search of the neighbour table
// starts and returns a value that depends on it: Warm's counterpart for
// a hello about to reach many stacks (the table is in the stack's later
// lines, or an allocation of its own past 8 neighbours: one more cache
// miss a receiver, which the driver overlaps by calling this on every
// receiver first).
func (s *Stack) WarmNeighbors() uint64 {
	if n := len(s.nbrs); n > 0 {
		return uint64(s.nbrs[n/2].Index)
	}
	return 0
}

func (s *Stack) heardHello(from int32) {
	now := s.now()
	i, known := slices.BinarySearchFunc(s.nbrs, from, func(nb Neighbor, j int32) int { return cmp.Compare(nb.Index, j) })
	if known {
		s.nbrs[i].Last = now
		return
	}
	s.nbrs = slices.Insert(s.nbrs, i, Neighbor{Index: from, Last: now})
	s.neighborEvent(from, true)
}

func (s *Stack) neighborEvent(peer int32, up bool) {
	id := s.cfg.IDs[peer]
	ev := trace.Event{Ev: trace.EvNbrDown, Peer: id}
	if up {
		ev.Ev = trace.EvNbrUp
	}
	s.emit(ev)
	if up {
		s.d.Up(protocol.NeighborUp{ID: id})
	} else {
		s.d.Up(protocol.NeighborDown{ID: id})
	}
}
