package launch

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"manetlab/node"
	"manetlab/protocol"
	"manetlab/trace"
)

// manualOps are what supervise lends to a fault by hand: whether the run
// is over, the model time since the start, the record of a fault applied,
// and the schedule's own crash and recovery of a node's process.
type manualOps struct {
	over    func() bool
	since   func() time.Duration
	applied func(trace.Event)
	crash   func(protocol.NodeID, *proc)
	recover func(protocol.NodeID, *proc) bool
}

// controlTimeout bounds the wait for a node process's answer to a fault
// by hand (it answers from its loop, between two frames; a recovery
// boots the node).
const controlTimeout = 10 * time.Second

// manual applies a fault by hand (Options.Manual), or says why not. A
// node with a process of its own is crashed and recovered as the
// schedule does it (its process killed, started again); a node sharing
// its process is crashed and recovered inside it (node.OpCrash,
// node.OpRecover), the others running on. A cut is applied at each of
// its two nodes that runs here (manualCut).
func (l *launcher) manual(m ManualFault, ops manualOps) error {
	if m.Hosts[0] != "" {
		return errors.New("hosts are cut apart in a run over several (run --hosts); here, cut links between nodes")
	}
	if m.Peer != protocol.None || len(m.Sides[0]) > 0 {
		return l.manualCut(m, ops)
	}
	p := l.byID[m.Node]
	if p == nil {
		return fmt.Errorf("node %d does not run here", m.Node)
	}
	if ops.over() {
		return errors.New("the run is over")
	}
	shared := len(p.ids) > 1
	up := alive(p) && !l.down[m.Node]
	switch {
	case !m.Recover && !up:
		return fmt.Errorf("node %d is down already", m.Node)
	case m.Recover && up:
		return fmt.Errorf("node %d is up", m.Node)
	case shared && !alive(p):
		return fmt.Errorf("the process of nodes %s is gone (see the run's warnings): node %d cannot be recovered alone", FormatIDs(p.ids), m.Node)
	case shared:
		op, ev := node.OpCrash, trace.EvCrash
		if m.Recover {
			op, ev = node.OpRecover, trace.EvRecover
		}
		t, err := l.control(p, fmt.Sprintf("%s %d", op, m.Node))
		if err != nil {
			return err
		}
		if l.down == nil {
			l.down = map[protocol.NodeID]bool{}
		}
		if m.Recover {
			delete(l.down, m.Node)
		} else {
			l.down[m.Node] = true
		}
		ops.applied(trace.Event{T: int64(t), Node: m.Node, Ev: ev})
		return nil
	case !m.Recover:
		ops.crash(m.Node, p)
		return nil
	}
	if !ops.recover(m.Node, p) {
		return errors.New("the run ended while the node started")
	}
	if !alive(p) {
		return fmt.Errorf("node %d did not start again (see the run's warnings)", m.Node)
	}
	return nil
}

// maxSideLinks bounds the links one cut between two sides names (two
// hosts of 1,000 nodes each).
const maxSideLinks = 1_000_000

// manualCut cuts (or heals) the link between m.Node and m.Peer, or every
// link between m.Sides, at each of their nodes that runs here: its radio
// drops the other's frames (node.OpCut), and the half is recorded as a
// fault of that node (trace.EvCut, Peer the other). A node down now gets
// the cut when it starts again: the link stays cut across its crash. A
// single link must be in the other state; between sides, the halves
// already cut (or healed) are left.
func (l *launcher) manualCut(m ManualFault, ops manualOps) error {
	var halves [][2]protocol.NodeID
	sides := m.Peer == protocol.None
	if !sides {
		if m.Node == m.Peer {
			return fmt.Errorf("no link between node %d and itself", m.Node)
		}
		if l.byID[m.Node] == nil && l.byID[m.Peer] == nil {
			return fmt.Errorf("nodes %d and %d do not run here", m.Node, m.Peer)
		}
		halves = [][2]protocol.NodeID{{m.Node, m.Peer}, {m.Peer, m.Node}}
	} else {
		if n := len(m.Sides[0]) * len(m.Sides[1]); n > maxSideLinks {
			return fmt.Errorf("%d links between the two sides: at most %d are cut at once", n, maxSideLinks)
		}
		for _, a := range m.Sides[0] {
			for _, b := range m.Sides[1] {
				if a != b {
					halves = append(halves, [2]protocol.NodeID{a, b}, [2]protocol.NodeID{b, a})
				}
			}
		}
	}
	if ops.over() {
		return errors.New("the run is over")
	}
	cut := !m.Recover
	mine := halves[:0:0]
	for _, h := range halves {
		if l.byID[h[0]] == nil {
			continue
		}
		if l.cuts[h] == cut {
			if sides {
				continue
			}
			if cut {
				return fmt.Errorf("the link %d–%d is cut already", m.Node, m.Peer)
			}
			return fmt.Errorf("the link %d–%d is not cut", m.Node, m.Peer)
		}
		mine = append(mine, h)
	}
	if sides && len(mine) == 0 {
		return fmt.Errorf("no link between nodes %s and %s runs here that is not %s already", FormatIDs(m.Sides[0]), FormatIDs(m.Sides[1]), map[bool]string{true: "cut", false: "healed"}[cut])
	}
	op, ev := node.OpCut, trace.EvCut
	if !cut {
		op, ev = node.OpHeal, trace.EvHeal
	}
	for _, h := range mine {
		p := l.byID[h[0]]
		t := ops.since()
		if alive(p) { // a node down inside its process keeps the cut too
			var err error
			if t, err = l.control(p, fmt.Sprintf("%s %d %d", op, h[0], h[1])); err != nil {
				return err
			}
		}
		if l.cuts == nil {
			l.cuts = map[[2]protocol.NodeID]bool{}
		}
		if cut {
			l.cuts[h] = true
		} else {
			delete(l.cuts, h)
		}
		ops.applied(trace.Event{T: int64(t), Node: h[0], Peer: h[1], Ev: ev})
	}
	return nil
}

// restoreCuts gives a process started again the cuts of its nodes.
func (l *launcher) restoreCuts(p *proc) {
	for h := range l.cuts {
		if slices.Contains(p.ids, h[0]) {
			if _, err := l.control(p, fmt.Sprintf("%s %d %d", node.OpCut, h[0], h[1])); err != nil {
				l.warn("node %d restarted with its link to %d cut, but it did not take the cut: %v", h[0], h[1], err)
			}
		}
	}
}

// control hands a fault by hand to p's process on its standard input
// and waits for its answer: when it applied it, on the run clock.
func (l *launcher) control(p *proc, line string) (time.Duration, error) {
	in := p.inst
	if in == nil || in.ctl == nil {
		return 0, fmt.Errorf("%s takes no faults by hand", p.name())
	}
	select {
	case <-in.answers: // left by an earlier request that timed out
	default:
	}
	if _, err := in.ctl.Write([]byte(line + "\n")); err != nil {
		return 0, fmt.Errorf("%s: %w", p.name(), err)
	}
	select {
	case a := <-in.answers:
		if why, ok := strings.CutPrefix(a, "error: "); ok {
			return 0, errors.New(why)
		}
		ns, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s answered %q, want \"%s T_NS\"", p.name(), a, node.ControlDonePrefix)
		}
		return time.Duration(ns), nil
	case <-in.done:
		return 0, fmt.Errorf("%s ended before it answered", p.name())
	case <-time.After(controlTimeout):
		return 0, fmt.Errorf("%s did not answer within %s", p.name(), controlTimeout)
	}
}
