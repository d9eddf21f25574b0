package node

import (
	"fmt"
	"time"

	"manetlab/protocol"
)

// Faults by hand on one hosted node (Control.Op), as a launcher hands
// them to a node process on its standard input (--control-stdin).
const (
	// OpCrash stops the node as a kill of a process of its own would
	// (its protocol, stack and timers are gone; its trace says crash),
	// the others of the process running on.
	OpCrash = "crash"
	// OpRecover starts a node stopped by OpCrash again, in its next
	// incarnation with its stable storage, as a restarted process does.
	OpRecover = "recover"
	// OpCut makes the node's radio drop every frame from Peer, wherever
	// they are (hellos included: neighbour discovery loses Peer), until
	// OpHeal. It is one half of a cut link: the other half is Peer's.
	OpCut = "cut"
	// OpHeal ends OpCut.
	OpHeal = "heal"
)

// Control is a fault by hand for a hosted node, applied by the loop
// between two frames (Options.Faults).
type Control struct {
	Op   string
	Node protocol.NodeID
	Peer protocol.NodeID // OpCut, OpHeal
	// Done (buffered) gets when it was applied, on the run clock, or why
	// it was not.
	Done chan ControlDone
}

// ControlDone is the outcome of a Control.
type ControlDone struct {
	T   time.Duration
	Err error
}

// ControlDonePrefix begins the line a node process prints on its
// standard output for every control line it read: "control-done T_NS"
// once applied, "control-done error: WHY" when refused.
const ControlDonePrefix = "control-done"

// control applies c, a fault by hand, and answers on c.Done.
func (h *Host) control(c Control) {
	t := h.now() // a crash's trace event is this or a moment later
	err := h.applyControl(c)
	if c.Done != nil {
		c.Done <- ControlDone{T: t, Err: err}
	}
}

func (h *Host) applyControl(c Control) error {
	n := h.byID[c.Node]
	if n == nil {
		return fmt.Errorf("node %d is not hosted by this process", c.Node)
	}
	switch c.Op {
	case OpCrash:
		if !n.alive {
			return fmt.Errorf("node %d is down already", c.Node)
		}
		h.crashNode(n)
		return nil
	case OpRecover:
		if n.alive {
			return fmt.Errorf("node %d is up", c.Node)
		}
		return h.recoverNode(n)
	case OpCut, OpHeal:
		j, ok := h.index[c.Peer]
		if !ok || c.Peer == c.Node {
			return fmt.Errorf("no link between %d and %d", c.Node, c.Peer)
		}
		cut := c.Op == OpCut
		if n.cut[j] == cut {
			if cut {
				return fmt.Errorf("node %d no longer hears %d already", c.Node, c.Peer)
			}
			return fmt.Errorf("node %d hears %d already", c.Node, c.Peer)
		}
		if n.cut == nil {
			n.cut = map[int]bool{}
		}
		if cut {
			n.cut[j] = true
		} else {
			delete(n.cut, j)
		}
		return nil
	}
	return fmt.Errorf("unknown fault %q; want %s, %s, %s or %s", c.Op, OpCrash, OpRecover, OpCut, OpHeal)
}

// cutFrom reports whether hosted node n's radio drops frames from
// member index si (OpCut).
func (n *hosted) cutFrom(si int) bool { return n.cut != nil && n.cut[si] }
