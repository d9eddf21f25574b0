package mutex

import (
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// The unit tests run the algorithms on protonet's in-memory network in
// virtual time (1 ms per frame unless shuffled), with the workload given
// as actions.

func peerAt(d time.Duration, fn func()) protonet.Action { return protonet.Action{At: d, Fn: fn} }

func millis(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// memberIDs are the members 1..n.
func memberIDs(n int) []protocol.NodeID {
	out := make([]protocol.NodeID, n)
	for i := range out {
		out[i] = protocol.NodeID(i + 1)
	}
	return out
}

// askAt and leaveAt are workload commands as actions.
func askAt(net *protonet.Network, d time.Duration, id protocol.NodeID) protonet.Action {
	return peerAt(d, func() { net.Command(id, protocol.Request) })
}

func leaveAt(net *protonet.Network, d time.Duration, id protocol.NodeID) protonet.Action {
	return peerAt(d, func() { net.Command(id, protocol.Release) })
}

// stay is one stay in the critical section, in virtual time.
type stay struct {
	node        protocol.NodeID
	enter, exit time.Duration // exit -1: not left
}

// stays reads the stays from the network's notes and fails the test if
// two overlap in virtual time (a node entering while another is in) or a
// node enters twice without leaving.
func stays(t *testing.T, net *protonet.Network) []stay {
	t.Helper()
	var out []stay
	open := map[protocol.NodeID]int{} // node -> index in out
	for _, r := range net.Notes {
		switch r.Kind {
		case protocol.NoteCSEnter:
			if _, in := open[r.Node]; in {
				t.Fatalf("%s: node %d enters twice at %v", net.Alg, r.Node, r.At)
			}
			for other := range open {
				t.Fatalf("%s: node %d enters at %v while %d is in the section", net.Alg, r.Node, r.At, other)
			}
			open[r.Node] = len(out)
			out = append(out, stay{node: r.Node, enter: r.At, exit: -1})
		case protocol.NoteCSExit:
			i, in := open[r.Node]
			if !in {
				t.Fatalf("%s: node %d exits at %v without entering", net.Alg, r.Node, r.At)
			}
			out[i].exit = r.At
			delete(open, r.Node)
		}
	}
	return out
}

// entryOrder lists who entered, in order.
func entryOrder(secs []stay) []protocol.NodeID {
	out := make([]protocol.NodeID, len(secs))
	for i, s := range secs {
		out[i] = s.node
	}
	return out
}

// algMessages sums the frames sent that are not transport.
func algMessages(net *protonet.Network) int {
	total := 0
	for _, c := range net.AlgorithmKinds() {
		total += c
	}
	return total
}

// holdersNow lists the nodes whose process says it holds the section.
func holdersNow(net *protonet.Network) []protocol.NodeID {
	var out []protocol.NodeID
	for _, id := range net.Live() {
		if c, ok := net.Nodes[id].Proc.(interface{ holds() bool }); ok && c.holds() {
			out = append(out, id)
		}
	}
	return out
}

// atMostOneHolder fails the test whenever two processes hold the section.
func atMostOneHolder(net *protonet.Network) func(*protonet.Node) {
	return func(*protonet.Node) {
		if h := holdersNow(net); len(h) > 1 {
			net.T.Fatalf("%s at %v: %v hold the section together", net.Alg, net.Now, h)
		}
	}
}
