package mutex

import (
	"testing"
	"time"

	"manetlab/internal/protonet"
	"manetlab/protocol"
)

// The unit tests run the algorithms on protonet's in-memory network in
// virtual time (1 ms per frame unless shuffled), with the workload given
// as actions.

func at(d time.Duration, fn func()) protonet.Action { return protonet.Action{At: d, Fn: fn} }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// ids are the members 1..n.
func ids(n int) []protocol.NodeID {
	out := make([]protocol.NodeID, n)
	for i := range out {
		out[i] = protocol.NodeID(i + 1)
	}
	return out
}

// request and release are workload commands as actions.
func request(net *protonet.Network, d time.Duration, id protocol.NodeID) protonet.Action {
	return at(d, func() { net.Command(id, protocol.Request) })
}

func release(net *protonet.Network, d time.Duration, id protocol.NodeID) protonet.Action {
	return at(d, func() { net.Command(id, protocol.Release) })
}

// section is one stay in the critical section, in virtual time.
type section struct {
	node        protocol.NodeID
	enter, exit time.Duration // exit -1: not left
}

// sections reads the stays from the network's notes and fails the test if
// two overlap in virtual time (a node entering while another is in) or a
// node enters twice without leaving.
func sections(t *testing.T, net *protonet.Network) []section {
	t.Helper()
	var out []section
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
			out = append(out, section{node: r.Node, enter: r.At, exit: -1})
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

// order lists who entered, in order.
func order(secs []section) []protocol.NodeID {
	out := make([]protocol.NodeID, len(secs))
	for i, s := range secs {
		out[i] = s.node
	}
	return out
}

// algorithmCount sums the frames sent that are not transport.
func algorithmCount(net *protonet.Network) int {
	total := 0
	for _, c := range net.AlgorithmKinds() {
		total += c
	}
	return total
}

// holders lists the nodes whose process says it holds the section.
func holders(net *protonet.Network) []protocol.NodeID {
	var out []protocol.NodeID
	for _, id := range net.Live() {
		if c, ok := net.Nodes[id].Proc.(interface{ holds() bool }); ok && c.holds() {
			out = append(out, id)
		}
	}
	return out
}

// singleHolder fails the test whenever two processes hold the section.
func singleHolder(net *protonet.Network) func(*protonet.Node) {
	return func(*protonet.Node) {
		if h := holders(net); len(h) > 1 {
			net.T.Fatalf("%s at %v: %v hold the section together", net.Alg, net.Now, h)
		}
	}
}
